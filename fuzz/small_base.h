// The small base BTF the fuzz targets that need one share: int,
// struct list { struct list *next; int n; }, a forward, a typedef, an enum,
// a prototype and a function: every kind of chain a base index keeps, and
// named STRUCT/INT/ENUM/FWD types a distilled base can match.
#pragma once

#include "btf/btf.h"

namespace btfc::fuzz {

// Adds those types to `t` (standalone, or split: then the module's own).
inline void add_small_types(btf::Btf& t) {
  using namespace btf;
  TypeId i = t.add_int("int", 4, INT_SIGNED);
  TypeId ptr = t.add_ptr(i + 2);  // to the struct, next
  TypeId list = t.add_struct("list", 16);
  t.add_member("next", ptr, 0);
  t.add_member("n", i, 64);
  t.add_fwd("later", false);
  t.add_typedef("list_t", list);
  t.add_enum("state", 4, false);
  t.add_enum_value("OFF", 0);
  t.add_enum_value("ON", 1);
  TypeId proto = t.add_func_proto(i);
  t.add_param("l", ptr);
  t.add_func("use", proto, FuncLinkage::Global);
}

inline const btf::Btf& small_base() {
  static const btf::Btf b = [] {
    btf::Btf t;
    add_small_types(t);
    return t;
  }();
  return b;
}

}  // namespace btfc::fuzz
