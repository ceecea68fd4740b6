// Corrupt DWARF, one small hand-built input per error: each test says what
// is wrong and the exact message, which both `btfc stats` (exit status 1,
// one line `btfc: FILE: SECTION+0xOFFSET: ...`) and the API (DwarfFile plus
// decode_unit over every unit) must give. None may crash, hang or allocate
// without bound; the sanitizer build runs these too.
//
// Unless a test says otherwise the input is one DWARF 5 compile unit,
// 32-bit, address size 8, abbreviations at .debug_abbrev+0: the unit
// header is 12 bytes, so the root DIE is at .debug_info+0xc and its first
// attribute at +0xd.
#include <gtest/gtest.h>

#include <algorithm>

#include "dwarf/dwarf_file.h"
#include "elf/elf_file.h"
#include "support/elf_builder.h"
#include "support/test_support.h"

namespace btfc::test {
namespace {

using namespace btfc::dwarf;

struct Input {
  ByteWriter info, abbrev, str, str_offsets;
};

// A DWARF 5 compile unit header followed by `dies`.
ByteWriter unit5(const ByteWriter& dies, uint16_t version = 5, uint8_t unit_type = DW_UT_compile,
                 uint8_t address_size = 8, uint32_t abbrev_offset = 0) {
  ByteWriter u;
  u.u32(static_cast<uint32_t>(dies.size() + 8)).u16(version).u8(unit_type).u8(address_size).u32(abbrev_offset);
  u.raw(dies.data());
  return u;
}

std::vector<ElfSection> sections(const Input& in) {
  std::vector<ElfSection> s = {{".debug_info", in.info.data()}, {".debug_abbrev", in.abbrev.data()}};
  if (in.str.size()) s.push_back({".debug_str", in.str.data()});
  if (in.str_offsets.size()) s.push_back({".debug_str_offsets", in.str_offsets.data()});
  return s;
}

// What the API reports for the whole file: DwarfFile, then every unit.
std::string api_error(const std::vector<uint8_t>& bytes, const std::string& name) {
  try {
    std::unique_ptr<elf::ElfFile> elf = elf::ElfFile::parse(bytes, name);
    DwarfFile dw(*elf);
    std::vector<uint64_t> counts;
    try {
      for (const Unit& u : dw.units()) decode_unit(dw, u, counts);
    } catch (Error& e) {
      throw e.with_file(name);
    }
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

void expect_error(const std::string& name, const Input& in, const std::string& message) {
  std::string path = write_elf(name, sections(in));
  RunResult r = run_btfc("stats " + path);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_EQ(r.err, "btfc: " + path + ": " + message + "\n");
  EXPECT_EQ(api_error(build_elf(sections(in)), name), name + ": " + message);
}

// Abbreviation 1: a compile unit with children and no attributes.
// Abbreviation 2: a member with the attributes given.
ByteWriter abbrevs(std::vector<std::pair<uint32_t, uint32_t>> member_attrs, bool member_children = false) {
  ByteWriter a;
  a.uleb(1).uleb(DW_TAG_compile_unit).u8(1).u8(0).u8(0);
  a.uleb(2).uleb(DW_TAG_member).u8(member_children);
  for (auto [name, form] : member_attrs) a.uleb(name).uleb(form);
  a.u8(0).u8(0).u8(0);
  return a;
}

TEST(Corrupt, UnitLengthPastSection) {
  // The unit claims 0x100 bytes; the section holds 0x14 after the length.
  Input in;
  in.info.u32(0x100).u16(5).u8(DW_UT_compile).u8(8).u32(0).u8(1).u8(0).u8(0).u8(0).u32(0).u32(0);
  in.abbrev = abbrevs({});
  expect_error("length.o", in, ".debug_info+0x0: unit length 0x100 runs past the end of the section (0x14 bytes left)");
}

TEST(Corrupt, ReservedUnitLength) {
  // 0xfffffff0..0xfffffffe are reserved initial lengths.
  Input in;
  in.info.u32(0xfffffff5).u64(0);
  in.abbrev = abbrevs({});
  expect_error("reserved.o", in, ".debug_info+0x0: reserved unit length 0xfffffff5");
}

TEST(Corrupt, BadUnitVersion) {
  // Version 7 does not exist.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(0);
  in.info = unit5(dies, 7);
  in.abbrev = abbrevs({});
  expect_error("version.o", in, ".debug_info+0x4: unsupported DWARF version 7");
}

TEST(Corrupt, UnknownUnitType) {
  // DW_UT_* stops at 6.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(0);
  in.info = unit5(dies, 5, 9);
  in.abbrev = abbrevs({});
  expect_error("unit_type.o", in, ".debug_info+0x6: unknown unit type 0x9");
}

TEST(Corrupt, BadAddressSize) {
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(0);
  in.info = unit5(dies, 5, DW_UT_compile, 3);
  in.abbrev = abbrevs({});
  expect_error("address_size.o", in, ".debug_info+0x7: unsupported address size 3");
}

TEST(Corrupt, AbbrevOffsetPastSection) {
  // The header names .debug_abbrev+0x100; the section has 0xb bytes.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(0);
  in.info = unit5(dies, 5, DW_UT_compile, 8, 0x100);
  in.abbrev = abbrevs({});
  expect_error("abbrev_offset.o", in,
               ".debug_info+0x8: abbreviation offset 0x100 is past the end of .debug_abbrev (size 0xb)");
}

TEST(Corrupt, UnknownForm) {
  // Abbreviation 1's only attribute has form 0x7f (bytes: code 1, tag 0x11,
  // children 1, DW_AT_name 0x03, form at +0x4).
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(0);
  in.info = unit5(dies);
  in.abbrev.uleb(1).uleb(DW_TAG_compile_unit).u8(1).uleb(DW_AT_name).uleb(0x7f).u8(0).u8(0).u8(0);
  expect_error("form.o", in, ".debug_abbrev+0x4: unknown form 0x7f in abbreviation 1");
}

TEST(Corrupt, BadAbbreviationDeclarations) {
  // Abbreviation 1 is good (5 bytes: code, compile_unit, children,
  // terminator); abbreviation 2, from +0x5, is not: its tag 0 at +0x6, its
  // children flag 2 at +0x7, an attribute 0 at +0x8, the section cut off
  // before the form at +0x9, or the code 1 again.
  auto input = [](auto&& abbrev2) {
    Input in;
    ByteWriter dies;
    dies.u8(1).u8(0);
    in.info = unit5(dies);
    in.abbrev.uleb(1).uleb(DW_TAG_compile_unit).u8(1).u8(0).u8(0);
    abbrev2(in.abbrev);
    return in;
  };
  expect_error("tag.o", input([](ByteWriter& a) { a.uleb(2).uleb(0).u8(0).u8(0).u8(0).u8(0); }),
               ".debug_abbrev+0x6: abbreviation 2 has invalid tag 0x0");
  expect_error("children.o", input([](ByteWriter& a) { a.uleb(2).uleb(DW_TAG_member).u8(2).u8(0).u8(0).u8(0); }),
               ".debug_abbrev+0x7: abbreviation 2 has bad children flag 2");
  expect_error("attribute.o",
               input([](ByteWriter& a) { a.uleb(2).uleb(DW_TAG_member).u8(0).uleb(0).uleb(DW_FORM_strp).u8(0).u8(0).u8(0); }),
               ".debug_abbrev+0x8: abbreviation 2 has invalid attribute 0");
  expect_error("cut.o", input([](ByteWriter& a) { a.uleb(2).uleb(DW_TAG_member).u8(0).uleb(DW_AT_name); }),
               ".debug_abbrev+0x9: truncated LEB128");
  expect_error("duplicate.o", input([](ByteWriter& a) { a.uleb(1).uleb(DW_TAG_member).u8(0).u8(0).u8(0).u8(0); }),
               ".debug_abbrev+0x5: duplicate abbreviation code 1");
}

TEST(Corrupt, RepeatedDeclarationsAreStillChecked) {
  // Two units, each with its own table. The second table repeats the
  // first's declarations byte for byte (as vmlinux's tables repeat one
  // another; btfc parses such a declaration once), then declares code 2
  // again at +0x19: still an error. Or its abbreviation 2 differs from the
  // first table's in its form only, an unknown one (at +0x16).
  ByteWriter dies;
  dies.u8(1).u8(0);
  ByteWriter first = abbrevs({{DW_AT_name, DW_FORM_string}});  // 0xd bytes
  auto input = [&](auto&& second) {
    Input in;
    in.info = unit5(dies);
    in.info.raw(unit5(dies, 5, DW_UT_compile, 8, static_cast<uint32_t>(first.size())).data());
    in.abbrev.raw(first.data());
    second(in.abbrev);
    return in;
  };
  auto repeat = [](ByteWriter& a) {
    a.uleb(1).uleb(DW_TAG_compile_unit).u8(1).u8(0).u8(0);
    a.uleb(2).uleb(DW_TAG_member).u8(0).uleb(DW_AT_name).uleb(DW_FORM_string).u8(0).u8(0);
  };
  expect_error("repeated_duplicate.o", input([&](ByteWriter& a) {
                 repeat(a);
                 a.uleb(2).uleb(DW_TAG_member).u8(0).uleb(DW_AT_name).uleb(DW_FORM_string).u8(0).u8(0).u8(0);
               }),
               ".debug_abbrev+0x19: duplicate abbreviation code 2");
  expect_error("repeated_form.o", input([](ByteWriter& a) {
                 a.uleb(1).uleb(DW_TAG_compile_unit).u8(1).u8(0).u8(0);
                 a.uleb(2).uleb(DW_TAG_member).u8(0).uleb(DW_AT_name).uleb(0x7f).u8(0).u8(0).u8(0);
               }),
               ".debug_abbrev+0x16: unknown form 0x7f in abbreviation 2");
  // Repeated as they are, they parse; both units walk.
  Input good = input([&](ByteWriter& a) {
    repeat(a);
    a.u8(0);
  });
  std::string path = write_elf("repeated.o", sections(good));
  RunResult r = run_btfc("stats " + path);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "DW_TAG_compile_unit 2\nunits 2\ndies 2\n");
}

TEST(Corrupt, MissingAbbrevCodeAtRoot) {
  // The root DIE uses code 5; the table has 1 and 2.
  Input in;
  ByteWriter dies;
  dies.u8(5).u8(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({});
  expect_error("code_root.o", in, ".debug_info+0xc: abbreviation code 5 does not exist");
}

TEST(Corrupt, FirstBadRootOfManyUnits) {
  // 130 units of 14 bytes, all with the one table; roots are read in
  // parallel runs of neighbouring units, yet the error is the first bad
  // root's (unit 70, root at 70 * 14 + 0xc = +0x3e0), not unit 129's.
  auto input = [](std::vector<size_t> bad) {
    Input in;
    for (size_t i = 0; i < 130; i++) {
      ByteWriter dies;
      bool is_bad = std::find(bad.begin(), bad.end(), i) != bad.end();
      dies.u8(is_bad ? 5 : 1).u8(0);
      in.info.raw(unit5(dies).data());
    }
    in.abbrev = abbrevs({});
    return in;
  };
  expect_error("roots.o", input({129, 70}), ".debug_info+0x3e0: abbreviation code 5 does not exist");
  std::string path = write_elf("roots_good.o", sections(input({})));
  RunResult r = run_btfc("stats " + path);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "DW_TAG_compile_unit 130\nunits 130\ndies 130\n");
}

TEST(Corrupt, MissingAbbrevCodeInChild) {
  // Root (code 1) at 0xc, a member (code 2) at 0xd, then code 9 at 0xe.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(2).u8(9).u8(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({});
  expect_error("code_child.o", in, ".debug_info+0xe: abbreviation code 9 does not exist");
}

TEST(Corrupt, StringOffsetPastDebugStr) {
  // The member's DW_AT_name is DW_FORM_strp 0x1000; .debug_str has 4 bytes.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(2).u32(0x1000).u8(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({{DW_AT_name, DW_FORM_strp}});
  in.str.str("abc");
  expect_error("strp.o", in, ".debug_info+0xe: string offset 0x1000 is past the end of .debug_str (size 0x4)");
}

TEST(Corrupt, StringNotTerminated) {
  // DW_FORM_strp 0 points at "abc" with no NUL before the section ends.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(2).u32(0).u8(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({{DW_AT_name, DW_FORM_strp}});
  in.str.u8('a').u8('b').u8('c');
  expect_error("strp_nul.o", in, ".debug_str+0x0: string is not NUL-terminated");
}

TEST(Corrupt, StringIndexPastStrOffsets) {
  // DW_FORM_strx1 index 7 with no DW_AT_str_offsets_base; the table has 2 entries.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(2).u8(7).u8(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({{DW_AT_name, DW_FORM_strx1}});
  in.str.str("abc");
  in.str_offsets.u32(0).u32(0);
  expect_error("strx.o", in,
               ".debug_info+0xe: string index 7 is past the end of .debug_str_offsets (base 0x0, size 0x8)");
}

TEST(Corrupt, Leb128Overflow) {
  // DW_AT_byte_size as DW_FORM_udata with 11 bytes of 0xff...: more than 64 bits.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(2);
  for (int i = 0; i < 10; i++) dies.u8(0xff);
  dies.u8(0x01).u8(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({{DW_AT_byte_size, DW_FORM_udata}});
  expect_error("leb.o", in, ".debug_info+0xe: LEB128 overflows 64 bits");
}

TEST(Corrupt, AttributeRunsPastUnit) {
  // The member's DW_FORM_data4 has only 2 bytes left in the unit.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(2).u16(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({{DW_AT_byte_size, DW_FORM_data4}});
  expect_error("truncated_die.o", in, ".debug_info+0xe: unexpected end of data");
}

TEST(Corrupt, ReferenceOutsideUnit) {
  // DW_AT_type ref4 0x1000 in a unit of 0x13 bytes.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(2).u32(0x1000).u8(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({{DW_AT_type, DW_FORM_ref4}});
  expect_error("ref.o", in, ".debug_info+0xe: reference 0x1000 is outside its unit (length 0x13)");
}

TEST(Corrupt, RefAddrPastSection) {
  // DW_FORM_ref_addr 0x5000 in a .debug_info of 0x13 bytes.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(2).u32(0x5000).u8(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({{DW_AT_type, DW_FORM_ref_addr}});
  expect_error("ref_addr.o", in, ".debug_info+0xe: DW_FORM_ref_addr 0x5000 is past the end of .debug_info");
}

TEST(Corrupt, SiblingPointsBackwards) {
  // The member at 0xd (with children) says its sibling is at unit offset
  // 0xc, the root: a backward jump would loop.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(2).u32(0xc).u8(0).u8(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({{DW_AT_sibling, DW_FORM_ref4}}, true);
  expect_error("sibling_back.o", in, ".debug_info+0xd: DW_AT_sibling 0xc does not point past its DIE");
}

TEST(Corrupt, SiblingPointsToItself) {
  // The member at 0xd says its sibling is 0xd: a loop.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(2).u32(0xd).u8(0).u8(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({{DW_AT_sibling, DW_FORM_ref4}}, true);
  expect_error("sibling_loop.o", in, ".debug_info+0xd: DW_AT_sibling 0xd does not point past its DIE");
}

TEST(Corrupt, SiblingPastUnit) {
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(2).u32(0x400).u8(0).u8(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({{DW_AT_sibling, DW_FORM_ref4}}, true);
  expect_error("sibling_far.o", in, ".debug_info+0xd: DW_AT_sibling 0x400 points past the end of the unit");
}

TEST(Corrupt, SiblingMissesEndOfChildren) {
  // The member at 0xd has no children (just the null at 0x12, so they end at
  // 0x13) but its sibling says 0x14.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(2).u32(0x14).u8(0).u8(0).u8(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({{DW_AT_sibling, DW_FORM_ref4}}, true);
  expect_error("sibling_end.o", in,
               ".debug_info+0xd: DW_AT_sibling points to 0x14 but the DIE's children end at 0x13");
}

TEST(Corrupt, NestingTooDeep) {
  // 1100 members, each the only child of the one before (one byte each,
  // root at 0xc): the member at depth 1024, at 0x40c, may not have children.
  Input in;
  ByteWriter dies;
  dies.u8(1);
  for (int i = 0; i < 1100; i++) dies.u8(2);
  for (int i = 0; i < 1101; i++) dies.u8(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({}, true);
  expect_error("deep.o", in, ".debug_info+0x40c: DIEs are nested deeper than 1024 levels");
}

TEST(Corrupt, IndirectNamesIndirect) {
  // DW_FORM_indirect whose value is DW_FORM_indirect again.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(2).uleb(DW_FORM_indirect).u8(0).u8(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({{DW_AT_byte_size, DW_FORM_indirect}});
  expect_error("indirect.o", in, ".debug_info+0xe: DW_FORM_indirect names form 0x16");
}

TEST(Corrupt, TruncatedFile) {
  // A good file cut in half: the section headers are gone (the ELF layer's
  // message), still one line and exit status 1.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({});
  std::vector<uint8_t> bytes = build_elf(sections(in));
  bytes.resize(bytes.size() / 2);
  std::string path = scratch_dir() + "/truncated.o";
  FILE* f = fopen(path.c_str(), "wb");
  fwrite(bytes.data(), 1, bytes.size(), f);
  fclose(f);
  RunResult r = run_btfc("stats " + path);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.rfind("btfc: " + path + ": ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// What the type converter's reader (type_attrs) reports on every DIE.
std::string type_attrs_error(const Input& in) {
  std::vector<uint8_t> bytes = build_elf(sections(in));  // parse() keeps a view of them
  try {
    std::unique_ptr<elf::ElfFile> elf = elf::ElfFile::parse(bytes, "t.o");
    DwarfFile dw(*elf);
    for (const Unit& u : dw.units()) {
      DieCursor c(u);
      Die d;
      while (c.next(d)) dw.type_attrs(d);
    }
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Corrupt, TypeAttrsReportsLikeAttrs) {
  // type_attrs loads a member's wanted attributes from fixed offsets, but
  // only when the DIE holds every byte up to them: otherwise it reads the
  // way attrs() does, so the message names the first attribute that runs
  // out (decl_line here, at +0xe), not the one it wanted.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(2).u16(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({{DW_AT_decl_line, DW_FORM_data4}, {DW_AT_type, DW_FORM_ref4}});
  EXPECT_EQ(type_attrs_error(in), ".debug_info+0xe: unexpected end of data");
  expect_error("truncated_type.o", in, ".debug_info+0xe: unexpected end of data");

  // Bad values of the attributes it reads give attrs()'s messages too: a
  // reference outside the unit, a string offset past .debug_str.
  Input ref;
  ByteWriter ref_dies;
  ref_dies.u8(1).u8(2).u8(0).u32(0x1000).u8(0);
  ref.info = unit5(ref_dies);
  ref.abbrev = abbrevs({{DW_AT_decl_line, DW_FORM_data1}, {DW_AT_type, DW_FORM_ref4}});
  EXPECT_EQ(type_attrs_error(ref), ".debug_info+0xf: reference 0x1000 is outside its unit (length 0x14)");
  expect_error("ref_type.o", ref, ".debug_info+0xf: reference 0x1000 is outside its unit (length 0x14)");

  Input str;
  ByteWriter str_dies;
  str_dies.u8(1).u8(2).u32(0x1000).u8(0);
  str.info = unit5(str_dies);
  str.abbrev = abbrevs({{DW_AT_name, DW_FORM_strp}});
  str.str.str("abc");
  EXPECT_EQ(type_attrs_error(str), ".debug_info+0xe: string offset 0x1000 is past the end of .debug_str (size 0x4)");
}

TEST(Corrupt, TypeAttrsAfterAnInlineNameReportsLikeAttrs) {
  // A name in the DIE (DW_FORM_string) puts the keys after it at offsets
  // known once its NUL is found. A DIE that ends before them, a name that
  // runs to the end of the unit and a value type_attrs does not want but
  // attrs() decodes (a bad strp) all give attrs()'s message.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(2).str("ab").u8(5).u16(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({{DW_AT_name, DW_FORM_string}, {DW_AT_decl_line, DW_FORM_data1}, {DW_AT_type, DW_FORM_ref4}});
  EXPECT_EQ(type_attrs_error(in), ".debug_info+0x12: unexpected end of data");
  expect_error("truncated_after_name.o", in, ".debug_info+0x12: unexpected end of data");

  Input open_name;
  ByteWriter open_dies;
  open_dies.u8(1).u8(2).u8('a').u8('b');
  open_name.info = unit5(open_dies);
  open_name.abbrev = abbrevs({{DW_AT_name, DW_FORM_string}, {DW_AT_type, DW_FORM_ref4}});
  EXPECT_EQ(type_attrs_error(open_name), ".debug_info+0xe: string is not NUL-terminated");

  Input other;
  ByteWriter other_dies;
  other_dies.u8(1).u8(2).str("ab").u32(0x1000).u32(0xc).u8(0);
  other.info = unit5(other_dies);
  other.abbrev =
      abbrevs({{DW_AT_name, DW_FORM_string}, {DW_AT_linkage_name, DW_FORM_strp}, {DW_AT_type, DW_FORM_ref4}});
  other.str.str("abc");
  EXPECT_EQ(type_attrs_error(other),
            ".debug_info+0x11: string offset 0x1000 is past the end of .debug_str (size 0x4)");
}

TEST(Corrupt, GoodInputWalks) {
  // The builders themselves make valid DWARF: root + member with a correct sibling.
  Input in;
  ByteWriter dies;
  dies.u8(1).u8(2).u32(0x13).u8(0).u8(0);
  in.info = unit5(dies);
  in.abbrev = abbrevs({{DW_AT_sibling, DW_FORM_ref4}}, true);
  std::string path = write_elf("good.o", sections(in));
  RunResult r = run_btfc("stats " + path);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "DW_TAG_compile_unit 1\nDW_TAG_member 1\nunits 1\ndies 2\n");
}

}  // namespace
}  // namespace btfc::test
