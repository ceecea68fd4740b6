// Functions: which DWARF subprograms become BTF FUNC + FUNC_PROTO, as pahole
// 1.31 decides (spec: docs/pahole-rules.md, section 3).
//
//   convert::FunctionIndex index(elf, {.kfuncs = opts.decl_tag_kfuncs});   // once per ELF
//   // per unit, in parallel, after the unit's types were converted:
//   convert::collect_functions(dwarf, unit, index, types, opts, result.funcs);
//   // after the units' tables were appended into `all` (ids remapped with
//   // result.funcs.remap_type_ids(...)):
//   convert::emit_functions(index, unit_funcs_in_unit_order, opts, all);
//
// Three steps, because pahole's choice is global: a name is one ELF
// function (symbols with `.isra.0`-style suffixes cut off), every unit may
// hold a candidate DIE for it (an out-of-line copy, an inline abstract
// instance), and the first candidate in unit/DIE order wins, unless the
// candidates disagree and consistent_func drops the name altogether.
// Candidates are saved compactly per unit (parameters in one vector per
// unit, names as string_views into the mapped DWARF, which outlives them)
// and compared only once all units are merged, on the merged table.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <deque>
#include <string>
#include <vector>

#include "btf/btf.h"
#include "dwarf/dwarf_file.h"
#include "elf/elf_file.h"

namespace btfc::convert {

// ---- The ELF function table --------------------------------------------

// STT_FUNC symbols grouped by name up to the first '.' (".cold" and ".part"
// copies left out), sorted by that name in strcmp order; built once.
class FunctionIndex {
 public:
  struct Options {
    bool kfuncs = false;  // read .BTF_ids kfunc sets (decl_tag_kfuncs)
    // The file whose .BTF_ids and symbols give them, if not the one
    // indexed: a stripped file, indexed through its debug file.
    const elf::ElfFile* btf_ids_file = nullptr;
  };
  static constexpr uint32_t kNone = UINT32_MAX;

  FunctionIndex() = default;
  explicit FunctionIndex(const elf::ElfFile& elf) : FunctionIndex(elf, Options{}) {}
  FunctionIndex(const elf::ElfFile& elf, Options options);

  // Number of distinct names (entries); 0 when the file has no STT_FUNC.
  uint32_t size() const { return static_cast<uint32_t>(names_.size()); }
  bool empty() const { return names_.empty(); }
  // Entry of `name`, or kNone. Entries are numbered in strcmp order.
  uint32_t find(std::string_view name) const;
  std::string_view name(uint32_t entry) const { return names_[entry]; }
  // Its symbols have more than one distinct address (pahole's rule).
  bool ambiguous_addr(uint32_t entry) const { return flags_[entry] & kAmbiguous; }
  bool is_kfunc(uint32_t entry) const { return flags_[entry] & kKfunc; }
  uint32_t kfunc_flags(uint32_t entry) const;

  // The DWARF sections it reads besides the symbol table: the location
  // lists (loc_sections), each .debug_X standing for .zdebug_X too.
  static constexpr std::string_view kLocLists = ".debug_loclists", kLoc = ".debug_loc";
  static constexpr std::string_view kSectionNames[] = {kLocLists, kLoc};

  // What the parameter analysis needs from the file: e_machine (register
  // conventions), address size, and the location list sections.
  struct LocSections {
    Bytes loclists, loc;  // .debug_loclists, .debug_loc (empty if absent)
  };
  uint16_t machine() const { return machine_; }
  uint8_t address_size() const { return address_size_; }
  const LocSections& loc_sections() const { return loc_; }

 private:
  static constexpr uint8_t kAmbiguous = 1, kKfunc = 2;
  void read_kfuncs(const elf::ElfFile& elf);

  std::vector<std::string_view> names_;  // into the mapped .strtab
  std::vector<uint8_t> flags_;
  // Hash table of entries: the entry in the low half, the top half of the
  // name's hash in the high half (kNoSlot = empty), so that a probe that
  // meets another name is told apart without reading it (two cache misses:
  // names_, then .strtab).
  std::vector<uint64_t> slots_;
  static constexpr uint64_t kNoSlot = UINT64_MAX;
  std::vector<std::pair<uint32_t, uint32_t>> kfunc_flags_;  // (entry, set8 pair flags), sorted
  uint16_t machine_ = 0;
  uint8_t address_size_ = 8;
  LocSections loc_;
};

// ---- Candidates, per unit ----------------------------------------------

// How the collectors reach the unit's converted types (UnitTypes implements
// it): the BTF id of a type DIE of this unit's table, converting it if the
// type walk has not, and the table itself (for sizes and kinds).
class TypeLookup {
 public:
  virtual ~TypeLookup() = default;
  virtual btf::TypeId type_id(uint64_t die_offset) = 0;  // 0: void
  virtual btf::Btf& table() = 0;
};

struct FuncParam {
  std::string_view name;  // "" for the `...` slot
  btf::TypeId type;       // 0 for the `...` slot
};

struct FuncTag {             // btf_decl_tag of the function (-1) or a parameter
  std::string_view value;
  int32_t component_idx;
};

struct FuncCandidate {
  uint32_t entry;            // FunctionIndex entry
  btf::TypeId ret;
  uint32_t first_param;      // into UnitFunctions::params
  uint16_t nr_params;        // including the trailing `...` slot
  uint8_t flags;             // kUnexpectedReg | kUncertainParmLoc | kOptimizedParms
  uint32_t first_tag;        // into UnitFunctions::tags
  uint16_t nr_tags;
  uint64_t die_offset;       // for messages and tests
};
inline constexpr uint8_t kUnexpectedReg = 1, kUncertainParmLoc = 2, kOptimizedParms = 4;

struct UnitFunctions {
  std::vector<FuncCandidate> funcs;  // in DIE order
  std::vector<FuncParam> params;
  std::vector<FuncTag> tags;
  // Copies of parameter names and tag values that are not in .debug_str
  // (DW_FORM_string ones live in .debug_info, whose pages the encoder
  // releases, or whose buffer it reuses, once the unit is converted; they
  // are read again when FUNCs are emitted).
  std::deque<std::string> owned_names;

  // Rewrites every non-void type id, e.g. local -> merged:
  //   remap_type_ids([&](btf::TypeId id) { return id + delta; });
  template <typename Fn>
  void remap_type_ids(Fn&& fn) {
    for (FuncCandidate& f : funcs)
      if (f.ret) f.ret = fn(f.ret);
    for (FuncParam& p : params)
      if (p.type) p.type = fn(p.type);
  }
};

struct FunctionOptions {
  bool consistent_func = false;  // --skip_encoding_btf_inconsistent_proto / feature consistent_func
  bool decl_tag = true;          // DECL_TAGs of functions and parameters
  bool decl_tag_kfuncs = false;  // "bpf_kfunc" / "bpf_fastcall" tags from .BTF_ids
  bool attributes = false;       // kfunc arena TYPE_TAG attributes
};

// Saves the candidates of one unit (CU-level DW_TAG_subprogram DIEs) in
// DIE order. `types` gives the unit's local type ids.
void collect_functions(const dwarf::DwarfFile& dw, const dwarf::Unit& unit, const FunctionIndex& index,
                       TypeLookup& types, const FunctionOptions& options, UnitFunctions& out);
// The same, given the unit-level DW_TAG_subprogram DIEs in DIE order (what
// UnitTypes::subprograms() kept), instead of walking the unit for them.
void collect_functions(const dwarf::DwarfFile& dw, const dwarf::Unit& unit, std::span<const dwarf::Die> subprograms,
                       const FunctionIndex& index, TypeLookup& types, const FunctionOptions& options,
                       UnitFunctions& out);

// What emit_functions did, for --stats and tests.
struct FunctionStats {
  uint32_t candidates = 0;     // saved states
  uint32_t names = 0;          // distinct names with a candidate
  uint32_t emitted = 0;        // FUNCs added
  uint32_t inconsistent = 0;   // names with disagreeing candidates
  uint32_t unexpected_reg = 0, uncertain_parm_loc = 0, ambiguous_addr = 0;  // names flagged so
};

// Picks one candidate per name and appends FUNC_PROTO + FUNC (+ DECL_TAGs)
// to `out` in strcmp order of the name. `units` are in unit order, their
// type ids already those of `out`.
FunctionStats emit_functions(const FunctionIndex& index, std::span<const UnitFunctions* const> units,
                             const FunctionOptions& options, btf::Btf& out);

// The parameters passed in registers by e_machine, as the DW_OP_regN opcode
// pahole expects for each (0: any register); empty when pahole does not
// analyse that architecture.
std::span<const uint8_t> register_params(uint16_t machine);

// Size in bytes of a type of `t` as pahole's tag__size computes it (through
// typedefs and qualifiers, arrays times their element, pointers the address
// size); 0 for void, functions and declarations.
uint64_t type_size(const btf::Btf& t, btf::TypeId id, uint8_t address_size);

}  // namespace btfc::convert
