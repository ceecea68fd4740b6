// Variables and DATASECs (pahole 1.31's btf_encoder__encode_cu_variables and
// btf_encoder__add_datasec; docs/pahole-rules.md section 4).
//
// The VARs are added to the unit's own table while the unit is converted
// (in parallel, as pahole adds them right after the unit's types), so only
// the DATASECs wait for all units. A variable's section comes from its
// address (executables) or from the relocation of its DW_OP_addr operand
// (relocatable modules), see variables.h.
#include "convert/variables.h"

#include <algorithm>
#include <string>

#include "base/error.h"
#include "dwarf/constants.h"

namespace btfc::convert {

using namespace btfc::dwarf;

namespace {

constexpr uint8_t DW_OP_addr = 0x03, DW_OP_addrx = 0xa1, DW_OP_GNU_addr_index = 0xfb;

// pahole's btf_name_valid: [A-Za-z_.][A-Za-z0-9_.]*, at most 128 chars.
bool name_valid(std::string_view s) {
  if (s.empty() || s.size() > 128) return false;
  for (size_t i = 0; i < s.size(); i++) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    bool ok = c == '_' || c == '.' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (i && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

bool filtered_name(std::string_view name) {
  static constexpr std::string_view kSkip[] = {"__UNIQUE_ID", "__tpstrtab_", "__exitcall_", "__gendwarfksyms_ptr_",
                                               "__func_stack_frame_non_standard_"};
  if (name.empty() || name[0] != '_') return false;
  for (std::string_view p : kSkip)
    if (name.starts_with(p)) return true;
  return false;
}

}  // namespace

VariableIndex::VariableIndex(const elf::ElfFile& elf, const VariableOptions& options) : elf_(&elf) {
  const auto& sections = elf.sections();
  included_.assign(sections.size(), false);
  bool has_symtab = !elf.symbols().empty();
  for (const elf::Section& s : sections) {
    bool inc = options.global_var || (options.percpu && s.name == ".data..percpu");
    included_[s.index] = inc && s.index != 0;
    any_included_ |= included_[s.index];
  }
  if (!has_symtab) any_included_ = false;
  if (!any_included_) return;
  // Looked up in the included sections only (vmlinux's 130k symbols hold
  // a few thousand per-cpu objects: the sort was most of this index).
  for (const elf::Symbol& sym : elf.symbols())
    if (sym.type == elf::STT_OBJECT && !sym.name.empty() && included(sym.shndx))
      objects_.push_back({sym.shndx, sym.name});
  std::sort(objects_.begin(), objects_.end());
}

uint32_t VariableIndex::section_of(uint64_t addr) const {
  for (const elf::Section& s : elf_->sections()) {
    if (s.index == 0 || (s.type != elf::SHT_PROGBITS && s.type != elf::SHT_NOBITS)) continue;
    if (!(s.flags & elf::SHF_ALLOC)) continue;  // not loaded: its addresses mean nothing (.debug_*: 0)
    if (s.addr <= addr && addr - s.addr < s.size) return s.index;
  }
  return 0;
}

bool VariableIndex::has_object_symbol(std::string_view name, uint32_t shndx) const {
  return std::binary_search(objects_.begin(), objects_.end(), std::pair<uint32_t, std::string_view>{shndx, name});
}

namespace {

// Both collect_variables: over `variables` when given, else over the
// unit-level variables a walk of the unit finds.
void collect(const DwarfFile& dw, const Unit& unit, const std::span<const Die>* variables,
             const VariableIndex& index, TypeLookup& types, const VariableOptions& options, UnitVariables& out) {
  if (index.empty()) return;
  const elf::ElfFile& elf = index.elf();
  const bool relocatable = elf.type() == elf::ET_REL;
  // One unit-level variable; `skip_children` moves the walk past its
  // subtree (the walk over a list already found has nothing to skip).
  auto add = [&](const Die& die, auto&& skip_children) {
    // The name lazily: most variables are dropped before it is needed, and
    // reading it first was a cache miss each.
    Attrs a = dw.attrs(die, /*lazy_name=*/true);
    if ((a.declaration && !a.specification) || a.artificial || a.location.empty()) {
      skip_children();
      return;
    }
    // The first op must be an address (pahole's VSCOPE_GLOBAL).
    const uint8_t op = a.location[0];
    uint64_t addr = 0;
    uint32_t shndx = 0;
    {
      Reader r(a.location, unit.section_name(), unit.sections->big_endian);
      r.u8();
      // Sections sit at address 0 in a relocatable file: the relocation
      // applied to the address names the section, and the relocated value
      // is the offset in it.
      if (op == DW_OP_addr) {
        const uint8_t* operand = a.location.data() + 1;
        addr = r.uint(unit.address_size);
        if (relocatable) shndx = dw.relocation_section(unit, operand);
      } else if (op == DW_OP_addrx || op == DW_OP_GNU_addr_index) {
        uint64_t idx = r.uleb128();
        addr = dw.address_at(unit, idx, die.section_offset());
        if (relocatable) {
          const elf::Section* where = elf.find_section(".debug_addr");
          shndx = where ? elf.relocation_section(*where, unit.addr_base + idx * unit.address_size) : 0;
        }
      } else {
        skip_children();
        return;
      }
      if (relocatable) {
        if (shndx >= elf.sections().size()) shndx = 0;
        if (shndx) {
          const elf::Section& s = elf.sections()[shndx];
          if ((s.type != elf::SHT_PROGBITS && s.type != elf::SHT_NOBITS) || addr >= s.size) shndx = 0;
        }
      } else {
        shndx = index.section_of(addr);
        if (shndx) addr -= elf.sections()[shndx].addr;
      }
    }
    if (!shndx || !index.included(shndx)) {
      skip_children();
      return;
    }
    // Name, type, linkage and tags come from the declaration a definition
    // points to with DW_AT_specification (GCC puts DW_AT_external there).
    Die decl = die;
    if (a.specification) {
      decl = dw.die_at(*a.specification);
      a = dw.attrs(decl, /*lazy_name=*/true);
    }
    skip_children();
    const std::string_view name = a.name_pooled ? std::string_view(a.name_pooled) : a.name;
    if (name.empty() || filtered_name(name)) return;
    if (addr == 0 && !index.has_object_symbol(name, shndx)) return;
    if (!name_valid(name)) {
      if (options.encode_force) return;
      throw Error(std::string(unit.section_name()), die.section_offset(),
                  "invalid variable name '" + std::string(name) + "' (use --btf_encode_force to skip such symbols)");
    }
    const btf::TypeId type = a.type ? types.type_id(*a.type) : 0;
    if (type == 0) {
      if (options.encode_force) return;
      throw Error(std::string(unit.section_name()), die.section_offset(),
                  "variable '" + std::string(name) + "' in CU '" + std::string(unit.name) + "' has void type");
    }
    btf::Btf& table = types.table();
    const uint64_t size = type_size(table, type, unit.address_size);
    if (size == 0 || size > UINT32_MAX || addr > UINT32_MAX) return;
    const btf::TypeId var =
        table.add_var(name, type, a.external ? btf::VarLinkage::GlobalAllocated : btf::VarLinkage::Static);
    if (options.decl_tag && decl.has_children) {
      DieCursor kids(decl);
      Die kid;
      kids.next(kid);
      while (kids.next(kid)) {
        if (kids.depth() != 1) continue;
        // clang's annotations only, as pahole 1.31 (not GCC's
        // DW_TAG_GNU_annotation).
        if (kid.tag != DW_TAG_LLVM_annotation) {
          kids.skip_children();
          continue;
        }
        Attrs t = dw.attrs(kid);
        if (t.name == "btf_decl_tag" && t.const_value.kind == Value::kString)
          table.add_decl_tag(t.const_value.str(), var, -1);
      }
    }
    out.vars.push_back({shndx, var, static_cast<uint32_t>(addr), static_cast<uint32_t>(size)});
  };
  if (variables) {
    for (const Die& die : *variables) add(die, [] {});
    return;
  }
  DieCursor cursor(unit);
  Die die;
  while (cursor.next(die)) {
    if (cursor.depth() == 0) continue;
    if (die.tag != DW_TAG_variable) {
      cursor.skip_children();
      continue;
    }
    add(die, [&] { cursor.skip_children(); });
  }
}

}  // namespace

void collect_variables(const DwarfFile& dw, const Unit& unit, const VariableIndex& index, TypeLookup& types,
                       const VariableOptions& options, UnitVariables& out) {
  collect(dw, unit, nullptr, index, types, options, out);
}

void collect_variables(const DwarfFile& dw, const Unit& unit, std::span<const Die> variables,
                       const VariableIndex& index, TypeLookup& types, const VariableOptions& options,
                       UnitVariables& out) {
  collect(dw, unit, &variables, index, types, options, out);
}

void emit_variables(const VariableIndex& index, std::span<const UnitVariables* const> units, btf::Btf& out) {
  const auto& sections = index.elf().sections();
  std::vector<std::vector<SecVar>> by_section(sections.size());
  for (const UnitVariables* u : units)
    for (const SecVar& v : u->vars) by_section[v.shndx].push_back(v);
  for (size_t shndx = 1; shndx < by_section.size(); shndx++) {
    std::vector<SecVar>& vars = by_section[shndx];
    if (vars.empty()) continue;
    // glibc's qsort is a merge sort in practice: equal offsets keep unit order.
    std::stable_sort(vars.begin(), vars.end(), [](const SecVar& a, const SecVar& b) { return a.offset < b.offset; });
    out.add_datasec(sections[shndx].name, vars.back().offset + vars.back().size);
    for (const SecVar& v : vars) out.add_datasec_var(v.var, v.offset, v.size);
  }
}

}  // namespace btfc::convert
