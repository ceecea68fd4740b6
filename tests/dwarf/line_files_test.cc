// decl_files(): the file names of a unit's line table header, spelled as
// elfutils' dwarf_decl_file() spells them, on hand-built units (the rules
// one by one) and on bad headers (one clear error each, naming the
// section and offset (the caller adds the file), or no names where
// elfutils gives none). tests/layout compares the names, as pahole -I
// prints them, with pahole's on what gcc and clang emit.
#include <gtest/gtest.h>

#include "dwarf/dwarf_file.h"
#include "dwarf/line_files.h"
#include "elf/elf_file.h"
#include "support/elf_builder.h"

namespace btfc::test {
namespace {

using namespace btfc::dwarf;
using Files = std::vector<std::string>;

// One compile unit (version 4 or 5) whose root has DW_AT_stmt_list 0 and,
// unless `comp_dir` is empty, DW_AT_comp_dir; `line` is .debug_line.
struct Built {
  std::vector<uint8_t> bytes;
  std::unique_ptr<elf::ElfFile> elf;
  std::unique_ptr<DwarfFile> dw;
};

Built build(uint16_t version, const std::string& comp_dir, const ByteWriter& line, const ByteWriter& line_str = {}) {
  ByteWriter abbrev;
  abbrev.uleb(1).uleb(DW_TAG_compile_unit).u8(0).uleb(DW_AT_stmt_list).uleb(DW_FORM_sec_offset);
  if (!comp_dir.empty()) abbrev.uleb(DW_AT_comp_dir).uleb(DW_FORM_string);
  abbrev.u8(0).u8(0).u8(0);
  ByteWriter die;
  die.uleb(1).u32(0);
  if (!comp_dir.empty()) die.str(comp_dir);
  ByteWriter info;
  const uint32_t header = version >= 5 ? 8 : 7;
  info.u32(static_cast<uint32_t>(header + die.size())).u16(version);
  if (version >= 5) info.u8(DW_UT_compile).u8(8).u32(0);
  else info.u32(0).u8(8);
  info.raw(die.data());
  std::vector<ElfSection> sections = {
      {".debug_info", info.data()}, {".debug_abbrev", abbrev.data()}, {".debug_line", line.data()}};
  if (line_str.size()) sections.push_back({".debug_line_str", line_str.data()});
  Built b;
  b.bytes = build_elf(sections);
  b.elf = elf::ElfFile::parse(b.bytes, "line.o");
  b.dw = std::make_unique<DwarfFile>(*b.elf);
  return b;
}

// The paths, joined as they are printed ("" where no file is named).
Files paths(const std::vector<FileName>& files) {
  Files out;
  for (const FileName& f : files) out.push_back(f.empty() ? std::string() : f.path());
  return out;
}

Files files_of(const Built& b) { return paths(decl_files(b.dw->units().at(0), b.dw->line_section())); }

std::string error_of(const Built& b) {
  try {
    files_of(b);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// A DWARF 2-4 line table header: `dirs`, then `files` as (name, dir).
ByteWriter header4(uint16_t version, const std::vector<std::string>& dirs,
                   const std::vector<std::pair<std::string, uint64_t>>& files) {
  ByteWriter body;
  body.u8(1);                        // minimum_instruction_length
  if (version >= 4) body.u8(1);      // maximum_operations_per_instruction
  body.u8(1).u8(0xfb).u8(14).u8(13);  // default_is_stmt, line_base, line_range, opcode_base
  for (int i = 1; i < 13; ++i) body.u8(0);  // standard_opcode_lengths
  for (const std::string& d : dirs) body.str(d);
  body.u8(0);
  for (const auto& [name, dir] : files) body.str(name).uleb(dir).uleb(0).uleb(0);
  body.u8(0);
  ByteWriter t;
  t.u32(static_cast<uint32_t>(2 + 4 + body.size())).u16(version).u32(static_cast<uint32_t>(body.size()));
  t.raw(body.data());
  return t;
}

TEST(LineFiles, Version4JoinsNamesToTheirDirectoryAsElfutils) {
  ByteWriter line = header4(4, {"inc", "/abs"}, {{"a.c", 0}, {"h.h", 1}, {"x.h", 2}, {"/root/y.h", 1}});
  // File 0 names nothing; directory 0 is DW_AT_comp_dir; a relative
  // include directory stays relative; an absolute name stands alone.
  EXPECT_EQ(files_of(build(4, "/src", line)), (Files{"", "/src/a.c", "inc/h.h", "/abs/x.h", "/root/y.h"}));
  // Without DW_AT_comp_dir, directory 0 is unknown: the name alone.
  EXPECT_EQ(files_of(build(4, "", line)), (Files{"", "a.c", "inc/h.h", "/abs/x.h", "/root/y.h"}));
  // DWARF 2 and 3 headers lack maximum_operations_per_instruction.
  EXPECT_EQ(files_of(build(4, "/src", header4(3, {"inc"}, {{"a.c", 0}, {"h.h", 1}}))),
            (Files{"", "/src/a.c", "inc/h.h"}));
}

TEST(LineFiles, Version5ReadsTheEntryFormats) {
  ByteWriter line_str;
  line_str.str("/src").str("a.c");  // at 0 and 5
  ByteWriter body;
  body.u8(1).u8(1).u8(1).u8(0xfb).u8(14).u8(13);
  for (int i = 1; i < 13; ++i) body.u8(0);
  // Directories: a path as line_strp. Two: "/src", "inc" (inline).
  body.u8(1).uleb(1 /* DW_LNCT_path */).uleb(DW_FORM_string);
  body.uleb(2).str("/src").str("inc");
  // Files: path (line_strp or string, per the format), directory index
  // (udata), MD5 (data16): the format is one for all entries, so both
  // are line_strp here and "h.h" is in .debug_line_str too.
  line_str.str("h.h");  // at 9
  body.u8(3).uleb(1).uleb(DW_FORM_line_strp).uleb(2 /* DW_LNCT_directory_index */).uleb(DW_FORM_udata);
  body.uleb(5 /* DW_LNCT_MD5 */).uleb(DW_FORM_data16);
  body.uleb(3);
  for (auto [path, dir] : {std::pair<uint32_t, uint64_t>{5, 0}, {9, 1}, {5, 1}}) {
    body.u32(path).uleb(dir);
    for (int i = 0; i < 16; ++i) body.u8(0xaa);
  }
  ByteWriter line;
  line.u32(static_cast<uint32_t>(2 + 2 + 4 + body.size())).u16(5).u8(8).u8(0).u32(static_cast<uint32_t>(body.size()));
  line.raw(body.data());
  // DWARF 5 counts files from 0, and its directory 0 is the table's; file
  // 0 still names nothing to dwarf_decl_file().
  EXPECT_EQ(files_of(build(5, "/elsewhere", line, line_str)), (Files{"", "inc/h.h", "inc/a.c"}));
}

TEST(LineFiles, NoStatementListNoFiles) {
  // A unit without DW_AT_stmt_list, and a file without .debug_line.
  ByteWriter abbrev;
  abbrev.uleb(1).uleb(DW_TAG_compile_unit).u8(0).u8(0).u8(0).u8(0);
  ByteWriter info;
  info.u32(7 + 1).u16(4).u32(0).u8(8).uleb(1);
  const std::vector<uint8_t> bytes = build_elf({{".debug_info", info.data()}, {".debug_abbrev", abbrev.data()}});
  auto elf = elf::ElfFile::parse(bytes, "x.o");
  DwarfFile dw(*elf);
  EXPECT_TRUE(dw.line_section().empty());
  EXPECT_TRUE(decl_files(dw.units().at(0), dw.line_section()).empty());
}

TEST(LineFiles, PrefixesAreOfTheJoinedPath) {
  const FileName in_dir{"/src/linux", "fs/inode.c"}, alone{{}, "inc/h.h"};
  for (std::string_view prefix : {"", "/", "/src", "/src/linux", "/src/linux/", "/src/linux/fs", "/src/linux/fs/inode.c"})
    EXPECT_TRUE(in_dir.path_starts_with(prefix)) << prefix;
  for (std::string_view prefix : {"/src/linuxx", "/src/linux/x", "/src/linux/fs/inode.c2", "src"})
    EXPECT_FALSE(in_dir.path_starts_with(prefix)) << prefix;
  EXPECT_TRUE(alone.path_starts_with("inc/"));
  EXPECT_FALSE(alone.path_starts_with("/inc"));
  EXPECT_EQ(in_dir.path(), "/src/linux/fs/inode.c");
  EXPECT_EQ(alone.path(), "inc/h.h");
}

TEST(LineFiles, ManyFilesOfALongDirectoryCostTheirEntriesOnly) {
  // 200,000 files of a 100 KB directory: joined, 20 GB; as read, views.
  std::vector<std::pair<std::string, uint64_t>> many(200000, {"f", 1});
  const Built b = build(4, "/src", header4(4, {std::string(100000, 'd')}, many));
  const std::vector<FileName> files = decl_files(b.dw->units().at(0), b.dw->line_section());
  ASSERT_EQ(files.size(), 200001u);
  EXPECT_EQ(files[200000].dir.size(), 100000u);
  EXPECT_EQ(files[200000].name, "f");
}

TEST(LineFiles, ADirectoryPastTheTableNamesNoFileAtAll) {
  // elfutils refuses the whole table: every decl_file is then unknown.
  EXPECT_EQ(files_of(build(4, "/src", header4(4, {"inc"}, {{"a.c", 0}, {"h.h", 7}}))), Files{});
}

TEST(LineFiles, BadHeadersAreErrorsNamingTheOffset) {
  ByteWriter v6 = header4(4, {}, {{"a.c", 0}});
  std::vector<uint8_t> bytes = v6.data();
  bytes[4] = 6;  // the version
  ByteWriter bad_version;
  bad_version.raw(bytes);
  EXPECT_EQ(error_of(build(4, "/src", bad_version)), ".debug_line+0x4: unsupported line table version 6");

  // The unit length runs past the section.
  ByteWriter long_unit;
  long_unit.u32(1000).u16(4);
  EXPECT_EQ(error_of(build(4, "/src", long_unit)),
            ".debug_line+0x4: length 1000 runs past the end of the section");

  // The second file name has no NUL before the header ends.
  ByteWriter body;
  body.u8(1).u8(1).u8(1).u8(0xfb).u8(14).u8(1).u8(0).str("a.c").uleb(0).uleb(0).uleb(0).u8('b');
  ByteWriter unterminated;
  unterminated.u32(static_cast<uint32_t>(2 + 4 + body.size())).u16(4).u32(static_cast<uint32_t>(body.size()));
  unterminated.raw(body.data());
  EXPECT_EQ(error_of(build(4, "/src", unterminated)), ".debug_line+0x18: string is not NUL-terminated");

  // DWARF 5: a count of entries that cannot fit, and a form no entry may have.
  ByteWriter huge;
  huge.u8(1).u8(1).u8(1).u8(0xfb).u8(14).u8(1);
  huge.u8(1).uleb(1).uleb(DW_FORM_string).uleb(uint64_t{1} << 60);
  ByteWriter huge_line;
  huge_line.u32(static_cast<uint32_t>(8 + huge.size())).u16(5).u8(8).u8(0).u32(static_cast<uint32_t>(huge.size()));
  huge_line.raw(huge.data());
  EXPECT_EQ(error_of(build(5, "", huge_line)),
            ".debug_line+0x15: 1152921504606846976 entries cannot fit in the 0 bytes left of the header");
  ByteWriter far;  // a path in .debug_line_str past its end
  far.u8(1).u8(1).u8(1).u8(0xfb).u8(14).u8(1);
  far.u8(1).uleb(1).uleb(DW_FORM_line_strp).uleb(1).u32(100);
  ByteWriter far_line;
  far_line.u32(static_cast<uint32_t>(8 + far.size())).u16(5).u8(8).u8(0).u32(static_cast<uint32_t>(far.size()));
  far_line.raw(far.data());
  ByteWriter short_str;
  short_str.str("abc");
  EXPECT_EQ(error_of(build(5, "", far_line, short_str)),
            ".debug_line+0x16: string offset 0x64 is past the end of .debug_line_str (size 0x4)");
  ByteWriter addr_form;
  addr_form.u8(1).u8(1).u8(1).u8(0xfb).u8(14).u8(1);
  addr_form.u8(1).uleb(1).uleb(DW_FORM_addr).uleb(1).u64(0);
  ByteWriter addr_line;
  addr_line.u32(static_cast<uint32_t>(8 + addr_form.size())).u16(5).u8(8).u8(0).u32(static_cast<uint32_t>(addr_form.size()));
  addr_line.raw(addr_form.data());
  EXPECT_EQ(error_of(build(5, "", addr_line)),
            ".debug_line+0x16: unsupported form 0x1 in a line table entry format");
}

}  // namespace
}  // namespace btfc::test
