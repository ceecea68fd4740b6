// `btfc stats FILE` against llvm-dwarfdump-14: for each fixture the per-tag
// DIE counts, the unit count and the DIE total must equal what
// llvm-dwarfdump --debug-info --debug-types prints, and the output must not
// depend on -j. Fixtures are C (and C++, for type units) compiled here by
// gcc and clang in every DWARF version, 32- and 64-bit DWARF, -m32, type
// units, compressed sections, cross targets (including big-endian s390x),
// LTO links (cross-unit DW_FORM_ref_addr) and dwz (DW_FORM_GNU_ref_alt,
// partial units); the corpus modules and vmlinux are checked in *Corpus*
// suites.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <ostream>

#include "support/dwarf_oracle.h"
#include "support/test_support.h"

namespace btfc::test {
namespace {

// Structs with bitfields, unions, enums, arrays (fixed, flexible, VLA),
// function pointers, qualifiers, typedefs, an inlined function, static locals
// and a variadic function: most tags a C compiler emits.
constexpr char kSource[] = R"(
#include <stdarg.h>
typedef unsigned long size_t_;
struct list_head { struct list_head *next, *prev; };
enum state { IDLE, RUNNING = 4, DEAD = -1 };
struct task {
  struct list_head node;
  unsigned int flags : 3, prio : 5;
  volatile enum state state;
  union { long id; void *cookie; };
  int (*callback)(struct task *t, const char *why);
  const char name[16];
  _Atomic int refs;
  char tail[];
};
static inline int prio_of(const struct task *t) { return t->prio + 1; }
int task_count;
static struct task *restrict current_task;
int run_task(struct task *t, int n, ...) {
  static int calls;
  va_list ap;
  va_start(ap, n);
  int sum = va_arg(ap, int);
  va_end(ap);
  char vla[n + 1];
  vla[0] = (char)sum;
  calls++;
  { int inner = prio_of(t); sum += inner + vla[0]; }
  return t->callback ? t->callback(t, "run") : sum + calls;
}
)";

constexpr char kMain[] = "int main(void) { return 0; }\n";

// C++ so that -fdebug-types-section makes type units.
constexpr char kCxxSource[] = R"(
struct Base { virtual ~Base() {} int a; };
struct Derived : Base { double b; Derived *next; };
template <typename T> struct Box { T value; };
Box<Derived> box;
int use(Derived *d) { return d->a; }
)";

void expect_matches_llvm(const std::string& path) {
  std::string want = llvm_dwarfdump_stats(path);
  RunResult one = run_btfc("stats -j 1 '" + path + "'");
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(one.out, want) << path;
  RunResult two = run_btfc("stats -j2 '" + path + "'");
  EXPECT_EQ(two.out, one.out) << "output depends on -j";
  EXPECT_NE(want.find("DW_TAG_"), std::string::npos) << "fixture has no DIEs: " << path;
}

struct Fixture {
  const char* name;
  const char* command;
  const char* source = kSource;
};
// What gtest shows as GetParam() (listings, failures): the case, not the
// struct's bytes.
void PrintTo(const Fixture& f, std::ostream* os) { *os << f.name << " (" << f.command << ")"; }

class StatsFixture : public testing::TestWithParam<Fixture> {};

TEST_P(StatsFixture, CountsMatchLlvmDwarfdump) {
  const Fixture& f = GetParam();
  std::string src = f.source;
  std::string command = f.command;
  if (command.find(" -c") == std::string::npos) src += kMain;  // linked executables need main
  std::string out = compile_c(f.name, src, command);
  ASSERT_TRUE(std::filesystem::exists(out));
  expect_matches_llvm(out);
}

const Fixture kFixtures[] = {
    {"gcc_dwarf2", "gcc -g -gdwarf-2 -O2 -c"},
    {"gcc_dwarf3", "gcc -g -gdwarf-3 -O2 -c"},
    {"gcc_dwarf4", "gcc -g -gdwarf-4 -O2 -c"},
    {"gcc_dwarf5", "gcc -g -gdwarf-5 -O2 -c"},
    {"gcc_dwarf5_O0", "gcc -g -gdwarf-5 -O0 -c"},
    {"gcc_dwarf64", "gcc -g -gdwarf-5 -gdwarf64 -O2 -c"},
    {"gcc_dwarf4_64", "gcc -g -gdwarf-4 -gdwarf64 -O2 -c"},
    {"gcc_m32", "gcc -m32 -g -gdwarf-5 -O2 -c"},
    {"gcc_m32_dwarf2", "gcc -m32 -g -gdwarf-2 -O2 -c"},
    {"gcc_linked", "gcc -g -gdwarf-5 -O2"},
    {"gcc_linked_dwarf4", "gcc -g -gdwarf-4 -O2"},
    {"gcc_m32_linked", "gcc -m32 -g -O2"},
    {"gcc_split_dwarf", "gcc -g -gdwarf-5 -gsplit-dwarf -O2 -c"},
    {"gcc_gz_zlib", "gcc -g -gdwarf-5 -O2 -gz=zlib -c"},
    {"gcc_gz_linked", "gcc -g -gdwarf-4 -O2 -gz=zlib"},
    {"clang_dwarf2", "clang -g -gdwarf-2 -O2 -c"},
    {"clang_dwarf3", "clang -g -gdwarf-3 -O2 -c"},
    {"clang_dwarf4", "clang -g -gdwarf-4 -O2 -c"},
    {"clang_dwarf5", "clang -g -gdwarf-5 -O2 -c"},
    {"clang_dwarf64", "clang -g -gdwarf-5 -gdwarf64 -O2 -c"},
    {"clang_m32", "clang -m32 -g -gdwarf-5 -O2 -c"},
    {"clang_linked", "clang -g -gdwarf-5 -O2 -fuse-ld=lld"},
    {"clang_gz_zlib", "clang -g -gdwarf-5 -O2 -gz=zlib -c"},
    {"clang_aarch64", "clang --target=aarch64-linux-gnu -ffreestanding -g -O2 -c"},
    {"clang_s390x", "clang --target=s390x-linux-gnu -ffreestanding -g -O2 -c"},
    {"clang_s390x_dwarf4", "clang --target=s390x-linux-gnu -ffreestanding -g -gdwarf-4 -O2 -c"},
    {"clang_riscv64", "clang --target=riscv64-linux-gnu -ffreestanding -g -O2 -c"},
    {"clang_ppc64le", "clang --target=powerpc64le-linux-gnu -ffreestanding -g -O2 -c"},
    {"clang_arm", "clang --target=arm-linux-gnueabi -ffreestanding -g -O2 -c"},
    {"clang_i386", "clang --target=i386-linux-gnu -ffreestanding -g -O2 -c"},
    {"gxx_types_dwarf4", "g++ -x c++ -g -gdwarf-4 -fdebug-types-section -c", kCxxSource},
    {"gxx_types_dwarf5", "g++ -x c++ -g -gdwarf-5 -fdebug-types-section -c", kCxxSource},
    {"clangxx_types_dwarf4", "clang++ -x c++ -g -gdwarf-4 -fdebug-types-section -c", kCxxSource},
    {"clangxx_types_dwarf5", "clang++ -x c++ -g -gdwarf-5 -fdebug-types-section -c", kCxxSource},
    {"gxx_types_linked", "g++ -x c++ -g -gdwarf-4 -fdebug-types-section", kCxxSource},
    {"clangxx_types_linked5", "clang++ -x c++ -g -gdwarf-5 -fdebug-types-section -fuse-ld=lld", kCxxSource},
};

INSTANTIATE_TEST_SUITE_P(Compilers, StatsFixture, testing::ValuesIn(kFixtures),
                         [](const testing::TestParamInfo<Fixture>& i) { return std::string(i.param.name); });

// zstd-compressed debug sections, made by objcopy from a plain object.
TEST(Stats, ZstdCompressedSections) {
  std::string plain = compile_c("zstd_plain", kSource, "gcc -g -gdwarf-5 -O2 -c");
  std::string packed = scratch_dir() + "/zstd_packed.o";
  RunResult r = run("objcopy --compress-debug-sections=zstd '" + plain + "' '" + packed + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_NE(run("readelf -SW '" + packed + "' | grep debug_info").out.find(" C "), std::string::npos)
      << "objcopy did not compress .debug_info";
  // llvm-dwarfdump-14 cannot read zstd sections: the oracle reads the plain file.
  RunResult r2 = run_btfc("stats '" + packed + "'");
  EXPECT_EQ(r2.status, 0) << r2.err;
  EXPECT_EQ(r2.out, llvm_dwarfdump_stats(plain));
}

// gcc -flto: the LTO link merges units and emits cross-unit DW_FORM_ref_addr
// (the abstract instances live in their own unit).
TEST(Stats, GccLtoLink) {
  std::string dir = scratch_dir();
  std::string a = compile_c("lto_a", std::string(kSource) + "int helper(int x) { return x * 3; }\n",
                            "gcc -g -O2 -flto -c");
  std::string b = compile_c("lto_b", "struct task; int helper(int);\nint main(void) { return helper(2); }\n",
                            "gcc -g -O2 -flto -c");
  std::string out = dir + "/lto_prog";
  RunResult r = run("gcc -g -O2 -flto '" + a + "' '" + b + "' -o '" + out + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_NE(run("llvm-dwarfdump-14 --debug-info -v '" + out + "'").out.find("DW_FORM_ref_addr"), std::string::npos)
      << "the LTO link was expected to emit DW_FORM_ref_addr";
  expect_matches_llvm(out);
}

// dwz moves DIEs that two executables share into an alternate file named by
// .gnu_debugaltlink; the rest refer to them with DW_FORM_GNU_ref_alt and
// DW_FORM_GNU_strp_alt, and import them through partial units.
TEST(Stats, DwzAlternateFile) {
  ASSERT_TRUE(tool_exists("dwz")) << "dwz is not installed (scripts/install-deps.sh installs it)";
  std::string dir = scratch_dir();
  std::string a = compile_c("dwz_a", std::string(kSource) + kMain, "gcc -g -gdwarf-4 -O2");
  std::string b = compile_c("dwz_b", std::string(kSource) + "int other(struct task *t) { return t->prio; }\n" + kMain,
                            "gcc -g -gdwarf-4 -O2");
  RunResult r = run("cd '" + dir + "' && dwz -m dwz_common.debug -M dwz_common.debug dwz_a dwz_b");
  ASSERT_EQ(r.status, 0) << r.err;
  std::string dump = run("llvm-dwarfdump-14 --debug-info -v '" + a + "'").out;
  ASSERT_NE(dump.find("DW_FORM_GNU_ref_alt"), std::string::npos) << "dwz made no alternate references";
  expect_matches_llvm(a);
  expect_matches_llvm(b);
  expect_matches_llvm(dir + "/dwz_common.debug");  // the alternate file itself: partial units
}

// gcc -gsplit-dwarf: the .o holds a skeleton unit, the .dwo the split unit
// (.debug_info.dwo, DW_FORM_strx and DW_FORM_addrx into the skeleton's
// .debug_addr).
TEST(Stats, SplitDwarfObjectFile) {
  std::string o = compile_c("split", kSource, "gcc -g -gdwarf-5 -gsplit-dwarf -O2 -c");
  std::string dwo = scratch_dir() + "/split.dwo";
  ASSERT_TRUE(std::filesystem::exists(dwo)) << "gcc wrote no " << dwo;
  expect_matches_llvm(dwo);
}

TEST(Stats, NoDebugInfoPrintsZeros) {
  std::string o = compile_c("nodebug", kSource, "gcc -O2 -c");
  RunResult r = run_btfc("stats '" + o + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "units 0\ndies 0\n");
}

// A stripped program's DWARF is its debug file's (found beside it by
// .gnu_debuglink, and matched by build ID), as encode reads it; bad DWARF
// there is reported against the debug file, not the stripped one.
TEST(Stats, StrippedFileReadsItsDebugFile) {
  std::string full = compile_c("stats_stripped", std::string(kSource) + kMain, "gcc -g -O2 -Wl,--build-id=sha1");
  std::string debug = full + ".debug", stripped = full + ".stripped";
  ASSERT_EQ(run("objcopy --only-keep-debug '" + full + "' '" + debug + "'").status, 0);
  ASSERT_EQ(run("objcopy --strip-debug --add-gnu-debuglink='" + debug + "' '" + full + "' '" + stripped + "'").status, 0);
  RunResult want = run_btfc("stats '" + full + "'");
  ASSERT_EQ(want.status, 0) << want.err;
  ASSERT_NE(want.out.find("DW_TAG_structure_type"), std::string::npos) << want.out;
  RunResult got = run_btfc("stats '" + stripped + "'");
  EXPECT_EQ(got.status, 0) << got.err;
  EXPECT_EQ(got.out, want.out);

  // The first unit's version (bytes 4-5 of .debug_info) made 99.
  std::string at = run("readelf -SW '" + debug + "' | awk '$2 == \".debug_info\" {print $5}'").out;
  ASSERT_FALSE(at.empty()) << "no .debug_info in " << debug;
  std::fstream f(debug, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(std::stoll(at, nullptr, 16) + 4);
  f.write("\x63\x00", 2);
  f.close();
  RunResult bad = run_btfc("stats '" + stripped + "'");
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(bad.err.rfind("btfc: " + debug + ": .debug_info", 0), 0u) << bad.err;
  EXPECT_NE(bad.err.find("unsupported DWARF version 99"), std::string::npos) << bad.err;
}

TEST(Stats, Usage) {
  EXPECT_EQ(run_btfc("stats").status, 2);
  EXPECT_EQ(run_btfc("stats -j x /bin/true").status, 2);
  EXPECT_EQ(run_btfc("stats --frobnicate /bin/true").status, 2);
  RunResult missing = run_btfc("stats /nonexistent/file.o");
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err.rfind("btfc: /nonexistent/file.o: cannot open", 0), 0u) << missing.err;
}

// The nine corpus modules: ET_REL, so relocations of .debug_* must be
// applied first (abbreviation offsets and strp values are relocated).
TEST(StatsCorpus, ModulesMatchLlvmDwarfdump) {
  std::string dir = corpus_dir();
  ASSERT_FALSE(dir.empty()) << "corpus not unpacked (scripts/unpack-corpus.sh)";
  for (const std::string& m : corpus_modules()) expect_matches_llvm(dir + "/mods/" + m + ".ko");
}

// vmlinux: 174 MB of .debug_info, 2352 units, 15.2 million DIEs. The
// oracle is slow (llvm-dwarfdump-14 prints 3.7 GB of text: about 43
// CPU-seconds with the counting), hence a suite of its own; the sanitizer
// build leaves it to the release build (scripts/test.sh).
TEST(StatsCorpusSlow, VmlinuxMatchesLlvmDwarfdump) {
  std::string dir = corpus_dir();
  ASSERT_FALSE(dir.empty()) << "corpus not unpacked (scripts/unpack-corpus.sh)";
  expect_matches_llvm(dir + "/vmlinux");
}

}  // namespace
}  // namespace btfc::test
