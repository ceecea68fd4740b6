// Function rules on small C fixtures compiled by the test (gcc -O2): the
// ELF function table (suffixes, ambiguous addresses), which DIEs become
// FUNCs, whose prototype wins, what consistent_func drops, kfunc tags from
// .BTF_ids, decl tags (clang). Where Debian's pahole 1.24 implements the
// same rule its output is the oracle; the 1.25+ rules (suffix stripping,
// consistency, unexpected registers, kfuncs) are asserted directly.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "btf/reader.h"
#include "convert/btf_compare.h"
#include "convert/stand_in.h"
#include "support/test_support.h"

namespace btfc::test {
namespace {

StandInOptions legacy() {
  StandInOptions o;
  o.funcs.consistent_func = false;
  return o;
}

StandInOptions features_default() {
  StandInOptions o;
  o.funcs.consistent_func = true;
  o.funcs.decl_tag_kfuncs = true;
  o.vars.encode_force = true;
  return o;
}

std::string func(const Summary& s, const std::string& name) {
  auto it = s.funcs.find(name);
  return it == s.funcs.end() ? "(absent)" : it->second;
}

// Two units: a.c first, b.c second.
const char kUnitA[] = R"(
/* An inline-only helper(long) here, a real helper(int) in b.c. */
static inline int helper(long x) { return (int)(x * 7); }
int use_helper(long v) { return helper(v) + 1; }
/* Called with a constant: gcc makes scale.constprop.0. */
static __attribute__((noinline)) int scale(int factor, int v) { return factor * v + 1; }
int run1(int v) { return scale(3, v); }
int run2(int v) { return scale(3, v + 1) * 2; }
)";
const char kUnitB[] = R"(
int helper(int a) { return a + 2; }
int global_fn(int x, long y) { return x + (int)y; }
struct pair { long a, b; };
long with_struct(int x, struct pair p) { return x + p.a; }
/* gcc makes static_fn.isra.0 (p replaced by *p). */
static int __attribute__((noinline)) static_fn(int *p) { return *p + 1; }
int use_static(int v) { return static_fn(&v); }
int varargs_fn(const char *fmt, ...) { return fmt[0]; }
extern int undefined_fn(int);
int call_undef(int a) { return undefined_fn(a) + 1; }
)";

std::string build_two_units(const std::string& debug = "-g") {
  std::string a = compile_c("fa", kUnitA, "gcc -O2 " + debug + " -fPIC -c");
  std::string b = compile_c("fb", kUnitB, "gcc -O2 " + debug + " -fPIC -c");
  std::string so = scratch_dir() + "/fab" + std::to_string(debug.size()) + ".so";
  RunResult r = run("gcc -shared -nostdlib " + a + " " + b + " -o " + so);
  EXPECT_EQ(r.status, 0) << r.err;
  return so;
}

TEST(Functions, ChoiceAcrossUnitsLegacyAndDefault) {
  const std::string so = build_two_units();
  Summary leg = summarize(run_stand_in(so, legacy()).btf);
  Summary def = summarize(run_stand_in(so, features_default()).btf);
  const std::string i32 = "int int/4/1", i64 = "int long int/8/1";

  // The first candidate in unit order wins with legacy flags: a.c's inline
  // helper(long x), although b.c holds the only out-of-line helper.
  EXPECT_EQ(func(leg, "helper"), "0 fn(x:" + i64 + ") -> " + i32);
  // The two prototypes disagree (long vs int): consistent_func drops it.
  EXPECT_EQ(func(def, "helper"), "(absent)");
  // Suffixed symbols name the function without the suffix; the abstract
  // instance's parameter order wins.
  EXPECT_EQ(func(leg, "scale"), "0 fn(factor:" + i32 + ", v:" + i32 + ") -> " + i32);
  EXPECT_EQ(func(def, "scale"), func(leg, "scale"));
  EXPECT_EQ(func(leg, "static_fn"), "0 fn(p:*" + i32 + ") -> " + i32);
  // `...` is a trailing unnamed void parameter.
  EXPECT_EQ(func(leg, "varargs_fn"), "0 fn(fmt:*const int char/1/1, :void) -> " + i32);
  // A declaration is never a FUNC; global and static functions both are,
  // always with linkage static.
  EXPECT_EQ(func(leg, "undefined_fn"), "(absent)");
  EXPECT_EQ(func(leg, "call_undef"), "0 fn(a:" + i32 + ") -> " + i32);
  EXPECT_EQ(func(leg, "global_fn"), "0 fn(x:" + i32 + ", y:" + i64 + ") -> " + i32);
  for (const char* n : {"use_helper", "run1", "run2", "use_static", "with_struct"})
    EXPECT_NE(func(leg, n), "(absent)") << n;
  EXPECT_EQ(leg.func_count, 11u);
  EXPECT_EQ(def.func_count, 10u);
}

// DWARF 4 (location lists in .debug_loc, not .debug_loclists) gives the
// same functions as gcc's DWARF 5.
TEST(Functions, Dwarf4SameChoice) {
  Summary v5 = summarize(run_stand_in(build_two_units(), features_default()).btf);
  Summary v4 = summarize(run_stand_in(build_two_units("-gdwarf-4"), features_default()).btf);
  EXPECT_EQ(v4.funcs, v5.funcs);
}

// Debian's pahole 1.24 (-j1) matches ELF symbols by exact name and keeps
// the first definition: for every name it emits, 1.31's rules give the same
// prototype, and 1.31 adds exactly the functions known only by suffixed
// symbols.
TEST(Functions, AgreesWithPahole124OnExactSymbols) {
  if (!tool_exists("pahole")) GTEST_SKIP() << "LOUD SKIP: pahole (dwarves) is not installed";
  const std::string so = build_two_units();
  const std::string out = scratch_dir() + "/fab.pahole124.btf";
  RunResult r = run("pahole -J -j1 --btf_gen_floats --btf_encode_detached=" + out + " " + so);
  ASSERT_EQ(r.status, 0) << r.err;
  Summary want = summarize(btf::read_file(out));
  Summary got = summarize(run_stand_in(so, legacy()).btf);
  for (const auto& [name, text] : want.funcs) EXPECT_EQ(func(got, name), text) << name;
  std::set<std::string> extra;
  for (const auto& [name, text] : got.funcs)
    if (!want.funcs.count(name)) extra.insert(name);
  EXPECT_EQ(extra, (std::set<std::string>{"scale", "static_fn"}));
}

// A parameter found in another register than the ABI's makes the function
// unexpected_reg (dropped with consistent_func) unless some parameter is a
// struct. gcc gives no such code for small fixtures, so the fixture's
// DW_AT_location `DW_OP_reg5` (rdi) of a first parameter is patched to
// `DW_OP_reg3` (rbx), in the file bytes.
void patch_first_param_reg(const std::string& path, const std::string& function) {
  uint64_t file_offset = 0;
  {
    auto elf = elf::ElfFile::open(path);
    dwarf::DwarfFile dw(*elf);
    for (const dwarf::Unit& u : dw.units()) {
      dwarf::DieCursor c(u);
      dwarf::Die d;
      bool in_function = false;
      while (c.next(d)) {
        if (c.depth() == 1) in_function = d.tag == dwarf::DW_TAG_subprogram && dw.attrs(d).name == function &&
                                          !dw.attrs(d).declaration;
        if (!in_function || c.depth() != 2 || d.tag != dwarf::DW_TAG_formal_parameter) continue;
        dwarf::Attrs a = dw.attrs(d);
        ASSERT_EQ(a.location.size(), 1u) << function << ": first parameter is not a single-op exprloc";
        ASSERT_EQ(a.location[0], 0x55) << function << ": first parameter is not in rdi";
        file_offset = static_cast<uint64_t>(a.location.data() - elf->bytes().data());
        break;
      }
      if (file_offset) break;
    }
  }
  ASSERT_NE(file_offset, 0u) << function;
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(file_offset));
  f.put(static_cast<char>(0x53));  // DW_OP_reg3
}

TEST(Functions, UnexpectedRegister) {
  const std::string so = build_two_units();
  patch_first_param_reg(so, "global_fn");
  patch_first_param_reg(so, "with_struct");
  Summary leg = summarize(run_stand_in(so, legacy()).btf);
  StandInResult d = run_stand_in(so, features_default());
  Summary def = summarize(d.btf);
  EXPECT_NE(func(leg, "global_fn"), "(absent)");
  EXPECT_EQ(func(def, "global_fn"), "(absent)");
  // A struct parameter excuses the odd register (it may span registers).
  EXPECT_NE(func(def, "with_struct"), "(absent)");
  EXPECT_EQ(d.stats.unexpected_reg, 1u);
}

// uncertain_parm_loc (pahole 1.31): a named struct that pahole infers to
// be packed, passed by value past the parameter registers (x86-64: six),
// leaves the parameter's place unknown, and consistent_func drops the
// function. The parameter's own type is tested: a typedef of the struct
// is not looked through. i386 has no parameter registers in pahole's
// table, so there every parameter counts.
const char kPackedParams[] = R"(
struct __attribute__((packed)) pk { char c; int i; };
struct plain { int a; int b; };
typedef struct pk pk_t;
int seventh_packed(int a, int b, int c, int d, int e, int f, struct pk p) { return a + f + p.i; }
int sixth_packed(int a, int b, int c, int d, int e, struct pk p) { return a + e + p.i; }
int seventh_plain(int a, int b, int c, int d, int e, int f, struct plain p) { return a + f + p.b; }
int seventh_typedef(int a, int b, int c, int d, int e, int f, pk_t p) { return a + f + p.i; }
int first_packed(struct pk p) { return p.i; }
int first_plain(struct plain p) { return p.b; }
)";

// The names of the FUNCs of `so` that btfc encodes with `flags` (the real
// encoder: the stand-in gives structs no members to infer packing from).
std::set<std::string> encoded_funcs(const std::string& so, const std::string& flags) {
  const std::string out = so + ".funcs.btf";
  RunResult r = run_btfc("encode " + flags + " --btf_encode_detached=" + out + " " + so);
  EXPECT_EQ(r.status, 0) << r.err;
  std::set<std::string> names;
  for (const auto& [name, proto] : summarize(btf::read_file(out)).funcs) names.insert(name);
  return names;
}

TEST(Functions, PackedStructOnTheStackMakesTheLocationUncertain) {
  const std::set<std::string> every = {"first_packed",  "first_plain",     "seventh_packed",
                                       "seventh_plain", "seventh_typedef", "sixth_packed"};
  const std::pair<std::string, std::set<std::string>> machines[] = {
      {"", {"seventh_packed"}},
      {"-m32", {"first_packed", "sixth_packed", "seventh_packed"}},
  };
  for (const auto& [flag, dropped] : machines) {
    const std::string name = flag.empty() ? "packed64" : "packed32";
    std::string obj = compile_c(name, kPackedParams, "gcc " + flag + " -O2 -g -fPIC -c");
    const std::string so = scratch_dir() + "/" + name + ".so";
    RunResult r = run("gcc " + flag + " -shared -nostdlib " + obj + " -o " + so);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(encoded_funcs(so, ""), every) << name << ": legacy flags keep them all";
    std::set<std::string> kept;
    for (const std::string& fn : every)
      if (!dropped.count(fn)) kept.insert(fn);
    EXPECT_EQ(encoded_funcs(so, "--btf_features=default"), kept) << name;
  }
}

// The ELF function table: suffixes cut at the first '.', .cold/.part
// copies ignored, two addresses for one name make it ambiguous, except for
// the last name (pahole decides ambiguity when it reaches the next name).
const char kSymbols[] = R"(
asm(".text\n"
    ".type amb_x.isra.0,@function\n amb_x.isra.0: ret\n"
    ".type amb_x.constprop.0,@function\n amb_x.constprop.0: nop\n ret\n"
    ".type same_x,@function\n same_x: ret\n"
    ".type same_x.isra.0,@function\n .set same_x.isra.0, same_x\n"
    ".type cold_only.cold,@function\n cold_only.cold: ret\n"
    ".type part_only.part.0,@function\n part_only.part.0: ret\n"
    ".type mixed.part.0,@function\n mixed.part.0: nop\n ret\n"
    ".type mixed,@function\n mixed: ret\n"
    ".type zz_last.isra.0,@function\n zz_last.isra.0: ret\n"
    ".type zz_last,@function\n zz_last: nop\n ret\n"
    // Around the 8 bytes the sort compares first: one name 7 bytes long,
    // two 8 long (one of them at two addresses), two longer that share
    // those 8, and one whose 5th byte is above ASCII.
    ".type pfx_\xc3\xa9,@function\n pfx_\xc3\xa9: ret\n"
    ".type pfx_abcd.isra.0,@function\n pfx_abcd.isra.0: ret\n"
    ".type pfx_abcd,@function\n pfx_abcd: nop\n ret\n"
    ".type pfx_abc,@function\n pfx_abc: ret\n"
    ".type pfx_abcdA,@function\n pfx_abcdA: ret\n"
    ".type pfx_abcde,@function\n pfx_abcde: ret\n");
int amb_x(int a) { return a; }
)";

TEST(Functions, ElfFunctionTable) {
  std::string so = compile_c("fsyms", kSymbols, "gcc -O2 -g -fPIC -shared -nostdlib");
  auto elf = elf::ElfFile::open(so);
  convert::FunctionIndex index(*elf);
  for (const char* absent : {"cold_only", "part_only", "amb_x.isra.0", "undefined"})
    EXPECT_EQ(index.find(absent), convert::FunctionIndex::kNone) << absent;
  for (const char* present : {"amb_x", "same_x", "mixed", "zz_last"})
    ASSERT_NE(index.find(present), convert::FunctionIndex::kNone) << present;
  EXPECT_TRUE(index.ambiguous_addr(index.find("amb_x")));     // the C amb_x + two suffixed copies
  EXPECT_FALSE(index.ambiguous_addr(index.find("same_x")));   // two names, one address
  EXPECT_FALSE(index.ambiguous_addr(index.find("mixed")));    // the .part copy does not count
  EXPECT_FALSE(index.ambiguous_addr(index.find("zz_last")));  // last name: never marked
  // Entries are in strcmp order.
  for (uint32_t i = 1; i < index.size(); i++) EXPECT_LT(index.name(i - 1), index.name(i));
  std::vector<uint32_t> pfx;
  for (const char* name : {"pfx_abc", "pfx_abcd", "pfx_abcdA", "pfx_abcde", "pfx_\xc3\xa9"}) {
    pfx.push_back(index.find(name));
    ASSERT_NE(pfx.back(), convert::FunctionIndex::kNone) << name;
  }
  for (size_t i = 1; i < pfx.size(); i++) EXPECT_EQ(pfx[i], pfx[i - 1] + 1) << i;  // next to each other, in that order
  EXPECT_TRUE(index.ambiguous_addr(index.find("pfx_abcd")));  // its .isra copy is elsewhere
  // amb_x has a DWARF definition: ambiguous, so dropped only by consistent_func.
  EXPECT_NE(func(summarize(run_stand_in(so, legacy()).btf), "amb_x"), "(absent)");
  EXPECT_EQ(func(summarize(run_stand_in(so, features_default()).btf), "amb_x"), "(absent)");
}

// kfuncs: a BTF_SET8 with flags BTF_SET8_KFUNCS in .BTF_ids, written as the
// kernel's btf_ids.h macros write it. kf_two has KF_FASTCALL (1 << 12).
const char kKfuncs[] = R"(
asm(".pushsection .BTF_ids,\"a\"\n"
    "__BTF_ID__set8__my_set:\n"
    ".long 2\n .long 1\n"
    "__BTF_ID__func__kf_one__1:\n .long 0\n .long 0\n"
    "__BTF_ID__func__kf_two__2:\n .long 0\n .long 0x1000\n"
    ".size __BTF_ID__set8__my_set, 24\n"
    "__BTF_ID__set8__other:\n"
    ".long 1\n .long 0\n"
    "__BTF_ID__func__not_kf__3:\n .long 0\n .long 0\n"
    ".size __BTF_ID__set8__other, 16\n"
    ".popsection\n");
int kf_one(int a) { return a + 1; }
int kf_two(long b) { return (int)b; }
int not_kf(int c) { return c; }
)";

TEST(Functions, KfuncTagsFromBtfIds) {
  std::string so = compile_c("fkf", kKfuncs, "gcc -O2 -g -fPIC -shared -nostdlib");
  auto elf = elf::ElfFile::open(so);
  convert::FunctionIndex index(*elf, {.kfuncs = true});
  ASSERT_NE(index.find("kf_two"), convert::FunctionIndex::kNone);
  EXPECT_TRUE(index.is_kfunc(index.find("kf_one")));
  EXPECT_TRUE(index.is_kfunc(index.find("kf_two")));
  EXPECT_FALSE(index.is_kfunc(index.find("not_kf")));  // its set lacks BTF_SET8_KFUNCS
  EXPECT_EQ(index.kfunc_flags(index.find("kf_two")), 0x1000u);

  StandInResult r = run_stand_in(so, features_default());
  std::multiset<std::string> tags;
  for (btf::TypeId id = 1; id < r.btf.end_id(); id++) {
    btf::TypeView v = r.btf.type(id);
    if (v.kind() != btf::Kind::DeclTag) continue;
    tags.insert(std::string(r.btf.type(v.type()).name()) + ":" + std::string(v.name()) + ":" +
                std::to_string(static_cast<int32_t>(v.words()[3])));
  }
  EXPECT_EQ(tags, (std::multiset<std::string>{"kf_one:bpf_kfunc:-1", "kf_two:bpf_kfunc:-1", "kf_two:bpf_fastcall:-1"}));
  // Without decl_tag_kfuncs (legacy flags): no tags.
  EXPECT_EQ(summarize(run_stand_in(so, legacy()).btf).decl_tags, 0u);
}

// clang's btf_decl_tag on a function and on a parameter (DW_TAG_LLVM_annotation).
TEST(Functions, DeclTagsClang) {
  if (!tool_exists("clang")) GTEST_SKIP() << "LOUD SKIP: clang is not installed";
  const char src[] = R"(
#define TAG(x) __attribute__((btf_decl_tag(x)))
int TAG("fn_tag") tagged(int a, int TAG("p_tag") b) { return a + b; }
)";
  std::string so = compile_c("ftag", src, "clang -O2 -g -fPIC -shared -nostdlib");
  StandInResult r = run_stand_in(so, legacy());
  std::multiset<std::string> tags;
  for (btf::TypeId id = 1; id < r.btf.end_id(); id++) {
    btf::TypeView v = r.btf.type(id);
    if (v.kind() == btf::Kind::DeclTag)
      tags.insert(std::string(r.btf.type(v.type()).name()) + ":" + std::string(v.name()) + ":" +
                  std::to_string(static_cast<int32_t>(v.words()[3])));
  }
  EXPECT_EQ(tags, (std::multiset<std::string>{"tagged:fn_tag:-1", "tagged:p_tag:1"}));
  StandInOptions no_tags = legacy();
  no_tags.funcs.decl_tag = false;
  EXPECT_EQ(summarize(run_stand_in(so, no_tags).btf).decl_tags, 0u);
}

// Functions of assembler units (gas describes `.type f,@function` symbols
// as DW_TAG_subprogram returning DW_TAG_unspecified_type) become
// `void (void)`; a C declaration of the same name does not compete.
TEST(Functions, AssemblerUnit) {
  std::string dir = scratch_dir();
  std::ofstream(dir + "/fasm.S") << ".text\n.globl asm_fn\n.type asm_fn,@function\nasm_fn:\n ret\n.size asm_fn, .-asm_fn\n";
  std::string c = compile_c("fasmc", "extern void asm_fn(int);\nvoid call_asm(int a) { asm_fn(a); }\n",
                            "gcc -O2 -g -fPIC -c");
  RunResult r = run("gcc -g -c " + dir + "/fasm.S -o " + dir + "/fasm.o && gcc -shared -nostdlib " + dir +
                    "/fasm.o " + c + " -o " + dir + "/fasm.so");
  ASSERT_EQ(r.status, 0) << r.err;
  Summary s = summarize(run_stand_in(dir + "/fasm.so", features_default()).btf);
  EXPECT_EQ(func(s, "asm_fn"), "0 fn() -> void");
  EXPECT_EQ(func(s, "call_asm"), "0 fn(a:int int/4/1) -> void");
}

}  // namespace
}  // namespace btfc::test
