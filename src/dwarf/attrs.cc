// The encoder's view of a DIE: the attributes pahole's rules read, collected
// in one pass, and the two tiny location-expression evaluators they need
// (member offsets in DWARF 2/3 style, addresses of variables).
#include "dwarf/dwarf_file.h"

#include <cstring>

namespace btfc::dwarf {

Attrs DwarfFile::attrs(const Die& die, bool lazy_name) const {
  Attrs out;
  if (!die.abbrev) return out;
  Attr a;
  std::optional<uint64_t> high_pc_offset;
  auto constant = [&](std::optional<uint64_t>& field) {
    if (a.value.is_constant()) field = a.value.u;
  };
  auto signed_constant = [&](std::optional<int64_t>& field) {
    if (a.value.is_constant()) field = a.value.s();
    else if (a.value.kind == Value::kRef) out.has_upper_bound_ref = true;
  };
  auto ref = [&](std::optional<uint64_t>& field) {
    if (a.value.kind == Value::kRef) field = a.value.u;
  };
  auto flag = [&](bool& field) { field = a.value.kind == Value::kFlag && a.value.u; };
  for (AttrIter it(*this, die); it.next(a);) {
    switch (a.name) {
      case DW_AT_name:
        if (a.value.kind != Value::kString) break;
        // The last one wins, whichever field it goes to.
        if (lazy_name && a.value.len == Value::kNulTerminated) {
          out.name_pooled = reinterpret_cast<const char*>(a.value.ptr);
          out.name = {};
        } else {
          out.name = a.value.str();
          out.name_pooled = nullptr;
        }
        break;
      case DW_AT_linkage_name:
      case DW_AT_MIPS_linkage_name:
        if (a.value.kind == Value::kString) out.linkage_name = a.value.str();
        break;
      case DW_AT_type: ref(out.type); break;
      case DW_AT_byte_size: constant(out.byte_size); break;
      case DW_AT_bit_size: constant(out.bit_size); break;
      case DW_AT_data_bit_offset: constant(out.data_bit_offset); break;
      case DW_AT_bit_offset: constant(out.bit_offset); break;
      case DW_AT_data_member_location:
        if (a.value.is_constant()) {
          out.member_location = a.value.u;
        } else if (a.value.kind == Value::kBlock) {
          out.member_location = expr_constant(a.value.block());
          if (!out.member_location) out.member_location_expr = a.value.block();
        }
        break;
      case DW_AT_lower_bound: signed_constant(out.lower_bound); break;
      case DW_AT_upper_bound: signed_constant(out.upper_bound); break;
      case DW_AT_count: signed_constant(out.count); break;
      case DW_AT_encoding: constant(out.encoding); break;
      case DW_AT_alignment: constant(out.alignment); break;
      case DW_AT_inline: constant(out.inline_); break;
      case DW_AT_calling_convention: constant(out.calling_convention); break;
      case DW_AT_accessibility: constant(out.accessibility); break;
      case DW_AT_decl_file: constant(out.decl_file); break;
      case DW_AT_decl_line: constant(out.decl_line); break;
      case DW_AT_low_pc:
        if (a.value.kind == Value::kAddress) out.low_pc = a.value.u;
        break;
      case DW_AT_high_pc:
        if (a.value.kind == Value::kAddress) out.high_pc = a.value.u;
        else if (a.value.is_constant()) high_pc_offset = a.value.u;
        break;
      case DW_AT_abstract_origin: ref(out.abstract_origin); break;
      case DW_AT_specification: ref(out.specification); break;
      case DW_AT_signature: ref(out.signature); break;
      case DW_AT_const_value:
        out.const_value = a.value;
        out.const_value_form = a.form;
        break;
      case DW_AT_location:
        if (a.value.kind == Value::kBlock) out.location = a.value.block();
        break;
      case DW_AT_declaration: flag(out.declaration); break;
      case DW_AT_external: flag(out.external); break;
      case DW_AT_prototyped: flag(out.prototyped); break;
      case DW_AT_artificial: flag(out.artificial); break;
      default: break;
    }
  }
  if (high_pc_offset && out.low_pc) out.high_pc = *out.low_pc + *high_pc_offset;
  return out;
}

// Inline: type_attrs, its only caller, runs it for every attribute it reads.
[[gnu::always_inline]] inline void TypeAttrs::set(const DwarfFile& file, uint32_t at, const Value& v) {
  auto constant = [&](uint32_t i) {
    if (v.is_constant()) put(i, v.u);
  };
  auto signed_constant = [&](uint32_t i) {
    if (v.is_constant()) put(i, v.u);  // v.s()'s bits
    else if (v.kind == Value::kRef) has_upper_bound_ref = true;
  };
  switch (at) {
    case DW_AT_name:
      if (v.kind == Value::kString) name = v;
      break;
    case DW_AT_type:
      if (v.kind == Value::kRef) put(kType, v.u);
      break;
    case DW_AT_byte_size: constant(kByteSize); break;
    case DW_AT_bit_size: constant(kBitSize); break;
    case DW_AT_data_bit_offset: constant(kDataBitOffset); break;
    case DW_AT_bit_offset: constant(kBitOffset); break;
    case DW_AT_data_member_location:
      if (v.is_constant()) {
        put(kMemberLocation, v.u);
      } else if (v.kind == Value::kBlock) {
        if (std::optional<uint64_t> c = file.expr_constant(v.block())) {
          put(kMemberLocation, *c);
        } else {
          present_ &= ~(1u << kMemberLocation);
          member_location_expr = v.block();
        }
      }
      break;
    case DW_AT_upper_bound: signed_constant(kUpperBound); break;
    case DW_AT_count: signed_constant(kCount); break;
    case DW_AT_encoding: constant(kEncoding); break;
    case DW_AT_const_value: const_value = v; break;
    case DW_AT_declaration: declaration = v.kind == Value::kFlag && v.u; break;
    case DW_AT_external: external = v.kind == Value::kFlag && v.u; break;
    default: break;
  }
}

// One key the fast path does not take in one step: its value read by the
// common forms inline, else by read_value (which reports every error), then
// taken by TypeAttrs' rules.
[[gnu::noinline]] void DwarfFile::type_attr_read(TypeAttrs& out, const Die& die, const KeySpec& k,
                                                  uint64_t pos) const {
  const Unit& u = *die.unit;
  const AttrSpec& s = die.abbrev->attrs[k.spec];
  const uint8_t* p = u.reader.bytes().data() + pos;
  bool be = u.reader.big_endian();
  Value v;
  bool done = true;
  switch (s.form) {
    case DW_FORM_data1: v.kind = Value::kUnsigned; v.u = *p; break;
    case DW_FORM_data2: v.kind = Value::kUnsigned; v.u = load<uint16_t>(p, be); break;
    case DW_FORM_data4: v.kind = Value::kUnsigned; v.u = load<uint32_t>(p, be); break;
    case DW_FORM_data8: v.kind = Value::kUnsigned; v.u = load<uint64_t>(p, be); break;
    case DW_FORM_implicit_const: v.kind = Value::kSigned; v.u = static_cast<uint64_t>(s.implicit_const); break;
    case DW_FORM_flag_present: v.kind = Value::kFlag; v.u = 1; break;
    case DW_FORM_flag: v.kind = Value::kFlag; v.u = *p != 0; break;
    case DW_FORM_ref4: {
      uint64_t off = load<uint32_t>(p, be);
      done = off < u.end - u.offset;
      v.kind = Value::kRef;
      v.u = u.global_base + u.offset + off;
      break;
    }
    case DW_FORM_strp: {
      uint64_t off = u.offset_size == 4 ? load<uint32_t>(p, be) : load<uint64_t>(p, be);
      if (!(done = off < u.sections->str_end)) break;
      v.kind = Value::kString;
      v.ptr = u.sections->str.data() + off;
      v.len = Value::kNulTerminated;
      break;
    }
    default: done = false; break;
  }
  if (!done) {
    Reader r = u.reader;
    r.seek(pos);
    v = Value{};
    read_value(r, u, s.form, s.implicit_const, v);
  }
  out.set(*this, s.name, v);
}

// Takes the keys of a DIE whose abbreviation has them at fixed offsets
// (from the first attribute, or kShifted: from the end of its one
// DW_FORM_string for the keys after it, `after`), once the caller checked
// that the DIE holds them. Each key is loaded from its offset and taken as
// its KeyOp says; values that need checking (a reference outside the unit,
// a string offset past .debug_str) and the rare pairs go through
// type_attr_read.
template <bool kShifted>
[[gnu::always_inline]] inline void DwarfFile::take_keys(TypeAttrs& out, const Die& die, uint64_t after,
                                                        uint64_t str_len) const {
  const Abbrev* a = die.abbrev;
  const Unit& u = *die.unit;
  const uint8_t* data = u.reader.bytes().data();
  bool be = u.reader.big_endian();
  for (const KeySpec& k : a->key_specs()) {
    const uint64_t pos = (kShifted && k.after_str ? after : die.attr_pos) + k.offset;
    const uint8_t* p = data + pos;
    switch (k.op) {
      case kKeyIgnore: break;
      case kKeyNum1: out.put(k.field, *p); break;
      case kKeyNum2: out.put(k.field, load<uint16_t>(p, be)); break;
      case kKeyNum4: out.put(k.field, load<uint32_t>(p, be)); break;
      case kKeyNum8: out.put(k.field, load<uint64_t>(p, be)); break;
      case kKeyNumImplicit: out.put(k.field, static_cast<uint64_t>(a->attrs[k.spec].implicit_const)); break;
      case kKeyTypeRef4: {
        uint64_t off = load<uint32_t>(p, be);
        if (off < u.end - u.offset) out.put(TypeAttrs::kType, u.global_base + u.offset + off);
        else type_attr_read(out, die, k, pos);
        break;
      }
      case kKeyNameStrp: {
        uint64_t off = u.offset_size == 4 ? load<uint32_t>(p, be) : load<uint64_t>(p, be);
        if (off < u.sections->str_end) {
          out.name.kind = Value::kString;
          out.name.u = 0;
          out.name.ptr = u.sections->str.data() + off;
          out.name.len = Value::kNulTerminated;
        } else {
          type_attr_read(out, die, k, pos);
        }
        break;
      }
      case kKeyNameString:
        out.name.kind = Value::kString;
        out.name.u = 0;
        out.name.ptr = p;
        out.name.len = str_len;
        break;
      case kKeyConst1: out.const_value = Value{Value::kUnsigned, *p}; break;
      case kKeyConst2: out.const_value = Value{Value::kUnsigned, load<uint16_t>(p, be)}; break;
      case kKeyConst4: out.const_value = Value{Value::kUnsigned, load<uint32_t>(p, be)}; break;
      case kKeyConst8: out.const_value = Value{Value::kUnsigned, load<uint64_t>(p, be)}; break;
      case kKeyConstImplicit:
        out.const_value = Value{Value::kSigned, static_cast<uint64_t>(a->attrs[k.spec].implicit_const)};
        break;
      case kKeyFlagTrue: out.flag(k.field) = true; break;
      case kKeyFlag: out.flag(k.field) = *p != 0; break;
      case kKeyFlagFalse: out.flag(k.field) = false; break;
      default: type_attr_read(out, die, k, pos); break;
    }
  }
}

// The keys of a DIE whose abbreviation has one DW_FORM_string
// (Abbrev::str_pos); false when the DIE does not hold them all (AttrIter
// then reports why).
[[gnu::noinline]] bool DwarfFile::type_attrs_str(TypeAttrs& out, const Die& die) const {
  const Unit& u = *die.unit;
  const uint8_t* data = u.reader.bytes().data();
  const size_t size = u.reader.size();
  uint64_t at = die.attr_pos + die.abbrev->str_pos;
  const void* nul = at < size ? std::memchr(data + at, 0, size - at) : nullptr;
  if (!nul) return false;
  uint64_t str_len = static_cast<uint64_t>(static_cast<const uint8_t*>(nul) - (data + at));
  uint64_t after = at + str_len + 1;
  if (after + die.abbrev->keys_end > size) return false;
  take_keys<true>(out, die, after, str_len);
  return true;
}

TypeAttrs DwarfFile::type_attrs(const Die& die) const {
  TypeAttrs out;
  const Abbrev* a = die.abbrev;
  if (!a) return out;
  // The fast paths when the DIE holds every byte up to its last wanted
  // attribute: a truncated DIE goes the slow way, whose error then names
  // the same offset as attrs() would.
  if (a->keys_fixed) {
    if (a->str_pos == Abbrev::kNoStr) {
      if (die.attr_pos + a->keys_end <= die.unit->reader.size()) {
        take_keys<false>(out, die, 0, 0);
        return out;
      }
    } else if (type_attrs_str(out, die)) {
      return out;
    }
  }
  Attr at;
  for (AttrIter it(*this, die); it.next(at);)
    if (is_type_attr(at.name)) out.set(*this, at.name, at.value);
  return out;
}

Value DwarfFile::attr(const Die& die, uint32_t name) const {
  if (!die.abbrev) return {};
  Attr a;
  for (AttrIter it(*this, die); it.next(a);)
    if (a.name == name) return a.value;
  return {};
}

std::optional<uint64_t> DwarfFile::expr_address(const Unit& unit, Bytes expr) const {
  Reader r(expr, "location expression", unit.sections->big_endian);
  if (r.empty()) return std::nullopt;
  uint8_t op = r.u8();
  std::optional<uint64_t> addr;
  if (op == DW_OP_addr) {
    if (r.remaining() < unit.address_size) return std::nullopt;
    addr = r.uint(unit.address_size);
  } else if (op == DW_OP_addrx || op == DW_OP_GNU_addr_index) {
    uint64_t index = r.uleb128();
    if (unit.sections->split) return std::nullopt;
    addr = address_at(unit, index, unit.die_offset);
  }
  if (!r.empty()) return std::nullopt;  // more than a bare address (TLS, pieces, arithmetic)
  return addr;
}

std::optional<uint64_t> DwarfFile::expr_constant(Bytes expr) const {
  Reader r(expr, "location expression", main_.big_endian);
  if (r.empty()) return std::nullopt;
  uint64_t v;
  switch (r.u8()) {
    case DW_OP_plus_uconst:
    case DW_OP_constu:
      if (!r.remaining()) return std::nullopt;
      v = r.uleb128();
      break;
    case DW_OP_const1u: if (r.remaining() < 1) return std::nullopt; v = r.u8(); break;
    case DW_OP_const2u: if (r.remaining() < 2) return std::nullopt; v = r.u16(); break;
    case DW_OP_const4u: if (r.remaining() < 4) return std::nullopt; v = r.u32(); break;
    case DW_OP_const8u: if (r.remaining() < 8) return std::nullopt; v = r.u64(); break;
    default: return std::nullopt;
  }
  if (!r.empty()) return std::nullopt;
  return v;
}

}  // namespace btfc::dwarf
