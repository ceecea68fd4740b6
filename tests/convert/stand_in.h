// A test-only stand-in for the encoder's unit type conversion and pipeline,
// enough for the function and variable rules: every type a FUNC_PROTO or a
// VAR refers to becomes a BTF type with pahole's kind, name, size, INT
// encoding and flattened array count, but structs and unions get no members
// (the function rules compare aggregates by name, and variable sizes come
// from byte_size). The real pipeline (src/convert/encode.*) replaces this in
// the whole-graph comparisons.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/parallel.h"
#include "btf/btf.h"
#include "btf/merge.h"
#include "convert/functions.h"
#include "convert/variables.h"
#include "dwarf/constants.h"
#include "dwarf/dwarf_file.h"
#include "elf/elf_file.h"

namespace btfc::test {

class StandInTypes : public convert::TypeLookup {
 public:
  StandInTypes(const dwarf::DwarfFile& dw, bool floats) : dw_(dw), floats_(floats) {}
  btf::Btf& table() override { return table_; }
  btf::TypeId type_id(uint64_t off) override {
    auto it = ids_.find(off);
    if (it != ids_.end()) return it->second;
    btf::TypeId id = convert(off);
    ids_[off] = id;
    return id;
  }

 private:
  btf::TypeId ref(const dwarf::Attrs& a) { return a.type ? type_id(*a.type) : 0; }
  btf::TypeId convert(uint64_t off) {
    using namespace dwarf;
    Die d = dw_.die_at(off);
    Attrs a = dw_.attrs(d);
    switch (d.tag) {
      case DW_TAG_base_type: {
        uint32_t size = static_cast<uint32_t>(a.byte_size.value_or(0));
        uint64_t enc = a.encoding.value_or(0);
        if (floats_ && enc == 0x04) return table_.add_float(a.name, size);
        uint32_t e = (enc == 0x05 || enc == 0x06) ? btf::INT_SIGNED : enc == 0x02 ? btf::INT_BOOL : 0;
        if (!size || (size & (size - 1)) || size > 16) return table_.add_int("__SANITIZED_FAKE_INT__", 4, e);
        return table_.add_int(a.name, size, e);
      }
      case DW_TAG_pointer_type: {
        btf::TypeId id = table_.add_ptr(0);
        ids_[off] = id;  // pointers may close cycles (a prototype taking its own pointer type)
        btf::TypeId to = ref(a);
        table_.mutable_record(id)[2] = to;
        return id;
      }
      case DW_TAG_const_type: return table_.add_const(ref(a));
      case DW_TAG_volatile_type: return table_.add_volatile(ref(a));
      case DW_TAG_restrict_type: return table_.add_restrict(ref(a));
      case DW_TAG_atomic_type: return ref(a);
      case DW_TAG_typedef: return table_.add_typedef(a.name, ref(a));
      case DW_TAG_unspecified_type: return 0;
      case DW_TAG_structure_type: case DW_TAG_class_type: case DW_TAG_union_type: {
        bool is_union = d.tag == DW_TAG_union_type;
        if (a.declaration) return table_.add_fwd(a.name, is_union);
        uint32_t size = static_cast<uint32_t>(a.byte_size.value_or(0));
        return is_union ? table_.add_union(a.name, size) : table_.add_struct(a.name, size);
      }
      case DW_TAG_enumeration_type: {
        uint32_t size = static_cast<uint32_t>(a.byte_size.value_or(4));
        return size <= 4 ? table_.add_enum(a.name, size) : table_.add_enum64(a.name, size, false);
      }
      case DW_TAG_array_type: {
        uint32_t n = 1;
        DieCursor c(d);
        Die k;
        c.next(k);
        while (c.next(k)) {
          if (c.depth() != 1) continue;
          if (k.tag != DW_TAG_subrange_type) continue;
          Attrs s = dw_.attrs(k);
          uint32_t dim = s.upper_bound ? static_cast<uint32_t>(*s.upper_bound + 1)
                                       : s.count ? static_cast<uint32_t>(*s.count) : 0;
          n *= dim;
        }
        btf::TypeId elem = ref(a);
        if (!int_) int_ = table_.add_int("int", 4, btf::INT_SIGNED);
        return table_.add_array(elem, int_, n);
      }
      case DW_TAG_subroutine_type: {
        std::vector<btf::TypeId> params;
        bool varargs = false;
        DieCursor c(d);
        Die k;
        c.next(k);
        while (c.next(k)) {
          if (c.depth() != 1) continue;
          if (k.tag == DW_TAG_formal_parameter) params.push_back(ref(dw_.attrs(k)));
          if (k.tag == DW_TAG_unspecified_parameters) varargs = true;
        }
        btf::TypeId ret = ref(a);
        btf::TypeId id = table_.add_func_proto(ret);
        for (btf::TypeId p : params) table_.add_param("", p);
        if (varargs) table_.add_param("", 0);
        return id;
      }
      default: return 0;
    }
  }

  const dwarf::DwarfFile& dw_;
  bool floats_;
  btf::Btf table_;
  btf::TypeId int_ = 0;
  std::unordered_map<uint64_t, btf::TypeId> ids_;
};

struct StandInOptions {
  convert::FunctionOptions funcs;
  convert::VariableOptions vars;
  bool floats = true;
};

struct StandInResult {
  btf::Btf btf;
  convert::FunctionStats stats;
};

// Units in parallel, appended in unit order, then functions and variables:
// the encoder's pipeline without its type rules and without dedup.
inline StandInResult run_stand_in(const std::string& path, const StandInOptions& o) {
  auto elf = elf::ElfFile::open(path);
  dwarf::DwarfFile dw(*elf);
  convert::FunctionIndex index(*elf, {.kfuncs = o.funcs.decl_tag_kfuncs});
  convert::VariableIndex vindex(*elf, o.vars);
  const auto& units = dw.units();
  struct Slot {
    std::unique_ptr<StandInTypes> types;
    convert::UnitFunctions funcs;
    convert::UnitVariables vars;
  };
  std::vector<Slot> slots(units.size());
  parallel_for(units.size(), [&](size_t i) {
    const dwarf::Unit& u = units[i];
    if (u.root_tag != dwarf::DW_TAG_compile_unit) return;
    if (u.language == 0x1c) return;  // DW_LANG_Rust: --lang_exclude=rust
    slots[i].types = std::make_unique<StandInTypes>(dw, o.floats);
    convert::collect_functions(dw, u, index, *slots[i].types, o.funcs, slots[i].funcs);
    convert::collect_variables(dw, u, vindex, *slots[i].types, o.vars, slots[i].vars);
  });
  StandInResult r;
  std::vector<const convert::UnitFunctions*> uf;
  std::vector<const convert::UnitVariables*> uv;
  for (Slot& s : slots) {
    if (!s.types) continue;
    const btf::Btf& t = s.types->table();
    btf::TypeId start = btf::append(r.btf, t);
    auto f = [&](btf::TypeId id) { return id >= t.start_id() ? id + (start - t.start_id()) : id; };
    s.funcs.remap_type_ids(f);
    s.vars.remap_type_ids(f);
    uf.push_back(&s.funcs);
    uv.push_back(&s.vars);
  }
  r.stats = convert::emit_functions(index, uf, o.funcs, r.btf);
  convert::emit_variables(vindex, uv, r.btf);
  return r;
}

}  // namespace btfc::test
