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
//   std::vector<std::string> files = dwarf::decl_files(unit, line);
//   std::string_view file = decl_file < files.size() ? files[decl_file] : "";  // "" = none
//
// Only the header is read, not the line program. Bad input throws
// btfc::Error naming .debug_line (or the string section) and the offset.
#pragma once

#include <string>
#include <vector>

#include "dwarf/dwarf_file.h"

namespace btfc::dwarf {

// Index = a DW_AT_decl_file value; an empty string where no file is named.
// A unit without DW_AT_stmt_list (or a file without .debug_line) has none.
std::vector<std::string> decl_files(const Unit& unit, Bytes debug_line);

}  // namespace btfc::dwarf
