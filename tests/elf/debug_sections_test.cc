// section_data() of debug sections against binutils/elfutils oracles: for
// objects and executables built by gcc and clang, DWARF 4 and 5, compressed
// with zlib (gABI and legacy .zdebug) and zstd, 32- and 64-bit, and for
// relocatable objects of every architecture the relocation code knows.
// Each fixture is compiled here; the expected bytes come from objcopy
// --decompress-debug-sections and eu-strip --reloc-debug-sections-only
// (oracle.h), never from btfc.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "elf/elf_file.h"
#include "oracle.h"
#include "support/test_support.h"

namespace btfc {
namespace {

using test::compile_c;
using test::oracle_debug_sections;
using test::run;

// Freestanding C (no headers, so every cross target compiles it) with the
// shapes that produce relocations in every debug section: globals and
// statics (DW_OP_addr), functions (low_pc/high_pc, line table, frames),
// strings (.debug_str offsets), several CUs worth of types, a switch and
// a loop for ranges and location lists at -O2.
constexpr char kSource[] = R"(
struct point { int x, y; long z; };
union u { int i; float f; char c[8]; };
typedef struct point point_t;
enum color { RED, GREEN = 5, BLUE };
int counter;
static int hidden = 3;
const char *greeting = "hello";
point_t origin = {1, 2, 3};
static union u scratch;
int step(int a, enum color c) {
  int r = 0;
  for (int i = 0; i < a; i++) {
    switch ((i + c) % 4) {
      case 0: r += origin.x; break;
      case 1: r -= hidden; break;
      case 2: r ^= scratch.i; break;
      default: r += greeting[i % 5];
    }
  }
  counter += r;
  return r;
}
static int helper(point_t *p) { return p->x * p->y + (int)p->z; }
int use(point_t *p) { return helper(p) + step(p->x, BLUE); }
)";

constexpr char kMain[] = "int main(void) { return use(&origin) & 1; }\n";

void expect_matches_oracle(const std::string& file, size_t min_sections = 3) {
  auto expected = oracle_debug_sections(file);
  ASSERT_GE(expected.size(), min_sections) << file;
  ASSERT_TRUE(expected.count(".debug_info")) << file;
  auto elf = elf::ElfFile::open(file);
  for (const auto& [name, bytes] : expected) {
    const elf::Section* s = elf->find_section(name);
    ASSERT_NE(s, nullptr) << file << ": " << name;
    Bytes got = elf->section_data(*s);
    ASSERT_EQ(got.size(), bytes.size()) << file << ": " << name;
    EXPECT_TRUE(std::equal(got.begin(), got.end(), reinterpret_cast<const uint8_t*>(bytes.data())))
        << file << ": " << name << " differs from the oracle";
  }
}

struct Build {
  const char* name;
  const char* compile;  // compile_c command
  const char* post;     // shell command applied to the output ("" for none); {} is the file
};
// What gtest shows as GetParam() (listings, failures): the case, not the
// struct's bytes.
void PrintTo(const Build& b, std::ostream* os) { *os << b.name << " (" << b.compile << ")"; }

class DebugSections : public ::testing::TestWithParam<Build> {};

TEST_P(DebugSections, MatchOracle) {
  const Build& b = GetParam();
  std::string cmd = b.compile;
  bool link = cmd.find(" -c") == std::string::npos;
  std::string file = compile_c(b.name, std::string(kSource) + (link ? kMain : ""), cmd);
  if (*b.post) {
    std::string post = b.post;
    post.replace(post.find("{}"), 2, file);
    auto r = run(post);
    ASSERT_EQ(r.status, 0) << post << "\n" << r.err;
  }
  expect_matches_oracle(file);
}

// clang's -gz=zlib on a relocatable object compresses .debug_* and leaves
// the .rela.debug_* sections aimed at the uncompressed contents: both steps.
INSTANTIATE_TEST_SUITE_P(
    Host, DebugSections,
    ::testing::Values(
        Build{"gcc_o_dwarf4", "gcc -O2 -gdwarf-4 -c", ""}, Build{"gcc_o_dwarf5", "gcc -O2 -gdwarf-5 -c", ""},
        Build{"clang_o_dwarf4", "clang -O2 -gdwarf-4 -c", ""}, Build{"clang_o_dwarf5", "clang -O2 -gdwarf-5 -c", ""},
        Build{"gcc_exe_dwarf5", "gcc -O2 -gdwarf-5", ""}, Build{"clang_exe_dwarf4", "clang -O2 -gdwarf-4", ""},
        Build{"gcc_o_gz_zlib", "gcc -O2 -gdwarf-5 -gz=zlib -c", ""},
        Build{"clang_o_gz_zlib", "clang -O2 -gdwarf-4 -gz=zlib -c", ""},
        Build{"gcc_exe_gz_zlib", "gcc -O2 -gdwarf-5 -gz=zlib", ""},
        Build{"gcc_o_zstd", "gcc -O2 -gdwarf-5 -c", "objcopy --compress-debug-sections=zstd {}"},
        Build{"gcc_exe_zstd", "gcc -O2 -gdwarf-4", "objcopy --compress-debug-sections=zstd {}"},
        Build{"gcc_o_zdebug", "gcc -O2 -gdwarf-4 -c", "objcopy --compress-debug-sections=zlib-gnu {}"},
        Build{"gcc_exe_zdebug", "gcc -O2 -gdwarf-5", "objcopy --compress-debug-sections=zlib-gnu {}"},
        Build{"gcc_m32_o", "gcc -m32 -O2 -gdwarf-5 -c", ""}, Build{"gcc_m32_exe", "gcc -m32 -O2 -gdwarf-4", ""},
        Build{"clang_m32_o_gz", "clang -m32 -O2 -gdwarf-5 -gz=zlib -c", ""},
        Build{"gcc_m32_o_zstd", "gcc -m32 -O2 -gdwarf-4 -c", "objcopy --compress-debug-sections=zstd {}"},
        // Executables linked with --emit-relocs keep .rel(a).debug_* (i386's
        // vmlinux, Debian's 686-pae among them): their debug sections hold
        // final values already, and a REL addend applied again would double.
        Build{"gcc_m32_exe_emit_relocs", "gcc -m32 -O2 -gdwarf-4 -Wl,--emit-relocs", ""},
        Build{"gcc_exe_emit_relocs", "gcc -O2 -gdwarf-5 -Wl,--emit-relocs", ""}),
    [](const auto& info) { return std::string(info.param.name); });

// Relocatable objects of other architectures, both byte orders, RELA and
// REL (i386, arm, mips keep the addend in place).
INSTANTIATE_TEST_SUITE_P(
    Cross, DebugSections,
    ::testing::Values(Build{"aarch64", "clang --target=aarch64-linux-gnu -O2 -g -c", ""},
                      Build{"s390x", "clang --target=s390x-linux-gnu -O2 -g -c", ""},
                      Build{"riscv64", "clang --target=riscv64-linux-gnu -O2 -g -c", ""},
                      Build{"riscv64_dwarf4", "clang --target=riscv64-linux-gnu -O2 -gdwarf-4 -c", ""},
                      Build{"ppc64le", "clang --target=powerpc64le-linux-gnu -O2 -g -c", ""},
                      Build{"ppc64", "clang --target=powerpc64-linux-gnu -O2 -g -c", ""},
                      Build{"arm", "clang --target=arm-linux-gnueabi -O2 -g -c", ""},
                      Build{"i386", "clang --target=i386-linux-gnu -O2 -g -c", ""},
                      Build{"mips", "clang --target=mips-linux-gnu -O2 -g -c", ""},
                      Build{"mips64el", "clang --target=mips64el-linux-gnuabi64 -O2 -g -c", ""},
                      Build{"ppc32", "clang --target=powerpc-linux-gnu -O2 -g -c", ""},
                      Build{"riscv32", "clang --target=riscv32-linux-gnu -O2 -g -c", ""},
                      Build{"mips64", "clang --target=mips64-linux-gnuabi64 -O2 -g -c", ""},
                      Build{"aarch64_be", "clang --target=aarch64_be-linux-gnu -O2 -g -c", ""},
                      Build{"armeb", "clang --target=armeb-linux-gnueabi -O2 -g -c", ""},
                      Build{"aarch64_gz", "clang --target=aarch64-linux-gnu -O2 -g -gz=zlib -c", ""},
                      Build{"s390x_zstd", "clang --target=s390x-linux-gnu -O2 -gdwarf-4 -c",
                            "objcopy --compress-debug-sections=zstd {}"}),
    [](const auto& info) { return std::string(info.param.name); });

// A legacy .zdebug_info is what find_section(".debug_info") returns.
TEST(DebugSectionNames, ZdebugFoundUnderDebugName) {
  std::string file = compile_c("zdebug_names", kSource, "gcc -O2 -g -c");
  auto r = run("objcopy --compress-debug-sections=zlib-gnu " + file);
  ASSERT_EQ(r.status, 0) << r.err;
  auto elf = elf::ElfFile::open(file);
  ASSERT_EQ(elf->find_section_exact(".debug_info"), nullptr);
  const elf::Section* s = elf->find_section(".debug_info");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->name, ".zdebug_info");
  EXPECT_EQ(elf->find_debug_section(".debug_info"), s);
  EXPECT_TRUE(elf->needs_processing(*s));
}

// prepare() computes many sections side by side with the same result as
// one at a time.
TEST(DebugSectionNames, PrepareInParallel) {
  std::string file = compile_c("prepare", kSource, "clang -O2 -gdwarf-5 -gz=zlib -c");
  auto expected = oracle_debug_sections(file);
  auto elf = elf::ElfFile::open(file);
  std::vector<const elf::Section*> list;
  for (const auto& s : elf->sections())
    if (s.name.starts_with(".debug_")) list.push_back(&s);
  elf->prepare(list);
  for (const elf::Section* s : list) {
    Bytes got = elf->section_data(*s);
    const std::string& want = expected.at(std::string(s->name));
    EXPECT_EQ(std::string(got.begin(), got.end()), want) << s->name;
  }
}

}  // namespace
}  // namespace btfc
