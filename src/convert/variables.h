// Variables: VAR per global variable DIE in an included ELF section and one
// DATASEC per such section, as pahole 1.31 does (docs/pahole-rules.md,
// section 4).
//
//   convert::VariableIndex vars(elf, vopts);                 // once per ELF
//   // per unit, after its types (and functions) were collected; adds the
//   // VARs (and their DECL_TAGs) to the unit's own table, like pahole,
//   // which emits them right after the unit's types:
//   convert::collect_variables(dwarf, unit, vars, types, vopts, result.vars);
//   // after the merge (result.vars.remap_type_ids(...)) and the functions:
//   convert::emit_variables(vars, unit_vars_in_unit_order, all);
//
// Which section a variable lives in: the lowest-index PROGBITS/NOBITS
// section whose address range holds its DW_OP_addr. In a relocatable file
// (.ko) every section sits at address 0, so the address is resolved through
// the relocation applied to the DW_OP_addr operand instead: its symbol's
// section is the variable's section and the relocated value the offset in
// it (ElfFile::relocation_section), which is what libdwfl's layout gives
// pahole.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "btf/btf.h"
#include "convert/functions.h"
#include "dwarf/dwarf_file.h"
#include "elf/elf_file.h"

namespace btfc::convert {

struct VariableOptions {
  bool percpu = true;         // feature `var`: variables of .data..percpu
  bool global_var = false;    // feature `global_var`: every PROGBITS/NOBITS section
  bool encode_force = false;  // invalid names / void types are skipped instead of fatal
  bool decl_tag = true;       // DECL_TAGs of variables
};

class VariableIndex {
 public:
  VariableIndex(const elf::ElfFile& elf, const VariableOptions& options);

  // Nothing to do: no section included, or no symbol table.
  bool empty() const { return !any_included_; }
  const elf::ElfFile& elf() const { return *elf_; }
  // The section (index) a variable at `addr` lives in for ET_EXEC/ET_DYN
  // files: the first allocated PROGBITS or NOBITS section holding it; or 0.
  uint32_t section_of(uint64_t addr) const;
  bool included(uint32_t shndx) const { return shndx < included_.size() && included_[shndx]; }
  // .symtab has an STT_OBJECT symbol `name` in section `shndx`.
  bool has_object_symbol(std::string_view name, uint32_t shndx) const;

 private:
  const elf::ElfFile* elf_;
  std::vector<bool> included_;
  bool any_included_ = false;
  std::vector<std::pair<uint32_t, std::string_view>> objects_;  // (shndx, name), sorted
};

// A variable of a section, for its DATASEC.
struct SecVar {
  uint32_t shndx;
  btf::TypeId var;  // the VAR
  uint32_t offset, size;
};

struct UnitVariables {
  std::vector<SecVar> vars;  // in DIE order

  template <typename Fn>
  void remap_type_ids(Fn&& fn) {
    for (SecVar& v : vars) v.var = fn(v.var);
  }
};

// Adds a VAR (linkage global-allocated for external variables, static
// otherwise) and its DECL_TAGs to types.table() for every eligible
// variable of the unit, in DIE order, and records it in `out`. Throws
// btfc::Error for an invalid name or a void type unless encode_force.
void collect_variables(const dwarf::DwarfFile& dw, const dwarf::Unit& unit, const VariableIndex& index,
                       TypeLookup& types, const VariableOptions& options, UnitVariables& out);
// The same, given the unit-level DW_TAG_variable DIEs in DIE order (what
// UnitTypes::variables() kept), instead of walking the unit for them.
void collect_variables(const dwarf::DwarfFile& dw, const dwarf::Unit& unit, std::span<const dwarf::Die> variables,
                       const VariableIndex& index, TypeLookup& types, const VariableOptions& options,
                       UnitVariables& out);

// One DATASEC per section with variables, in section index order: entries
// sorted by offset, size = end of the last one.
void emit_variables(const VariableIndex& index, std::span<const UnitVariables* const> units, btf::Btf& out);

}  // namespace btfc::convert
