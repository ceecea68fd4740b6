// Id-independent descriptions of FUNCs, VARs and DATASECs, so that a table
// built by btfc (before or after dedup) can be compared with pahole's
// reference output: a FUNC is its name, linkage and prototype with
// parameter names and type names/shapes; a VAR its name, linkage and type;
// a DATASEC its name, size and (var name, offset, size) entries.
#pragma once

#include <map>
#include <set>
#include <string>

#include "btf/btf.h"

namespace btfc::test {

// Struct and FWD-of-struct print alike: dedup resolves a declaration to its
// definition, which does not change what a prototype means.
inline std::string type_text(const btf::Btf& t, btf::TypeId id, int depth = 0) {
  if (id == 0) return "void";
  if (depth > 8) return "...";
  btf::TypeView v = t.type(id);
  std::string name(t.str(v.name_off()));
  switch (v.kind()) {
    case btf::Kind::Int: return "int " + name + "/" + std::to_string(v.size()) + "/" + std::to_string(v.words()[3] >> 24);
    case btf::Kind::Float: return "float " + name + "/" + std::to_string(v.size());
    case btf::Kind::Struct: return name.empty() ? "struct {" + std::to_string(v.size()) + "}" : "struct " + name;
    case btf::Kind::Union: return name.empty() ? "union {" + std::to_string(v.size()) + "}" : "union " + name;
    case btf::Kind::Fwd: return (v.kind_flag() ? "union " : "struct ") + name;
    case btf::Kind::Enum: case btf::Kind::Enum64: return "enum " + name;
    case btf::Kind::Typedef: return "typedef " + name;
    case btf::Kind::Ptr: return "*" + type_text(t, v.type(), depth + 1);
    case btf::Kind::Const: return "const " + type_text(t, v.type(), depth + 1);
    case btf::Kind::Volatile: return "volatile " + type_text(t, v.type(), depth + 1);
    case btf::Kind::Restrict: return "restrict " + type_text(t, v.type(), depth + 1);
    case btf::Kind::TypeTag: return "tag(" + name + ") " + type_text(t, v.type(), depth + 1);
    case btf::Kind::Array:
      return "[" + std::to_string(v.array().nelems) + "]" + type_text(t, v.array().type, depth + 1);
    case btf::Kind::FuncProto: {
      std::string s = "fn(";
      for (uint32_t i = 0; i < v.vlen(); i++) {
        btf::Param p = v.param(i);
        if (i) s += ", ";
        s += std::string(t.str(p.name_off)) + ":" + type_text(t, p.type, depth + 1);
      }
      return s + ") -> " + type_text(t, v.type(), depth + 1);
    }
    default: return std::string(btf::kind_name(v.kind())) + " " + name;
  }
}

struct Summary {
  std::map<std::string, std::string> funcs;  // name -> "linkage proto"
  std::multiset<std::string> vars;           // "name linkage type"
  std::map<std::string, std::string> datasecs;  // name -> "size: var@off+size ..."
  size_t func_count = 0, var_count = 0, decl_tags = 0;
};

inline Summary summarize(const btf::Btf& t) {
  Summary s;
  for (btf::TypeId id = t.start_id(); id < t.end_id(); id++) {
    btf::TypeView v = t.type(id);
    std::string name(t.str(v.name_off()));
    switch (v.kind()) {
      case btf::Kind::Func:
        s.func_count++;
        s.funcs[name] = std::to_string(static_cast<uint32_t>(v.func_linkage())) + " " + type_text(t, v.type());
        break;
      case btf::Kind::Var:
        s.var_count++;
        s.vars.insert(name + " " + std::to_string(static_cast<uint32_t>(v.var_linkage())) + " " +
                      type_text(t, v.type()));
        break;
      case btf::Kind::Datasec: {
        std::string d = std::to_string(v.size()) + ":";
        for (uint32_t i = 0; i < v.vlen(); i++) {
          btf::VarSecinfo e = v.secinfo(i);
          d += " " + std::string(t.str(t.type(e.type).name_off())) + "@" + std::to_string(e.offset) + "+" +
               std::to_string(e.size);
        }
        s.datasecs[name] = d;
        break;
      }
      case btf::Kind::DeclTag: s.decl_tags++; break;
      default: break;
    }
  }
  return s;
}

}  // namespace btfc::test
