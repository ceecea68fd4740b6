// The source files a unit's DW_AT_decl_file values name: the file table of
// its line program header (.debug_line at the unit's DW_AT_stmt_list),
// each name spelled as elfutils' dwarf_decl_file() gives it, which is what
// pahole -I prints and pahole -D compares:
//
//   - a name that starts with '/' as it is; any other joined to its
//     directory with '/', or alone when that directory is unknown;
//   - DWARF 5: the directories and files as the header lists them (file 0
//     is the unit's primary file, directory 0 its compilation directory);
//   - DWARF 2-4: directory 0 is the unit's DW_AT_comp_dir (unknown when
//     it has none), the header's directories follow as written (a relative
//     one is not joined to the compilation directory), and files count
//     from 1 (file 0 is elfutils' placeholder "???");
//   - decl_file 0 names no file, in every version, nor does an index past
//     the table, nor any index of a unit whose header names a directory it
//     does not have.
//
//   Bytes line = dw.line_section();            // once, before going parallel
//   std::vector<dwarf::FileName> files = dwarf::decl_files(unit, line);
//   if (decl_file < files.size() && !files[decl_file].empty()) print(files[decl_file].path());
//
// Only the header is read, not the line program, and names are joined
// only when asked for (a hostile table can name a long directory for
// each of many files). Bad input throws btfc::Error naming .debug_line
// (or the string section) and the offset.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dwarf/dwarf_file.h"

namespace btfc::dwarf {

// A file of the table: `name` in directory `dir` (a null view: the name
// stands alone), both pointing into the file's sections.
struct FileName {
  std::string_view dir, name;
  bool empty() const { return name.empty(); }
  std::string path() const;
  bool path_starts_with(std::string_view prefix) const;
};

// Index = a DW_AT_decl_file value; an empty FileName where no file is
// named. A unit without DW_AT_stmt_list (or a file without .debug_line)
// has none.
std::vector<FileName> decl_files(const Unit& unit, Bytes debug_line);

}  // namespace btfc::dwarf
