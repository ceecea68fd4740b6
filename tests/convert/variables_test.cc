// Variable rules on a C fixture (gcc -O2), as a relocatable object (the .ko
// path: sections at address 0, a variable's section found through the
// relocation of its DW_OP_addr) and as a shared object (the vmlinux path:
// sections by address): per-CPU variables by default, every data section
// with global_var, the skip rules (prefixes, offset 0 without a symbol,
// size 0, declarations), linkage from DW_AT_external, DATASEC layout.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "btf/reader.h"
#include "convert/btf_compare.h"
#include "convert/stand_in.h"
#include "support/test_support.h"

namespace btfc::test {
namespace {

const char kVars[] = R"(
#define PERCPU __attribute__((section(".data..percpu")))
PERCPU int pcpu_a = 1;                                /* global, offset 64 */
PERCPU static long pcpu_b[4] __attribute__((used));  /* static, offset 32 (aligned) */
PERCPU struct { char c; short s; } pcpu_anon;         /* offset 0: kept, it has a symbol */
int data_var = 5;
static int bss_var __attribute__((used));
const int ro_var = 7;
static const char ro_str[] __attribute__((used)) = "hi";
extern int ext_decl;                                   /* a declaration: never a VAR */
int __UNIQUE_ID_skip1 = 3;                             /* filtered by prefix */
char flex_zero[0];                                     /* size 0: skipped */
int f(void) { static int fn_static = 2; return fn_static++ + ext_decl; }  /* not top level */
)";

// The per-CPU section kept apart in a shared object, as in vmlinux.
std::string build_so() {
  std::string dir = scratch_dir();
  std::ofstream(dir + "/pcpu.ld") << "SECTIONS { .data..percpu : { *(.data..percpu) } } INSERT AFTER .data;\n";
  return compile_c("vso", kVars, "gcc -O2 -g -fPIC -shared -nostdlib -Wl,-T," + dir + "/pcpu.ld");
}

std::string var_text(const std::string& name, int linkage, const std::string& type) {
  return name + " " + std::to_string(linkage) + " " + type;
}

const std::string kPercpu = "68: pcpu_anon@0+4 pcpu_b@32+32 pcpu_a@64+4";

void expect_percpu_only(const Summary& s) {
  EXPECT_EQ(s.datasecs, (std::map<std::string, std::string>{{".data..percpu", kPercpu}}));
  EXPECT_EQ(s.vars, (std::multiset<std::string>{var_text("pcpu_a", 1, "int int/4/1"),
                                                 var_text("pcpu_b", 0, "[4]int long int/8/1"),
                                                 var_text("pcpu_anon", 1, "struct {4}")}));
}

void expect_global(const Summary& s) {
  EXPECT_EQ(s.datasecs, (std::map<std::string, std::string>{{".data", "12: data_var@8+4"},  // fn_static sits before it
                                                            {".bss", "8: bss_var@4+4"},
                                                            {".rodata", "8: ro_str@0+3 ro_var@4+4"},
                                                            {".data..percpu", kPercpu}}));
  EXPECT_EQ(s.var_count, 7u);
  EXPECT_TRUE(s.vars.count(var_text("bss_var", 0, "int int/4/1")));
  EXPECT_TRUE(s.vars.count(var_text("ro_var", 1, "const int int/4/1")));
  EXPECT_TRUE(s.vars.count(var_text("ro_str", 0, "const [3]const int char/1/1")  /* gcc: const (const char[3]) */));
}

StandInOptions percpu() { return StandInOptions{}; }
StandInOptions global() {
  StandInOptions o;
  o.vars.global_var = true;
  return o;
}

TEST(Variables, RelocatableObject) {
  std::string o = compile_c("vrel", kVars, "gcc -O2 -g -c");
  expect_percpu_only(summarize(run_stand_in(o, percpu()).btf));
  StandInResult r = run_stand_in(o, global());
  expect_global(summarize(r.btf));
  // DATASECs come in section index order (.data 2, .bss 3, .rodata 4, .data..percpu 5 here).
  std::vector<std::string> order;
  for (btf::TypeId id = 1; id < r.btf.end_id(); id++)
    if (r.btf.kind(id) == btf::Kind::Datasec) order.emplace_back(r.btf.type(id).name());
  EXPECT_EQ(order, (std::vector<std::string>{".data", ".bss", ".rodata", ".data..percpu"}));
}

TEST(Variables, SharedObject) {
  std::string so = build_so();
  expect_percpu_only(summarize(run_stand_in(so, percpu()).btf));
  expect_global(summarize(run_stand_in(so, global()).btf));
}

TEST(Variables, NoVarsFeature) {
  StandInOptions o;
  o.vars.percpu = false;
  Summary s = summarize(run_stand_in(build_so(), o).btf);
  EXPECT_EQ(s.var_count, 0u);
  EXPECT_TRUE(s.datasecs.empty());
}

// Debian's pahole 1.24 encodes per-CPU variables the same way here. (It
// skips variables at *address* 0, which in vmlinux is the start of
// .data..percpu, where 1.31 checks the symbol table instead; in a shared
// object the section does not start at 0.)
TEST(Variables, AgreesWithPahole124) {
  if (!tool_exists("pahole")) GTEST_SKIP() << "LOUD SKIP: pahole (dwarves) is not installed";
  std::string so = build_so();
  const std::string out = scratch_dir() + "/vso.pahole124.btf";
  RunResult r = run("pahole -J -j1 --btf_gen_floats --btf_encode_detached=" + out + " " + so);
  ASSERT_EQ(r.status, 0) << r.err;
  Summary want = summarize(btf::read_file(out));
  Summary got = summarize(run_stand_in(so, percpu()).btf);
  EXPECT_EQ(got.vars, want.vars);
  EXPECT_EQ(got.datasecs, want.datasecs);
}

// ElfFile::relocation_section, the .ko path's building block: for every
// variable's DW_OP_addr operand in a relocatable object, the section the
// relocation points into is the section of the variable's ELF symbol.
TEST(Variables, RelocationSectionMatchesSymbolTable) {
  std::string o = compile_c("vrel2", kVars, "gcc -O2 -g -c");
  auto elf = elf::ElfFile::open(o);
  dwarf::DwarfFile dw(*elf);
  const elf::Section* info = elf->find_section(".debug_info");
  ASSERT_NE(info, nullptr);
  const uint8_t* base = elf->section_data(*info).data();
  std::map<std::string, uint32_t> by_symbol;
  for (const elf::Symbol& s : elf->symbols())
    if (s.type == elf::STT_OBJECT)  // gcc names a function's static "fn_static.0"
      by_symbol[std::string(s.name.substr(0, s.name.find('.')))] = s.shndx;
  size_t checked = 0;
  for (const dwarf::Unit& u : dw.units()) {
    dwarf::DieCursor c(u);
    dwarf::Die d;
    while (c.next(d)) {
      if (d.tag != dwarf::DW_TAG_variable) continue;
      dwarf::Attrs a = dw.attrs(d);
      if (a.location.size() != 9 || a.location[0] != 0x03) continue;  // DW_OP_addr + 8 bytes
      std::string name(a.name);
      if (a.specification) name = std::string(dw.attrs(dw.die_at(*a.specification)).name);
      ASSERT_TRUE(by_symbol.count(name)) << name;
      const uint64_t operand = static_cast<uint64_t>(a.location.data() + 1 - base);
      EXPECT_EQ(elf->relocation_section(*info, operand), by_symbol[name]) << name;
      EXPECT_EQ(elf->relocation_section(*info, operand + 1), 0u) << "no relocation starts inside the operand";
      checked++;
    }
  }
  EXPECT_EQ(checked, 10u);  // every variable with an address, fn_static included
}

}  // namespace
}  // namespace btfc::test
