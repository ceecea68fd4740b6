// `btfc dump` against `bpftool btf dump file` (bpftool 7.1, the oracle): the
// two outputs must be byte-identical, in the raw and the C-header format. A small table holding every kind and
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
#include "support/random_btf.h"

namespace btfc::btf {
namespace {

using testing::every_kind;
using testing::read_bytes;
using testing::reference_dir;

std::string write_temp(const std::string& name, const std::vector<uint8_t>& bytes) {
  std::string path = test::scratch_dir() + "/" + name;
  write_raw_file(path, read_raw(bytes));  // also exercises the atomic writer
  return path;
}

// Compares `btfc dump` with `bpftool btf dump file`, both run as commands,
// in bpftool's raw format or (c_format) its C-header format.
void expect_dump_matches_bpftool(const std::string& file, const std::string& base = "", bool c_format = false) {
  ASSERT_TRUE(test::tool_exists("bpftool")) << "bpftool (the oracle) is not installed";
  test::RunResult ours = test::run_btfc("dump " + file + (base.empty() ? "" : " --base " + base) +
                                        (c_format ? " --format c" : ""));
  test::RunResult ref = test::run("bpftool btf dump file " + file + (base.empty() ? "" : " -B " + base) +
                                  (c_format ? " format c" : ""));
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

TEST(BtfDump, EveryKindMatchesBpftool) {
  std::vector<uint8_t> bytes = write_raw(every_kind());
  std::string path = write_temp("every_kind.btf", bytes);
  expect_dump_matches_bpftool(path);
  expect_dump_matches_bpftool(path, "", true);
  expect_round_trip(bytes);
}

// The C-header format on what makes it hard: definition order with pointer
// cycles (struct A <-> struct B), anonymous nested structs and enums,
// function pointers and arrays of them, multi-dimensional and flexible
// arrays, qualifiers, bitfields with explicit padding, packed structs, enum
// sizes, a top-level anonymous enum, typedef chains. Compiled twice: clang
// writing BTF itself, and gcc's DWARF converted by pahole -J.
const char* const kCFixture = R"(
typedef int (*handler_t)(void *ctx, const char *name, ...);
enum small { S_A, S_B } __attribute__((packed));
enum big { B_A = 1, B_B = 0x100000000ULL };
enum { ANON_X = 5, ANON_Y = -1 };
struct inner { int a; char b; };
struct __attribute__((packed)) packed_s { char c; int i; short s; };
struct bits { unsigned a : 3; unsigned : 0; unsigned b : 7; long long c : 40; char d; };
struct pad { char c; long l; char tail; };
union u { int i; struct { short lo, hi; } parts; float f; double d[2]; };
struct outer {
  struct inner in;
  struct inner *pin;
  struct outer *self;
  const volatile int cv;
  int *const cp;
  int arr[4][8];
  const char *names[3];
  handler_t h;
  int (*fp_arr[2])(int);
  void (*(*complex)(int))(long);
  union u uu;
  struct { int x; struct { char y; } deep; } anon;
  enum small sm;
  enum big bg;
  struct bits bt;
  struct pad pd;
  struct packed_s ps;
  char flex[];
};
struct A; struct B { struct A *a; }; struct A { struct B b; int x; };
typedef struct outer outer_t;
typedef outer_t *outer_p;
outer_t g_outer;
outer_p g_p;
struct A g_a;
int ax = ANON_X;
int fn(struct outer *o, handler_t h, enum small s) { return o->cv + (int)s; }
)";

TEST(BtfDump, CFormatOfClangBtfMatchesBpftool) {
  ASSERT_TRUE(test::tool_exists("clang-14")) << "clang-14 is a build dependency";
  std::string obj = test::compile_c("c_fixture_clang", kCFixture, "clang-14 -target bpf -g -O2 -c");
  expect_dump_matches_bpftool(obj, "", true);
  expect_dump_matches_bpftool(obj);
}

TEST(BtfDump, CFormatOfPaholeBtfMatchesBpftool) {
  ASSERT_TRUE(test::tool_exists("pahole")) << "pahole (dwarves) is a test dependency";
  std::string obj = test::compile_c("c_fixture_gcc", kCFixture, "gcc -g -c");
  test::RunResult r = test::run("pahole -J " + obj);
  ASSERT_EQ(r.status, 0) << r.err;
  expect_dump_matches_bpftool(obj, "", true);
  expect_dump_matches_bpftool(obj);
}

// pahole writes the names of C++ code as DWARF gives them ("box<int>",
// "operator=="), which the kernel refuses but libbpf reads and bpftool
// shows: so must dump, and diff must compare such files.
TEST(BtfDump, CxxNamesAsPaholeWritesThemMatchBpftool) {
  ASSERT_TRUE(test::tool_exists("pahole")) << "pahole (dwarves) is a test dependency";
  const std::string source = R"(
template <typename T> struct box { T v; int n; };
box<int> b1;
box<long> b2;
namespace ns { enum class colour { red, green }; struct inner { colour c; box<char> b; }; }
ns::inner in;
bool operator==(box<int> a, box<int> b) { return a.n == b.n; }
int main() { return (b1 == b1) + b2.n + in.b.n; }
)";
  std::string obj = test::compile_c("cxx_names", source, "g++ -x c++ -g -c");
  test::RunResult r = test::run("pahole -J " + obj);
  ASSERT_EQ(r.status, 0) << r.err;
  test::RunResult raw = test::run("bpftool btf dump file " + obj);
  ASSERT_NE(raw.out.find("STRUCT 'box<int>'"), std::string::npos) << "no C++ name in pahole's BTF:\n" << raw.out;
  expect_dump_matches_bpftool(obj);
  expect_dump_matches_bpftool(obj, "", true);
  test::RunResult same = test::run_btfc("diff " + obj + " " + obj);
  EXPECT_EQ(same.status, 0) << same.out << same.err;
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
  expect_dump_matches_bpftool(path, base_path, true);
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

// libbpf marks as referenced every type a record names but a prototype's
// return type, so an anonymous enum that only a prototype returns is
// defined at top level (and again where the prototype is spelled out).
TEST(BtfDump, AnonymousEnumReturnedByAPrototypeIsDefinedAtTopLevel) {
  Btf b;
  TypeId i = b.add_int("int", 4, INT_SIGNED);
  TypeId e = b.add_enum("", 4, true);
  b.add_enum_value("X", 1);
  TypeId proto = b.add_func_proto(e);
  b.add_param("x", i);
  b.add_typedef("handler", b.add_ptr(proto));
  std::string path = write_temp("enum_returned.btf", write_raw(b));
  expect_dump_matches_bpftool(path, "", true);
}

// Random type graphs (tests/support/random_btf.h: every kind, forward
// references, twins, a split table on its base): both dumps, of the base
// and of the split table, the same bytes as bpftool's; where C cannot
// declare a graph (a typedef of an anonymous struct that points to the
// typedef), both refuse it.
TEST(BtfDump, RandomGraphsMatchBpftool) {
  ASSERT_TRUE(test::tool_exists("bpftool")) << "bpftool (the oracle) is not installed";
  int compared = 0, refused = 0;
  for (uint32_t seed = 1; seed <= 150; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    testing::SeededChoices c(seed);
    testing::RandomTables t = testing::random_tables(c);
    ASSERT_TRUE(t.base && t.split);
    const std::string base = test::scratch_dir() + "/random_base.btf";
    const std::string split = test::scratch_dir() + "/random_split.btf";
    write_raw_file(base, *t.base);
    write_raw_file(split, *t.split);
    for (const char* format : {"raw", "c"})
      for (bool is_split : {false, true}) {
        const std::string args = (is_split ? split + " --base " + base : base) + " --format " + format;
        test::RunResult ours = test::run_btfc("dump " + args);
        test::RunResult ref = test::run("bpftool btf dump file " + (is_split ? split + " -B " + base : base) +
                                        " format " + format);
        if (ours.status != 0 && ref.status != 0 && std::string(format) == "c") {
          ++refused;
          continue;
        }
        ASSERT_EQ(ours.status, ref.status) << args << "\nbtfc: " << ours.err << "\nbpftool: " << ref.err;
        ASSERT_TRUE(ours.out == ref.out) << "btfc dump " << args << " differs from bpftool's";
        ++compared;
      }
  }
  EXPECT_GT(compared, 500);  // of 600; the rest refused by both
  std::printf("%d dumps compared, %d refused by both\n", compared, refused);
}

// A prototype whose parameters point back at it (through a pointer: BTF
// the reader takes) has no C spelling; bpftool 7.1 recurses until it
// crashes. btfc says so in one line naming the file and the type where the
// walk began, exit status 1, and writes no half header.
TEST(BtfDump, CFormatOfAPrototypeTakingItselfIsAnError) {
  Btf b;
  TypeId i = b.add_int("int", 4, INT_SIGNED);
  TypeId proto = b.add_func_proto(i);
  b.add_param("a", proto + 1);  // the PTR added next
  b.add_param("b", proto + 1);
  ASSERT_EQ(b.add_ptr(proto), proto + 1);
  std::string path = write_temp("proto_taking_itself.btf", write_raw(b));
  test::RunResult r = test::run_btfc("dump --format c " + path);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "btfc: " + path + ": type [2] FUNC_PROTO: BTF types nest too deeply for C output\n");
  r = test::run_btfc("dump " + path);  // the raw listing has no such walk
  EXPECT_EQ(r.status, 0) << r.err;
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
    expect_dump_matches_bpftool(vmlinux, "", true);
    std::vector<uint8_t> vbytes = read_bytes(vmlinux);
    expect_round_trip(vbytes);
    if (std::string(flavour) == "features-default-global_var") continue;  // no modules made with it
    Btf base = read_raw(vbytes);
    for (const std::string& mod : testing::reference_modules()) {
      SCOPED_TRACE(mod);
      std::string file = dir + "/" + mod + "." + flavour + ".btf";
      expect_dump_matches_bpftool(file, vmlinux);
      if (mod == "ext4") expect_dump_matches_bpftool(file, vmlinux, true);  // one is enough: 113k lines each
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
  expect_dump_matches_bpftool(vmlinux, "", true);
  auto velf = elf::ElfFile::open(vmlinux);
  Bytes vsec = velf->section_data(*velf->find_section(".BTF"));
  std::vector<uint8_t> vbytes(vsec.begin(), vsec.end());
  expect_round_trip(vbytes);
  Btf base = read_raw(vbytes);
  for (const std::string& mod : test::corpus_modules()) {
    SCOPED_TRACE(mod);
    std::string file = dir + "/mods/" + mod + ".ko";
    expect_dump_matches_bpftool(file, vmlinux);
    if (mod == "kvm") expect_dump_matches_bpftool(file, vmlinux, true);
    auto elf = elf::ElfFile::open(file);
    Bytes sec = elf->section_data(*elf->find_section(".BTF"));
    expect_round_trip(std::vector<uint8_t>(sec.begin(), sec.end()), &base);
  }
}

TEST(BtfDumpCorpus, RunningKernel) {
  const std::string sys = "/sys/kernel/btf/vmlinux";
  if (!std::filesystem::exists(sys)) GTEST_SKIP() << "\n*** " << sys << " does not exist: NOT TESTED ***\n";
  expect_dump_matches_bpftool(sys);
  expect_dump_matches_bpftool(sys, "", true);
  expect_round_trip(read_bytes(sys));
}

}  // namespace
}  // namespace btfc::btf
