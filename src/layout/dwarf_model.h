// Builds the layout model of one DWARF unit, as pahole's DWARF loader does:
// every type DIE of the unit (at any depth: in structs, functions, lexical
// blocks) becomes a table entry; structs, unions and enums get their
// members; CU-level types are marked top_level.
#pragma once

#include "dwarf/dwarf_file.h"
#include "layout/model.h"

namespace btfc::layout {

void build_dwarf_table(const dwarf::DwarfFile& dw, const dwarf::Unit& unit, bool little_endian, Table& out);

}  // namespace btfc::layout
