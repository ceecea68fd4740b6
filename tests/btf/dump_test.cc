// `btfc dump` against `bpftool btf dump file` (bpftool 7.1, the oracle): the
// two outputs must be byte-identical. A small table holding every kind and
// every printing variant (signed enums, 64-bit enums, bitfields, linkages,
// tags, datasec) runs everywhere; the pahole reference files, the corpus'
// .BTF sections and the running kernel's BTF run in the Corpus suites.
// The same inputs check that reading then writing gives the input bytes
// back, and that a big-endian copy reads back to the same dump.
#include <gtest/gtest.h>

#include <fstream>

#include "btf/dump.h"
#include "btf/reader.h"
#include "btf/writer.h"
#include "btf_test_util.h"
#include "elf/elf_file.h"

namespace btfc::btf {
namespace {

using testing::read_bytes;
using testing::reference_dir;

std::string write_temp(const std::string& name, const std::vector<uint8_t>& bytes) {
  std::string path = test::scratch_dir() + "/" + name;
  write_raw_file(path, read_raw(bytes));  // also exercises the atomic writer
  return path;
}

// Compares `btfc dump` with `bpftool btf dump file`, both run as commands.
void expect_dump_matches_bpftool(const std::string& file, const std::string& base = "") {
  ASSERT_TRUE(test::tool_exists("bpftool")) << "bpftool (the oracle) is not installed";
  test::RunResult ours = test::run_btfc("dump " + file + (base.empty() ? "" : " --base " + base));
  test::RunResult ref = test::run("bpftool btf dump file " + file + (base.empty() ? "" : " -B " + base));
  ASSERT_EQ(ref.status, 0) << "bpftool failed on " << file << ": " << ref.err;
  ASSERT_EQ(ours.status, 0) << ours.err;
  ASSERT_GT(ref.out.size(), 0u);
  if (ours.out != ref.out) {
    // Point at the first differing line rather than print 10 MB.
    size_t i = 0;
    while (i < ours.out.size() && i < ref.out.size() && ours.out[i] == ref.out[i]) ++i;
    size_t line = ref.out.rfind('\n', i == 0 ? 0 : i - 1);
    line = line == std::string::npos ? 0 : line + 1;
    FAIL() << file << ": dumps differ at byte " << i << "\nbpftool: " << ref.out.substr(line, 200)
           << "\nbtfc:    " << ours.out.substr(line, 200);
  }
}

// Read, write: same bytes; write big-endian, read: same dump.
void expect_round_trip(const std::vector<uint8_t>& bytes, const Btf* base = nullptr) {
  Btf b = read_raw(bytes, base);
  EXPECT_TRUE(write_raw(b) == bytes) << "read + write changed the bytes";
  std::string dump;
  dump_raw(b, dump);
  std::vector<uint8_t> be = write_raw(b, true);
  ASSERT_EQ(be.size(), bytes.size());
  Btf back = read_raw(be, base);
  std::string dump_be;
  dump_raw(back, dump_be);
  EXPECT_TRUE(dump == dump_be) << "big-endian copy dumps differently";
  EXPECT_TRUE(write_raw(back) == bytes);
}

// Every kind and every variant of each line bpftool prints.
Btf every_kind() {
  Btf b;
  TypeId i = b.add_int("int", 4, INT_SIGNED);
  TypeId u8 = b.add_int("unsigned char", 1, 0);
  b.add_int("_Bool", 1, INT_BOOL);
  b.add_int("char", 1, INT_CHAR);
  TypeId ptr = b.add_ptr(0);  // void *
  TypeId arr = b.add_array(u8, i, 16);
  TypeId s = b.add_struct("s", 40);
  b.add_member("a", i, 0);
  b.add_member("", ptr, 64);
  b.add_member("bf", i, 128, 3);
  b.add_member("bf2", u8, 131, 5);
  b.add_member("arr", arr, 136);
  b.add_union("", 4);
  b.add_member("x", i, 0);
  b.add_member("y", u8, 0);
  b.add_enum("e", 4);
  b.add_enum_value("E_A", 0);
  b.add_enum_value("E_B", 4294967295ll);
  b.add_enum("se", 4);
  b.add_enum_value("S_NEG", -2147483648ll);
  b.add_enum_value("S_POS", 7);
  b.add_enum64("e64", 8, false);
  b.add_enum64_value("BIG", 0xffffffffffffffffull);
  b.add_enum64("se64", 8, true);
  b.add_enum64_value("NEG", static_cast<uint64_t>(-5ll));
  b.add_fwd("fs", false);
  b.add_fwd("fu", true);
  TypeId td = b.add_typedef("t", s);
  b.add_volatile(i);
  TypeId c = b.add_const(i);
  b.add_restrict(ptr);
  TypeId proto = b.add_func_proto(i);
  b.add_param("p", c);
  b.add_param("", 0);  // varargs
  TypeId f = b.add_func("f", proto, FuncLinkage::Static);
  b.add_func("g", proto, FuncLinkage::Global);
  b.add_func("h", proto, FuncLinkage::Extern);
  TypeId v1 = b.add_var("v1", i, VarLinkage::Static);
  TypeId v2 = b.add_var("v2", td, VarLinkage::GlobalAllocated);
  b.add_var("v3", i, VarLinkage::GlobalExtern);
  b.add_datasec(".data", 64);
  b.add_datasec_var(v1, 0, 4);
  b.add_datasec_var(v2, 8, 40);
  b.add_float("double", 8);
  b.add_decl_tag("tag1", f, -1);
  b.add_decl_tag("tag2", f, 0);
  b.add_decl_tag("tag3", s, 2);
  b.add_type_tag("user", i);
  return b;
}

TEST(BtfDump, EveryKindMatchesBpftool) {
  std::vector<uint8_t> bytes = write_raw(every_kind());
  std::string path = write_temp("every_kind.btf", bytes);
  expect_dump_matches_bpftool(path);
  expect_round_trip(bytes);
}

TEST(BtfDump, SplitMatchesBpftool) {
  Btf base = every_kind();
  Btf split(&base);
  TypeId s = split.add_struct("mod_s", 8);
  split.add_member("int", 1, 0);  // reuses the base's string "int"
  split.add_member("mine", s + 1, 32);
  split.add_typedef("mod_t", 1);
  std::string base_path = write_temp("base.btf", write_raw(base));
  std::string path = test::scratch_dir() + "/split.btf";
  write_raw_file(path, split);
  expect_dump_matches_bpftool(path, base_path);
  expect_round_trip(write_raw(split), &base);
}

// Real compiler output: clang -target bpf writes .BTF into the object file
// (DATASEC sizes still 0, as libbpf fixes them at load time).
TEST(BtfDump, ClangBpfObjectMatchesBpftool) {
  ASSERT_TRUE(test::tool_exists("clang-14")) << "clang-14 is a build dependency";
  std::string obj = test::compile_c("bpf_prog", R"(
    struct list { struct list *next, *prev; };
    enum color { RED, GREEN = -3, BLUE };
    typedef unsigned long size_t;
    struct s {
      int a;
      unsigned b : 3, c : 5;
      char name[16];
      struct list l;
      union { int i; float f; } u;
      enum color col;
      const volatile size_t *p;
    };
    struct s global_s;
    static int counter;
    int __attribute__((btf_decl_tag("tag"))) fn(struct s *s, int n) { return s->a + n + counter; }
  )", "clang-14 -target bpf -g -O2 -c");
  expect_dump_matches_bpftool(obj);
}

TEST(BtfDump, UsageErrors) {
  test::RunResult r = test::run_btfc("dump");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("missing FILE"), std::string::npos) << r.err;
  r = test::run_btfc("dump a b");
  EXPECT_EQ(r.status, 2);
}

// pahole 1.31's outputs: the standalone vmlinux encodings and the modules on
// their matching vmlinux.
TEST(BtfDumpCorpus, PaholeReferences) {
  std::string dir = reference_dir();
  for (const char* flavour : {"legacy-flags", "features-default", "features-default-global_var"}) {
    SCOPED_TRACE(flavour);
    std::string vmlinux = dir + "/vmlinux." + flavour + ".btf";
    expect_dump_matches_bpftool(vmlinux);
    std::vector<uint8_t> vbytes = read_bytes(vmlinux);
    expect_round_trip(vbytes);
    if (std::string(flavour) == "features-default-global_var") continue;  // no modules made with it
    Btf base = read_raw(vbytes);
    for (const std::string& mod : testing::reference_modules()) {
      SCOPED_TRACE(mod);
      std::string file = dir + "/" + mod + "." + flavour + ".btf";
      expect_dump_matches_bpftool(file, vmlinux);
      expect_round_trip(read_bytes(file), &base);
    }
  }
}

// The .BTF sections Debian's build put into the corpus vmlinux and modules.
TEST(BtfDumpCorpus, CorpusElfSections) {
  std::string dir = test::corpus_dir();
  if (dir.empty()) GTEST_SKIP() << "\n*** corpus not unpacked (see ../shared/corpus/README.md): NOT TESTED ***\n";
  std::string vmlinux = dir + "/vmlinux";
  expect_dump_matches_bpftool(vmlinux);
  auto velf = elf::ElfFile::open(vmlinux);
  Bytes vsec = velf->section_data(*velf->find_section(".BTF"));
  std::vector<uint8_t> vbytes(vsec.begin(), vsec.end());
  expect_round_trip(vbytes);
  Btf base = read_raw(vbytes);
  for (const std::string& mod : test::corpus_modules()) {
    SCOPED_TRACE(mod);
    std::string file = dir + "/mods/" + mod + ".ko";
    expect_dump_matches_bpftool(file, vmlinux);
    auto elf = elf::ElfFile::open(file);
    Bytes sec = elf->section_data(*elf->find_section(".BTF"));
    expect_round_trip(std::vector<uint8_t>(sec.begin(), sec.end()), &base);
  }
}

TEST(BtfDumpCorpus, RunningKernel) {
  const std::string sys = "/sys/kernel/btf/vmlinux";
  if (!std::filesystem::exists(sys)) GTEST_SKIP() << "\n*** " << sys << " does not exist: NOT TESTED ***\n";
  expect_dump_matches_bpftool(sys);
  expect_round_trip(read_bytes(sys));
}

}  // namespace
}  // namespace btfc::btf
