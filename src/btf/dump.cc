// bpftool's raw dump format (see dump.h). Built for speed on vmlinux-sized
// tables (100k types, 10 MB of text): one output string, integers through
// std::to_chars, no printf. The field order and spelling follow bpftool's
// dump_btf_type(); quirks kept on purpose: VAR prints "type_id=N, linkage",
// with a comma; names at offset 0 print as (anon).
#include "btf/dump.h"

#include <charconv>

namespace btfc::btf {

namespace {

class Out {
 public:
  explicit Out(std::string& s) : s_(s) {}
  Out& operator<<(std::string_view v) {
    s_.append(v);
    return *this;
  }
  Out& operator<<(char c) {
    s_.push_back(c);
    return *this;
  }
  template <typename T>
  Out& num(T v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    s_.append(buf, r.ptr);
    return *this;
  }

 private:
  std::string& s_;
};

const char* int_encoding_name(uint32_t e) {
  switch (e) {
    case 0: return "(none)";
    case INT_SIGNED: return "SIGNED";
    case INT_CHAR: return "CHAR";
    case INT_BOOL: return "BOOL";
    default: return "UNKN";
  }
}

const char* linkage_name(uint32_t l) {
  switch (l) {
    case 0: return "static";
    case 1: return "global";
    case 2: return "extern";
    default: return "(unknown)";
  }
}

}  // namespace

void dump_raw(const Btf& btf, std::string& out) {
  out.reserve(out.size() + btf.words().size() * 12);
  Out o(out);
  auto name = [&](uint32_t off) -> std::string_view {
    if (off == 0) return "(anon)";
    if (!btf.valid_str_off(off)) return "(invalid)";
    return btf.str(off);
  };
  for (TypeId id = btf.start_id(); id < btf.end_id(); ++id) {
    TypeView t = btf.type(id);
    Kind k = t.kind();
    o << '[';
    o.num(id) << "] " << kind_name(k) << " '" << name(t.name_off()) << '\'';
    switch (k) {
      case Kind::Int:
        o << " size=";
        o.num(t.size()) << " bits_offset=";
        o.num(t.int_offset()) << " nr_bits=";
        o.num(t.int_bits()) << " encoding=" << int_encoding_name(t.int_encoding());
        break;
      case Kind::Ptr: case Kind::Const: case Kind::Volatile: case Kind::Restrict: case Kind::Typedef:
      case Kind::TypeTag:
        o << " type_id=";
        o.num(t.type());
        break;
      case Kind::Array: {
        ArrayInfo a = t.array();
        o << " type_id=";
        o.num(a.type) << " index_type_id=";
        o.num(a.index_type) << " nr_elems=";
        o.num(a.nelems);
        break;
      }
      case Kind::Struct: case Kind::Union:
        o << " size=";
        o.num(t.size()) << " vlen=";
        o.num(t.vlen());
        for (Member m : t.members()) {
          o << "\n\t'" << name(m.name_off) << "' type_id=";
          o.num(m.type) << " bits_offset=";
          o.num(m.bit_offset());
          if (m.bitfield_size()) {
            o << " bitfield_size=";
            o.num(m.bitfield_size());
          }
        }
        break;
      case Kind::Enum:
        o << " encoding=" << (t.kind_flag() ? "SIGNED" : "UNSIGNED") << " size=";
        o.num(t.size()) << " vlen=";
        o.num(t.vlen());
        for (EnumValue v : t.enum_values()) {
          o << "\n\t'" << name(v.name_off) << "' val=";
          if (t.kind_flag())
            o.num(static_cast<int32_t>(v.val));
          else
            o.num(v.val);
        }
        break;
      case Kind::Enum64:
        o << " encoding=" << (t.kind_flag() ? "SIGNED" : "UNSIGNED") << " size=";
        o.num(t.size()) << " vlen=";
        o.num(t.vlen());
        for (Enum64Value v : t.enum64_values()) {
          o << "\n\t'" << name(v.name_off) << "' val=";
          if (t.kind_flag())
            o.num(static_cast<int64_t>(v.val)) << "LL";
          else
            o.num(v.val) << "ULL";
        }
        break;
      case Kind::Fwd:
        o << " fwd_kind=" << (t.kind_flag() ? "union" : "struct");
        break;
      case Kind::Func:
        o << " type_id=";
        o.num(t.type()) << " linkage=" << linkage_name(t.func_linkage());
        break;
      case Kind::FuncProto:
        o << " ret_type_id=";
        o.num(t.type()) << " vlen=";
        o.num(t.vlen());
        for (Param p : t.params()) {
          o << "\n\t'" << name(p.name_off) << "' type_id=";
          o.num(p.type);
        }
        break;
      case Kind::Var:
        o << " type_id=";
        o.num(t.type()) << ", linkage=" << linkage_name(t.var_linkage());
        break;
      case Kind::Datasec:
        o << " size=";
        o.num(t.size()) << " vlen=";
        o.num(t.vlen());
        for (VarSecinfo v : t.secinfos()) {
          o << "\n\ttype_id=";
          o.num(v.type) << " offset=";
          o.num(v.offset) << " size=";
          o.num(v.size);
          if (v.type < btf.end_id() && v.type != 0) {
            TypeView vt = btf.type(v.type);
            o << " (" << kind_name(vt.kind()) << " '" << name(vt.name_off()) << "')";
          }
        }
        break;
      case Kind::Float:
        o << " size=";
        o.num(t.size());
        break;
      case Kind::DeclTag:
        o << " type_id=";
        o.num(t.type()) << " component_idx=";
        o.num(t.component_idx());
        break;
      default:
        break;
    }
    o << '\n';
  }
}

}  // namespace btfc::btf
