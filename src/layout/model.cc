// Sizes and member fix-ups of the layout model, with pahole's rules:
// tag__size() (including its "empty struct of size 1 is 0" trick) and the
// bitfield normalisation its loaders do once a unit is read
// (class_member__cache_byte_size for DWARF, class__fixup_btf_bitfields for
// BTF), so that both sources give the same byte offsets and bit offsets.
#include "layout/model.h"

#include <algorithm>

namespace btfc::layout {

uint64_t Table::size_of(uint32_t i, int depth) const {
  if (depth > 64) return 0;  // a reference loop in the input
  const Type& ty = t(i);
  switch (ty.kind) {
    case TKind::Void: return 0;
    case TKind::Pointer: case TKind::Other: return addr_size;
    case TKind::Base: return ty.bit_size / 8;
    case TKind::Enum: return ty.size;
    case TKind::Func: return ty.size ? ty.size : addr_size;
    case TKind::Struct: case TKind::Union:
      return (ty.size == 1 && ty.count == 0) ? 0 : ty.size;
    default: break;
  }
  if (ty.type == 0) return 0;
  uint64_t size = size_of(ty.type, depth + 1);
  if (ty.kind == TKind::Array) {
    uint64_t n = ty.count ? 1 : 0;
    for (uint32_t d = 0; d < ty.count; ++d) n *= static_cast<uint32_t>(dims[ty.first + d]);
    return size * n;
  }
  return size;
}

uint32_t Table::strip(uint32_t i) const {
  for (int n = 0; n < 64 && i; ++n) {
    TKind k = t(i).kind;
    if (k != TKind::Typedef && k != TKind::Const && k != TKind::Volatile && k != TKind::Restrict &&
        k != TKind::Atomic && k != TKind::Annotation)
      return i;
    i = t(i).type;
  }
  return i;
}

uint32_t Table::natural_alignment(uint32_t i, std::vector<uint32_t>& memo, int depth) const {
  const Type& ty = t(i);
  uint64_t a = 1;
  if (i == 0 || i >= types.size() || depth > 64) return 1;
  if (memo[i]) return memo[i];
  memo[i] = 1;  // what a loop back to this type sees while it is computed
  switch (ty.kind) {
    case TKind::Pointer: a = addr_size; break;
    case TKind::Base: a = ty.bit_size / 8; break;
    case TKind::Enum: a = ty.size; break;
    case TKind::Struct: case TKind::Union: {
      uint32_t best = 0;
      for (uint32_t k = 0; k < ty.count; ++k) {
        const Member& m = members[ty.first + k];
        if (m.is_static) continue;
        uint32_t mt = strip(m.type);
        if (mt == 0) continue;
        best = std::max(best, natural_alignment(mt, memo, depth + 1));
      }
      a = best;
      break;
    }
    case TKind::Array: {
      uint32_t e = strip(ty.type);
      if (e) a = natural_alignment(e, memo, depth + 1);
      break;
    }
    default: break;
  }
  return memo[i] = a ? static_cast<uint32_t>(a) : 1;
}

namespace {

// class__infer_alignment() of pahole's BTF loader: BTF has no alignment
// attributes, so a member that starts further than its natural alignment
// explains is taken to carry one (the cacheline size when that fits).
uint32_t infer_alignment(uint32_t byte_offset, uint32_t natural, uint32_t smallest, unsigned cacheline) {
  uint32_t alignment = 0;
  uint32_t delta = byte_offset - smallest;
  if (delta && byte_offset % 2 == 0) {
    int shift = (32 - __builtin_clz(delta)) & 31;  // x86 masks the shift count
    alignment = static_cast<uint32_t>(1u << shift);
  }
  if (alignment <= natural || alignment == 1)
    alignment = 0;
  else if (alignment < cacheline && cacheline % alignment == 0 && byte_offset % cacheline == 0)
    alignment = cacheline;
  return alignment;
}

}  // namespace

void Table::finalize() {
  if (!has_alignment_info) {
    std::vector<uint32_t> alignment_memo(types.size(), 0);
    // BTF (class__fixup_btf_bitfields)
    for (size_t ti = 1; ti < types.size(); ++ti) {
      if (types[ti].kind != TKind::Struct && types[ti].kind != TKind::Union) continue;
      if (types[ti].declaration) continue;
      uint32_t smallest = 0;
      for (uint32_t k = 0; k < types[ti].count; ++k) {
        Member& m = members[types[ti].first + k];
        uint32_t st = strip(m.type);
        if (st == 0) continue;
        m.bitfield_offset = 0;
        m.byte_size = static_cast<uint32_t>(size_of(st));
        m.bit_size = m.byte_size * 8;
        if (m.byte_size == 0) {
          m.alignment = infer_alignment(m.byte_offset, natural_alignment(st, alignment_memo), smallest, cacheline_size);
          continue;
        }
        TKind sk = t(st).kind;
        if (sk == TKind::Base || sk == TKind::Enum) {
          if (m.bitfield_size) {
            m.byte_offset = m.bit_offset / m.bit_size * m.bit_size / 8;
            m.bitfield_offset = static_cast<int32_t>(m.bit_offset) - static_cast<int32_t>(m.byte_offset * 8);
          } else {
            m.byte_offset = m.bit_offset / 8;
          }
        }
        m.alignment = infer_alignment(m.byte_offset, natural_alignment(st, alignment_memo), smallest, cacheline_size);
        smallest = m.byte_offset + (m.bitfield_size ? static_cast<uint32_t>(m.bitfield_offset + m.bitfield_size + 7) / 8
                                                     : m.byte_size);
      }
      types[ti].alignment = infer_alignment(static_cast<uint32_t>(types[ti].size),
                                            natural_alignment(static_cast<uint32_t>(ti), alignment_memo), smallest, cacheline_size);
    }
    return;
  }
  for (size_t ti = 1; ti < types.size(); ++ti) {
    const Type& ty = types[ti];
    if (ty.kind != TKind::Struct && ty.kind != TKind::Union) continue;
    for (uint32_t k = 0; k < ty.count; ++k) {
      Member& m = members[ty.first + k];
      if (m.is_static) continue;
      if (m.bitfield_size == 0) {
        if (m.byte_size == 0) m.byte_size = static_cast<uint32_t>(size_of(m.type));
        m.bit_size = m.byte_size * 8;
        continue;
      }
      if (m.byte_size == 0) {
        uint32_t st = strip(m.type);
        m.byte_size = static_cast<uint32_t>(size_of(st));
        if (m.byte_size == 0) {
          uint64_t bits = t(st).kind == TKind::Enum ? t(st).size * 8 : t(st).bit_size;
          m.byte_size = static_cast<uint32_t>((bits + 7) / 8 * 8);
        }
      }
      m.bit_size = m.byte_size * 8;
      if (m.byte_size == 0) {
        m.bitfield_offset = 0;
        continue;
      }
      int64_t byte_offset = m.byte_offset, bit_offset = m.bit_offset, bitfield_offset = m.bitfield_offset;
      int64_t bit_size = m.bit_size, byte_size = m.byte_size;
      if (!m.has_bit_offset) {
        if (little_endian) bitfield_offset = bit_size - bitfield_offset - m.bitfield_size;
        bit_offset = byte_offset * 8 + bitfield_offset;
      } else {
        byte_offset = bit_offset / 8;
        bitfield_offset = bit_offset - byte_offset * 8;
      }
      if (bitfield_offset < 0) {
        bitfield_offset += bit_size;
        byte_offset -= byte_size;
        bit_offset = byte_offset * 8 + bitfield_offset;
      }
      bitfield_offset += (byte_offset % byte_size) * 8;
      byte_offset = bit_offset / bit_size * bit_size / 8;
      if (bitfield_offset >= bit_size) {
        bitfield_offset -= bit_size;
        byte_offset += byte_size;
      }
      m.byte_offset = static_cast<uint32_t>(byte_offset);
      m.bit_offset = static_cast<uint32_t>(bit_offset);
      m.bitfield_offset = static_cast<int32_t>(bitfield_offset);
    }
  }
}

}  // namespace btfc::layout
