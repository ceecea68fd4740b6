// The section writer: .BTF added to or replaced in objects and executables
// built here, checked with readelf (section and program headers),
// llvm-objcopy --dump-section (the bytes), bpftool (the BTF reads back),
// eu-elflint (the file is well formed) and by running or linking the
// result. Failures must leave the previous target byte-identical.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <fstream>
#include <filesystem>
#include <map>
#include <sstream>

#include "base/error.h"
#include "elf/elf_file.h"
#include "elf/write_section.h"
#include "oracle.h"
#include "support/test_support.h"

namespace btfc {
namespace {

namespace fs = std::filesystem;
using test::compile_c;
using test::read_file;
using test::run;
using test::scratch_dir;

// A real BTF blob: what clang emits into a BPF object's .BTF.
std::string bpf_btf(const std::string& name, const std::string& source) {
  std::string obj = compile_c(name, source, "clang -target bpf -O2 -g -c");
  return test::dump_section(obj, ".BTF");
}

const std::string& btf_small() {
  static std::string b = bpf_btf("btf_small", "struct foo { int a; char b[4]; }; int fn(struct foo *f) { return f->a; }\n");
  return b;
}
const std::string& btf_large() {
  static std::string b = bpf_btf("btf_large",
                                 "struct bar { long x; struct bar *next; unsigned short y[3]; };\n"
                                 "union un { int i; char c; };\n"
                                 "typedef struct bar bar_t;\n"
                                 "int g1(bar_t *b, union un *u) { return b->y[1] + u->i; }\n"
                                 "long g2(struct bar *b) { return b->x; }\n");
  return b;
}

Bytes bytes_of(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

struct SectionRow {
  int index = 0;
  std::string type, addr, flags, link, info, align, entsize;
  uint64_t offset = 0, size = 0;
};

// readelf -SW, by section name.
std::map<std::string, SectionRow> sections_of(const std::string& file) {
  auto r = run("readelf -SW " + file);
  EXPECT_EQ(r.status, 0) << r.err;
  std::map<std::string, SectionRow> out;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    size_t b = line.find('['), e = line.find(']');
    if (b == std::string::npos || e == std::string::npos || e < b) continue;
    std::istringstream row(line.substr(e + 1));
    std::vector<std::string> t;
    for (std::string w; row >> w;) t.push_back(w);
    if (t.size() < 6 || t[0] == "Name" || t[0] == "NULL") continue;
    SectionRow s;
    s.index = std::atoi(line.c_str() + b + 1);
    s.type = t[1];
    s.addr = t[2];
    s.offset = std::stoull(t[3], nullptr, 16);
    s.size = std::stoull(t[4], nullptr, 16);
    s.entsize = t[5];
    // Flags may be absent: Lk Inf Al are always the last three.
    s.align = t.back();
    s.info = t[t.size() - 2];
    s.link = t[t.size() - 3];
    s.flags = t.size() == 10 ? t[6] : "";
    out[t[0]] = s;
  }
  return out;
}

// Every section of `before` except `changed` (and .shstrtab, which may move)
// has the same header fields and the same bytes in `after`; the program
// headers are the same.
void expect_rest_intact(const std::string& before, const std::string& after, const std::string& changed) {
  auto a = sections_of(before), b = sections_of(after);
  std::string fa = read_file(before), fb = read_file(after);
  // The section name table (by e_shstrndx: clang shares .strtab for it on
  // some targets) may grow by the new name and move.
  auto h = run("readelf -hW " + before + " | sed -n 's/.*string table index: *//p'");
  int shstrndx = std::atoi(h.out.c_str());
  bool added = !a.count(changed);
  for (const auto& [name, s] : a) {
    if (name == changed) continue;
    ASSERT_TRUE(b.count(name)) << name << " lost";
    const SectionRow& t = b.at(name);
    EXPECT_EQ(s.type, t.type) << name;
    EXPECT_EQ(s.addr, t.addr) << name;
    EXPECT_EQ(s.flags, t.flags) << name;
    EXPECT_EQ(s.link, t.link) << name;
    EXPECT_EQ(s.info, t.info) << name;
    EXPECT_EQ(s.align, t.align) << name;
    if (s.index == shstrndx && added) {
      // Old names are a prefix of the new table, the new name follows.
      EXPECT_EQ(t.size, s.size + changed.size() + 1) << name;
      EXPECT_EQ(fa.substr(s.offset, s.size) + changed + std::string(1, '\0'), fb.substr(t.offset, t.size)) << name;
      continue;
    }
    EXPECT_EQ(s.size, t.size) << name;
    if (s.type == "NOBITS") continue;
    EXPECT_EQ(s.offset, t.offset) << name << " moved";
    EXPECT_TRUE(fa.substr(s.offset, s.size) == fb.substr(t.offset, t.size)) << name << " bytes differ";
  }
  // The program headers, and which sections each segment holds, but for
  // `changed` (an empty allocated placeholder leaves its segment when it
  // gets its bytes at the end of the file).
  auto segments = [&](const std::string& file) {
    std::string out = run("readelf -lW " + file).out;
    const std::string token = " " + changed + " ";
    for (size_t at; (at = out.find(token)) != std::string::npos;) out.replace(at, token.size(), " ");
    return out;
  };
  EXPECT_EQ(segments(before), segments(after));
}

void expect_btf(const std::string& file, const std::string& btf) {
  EXPECT_EQ(test::dump_section(file, ".BTF"), btf);
  auto s = sections_of(file);
  ASSERT_TRUE(s.count(".BTF"));
  EXPECT_EQ(s[".BTF"].type, "PROGBITS");
  EXPECT_EQ(s[".BTF"].size, btf.size());
  // bpftool reads .BTF out of the ELF file and must see the same types as in
  // the raw blob.
  std::string raw = scratch_dir() + "/expect.btf";
  { std::ofstream(raw, std::ios::binary) << btf; }
  auto from_elf = run("bpftool btf dump file " + file);
  auto from_raw = run("bpftool btf dump file " + raw);
  EXPECT_EQ(from_elf.status, 0) << from_elf.err;
  EXPECT_FALSE(from_raw.out.empty());
  EXPECT_EQ(from_elf.out, from_raw.out);
}

void expect_elflint_clean(const std::string& file) {
  auto r = run("eu-elflint --gnu-ld " + file);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

constexpr char kLib[] = "struct s { int a; long b; }; struct s g = {1, 2}; int get(void) { return g.a + (int)g.b; }\n";

TEST(WriteSection, AddBtfToObject) {
  std::string obj = compile_c("wobj", kLib, "gcc -O2 -g -c");
  std::string out = scratch_dir() + "/wobj_btf.o";
  write_with_section(*elf::ElfFile::open(obj), ".BTF", bytes_of(btf_small()), out);
  expect_btf(out, btf_small());
  auto s = sections_of(out);
  EXPECT_EQ(s[".BTF"].flags, "");
  EXPECT_EQ(s[".BTF"].align, "4");
  EXPECT_EQ(s[".BTF"].offset % 4, 0u);
  expect_rest_intact(obj, out, ".BTF");
  expect_elflint_clean(out);
  // The object still links into a working program.
  std::string main_c = scratch_dir() + "/wmain.c";
  { std::ofstream(main_c) << "int get(void); int main(void) { return get(); }\n"; }
  auto r = run("gcc " + main_c + " " + out + " -o " + scratch_dir() + "/wlinked && " + scratch_dir() + "/wlinked");
  EXPECT_EQ(r.status, 3) << r.err;
}

TEST(WriteSection, AddBtfToExecutableInPlace) {
  std::string exe = compile_c("wexe", std::string(kLib) + "int main(void) { return get() + 4; }\n", "gcc -O2 -g");
  std::string before = scratch_dir() + "/wexe.before";
  fs::copy_file(exe, before);
  auto mode_before = fs::status(exe).permissions();
  write_with_section(*elf::ElfFile::open(exe), ".BTF", bytes_of(btf_small()), exe);  // in place
  expect_btf(exe, btf_small());
  expect_rest_intact(before, exe, ".BTF");
  expect_elflint_clean(exe);
  EXPECT_EQ(fs::status(exe).permissions(), mode_before);
  EXPECT_EQ(run(exe).status, 7);
}

TEST(WriteSection, ReplaceExistingBtf) {
  std::string obj = compile_c("wrep", kLib, "gcc -O2 -g -c");
  std::string one = scratch_dir() + "/wrep1.o", two = scratch_dir() + "/wrep2.o", three = scratch_dir() + "/wrep3.o";
  write_with_section(*elf::ElfFile::open(obj), ".BTF", bytes_of(btf_small()), one);
  // Larger: moves to the end. Smaller again: rewritten where it is.
  write_with_section(*elf::ElfFile::open(one), ".BTF", bytes_of(btf_large()), two);
  expect_btf(two, btf_large());
  expect_rest_intact(one, two, ".BTF");
  write_with_section(*elf::ElfFile::open(two), ".BTF", bytes_of(btf_small()), three);
  expect_btf(three, btf_small());
  expect_rest_intact(two, three, ".BTF");
  expect_elflint_clean(three);
  // Exactly one .BTF, and rewriting does not grow the file without bound.
  auto r = run("readelf -SW " + three + " | grep -c ' .BTF '");
  EXPECT_EQ(r.out, "1\n");
  EXPECT_LE(fs::file_size(three), fs::file_size(obj) + btf_small().size() + btf_large().size() + 256);
}

// A section the new contents make stale (.BTF.base of a distilled run,
// beside a .BTF written without one) is retired: no reader finds its name,
// its header stays at its index as SHT_NULL, so no index moves, and the
// file stays well formed and links. Absent, allocated or the rewritten
// section itself, `retire` changes nothing.
TEST(WriteSection, RetireStaleSection) {
  std::string obj = compile_c("wretire", kLib, "gcc -O2 -g -c");
  std::string one = scratch_dir() + "/wretire1.o", two = scratch_dir() + "/wretire2.o";
  write_with_section(*elf::ElfFile::open(obj), ".BTF", bytes_of(btf_large()), one);
  std::string base_blob = scratch_dir() + "/wretire.base";
  { std::ofstream(base_blob, std::ios::binary) << btf_small(); }
  ASSERT_EQ(run("objcopy --add-section .BTF.base=" + base_blob + " " + one).status, 0);
  const int base_index = sections_of(one).at(".BTF.base").index;
  write_with_section(*elf::ElfFile::open(one), ".BTF", bytes_of(btf_small()), two, ".BTF.base");
  expect_btf(two, btf_small());
  auto after = sections_of(two);
  EXPECT_EQ(after.count(".BTF.base"), 0u);
  EXPECT_EQ(run("readelf -SW " + two + " | grep -c 'BTF.base'").out, "0\n");
  auto row = run("readelf -SW " + two + " | grep -F '[" + std::to_string(base_index) + "]'");
  EXPECT_NE(row.out.find("NULL"), std::string::npos) << row.out;
  // The other sections keep their indices: the symbol table still names
  // the same sections (readelf -s prints them by index).
  auto syms = [&](const std::string& f) { return run("readelf -sW " + f + " | sed 1,3d").out; };
  EXPECT_EQ(syms(one), syms(two));
  expect_elflint_clean(two);
  std::string main_c = scratch_dir() + "/wretire_main.c";
  { std::ofstream(main_c) << "int get(void); int main(void) { return get(); }\n"; }
  EXPECT_EQ(run("gcc " + main_c + " " + two + " -o " + scratch_dir() + "/wretire_linked && " + scratch_dir() +
                "/wretire_linked").status, 3);
  // Nothing to retire, or not retirable: the same as without it.
  std::string three = scratch_dir() + "/wretire3.o", four = scratch_dir() + "/wretire4.o";
  write_with_section(*elf::ElfFile::open(two), ".BTF", bytes_of(btf_large()), three, ".BTF.base");
  write_with_section(*elf::ElfFile::open(two), ".BTF", bytes_of(btf_large()), four);
  EXPECT_TRUE(read_file(three) == read_file(four));
  write_with_section(*elf::ElfFile::open(one), ".BTF", bytes_of(btf_large()), three, ".BTF");
  write_with_section(*elf::ElfFile::open(one), ".BTF", bytes_of(btf_large()), four);
  EXPECT_TRUE(read_file(three) == read_file(four));
  std::string exe = compile_c("wretire_exe", std::string(kLib) + "int main(void) { return get() + 4; }\n", "gcc -O2 -g");
  fs::copy_file(exe, three, fs::copy_options::overwrite_existing);  // an executable's mode carries over
  write_with_section(*elf::ElfFile::open(exe), ".BTF", bytes_of(btf_small()), three, ".text");
  EXPECT_EQ(sections_of(three).count(".text"), 1u);
  EXPECT_EQ(run(three).status, 7);
}

// Two sections in one write (distilled_base's .BTF and .BTF.base): new,
// they are the last two sections in the order given, every other section
// keeps its bytes and its place, as two writes one after the other would
// leave them; written again, one fits where it is and the other moves.
TEST(WriteSection, TwoSectionsInOneWrite) {
  std::string obj = compile_c("wtwo", kLib, "gcc -O2 -g -c");
  const std::string one = scratch_dir() + "/wtwo1.o", step = scratch_dir() + "/wtwo_step.o",
                    two_steps = scratch_dir() + "/wtwo_steps.o", again = scratch_dir() + "/wtwo2.o";
  const elf::NewSection both[] = {{".BTF", bytes_of(btf_large())}, {".BTF.base", bytes_of(btf_small())}};
  write_with_sections(*elf::ElfFile::open(obj), both, one);
  write_with_section(*elf::ElfFile::open(obj), ".BTF", bytes_of(btf_large()), step);
  write_with_section(*elf::ElfFile::open(step), ".BTF.base", bytes_of(btf_small()), two_steps);

  auto before = sections_of(obj), after = sections_of(one), stepped = sections_of(two_steps);
  ASSERT_TRUE(after.count(".BTF") && after.count(".BTF.base"));
  const int count = static_cast<int>(before.size()) + 1;  // sections_of skips the null section 0
  EXPECT_EQ(after.at(".BTF").index, count);
  EXPECT_EQ(after.at(".BTF.base").index, count + 1);
  expect_btf(one, btf_large());
  EXPECT_EQ(test::dump_section(one, ".BTF.base"), btf_small());
  EXPECT_EQ(after.size(), stepped.size());
  const std::string fa = read_file(obj), fb = read_file(one);
  for (const auto& [name, s] : before) {
    ASSERT_TRUE(after.count(name)) << name << " lost";
    EXPECT_EQ(after.at(name).index, s.index) << name;
    if (s.type == "NOBITS") continue;
    EXPECT_EQ(test::dump_section(one, name), test::dump_section(two_steps, name)) << name;
    if (name == ".shstrtab") continue;
    EXPECT_EQ(after.at(name).offset, s.offset) << name << " moved";
    EXPECT_TRUE(fa.substr(s.offset, s.size) == fb.substr(s.offset, s.size)) << name << " bytes differ";
  }
  expect_elflint_clean(one);
  std::string main_c = scratch_dir() + "/wtwo_main.c";
  { std::ofstream(main_c) << "int get(void); int main(void) { return get(); }\n"; }
  EXPECT_EQ(run("gcc " + main_c + " " + one + " -o " + scratch_dir() + "/wtwo_linked && " + scratch_dir() +
                "/wtwo_linked").status, 3);

  // .BTF now fits where it is (the rest of its old bytes zeros), .BTF.base
  // grows and moves to the end: past them.
  const elf::NewSection swapped[] = {{".BTF", bytes_of(btf_small())}, {".BTF.base", bytes_of(btf_large())}};
  write_with_sections(*elf::ElfFile::open(one), swapped, again);
  auto rewritten = sections_of(again);
  EXPECT_EQ(rewritten.size(), after.size());
  EXPECT_EQ(rewritten.at(".BTF").offset, after.at(".BTF").offset);
  EXPECT_GE(rewritten.at(".BTF.base").offset, after.at(".BTF").offset + after.at(".BTF").size);
  EXPECT_EQ(read_file(again).substr(after.at(".BTF").offset + btf_small().size(),
                                    after.at(".BTF").size - btf_small().size()),
            std::string(after.at(".BTF").size - btf_small().size(), '\0'));
  expect_btf(again, btf_small());
  EXPECT_EQ(test::dump_section(again, ".BTF.base"), btf_large());
  expect_elflint_clean(again);

  const elf::NewSection twice[] = {{".BTF", bytes_of(btf_small())}, {".BTF", bytes_of(btf_large())}};
  EXPECT_THROW(write_with_sections(*elf::ElfFile::open(obj), twice, again), Error);
  EXPECT_EQ(test::dump_section(again, ".BTF.base"), btf_large());
}

// 32-bit and big-endian files, relocatable and linked.
TEST(WriteSection, OtherClassesAndByteOrders) {
  struct Case {
    const char* name;
    const char* cmd;
  } cases[] = {  // -fno-addrsig: eu-elflint does not know .llvm_addrsig
               {"w32o", "gcc -m32 -O2 -g -c"},
               {"w32exe", "gcc -m32 -O2 -g"},
               {"ws390", "clang --target=s390x-linux-gnu -fno-addrsig -O2 -g -c"},
               {"wppc32", "clang --target=powerpc-linux-gnu -fno-addrsig -O2 -g -c"},
               {"warm", "clang --target=arm-linux-gnueabi -fno-addrsig -O2 -g -c"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string src = kLib;
    if (std::string(c.cmd).find(" -c") == std::string::npos) src += "int main(void) { return get(); }\n";
    std::string in = compile_c(c.name, src, c.cmd);
    std::string out = in + ".btf";
    write_with_section(*elf::ElfFile::open(in), ".BTF", bytes_of(btf_large()), out);
    EXPECT_EQ(test::dump_section(out, ".BTF"), btf_large());
    expect_rest_intact(in, out, ".BTF");
    expect_elflint_clean(out);
    // And our own reader agrees with readelf on the new layout.
    auto f = elf::ElfFile::open(out);
    ASSERT_NE(f->find_section(".BTF"), nullptr);
  }
}

TEST(WriteSection, AllocatedSectionMayNotGrow) {
  // .rodata is in a loaded segment: growing it would need a new layout.
  std::string exe = compile_c("walloc", "const char msg[] = \"hi\"; int main(void) { return msg[0]; }\n", "gcc -O2 -g");
  std::string before = read_file(exe);
  auto in = elf::ElfFile::open(exe);
  std::string big(1 << 20, 'x');
  try {
    write_with_section(*in, ".rodata", bytes_of(big), exe);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(exe + ": .rodata+0x0: cannot grow allocated section .rodata"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_file(exe), before);
}

// ld.lld keeps an empty output section that GNU ld drops: the kernel's
// `.BTF : { __start_BTF = .; KEEP(*(.BTF)) __stop_BTF = .; }` is an
// allocated .BTF of 0 bytes in .tmp_vmlinux.btf of an LLVM=1 build, which
// `pahole -J` must fill and link-vmlinux.sh then takes out with objcopy.
// The placeholder becomes what GNU ld's output gets instead: a .BTF that
// is not loaded (no SHF_ALLOC, address 0), its contents at the end of the
// file; every other section and the program headers stay, no loaded
// address lies in two sections, and the program still runs.
TEST(WriteSection, EmptyAllocatedPlaceholderIsFilled) {
  std::string lds = scratch_dir() + "/wplaceholder.lds";
  { std::ofstream(lds) << "SECTIONS { .BTF : { __start_BTF = .; KEEP(*(.BTF)) __stop_BTF = .; } } INSERT AFTER .rodata;\n"; }
  std::string exe = compile_c("wplaceholder", "const char msg[] = \"hi\";\nint main(void) { return msg[0] == 'h' ? 5 : 1; }\n",
                              "clang -O2 -fuse-ld=lld -Wl,-T," + lds);
  auto before = sections_of(exe);
  ASSERT_EQ(before.count(".BTF"), 1u) << "ld.lld dropped the empty .BTF";
  ASSERT_EQ(before.at(".BTF").size, 0u);
  ASSERT_EQ(before.at(".BTF").flags, "A");
  std::string out = scratch_dir() + "/wplaceholder.out";
  fs::copy_file(exe, out, fs::copy_options::overwrite_existing);  // keeps the executable mode
  write_with_section(*elf::ElfFile::open(exe), ".BTF", bytes_of(btf_large()), out);
  EXPECT_EQ(test::dump_section(out, ".BTF"), btf_large());
  const SectionRow now = sections_of(out).at(".BTF");
  EXPECT_EQ(now.flags, "");
  EXPECT_EQ(std::stoull(now.addr, nullptr, 16), 0u);
  EXPECT_EQ(now.type, "PROGBITS");
  expect_rest_intact(exe, out, ".BTF");  // other sections, program headers
  EXPECT_EQ(run(out).status, 5);
  // link-vmlinux.sh's extraction, with both objcopys.
  for (const char* objcopy : {"objcopy", "llvm-objcopy"}) {
    SCOPED_TRACE(objcopy);
    std::string taken = scratch_dir() + "/wplaceholder." + objcopy + ".o";
    test::RunResult r = run(std::string(objcopy) + " --only-section=.BTF --set-section-flags .BTF=alloc,readonly --strip-all " +
                      out + " " + taken);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(test::dump_section(taken, ".BTF"), btf_large());
  }
}

TEST(WriteSection, FailedWriteLeavesTargetUntouched) {
  std::string obj = compile_c("wfail", kLib, "gcc -O2 -g -c");
  auto in = elf::ElfFile::open(obj);
  // The target's folder does not exist: nothing can be created.
  EXPECT_THROW(write_with_section(*in, ".BTF", bytes_of(btf_small()), scratch_dir() + "/no/such/dir/x.o"), Error);

  // A previous output exists; the write fails half way (file size limit),
  // so the old output must stay byte for byte, with no temporary left.
  std::string dir = scratch_dir() + "/wfail_dir";
  fs::create_directories(dir);
  std::string target = dir + "/out.o";
  write_with_section(*in, ".BTF", bytes_of(btf_small()), target);
  std::string previous = read_file(target);
  std::string big(4 << 20, 'b');  // bigger than the limit below
  struct rlimit old_limit;
  getrlimit(RLIMIT_FSIZE, &old_limit);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limit = {1 << 20, old_limit.rlim_max};
  setrlimit(RLIMIT_FSIZE, &limit);
  std::string message;
  try {
    write_with_section(*in, ".BTF", bytes_of(big), target);
  } catch (const Error& e) {
    message = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(message.find(target + ": write failed: File too large"), std::string::npos) << message;
  EXPECT_EQ(read_file(target), previous);
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 1u) << "a temporary file was left behind";
}

// The corpus: replace ext4.ko's .BTF with pahole 1.31's (split BTF on top of
// vmlinux's) and let bpftool read it back with that base.
TEST(WriteSectionCorpus, ReplaceModuleBtf) {
  std::string dir = test::corpus_dir();
  if (dir.empty()) GTEST_SKIP() << "LOUD SKIP: corpus not unpacked (scripts/unpack-corpus.sh)";
  // BTFC_SHARED_DIR in the environment wins (a worktree has no ../shared).
  const char* env = std::getenv("BTFC_SHARED_DIR");
  std::string ref = (env && *env ? std::string(env) : test::shared_dir()) + "/reference/pahole-1.31/";
  if (!fs::exists(ref + "ext4.legacy-flags.btf")) GTEST_SKIP() << "LOUD SKIP: no " << ref << "ext4.legacy-flags.btf";
  std::string btf = read_file(ref + "ext4.legacy-flags.btf");
  ASSERT_FALSE(btf.empty());
  std::string out = scratch_dir() + "/ext4.ko";
  write_with_section(*elf::ElfFile::open(dir + "/mods/ext4.ko"), ".BTF", bytes_of(btf), out);
  EXPECT_EQ(test::dump_section(out, ".BTF"), btf);
  expect_rest_intact(dir + "/mods/ext4.ko", out, ".BTF");
  std::string base = ref + "vmlinux.legacy-flags.btf";
  auto from_elf = run("bpftool btf dump file " + out + " --base-btf " + base + " | md5sum");
  auto from_raw = run("bpftool btf dump file " + ref + "ext4.legacy-flags.btf --base-btf " + base + " | md5sum");
  EXPECT_EQ(from_elf.out, from_raw.out);
  auto count = run("bpftool btf dump file " + out + " --base-btf " + base + " | wc -l");
  EXPECT_GT(std::stoul(count.out), 1000u);
}

}  // namespace
}  // namespace btfc

namespace btfc {
namespace {

// vmlinux: section headers at the end, .BTF inside a loaded segment. Adding
// a section keeps every segment; rewriting .BTF with contents of the same
// size happens in place; growing it is refused with a clear message.
TEST(WriteSectionCorpus, Vmlinux) {
  std::string dir = test::corpus_dir();
  if (dir.empty()) GTEST_SKIP() << "LOUD SKIP: corpus not unpacked (scripts/unpack-corpus.sh)";
  std::string vmlinux = dir + "/vmlinux";
  auto in = elf::ElfFile::open(vmlinux);
  std::string out = scratch_dir() + "/vmlinux.out";

  write_with_section(*in, ".BTF.extra", bytes_of(btf_small()), out);
  EXPECT_EQ(test::dump_section(out, ".BTF.extra"), btf_small());
  expect_rest_intact(vmlinux, out, ".BTF.extra");
  fs::remove(out);

  const elf::Section* btf = in->find_section(".BTF");
  ASSERT_NE(btf, nullptr);
  Bytes same = in->raw_data(*btf);
  write_with_section(*in, ".BTF", same, out);
  auto r = run("cmp " + vmlinux + " " + out);
  EXPECT_EQ(r.status, 0) << "rewriting .BTF with its own bytes must give the same file\n" << r.out;
  fs::remove(out);

  std::vector<uint8_t> bigger(same.begin(), same.end());
  bigger.resize(bigger.size() + 16);
  try {
    write_with_section(*in, ".BTF", bigger, out);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(": .BTF+0x0: cannot grow allocated section .BTF"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace btfc
