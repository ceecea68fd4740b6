// Type conversion on small C fixtures compiled by the test with gcc and
// clang (DWARF 4 and 5, plus DWARF 3 and big-endian targets for the old
// DW_AT_bit_offset), checked against Debian's pahole 1.24 (`pahole -J
// --btf_encode_detached`, whose type rules 1.31 kept) with btfc's semantic
// diff, and loaded into the running kernel. Cases 1.24 cannot judge
// (clang's btf_type_tag/btf_decl_tag ordering, errors, in-place writing,
// pahole mode) are asserted directly.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "btf/btf_test_util.h"
#include "btf/diff.h"
#include "btf/dump.h"
#include "btf/reader.h"
#include "elf/elf_file.h"
#include "support/test_support.h"

namespace btfc::convert {
namespace {

using btf::testing::read_bytes;

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) n++;
  return n;
}

std::string pahole_mode_binary() { return std::filesystem::path(BTFC_BINARY).parent_path() / "pahole"; }

// btfc's and pahole 1.24's BTF of `obj`: equivalent graphs expected, and
// btfc's loads into the running kernel (unless `load` is false: BTF of a
// target of the other byte order).
void expect_same_as_pahole(const std::string& obj, const std::string& flags = "", bool load = true) {
  std::string ours = obj + ".btfc.btf", ref = obj + ".pahole.btf";
  std::filesystem::remove(ours);
  std::filesystem::remove(ref);  // pahole 1.24 opens without O_TRUNC
  test::RunResult r = test::run_btfc("encode " + flags + " --btf_encode_detached=" + ours + " " + obj);
  ASSERT_EQ(r.status, 0) << r.err;
  test::RunResult p = test::run("pahole -J " + flags + " --btf_encode_detached=" + ref + " " + obj);
  ASSERT_EQ(p.status, 0) << p.err;
  btf::Btf a = btf::read_file(ours), b = btf::read_file(ref);
  btf::DiffResult d = btf::diff(a, b, {"btfc", "pahole-1.24"});
  EXPECT_TRUE(d.equivalent) << d.report;
  if (load) BTFC_EXPECT_LOADS(read_bytes(ours));
}

std::string dump(const std::string& path) {
  std::string out;
  btf::dump_raw(btf::read_file(path), out);
  return out;
}

// Every construct of pahole-rules.md section 2 that C has, kept alive by
// variables (no functions: FUNC rules are the funcs helper's tests).
const char* kTypes = R"(
typedef unsigned long size_t;
struct S { long x; unsigned a:3, b:5; int arr[2][3]; char flex[]; };
struct Bits { unsigned a:3; int b:5; unsigned long long c:40; char d; short e:7; _Bool f:1; };
union U;
struct Opaque;
enum E { NEG = -1, POS = 1 };
enum F { BIG = 1ULL << 32 };
enum G { SMALL = 0xffffffffu };
enum __attribute__((packed)) P8 { P8A = 200 };
enum Fwd;
typedef int (*fp_t)(int, ...);
typedef void (*vp_t)(void);
struct __attribute__((packed)) Packed { char c; int i; long l; };
struct Empty {};
struct Nest { struct Inner { int q; } in; union { int z; char y; }; struct { short s; }; };
struct T {
  union U *u; struct Opaque *o; enum Fwd *f; fp_t fp; vp_t vp; enum E e; enum F ff; enum G g; enum P8 p8;
  const volatile long double ld; float fl; double d; __int128 i128; unsigned __int128 u128;
  _Bool bo; signed char sc; unsigned char uc; char c; short sh; unsigned short ush; long long ll;
  const void *cv; void *restrict rp; volatile int vi; size_t sz;
  int matrix[4][2][5]; struct Empty em; struct Packed pk; struct Nest n; struct S *s; struct Bits bits;
  char zero[0]; int (*arr_ptr)[3];
};
struct T t;
const struct T *const ct = &t;
)";

struct Compiler {
  const char* name;
  const char* command;
};
// What gtest shows as GetParam() (listings, failures): the case, not the
// struct's bytes.
void PrintTo(const Compiler& c, std::ostream* os) { *os << c.name << " (" << c.command << ")"; }

class TypesFixture : public ::testing::TestWithParam<Compiler> {};

TEST_P(TypesFixture, SameAsPahole124) {
  std::string obj = test::compile_c(std::string("types_") + GetParam().name, kTypes, GetParam().command);
  expect_same_as_pahole(obj);
  expect_same_as_pahole(obj, "--btf_gen_floats");
  expect_same_as_pahole(obj, "--skip_encoding_btf_enum64");
}

INSTANTIATE_TEST_SUITE_P(
    Compilers, TypesFixture,
    ::testing::Values(Compiler{"gcc_dwarf4", "gcc -g -gdwarf-4 -c"}, Compiler{"gcc_dwarf5", "gcc -g -gdwarf-5 -c"},
                      Compiler{"gcc_dwarf2", "gcc -g -gdwarf-2 -c"},  // DW_AT_bit_offset, LE conversion
                      Compiler{"gcc_O2", "gcc -g -O2 -c"},
                      Compiler{"clang_dwarf4", "clang -g -gdwarf-4 -c"}, Compiler{"clang_dwarf5", "clang -g -gdwarf-5 -c"},
                      Compiler{"clang_ppc64_dwarf3", "clang --target=powerpc64-linux-gnu -g -gdwarf-3 -c"},  // BE bit_offset
                      Compiler{"clang_s390x_dwarf5", "clang --target=s390x-linux-gnu -g -gdwarf-5 -c"},
                      Compiler{"clang_aarch64", "clang --target=aarch64-linux-gnu -g -c"}),
    [](const ::testing::TestParamInfo<Compiler>& i) { return std::string(i.param.name); });

// Types pahole finds inside function bodies (a struct, an enum and a
// typedef local to a function, one in a nested block, one in a function
// inlined elsewhere), next to bodies without types (parameters, locals,
// call sites with their parameters at -O2), which the type walk jumps over.
// A body it wrongly jumped would lose its types; one it wrongly kept would
// not show here but costs time.
const char* kBodies = R"(
extern int ext(int, int);
static inline int helper(int a) { struct HL { int h; char c; } hl = { a, 1 }; return ext(hl.h, hl.c); }
int plain(int a, int b) { int s = ext(a, b); for (int i = 0; i < b; i++) { int t = ext(i, s); s += t; } return s; }
int local_types(int n) {
  struct Local { int a; long b; } l = { n, 2 };
  typedef unsigned short u16_local;
  u16_local u = (u16_local)n;
  if (n > 3) {
    enum Inner { IA = 1, IB = 7 } e = n > 5 ? IA : IB;
    union Deep { int x; float f; } d = { .x = (int)e };
    return ext(d.x, l.a) + u;
  }
  return helper(n) + (int)l.b;
}
int calls(int x) { return ext(x, 1) + helper(x) + plain(x, 2); }
)";

// Random C (tests/support/random_c.py: what headers hold, bitfields,
// nested anonymous members, flexible arrays, packed and aligned structs,
// 64-bit enums, a pointer variable to each type and a few functions; for clang,
// btf_type_tag and btf_decl_tag too), compiled by gcc and clang for five
// targets, both byte orders, DWARF 4 and 5, type units, -O0 to -O2:
// btfc's BTF is pahole 1.24's type graph. (pahole 1.24
// gets gcc's DWARF 4 type units in a .o and clang's MIPS32 relocations
// wrong, so they are not among them.)
TEST(Encode, RandomCAsPahole) {
  struct Config {
    const char* compiler;
    const char* flags;    // after -g -c -fno-eliminate-unused-debug-types
    const char* options;  // random_c.py's: int128 for a 64-bit target, tags for clang
    bool load;            // little-endian and 64-bit: the running kernel reads its BTF
                          // (it takes a 4-byte PTR for 8 bytes)
  };
  const Config configs[] = {
      {"gcc", "", "int128", true},
      {"gcc", "-m32 -O2 -gdwarf-4", "", false},
      {"clang", "-O1", "int128 tags", true},
      {"clang", "--target=powerpc64-linux-gnu -gdwarf-4 -fdebug-types-section", "int128", false},
      {"clang", "--target=aarch64-linux-gnu -gdwarf-4", "int128 tags", true},
      {"clang", "--target=armv7-linux-gnueabihf -O2", "", false},
  };
  for (size_t k = 0; k < std::size(configs); ++k)
    for (int seed = 1; seed <= 10; ++seed) {
      const Config& c = configs[k];
      const std::string command = std::string(c.compiler) + " -g -c -fno-eliminate-unused-debug-types " + c.flags;
      SCOPED_TRACE(command + ", seed " + std::to_string(seed));
      test::RunResult source = test::run("python3 " BTFC_SOURCE_DIR "/tests/support/random_c.py " +
                                         std::to_string(seed) + " " + c.options);
      ASSERT_EQ(source.status, 0) << source.err;
      std::string obj = test::compile_c("random_c_" + std::to_string(k) + "_" + std::to_string(seed), source.out, command);
      expect_same_as_pahole(obj, "", c.load);
      if (::testing::Test::HasFailure()) return;
    }
}

TEST(Encode, TypesInFunctionBodies) {
  for (const char* cc : {"gcc -g -O0 -c", "gcc -g -O2 -c", "gcc -g -gdwarf-4 -O2 -c", "clang -g -O2 -c"}) {
    SCOPED_TRACE(cc);
    std::string obj = test::compile_c(std::string("bodies_") + (cc[0] == 'g' ? "gcc" : "clang") +
                                          (std::string(cc).find("O2") != std::string::npos ? "_O2" : "_O0") +
                                          (std::string(cc).find("dwarf-4") != std::string::npos ? "_d4" : ""),
                                      kBodies, cc);
    expect_same_as_pahole(obj);
    std::string d = dump(obj + ".btfc.btf");
    EXPECT_NE(d.find("STRUCT 'Local' size=16 vlen=2"), std::string::npos) << d;
    EXPECT_NE(d.find("UNION 'Deep' size=4 vlen=2"), std::string::npos) << d;
    EXPECT_NE(d.find("TYPEDEF 'u16_local'"), std::string::npos) << d;
  }
}

TEST(Encode, SpecificEncodings) {
  std::string obj = test::compile_c("specific", kTypes, "gcc -g -gdwarf-5 -c");
  std::string out = obj + ".btf";
  ASSERT_EQ(test::run_btfc("encode --btf_gen_floats --btf_encode_detached=" + out + " " + obj).status, 0);
  std::string d = dump(out);
  // 2.5: flattened multi-dimensional array, flexible and zero-length arrays.
  EXPECT_NE(d.find("ARRAY '(anon)' type_id="), std::string::npos);
  EXPECT_NE(d.find("nr_elems=40"), std::string::npos) << "int[4][2][5] flattened";
  EXPECT_NE(d.find("nr_elems=6"), std::string::npos) << "int[2][3] flattened";
  EXPECT_NE(d.find("nr_elems=0"), std::string::npos) << "flexible array";
  // 2.4: signedness from the values for 4-byte enums, ENUM64 for 8 bytes,
  // an enum declaration is an empty 4-byte ENUM, a packed enum keeps size 1.
  EXPECT_NE(d.find("ENUM 'E' encoding=SIGNED size=4 vlen=2"), std::string::npos) << d;
  EXPECT_NE(d.find("ENUM64 'F' encoding=UNSIGNED size=8 vlen=1"), std::string::npos);
  EXPECT_NE(d.find("ENUM 'G' encoding=UNSIGNED size=4 vlen=1"), std::string::npos);
  EXPECT_NE(d.find("ENUM 'Fwd' encoding=UNSIGNED size=4 vlen=0"), std::string::npos);
  EXPECT_NE(d.find("ENUM 'P8' encoding=UNSIGNED size=1 vlen=1"), std::string::npos);
  // 2.3: declarations are FWDs of the right kind.
  EXPECT_NE(d.find("FWD 'U' fwd_kind=union"), std::string::npos);
  EXPECT_NE(d.find("FWD 'Opaque' fwd_kind=struct"), std::string::npos);
  // 2.1
  EXPECT_NE(d.find("FLOAT 'long double' size=16"), std::string::npos);
  EXPECT_NE(d.find("INT '__int128' size=16 bits_offset=0 nr_bits=128 encoding=SIGNED"), std::string::npos);
  EXPECT_NE(d.find("INT '_Bool' size=1 bits_offset=0 nr_bits=8 encoding=BOOL"), std::string::npos);
  EXPECT_NE(d.find("INT 'char' size=1 bits_offset=0 nr_bits=8 encoding=SIGNED"), std::string::npos);
  EXPECT_NE(d.find("INT 'unsigned char' size=1 bits_offset=0 nr_bits=8 encoding=(none)"), std::string::npos);
  EXPECT_NE(d.find("STRUCT 'Empty' size=0 vlen=0"), std::string::npos);
  // 2.6: `...` is a trailing unnamed void parameter.
  EXPECT_NE(d.find("\t'(anon)' type_id=0\n"), std::string::npos);
  // Without --btf_gen_floats, floats are INTs of their size, no encoding.
  ASSERT_EQ(test::run_btfc("encode --btf_encode_detached=" + out + " " + obj).status, 0);
  d = dump(out);
  EXPECT_NE(d.find("INT 'long double' size=16 bits_offset=0 nr_bits=128 encoding=(none)"), std::string::npos);
  EXPECT_EQ(d.find("FLOAT"), std::string::npos);
}

TEST(Encode, IndexIntAppendedToUnitWithoutInt) {
  // 2.5: no `int` in this unit, yet arrays need an index type: pahole adds
  // INT 'int' after the unit's types.
  std::string obj = test::compile_c("noint", "struct X { char a[4]; unsigned short b[2]; } x;\n", "gcc -g -c");
  expect_same_as_pahole(obj);
  std::string out = obj + ".btfc.btf";
  std::string d = dump(out);
  EXPECT_NE(d.find("INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED"), std::string::npos) << d;
}

TEST(Encode, SeveralUnitsLinkedAndThreadCountIrrelevant) {
  // Three units sharing types, linked: dedup merges them; -j1/-j2/-j4 give
  // the same bytes. (A single file this small runs on one thread whatever
  // -jN says: batch mode, even of one file, runs the three units on three.)
  std::string dir = test::scratch_dir();
  std::string a = test::compile_c("unit_a", std::string(kTypes) + "int main(void) { return t.c; }\n", "gcc -g -O1 -c");
  std::string b = test::compile_c("unit_b", std::string(kTypes) + "struct T *get_b(void) { return &t; }\n",
                                  "gcc -g -O1 -c -Dt=tb -Dct=ctb");
  std::string c = test::compile_c("unit_c", "struct L { struct L *next; int v[3]; } l;\nint use_c(struct L *p) { return p->v[1]; }\n",
                                  "clang -g -O1 -c");
  std::string exe = dir + "/linked";
  ASSERT_EQ(test::run("gcc -o " + exe + " " + a + " " + b + " " + c).status, 0);
  std::string first;
  for (const char* j : {"-j1", "-j2", "-j4", "-j"}) {
    std::string out = dir + "/linked" + j + ".btf";
    test::RunResult r = test::run_btfc(std::string("encode ") + j + " --btf_encode_detached=" + out + " " + exe);
    ASSERT_EQ(r.status, 0) << r.err;
    std::string bytes = test::read_file(out);
    if (first.empty()) first = bytes;
    EXPECT_EQ(bytes, first) << "output of " << j << " differs from -j1";
  }
  test::RunResult r = test::run_btfc("encode --stats -j4 --output-dir=" + dir + "/batch " + exe);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("threads      4\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("pages        huge (small input, no probe)\n"), std::string::npos) << r.err;
  EXPECT_EQ(test::read_file(dir + "/batch/linked.btf"), first) << "batch -j4 differs from -j1";
  BTFC_EXPECT_LOADS(read_bytes(dir + "/linked-j1.btf"));
}

// dwz moves the DIEs units share into partial units (in the file, or in
// an alternate file with -m) that the units import or point into. The
// BTF of the program after dwz is the BTF of the program before it
// (pahole 1.24 warns that it does not consider such types).
TEST(Encode, DwzPartialUnitsGiveTheTypesOfTheProgramBeforeDwz) {
  ASSERT_TRUE(test::tool_exists("dwz")) << "dwz is not installed (scripts/install-deps.sh installs it)";
  std::string dir = test::scratch_dir();
  std::string header;
  for (int i = 0; i < 30; i++) {
    std::string n = std::to_string(i);
    header += "struct s" + n + " { int a; long b; struct s" + n + " *next; };\n";
  }
  // One header, so that the units' copies of a struct are the same DIEs
  // (declared in the same file), which dwz then shares.
  std::ofstream(dir + "/dwz_types.h") << header;
  std::string objects;
  for (int unit = 1; unit <= 3; unit++) {
    std::string source = "#include \"dwz_types.h\"\n";
    for (int i = 0; i < 30; i++)
      source += "int f" + std::to_string(unit) + "_" + std::to_string(i) + "(struct s" + std::to_string(i) +
                " *p) { return p->a; }\n";
    if (unit == 1) source += "int main(void) { return 0; }\n";
    objects += " " + test::compile_c("dwz_unit" + std::to_string(unit), source, "gcc -g -O1 -c");
  }
  const std::string plain = dir + "/dwz_plain";
  ASSERT_EQ(test::run("gcc -o " + plain + objects).status, 0);
  ASSERT_EQ(test::run_btfc("encode --btf_encode_detached=" + plain + ".btf " + plain).status, 0);
  btf::Btf before = btf::read_file(plain + ".btf");
  ASSERT_GT(before.type_count(), 90u);

  const std::string single = dir + "/dwz_single", multi_a = dir + "/dwz_multi_a", multi_b = dir + "/dwz_multi_b";
  for (const std::string& copy : {single, multi_a, multi_b})
    std::filesystem::copy_file(plain, copy, std::filesystem::copy_options::overwrite_existing);
  ASSERT_EQ(test::run("dwz " + single).status, 0);
  ASSERT_EQ(test::run("cd '" + dir + "' && dwz -m dwz_common.debug -M dwz_common.debug dwz_multi_a dwz_multi_b").status,
            0);
  for (const std::string& file : {single, multi_a}) {
    test::RunResult units = test::run("readelf --debug-dump=info " + file + " | grep -c DW_TAG_partial_unit");
    EXPECT_NE(units.out, "0\n") << "dwz made no partial unit in " << file;
    test::RunResult r = test::run_btfc("encode --btf_encode_detached=" + file + ".btf " + file);
    ASSERT_EQ(r.status, 0) << file << ": " << r.err;
    EXPECT_EQ(r.err, "") << file;
    btf::DiffResult d = btf::diff(btf::read_file(file + ".btf"), before, {"after dwz", "before dwz"});
    EXPECT_TRUE(d.equivalent) << file << ":\n" << d.report;
  }
}

TEST(Encode, EnumForwardInOneUnitMeetsItsSignedEnumInAnother) {
  // drm_kms_helper.ko in small: unit a only declares `enum st;` (GCC:
  // DW_AT_encoding unsigned, no size -> ENUM 4 vlen 0, kind flag 0), unit
  // b defines it with a negative value (kind flag 1); both use struct dev,
  // which holds a function pointer returning the enum. Split on a base, as
  // a module. libbpf >= 1.1 (pahole 1.24 here, 1.31 too) maps the forward
  // to the full enum, so struct dev is one type, not two.
  std::string dir = test::scratch_dir();
  const std::string dev = "struct dev { enum st (*check)(int); int x; };\n";
  std::string base_o = test::compile_c("enumfwd_base", "struct other { long y; } other;\nint main(void) { return 0; }\n",
                                       "gcc -g -c");
  std::string a = test::compile_c("enumfwd_a", "enum st;\n" + dev + "int use_a(struct dev *d) { return d->x; }\n",
                                  "gcc -g -O1 -c");
  std::string b = test::compile_c("enumfwd_b", "enum st { ST_OK = 0, ST_ERR = -1 };\n" + dev +
                                  "int use_b(struct dev *d) { return d->check(1) == ST_OK; }\n", "gcc -g -O1 -c");
  std::string mod = dir + "/enumfwd.o", base = dir + "/enumfwd_base.btf";
  ASSERT_EQ(test::run("ld -r -o " + mod + " " + a + " " + b).status, 0);
  test::RunResult r = test::run_btfc("encode --btf_encode_detached=" + base + " " + base_o);
  ASSERT_EQ(r.status, 0) << r.err;
  std::string ours = mod + ".btfc.btf", ref = mod + ".pahole.btf";
  std::filesystem::remove(ref);  // pahole 1.24 opens without O_TRUNC
  r = test::run_btfc("encode --btf_base=" + base + " --btf_encode_detached=" + ours + " " + mod);
  ASSERT_EQ(r.status, 0) << r.err;
  r = test::run("pahole -J --btf_base=" + base + " --btf_encode_detached=" + ref + " " + mod);
  ASSERT_EQ(r.status, 0) << r.err;
  btf::Btf vm = btf::read_file(base);
  btf::Btf mine = btf::read_file(ours, &vm), theirs = btf::read_file(ref, &vm);
  int devs = 0, enums = 0;
  for (btf::TypeId id = mine.start_id(); id < mine.end_id(); ++id) {
    btf::TypeView t = mine.type(id);
    if (t.kind() == btf::Kind::Struct && t.name() == "dev") ++devs;
    if (t.kind() == btf::Kind::Enum && t.name() == "st") {
      ++enums;
      EXPECT_EQ(t.vlen(), 2u) << "the forward survived";
      EXPECT_TRUE(t.kind_flag());
    }
  }
  EXPECT_EQ(devs, 1);
  EXPECT_EQ(enums, 1);
  btf::DiffResult d = btf::diff(mine, theirs, {"btfc", "pahole-1.24"});
  EXPECT_TRUE(d.equivalent) << d.report;
}

TEST(Encode, ClangLtoLink) {
  // clang -flto: one LTO unit per source, types referenced across units
  // with DW_FORM_ref_addr; each unit converts what it references.
  std::string dir = test::scratch_dir();
  std::string a = test::compile_c("lto_a", "struct P { int x; struct P *next; };\nstruct P *mk(void);\n"
                                  "int main(void) { return mk()->x; }\n", "clang -g -O2 -flto -c");
  std::string b = test::compile_c("lto_b", "struct P { int x; struct P *next; };\nstatic struct P p;\n"
                                  "__attribute__((noinline)) struct P *mk(void) { return &p; }\n",
                                  "clang -g -O2 -flto -c");
  std::string exe = dir + "/lto";
  test::RunResult l = test::run("clang -flto -fuse-ld=lld -g -O2 -o " + exe + " " + a + " " + b);
  ASSERT_EQ(l.status, 0) << l.err;
  std::string out = exe + ".btf";
  test::RunResult r = test::run_btfc("encode --btf_encode_detached=" + out + " " + exe);
  ASSERT_EQ(r.status, 0) << r.err;
  std::string d = dump(out);
  EXPECT_NE(d.find("STRUCT 'P' size=16 vlen=2"), std::string::npos) << d;
  BTFC_EXPECT_LOADS(read_bytes(out));
}

// clang -flto: b.c's struct Q (and get's return type) point at a.c's
// `void __user *`, a pointer DIE whose btf_type_tag is its child. The
// foreign pointer keeps its tag: else b's Q is another graph than a's,
// dedup keeps both, and everything reaching Q doubles (a ThinLTO kernel's
// BTF came out five times pahole's: 118,725 types against 22,541).
TEST(Encode, ClangLtoTaggedPointerAcrossUnits) {
  const std::string head = "#define __user __attribute__((btf_type_tag(\"user\")))\n"
                           "struct Q { void __user *u; int x; };\n";
  std::string a = test::compile_c("lto_tag_a", head + "struct Q q;\n"
                                  "__attribute__((noinline)) int set(struct Q *p, void __user *v) { p->u = v; return p->x; }\n",
                                  "clang -g -O2 -flto -c");
  std::string b = test::compile_c("lto_tag_b", head + "extern struct Q q;\nint set(struct Q *p, void __user *v);\n"
                                  "__attribute__((noinline)) void __user *get(struct Q *p) { return p->u; }\n"
                                  "int main(void) { return set(&q, get(&q)); }\n",
                                  "clang -g -O2 -flto -c");
  std::string exe = test::scratch_dir() + "/lto_tag";
  test::RunResult l = test::run("clang -flto -fuse-ld=lld -g -O2 -o " + exe + " " + a + " " + b);
  ASSERT_EQ(l.status, 0) << l.err;
  // The case itself: b's unit refers to a's tagged pointer.
  test::RunResult dd = test::run("llvm-dwarfdump --debug-info " + exe);
  ASSERT_NE(dd.out.find("DW_AT_type\t(0x0000000000000048 \"void *\")"), std::string::npos)
      << "clang no longer refers across units here\n" << dd.out;
  std::string out = exe + ".btf";
  test::RunResult r = test::run_btfc("encode --btf_encode_detached=" + out + " " + exe);
  ASSERT_EQ(r.status, 0) << r.err;
  btf::Btf t = btf::read_file(out);
  std::vector<btf::TypeId> qs;
  for (btf::TypeId id = 1; id < t.end_id(); ++id)
    if (t.type(id).kind() == btf::Kind::Struct && t.type(id).name() == "Q") qs.push_back(id);
  ASSERT_EQ(qs.size(), 1u) << dump(out);
  btf::TypeView ptr = t.type(t.type(qs[0]).member(0).type);
  ASSERT_EQ(ptr.kind(), btf::Kind::Ptr) << dump(out);
  btf::TypeView tag = t.type(ptr.type());
  ASSERT_EQ(tag.kind(), btf::Kind::TypeTag) << dump(out);
  EXPECT_EQ(tag.name(), "user");
  EXPECT_EQ(tag.type(), 0u);
  expect_same_as_pahole(exe);
}

// A linked file's units are read as copies of their bytes, one by one,
// out of the file's mapping (DwarfFile::copies_units); references into
// other units (clang LTO) and type units read through the same lookups,
// and a root DIE longer than the first window read for it (a comp_dir of
// 1.4 KB, inline with -fno-merge-debug-strings) from a bigger one. With
// .debug_* compressed the units are not in the mapping: they are read in
// place from the decompressed section, and the output is the same.
TEST(Encode, LinkedUnitsCopiedOrReadInPlaceGiveTheSameBytes) {
  std::string dir = test::scratch_dir();
  std::string deep = dir;
  for (int k = 0; k < 7; k++) deep += "/" + std::string(200, 'd');
  std::filesystem::create_directories(deep);
  const char* a_src = "struct P { int x; struct P *next; char n[4]; };\nstruct Q { struct P p; long y; };\n"
                      "struct Q *mk(void);\nint main(void) { return mk()->p.x; }\n";
  const char* b_src = "struct P { int x; struct P *next; char n[4]; };\nstruct Q { struct P p; long y; };\n"
                      "static struct Q q; int gv = 3;\n__attribute__((noinline)) struct Q *mk(void) { return &q; }\n";
  struct Build {
    std::string name, compile, link;
  };
  for (const Build& b : {Build{"lto", "clang -g -O2 -flto -c", "clang -flto -fuse-ld=lld -g -O2"},
                         Build{"types", "gcc -g -gdwarf-4 -fdebug-types-section -O2 -c", "gcc -g"},
                         Build{"long_root", "cd " + deep + " && gcc -g -gdwarf-4 -fno-merge-debug-strings -O2 -c",
                               "gcc -g"}}) {
    SCOPED_TRACE(b.name);
    std::string a = test::compile_c(b.name + "_a", a_src, b.compile);
    std::string c = test::compile_c(b.name + "_b", b_src, b.compile);
    std::string exe = dir + "/" + b.name + "_linked";
    test::RunResult l = test::run(b.link + " -o " + exe + " " + a + " " + c);
    ASSERT_EQ(l.status, 0) << l.err;
    test::RunResult z = test::run("objcopy --compress-debug-sections=zlib " + exe + " " + exe + ".z");
    ASSERT_EQ(z.status, 0) << z.err;
    std::vector<uint8_t> outs[2];
    for (int k = 0; k < 2; k++) {
      const std::string in = k ? exe + ".z" : exe, out = in + ".btf";
      test::RunResult r = test::run_btfc("encode --stats --btf_encode_detached=" + out + " " + in);
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_EQ(r.err.find("by unit      1 file copied unit by unit") != std::string::npos, k == 0) << r.err;
      outs[k] = read_bytes(out);
    }
    EXPECT_FALSE(outs[0].empty());
    EXPECT_TRUE(outs[0] == outs[1]) << "read in place, the output differs";
    // Q once, P once (gcc's type units: Q's unit reads P through P's
    // signature, and its array needs an index `int` there too).
    const std::string d = dump(exe + ".btf");
    EXPECT_EQ(count_of(d, "STRUCT 'Q' size=32 vlen=2"), 1) << d;
    EXPECT_EQ(count_of(d, "STRUCT 'P' size=24 vlen=3"), 1) << d;
    BTFC_EXPECT_LOADS(outs[0]);
  }
}

TEST(Encode, ClangBtfTags) {
  // clang's btf_type_tag / btf_decl_tag attributes (DW_TAG_LLVM_annotation).
  // PTR -> last tag -> ... -> first tag -> pointee; decl tags after the
  // unit's types, with the member index or -1.
  const char* src = R"(
#define __tag1 __attribute__((btf_type_tag("tag1")))
#define __tag2 __attribute__((btf_type_tag("tag2")))
struct R { int __tag1 __tag2 *p; int m __attribute__((btf_decl_tag("member_tag"))); }
  __attribute__((btf_decl_tag("struct_tag")));
typedef int td_t __attribute__((btf_decl_tag("typedef_tag")));
struct R r; td_t td;
)";
  std::string obj = test::compile_c("tags", src, "clang -g -c");
  std::string out = obj + ".btf";
  ASSERT_EQ(test::run_btfc("encode --btf_encode_detached=" + out + " " + obj).status, 0);
  btf::Btf b = btf::read_file(out);
  std::string d = dump(out);
  // Walk the member `p`: PTR -> TYPE_TAG tag2 -> TYPE_TAG tag1 -> INT int.
  btf::TypeId r = 0;
  for (btf::TypeId id = 1; id < b.end_id(); ++id)
    if (b.type(id).kind() == btf::Kind::Struct && b.type(id).name() == "R") r = id;
  ASSERT_NE(r, 0u) << d;
  btf::TypeView ptr = b.type(b.type(r).member(0).type);
  ASSERT_EQ(ptr.kind(), btf::Kind::Ptr) << d;
  btf::TypeView t2 = b.type(ptr.type());
  ASSERT_EQ(t2.kind(), btf::Kind::TypeTag) << d;
  EXPECT_EQ(t2.name(), "tag2");
  btf::TypeView t1 = b.type(t2.type());
  ASSERT_EQ(t1.kind(), btf::Kind::TypeTag) << d;
  EXPECT_EQ(t1.name(), "tag1");
  EXPECT_EQ(b.type(t1.type()).name(), "int");
  EXPECT_NE(d.find("DECL_TAG 'struct_tag' type_id=" + std::to_string(r) + " component_idx=-1"), std::string::npos) << d;
  EXPECT_NE(d.find("DECL_TAG 'member_tag' type_id=" + std::to_string(r) + " component_idx=1"), std::string::npos) << d;
  EXPECT_NE(d.find("DECL_TAG 'typedef_tag'"), std::string::npos) << d;
  BTFC_EXPECT_LOADS(read_bytes(out));
  // pahole 1.24 reads the same annotations: same graph.
  expect_same_as_pahole(obj);
  // Without the features: no tags at all.
  ASSERT_EQ(test::run_btfc("encode --skip_encoding_btf_type_tag --skip_encoding_btf_decl_tag --btf_encode_detached=" +
                           out + " " + obj).status, 0);
  d = dump(out);
  EXPECT_EQ(d.find("TYPE_TAG"), std::string::npos) << d;
  EXPECT_EQ(d.find("DECL_TAG"), std::string::npos) << d;
}

// GCC 16 writes btf_decl_tag as DW_TAG_GNU_annotation (0x6001), the tag
// clang spells DW_TAG_LLVM_annotation (0x6000). pahole 1.31 does not read
// it (1.32 does), so neither does btfc, for types, functions, parameters or
// variables alike (pahole-rules.md 2.9, 3.2, 4.2): clang's object with its
// annotations relabelled 0x6001 in .debug_abbrev encodes as the original
// does with decl tags off.
TEST(Encode, GnuAnnotationsAreNotReadAsPahole131) {
  const char* src = R"(
#define TAG(x) __attribute__((btf_decl_tag(x)))
struct S { int m TAG("member_tag"); } TAG("struct_tag");
typedef int td_t TAG("typedef_tag");
__attribute__((section(".data..percpu"))) struct S pcpu TAG("var_tag");
td_t TAG("fn_tag") tagged(struct S *s, int TAG("param_tag") b) { return s->m + b; }
)";
  const std::string obj = test::compile_c("gnu_ann", src, "clang -O2 -g -c");
  const std::string relabelled = obj + ".gnu.o";
  {
    std::vector<uint8_t> bytes = read_bytes(obj);
    std::unique_ptr<elf::ElfFile> elf = elf::ElfFile::open(obj);
    const elf::Section* abbrev = elf->find_section(".debug_abbrev");
    ASSERT_NE(abbrev, nullptr);
    size_t at = abbrev->offset;
    const size_t end = abbrev->offset + abbrev->size;
    auto uleb = [&] {
      uint64_t v = 0;
      for (int shift = 0; at < end; shift += 7) {
        const uint8_t b = bytes[at++];
        v |= uint64_t{b & 0x7fu} << shift;
        if (!(b & 0x80)) break;
      }
      return v;
    };
    int relabelled_count = 0;
    while (at < end) {
      if (uleb() == 0) continue;  // a table's end
      const size_t tag_at = at;
      if (uleb() == 0x6000) {  // 80 c0 01 -> 81 c0 01: DW_TAG_GNU_annotation
        ASSERT_EQ(at - tag_at, 3u);
        bytes[tag_at] = 0x81;
        relabelled_count++;
      }
      at++;  // DW_CHILDREN_*
      for (;;) {
        const uint64_t name = uleb(), form = uleb();
        if (form == 0x21) uleb();  // DW_FORM_implicit_const: skips its SLEB128 value too
        if (name == 0 && form == 0) break;
      }
    }
    ASSERT_GT(relabelled_count, 0) << "clang wrote no DW_TAG_LLVM_annotation abbreviation";
    std::ofstream(relabelled, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                      static_cast<std::streamsize>(bytes.size()));
  }
  const std::string with_tags = obj + ".tags.btf", without = obj + ".notags.btf", gnu = relabelled + ".btf";
  ASSERT_EQ(test::run_btfc("encode --btf_encode_detached=" + with_tags + " " + obj).status, 0);
  ASSERT_EQ(test::run_btfc("encode --skip_encoding_btf_decl_tag --btf_encode_detached=" + without + " " + obj).status,
            0);
  test::RunResult r = test::run_btfc("encode --btf_encode_detached=" + gnu + " " + relabelled);
  ASSERT_EQ(r.status, 0) << r.err;
  // The original has all six tags, so the comparison below is not empty.
  const std::string d = dump(with_tags);
  for (const char* tag : {"member_tag", "struct_tag", "typedef_tag", "var_tag", "fn_tag", "param_tag"})
    EXPECT_EQ(count_of(d, std::string("DECL_TAG '") + tag + "'"), 1u) << tag << "\n" << d;
  EXPECT_EQ(count_of(dump(gnu), "DECL_TAG"), 0u) << dump(gnu);
  EXPECT_TRUE(read_bytes(gnu) == read_bytes(without)) << dump(gnu) << "\n---\n" << dump(without);
  // pahole 1.24 does not know the tag either: the same graph.
  expect_same_as_pahole(relabelled);
}

// Types the kernel resolves more than 32 deep in the order compilers emit
// them: a 40-star pointer (outermost first) and, from clang, 40 struct
// definitions nested in one another (outermost first). pahole numbers
// them in that order, which the kernel refuses ("Exceeded max resolving
// depth"); btfc renumbers them (btf/kernel_order.h), so the same graph
// loads.
TEST(Encode, TypesTooDeepForTheKernelInCompilerOrderStillLoad) {
  std::string src = "int " + std::string(40, '*') + "p40;\n";
  for (int i = 0; i < 40; ++i) src += "struct l" + std::to_string(i) + " { ";
  src += "int x; ";
  for (int i = 39; i > 0; --i) src += "} m" + std::to_string(i) + "; ";
  src += "};\nstruct l0 nested;\n";
  for (const char* cc : {"gcc -g -c", "clang -g -c"}) {
    SCOPED_TRACE(cc);
    std::string obj = test::compile_c(std::string("too_deep_") + (cc[0] == 'g' ? "gcc" : "clang"), src, cc);
    expect_same_as_pahole(obj);  // btfc's loads
    // The case is real: the kernel refuses pahole's order of this graph.
    std::string why;
    auto r = btf::testing::load_into_kernel_quietly(read_bytes(obj + ".pahole.btf"), &why);
    if (r == btf::testing::LoadResult::NotAllowed) GTEST_SKIP() << "\n*** the kernel lets this process load no BTF: NOT TESTED ***\n";
    EXPECT_EQ(r, btf::testing::LoadResult::Refused);
    EXPECT_NE(why.find(std::strerror(E2BIG)), std::string::npos) << why;
  }
}

TEST(Encode, UnsupportedTypesFailLikePahole) {
  std::string obj = test::compile_c("complex", "_Complex double z;\n", "gcc -g -c");
  test::RunResult r = test::run_btfc("encode --btf_gen_floats --btf_encode_detached=/dev/null " + obj);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("Complex, interval and imaginary float types are not supported"), std::string::npos) << r.err;
  obj = test::compile_c("atomic", "_Atomic int ai;\n", "gcc -g -c");
  r = test::run_btfc("encode --btf_encode_detached=/dev/null " + obj);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("Unsupported DW_TAG_atomic_type(0x47)"), std::string::npos) << r.err;
}

// C++ names a class template's instances "Box<int>": not a C identifier,
// which BTF names must be (the kernel refuses others; pahole 1.31 writes
// them). btfc refuses the file at the DIE, names the unit's language and
// the flag that leaves such units out, and encodes the rest with it.
TEST(Encode, CxxTemplateNameIsReportedAtItsDie) {
  const std::string src = "template <typename T> struct Box { T v; };\nBox<int> b;\nint plain;\n";
  std::string obj = test::compile_c("template", src, "g++ -x c++ -std=c++17 -g -gdwarf-5 -c");
  test::RunResult r = test::run_btfc("encode --btf_encode_detached=/dev/null " + obj);
  EXPECT_EQ(r.status, 1);
  const std::string at = "btfc: " + obj + ": .debug_info+0x";
  ASSERT_EQ(r.err.rfind(at, 0), 0u) << r.err;
  // The offset is that of the DIE named Box<int>, as llvm-dwarfdump shows it.
  const std::string offset = r.err.substr(at.size(), r.err.find(':', at.size()) - at.size());
  test::RunResult die = test::run("llvm-dwarfdump --debug-info=0x" + offset + " " + obj);
  EXPECT_NE(die.out.find("DW_TAG_structure_type"), std::string::npos) << die.out;
  EXPECT_NE(die.out.find("(\"Box<int>\")"), std::string::npos) << die.out;
  EXPECT_EQ(r.err.substr(r.err.find(':', at.size())),
            ": DW_TAG_structure_type 'Box<int>' cannot be encoded: BTF names are C identifiers (a c++14 unit: "
            "--lang_exclude=c++14 leaves such units out)\n");
  std::string out = obj + ".btf";
  std::filesystem::remove(out);
  r = test::run_btfc("encode --lang_exclude=c++14 --btf_encode_detached=" + out + " " + obj);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out)) << "its one unit left out: nothing to encode";
}

TEST(Encode, TypedefCycleIsReportedAsSuchOnABase) {
  // A module whose typedef names itself (its DW_AT_type edited to point
  // at its own DIE): dedup finds the cycle. A module is read unit by unit
  // and, on a failure, read again whole, unless every relocation was
  // applied already; that second run once failed for want of the base's
  // index, which the first dedup had used up, and said so instead.
  std::string dir = test::scratch_dir();
  std::string base_o = test::compile_c("cycle_base", "struct other { long y; } other;\n", "gcc -g -c");
  std::string base = dir + "/cycle_base.btf";
  test::RunResult r = test::run_btfc("encode --btf_encode_detached=" + base + " " + base_o);
  ASSERT_EQ(r.status, 0) << r.err;
  std::ofstream(dir + "/cycle.c") << "typedef int t;\nstruct s { t a; };\nint f(struct s *p) { return p->a; }\n";
  ASSERT_EQ(test::run("cd " + dir + " && gcc -g -gdwarf-4 -O0 -S -dA cycle.c -o cycle.s").status, 0);
  // The typedef's DIE offset, then the line of its DW_AT_type.
  std::ifstream in(dir + "/cycle.s");
  std::ostringstream edited;
  std::string line, typedef_die;
  bool edited_once = false;
  while (std::getline(in, line)) {
    std::smatch m;
    if (typedef_die.empty() && std::regex_search(line, m, std::regex(R"(\(DIE \((0x[0-9a-f]+)\) DW_TAG_typedef\))")))
      typedef_die = m[1];
    else if (!typedef_die.empty() && !edited_once && line.find("# DW_AT_type") != std::string::npos) {
      line = "\t.long\t" + typedef_die + "\t# DW_AT_type";
      edited_once = true;
    }
    edited << line << "\n";
  }
  ASSERT_TRUE(edited_once);
  std::ofstream(dir + "/cycle_edited.s") << edited.str();
  const std::string mod = dir + "/cycle.o";
  ASSERT_EQ(test::run("gcc -c " + dir + "/cycle_edited.s -o " + mod).status, 0);
  for (const std::string& with_base : {std::string(), " --btf_base=" + base}) {
    SCOPED_TRACE(with_base);
    r = test::run_btfc("encode -j2" + with_base + " --btf_encode_detached=" + dir + "/cycle.btf " + mod);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("btfc: " + mod + ": BTF dedup: type ["), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("]: a cycle of reference types\n"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir + "/cycle.btf"));
  }
}

TEST(Encode, InPlaceIntoTheElf) {
  std::string dir = test::scratch_dir();
  std::string obj = test::compile_c("inplace", kTypes, "gcc -g -c");
  std::string copy = dir + "/inplace_copy.o";
  std::filesystem::copy_file(obj, copy, std::filesystem::copy_options::overwrite_existing);
  test::RunResult r = test::run_btfc("encode -J " + copy);
  ASSERT_EQ(r.status, 0) << r.err;
  test::RunResult s = test::run("readelf -S -W " + copy);
  EXPECT_NE(s.out.find(".BTF "), std::string::npos) << s.out;
  test::RunResult bt = test::run("bpftool btf dump file " + copy);
  ASSERT_EQ(bt.status, 0) << bt.err;
  EXPECT_NE(bt.out.find("STRUCT 'T'"), std::string::npos);
  EXPECT_EQ(test::run("objdump -h " + copy).status, 0);
  // Encoding again replaces the section; the result still reads the same.
  ASSERT_EQ(test::run_btfc("encode -J " + copy).status, 0);
  EXPECT_EQ(test::run("bpftool btf dump file " + copy).out, bt.out);

  // A failing run leaves the input byte for byte as it was.
  std::string bad = test::compile_c("inplace_bad", "_Complex double z; int x[3];\n", "gcc -g -c");
  std::string before = test::read_file(bad);
  r = test::run_btfc("encode -J --btf_gen_floats " + bad);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(test::read_file(bad), before);
  for (auto& e : std::filesystem::directory_iterator(std::filesystem::path(bad).parent_path()))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << "left behind: " << e.path();
}

TEST(Encode, PaholeMode) {
  std::string pahole = pahole_mode_binary();
  test::RunResult v = test::run(pahole + " --version");
  EXPECT_EQ(v.status, 0);
  EXPECT_EQ(v.out, "v1.31\n");
  EXPECT_EQ(test::run(pahole + " --numeric_version").out, "131\n");
  test::RunResult f = test::run(pahole + " --supported_btf_features");
  EXPECT_EQ(f.out.substr(0, 17), "encode_force,var,");
  // What Linux 6.1's link-vmlinux.sh runs, detached variant.
  std::string obj = test::compile_c("pahole_mode", kTypes, "gcc -g -c");
  std::string out = obj + ".btf";
  test::RunResult e = test::run(pahole + " -J --btf_gen_floats -j --lang_exclude=rust "
                                "--skip_encoding_btf_inconsistent_proto --btf_gen_optimized "
                                "--btf_encode_detached=" + out + " " + obj);
  ASSERT_EQ(e.status, 0) << e.err;
  EXPECT_NE(dump(out).find("STRUCT 'T'"), std::string::npos);
  // A pahole option btfc does not implement is an error, not ignored,
  // with -J and without.
  for (const char* j : {"-J ", ""}) {
    test::RunResult u = test::run(pahole + " " + j + "--prettify=" + obj + " " + obj);
    EXPECT_EQ(u.status, 2) << j;
    EXPECT_NE(u.err.find("pahole option --prettify is not supported by btfc"), std::string::npos) << u.err;
  }
  // Without -J or --btf_encode_detached pahole prints layouts and leaves
  // FILE alone (Debian's, the oracle): pahole mode prints the same text,
  // with pahole's spellings of the layout options, and leaves FILE as it
  // was too, rather than give it a .BTF section it was not asked for.
  ASSERT_TRUE(test::tool_exists("pahole")) << "pahole (dwarves) is a test dependency";
  const std::string before = test::read_file(obj);
  for (const std::string& args : {obj, "-C T " + obj, "--sort -EC S,Bits " + obj, "--class_name=Bits,S -j " + obj,
                                  "-F dwarf --flat_arrays --suppress_packed -CS " + obj, "-F btf,dwarf -C Bits " + obj,
                                  "--hex -C Bits,E " + obj, "-s " + obj, "--structs -x B -sH1 " + obj, "-z 1 " + obj,
                                  "-qrC Nest " + obj, "-di Inner " + obj, "-f Opaque " + obj, "--packed -s " + obj,
                                  "--with_flexible_array -q " + obj, "--skip_missing -C None,S " + obj,
                                  "-aAs " + obj, "-C Nest -C S " + obj, "-f Opaque -i Inner " + obj,
                                  "-IC S " + obj, "--show_decl_info -s " + obj, "-D/usr -s " + obj,
                                  "-s --sort " + obj, "-RC S " + obj, "-P " + obj, "-VRC S " + obj,
                                  "-SC S " + obj}) {
    test::RunResult real = test::run("/usr/bin/pahole " + args);
    ASSERT_EQ(real.status, 0) << args << ": " << real.err;
    ASSERT_FALSE(real.out.empty()) << args;
    test::RunResult ours = test::run(pahole + " " + args);
    EXPECT_EQ(ours.status, 0) << args << ": " << ours.err;
    EXPECT_EQ(ours.out, real.out) << args;
  }
  // --btf_base reads FILE's BTF (split on it), whatever -F says: this
  // object has none.
  test::RunResult split = test::run(pahole + " --btf_base=" + out + " -F dwarf " + obj);
  EXPECT_EQ(split.status, 1) << split.err;
  EXPECT_NE(split.err.find("no .BTF section"), std::string::npos) << split.err;
  EXPECT_NE(test::run("/usr/bin/pahole --btf_base=" + out + " -F dwarf " + obj).status, 0);
  EXPECT_EQ(test::read_file(obj), before) << "pahole mode changed " << obj;
  // A name that is no file is a type of the running kernel, as for pahole;
  // a name it lacks is said on stderr (exit 0, as pahole).
  if (std::filesystem::exists("/sys/kernel/btf/vmlinux")) {
    test::RunResult k = test::run(pahole + " list_head");
    EXPECT_EQ(k.status, 0) << k.err;
    EXPECT_EQ(k.out.rfind("struct list_head {\n", 0), 0u) << k.out;
    test::RunResult n = test::run(pahole + " no_such_type_here");
    EXPECT_EQ(n.status, 0) << n.err;
    EXPECT_EQ(n.err, "pahole (btfc): type 'no_such_type_here' not found\n");
  } else {
    ADD_FAILURE() << "this kernel has no /sys/kernel/btf/vmlinux: `pahole NAME` is not checked";
  }
  // One FILE, never a folder (btfc encode's batch mode).
  const std::string folder = std::filesystem::path(obj).parent_path().string();
  test::RunResult d = test::run(pahole + " -J " + folder);
  EXPECT_EQ(d.status, 1);
  EXPECT_EQ(d.err, "pahole (btfc): " + folder + ": is a folder: pahole encodes one FILE (btfc encode takes folders)\n");
  EXPECT_EQ(test::read_file(obj), before) << "pahole mode changed " << obj;
  // Either of them encodes: -J bundled with -j, and the detached file alone.
  std::filesystem::remove(out);
  ASSERT_EQ(test::run(pahole + " --btf_encode_detached=" + out + " " + obj).status, 0);
  EXPECT_NE(dump(out).find("STRUCT 'T'"), std::string::npos);
  ASSERT_EQ(test::run(pahole + " -Jj " + obj).status, 0);
  EXPECT_NE(dump(obj).find("STRUCT 'T'"), std::string::npos);
  // dwarves' btfdiff script, with pahole mode as its pahole: its BTF side
  // reads as Debian's pahole reads it, and DWARF and BTF agree.
  ASSERT_TRUE(test::tool_exists("btfdiff")) << "btfdiff (dwarves) is a test dependency";
  const std::string btf_side = " -F btf --sort --suppress_aligned_attribute --suppress_packed " + obj;
  test::RunResult ours = test::run(pahole + btf_side), real = test::run("/usr/bin/pahole" + btf_side);
  EXPECT_EQ(ours.status, 0) << ours.err;
  EXPECT_NE(ours.out.find("struct S {"), std::string::npos) << ours.out;
  EXPECT_EQ(ours.out, real.out);
  test::RunResult diff = test::run("PAHOLE=" + pahole + " btfdiff " + obj);
  EXPECT_EQ(diff.status, 0) << diff.err;
  EXPECT_EQ(diff.out + diff.err, "");
}

TEST(Encode, LanguageExclusion) {
  // A unit of an excluded language contributes nothing.
  std::string obj = test::compile_c("lang", kTypes, "gcc -g -c");
  std::string out = obj + ".btf";
  std::filesystem::remove(out);
  test::RunResult r = test::run_btfc("encode --lang_exclude=c89,c99,c11,c --btf_encode_detached=" + out + " " + obj);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out)) << "nothing to encode: pahole writes nothing";
  r = test::run_btfc("encode --lang=rust --btf_encode_detached=" + out + " " + obj);
  ASSERT_EQ(r.status, 0);
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace btfc::convert
