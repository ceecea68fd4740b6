// --btf_features=distilled_base end to end: a module encoded in place with
// --btf_base gets .BTF (split BTF on a distilled base) and .BTF.base (the
// distilled base), as pahole 1.31 writes them.
//
// Oracles: readelf (the sections are there, in pahole's order), bpftool
// 7.1 (reads .BTF.base as standalone BTF and .BTF on it with -B), and
// relocation the way the kernel's btf_relocate.c does it: relocated onto
// the full base and deduplicated, the module's BTF must be the BTF of the
// plain encoding (btfc's semantic diff) - for a C fixture against Debian's
// pahole-free path, and for ext4 and kvm against pahole 1.31's reference
// module BTF (suite DistilledBaseCorpus).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>

#include "btf/btf_test_util.h"
#include "btf/dedup.h"
#include "btf/diff.h"
#include "btf/distill.h"
#include "btf/reader.h"
#include "elf/elf_file.h"
#include "support/test_support.h"

namespace btfc::convert {
namespace {

using btf::testing::reference_dir;

// Types both "vmlinux" and the module know: the module's copies dedup
// into the base's.
const char* kShared = R"(
struct list_head { struct list_head *next, *prev; };
struct inode { unsigned long i_ino; struct list_head i_list; int mode; };
struct super_block { struct inode *root; long flags; };
typedef struct { int counter; } atomic_t;
enum state { S_A, S_B };
union key { int i; long l; };
struct opaque;
struct holder { struct opaque *o; atomic_t cnt; enum state st; union key k; struct { int x, y; } point; float f; };
)";

const char* kBase = R"(
struct holder h; struct inode ino; struct super_block sb;
)";

// The module embeds struct inode and an array of list_head (sizes must
// survive), points to super_block/holder, and uses the anonymous atomic_t
// struct (which must travel whole).
const char* kModule = R"(
struct mod_state { struct inode embedded; atomic_t refs; struct super_block *sb; struct list_head list[2];
                   enum state st; struct holder *h; union key k; };
struct mod_state ms;
int mod_fn(struct inode *i, struct mod_state *m) { return i->mode + m->refs.counter; }
)";

struct Sections {
  btf::Btf base;   // .BTF.base
  btf::Btf split;  // .BTF, split on `base`
};

// Reads .BTF.base and .BTF of an ELF file with btfc's validating reader.
// Returned through a unique_ptr: `split` points at `base`.
std::unique_ptr<Sections> read_sections(const std::string& path) {
  auto elf = elf::ElfFile::open(path);
  const elf::Section* b = elf->find_section_exact(".BTF.base");
  const elf::Section* s = elf->find_section_exact(".BTF");
  if (!b || !s) throw Error(path + ": no .BTF.base or no .BTF section");
  auto out = std::make_unique<Sections>();
  out->base = btf::read_raw(elf->section_data(*b), nullptr, ".BTF.base");
  out->split = btf::read_raw(elf->section_data(*s), &out->base);
  return out;
}

// The relocation oracle: `elf_path`'s distilled pair, relocated onto
// `full_base` and deduplicated, is `plain`.
void expect_relocates_to(const std::string& elf_path, const btf::Btf& full_base, const btf::Btf& plain,
                         const std::string& plain_name) {
  std::unique_ptr<Sections> s = read_sections(elf_path);
  btf::Btf back = btf::relocate(s->split, full_base);
  btf::validate(back);
  btf::dedup(back);
  btf::DiffResult d = btf::diff(back, plain, {"distilled+relocated", plain_name});
  EXPECT_TRUE(d.equivalent) << d.report;
  EXPECT_EQ(back.type_count(), plain.type_count());
}

// readelf: .BTF then .BTF.base, both PROGBITS; returns their header lines.
void expect_section_headers(const std::string& path) {
  test::RunResult r = test::run("readelf -S -W " + path);
  ASSERT_EQ(r.status, 0) << r.err;
  size_t btf = r.out.find(" .BTF "), base = r.out.find(" .BTF.base ");
  ASSERT_NE(btf, std::string::npos) << r.out;
  ASSERT_NE(base, std::string::npos) << r.out;
  EXPECT_LT(btf, base) << "pahole writes .BTF first, then .BTF.base";
  std::string line = r.out.substr(base, r.out.find('\n', base) - base);
  EXPECT_NE(line.find("PROGBITS"), std::string::npos) << line;
}

// bpftool reads the distilled base alone: only named INT/FLOAT/FWD and
// memberless STRUCT/UNION/ENUM. Returns its dump.
std::string expect_bpftool_reads_distilled(const std::string& path, const std::string& dir) {
  std::string base = dir + "/dist.raw", split = dir + "/split.raw";
  test::RunResult x = test::run("objcopy --dump-section .BTF.base=" + base + " --dump-section .BTF=" + split + " " +
                                path + " " + dir + "/objcopy.out");
  EXPECT_EQ(x.status, 0) << x.err;
  test::RunResult b = test::run("bpftool btf dump file " + base);
  EXPECT_EQ(b.status, 0) << b.err;
  std::istringstream in(b.out);
  std::string line;
  size_t types = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '[') {
      ADD_FAILURE() << "a distilled base type has members: " << line;
      continue;
    }
    types++;
    EXPECT_EQ(line.find("'(anon)'"), std::string::npos) << line;
    bool placeholder = line.find(" STRUCT ") != std::string::npos || line.find(" UNION ") != std::string::npos ||
                       line.find(" ENUM ") != std::string::npos;
    bool whole = line.find(" INT ") != std::string::npos || line.find(" FLOAT ") != std::string::npos ||
                 line.find(" FWD ") != std::string::npos;
    EXPECT_TRUE(placeholder || whole) << line;
    if (placeholder) {
      EXPECT_NE(line.find(" vlen=0"), std::string::npos) << line;
    }
  }
  EXPECT_GT(types, 0u);
  test::RunResult s = test::run("bpftool btf dump file " + split + " -B " + base);
  EXPECT_EQ(s.status, 0) << s.err;
  return b.out + s.out;
}

// The fixture base and module, in a folder of their own: the base's BTF,
// and the module's plain split BTF on it (what a distilled module must
// relocate back to). `name` keeps each test's files apart.
struct Fixture {
  std::string dir, mod_o, base_btf, plain;
};
void make_fixture(const std::string& name, Fixture& f) {
  f.dir = test::scratch_dir() + "/distill_" + name;
  std::filesystem::create_directories(f.dir);
  std::string base_o = test::compile_c("distill_base_" + name, std::string(kShared) + kBase, "gcc -g -c");
  f.mod_o = test::compile_c("distill_mod_" + name, std::string(kShared) + kModule, "gcc -g -c");
  f.base_btf = f.dir + "/base.btf";
  f.plain = f.dir + "/plain.btf";
  ASSERT_EQ(test::run_btfc("encode --btf_features=default --btf_encode_detached=" + f.base_btf + " " + base_o).status, 0);
  test::RunResult r = test::run_btfc("encode --btf_features=default --btf_base " + f.base_btf +
                                     " --btf_encode_detached=" + f.plain + " " + f.mod_o);
  ASSERT_EQ(r.status, 0) << r.err;
}

TEST(DistilledBase, FixtureModuleInPlace) {
  Fixture f;
  ASSERT_NO_FATAL_FAILURE(make_fixture("fixture", f));
  const std::string &dir = f.dir, &base_btf = f.base_btf, &plain = f.plain;

  std::string ko = dir + "/mod.o";
  std::filesystem::copy_file(f.mod_o, ko);
  test::RunResult r = test::run_btfc("encode -J --btf_features=default,distilled_base --btf_base " + base_btf + " " + ko);
  ASSERT_EQ(r.status, 0) << r.err;
  expect_section_headers(ko);
  std::string dumps = expect_bpftool_reads_distilled(ko, dir);
  // The embedded struct keeps its size; the anonymous struct behind
  // atomic_t moved into the module's part with its typedef.
  EXPECT_NE(dumps.find("STRUCT 'inode' size=32 vlen=0"), std::string::npos) << dumps;
  EXPECT_NE(dumps.find("TYPEDEF 'atomic_t'"), std::string::npos) << dumps;
  EXPECT_NE(dumps.find("STRUCT 'mod_state'"), std::string::npos) << dumps;

  btf::Btf full = btf::read_file(base_btf);
  btf::Btf plain_btf = btf::read_file(plain, &full);
  expect_relocates_to(ko, full, plain_btf, "plain");
  // read_file relocates by itself when given the base (libbpf 1.5 does),
  // so `btfc dump/diff --base` read such a module; without a base it is
  // an error that says what to do.
  btf::Btf via_reader = btf::read_file(ko, &full);
  btf::dedup(via_reader);
  btf::DiffResult d = btf::diff(via_reader, plain_btf, {"read_file", "plain"});
  EXPECT_TRUE(d.equivalent) << d.report;
  test::RunResult diff_cli = test::run_btfc("diff " + ko + " " + ko + " --base " + base_btf);
  EXPECT_EQ(diff_cli.status, 0) << diff_cli.out << diff_cli.err;
  test::RunResult no_base = test::run_btfc("dump " + ko);
  EXPECT_EQ(no_base.status, 1);
  EXPECT_NE(no_base.err.find("give the full base"), std::string::npos) << no_base.err;

  // Encoding the result again rewrites both sections to the same bytes.
  std::unique_ptr<Sections> first = read_sections(ko);
  r = test::run_btfc("encode -J --btf_features=default,distilled_base --btf_base " + base_btf + " " + ko);
  ASSERT_EQ(r.status, 0) << r.err;
  std::unique_ptr<Sections> second = read_sections(ko);
  EXPECT_TRUE(std::equal(first->base.words().begin(), first->base.words().end(), second->base.words().begin(),
                         second->base.words().end()));
  EXPECT_TRUE(std::equal(first->split.words().begin(), first->split.words().end(), second->split.words().begin(),
                         second->split.words().end()));
  for (auto& e : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".btfc-distill"), std::string::npos) << "left behind: " << e.path();
}

// What Makefile.modfinal runs for an out-of-tree module (Linux 6.11+):
// pahole mode, PAHOLE_FLAGS' feature list, then MODULE_PAHOLE_FLAGS'
// second --btf_features=distilled_base (a later list adds to the first),
// vmlinux as base. Several modules in one run (batch mode) each get their
// own pair.
TEST(DistilledBase, KbuildCommandLineAndBatch) {
  Fixture f;
  ASSERT_NO_FATAL_FAILURE(make_fixture("kbuild", f));
  const std::string &dir = f.dir, &mod_o = f.mod_o, &base_btf = f.base_btf, &plain = f.plain;
  std::string a = dir + "/a.ko", b = dir + "/b.ko";
  std::filesystem::copy_file(mod_o, a);
  std::filesystem::copy_file(mod_o, b);
  std::string pahole = (std::filesystem::path(BTFC_BINARY).parent_path() / "pahole").string();
  test::RunResult r = test::run(pahole + " -J -j --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,"
                                "optimized_func,consistent_func,decl_tag_kfuncs --lang_exclude=rust "
                                "--btf_features=distilled_base --btf_base " + base_btf + " " + a);
  ASSERT_EQ(r.status, 0) << r.err;
  btf::Btf full = btf::read_file(base_btf);
  btf::Btf plain_btf = btf::read_file(plain, &full);
  expect_section_headers(a);
  expect_relocates_to(a, full, plain_btf, "plain");
  r = test::run_btfc("encode -j --btf_features=default,distilled_base --btf_base " + base_btf + " " + a + " " + b);
  ASSERT_EQ(r.status, 0) << r.err;
  for (const std::string& ko : {a, b}) {
    SCOPED_TRACE(ko);
    expect_section_headers(ko);
    expect_relocates_to(ko, full, plain_btf, "plain");
  }
}

// pahole 1.31 distills only on its ELF path: with --btf_encode_detached
// the feature is ignored and the output is the plain split BTF.
TEST(DistilledBase, IgnoredForDetachedOutput) {
  Fixture f;
  ASSERT_NO_FATAL_FAILURE(make_fixture("detached", f));
  const std::string &dir = f.dir, &mod_o = f.mod_o, &base_btf = f.base_btf, &a = f.plain;
  std::string b = dir + "/b.btf";
  ASSERT_EQ(test::run_btfc("encode --btf_features=default,distilled_base --btf_base " + base_btf +
                           " --btf_encode_detached=" + b + " " + mod_o).status, 0);
  EXPECT_EQ(test::read_file(a), test::read_file(b));
  // Standalone and detached: ignored as well.
  std::string c = dir + "/c.btf";
  test::RunResult r = test::run_btfc("encode --btf_features=default,distilled_base --btf_encode_detached=" + c + " " +
                                     mod_o);
  EXPECT_EQ(r.status, 0) << r.err;
}

// Encoded in place with distilled_base, then again without it: the old
// .BTF.base would make libbpf (and the kernel) read the new .BTF, split on
// the full base, on the old distilled one, so it is retired. libbpf
// (bpftool -B) then reads the file as the plain split BTF; distilled
// again, the file gets a .BTF.base anew.
TEST(DistilledBase, PlainRewriteRetiresTheOldBase) {
  Fixture f;
  ASSERT_NO_FATAL_FAILURE(make_fixture("retire", f));
  const std::string &mod_o = f.mod_o, &base_btf = f.base_btf, &plain = f.plain;
  ASSERT_EQ(test::run_btfc("encode --btf_features=default,distilled_base --btf_base " + base_btf + " " + mod_o).status, 0);
  ASSERT_NE(test::run("readelf -SW " + mod_o).out.find(".BTF.base"), std::string::npos);
  ASSERT_EQ(test::run_btfc("encode --btf_features=default --btf_base " + base_btf + " " + mod_o).status, 0);
  EXPECT_EQ(test::run("readelf -SW " + mod_o).out.find(".BTF.base"), std::string::npos);
  test::RunResult from_file = test::run("bpftool btf dump file " + mod_o + " -B " + base_btf);
  test::RunResult from_plain = test::run("bpftool btf dump file " + plain + " -B " + base_btf);
  ASSERT_EQ(from_file.status, 0) << from_file.err;
  EXPECT_EQ(from_file.out, from_plain.out);
  btf::Btf full = btf::read_file(base_btf);
  btf::Btf plain_btf = btf::read_file(plain, &full);
  ASSERT_EQ(test::run_btfc("encode --btf_features=default,distilled_base --btf_base " + base_btf + " " + mod_o).status, 0);
  expect_section_headers(mod_o);
  expect_relocates_to(mod_o, full, plain_btf, "distilled again");
}

// In place without --btf_base: libbpf's btf__distill_base() refuses
// standalone BTF (EINVAL) and pahole 1.31 fails with "could not generate
// distilled base BTF: Invalid argument". btfc fails the same way and
// leaves the file untouched.
TEST(DistilledBase, InPlaceWithoutBaseFailsLikePahole) {
  std::string mod_o = test::compile_c("distill_nobase", std::string(kShared) + kModule, "gcc -g -c");
  std::string before = test::read_file(mod_o);
  test::RunResult r = test::run_btfc("encode -J --btf_features=default,distilled_base " + mod_o);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("could not generate distilled base BTF: Invalid argument"), std::string::npos) << r.err;
  EXPECT_EQ(test::read_file(mod_o), before);
  for (auto& e : std::filesystem::directory_iterator(std::filesystem::path(mod_o).parent_path()))
    EXPECT_EQ(e.path().filename().string().find(".btfc-distill"), std::string::npos) << "left behind: " << e.path();
}

// Real modules, the way a kernel build with out-of-tree modules calls
// pahole (MODULE_PAHOLE_FLAGS adds distilled_base), against pahole 1.31's
// reference output for the plain split encoding.
TEST(DistilledBaseCorpus, Ext4AndKvmRelocateOntoVmlinux) {
  if (test::corpus_dir().empty()) GTEST_SKIP() << "*** corpus not unpacked (scripts/test.sh does it): NOT CHECKED ***";
  std::string vm = reference_dir() + "/vmlinux.features-default.btf";
  btf::Btf full = btf::read_file(vm);
  for (const char* m : {"ext4", "kvm"}) {
    SCOPED_TRACE(m);
    std::string dir = test::scratch_dir() + "/distill_" + m;
    std::filesystem::create_directories(dir);
    std::string ko = dir + "/" + m + ".ko";
    std::filesystem::copy_file(test::corpus_dir() + "/mods/" + m + ".ko", ko);
    test::RunResult r = test::run_btfc("encode -J -j --btf_features=default,distilled_base --lang_exclude=rust "
                                       "--btf_base " + vm + " " + ko);
    ASSERT_EQ(r.status, 0) << r.err;
    expect_section_headers(ko);
    expect_bpftool_reads_distilled(ko, dir);
    // Compared after a second dedup: pahole 1.31's kvm is not a fixed point
    // of dedup (its private gfn_to_pfn_cache merges into vmlinux's).
    btf::Btf ref = btf::read_file(reference_dir() + "/" + m + ".features-default.btf", &full);
    btf::dedup(ref);
    expect_relocates_to(ko, full, ref, "pahole-1.31+dedup");
  }
}

}  // namespace
}  // namespace btfc::convert
