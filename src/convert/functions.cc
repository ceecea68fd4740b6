// Functions: the ELF function table, per-unit candidates from
// DW_TAG_subprogram DIEs, and the final choice of FUNCs (pahole 1.31's rules,
// docs/pahole-rules.md section 3).
//
// Why this shape: the ELF table is one sorted vector of names (binary search,
// entries numbered in strcmp order so that sorting candidates by entry is
// sorting them by name). Collection runs per unit in parallel and reads only
// that unit's DIEs (abstract origins live in the same unit for GCC; a
// cross-unit origin is read through die_at like any other DIE). The choice
// needs every unit, so it runs once, after the merge, with a counting sort
// by entry that keeps unit and DIE order inside a name.
#include "convert/functions.h"

#include <algorithm>

#include "base/endian.h"
#include "base/error.h"
#include "base/parallel.h"
#include "dwarf/constants.h"

namespace btfc::convert {

using namespace btfc::dwarf;

namespace {

constexpr uint8_t DW_OP_reg0 = 0x50, DW_OP_reg31 = 0x6f, DW_OP_stack_value = 0x9f, DW_OP_entry_value = 0xa3,
                  DW_OP_GNU_entry_value = 0xf3;
constexpr uint16_t EM_SPARC = 2, EM_MIPS = 8, EM_PPC = 20, EM_PPC64 = 21, EM_S390 = 22, EM_ARM = 40,
                   EM_SPARCV9 = 43, EM_X86_64 = 62, EM_AARCH64 = 183, EM_ARC_COMPACT = 93, EM_RISCV = 243;

// `s` has ".cold" or ".part" somewhere after its first '.'.
bool has_non_function_suffix(std::string_view s) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos) return false;
  std::string_view suffix = s.substr(dot);
  return suffix.find(".cold") != std::string_view::npos || suffix.find(".part") != std::string_view::npos;
}

// The first 8 bytes of a name as a big-endian number, zero-padded (names
// have no NUL): two names' prefixes compare as the names' first 8 bytes do
// in strcmp order, so a sort by name reads most names' bytes only once.
uint64_t name_prefix(std::string_view s) {
  uint64_t k = 0;
  for (size_t i = 0; i < 8; ++i) k = k << 8 | (i < s.size() ? static_cast<uint8_t>(s[i]) : 0u);
  return k;
}

}  // namespace

// ---- FunctionIndex -------------------------------------------------------

FunctionIndex::FunctionIndex(const elf::ElfFile& elf, Options options) {
  struct Sym {
    std::string_view base;
    uint64_t value;
    uint64_t prefix;  // name_prefix(base)
  };
  std::vector<Sym> syms;
  for (const elf::Symbol& s : elf.symbols()) {
    if (s.type != elf::STT_FUNC || s.name.empty() || has_non_function_suffix(s.name)) continue;
    const std::string_view base = s.name.substr(0, s.name.find('.'));
    syms.push_back({base, s.value, name_prefix(base)});
  }
  // Stable, as glibc's qsort (a merge sort) is in practice: the symbols of
  // one name stay in symbol table order, which the address rule below sees.
  // By prefix first: a comparison of the names themselves reads both from
  // .strtab, cache misses mostly (vmlinux's 46k names: 9-13 -> 5-7 ms).
  std::stable_sort(syms.begin(), syms.end(), [](const Sym& a, const Sym& b) {
    return a.prefix != b.prefix ? a.prefix < b.prefix : a.base < b.base;
  });
  for (size_t i = 0; i < syms.size();) {
    size_t j = i;
    // pahole's ambiguity test: a symbol at address 0 does not count as a
    // first address (so a module function at section offset 0 followed by
    // another address is not ambiguous, but the reverse order is).
    uint64_t addr = 0;
    bool ambiguous = false;
    for (; j < syms.size() && syms[j].base == syms[i].base; j++) {
      if (addr && addr != syms[j].value) ambiguous = true;
      else addr = syms[j].value;
    }
    // pahole decides ambiguity when it meets the next name, so the last
    // name is never marked (measured: ext4.ko's zero_user_segments, three
    // addresses, is kept by consistent_func).
    if (j == syms.size()) ambiguous = false;
    names_.push_back(syms[i].base);
    flags_.push_back(ambiguous ? kAmbiguous : 0);
    i = j;
  }
  // Every subprogram of every unit is looked up: an open-addressing table
  // of entry numbers (load <= 1/2) instead of a binary search over names.
  size_t cap = 16;
  while (cap < names_.size() * 2) cap *= 2;
  slots_.assign(names_.empty() ? 0 : cap, kNoSlot);
  for (uint32_t e = 0; e < names_.size(); e++) {
    const uint64_t h = btf::StringTable::hash(names_[e]);
    size_t i = h & (cap - 1);
    while (slots_[i] != kNoSlot) i = (i + 1) & (cap - 1);
    slots_[i] = (h & 0xffffffff00000000ull) | e;
  }
  if (options.kfuncs) read_kfuncs(options.btf_ids_file ? *options.btf_ids_file : elf);
  machine_ = elf.machine();
  address_size_ = elf.address_size();
  if (const elf::Section* sec = elf.find_section(kLocLists)) loc_.loclists = elf.section_data(*sec);
  if (const elf::Section* sec = elf.find_section(kLoc)) loc_.loc = elf.section_data(*sec);
}

uint32_t FunctionIndex::find(std::string_view name) const {
  if (slots_.empty()) return kNone;
  const size_t mask = slots_.size() - 1;
  const uint64_t h = btf::StringTable::hash(name);
  const uint64_t tag = h & 0xffffffff00000000ull;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const uint64_t slot = slots_[i];
    if (slot == kNoSlot) return kNone;
    const uint32_t e = static_cast<uint32_t>(slot);
    if ((slot & 0xffffffff00000000ull) == tag && names_[e] == name) return e;
  }
}

uint32_t FunctionIndex::kfunc_flags(uint32_t entry) const {
  auto it = std::lower_bound(kfunc_flags_.begin(), kfunc_flags_.end(), std::pair<uint32_t, uint32_t>{entry, 0});
  return it != kfunc_flags_.end() && it->first == entry ? it->second : 0;
}

// kfunc sets: `__BTF_ID__set8__*` symbols in .BTF_ids whose btf_id_set8
// header has BTF_SET8_KFUNCS in its flags; every `__BTF_ID__func__NAME__N`
// symbol inside such a set's range marks NAME, with its pair's flags.
void FunctionIndex::read_kfuncs(const elf::ElfFile& elf) {
  const elf::Section* ids = elf.find_section_exact(".BTF_ids");
  bool has_symtab = false;
  for (const elf::Section& s : elf.sections()) has_symtab |= s.type == elf::SHT_SYMTAB;
  if (!ids || !has_symtab || ids->type == elf::SHT_NOBITS) return;
  Bytes data = elf.raw_data(*ids);
  const bool be = elf.big_endian();
  constexpr std::string_view kSet8 = "__BTF_ID__set8__", kFunc = "__BTF_ID__func__";
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const elf::Symbol& s : elf.symbols()) {
    if (s.shndx != ids->index || !s.name.starts_with(kSet8)) continue;
    uint64_t off = s.value - ids->addr;
    if (off >= data.size() || data.size() - off < 8) continue;
    if (load<uint32_t>(data.data() + off + 4, be) & 1) ranges.push_back({s.value, s.value + s.size});
  }
  if (ranges.empty()) return;
  for (const elf::Symbol& s : elf.symbols()) {
    if (s.shndx != ids->index || !s.name.starts_with(kFunc)) continue;
    std::string_view rest = s.name.substr(kFunc.size());
    if (rest.find("__") == std::string_view::npos) continue;
    size_t end = rest.rfind('_');  // "name__N": cut the "__N"
    if (end == std::string_view::npos || end == 0 || rest[end - 1] != '_') continue;
    std::string_view name = rest.substr(0, end - 1);
    for (const auto& [start, stop] : ranges) {
      if (s.value < start || s.value >= stop) continue;
      uint64_t off = s.value - ids->addr;
      if (off >= data.size() || data.size() - off < 8)
        throw Error(".BTF_ids", off, "kfunc '" + std::string(name) + "' is outside the section").with_file(elf.path());
      uint32_t entry = find(name);
      if (entry != kNone) {
        flags_[entry] |= kKfunc;
        auto it = std::lower_bound(kfunc_flags_.begin(), kfunc_flags_.end(), std::pair<uint32_t, uint32_t>{entry, 0});
        uint32_t f = load<uint32_t>(data.data() + off + 4, be);
        if (it != kfunc_flags_.end() && it->first == entry) it->second = f;
        else kfunc_flags_.insert(it, {entry, f});
      }
      break;
    }
  }
}

// ---- Registers -----------------------------------------------------------

std::span<const uint8_t> register_params(uint16_t machine) {
  // Expected location of parameter i as a DW_OP_regN opcode; 0 means "any
  // register" (pahole has register numbers for x86-64, s390 and ARM/AArch64
  // only; for the others it only checks that a parameter is in a register).
  static constexpr uint8_t x86_64[] = {DW_OP_reg0 + 5, DW_OP_reg0 + 4, DW_OP_reg0 + 1,
                                       DW_OP_reg0 + 2, DW_OP_reg0 + 8, DW_OP_reg0 + 9};
  static constexpr uint8_t s390[] = {DW_OP_reg0 + 2, DW_OP_reg0 + 3, DW_OP_reg0 + 4, DW_OP_reg0 + 5,
                                     DW_OP_reg0 + 6};
  static constexpr uint8_t arm[] = {DW_OP_reg0,     DW_OP_reg0 + 1, DW_OP_reg0 + 2, DW_OP_reg0 + 3,
                                    DW_OP_reg0 + 4, DW_OP_reg0 + 5, DW_OP_reg0 + 6, DW_OP_reg0 + 7};
  static constexpr uint8_t any8[8] = {};
  switch (machine) {
    case EM_X86_64: return x86_64;
    case EM_S390: return s390;
    case EM_ARM: case EM_AARCH64: return arm;
    case EM_SPARC: case EM_SPARCV9: return {any8, 6};
    case EM_ARC_COMPACT: case EM_MIPS: case EM_PPC: case EM_PPC64: case EM_RISCV: return any8;
    default: return {};
  }
}

// ---- Location expressions ------------------------------------------------

namespace {

// Length of the operands of the DWARF expression op at r's cursor (the op
// byte already read); false for an op this reader does not know, which
// then counts as "not a single register".
bool skip_operands(Reader& r, uint8_t op, uint8_t addr_size, uint8_t offset_size) {
  switch (op) {
    case 0x03: r.skip(addr_size); return true;                      // addr
    case 0x08: case 0x09: case 0x15: case 0x94: case 0x95: r.skip(1); return true;
    case 0x0a: case 0x0b: case 0x28: case 0x2f: case 0x98: r.skip(2); return true;
    case 0x0c: case 0x0d: case 0x99: case 0xfa: r.skip(4); return true;
    case 0x0e: case 0x0f: r.skip(8); return true;
    case 0x10: case 0x23: case 0x90: case 0x93: case 0xa1: case 0xa2: case 0xa8: case 0xa9:
    case 0xf7: case 0xf9: case 0xfb: case 0xfc: r.uleb128(); return true;
    case 0x11: case 0x91: r.sleb128(); return true;
    case 0x92: case 0x9d: r.uleb128(); (op == 0x92 ? (void)r.sleb128() : (void)r.uleb128()); return true;
    case 0x9a: case 0xfd: r.skip(offset_size); return true;
    case 0x9e: case 0xa3: case 0xf3: r.skip(r.uleb128()); return true;  // implicit_value, entry_value
    case 0xa0: case 0xf2: r.skip(offset_size); r.sleb128(); return true;
    case 0xa4: case 0xf4: r.uleb128(); r.skip(r.u8()); return true;     // const_type
    case 0xa5: case 0xf5: r.uleb128(); r.uleb128(); return true;        // regval_type
    case 0xa6: case 0xa7: case 0xf6: r.skip(1); r.uleb128(); return true;
    default:
      if (op >= 0x70 && op <= 0x8f) { r.sleb128(); return true; }   // breg0..31
      if ((op >= 0x06 && op <= 0x07) || (op >= 0x12 && op <= 0x2e && op != 0x15 && op != 0x23 && op != 0x28) ||
          (op >= 0x30 && op <= 0x6f) || op == 0x96 || op == 0x97 || op == 0x9b || op == 0x9c || op == 0x9f ||
          op == 0xe0 || op == 0xf0)
        return true;
      return false;
  }
}

struct OneOp {
  uint8_t op = 0;
  Bytes sub;  // the sub-expression of entry_value
};

// The expression's only op (a trailing DW_OP_stack_value after other ops is
// dropped first), or nullopt when it has none or several.
std::optional<OneOp> single_op(Bytes expr, const Unit& unit) {
  Reader r(expr, "location expression", unit.sections->big_endian);
  OneOp first;
  unsigned count = 0;
  uint8_t last = 0;
  try {
    while (!r.empty()) {
      uint8_t op = r.u8();
      size_t start = r.pos();
      if (!skip_operands(r, op, unit.address_size, unit.offset_size)) return std::nullopt;
      if (count == 0) {
        first.op = op;
        if (op == DW_OP_entry_value || op == DW_OP_GNU_entry_value) {
          Reader s = Reader(expr.subspan(start), "location expression", unit.sections->big_endian);
          uint64_t len = s.uleb128();
          first.sub = expr.subspan(start + s.pos(), len);
        }
      }
      last = op;
      count++;
      if (count > 2) return std::nullopt;
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  if (count == 2 && last == DW_OP_stack_value) count = 1;
  if (count != 1) return std::nullopt;
  return first;
}

// pahole's parameter__reg: walks the location's expressions in order; a
// DW_OP_regN counts in the first one only, DW_OP_entry_value(one op) in any.
// Returns the op found (0x50.. for registers), or -1.
int param_reg(std::span<const Bytes> exprs, const Unit& unit, uint8_t expected) {
  int ret = -1;
  for (size_t n = 0; n < exprs.size(); n++) {
    std::optional<OneOp> one = single_op(exprs[n], unit);
    if (!one) continue;
    if (one->op >= DW_OP_reg0 && one->op <= DW_OP_reg31) {
      if (n != 0) continue;
      ret = one->op;
      if (ret == expected) return ret;
    } else if (one->op == DW_OP_entry_value || one->op == DW_OP_GNU_entry_value) {
      Reader s(one->sub, "location expression", unit.sections->big_endian);
      // entry_len == 1: the sub-expression is exactly one op.
      try {
        if (s.empty()) continue;
        uint8_t op = s.u8();
        if (!skip_operands(s, op, unit.address_size, unit.offset_size) || !s.empty()) continue;
        ret = op;
        if (ret == expected) return ret;
      } catch (const Error&) {
        continue;
      }
    }
  }
  return ret;
}

// The expressions of a location list, in order (bounded by the section);
// unreadable lists give none, as libdw gives pahole none.
void read_location_list(const FunctionIndex::LocSections& loc, const Unit& unit, uint64_t loclists_base,
                        uint64_t offset, bool is_index, std::vector<Bytes>& out) {
  out.clear();
  const bool be = unit.sections->big_endian;
  try {
    if (unit.version >= 5) {
      if (loc.loclists.empty()) return;
      Reader r(loc.loclists, ".debug_loclists", be);
      if (is_index) {
        r.seek(loclists_base + offset * unit.offset_size);
        offset = loclists_base + r.uint(unit.offset_size);
      }
      r.seek(offset);
      for (unsigned guard = 0; guard < 100000; guard++) {
        uint8_t kind = r.u8();
        switch (kind) {
          case 0x00: return;                                             // end_of_list
          case 0x01: r.uleb128(); continue;                              // base_addressx
          case 0x02: case 0x03: case 0x04: r.uleb128(); r.uleb128(); break;  // startx_endx, startx_length, offset_pair
          case 0x05: break;                                              // default_location
          case 0x06: r.skip(unit.address_size); continue;                // base_address
          case 0x07: r.skip(2 * unit.address_size); break;               // start_end
          case 0x08: r.skip(unit.address_size); r.uleb128(); break;      // start_length
          case 0x09: r.uleb128(); r.uleb128(); continue;                 // GNU_view_pair
          default: out.clear(); return;
        }
        uint64_t len = r.uleb128();
        out.push_back(r.bytes().subspan(r.pos(), std::min<uint64_t>(len, r.remaining())));
        r.skip(len);
      }
    } else {
      if (loc.loc.empty()) return;
      Reader r(loc.loc, ".debug_loc", be);
      r.seek(offset);
      const uint64_t all = unit.address_size == 8 ? ~uint64_t{0} : 0xffffffffu;
      for (unsigned guard = 0; guard < 100000; guard++) {
        uint64_t start = r.uint(unit.address_size), end = r.uint(unit.address_size);
        if (start == 0 && end == 0) return;
        if (start == all) continue;  // base address selection
        uint64_t len = r.u16();
        out.push_back(r.bytes().subspan(r.pos(), std::min<uint64_t>(len, r.remaining())));
        r.skip(len);
      }
    }
  } catch (const Error&) {
    out.clear();
  }
}

}  // namespace


// ---- Collection ------------------------------------------------------------

namespace {

struct ParamFlags {
  bool has_loc = false, optimized = false, unexpected = false;
};
constexpr uint8_t kHasLoc = 1, kOptimized = 2, kUnexpected = 4;

// One parameter while the unit is collected: where its flags live (its own
// DIE, or the abstract origin's when the concrete instance shares them).
struct PendingParam {
  uint64_t die;       // the parameter DIE whose flags count (0 for `...`)
  btf::TypeId type;
};

bool is_struct_param(const btf::Btf& t, btf::TypeId id) {
  for (int guard = 0; id && guard < 64; guard++) {
    if (id < t.start_id()) return false;
    btf::TypeView v = t.type(id);
    switch (v.kind()) {
      case btf::Kind::Struct: return true;
      case btf::Kind::Fwd: return !v.kind_flag();
      case btf::Kind::Const: case btf::Kind::Typedef: id = v.type(); break;
      default: return false;
    }
  }
  return false;
}

// pahole's natural alignment of a type (class__infer_packed_attributes).
// `budget` bounds the walk: nested aggregates are visited at most that
// many times in all, so no input can make this blow up.
uint32_t natural_alignment(const btf::Btf& t, btf::TypeId id, uint8_t address_size, int& budget) {
  for (int guard = 0; id && guard < 64 && id >= t.start_id() && budget > 0; guard++) {
    btf::TypeView v = t.type(id);
    switch (v.kind()) {
      case btf::Kind::Typedef: case btf::Kind::Const: case btf::Kind::Volatile: case btf::Kind::Restrict:
      case btf::Kind::TypeTag: id = v.type(); continue;
      case btf::Kind::Ptr: return address_size;
      case btf::Kind::Int: case btf::Kind::Float: case btf::Kind::Enum: case btf::Kind::Enum64:
        return std::max<uint32_t>(v.size(), 1);
      case btf::Kind::Array: id = v.array().type; continue;
      case btf::Kind::Struct: case btf::Kind::Union: {
        uint32_t a = 1;
        for (btf::Member m : v.members()) {
          if (--budget <= 0) break;
          a = std::max(a, natural_alignment(t, m.type, address_size, budget));
        }
        return a;
      }
      default: return 1;
    }
  }
  return 1;
}

}  // namespace

uint64_t type_size(const btf::Btf& t, btf::TypeId id, uint8_t address_size) {
  uint64_t mul = 1;
  for (int guard = 0; id && guard < 64 && id >= t.start_id(); guard++) {
    btf::TypeView v = t.type(id);
    switch (v.kind()) {
      case btf::Kind::Typedef: case btf::Kind::Const: case btf::Kind::Volatile: case btf::Kind::Restrict:
      case btf::Kind::TypeTag: id = v.type(); continue;
      case btf::Kind::Ptr: return mul * address_size;
      case btf::Kind::Array: mul *= v.array().nelems; id = v.array().type; continue;
      case btf::Kind::Int: case btf::Kind::Float: case btf::Kind::Enum: case btf::Kind::Enum64:
      case btf::Kind::Struct: case btf::Kind::Union: case btf::Kind::Datasec: return mul * v.size();
      default: return 0;
    }
  }
  return 0;
}

namespace {

// pahole's packed inference for a struct laid out without holes: a member
// off its natural alignment, or a size that is not a multiple of the
// largest alignment. (A struct with holes or tail padding is not packed.)
bool struct_is_packed(const btf::Btf& t, btf::TypeId id, uint8_t address_size) {
  btf::TypeView v = t.type(id);
  uint64_t end = 0;
  uint32_t max_align = 1;
  bool misaligned = false;
  for (btf::Member m : v.members()) {
    const uint64_t bit = m.bit_offset();
    const uint64_t byte = bit / 8;
    if (byte > end) return false;  // a hole
    uint64_t bits = m.bitfield_size() ? m.bitfield_size() : type_size(t, m.type, address_size) * 8;
    end = std::max(end, (bit + bits + 7) / 8);
    int budget = 4096;
    uint32_t a = natural_alignment(t, m.type, address_size, budget);
    max_align = std::max(max_align, a);
    if (!m.bitfield_size() && a > 1 && byte % a) misaligned = true;
  }
  if (v.size() > end) return false;  // tail padding
  return misaligned || v.size() % max_align != 0;
}

}  // namespace

namespace {

// What collect reads of a subprogram and of its abstract origin or
// specification, by DwarfFile::attrs()'s rules (a DW_AT_name that is not a
// string and references that are not references are ignored, the last of
// repeated attributes wins). The other attributes (decl_*, low_pc, high_pc,
// frame_base, ...) are skipped, not decoded: attrs() decoding all of them
// into its quarter-kilobyte result was most of the cost of a subprogram.
struct SubprogramAttrs {
  std::string_view name;
  std::optional<uint64_t> type, abstract_origin, specification;
  bool declaration = false;
};

// Calls take(spec, value) for each attribute of `die` that want(DW_AT_*)
// selects, in order, with the value AttrIter would give; the other
// attributes are stepped over (a fixed-size one is an addition), not
// decoded. False, having taken nothing, when a wanted attribute has
// DW_FORM_indirect (the caller then reads the DIE with AttrIter).
template <typename Want, typename Take>
bool read_selected(const DwarfFile& dw, const Die& die, Want&& want, Take&& take) {
  if (!die.abbrev) return true;
  const Unit& u = *die.unit;
  for (const AttrSpec& s : die.abbrev->specs())
    if (want(s.name) && s.form == DW_FORM_indirect) return false;
  Reader r = u.reader;
  const FormSizes sizes = u.abbrevs->sizes();
  size_t pos = die.attr_pos;
  for (const AttrSpec& s : die.abbrev->specs()) {
    if (!want(s.name)) {
      if (s.size >= 0) {
        pos += static_cast<size_t>(s.size);  // checked by the next seek
      } else {
        r.seek(pos);
        DwarfFile::skip_value(r, s, sizes);
        pos = r.pos();
      }
      continue;
    }
    r.seek(pos);
    Value v;
    if (!read_common_value(r, u, s, v)) {
      r.seek(pos);
      v = Value{};
      dw.read_value(r, u, s.form, s.implicit_const, v);
    }
    pos = r.pos();
    take(s, v);
  }
  return true;
}

SubprogramAttrs subprogram_attrs(const DwarfFile& dw, const Die& die) {
  SubprogramAttrs out;
  auto want = [](uint32_t at) {
    return at == DW_AT_name || at == DW_AT_type || at == DW_AT_abstract_origin || at == DW_AT_specification ||
           at == DW_AT_declaration;
  };
  auto take = [&](const AttrSpec& s, const Value& v) {
    switch (s.name) {
      case DW_AT_name:
        if (v.kind == Value::kString) out.name = v.str();
        break;
      case DW_AT_type:
        if (v.kind == Value::kRef) out.type = v.u;
        break;
      case DW_AT_abstract_origin:
        if (v.kind == Value::kRef) out.abstract_origin = v.u;
        break;
      case DW_AT_specification:
        if (v.kind == Value::kRef) out.specification = v.u;
        break;
      default:  // DW_AT_declaration
        out.declaration = v.kind == Value::kFlag && v.u;
        break;
    }
  };
  if (!read_selected(dw, die, want, take)) {
    // The form is in the DIE: attrs() knows how to read it.
    Attrs a = dw.attrs(die);
    return {a.name, a.type, a.abstract_origin, a.specification, a.declaration};
  }
  return out;
}

// Both collect_functions: over `subprograms` when given, else over the
// unit-level subprograms a walk of the unit finds.
void collect(const DwarfFile& dw, const Unit& unit, const std::span<const Die>* subprograms,
             const FunctionIndex& index, TypeLookup& types, const FunctionOptions& options, UnitFunctions& out) {
  // With no STT_FUNC symbol at all pahole emits no FUNC.
  if (index.empty()) return;
  // Names and tag values are read again when FUNCs are emitted, after the
  // unit: a string that is not in .debug_str (DW_FORM_string) lives in the
  // unit's bytes, whose pages are released or whose buffer is reused
  // (dwarf::UnitBytes) by then, so it is copied.
  auto owned = [&](std::string_view s) {
    return s.empty() || dw.in_debug_str(s) ? s : std::string_view(out.owned_names.emplace_back(s));
  };
  const std::span<const uint8_t> regs = register_params(index.machine());
  // Location flags by parameter DIE offset, each parameter's own and those
  // a concrete instance shares with its abstract origin; sorted and OR-ed
  // per DIE once the unit is walked (no per-parameter allocation). A
  // parameter's own flags arrive in DIE order, already sorted; only the
  // shared ones (far fewer) are sorted, then the two merged: sorting all of
  // them was 3% of vmlinux's instructions.
  std::vector<std::pair<uint64_t, uint8_t>> flags, shared_flags;
  std::vector<PendingParam> pending;                // parallel to out.params
  std::vector<Bytes> exprs;
  std::optional<uint64_t> loclists_base;
  const size_t first_func = out.funcs.size();
  const size_t params_base = out.params.size();

  // One unit-level subprogram; `skip_children` moves the walk past its
  // subtree (the walk over a list already found has nothing to skip).
  auto add = [&](const Die& die, auto&& skip_children) {
    SubprogramAttrs a = subprogram_attrs(dw, die);
    if (a.declaration) {
      skip_children();
      return;
    }
    // Name and return type from the DIE, else from its abstract origin or
    // specification (a concrete out-of-line copy names neither).
    std::string_view name = a.name;
    std::optional<uint64_t> ret = a.type;
    std::optional<uint64_t> origin = a.abstract_origin ? a.abstract_origin : a.specification;
    for (int guard = 0; origin && (name.empty() || !ret) && guard < 8; guard++) {
      SubprogramAttrs o = subprogram_attrs(dw, dw.die_at(*origin));
      if (name.empty()) name = o.name;
      if (!ret) ret = o.type;
      origin = o.abstract_origin ? o.abstract_origin : o.specification;
    }
    const uint32_t entry = name.empty() ? FunctionIndex::kNone : index.find(name);

    FuncCandidate f{};
    f.entry = entry;
    f.die_offset = die.offset;
    f.first_param = static_cast<uint32_t>(out.params.size());
    f.first_tag = static_cast<uint32_t>(out.tags.size());
    bool named = true, varargs = false;
    if (die.has_children) {
      DieCursor kids(die);
      Die kid;
      kids.next(kid);
      int param_idx = -1;  // index of the parameter whose children are being read
      while (kids.next(kid)) {
        // clang's annotations only: pahole 1.31 does not read GCC's
        // DW_TAG_GNU_annotation (1.32 does), nor does btfc anywhere.
        if (kids.depth() == 2 && kid.tag == DW_TAG_LLVM_annotation) {
          if (param_idx >= 0 && options.decl_tag && entry != FunctionIndex::kNone) {
            Attrs t = dw.attrs(kid);
            if (t.name == "btf_decl_tag" && t.const_value.kind == Value::kString)
              out.tags.push_back({owned(t.const_value.str()), param_idx});
          }
          continue;
        }
        if (kids.depth() != 1) {
          kids.skip_children();
          continue;
        }
        if (kid.tag == DW_TAG_unspecified_parameters) {
          varargs = true;
          param_idx = -1;
          kids.skip_children();
          continue;
        }
        if (kid.tag == DW_TAG_LLVM_annotation) {
          param_idx = -1;
          if (options.decl_tag && entry != FunctionIndex::kNone) {
            Attrs t = dw.attrs(kid);
            if (t.name == "btf_decl_tag" && t.const_value.kind == Value::kString)
              out.tags.push_back({owned(t.const_value.str()), -1});
          }
          continue;
        }
        if (kid.tag != DW_TAG_formal_parameter) {
          param_idx = -1;
          kids.skip_children();
          continue;
        }
        param_idx = static_cast<int>(out.params.size() - f.first_param);
        // One pass over the parameter's attributes.
        std::string_view pname;
        std::optional<uint64_t> ptype, porigin;
        bool has_loc = false, has_const = false;
        Value loc_value;
        uint32_t loc_form = 0;
        auto take = [&](uint32_t name, uint32_t form, const Value& v) {
          switch (name) {
            case DW_AT_name: if (v.kind == Value::kString) pname = v.str(); break;
            case DW_AT_type: if (v.kind == Value::kRef) ptype = v.u; break;
            case DW_AT_abstract_origin: if (v.kind == Value::kRef) porigin = v.u; break;
            case DW_AT_location: has_loc = true; loc_value = v; loc_form = form; break;
            case DW_AT_const_value: has_const = true; break;
            default: break;
          }
        };
        auto want = [](uint32_t at) {
          return at == DW_AT_name || at == DW_AT_type || at == DW_AT_abstract_origin || at == DW_AT_location ||
                 at == DW_AT_const_value;
        };
        if (!read_selected(dw, kid, want, [&](const AttrSpec& s, const Value& v) { take(s.name, s.form, v); })) {
          Attr at;
          for (AttrIter it(dw, kid); it.next(at);) take(at.name, at.form, at.value);
        }
        uint64_t flag_die = kid.offset;
        if (!ptype && porigin) {
          // pahole takes the name and type of the abstract origin's
          // parameter and shares this one's location flags with it.
          Die od = dw.die_at(*porigin);
          Attrs o = dw.attrs(od);
          pname = o.name;
          ptype = o.type;
          flag_die = od.offset;
        }
        if (pname.empty()) named = false;
        // Location analysis of register-passed parameters.
        const size_t idx = static_cast<size_t>(param_idx);
        ParamFlags pf;
        if (idx < regs.size()) {
          pf.has_loc = has_loc;
          if (has_loc) {
            exprs.clear();
            if (loc_value.kind == Value::kBlock) {
              exprs.push_back(loc_value.block());
            } else if (loc_value.kind == Value::kSecOffset || loc_value.kind == Value::kUnsigned) {
              const bool is_index = loc_form == DW_FORM_loclistx;
              if (is_index && !loclists_base) {
                Value b = dw.attr(dw.root(unit), DW_AT_loclists_base);
                loclists_base = b.kind == Value::kNone ? 0 : b.u;
              }
              read_location_list(index.loc_sections(), unit, loclists_base.value_or(0), loc_value.u, is_index,
                                 exprs);
            }
            int reg = param_reg(exprs, unit, regs[idx]);
            if (reg < 0) pf.optimized = true;
            else if (regs[idx] != 0 && reg != regs[idx]) pf.unexpected = true;
          } else if (has_const) {
            pf.optimized = true;
          }
        }
        const uint8_t bits = (pf.has_loc ? kHasLoc : 0) | (pf.optimized ? kOptimized : 0) |
                             (pf.unexpected ? kUnexpected : 0);
        flags.push_back({kid.offset, bits});
        if (flag_die != kid.offset) shared_flags.push_back({flag_die, bits});
        pname = owned(pname);
        out.params.push_back({pname, ptype ? types.type_id(*ptype) : 0});
        pending.push_back({kid.offset, 0});
      }
    }
    skip_children();
    const uint32_t nr_params = static_cast<uint32_t>(out.params.size() - f.first_param);
    if (entry == FunctionIndex::kNone || !named) {
      out.params.resize(f.first_param);
      pending.resize(f.first_param - params_base);
      out.tags.resize(f.first_tag);
      return;
    }
    if (varargs) {
      out.params.push_back({"", 0});
      pending.push_back({0, 0});
    }
    f.nr_params = static_cast<uint16_t>(out.params.size() - f.first_param);
    f.nr_tags = static_cast<uint16_t>(out.tags.size() - f.first_tag);
    f.ret = ret ? types.type_id(*ret) : 0;
    // uncertain_parm_loc: a named struct passed by value on the stack that
    // pahole infers to be packed. Inference needs the struct's layout; a
    // by-value struct beyond the register parameters is what matters: on
    // a machine without parameter registers in pahole's table (i386), any
    // parameter. The type is the parameter's own, typedefs not stripped,
    // as pahole tests it.
    if (nr_params >= regs.size()) {
      const btf::Btf& t = types.table();
      for (uint32_t i = static_cast<uint32_t>(regs.size()); i < nr_params; i++) {
        btf::TypeId id = out.params[f.first_param + i].type;
        if (!id || id < t.start_id()) continue;
        btf::TypeView v = t.type(id);
        if (v.kind() == btf::Kind::Struct && v.name_off() != 0 && struct_is_packed(t, id, index.address_size())) {
          f.flags |= kUncertainParmLoc;
          break;
        }
      }
    }
    out.funcs.push_back(f);
  };
  if (subprograms) {
    for (const Die& die : *subprograms) add(die, [] {});
  } else {
    DieCursor cursor(unit);
    Die die;
    while (cursor.next(die)) {
      if (cursor.depth() == 0) continue;
      if (die.tag != DW_TAG_subprogram) {
        cursor.skip_children();
        continue;
      }
      add(die, [&] { cursor.skip_children(); });
    }
  }

  // The flags of each candidate's parameters once every concrete instance
  // of the unit shared its flags with its abstract origin (pahole computes
  // them after recoding the whole unit).
  auto by_die = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(flags.begin(), flags.end(), by_die)) std::sort(flags.begin(), flags.end(), by_die);
  if (!shared_flags.empty()) {
    if (!std::is_sorted(shared_flags.begin(), shared_flags.end(), by_die))
      std::sort(shared_flags.begin(), shared_flags.end(), by_die);
    const size_t own = flags.size();
    flags.insert(flags.end(), shared_flags.begin(), shared_flags.end());
    std::inplace_merge(flags.begin(), flags.begin() + static_cast<ptrdiff_t>(own), flags.end(), by_die);
  }
  size_t w = 0;
  for (size_t r = 0; r < flags.size(); r++) {
    if (w && flags[w - 1].first == flags[r].first) flags[w - 1].second |= flags[r].second;
    else flags[w++] = flags[r];
  }
  flags.resize(w);
  const btf::Btf& t = types.table();
  for (size_t k = first_func; k < out.funcs.size(); k++) {
    FuncCandidate& f = out.funcs[k];
    bool unexpected = false, optimized = false;
    for (uint32_t i = 0; i < f.nr_params; i++) {
      const PendingParam& p = pending[f.first_param - params_base + i];
      if (!p.die) continue;  // `...`
      auto it = std::lower_bound(flags.begin(), flags.end(), p.die,
                                 [](const auto& e, uint64_t off) { return e.first < off; });
      const uint8_t bits = it != flags.end() && it->first == p.die ? it->second : 0;
      if ((bits & kOptimized) || !(bits & kHasLoc)) optimized = true;
      if (bits & kUnexpected) unexpected = true;
    }
    if (optimized) f.flags |= kOptimizedParms;
    if (unexpected) {
      bool struct_param = false;
      for (uint32_t i = 0; i < f.nr_params && !struct_param; i++)
        if (pending[f.first_param - params_base + i].die)
          struct_param = is_struct_param(t, out.params[f.first_param + i].type);
      if (!struct_param) f.flags |= kUnexpectedReg;
    }
  }
}

}  // namespace

void collect_functions(const DwarfFile& dw, const Unit& unit, const FunctionIndex& index, TypeLookup& types,
                       const FunctionOptions& options, UnitFunctions& out) {
  collect(dw, unit, nullptr, index, types, options, out);
}

void collect_functions(const DwarfFile& dw, const Unit& unit, std::span<const Die> subprograms,
                       const FunctionIndex& index, TypeLookup& types, const FunctionOptions& options,
                       UnitFunctions& out) {
  collect(dw, unit, &subprograms, index, types, options, out);
}

}  // namespace btfc::convert

namespace btfc::convert {

// ---- The choice --------------------------------------------------------------

namespace {

std::string_view name_of(const btf::Btf& t, btf::TypeView v) { return t.str(v.name_off()); }

// FWD compares as the struct or union it declares.
btf::Kind fwd_kind(btf::TypeView v) {
  if (v.kind() == btf::Kind::Fwd) return v.kind_flag() ? btf::Kind::Union : btf::Kind::Struct;
  return v.kind();
}

// pahole's types__match: a loose structural comparison (const-insensitive,
// named types by name, ints by size, encoding and name).
bool types_match(const btf::Btf& t, btf::TypeId a, btf::TypeId b, int depth = 0) {
  for (int guard = 0; guard < 256; guard++) {
    if (a == b) return true;
    if (!a || !b) return false;
    btf::TypeView x = t.type(a), y = t.type(b);
    btf::Kind ka = fwd_kind(x), kb = fwd_kind(y);
    if (ka != kb) {
      if (ka == btf::Kind::Const) { a = x.type(); continue; }
      if (kb == btf::Kind::Const) { b = y.type(); continue; }
      return false;
    }
    switch (ka) {
      case btf::Kind::Int:
        return x.size() == y.size() && x.words()[3] == y.words()[3] && name_of(t, x) == name_of(t, y);
      case btf::Kind::Float:
        return x.size() == y.size() && name_of(t, x) == name_of(t, y);
      case btf::Kind::Typedef: case btf::Kind::Struct: case btf::Kind::Union: case btf::Kind::Enum:
      case btf::Kind::Enum64:
        return name_of(t, x) == name_of(t, y);
      case btf::Kind::Ptr: case btf::Kind::Volatile: case btf::Kind::Const: case btf::Kind::Restrict:
      case btf::Kind::TypeTag:
        a = x.type();
        b = y.type();
        continue;
      case btf::Kind::Array:
        if (x.array().nelems != y.array().nelems) return false;
        a = x.array().type;
        b = y.array().type;
        continue;
      case btf::Kind::FuncProto: {
        if (x.vlen() != y.vlen() || depth > 32) return false;
        if (!types_match(t, x.type(), y.type(), depth + 1)) return false;
        for (uint32_t i = 0; i < x.vlen(); i++)
          if (!types_match(t, x.param(i).type, y.param(i).type, depth + 1)) return false;
        return true;
      }
      default: return false;
    }
  }
  return false;
}

struct Ref {
  const UnitFunctions* unit;
  const FuncCandidate* f;
};

bool funcs_match(const btf::Btf& t, const Ref& a, const Ref& b) {
  if (a.f->nr_params != b.f->nr_params) return false;
  if (!types_match(t, a.f->ret, b.f->ret)) return false;
  for (uint32_t i = 0; i < a.f->nr_params; i++)
    if (!types_match(t, a.unit->params[a.f->first_param + i].type, b.unit->params[b.f->first_param + i].type))
      return false;
  return true;
}

// PTR -> TYPE_TAG "address_space(1)" (an attribute) -> old pointee, for
// kfunc arena arguments; pahole leaves non-pointers alone with an error.
btf::TypeId arena_pointer(btf::Btf& out, btf::TypeId ptr, std::string_view what) {
  if (!ptr || out.kind(ptr) != btf::Kind::Ptr)
    throw Error("BTF", 0, "kfunc arena tag on " + std::string(what) + ", which is not a pointer");
  btf::TypeId tag = out.add_type_tag("address_space(1)", out.type(ptr).type(), /*attribute=*/true);
  return out.add_ptr(tag);
}

}  // namespace

FunctionStats emit_functions(const FunctionIndex& index, std::span<const UnitFunctions* const> units,
                             const FunctionOptions& options, btf::Btf& out) {
  FunctionStats stats;
  // Counting sort by entry (= by name), keeping unit and DIE order.
  std::vector<uint32_t> start(index.size() + 1, 0);
  for (const UnitFunctions* u : units)
    for (const FuncCandidate& f : u->funcs) start[f.entry + 1]++;
  for (uint32_t i = 0; i < index.size(); i++) start[i + 1] += start[i];
  std::vector<Ref> sorted(start.back());
  {
    std::vector<uint32_t> pos(start.begin(), start.end() - 1);
    for (const UnitFunctions* u : units)
      for (const FuncCandidate& f : u->funcs) sorted[pos[f.entry]++] = {u, &f};
  }
  stats.candidates = static_cast<uint32_t>(sorted.size());
  constexpr uint32_t KF_FASTCALL = 1u << 12, KF_ARENA_RET = 1u << 13, KF_ARENA_ARG1 = 1u << 14,
                     KF_ARENA_ARG2 = 1u << 15;
  // Each name's verdict over its candidates, names in parallel: the
  // comparisons only read `out`, and most of this pass is theirs on a
  // kernel (inline functions have a candidate in every unit that calls
  // them). The same pass gathers what the serial loop below needs into
  // dense arrays in name order (the first candidate's return type and
  // parameters, and the hashes of the names they add): reading them
  // through the candidates, scattered over every unit's vectors, was a
  // cache miss per function, and hashing the names was as much again.
  struct Entry {
    const Ref* first = nullptr;  // null: no candidate
    btf::TypeId ret = 0;
    uint64_t name_hash = 0;
    uint16_t nr_params = 0;
    uint16_t nr_tags = 0;
    uint8_t flags = 0;
    bool inconsistent = false;
  };
  struct Param {
    FuncParam p;
    uint64_t hash;
  };
  std::vector<Entry> entries(index.size());
  std::vector<uint32_t> param_at(index.size() + 1, 0);  // where entry e's parameters start
  for (uint32_t e = 0; e < index.size(); e++)
    param_at[e + 1] = param_at[e] + (start[e] == start[e + 1] ? 0 : sorted[start[e]].f->nr_params);
  std::vector<Param> gathered(param_at.back());
  constexpr uint32_t kNamesPerTask = 4096;
  parallel_for_ranges(0, index.size(), kNamesPerTask, [&](size_t lo, size_t hi) {
    for (uint32_t e = static_cast<uint32_t>(lo); e < hi; e++) {
      if (start[e] == start[e + 1]) continue;
      const Ref& first = sorted[start[e]];
      // pahole combines the first state with each later one in turn: flags
      // accumulate in the first, and a mismatch only counts while neither
      // side is already unexpected or inconsistent.
      uint8_t flags = first.f->flags;
      bool inconsistent = false;
      for (uint32_t k = start[e] + 1; k < start[e + 1]; k++) {
        const Ref& b = sorted[k];
        const bool unexpected = (flags | b.f->flags) & kUnexpectedReg;
        if (!unexpected && !inconsistent && !funcs_match(out, first, b)) inconsistent = true;
        flags |= b.f->flags & (kUnexpectedReg | kUncertainParmLoc);
      }
      entries[e] = {&first, first.f->ret, btf::StringTable::hash(index.name(e)),
                    first.f->nr_params, first.f->nr_tags, flags, inconsistent};
      for (uint32_t i = 0; i < first.f->nr_params; i++) {
        const FuncParam& p = first.unit->params[first.f->first_param + i];
        gathered[param_at[e] + i] = {p, btf::StringTable::hash(p.name)};
      }
    }
  });
  // Inserting the names misses the cache on the table's slots: those of
  // the function kAhead names on are loaded while this one is added.
  constexpr uint32_t kAhead = 8;
  std::vector<btf::Btf::NewParam> params;
  for (uint32_t e = 0; e < index.size(); e++) {
    if (e + kAhead < index.size() && entries[e + kAhead].first) {
      out.prefetch_string(entries[e + kAhead].name_hash);
      for (uint32_t k = param_at[e + kAhead]; k < param_at[e + kAhead + 1]; k++) out.prefetch_string(gathered[k].hash);
    }
    const Entry& entry = entries[e];
    if (!entry.first) continue;
    stats.names++;
    const uint8_t flags = entry.flags;
    const bool ambiguous = index.ambiguous_addr(e);
    stats.inconsistent += entry.inconsistent;
    stats.unexpected_reg += (flags & kUnexpectedReg) != 0;
    stats.uncertain_parm_loc += (flags & kUncertainParmLoc) != 0;
    stats.ambiguous_addr += ambiguous;
    if (options.consistent_func &&
        (entry.inconsistent || ambiguous || (flags & (kUnexpectedReg | kUncertainParmLoc))))
      continue;

    btf::TypeId ret = entry.ret;
    std::span<const Param> given(gathered.data() + param_at[e], entry.nr_params);
    params.resize(given.size());
    for (size_t i = 0; i < given.size(); i++) params[i].type = given[i].p.type;
    const bool kfunc = options.decl_tag_kfuncs && index.is_kfunc(e);
    const uint32_t kflags = kfunc ? index.kfunc_flags(e) : 0;
    if (kfunc && options.attributes) {
      if (kflags & KF_ARENA_RET) ret = arena_pointer(out, ret, "the return value of " + std::string(index.name(e)));
      if ((kflags & KF_ARENA_ARG1) && !params.empty()) params[0].type = arena_pointer(out, params[0].type, "argument 1");
      if ((kflags & KF_ARENA_ARG2) && params.size() > 1) params[1].type = arena_pointer(out, params[1].type, "argument 2");
    }
    btf::TypeId proto = out.add_func_proto(ret);
    for (size_t i = 0; i < given.size(); i++) params[i].name_off = out.add_string(given[i].p.name, given[i].hash);
    out.add_params(params);
    btf::TypeId fn =
        out.add_func_name_off(out.add_string(index.name(e), entry.name_hash), proto, btf::FuncLinkage::Static);
    stats.emitted++;
    for (uint32_t i = 0; i < entry.nr_tags; i++) {
      const FuncTag& tag = entry.first->unit->tags[entry.first->f->first_tag + i];
      out.add_decl_tag(tag.value, fn, tag.component_idx);
    }
    if (kfunc && options.decl_tag) {
      out.add_decl_tag("bpf_kfunc", fn, -1);
      if (kflags & KF_FASTCALL) out.add_decl_tag("bpf_fastcall", fn, -1);
    }
  }
  return stats;
}

}  // namespace btfc::convert
