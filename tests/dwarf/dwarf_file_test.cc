// The DWARF reader's API on compiled fixtures, checked against what the
// compiler and binutils say: unit headers against llvm-dwarfdump's header
// lines, member offsets and sizes against offsetof/sizeof of the same
// compiler, addresses against nm, type references followed to the DIEs they
// name, type units (DW_FORM_ref_sig8), DWARF 2 location expressions,
// cross-unit references of an LTO link and dwz's alternate file.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <sstream>

#include "dwarf/dwarf_file.h"
#include "elf/elf_file.h"
#include "support/test_support.h"

namespace btfc::test {
namespace {

using namespace btfc::dwarf;

constexpr char kSource[] = R"(
struct list_head { struct list_head *next, *prev; };
struct task {
  struct list_head node;
  unsigned int flags : 3, prio : 5;
  char name[16];
  union { long id; void *cookie; };
  int (*callback)(struct task *t);
};
struct task global_task;
int task_count = 3;
int run_task(struct task *t) { return t->callback ? t->callback(t) : t->prio + task_count; }
)";

// What the compiler itself says about the layout, for comparison: each
// figure is the size of a symbol, less one (nm -S reads it), so a program
// built for an ABI this machine does not run (-m32) need not run.
constexpr char kLayoutMain[] = R"(
#include <stddef.h>
char layout_size[sizeof(struct task) + 1], layout_node[offsetof(struct task, node) + 1],
    layout_name[offsetof(struct task, name) + 1], layout_callback[offsetof(struct task, callback) + 1],
    layout_list[sizeof(struct list_head) + 1];
int main(void) { return 0; }
)";

struct Walked {
  std::unique_ptr<elf::ElfFile> elf;
  std::unique_ptr<DwarfFile> dw;
};

Walked open(const std::string& path) {
  Walked w;
  w.elf = elf::ElfFile::open(path);
  w.dw = std::make_unique<DwarfFile>(*w.elf);
  return w;
}

// The first DIE with this tag and name, searching all units.
std::optional<Die> find(const DwarfFile& dw, uint32_t tag, std::string_view name) {
  for (const Unit& u : dw.units()) {
    DieCursor c(u);
    Die d;
    while (c.next(d))
      if (d.tag == tag && dw.attrs(d).name == name) return d;
  }
  return std::nullopt;
}

uint64_t nm_value(const std::string& path, const std::string& symbol, uint64_t* size = nullptr) {
  std::string out = run("nm -S '" + path + "' | awk '$4 == \"" + symbol + "\" {print $1, $2}'").out;
  std::istringstream in(out);
  std::string v, s;
  in >> v >> s;
  if (size) *size = std::stoull(s.empty() ? "0" : s, nullptr, 16);
  return std::stoull(v.empty() ? "0" : v, nullptr, 16);
}

// A figure of the compiler's, stored as the size of `symbol` plus one.
uint64_t compiler_figure(const std::string& path, const std::string& symbol) {
  uint64_t size = 0;
  nm_value(path, symbol, &size);
  EXPECT_GT(size, 0u) << symbol << " not found in " << path;
  return size - 1;
}

TEST(DwarfFile, UnitHeadersMatchLlvmDwarfdump) {
  for (const char* cmd : {"gcc -g -gdwarf-5 -c", "gcc -g -gdwarf-4 -c", "gcc -g -gdwarf-2 -m32 -c",
                          "gcc -g -gdwarf-5 -gdwarf64 -c"}) {
    std::string o = compile_c("headers", kSource, cmd);
    Walked w = open(o);
    ASSERT_EQ(w.dw->units().size(), 1u) << cmd;
    const Unit& u = w.dw->units()[0];
    // "0x00000000: Compile Unit: length = 0x..., format = DWARF32, version = 0x0005, unit_type = DW_UT_compile,
    //  abbr_offset = 0x0000, addr_size = 0x08 (next unit at 0x...)"
    std::string line = run("llvm-dwarfdump-14 --debug-info '" + o + "' | grep 'Compile Unit:'").out;
    char buf[64];
    std::snprintf(buf, sizeof buf, "version = 0x%04x", u.version);
    EXPECT_NE(line.find(buf), std::string::npos) << cmd << ": " << line;
    std::snprintf(buf, sizeof buf, "addr_size = 0x%02x", u.address_size);
    EXPECT_NE(line.find(buf), std::string::npos) << cmd << ": " << line;
    EXPECT_NE(line.find(u.offset_size == 8 ? "DWARF64" : "DWARF32"), std::string::npos) << cmd << ": " << line;
    std::snprintf(buf, sizeof buf, "(next unit at 0x%08llx)", static_cast<unsigned long long>(u.end));
    EXPECT_NE(line.find(buf), std::string::npos) << cmd << ": " << line;
    EXPECT_EQ(u.root_tag, DW_TAG_compile_unit);
    EXPECT_TRUE(u.name.ends_with("/headers.c")) << cmd << ": " << u.name;
    EXPECT_NE(u.producer.find("GNU C"), std::string::npos) << u.producer;
  }
}

TEST(DwarfFile, MemberLayoutMatchesTheCompiler) {
  for (const char* cmd : {"gcc -g -gdwarf-5", "gcc -g -gdwarf-4", "gcc -g -gdwarf-2", "clang -g -gdwarf-5",
                          "clang -g -gdwarf-4", "gcc -m32 -g -gdwarf-5"}) {
    std::string exe = compile_c("layout", std::string(kSource) + kLayoutMain, cmd);
    uint64_t size = compiler_figure(exe, "layout_size"), node = compiler_figure(exe, "layout_node"),
             name = compiler_figure(exe, "layout_name"), callback = compiler_figure(exe, "layout_callback"),
             list_size = compiler_figure(exe, "layout_list");

    Walked w = open(exe);
    std::optional<Die> task = find(*w.dw, DW_TAG_structure_type, "task");
    ASSERT_TRUE(task) << cmd;
    Attrs ta = w.dw->attrs(*task);
    EXPECT_EQ(ta.byte_size, size) << cmd;
    std::map<std::string, Attrs> members;
    DieCursor c(*task);
    Die d;
    while (c.next(d))
      if (c.depth() == 1 && d.tag == DW_TAG_member) {
        Attrs a = w.dw->attrs(d);
        members[a.name.empty() ? "<anon>" : std::string(a.name)] = a;
      }
    ASSERT_EQ(members.size(), 6u) << cmd;
    EXPECT_EQ(members["node"].member_location, node) << cmd;
    EXPECT_EQ(members["name"].member_location, name) << cmd;
    EXPECT_EQ(members["callback"].member_location, callback) << cmd;
    // Bitfields: prio is bits 3..7 of the word after node, in either encoding.
    const Attrs& prio = members["prio"];
    EXPECT_EQ(prio.bit_size, 5u) << cmd;
    if (prio.data_bit_offset) {
      EXPECT_EQ(*prio.data_bit_offset, list_size * 8 + 3) << cmd;
    } else {
      ASSERT_TRUE(prio.bit_offset) << cmd;  // DWARF 2/3: counted from the storage unit's most significant bit
      ASSERT_TRUE(prio.byte_size) << cmd;
      EXPECT_EQ(*prio.byte_size * 8 - *prio.bit_offset - 5, 3u) << cmd;
      EXPECT_EQ(prio.member_location, list_size) << cmd;
    }
    // node's type is struct list_head, whose next points back to it.
    ASSERT_TRUE(members["node"].type);
    Die list = w.dw->die_at(*members["node"].type);
    EXPECT_EQ(list.tag, DW_TAG_structure_type);
    EXPECT_EQ(w.dw->attrs(list).name, "list_head");
    EXPECT_EQ(w.dw->attrs(list).byte_size, list_size);
  }
}

// type_attrs, the converter's fast reader, on the layout fixture and on
// names short enough that gcc writes them inline (DW_FORM_string: the
// abbreviation is then not all fixed-size, and the slow path runs), against
// the compiler's own offsetof/sizeof; then on every DIE of the fixture
// against attrs(), field by field.
constexpr char kShortNames[] = R"(
struct ab { int a; char b[3]; long c : 7, d : 9; short long_enough; } ab_var;
enum e { NEG = -3, BIG = 0x12345, Z = 0 } e_var;
typedef struct ab t;
t t_var;
int f(struct ab *p, int q) { return p->a + q; }
char layout_size[sizeof(struct ab) + 1], layout_a[offsetof(struct ab, a) + 1], layout_b[offsetof(struct ab, b) + 1],
    layout_b_size[sizeof(ab_var.b) + 1], layout_long[offsetof(struct ab, long_enough) + 1];
int main(void) { return f(&ab_var, 0); }
)";

void expect_same(const TypeAttrs& t, const Attrs& a, const std::string& where) {
  EXPECT_EQ(t.name_str(), a.name) << where;
  EXPECT_EQ(t.type(), a.type) << where;
  EXPECT_EQ(t.byte_size(), a.byte_size) << where;
  EXPECT_EQ(t.bit_size(), a.bit_size) << where;
  EXPECT_EQ(t.data_bit_offset(), a.data_bit_offset) << where;
  EXPECT_EQ(t.bit_offset(), a.bit_offset) << where;
  EXPECT_EQ(t.member_location(), a.member_location) << where;
  EXPECT_EQ(t.upper_bound(), a.upper_bound) << where;
  EXPECT_EQ(t.count(), a.count) << where;
  EXPECT_EQ(t.encoding(), a.encoding) << where;
  EXPECT_EQ(t.const_value.kind, a.const_value.kind) << where;
  EXPECT_EQ(t.const_value.u, a.const_value.u) << where;
  EXPECT_EQ(t.declaration, a.declaration) << where;
  EXPECT_EQ(t.external, a.external) << where;
}

TEST(DwarfFile, TypeAttrsMatchTheCompiler) {
  for (const char* cmd : {"gcc -g -gdwarf-5", "gcc -g -gdwarf-4", "gcc -g -gdwarf-2", "clang -g -gdwarf-5",
                          "clang -g -gdwarf-4", "gcc -m32 -g -gdwarf-5", "gcc -g -gdwarf-5 -gdwarf64"}) {
    std::string exe = compile_c("tattrs", std::string("#include <stddef.h>\n") + kShortNames, cmd);
    uint64_t size = compiler_figure(exe, "layout_size"), a_off = compiler_figure(exe, "layout_a"),
             b_off = compiler_figure(exe, "layout_b"), b_size = compiler_figure(exe, "layout_b_size"),
             long_off = compiler_figure(exe, "layout_long");

    Walked w = open(exe);
    const DwarfFile& dw = *w.dw;
    std::optional<Die> ab = find(dw, DW_TAG_structure_type, "ab");
    ASSERT_TRUE(ab) << cmd;
    EXPECT_EQ(dw.type_attrs(*ab).byte_size(), size) << cmd;
    std::map<std::string, TypeAttrs> members;
    DieCursor c(*ab);
    Die d;
    size_t fixed = 0, inline_name = 0;
    while (c.next(d))
      if (c.depth() == 1) {
        members[std::string(dw.type_attrs(d).name_str())] = dw.type_attrs(d);
        fixed += d.abbrev->keys_fixed && d.abbrev->str_pos == Abbrev::kNoStr;
        inline_name += d.abbrev->keys_fixed && d.abbrev->str_pos != Abbrev::kNoStr;
      }
    ASSERT_EQ(members.size(), 5u) << cmd;
    // gcc writes the one-letter names inline (DW_FORM_string): those keys
    // are found from the end of the name, the others at fixed offsets
    // (DWARF 2's member locations are blocks: the slow path reads them).
    if (std::string_view(cmd).starts_with("gcc") && !std::string_view(cmd).ends_with("-gdwarf-2")) {
      EXPECT_EQ(fixed, 1u) << cmd;
      EXPECT_EQ(inline_name, 4u) << cmd;
    }
    EXPECT_EQ(members["a"].member_location(), a_off) << cmd;
    EXPECT_EQ(members["long_enough"].member_location(), long_off) << cmd;
    EXPECT_EQ(members["b"].member_location(), b_off) << cmd;
    EXPECT_EQ(members["c"].bit_size(), 7u) << cmd;
    EXPECT_EQ(members["d"].bit_size(), 9u) << cmd;
    // b's array: its subrange gives sizeof, as an upper bound (gcc) or a
    // count (clang).
    ASSERT_TRUE(members["b"].type()) << cmd;
    Die array = dw.die_at(*members["b"].type());
    ASSERT_EQ(array.tag, DW_TAG_array_type) << cmd;
    DieCursor ac(array);
    std::optional<int64_t> elems;
    while (ac.next(d))
      if (d.tag == DW_TAG_subrange_type) {
        TypeAttrs t = dw.type_attrs(d);
        elems = t.upper_bound() ? std::optional<int64_t>(*t.upper_bound() + 1) : t.count();
      }
    EXPECT_EQ(elems, static_cast<int64_t>(b_size)) << cmd;
    // Enumerators: the name is only pointed at; the value as written.
    std::optional<Die> e = find(dw, DW_TAG_enumeration_type, "e");
    ASSERT_TRUE(e) << cmd;
    std::map<std::string, int64_t> values;
    DieCursor ec(*e);
    while (ec.next(d))
      if (d.tag == DW_TAG_enumerator) {
        TypeAttrs t = dw.type_attrs(d);
        if (t.name_pooled()) {
          EXPECT_EQ(std::string_view(t.name_pooled()), t.name_str()) << cmd;
        }
        values[std::string(t.name_str())] = t.const_value.s();
      }
    EXPECT_EQ(values, (std::map<std::string, int64_t>{{"NEG", -3}, {"BIG", 0x12345}, {"Z", 0}})) << cmd;

    size_t dies = 0;
    for (const Unit& u : dw.units()) {
      DieCursor all(u);
      while (all.next(d)) {
        expect_same(dw.type_attrs(d), dw.attrs(d), std::string(cmd) + " DIE " + hex(d.offset));
        dies++;
      }
    }
    EXPECT_GT(dies, 20u) << cmd;
  }
}

TEST(DwarfFile, AddressesMatchNm) {
  // clang's DWARF 5 gives low_pc as DW_FORM_addrx (through .debug_addr).
  // -fno-inline keeps one out-of-line run_task with its own name and pc range.
  for (const char* cmd : {"gcc -g -gdwarf-5 -O2 -fno-inline", "gcc -g -gdwarf-4 -O2 -fno-inline",
                          "clang -g -gdwarf-5 -O2 -fno-inline", "clang -g -gdwarf-4 -O2 -fno-inline",
                          "gcc -m32 -g -O2 -fno-inline"}) {
    std::string exe = compile_c("addrs", std::string(kSource) + "int main(void) { return run_task(&global_task); }\n",
                                cmd);
    Walked w = open(exe);
    std::optional<Die> fn = find(*w.dw, DW_TAG_subprogram, "run_task");
    ASSERT_TRUE(fn) << cmd;
    Attrs fa = w.dw->attrs(*fn);
    uint64_t fsize = 0;
    uint64_t faddr = nm_value(exe, "run_task", &fsize);
    ASSERT_TRUE(fa.low_pc && fa.high_pc) << cmd;
    EXPECT_EQ(*fa.low_pc, faddr) << cmd;
    EXPECT_EQ(*fa.high_pc - *fa.low_pc, fsize) << cmd;
    EXPECT_TRUE(fa.external);
    EXPECT_TRUE(fa.prototyped);
    std::optional<Die> var = find(*w.dw, DW_TAG_variable, "task_count");
    ASSERT_TRUE(var) << cmd;
    Attrs va = w.dw->attrs(*var);
    ASSERT_FALSE(va.location.empty()) << cmd;
    EXPECT_EQ(w.dw->expr_address(*var->unit, va.location), nm_value(exe, "task_count")) << cmd;
  }
}

TEST(DwarfFile, SkipChildrenVisitsTheSameTopLevelDies) {
  std::string o = compile_c("skip", kSource, "gcc -g -gdwarf-5 -O2 -c");
  Walked w = open(o);
  const Unit& u = w.dw->units()[0];
  std::vector<uint64_t> full, skipped;
  {
    DieCursor c(u);
    Die d;
    while (c.next(d))
      if (c.depth() == 1) full.push_back(d.offset);
  }
  {
    DieCursor c(u);
    Die d;
    while (c.next(d)) {
      if (c.depth() == 1) skipped.push_back(d.offset);
      if (c.depth() >= 1) c.skip_children();
    }
  }
  EXPECT_EQ(skipped, full);
  EXPECT_GT(full.size(), 5u);
  // Every offset leads back to the same DIE through die_at.
  DieCursor c(u);
  Die d;
  while (c.next(d)) {
    Die again = w.dw->die_at(d.offset);
    EXPECT_EQ(again.tag, d.tag);
    EXPECT_EQ(again.attr_pos, d.attr_pos);
  }
}

TEST(DwarfFile, CursorOffsetsMatchLlvmDwarfdump) {
  // The cursor skips the attributes it is not asked for: in one step when
  // all are fixed-size, else in runs of fixed-size ones between the
  // variable-size ones (inline strings, location expressions, LEB128
  // constants, which -O2 and short names give plenty of). Every DIE it
  // then lands on is one llvm-dwarfdump lists, and none is missed.
  for (const char* cmd : {"gcc -g -gdwarf-5 -O2 -c", "gcc -g -gdwarf-4 -O2 -c", "gcc -g -gdwarf-2 -m32 -O2 -c",
                          "clang -g -gdwarf-5 -O2 -c", "gcc -g -gdwarf-5 -gdwarf64 -O2 -c"}) {
    std::string o = compile_c("offsets", std::string("#include <stdio.h>\n#include <stddef.h>\n") + kShortNames + kSource, cmd);
    Walked w = open(o);
    std::string theirs;
    std::istringstream dump(run("llvm-dwarfdump-14 --debug-info '" + o + "'").out);
    for (std::string line; std::getline(dump, line);) {
      // "0x0000002a:   DW_TAG_base_type" (null entries say NULL instead)
      size_t colon = line.find(':');
      if (line.rfind("0x", 0) != 0 || colon == std::string::npos) continue;
      size_t tag = line.find_first_not_of(' ', colon + 1);
      if (tag != std::string::npos && line.compare(tag, 7, "DW_TAG_") == 0) theirs += line.substr(0, colon) + "\n";
    }
    std::string ours;
    for (const Unit& u : w.dw->units()) {
      DieCursor c(u);
      Die d;
      char buf[32];
      while (c.next(d)) {
        std::snprintf(buf, sizeof buf, "0x%08llx\n", static_cast<unsigned long long>(d.offset));
        ours += buf;
      }
    }
    EXPECT_EQ(ours, theirs) << cmd;
    EXPECT_GT(ours.size(), 40 * 11u) << cmd;
  }
}

TEST(DwarfFile, TypeUnitSignaturesResolve) {
  constexpr char kCxx[] = "struct Point { int x, y; };\nPoint origin;\nint norm(Point *p) { return p->x; }\n";
  for (const char* cmd : {"g++ -x c++ -g -gdwarf-4 -fdebug-types-section -c",
                          "g++ -x c++ -g -gdwarf-5 -fdebug-types-section -c",
                          "clang++ -x c++ -g -gdwarf-4 -fdebug-types-section -c"}) {
    std::string o = compile_c("tu", kCxx, cmd);
    Walked w = open(o);
    size_t type_units = 0;
    for (const Unit& u : w.dw->units()) type_units += u.is_type_unit();
    EXPECT_GE(type_units, 1u) << cmd;
    std::optional<Die> var = find(*w.dw, DW_TAG_variable, "origin");
    ASSERT_TRUE(var) << cmd;
    Attrs va = w.dw->attrs(*var);
    ASSERT_TRUE(va.type) << cmd;
    Die t = w.dw->die_at(*va.type);
    // gcc points at a declaration in the compile unit that names the type
    // unit with DW_AT_signature; clang uses DW_FORM_ref_sig8 directly.
    if (!t.unit->is_type_unit()) {
      Attrs decl = w.dw->attrs(t);
      ASSERT_TRUE(decl.signature) << cmd << ": DW_AT_signature did not resolve";
      t = w.dw->die_at(*decl.signature);
    }
    EXPECT_TRUE(t.unit->is_type_unit()) << cmd;
    EXPECT_EQ(t.tag, DW_TAG_structure_type) << cmd;
    EXPECT_EQ(w.dw->attrs(t).name, "Point") << cmd;
    EXPECT_EQ(w.dw->attrs(t).byte_size, 8u) << cmd;
  }
}

// A linked file's unit headers are read from the file in windows (not in
// place), several small type units per window: every unit llvm-dwarfdump
// lists, at its offset, with its end.
TEST(DwarfFile, ManySmallTypeUnitsMatchLlvmDwarfdump) {
  std::string source;
  for (int i = 0; i < 400; i++)
    source += "struct S" + std::to_string(i) + " { int a; long b" + std::to_string(i) + "; };\nS" +
              std::to_string(i) + " v" + std::to_string(i) + ";\n";
  std::string so = compile_c("many_tu", source, "g++ -x c++ -g -gdwarf-4 -fdebug-types-section -shared -fPIC");
  Walked w = open(so);
  std::vector<std::pair<uint64_t, uint64_t>> ours;
  for (const Unit& u : w.dw->units())
    if (u.is_type_unit()) ours.push_back({u.offset, u.end});
  ASSERT_GE(ours.size(), 400u);
  // "0x00000000: Type Unit: length = 0x..., ... (next unit at 0x0000002f)"
  std::istringstream dump(run("llvm-dwarfdump-14 --debug-types '" + so + "' | grep 'Type Unit:'").out);
  std::vector<std::pair<uint64_t, uint64_t>> theirs;
  for (std::string line; std::getline(dump, line);) {
    size_t next = line.find("next unit at ");
    ASSERT_NE(next, std::string::npos) << line;
    theirs.push_back({std::stoull(line.substr(0, line.find(':')), nullptr, 16),
                      std::stoull(line.substr(next + 13), nullptr, 16)});
  }
  EXPECT_EQ(ours, theirs);
}

TEST(DwarfFile, LtoCrossUnitReferencesResolve) {
  std::string a = compile_c("xa", std::string(kSource), "gcc -g -O2 -flto -c");
  std::string b = compile_c("xb", "struct task; int run_task(struct task *);\nint main(void) { return run_task(0); }\n",
                            "gcc -g -O2 -flto -c");
  std::string exe = scratch_dir() + "/xprog";
  ASSERT_EQ(run("gcc -g -O2 -flto '" + a + "' '" + b + "' -o '" + exe + "'").status, 0);
  Walked w = open(exe);
  size_t cross = 0;
  for (const Unit& u : w.dw->units()) {
    DieCursor c(u);
    Die d;
    Attr at;
    while (c.next(d))
      for (AttrIter it(*w.dw, d); it.next(at);) {
        if (at.form != DW_FORM_ref_addr) continue;
        Die target = w.dw->die_at(at.value.u);
        EXPECT_NE(target.tag, 0u);
        cross += target.unit != d.unit;
      }
  }
  EXPECT_GT(cross, 0u) << "no cross-unit DW_FORM_ref_addr in the LTO link";
}

TEST(DwarfFile, DwzAlternateReferencesResolve) {
  ASSERT_TRUE(tool_exists("dwz")) << "dwz is not installed (scripts/install-deps.sh installs it)";
  std::string dir = scratch_dir();
  std::string main_fn = "int main(void) { return run_task(&global_task); }\n";
  compile_c("za", std::string(kSource) + main_fn, "gcc -g -gdwarf-4 -O2");
  compile_c("zb", std::string(kSource) + "int other(void) { return 1; }\n" + main_fn, "gcc -g -gdwarf-4 -O2");
  ASSERT_EQ(run("cd '" + dir + "' && dwz -m z_common.debug -M z_common.debug za zb").status, 0);
  Walked w = open(dir + "/za");
  EXPECT_EQ(w.dw->alt_path(), dir + "/z_common.debug");
  EXPECT_FALSE(w.dw->alt_units().empty());
  size_t alt_refs = 0;
  for (const Unit& u : w.dw->units()) {
    DieCursor c(u);
    Die d;
    Attr at;
    while (c.next(d))
      for (AttrIter it(*w.dw, d); it.next(at);) {
        if (at.form != DW_FORM_GNU_ref_alt) continue;
        Die target = w.dw->die_at(at.value.u);
        EXPECT_TRUE(target.unit->is_alt);
        EXPECT_NE(target.tag, 0u);
        alt_refs++;
      }
  }
  EXPECT_GT(alt_refs, 0u);
  // Strings both files use moved to the alternate file's .debug_str: struct
  // task, wherever dwz left it, still has its name.
  std::optional<Die> task = find(*w.dw, DW_TAG_structure_type, "task");
  size_t alt_strings = 0;
  for (const Unit& u : w.dw->units()) {
    DieCursor c(u);
    Die d;
    Attr at;
    while (c.next(d))
      for (AttrIter it(*w.dw, d); it.next(at);)
        if (at.form == DW_FORM_GNU_strp_alt) {
          EXPECT_EQ(at.value.kind, Value::kString);
          alt_strings++;
        }
  }
  EXPECT_GT(alt_strings, 0u);
  if (!task) {
    for (const Unit& u : w.dw->alt_units()) {
      DieCursor c(u);
      Die d;
      while (c.next(d) && !task)
        if (d.tag == DW_TAG_structure_type && w.dw->attrs(d).name == "task") task = d;
    }
  }
  ASSERT_TRUE(task) << "struct task is in neither file";
  EXPECT_EQ(w.dw->attrs(*task).byte_size, sizeof(void*) == 8 ? 56u : 0u);
}

TEST(DwarfFile, MissingAlternateFileIsAnError) {
  ASSERT_TRUE(tool_exists("dwz"));
  std::string dir = scratch_dir();
  std::string main_fn = "int main(void) { return run_task(&global_task); }\n";
  compile_c("ma", std::string(kSource) + main_fn, "gcc -g -gdwarf-4 -O2");
  compile_c("mb", std::string(kSource) + "int other(void) { return 1; }\n" + main_fn, "gcc -g -gdwarf-4 -O2");
  ASSERT_EQ(run("cd '" + dir + "' && dwz -m m_common.debug -M m_gone.debug ma mb").status, 0);
  RunResult r = run_btfc("stats '" + dir + "/ma'");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(": .gnu_debugaltlink+0x0: cannot find the alternate file 'm_gone.debug'"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace btfc::test
