// BTF -> layout model, as pahole's BTF loader sees it: one table, type id =
// index, every type top-level; FWD is a struct/union declaration, FUNC_PROTO
// a prototype whose trailing void parameter means `...`, TYPE_TAG is
// transparent, and there is no alignment information.
#include "layout/layout.h"

namespace btfc::layout {

void build_btf_table(const btf::Btf& b, Table& out, unsigned cacheline_size) {
  out = Table{};
  out.cacheline_size = cacheline_size;
  out.has_alignment_info = false;
  out.little_endian = true;
  // As pahole's BTF loader: btf__pointer_size (i386's pointers are 4 bytes).
  if (uint32_t p = btf::pointer_size(b)) out.addr_size = static_cast<uint8_t>(p);
  uint32_t end = b.end_id();
  out.types.resize(end);
  for (uint32_t id = 1; id < end; ++id) {
    btf::TypeView v = b.type(id);
    Type& ty = out.types[id];
    ty.top_level = true;
    ty.name = v.name();
    switch (v.kind()) {
      case btf::Kind::Int:
      case btf::Kind::Float:
        ty.kind = TKind::Base;
        ty.size = v.size();
        ty.bit_size = v.size() * 8;
        break;
      case btf::Kind::Ptr: ty.kind = TKind::Pointer; ty.type = v.type(); break;
      case btf::Kind::Typedef: ty.kind = TKind::Typedef; ty.type = v.type(); break;
      case btf::Kind::Volatile: ty.kind = TKind::Volatile; ty.type = v.type(); break;
      case btf::Kind::Const: ty.kind = TKind::Const; ty.type = v.type(); break;
      case btf::Kind::Restrict: ty.kind = TKind::Restrict; ty.type = v.type(); break;
      case btf::Kind::TypeTag: ty.kind = TKind::Annotation; ty.type = v.type(); break;
      case btf::Kind::Array: {
        ty.kind = TKind::Array;
        btf::ArrayInfo a = v.array();
        ty.type = a.type;
        ty.first = static_cast<uint32_t>(out.dims.size());
        ty.count = 1;
        out.dims.push_back(a.nelems);
        break;
      }
      case btf::Kind::Struct:
      case btf::Kind::Union: {
        ty.kind = v.kind() == btf::Kind::Struct ? TKind::Struct : TKind::Union;
        ty.size = v.size();
        ty.first = static_cast<uint32_t>(out.members.size());
        ty.count = v.vlen();
        for (btf::Member m : v.members()) {
          Member mm;
          mm.name = b.str(m.name_off);
          mm.type = m.type;
          mm.bit_offset = m.bit_offset();
          mm.byte_offset = mm.bit_offset / 8;
          mm.bitfield_size = m.bitfield_size();
          mm.has_bit_offset = true;
          out.members.push_back(mm);
        }
        out.classes.push_back(id);
        break;
      }
      case btf::Kind::Fwd:
        ty.kind = v.kind_flag() ? TKind::Union : TKind::Struct;
        ty.declaration = true;
        break;
      case btf::Kind::Enum: {
        ty.kind = TKind::Enum;
        ty.size = v.size();
        ty.is_signed = v.kind_flag();
        ty.first = static_cast<uint32_t>(out.enumerators.size());
        ty.count = v.vlen();
        for (btf::EnumValue e : v.enum_values()) {
          uint64_t val = ty.is_signed ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(e.val)))
                                      : e.val;
          out.enumerators.push_back({b.str(e.name_off), val});
        }
        break;
      }
      case btf::Kind::Enum64: {
        ty.kind = TKind::Enum;
        ty.size = v.size();
        ty.is_signed = v.kind_flag();
        ty.first = static_cast<uint32_t>(out.enumerators.size());
        ty.count = v.vlen();
        for (btf::Enum64Value e : v.enum64_values()) out.enumerators.push_back({b.str(e.name_off), e.val});
        break;
      }
      case btf::Kind::FuncProto: {
        ty.kind = TKind::Func;
        ty.type = v.type();
        ty.first = static_cast<uint32_t>(out.params.size());
        uint32_t n = 0;
        uint32_t vlen = v.vlen();
        for (uint32_t i = 0; i < vlen; ++i) {
          btf::Param p = v.param(i);
          if (i + 1 == vlen && p.type == 0 && p.name_off == 0) {
            ty.unspec_params = true;
            break;
          }
          out.params.push_back({b.str(p.name_off), p.type});
          ++n;
        }
        ty.count = n;
        break;
      }
      case btf::Kind::Func: {
        ty.kind = TKind::Other;
        if (b.type(v.type()).kind() != btf::Kind::FuncProto) break;
        btf::TypeView proto = b.type(v.type());
        for (uint32_t i = 0; i < proto.vlen(); ++i) out.function_params.push_back(proto.param(i).type);
        break;
      }
      default:
        ty.kind = TKind::Other;
        break;
    }
  }
  out.finalize();
}

}  // namespace btfc::layout
