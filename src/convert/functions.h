// FUNC + FUNC_PROTO (pahole-rules.md section 3). OWNED BY THE `funcs`
// HELPER: this is the encoder's placeholder so the pipeline builds; `funcs`
// replaces the file as a whole (and may change these signatures, updating
// the call sites in encode.cc marked "funcs:").
#pragma once

#include <span>
#include <vector>

#include "btf/btf.h"
#include "convert/options.h"
#include "convert/unit_types.h"
#include "elf/elf_file.h"

namespace btfc::convert {

// How a unit's local type ids become ids of the merged table.
struct UnitIds {
  btf::TypeId first = 1;  // merged id of the unit's local id 1
  btf::TypeId map(btf::TypeId local) const { return local ? first + local - 1 : 0; }
};

// The ELF function table (3.1), built once per input.
class FunctionIndex {
 public:
  static FunctionIndex build(const elf::ElfFile&, const EncodeOptions&) { return {}; }
};

// One saved function state (3.2); type ids are local to its unit.
struct FuncCandidate {};

// Per unit, after its types (may call types.type_id()).
inline void collect_functions(const UnitContext&, const FunctionIndex&, UnitTypes&, std::vector<FuncCandidate>&) {}

// After all units are merged into `out`: picks and emits FUNC_PROTO + FUNC
// in name order. per_unit[i] are unit i's candidates, ids[i] its id map.
inline void emit_functions(const FunctionIndex&, std::vector<std::vector<FuncCandidate>>&, std::span<const UnitIds>,
                           btf::Btf&, const EncodeOptions&) {}

}  // namespace btfc::convert
