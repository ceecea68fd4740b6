// `btfc layout` and `btfc btfdiff` against their oracles.
//
// Fixture tests compile small C files with gcc and compare btfc with
// Debian's pahole 1.24 run on the same object (DWARF) and on the BTF pahole
// 1.24 encodes from it (`pahole -J`), with the options a user would pass;
// btfc prints as pahole 1.31 does, so the few 1.31-only summary lines are
// removed first (pahole_oracle.h). Corpus tests compare byte for byte with
// the pahole 1.31 reference files and, for the other modules, with pahole
// 1.24 again, and check that btfdiff is clean on every corpus file.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <utility>
#include <string>

#include "btf/btf.h"
#include "btf/reader.h"
#include "btf/writer.h"
#include "layout/diff.h"
#include "layout/layout.h"
#include "layout/pahole_oracle.h"
#include "support/test_support.h"

namespace btfc::test {
namespace {

// Each struct exercises one layout rule; the comment says which.
const char* kFixture = R"(
/* byte holes after a, c and e, and tail padding */
struct holes { char a; int b; char c; long d; short e; };
/* bit holes, an explicit :0, a bitfield after a byte member, a 40-bit field */
struct bits { unsigned a:3; unsigned b:5; unsigned :0; unsigned c:4; char d; unsigned long e:40; int f:7; };
/* packed: members at unnatural offsets */
struct __attribute__((packed)) packed { char a; int b; long c; };
/* aligned member and aligned struct: forced holes */
struct aligned { int a; int b __attribute__((aligned(16))); } __attribute__((aligned(64)));
/* a member struct with padding, with holes, and a packed one */
struct inner_pad { long x; char y; };
struct uses_inner { struct inner_pad p; char z; struct holes h; struct packed pk; };
/* nested anonymous union and structs, an anonymous bitfield struct, an inline enum */
struct nested { int kind; union { struct { int x, y; } pt; long l; struct { char c; long q; } s; }; struct { unsigned f1:1, f2:2; } flags; enum { A, B = 5 } e; };
/* flexible arrays, at the end and embedded, and a zero-length array */
struct flex { int n; long data[]; };
struct flex_in { int a; struct flex f; };
struct zero { int n; char z[0]; };
/* cacheline crossings, on and off a boundary, and a last struct with holes */
struct big { char a; long b[9]; char c; long d[7]; int e; char f[70]; struct holes tail; };
/* type names: function pointers with varargs and void, const char *, char **, qualifiers, 2-D array */
struct fp { int (*cb)(void *, const char *, ...); void (*v)(void); const char *s; char **pp; const int ci; volatile long vl; int arr[2][3]; struct fp *next; const struct holes *ch; _Bool ok; };
/* a union holding structs */
union u { int i; struct holes h; char c[3]; struct packed p; };
/* a typedef'd anonymous struct as a member */
typedef struct { int a; char b; } tdef_t;
struct uses_tdef { tdef_t t; char after; };
/* an over-aligned small struct as a member */
struct small_pad { char c; } __attribute__((aligned(32)));
struct uses_small { long l; struct small_pad sp; };
struct holes v1; struct bits v2; struct packed v3; struct aligned v4; struct uses_inner v5; struct nested v6;
struct flex *v7; struct flex_in *v8; struct zero *v9; struct big v10; struct fp v11; union u v12;
struct uses_tdef v13; struct uses_small v14;
/* holes held two levels down (-i -d), pointed to (-f) */
struct outer { int o; struct uses_inner ui; struct holes *hp; struct holes h2; } v15;
/* a struct local to a function: printed with --show_private_classes only */
int f(void) { struct local { int z; char q; } l = {1, 2}; return l.z + l.q; }
)";

class LayoutFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!tool_exists("/usr/bin/pahole")) return;
    object_ = new std::string(compile_c("layout_fixture", kFixture, "gcc -g -O0 -c"));
    btf_ = new std::string(*object_ + ".btf");
    RunResult r = run("/usr/bin/pahole -J --btf_encode_detached=" + *btf_ + " " + *object_);
    ASSERT_EQ(r.status, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete object_;
    delete btf_;
    object_ = btf_ = nullptr;
  }
  void SetUp() override {
    if (!tool_exists("/usr/bin/pahole")) GTEST_SKIP() << "pahole (Debian dwarves) is not installed: no oracle";
  }
  // btfc and pahole 1.24 with the same options on `file`.
  void expect_same(const std::string& options, const std::string& file, bool fix_expand = false) {
    RunResult p = run("/usr/bin/pahole " + options + " " + file);
    ASSERT_EQ(p.status, 0) << p.err;
    RunResult b = run_btfc("layout " + options + " " + file);
    ASSERT_EQ(b.status, 0) << b.err;
    ASSERT_FALSE(p.out.empty());
    std::string ours = only_what_124_prints(b.out), want = only_what_124_prints(p.out);
    if (fix_expand) {
      // With -E, 1.24 and 1.31 differ in the space between an expanded
      // member's closing brace (and its attributes) and the member name
      // ("}p;" / "))sp"); compare with that space normalised on both sides.
      ours = normalise_brace_space(ours);
      want = normalise_brace_space(want);
    }
    EXPECT_EQ(ours, want) << layout::unified_diff(want, ours, "pahole " + options, "btfc layout " + options);
  }
  // The same options on the object's DWARF and on pahole's BTF of it.
  void expect_same_dwarf_and_btf(const std::string& options) {
    expect_same(options, *object_);
    expect_same(options + " -F btf", *btf_);
  }
  static std::string normalise_brace_space(const std::string& text) {
    static const std::regex glued(R"(^(\t*\}(?: __attribute__\(\(\w+(?:\(\d+\))?\)\))*) ?(\w.*;.*)$)");
    std::string fixed;
    size_t q = 0;
    while (q <= text.size()) {
      size_t e = text.find('\n', q);
      if (e == std::string::npos) e = text.size();
      fixed += std::regex_replace(text.substr(q, e - q), glued, "$1 $2");
      if (e < text.size()) fixed += '\n';
      q = e + 1;
    }
    return fixed;
  }
  static std::string* object_;
  static std::string* btf_;
};
std::string* LayoutFixture::object_ = nullptr;
std::string* LayoutFixture::btf_ = nullptr;

TEST_F(LayoutFixture, PlainDwarfMatchesPahole) { expect_same("", *object_); }
TEST_F(LayoutFixture, SortedDwarfMatchesPahole) { expect_same("--sort", *object_); }
TEST_F(LayoutFixture, PrivateClassesMatchPahole) { expect_same("--show_private_classes --sort", *object_); }
TEST_F(LayoutFixture, BtfdiffDwarfSideMatchesPahole) {
  expect_same("-F dwarf --flat_arrays --sort --jobs --suppress_aligned_attribute --suppress_force_paddings "
              "--suppress_packed --lang_exclude rust --show_private_classes",
              *object_);
}
TEST_F(LayoutFixture, CachelineSizeMatchesPahole) { expect_same("--cacheline_size=32", *object_); }
TEST_F(LayoutFixture, ClassNamesMatchPahole) { expect_same("-C holes,big,fp", *object_); }
TEST_F(LayoutFixture, FlatArraysMatchPahole) { expect_same("--flat_arrays", *object_); }
TEST_F(LayoutFixture, ExpandTypesMatchesPahole) { expect_same("-E", *object_, true); }
// -s: "NAME\tSIZE\tHOLES" for each struct and union pahole lists.
TEST_F(LayoutFixture, SizesMatchPahole) {
  expect_same("-s", *object_);
  expect_same("--sizes -F btf", *btf_);
  // The other one-line formatters, and their separator; the last decides.
  expect_same("-n", *object_);
  expect_same("--class_name_len -t ,", *object_);
  expect_same("-s --nr_members -t: -F btf", *btf_);
  expect_same("-s --sort", *object_);  // not sorted: a listing is in unit order
  expect_same("-F btf -n --sort", *btf_);
}
// pahole's filters of the listing, on their own and together.
TEST_F(LayoutFixture, FiltersMatchPahole) {
  for (const char* filter : {"--structs", "--unions", "-x b", "--exclude=h", "-y h", "--prefix_filter=b", "-H 1",
                             "--holes=2", "--bit_holes=1", "-z 2", "--hole_size_ge=4", "--unions -H 1",
                             "--structs -z 1 -y h"}) {
    SCOPED_TRACE(filter);
    expect_same(std::string(filter) + " -s", *object_);
    expect_same(filter, *object_);
    expect_same(std::string(filter) + " -s -F btf", *btf_);
  }
}
// Offsets, sizes, bit offsets and enumerator values in hex ("0x" but for 0).
TEST_F(LayoutFixture, HexMatchesPahole) {
  expect_same("--hex", *object_);
  expect_same("--hex -E", *object_, true);
  expect_same("--hex -F btf", *btf_);
}
// -q: no comments, offsets or summaries; -r: offsets inside nested
// structs from their start; -l: a summary line naming the first biggest
// base type member; -M and --classes_as_structs: nothing to change in C.
TEST_F(LayoutFixture, QuietAndRelativeOffsetsMatchPahole) {
  for (std::string opts : {"-q", "-r", "-M", "--classes_as_structs", "-q --hex", "-q --structs -y h", "-l"}) {
    SCOPED_TRACE(opts);
    expect_same_dwarf_and_btf(opts);
  }
  expect_same("-q -E", *object_, true);
  expect_same("-r -E", *object_, true);
  expect_same("-q -C holes,nested,tdef_t", *object_);
  RunResult q = run_btfc("layout -q " + *object_);
  ASSERT_EQ(q.status, 0) << q.err;
  EXPECT_NE(q.out.find("struct holes {\n\tchar                       a;\n"), std::string::npos) << q.out;
  // pahole -q keeps one kind of comment only: before a bitfield padding it
  // prints.
  std::regex comment(R"(/\*.*\*/)");
  std::string others = std::regex_replace(q.out, std::regex(R"(/\* Force alignment to the next boundary: \*/)"), "");
  EXPECT_FALSE(std::regex_search(others, comment)) << q.out;
  // struct holes { char a; int b; char c; long d; short e; }: d, the first of word size.
  RunResult l = run("/usr/bin/pahole -l -C holes " + *object_);
  EXPECT_NE(l.out.find("\t/* first biggest size base type member: d 16 8 */\n"), std::string::npos) << l.out;
}
// --packed and --with_flexible_array select as pahole's inference does.
TEST_F(LayoutFixture, PackedAndFlexibleMatchPahole) {
  for (std::string opts : {"--packed", "--with_flexible_array", "--with_flexible_array --structs"}) {
    SCOPED_TRACE(opts);
    expect_same(opts, *object_);
    expect_same(opts + " -s", *object_);
    expect_same(opts + " -F btf", *btf_);
  }
  RunResult p = run_btfc("layout --packed -s " + *object_);
  EXPECT_EQ(p.out, "packed\t13\t0\n");
}
// -i NAME: the structs and unions holding a NAME (-d: and where inside
// them); -f NAME: the members pointing to one. pahole looks in the first
// unit that has NAME.
TEST_F(LayoutFixture, ContainersAndPointersMatchPahole) {
  for (std::string opts : {"-i holes", "-d -i holes", "--contains=holes --unions", "-i tdef_t", "-f holes",
                           "-f fp", "--find_pointers_to=holes,fp -x o"}) {
    SCOPED_TRACE(opts);
    expect_same_dwarf_and_btf(opts);
  }
  RunResult d = run_btfc("layout -d -i holes " + *object_);
  EXPECT_NE(d.out.find("outer\n  uses_inner\n"), std::string::npos) << d.out;
}
// -a: anonymous structs and unions too, a typedef's as "typedef struct
// {...} NAME;", with -A those of no typedef; each unit's, never merged.
TEST_F(LayoutFixture, AnonymousMatchPahole) {
  for (std::string opts : {"-a", "-a -A", "-a -s", "-a -A -n", "--anon_include --unions", "-a -y t", "-a -x t",
                           "-a --sort", "-a -q"}) {
    SCOPED_TRACE(opts);
    expect_same_dwarf_and_btf(opts);
  }
  RunResult a = run_btfc("layout -a " + *object_);
  EXPECT_NE(a.out.find("typedef struct {\n\tint                        a;"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("} tdef_t;\n"), std::string::npos) << a.out;
}
// -T: then each layout's name and the number of units defining it; -V:
// with -i each container's count of such members, and before -z no
// switch to listing names; and the unit options.
TEST_F(LayoutFixture, DefinitionsUnitsAndVerboseMatchPahole) {
  // Two units, which share `struct holes` and nothing else.
  std::string second = compile_c("layout_second", "struct holes { char a; int b; char c; long d; short e; };\n"
                                 "struct other { int z; };\nstruct holes w1; struct other w2;\n", "gcc -g -O0 -c");
  std::string both = scratch_dir() + "/layout_both.o";
  ASSERT_EQ(run("ld -r -o " + both + " " + *object_ + " " + second).status, 0);
  for (std::string opts : {"-T", "-T -s", "-s -T", "-T -x h", "-V -z 2", "-z 2 -V", "-V -i holes", "-V -d -i holes"}) {
    SCOPED_TRACE(opts);
    expect_same(opts, both);
  }
  expect_same("-T -F btf", *btf_);
  RunResult p = run("/usr/bin/pahole -T " + both);
  EXPECT_EQ(p.out.rfind("holes\t2\n", 0), 0u) << p.out;
  EXPECT_NE(p.out.find("\nother\t1\n"), std::string::npos) << p.out;
  // With --sort a listing is not sorted, and a struct met in two units is
  // listed twice (pahole's structures__add finds no two equal then).
  for (std::string opts : {"-T --sort", "-s --sort", "--sort -n -z 2", "-a -s --sort", "--sort -N -x h"}) {
    SCOPED_TRACE(opts);
    expect_same(opts, both);
  }
  RunResult twice = run_btfc("layout -s --sort " + both);
  EXPECT_NE(twice.out.find("holes\t32\t2\n"), twice.out.rfind("holes\t32\t2\n")) << twice.out;
  // Units: -X (by name prefix), --first_obj_only, -u (where each -C name
  // is found: the first unit with it, one name per unit).
  const std::string first_unit = scratch_dir() + "/layout_fixture";
  const std::vector<std::string> unit_options = {"-X " + first_unit + " -s", "--first_obj_only -s",
                                                 "-X " + first_unit + " --first_obj_only -T", "-u -C holes,other",
                                                 "-u -C other,holes", "-u -X " + first_unit + " -C holes"};
  for (const std::string& opts : unit_options) {
    SCOPED_TRACE(opts);
    expect_same(opts, both);
  }
  RunResult u = run_btfc("layout -u -C holes,other " + both);
  EXPECT_EQ(u.out, first_unit + ".c\n" + scratch_dir() + "/layout_second.c\n");
}
TEST_F(LayoutFixture, DeclInfoMatchesPahole) {
  // -I: the unit and "<DIE offset> FILE:LINE" before each type printed
  // alone; from BTF "<0> (null):0". -D: by the declaring file's prefix.
  expect_same_dwarf_and_btf("-I");
  for (std::string opts : {"-I --sort", "-I -C holes,tdef_t,bits", "-I -a", "-I -i holes", "-D /nowhere"}) {
    SCOPED_TRACE(opts);
    expect_same(opts, *object_);
  }
  RunResult ours = run_btfc("layout -I -C holes " + *object_);
  EXPECT_NE(ours.out.find("/* Used at: " + scratch_dir() + "/layout_fixture.c */\n/* <"), std::string::npos)
      << ours.out;
  EXPECT_NE(ours.out.find(" " + scratch_dir() + "/layout_fixture.c:3 */\nstruct holes {"), std::string::npos)
      << ours.out;
  // Every type is in the fixture's file, and BTF knows no file at all:
  // -D excludes them all, as pahole.
  for (const std::string& opts : {"-D " + scratch_dir() + " " + *object_, "-F btf -D / " + *btf_}) {
    SCOPED_TRACE(opts);
    RunResult b = run_btfc("layout " + opts), p = run("/usr/bin/pahole " + opts);
    EXPECT_EQ(b.status, 0) << b.err;
    EXPECT_EQ(b.out, "");
    EXPECT_EQ(p.out, "");
  }
}

// The declaring files as elfutils names them (pahole's -I and -D): units
// compiled from a folder with headers in a subfolder, by gcc and clang in
// several DWARF versions (whose line tables name directories and files
// differently), linked in pairs.
TEST(LayoutDeclInfo, FilesOfGccAndClangMatchPahole) {
  if (!tool_exists("/usr/bin/pahole")) GTEST_SKIP() << "pahole (Debian dwarves) is not installed: no oracle";
  const std::string dir = scratch_dir() + "/decl";
  ASSERT_EQ(run("mkdir -p " + dir + "/sub/inc").status, 0);
  ASSERT_EQ(run("cd " + dir + " && printf '%s' '"
                "struct in_h1 { int a; long b; };\n"
                "typedef struct { char c; int d; } anon_t;\n"
                "enum colour { RED, GREEN };\n' > sub/inc/h1.h && printf '%s' '"
                "#include \"inc/h1.h\"\n"
                "struct u1_local { struct in_h1 h; anon_t t; enum colour c; } v1;\n' > sub/u1.c && printf '%s' '"
                "#include \"inc/h1.h\"\n"
                "struct u2_local { struct in_h1 *p; char z; } v2;\n"
                "int f(void) { struct fn_local { int q; } l = {1}; return l.q; }\n' > sub/u2.c")
                .status,
            0);
  const std::vector<std::string> compilers = {"gcc -gdwarf-2", "gcc -gdwarf-4", "gcc -gdwarf-5", "clang -gdwarf-4",
                                              "clang -gdwarf-5"};
  for (size_t c = 0; c < compilers.size(); ++c) {
    SCOPED_TRACE(compilers[c]);
    const std::string obj = dir + "/both" + std::to_string(c) + ".o";
    // One unit compiled from the top folder, one from inside sub/.
    RunResult built = run("cd " + dir + " && " + compilers[c] + " -g -O0 -Isub -c sub/u1.c -o u1.o && (cd sub && " +
                          compilers[c] + " -g -O0 -c u2.c -o ../u2.o) && ld -r -o " + obj + " u1.o u2.o");
    ASSERT_EQ(built.status, 0) << built.err;
    for (const std::string opts : {"-I", "-I --sort", "-I -a --show_private_classes", "-D sub/inc",
                                   "-D ./inc -a", "-I -C colour,anon_t,in_h1,fn_local"}) {
      SCOPED_TRACE(opts);
      RunResult p = run("/usr/bin/pahole " + opts + " " + obj), b = run_btfc("layout " + opts + " " + obj);
      ASSERT_EQ(b.status, 0) << b.err;
      ASSERT_FALSE(p.out.empty());
      EXPECT_EQ(only_what_124_prints(b.out), only_what_124_prints(p.out))
          << layout::unified_diff(only_what_124_prints(p.out), only_what_124_prints(b.out), "pahole", "btfc");
    }
    if (c < 3) {  // gcc names the header by its folder, as the unit was compiled
      RunResult b = run_btfc("layout -I -C in_h1 " + obj);
      EXPECT_NE(b.out.find("/* Used at: sub/u1.c */\n"), std::string::npos) << b.out;
      EXPECT_NE(b.out.find("sub/inc/h1.h:1 */\nstruct in_h1 {"), std::string::npos) << b.out;
    }
  }
}

// -R: structs reorganized to fill their holes ("saved N bytes!"), with -V
// the moves first; -P: the structs that would shrink, NAME SIZE NEW SAVED.
TEST_F(LayoutFixture, ReorganizeAndPackableMatchPahole) {
  const std::string all = "holes,bits,packed,aligned,inner_pad,uses_inner,nested,flex,big,fp,u,uses_tdef,outer";
  expect_same_dwarf_and_btf("-R -C " + all);
  for (const std::string& opts : std::vector<std::string>{"-V -R -C " + all, "-P", "-P -V", "-P -a", "-P -x h",
                                                          "--packable --structs", "-R -i holes", "-R -C holes -I"}) {
    SCOPED_TRACE(opts);
    expect_same(opts, *object_);
  }
  expect_same("-P -F btf", *btf_);
  // What pahole moves in struct holes (a char, a char, a short, an int
  // and a long, 16 bytes in the end), from its 32.
  RunResult r = run_btfc("layout -R -C holes " + *object_);
  EXPECT_NE(r.out.find("};   /* saved 16 bytes! */\n"), std::string::npos) << r.out;
  EXPECT_NE(run_btfc("layout -P " + *object_).out.find("holes\t32\t16\t16\n"), std::string::npos);
  EXPECT_EQ(run_btfc("layout -P --sort " + *object_).status, 2);
}

// pahole keeps a member's hole in 16 bits, and counts a negative one: a
// struct over 64 KB whose holes wrap (pglist_data is one), and the same
// struct reorganized, whose moved member's offset wraps too.
TEST(LayoutHoles, HolesOverSixtyFourKilobytesMatchPahole) {
  if (!tool_exists("/usr/bin/pahole")) GTEST_SKIP() << "pahole (Debian dwarves) is not installed: no oracle";
  const std::string obj = compile_c("big_holes",
                                    "struct bighole { char a; int b __attribute__((aligned(131072))); char c; };\n"
                                    "struct wide { long x[9000]; char a; long y; int b; char c; int d; };\n"
                                    "struct bighole v1; struct wide v2;\n",
                                    "gcc -g -c");
  for (const char* opts : {"-C bighole,wide", "-R -C bighole,wide", "-V -R -C wide", "-P"}) {
    SCOPED_TRACE(opts);
    RunResult p = run(std::string("/usr/bin/pahole ") + opts + " " + obj),
              b = run_btfc(std::string("layout ") + opts + " " + obj);
    ASSERT_EQ(b.status, 0) << b.err;
    EXPECT_EQ(only_what_124_prints(b.out), only_what_124_prints(p.out));
  }
  EXPECT_NE(run_btfc("layout -C bighole " + obj).out.find("XXX 65535 bytes hole"), std::string::npos);
}

// -m: per struct, the function parameters pointing to it (a const pointer,
// a typedef of a pointer or of the struct does not count), over every
// function pahole's loader sees: definitions, declarations of the ones
// called, and at -O2 an inlined function's abstract instance and its
// out-of-line copy, whose parameters take the origin's types.
TEST(LayoutMethods, NrMethodsMatchPahole) {
  if (!tool_exists("/usr/bin/pahole")) GTEST_SKIP() << "pahole (Debian dwarves) is not installed: no oracle";
  const char* source = R"(
struct s { int a; long b; };
struct t { char c; };
typedef struct s s_t;
extern int ext(struct s *p, struct t *q);
int f1(struct s *p) { return p->a; }
int f2(struct s *p, struct s *q) { return p->a + q->a + ext(p, 0); }
int f3(const struct s *p) { return p->a; }
int f4(s_t *p, struct t *q) { return p->a + q->c; }
static inline __attribute__((noinline)) int f5(struct t *q, int n) { return q->c + n; }
int f6(struct t *q) { return f5(q, 1) + f5(q, 2); }
)";
  const std::vector<std::string> compilers = {"gcc -g -O0 -c", "gcc -g -O2 -c", "clang -g -O2 -c"};
  for (size_t c = 0; c < compilers.size(); ++c) {
    SCOPED_TRACE(compilers[c]);
    const std::string obj = compile_c("methods_" + std::to_string(c), source, compilers[c]);
    const std::string btf = obj + ".btf";
    ASSERT_EQ(run("/usr/bin/pahole -J --btf_encode_detached=" + btf + " " + obj).status, 0);
    for (const std::string& opts : {"-m " + obj, "-m -x t " + obj, "-T -m " + obj, "-m -T " + obj, "-m -t , " + obj,
                                   "-F btf -m " + btf}) {
      SCOPED_TRACE(opts);
      RunResult p = run("/usr/bin/pahole " + opts), b = run_btfc("layout " + opts);
      ASSERT_EQ(b.status, 0) << b.err;
      ASSERT_FALSE(p.out.empty());
      EXPECT_EQ(b.out, p.out);
    }
  }
  // At -O0: f1, f2 twice, ext's declaration, f4's s_t * (a pointer to the
  // typedef: not counted) for struct s; ext, f4, f5 and f6 for struct t.
  const std::string o0 = scratch_dir() + "/methods_0.o";
  EXPECT_EQ(run_btfc("layout -m " + o0).out, "s\t4\nt\t4\n");
  EXPECT_EQ(run_btfc("layout -m -C s " + o0).status, 2);
  // Pahole mode's spelling, bundled.
  const std::string pahole = (std::filesystem::path(BTFC_BINARY).parent_path() / "pahole").string();
  EXPECT_EQ(run(pahole + " -mx t " + o0).out, run("/usr/bin/pahole -mx t " + o0).out);
}

TEST_F(LayoutFixture, BtfMatchesPahole) { expect_same("-F btf", *btf_); }
TEST_F(LayoutFixture, SortedBtfMatchesPahole) { expect_same("-F btf --sort", *btf_); }
TEST_F(LayoutFixture, BtfdiffBtfSideMatchesPahole) {
  expect_same("-F btf --sort --suppress_aligned_attribute --suppress_packed", *btf_);
}

TEST_F(LayoutFixture, ClassNamesFromAFile) {
  std::string list = scratch_dir() + "/names.txt";
  ASSERT_EQ(run("printf 'holes\\nbits\\n' > " + list).status, 0);
  RunResult a = run_btfc("layout -C " + list + " " + *object_);
  RunResult b = run("/usr/bin/pahole -C holes,bits " + *object_);
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(only_what_124_prints(a.out), only_what_124_prints(b.out));
  // pahole's own spelling of a list file.
  RunResult c = run_btfc("layout -C file://" + list + " " + *object_);
  RunResult d = run("/usr/bin/pahole -C file://" + list + " " + *object_);
  ASSERT_EQ(c.status, 0) << c.err;
  ASSERT_FALSE(d.out.empty());
  EXPECT_EQ(only_what_124_prints(c.out), only_what_124_prints(d.out));
  EXPECT_EQ(run_btfc("layout -C file:///nonexistent/list " + *object_).status, 2);
}

TEST_F(LayoutFixture, BtfdiffIsCleanOnPaholeBtf) {
  std::string obj = scratch_dir() + "/with_btf.o";
  ASSERT_EQ(run("cp " + *object_ + " " + obj + " && /usr/bin/pahole -J " + obj).status, 0);
  RunResult r = run_btfc("btfdiff " + obj);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "");
}

// BTF records no pointer size. pahole's BTF loader takes libbpf's guess,
// the size of `long`; btfc's BTF side printed 8-byte pointers for i386
// (btfdiff of Debian's 686-pae vmlinux differed at every pointer member).
TEST_F(LayoutFixture, ThirtyTwoBitLayoutsMatchPahole) {
  std::string source = kFixture;  // a 40-bit field needs a 64-bit type: i386's long has 32 bits
  source.replace(source.find("unsigned long e:40"), 18, "unsigned long long e:40");
  std::string obj = compile_c("layout_fixture_m32", source, "gcc -m32 -g -O0 -c");
  std::string btf = obj + ".btf";
  ASSERT_EQ(run("/usr/bin/pahole -J --btf_encode_detached=" + btf + " " + obj).status, 0);
  expect_same("", obj);
  expect_same("-F btf", btf);
  RunResult r = run_btfc("btfdiff " + obj + " " + btf);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(LayoutFixture, BtfdiffReportsADifference) {
  // BTF of a different layout of the same struct names: the diff must show it.
  std::string other = compile_c("layout_other", "struct holes { long a; char b; } x;\n", "gcc -g -c");
  std::string btf = other + ".btf";
  ASSERT_EQ(run("/usr/bin/pahole -J --btf_encode_detached=" + btf + " " + other).status, 0);
  std::string obj = compile_c("layout_same", "struct holes { char a; int b; char c; long d; short e; } x;\n", "gcc -g -c");
  RunResult r = run_btfc("btfdiff " + obj + " " + btf);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("-\tchar                       a;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("+\tlong int                   a;"), std::string::npos) << r.out;
}

TEST(LayoutDedup, SameNameAcrossUnits) {
  if (!tool_exists("/usr/bin/pahole")) GTEST_SKIP() << "pahole (Debian dwarves) is not installed: no oracle";
  // Two units: one struct identical in both (printed once), one with two
  // layouts under one name (printed twice), an empty struct in both.
  std::string a = compile_c("dedup_a", "struct same { int x; long y; } a1; struct twice { int x; } a2; struct empty {} a3;\n",
                            "gcc -g -c");
  std::string b = compile_c("dedup_b", "struct same { int x; long y; } b1; struct twice { long x; char c; } b2; struct empty {} b3;\n",
                            "gcc -g -c");
  std::string ab = scratch_dir() + "/dedup_ab.o";
  ASSERT_EQ(run("ld -r " + a + " " + b + " -o " + ab).status, 0);
  for (std::string opts : {"", "--sort"}) {
    RunResult p = run("/usr/bin/pahole " + opts + " " + ab);
    RunResult r = run_btfc("layout " + opts + " " + ab);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(only_what_124_prints(r.out), only_what_124_prints(p.out)) << opts;
  }
}

// -C of enums and typedefs: each declaration exercises one case of pahole's
// typedef__fprintf / enumeration__fprintf (the comment says which). No
// _Atomic: pahole 1.24 cannot read DW_TAG_atomic_type.
const char* kNamesFixture = R"(
/* typedef of a base type, of a typedef, of a named struct and enum */
typedef unsigned int u32;
typedef u32 u32_again;
struct named { long x; };
typedef struct named named_t;
enum color { RED, GREEN = 5, BLUE };
typedef enum color color_t;
/* pointers: const char *, void *, to a named struct, to an anonymous struct, qualifiers */
typedef const char *cstr_t;
typedef void *vp_t;
typedef struct named *named_p;
typedef struct { int x; } *anon_p;
typedef volatile int vi_t;
typedef const struct { int q; } canon_t;
/* anonymous struct and enum (printed in full), anonymous union (not) */
typedef struct { int a; char b; } anon_t;
typedef enum { A1 = -1, A2 } anon_enum_t;
typedef union { int i; float f; } anon_union_t;
/* enums: packed (1 byte), 64-bit, negative values */
enum __attribute__((packed)) small { S0, S1 };
enum big64 { BIG = 0x100000000ULL };
enum neg { NEG = -5, POS = 3 };
/* prototypes: pointer with varargs, a function type, a pointer to a function typedef */
typedef int (*fn_t)(int, char, ...);
typedef void (fnty_t)(void);
typedef fnty_t *fnty_p;
/* arrays: 2-D, char */
typedef int arr_t[4][2];
typedef char str8[8];
/* a struct declared only: its typedef prints, the struct is not found */
typedef struct fwd fwd_t;
/* an enum and a struct nested in a struct: found by name too */
struct outer { struct inner { int z; } in; enum inner_e { IE1 } e; };
u32_again v1; named_t v2; color_t v3; cstr_t v4; vp_t v5; named_p v6; anon_p v7; vi_t v8; canon_t v9;
anon_t v10; anon_enum_t v11; anon_union_t v12; enum small v13; enum big64 v14; enum neg v15; fn_t v16;
fnty_t *v17; fnty_p v18; arr_t v19; str8 v20; fwd_t *v21; struct outer v22;
)";

const char* kNames =
    "u32,u32_again,named_t,color,color_t,cstr_t,vp_t,named_p,anon_p,vi_t,canon_t,anon_t,anon_enum_t,"
    "anon_union_t,small,big64,neg,fn_t,fnty_t,fnty_p,arr_t,str8,fwd_t,outer,inner,inner_e";

class LayoutNames : public LayoutFixture {
 protected:
  static void SetUpTestSuite() {
    if (!tool_exists("/usr/bin/pahole")) return;
    names_object_ = new std::string(compile_c("layout_names", kNamesFixture, "gcc -g -O0 -c"));
    names_btf_ = new std::string(*names_object_ + ".btf");
    RunResult r = run("/usr/bin/pahole -J --btf_encode_detached=" + *names_btf_ + " " + *names_object_);
    ASSERT_EQ(r.status, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete names_object_;
    delete names_btf_;
    names_object_ = names_btf_ = nullptr;
  }
  // stdout must be pahole's, and so must the name reported as not found.
  void expect_same_names(const std::string& options, const std::string& file) {
    RunResult p = run("/usr/bin/pahole " + options + " " + file);
    RunResult b = run_btfc("layout " + options + " " + file);
    ASSERT_EQ(b.status, 0) << b.err;
    ASSERT_FALSE(p.out.empty());
    EXPECT_EQ(b.out, p.out) << layout::unified_diff(p.out, b.out, "pahole " + options, "btfc layout " + options);
    static const std::regex not_found(R"(type '([^']*)' not found)");
    std::smatch mp, mb;
    bool in_p = std::regex_search(p.err, mp, not_found), in_b = std::regex_search(b.err, mb, not_found);
    EXPECT_EQ(in_b, in_p) << p.err << "\n" << b.err;
    if (in_p && in_b) {
      EXPECT_EQ(mb[1].str(), mp[1].str());
    }
  }
  static std::string* names_object_;
  static std::string* names_btf_;
};
std::string* LayoutNames::names_object_ = nullptr;
std::string* LayoutNames::names_btf_ = nullptr;

// One name at a time, so that each printed type is compared on its own.
TEST_F(LayoutNames, EachNameFromDwarfMatchesPahole) {
  std::string list = kNames;
  size_t p = 0;
  while (p < list.size()) {
    size_t e = std::min(list.find(',', p), list.size());
    SCOPED_TRACE(list.substr(p, e - p));
    expect_same_names("-C " + list.substr(p, e - p), *names_object_);
    p = e + 1;
  }
}
TEST_F(LayoutNames, AllNamesFromDwarfMatchPahole) { expect_same_names(std::string("-C ") + kNames, *names_object_); }
TEST_F(LayoutNames, AllNamesFromBtfMatchPahole) {
  // Without the enums holding negative values: see the next test.
  std::string names = std::regex_replace(kNames, std::regex(",(anon_enum_t|neg),"), ",");
  ASSERT_EQ(names.find("neg,"), std::string::npos);
  expect_same_names("-F btf -C " + names, *names_btf_);
}
TEST_F(LayoutNames, SignedEnumsFromBtfPrintAsFromDwarf) {
  // pahole 1.31's BTF loader takes an enum's signedness from kind_flag (so
  // -1 prints as -1, as from DWARF); 1.24's did not (4294967295). btfc
  // follows 1.31, so the oracle is pahole 1.24 on the DWARF.
  RunResult p = run("/usr/bin/pahole -C anon_enum_t,neg " + *names_object_);
  RunResult b = run_btfc("layout -F btf -C anon_enum_t,neg " + *names_btf_);
  ASSERT_EQ(b.status, 0) << b.err;
  ASSERT_NE(p.out.find("A1 = -1,"), std::string::npos) << p.out;
  EXPECT_EQ(b.out, p.out);
}
TEST_F(LayoutNames, FlatArraysTypedefMatchesPahole) { expect_same_names("--flat_arrays -C arr_t", *names_object_); }
TEST_F(LayoutNames, NotFoundIsReportedLikePahole) {
  // `fwd` is only declared, `int` is a base type: neither is found; pahole
  // stops at the first missing name and reports only that one.
  expect_same_names("-C u32,fwd,color,int", *names_object_);
  expect_same_names("-F btf -C u32,fwd,color,int", *names_btf_);
}

// pahole tries the -C names of each unit in order and leaves a unit at the
// first name it lacks: here `a` is only in the second unit, so `b` is
// printed from the second unit too (with -C b,a from the first), a
// repeated name is printed twice, and after a name found nowhere nothing
// more is printed.
TEST(LayoutNamesUnits, OrderAcrossUnitsMatchesPahole) {
  if (!tool_exists("/usr/bin/pahole")) GTEST_SKIP() << "pahole (Debian dwarves) is not installed: no oracle";
  std::string u1 = compile_c("names_u1", "struct b { int x; } vb; enum e1 { E1A } ve;\n", "gcc -g -c");
  std::string u2 = compile_c("names_u2", "struct a { int y; } va; struct b { long x; } vb2; typedef int e1; e1 ve2;\n",
                             "gcc -g -c");
  std::string both = scratch_dir() + "/names_u12.o";
  ASSERT_EQ(run("ld -r " + u1 + " " + u2 + " -o " + both).status, 0);
  for (std::string names : {"a,b", "b,a", "b,b", "e1", "b,nope,a", "e1,a,b"}) {
    RunResult p = run("/usr/bin/pahole -C " + names + " " + both);
    RunResult r = run_btfc("layout -C " + names + " " + both);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, p.out) << names;
  }
}

// A prototype whose parameters point back at it (valid BTF: the cycle goes
// through pointers) makes its name branch at every level: two parameters
// are 2^128 steps before the nesting limit. A function pointer member of
// that type prints, its name cut with "...", in a bounded text.
TEST(LayoutHostile, PrototypeWhoseParametersPointBackAtItIsCut) {
  for (int params : {2, 3}) {
    for (bool expand : {false, true}) {
      SCOPED_TRACE(std::to_string(params) + " parameters" + (expand ? ", -E" : ""));
      btf::Btf b;
      btf::TypeId i = b.add_int("int", 4, btf::INT_SIGNED);
      btf::TypeId proto = b.add_func_proto(i);
      const btf::TypeId ptr = proto + 1;  // added next
      for (int k = 0; k < params; ++k) b.add_param(std::string(1, static_cast<char>('a' + k)), ptr);
      ASSERT_EQ(b.add_ptr(proto), ptr);
      b.add_struct("s", 8);
      b.add_member("f", ptr, 0);
      layout::LayoutOptions o;
      o.expand_types = expand;
      std::string text = layout::layout_btf(b, o);
      EXPECT_NE(text.find("struct s {"), std::string::npos) << text.substr(0, 2000);
      EXPECT_NE(text.find("(*f)(int (*a)("), std::string::npos) << text.substr(0, 2000);
      EXPECT_NE(text.find("..."), std::string::npos) << text.substr(0, 2000);
      EXPECT_LT(text.size(), size_t{1} << 20);
    }
  }
}

// A module's btfdiff shows the base's structs its DWARF shows, not their
// namesakes: the base has two `struct req` (one per unit), the module
// uses one. A base struct whose BTF layout is not the module's DWARF
// layout is still a difference (its DWARF side has no BTF counterpart).
TEST(LayoutBtfdiff, ModuleSeesTheBaseStructsItsDwarfShows) {
  const std::string dir = scratch_dir();
  std::string a1 = compile_c("base_u1", "struct req { int a; };\nstruct req ra;\nint main(void) { return ra.a; }\n",
                             "gcc -g -O1 -c");
  std::string a2 = compile_c("base_u2", "struct req { long x, y; };\nstruct req rb;\n", "gcc -g -O1 -c");
  const std::string base = dir + "/twin_base";
  ASSERT_EQ(run("gcc -o " + base + " " + a1 + " " + a2).status, 0);
  ASSERT_EQ(run_btfc("encode --btf_encode_detached=" + base + ".btf " + base).status, 0);
  std::string mod = compile_c("twin_module",
                              "struct req { long x, y; };\nstruct own { int q; struct req r; } o;\n"
                              "struct req *get(struct req *r) { return r; }\n",
                              "gcc -g -O1 -c");
  RunResult e = run_btfc("encode --btf_base=" + base + ".btf --btf_encode_detached=" + mod + ".btf " + mod);
  ASSERT_EQ(e.status, 0) << e.err;
  RunResult r = run_btfc("btfdiff --base " + base + ".btf " + mod + " " + mod + ".btf");
  EXPECT_EQ(r.status, 0) << r.out << r.err;

  // The same module on a base whose `struct req { long x, y; }` has its
  // member names swapped: the module's req (the base's) no longer matches
  // its DWARF.
  btf::Btf b = btf::read_file(base + ".btf");
  bool moved = false;
  for (btf::TypeId id = b.start_id(); id < b.end_id(); ++id) {
    btf::TypeView v = b.type(id);
    if (v.kind() != btf::Kind::Struct || v.name() != "req" || v.size() != 16) continue;
    uint32_t* words = b.mutable_record(id);  // name, info, size, then name, type, offset per member
    std::swap(words[3], words[6]);
    moved = true;
  }
  ASSERT_TRUE(moved);
  btf::write_raw_file(base + ".moved.btf", b);
  r = run_btfc("btfdiff --base " + base + ".moved.btf " + mod + " " + mod + ".btf");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("\n-\tlong int                   y;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n+\tlong int                   x;"), std::string::npos) << r.out;
}

// Three different `union igp` and a struct in two units: pahole's --sort
// puts the unions in a different order from DWARF (where the repeated
// struct makes it compare members, one union's being a prefix of
// another's) than from BTF (deduplicated: by size). btfdiff orders both
// sides alike, so the layouts, which agree, show no difference.
TEST(LayoutBtfdiff, SameNamedLayoutsInTheSameOrderOnBothSides) {
  std::string u1 = compile_c("igp_u1",
                             "struct dup { int a; } d1;\nunion igp { int a; char b[8]; } g1;\n"
                             "int main(void) { return d1.a + g1.a; }\n",
                             "gcc -g -O1 -c");
  std::string u2 = compile_c("igp_u2", "struct dup { int a; } d2;\nunion igp { int a; char b[8]; long c[4]; } g2;\n",
                             "gcc -g -O1 -c");
  std::string u3 = compile_c("igp_u3", "union igp { int a; long v; } g3;\n", "gcc -g -O1 -c");
  const std::string exe = scratch_dir() + "/igp";
  ASSERT_EQ(run("gcc -o " + exe + " " + u1 + " " + u2 + " " + u3).status, 0);
  ASSERT_EQ(run_btfc("encode " + exe).status, 0);
  RunResult r = run_btfc("btfdiff " + exe);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

// A struct ending in a flexible array of arrays, embedded in another
// (smc.ko's smc_clc_v2_extension in smc_clc_msg_proposal_area). BTF keeps
// one dimension, eids[0], which pahole's printer counts as a flexible
// array; btfdiff counts the DWARF side's eids[][32] as one too, so that
// the two sides agree on the embedding struct's comments.
TEST(LayoutBtfdiff, FlexibleArrayOfArraysOnBothSides) {
  std::string obj = compile_c("flex_2d",
                              "struct ext { int n; unsigned char eids[][32]; };\n"
                              "struct area { long a; struct ext e; unsigned char tail[8]; } x;\n",
                              "gcc -g -c -w");
  std::string btf = obj + ".btf";
  ASSERT_EQ(run_btfc("encode --btf_encode_detached=" + btf + " " + obj).status, 0);
  RunResult from_btf = run_btfc("layout -F btf -C area " + btf);
  ASSERT_EQ(from_btf.status, 0) << from_btf.err;
  EXPECT_NE(from_btf.out.find("/* XXX last struct has a flexible array */"), std::string::npos) << from_btf.out;
  RunResult r = run_btfc("btfdiff " + obj + " " + btf);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(LayoutDiff, UnifiedDiffShape) {
  EXPECT_EQ(layout::unified_diff("a\nb\n", "a\nb\n", "x", "y"), "");
  std::string d = layout::unified_diff("1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nfive\n6\n7\n8\n", "x", "y");
  EXPECT_EQ(d, "--- x\n+++ y\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
}

TEST(LayoutCli, BadUsage) {
  RunResult r = run_btfc("layout --no_such_option x");
  EXPECT_EQ(r.status, 2);
  r = run_btfc("layout");
  EXPECT_EQ(r.status, 2);
  r = run_btfc("layout --lang_exclude klingon x");
  EXPECT_EQ(r.status, 2);
  r = run_btfc("layout /nonexistent/file");
  EXPECT_EQ(r.status, 1);
}

}  // namespace
}  // namespace btfc::test
