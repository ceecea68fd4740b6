// VAR + DATASEC (pahole-rules.md section 4). OWNED BY THE `funcs` HELPER:
// this is the encoder's placeholder so the pipeline builds; `funcs`
// replaces the file as a whole (and may change these signatures, updating
// the call sites in encode.cc marked "funcs:").
#pragma once

#include <span>
#include <vector>

#include "btf/btf.h"
#include "convert/functions.h"
#include "convert/options.h"
#include "convert/unit_types.h"
#include "elf/elf_file.h"

namespace btfc::convert {

// The ELF sections and symbols variables are placed by (4.1), built once.
class VariableIndex {
 public:
  static VariableIndex build(const elf::ElfFile&, const EncodeOptions&) { return {}; }
};

// One VAR added to its unit's table (pahole emits a unit's VARs right after
// its types), with what its DATASEC entry needs; ids local to the unit.
struct VarCandidate {};

// Per unit, after collect_functions: may add VAR (+ DECL_TAG) records to
// types.btf() and returns their DATASEC entries.
inline void collect_variables(const UnitContext&, const VariableIndex&, UnitTypes&, std::vector<VarCandidate>&) {}

// After emit_functions: one DATASEC per section with variables, in section
// index order.
inline void emit_variables(const VariableIndex&, std::vector<std::vector<VarCandidate>>&, std::span<const UnitIds>,
                           btf::Btf&, const EncodeOptions&) {}

}  // namespace btfc::convert
