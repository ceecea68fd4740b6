// Builds the layout model of one DWARF unit, as pahole's DWARF loader does:
// every type DIE of the unit (at any depth: in structs, functions, lexical
// blocks) becomes a table entry; structs, unions and enums get their
// members; CU-level types are marked top_level. With `debug_line` (the
// file's .debug_line, for pahole -I and -D) each type also gets where it
// is declared: the unit's file names (dwarf/line_files.h), its decl_file
// and decl_line, and its DIE's offset.
#pragma once

#include "dwarf/dwarf_file.h"
#include "layout/model.h"

namespace btfc::layout {

// With `function_params` (pahole -m) Table::function_params too: of each
// subprogram, its parameters' types (an out-of-line instance's, its
// abstract origin's).
void build_dwarf_table(const dwarf::DwarfFile& dw, const dwarf::Unit& unit, bool little_endian, Table& out,
                       const Bytes* debug_line = nullptr, bool function_params = false);

}  // namespace btfc::layout
