// Abbreviation tables of a file whose units repeat one another's
// declarations, as vmlinux's do: the tables btfc parses (through one
// AbbrevCache, a declaration seen before is shared, not parsed again) must be
// the ones llvm-dwarfdump prints, and the DIEs the cursor walks with them
// the ones it lists. The units differ in form sizes (a DWARF64 unit, whose
// strp and sec_offset take 8 bytes, between DWARF32 ones) and version
// (DWARF 4 has no implicit_const), so a declaration's bytes alone must not
// decide what it parses to.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "dwarf/dwarf_file.h"
#include "elf/elf_file.h"
#include "support/test_support.h"

namespace btfc::test {
namespace {

using namespace btfc::dwarf;

// Short names (DW_FORM_string) and long ones (strp), bit-fields, a
// variadic function, an enum and a location list (-O2).
constexpr char kSource[] = R"(
struct point { int x, y; unsigned flags : 3, kind : 5; };
struct shape { const char *label; struct point at[4]; struct shape *next; };
enum colour { RED, GREEN = 4, BLUE };
struct shape NAME_shapes[2];
enum colour NAME_colour = GREEN;
int NAME_area(struct shape *s, int n, ...) {
  int a = 0;
  for (int i = 0; i < n && s; i++, s = s->next) a += s->at[i & 3].x * s->at[i & 3].y;
  return a;
}
)";

std::string unit(const std::string& name, const std::string& cmd) {
  std::string src = kSource;
  for (size_t at; (at = src.find("NAME")) != std::string::npos;) src.replace(at, 4, name);
  return compile_c(name, src, cmd);
}

// One unit per object, linked with `ld -r`: four tables at increasing
// offsets of one .debug_abbrev.
std::string linked() {
  std::string a = unit("one", "gcc -g -gdwarf-5 -O2 -c");
  std::string b = unit("two", "gcc -g -gdwarf-5 -O2 -c");
  std::string c = unit("wide", "gcc -g -gdwarf-5 -gdwarf64 -O2 -c");
  std::string d = unit("four", "gcc -g -gdwarf-4 -O2 -c");
  std::string out = scratch_dir() + "/linked.o";
  RunResult r = run("ld -r '" + a + "' '" + b + "' '" + c + "' '" + d + "' -o '" + out + "' 2>&1");
  EXPECT_EQ(r.status, 0) << r.out;
  return out;
}

// llvm-dwarfdump's view of a table, one line per declaration:
// "DW_TAG_member yes DW_FORM_string DW_FORM_implicit_const=1 ...".
std::map<uint64_t, std::vector<std::string>> llvm_tables(const std::string& path) {
  std::map<uint64_t, std::vector<std::string>> tables;
  std::istringstream dump(run("llvm-dwarfdump-14 --debug-abbrev '" + path + "'").out);
  std::vector<std::string>* table = nullptr;
  for (std::string line; std::getline(dump, line);) {
    std::istringstream words(line);
    std::string first, second, third;
    words >> first >> second >> third;
    if (line.rfind("Abbrev table for offset: ", 0) == 0) {
      table = &tables[std::stoull(line.substr(25), nullptr, 16)];
    } else if (table && first.size() > 2 && first[0] == '[') {
      // "[1] DW_TAG_member	DW_CHILDREN_no"
      table->push_back(second + (third == "DW_CHILDREN_yes" ? " yes" : " no"));
    } else if (table && !table->empty() && first.rfind("DW_AT_", 0) == 0) {
      // "	DW_AT_decl_file	DW_FORM_implicit_const	1"
      table->back() += " " + second + (third.empty() ? "" : "=" + third);
    }
  }
  return tables;
}

std::vector<std::string> our_table(const AbbrevTable& t) {
  std::vector<std::string> out;
  for (const Abbrev* ap : t.abbrevs()) {
    const Abbrev& a = *ap;
    std::string line = tag_name(a.tag) + (a.has_children ? " yes" : " no");
    for (const AttrSpec& s : a.specs()) {
      line += " " + form_name(s.form);
      if (s.form == DW_FORM_implicit_const) line += "=" + std::to_string(s.implicit_const);
    }
    out.push_back(line);
  }
  return out;
}

TEST(AbbrevTable, SharedDeclarationsMatchLlvmDwarfdump) {
  std::string path = linked();
  std::unique_ptr<elf::ElfFile> elf = elf::ElfFile::open(path);
  DwarfFile dw(*elf);
  ASSERT_EQ(dw.units().size(), 4u);
  std::map<uint64_t, std::vector<std::string>> theirs = llvm_tables(path);
  ASSERT_EQ(theirs.size(), 4u);
  for (const Unit& u : dw.units()) {
    SCOPED_TRACE("unit at " + hex(u.offset));
    ASSERT_EQ(u.abbrevs->offset(), u.abbrev_offset);
    EXPECT_EQ(our_table(*u.abbrevs), theirs[u.abbrev_offset]);
    EXPECT_GT(u.abbrevs->size(), 15u);
  }

  // The two DWARF 5, DWARF32 units declare the same abbreviations: the
  // second table's are the first's, stored once.
  const AbbrevTable& one = *dw.units()[0].abbrevs;
  const AbbrevTable& two = *dw.units()[1].abbrevs;
  ASSERT_EQ(our_table(one), our_table(two));
  for (size_t i = 0; i < one.size(); i++) EXPECT_EQ(one.abbrevs()[i], two.abbrevs()[i]) << i;

  // Some of the DWARF64 unit's declarations are the same bytes (those
  // without references: gcc gives it ref8), but there strp, line_strp and
  // sec_offset take 8 bytes, not 4.
  const AbbrevTable& wide = *dw.units()[2].abbrevs;
  std::vector<std::string> one_text = our_table(one), wide_text = our_table(wide);
  size_t offsets = 0;
  for (size_t i = 0; i < wide.size(); i++) {
    auto same = std::find(one_text.begin(), one_text.end(), wide_text[i]);
    if (same == one_text.end()) continue;
    const Abbrev& narrow = *one.abbrevs()[static_cast<size_t>(same - one_text.begin())];
    for (size_t j = 0; j < narrow.num_attrs; j++) {
      uint16_t form = narrow.attrs[j].form;
      if (form != DW_FORM_strp && form != DW_FORM_line_strp && form != DW_FORM_sec_offset) continue;
      offsets++;
      EXPECT_EQ(narrow.attrs[j].size, 4) << wide_text[i];
      EXPECT_EQ(wide.abbrevs()[i]->attrs[j].size, 8) << wide_text[i];
    }
  }
  EXPECT_GE(offsets, 4u);  // at least the compile unit's

  // Every DIE of every unit, walked with these tables, is where
  // llvm-dwarfdump says it is.
  std::string expected;
  std::istringstream dump(run("llvm-dwarfdump-14 --debug-info '" + path + "'").out);
  for (std::string line; std::getline(dump, line);) {
    size_t colon = line.find(':');
    if (line.rfind("0x", 0) != 0 || colon == std::string::npos) continue;
    size_t tag = line.find_first_not_of(' ', colon + 1);
    if (tag != std::string::npos && line.compare(tag, 7, "DW_TAG_") == 0) expected += line.substr(0, colon) + "\n";
  }
  std::string walked;
  for (const Unit& u : dw.units()) {
    DieCursor c(u);
    Die d;
    char buf[32];
    while (c.next(d)) {
      std::snprintf(buf, sizeof buf, "0x%08llx\n", static_cast<unsigned long long>(d.offset));
      walked += buf;
    }
  }
  EXPECT_EQ(walked, expected);
}

}  // namespace
}  // namespace btfc::test
