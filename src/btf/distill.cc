// Distilling a split BTF's base, and relocating it back (see distill.h).
//
// distill_base follows libbpf 1.5's btf__distill_base() step by step, so
// that btfc's .BTF.base / .BTF pair has the types, the order and the ids
// pahole 1.31 writes: (1) mark the base types the split types refer to,
// following references inside the base except into named structs/unions;
// (2) emit the marked types that can be matched by name into the new base,
// in base id order; (3) copy the split types, then the other marked types,
// into the new split; (4) renumber references. Strings are re-added by
// text: a split string the new base also has takes the base's offset, as
// libbpf's btf__add_str does.
//
// relocate follows the kernel's btf_relocate.c (Linux 6.11+). The first
// version of that file bounded the loop that marks "embedded" structs
// (those whose size must match) by nr_split_types, skipping the last split
// types; btfc marks them in every split type, which is what its comment
// says and what libbpf's selftest distilled_base_embedded_err needs.
#include "btf/distill.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace btfc::btf {

namespace {

// The base kinds a split table may refer to; libbpf refuses the others
// (a module's FUNC or VAR pointing into vmlinux makes no sense).
bool referable_from_split(Kind k) {
  switch (k) {
    case Kind::Int: case Kind::Float: case Kind::Fwd: case Kind::Array: case Kind::Struct: case Kind::Union:
    case Kind::Typedef: case Kind::Enum: case Kind::Enum64: case Kind::Ptr: case Kind::Const:
    case Kind::Restrict: case Kind::Volatile: case Kind::FuncProto: case Kind::TypeTag:
      return true;
    default:
      return false;
  }
}

// Where a needed base type goes: true = the distilled base (it can be
// matched by name later), false = moved into the new split.
bool goes_to_base(const TypeView& t) {
  switch (t.kind()) {
    case Kind::Int: case Kind::Float: case Kind::Fwd:
      return true;
    case Kind::Struct: case Kind::Union: case Kind::Enum: case Kind::Enum64:
      return t.name_off() != 0;
    default:
      return false;
  }
}

// Appends record `id` of `from` to `to`, its strings re-added to `to` by
// text; type ids are copied unchanged (the caller renumbers them).
TypeId copy_record(Btf& to, const Btf& from, TypeId id, std::vector<uint32_t>& rec) {
  TypeView t = from.type(id);
  rec.assign(t.words(), t.words() + t.word_count());
  visit_str_off_words(rec.data(), [&](uint32_t& off) {
    if (off != 0) off = to.add_string(from.str(off));
  });
  return to.add_record(rec);
}

std::string describe(const TypeView& t) {
  std::string s = "[" + std::to_string(t.id()) + "] " + std::string(kind_name(t.kind()));
  if (t.name_off() != 0) s += " '" + std::string(t.name()) + "'";
  return s;
}

}  // namespace

DistilledBtf distill_base(const Btf& split) {
  if (split.base() == nullptr)
    throw Error("could not generate distilled base BTF: Invalid argument (distilled_base needs split BTF, "
                "i.e. --btf_base)");
  const TypeId split_start = split.start_id();
  const TypeId split_end = split.end_id();

  // (1) Which base types are needed. An explicit stack: base reference
  // chains can be long, and recursion depth must not depend on input.
  std::vector<uint8_t> needed(split_start, 0);
  std::vector<TypeId> stack;
  auto need = [&](uint32_t ref) {
    if (ref == 0 || ref >= split_start || needed[ref]) return;
    TypeView t = split.type(ref);
    if (!referable_from_split(t.kind()))
      throw Error("could not generate distilled base BTF: split BTF refers to base type " + describe(t) +
                  ", a kind libbpf does not distill");
    needed[ref] = 1;
    // A named struct/union becomes an empty placeholder: its members are
    // not needed.
    if (is_composite(t.kind()) && t.name_off() != 0) return;
    stack.push_back(ref);
  };
  for (TypeId id = split_start; id < split_end; ++id) {
    split.for_each_type_id(id, need);
    while (!stack.empty()) {
      TypeId b = stack.back();
      stack.pop_back();
      split.for_each_type_id(b, need);
    }
  }

  // (2) The distilled base: named types only, in base id order.
  DistilledBtf out{std::make_unique<Btf>(), Btf()};
  Btf& base = *out.base;
  std::vector<TypeId> id_map(split_end, 0);  // old base id -> id in the new base or split
  std::vector<uint32_t> rec;
  for (TypeId i = 1; i < split_start; ++i) {
    if (!needed[i]) continue;
    TypeView t = split.type(i);
    if (!goes_to_base(t)) continue;
    switch (t.kind()) {
      case Kind::Struct: id_map[i] = base.add_struct(t.name(), t.size()); break;
      case Kind::Union: id_map[i] = base.add_union(t.name(), t.size()); break;
      // ENUM64 too becomes a sized ENUM: relocation accepts either kind.
      case Kind::Enum: case Kind::Enum64: id_map[i] = base.add_enum(t.name(), t.size()); break;
      default: id_map[i] = copy_record(base, split, i, rec); break;  // INT, FLOAT, FWD
    }
  }

  // (3) The new split: the module's types as they were, then the base
  // types that travel whole.
  out.split = Btf(out.base.get());
  Btf& ns = out.split;
  ns.reserve(split.type_count(), split.words().size(), split.strings().size());
  for (TypeId id = split_start; id < split_end; ++id) copy_record(ns, split, id, rec);
  for (TypeId i = 1; i < split_start; ++i)
    if (needed[i] && !goes_to_base(split.type(i))) id_map[i] = copy_record(ns, split, i, rec);

  // (4) Renumber: base references through id_map (void stays 0), module
  // types move down by as many ids as the base shrank.
  const uint32_t shift = split_start - base.end_id();
  for (TypeId id = ns.start_id(); id < ns.end_id(); ++id)
    ns.for_each_type_id_ref(id, [&](uint32_t& ref) { ref = ref < split_start ? id_map[ref] : ref - shift; });
  return out;
}

Btf relocate(const Btf& split, const Btf& base) {
  const Btf* dist = split.base();
  if (dist == nullptr || dist->base() != nullptr)
    throw Error("BTF relocation: the BTF is not split BTF on a standalone distilled base");
  if (dist == &base) throw Error("BTF relocation: the BTF is already split on that base");
  const TypeId dist_end = dist->end_id();
  const TypeId split_end = split.end_id();

  // The distilled base must hold only what distill_base puts there.
  for (TypeId i = 1; i < dist_end; ++i) {
    TypeView t = dist->type(i);
    switch (t.kind()) {
      case Kind::Int: case Kind::Float: case Kind::Enum: case Kind::Struct: case Kind::Union: case Kind::Fwd:
        if (t.name_off() == 0)
          throw Error(".BTF.base", 0, "type [" + std::to_string(i) + "] " + std::string(kind_name(t.kind())) +
                                          " is invalid for distilled base BTF: it is anonymous");
        break;
      default:
        throw Error(".BTF.base", 0, "type [" + std::to_string(i) + "] in distilled base BTF has unexpected kind " +
                                        std::string(kind_name(t.kind())));
    }
  }

  // Module ids follow the full base's last id.
  std::vector<TypeId> id_map(split_end, 0);
  for (TypeId id = dist_end; id < split_end; ++id) id_map[id] = id - dist_end + base.end_id();

  // Distilled structs/unions a module struct/union embeds (through
  // qualifiers, typedefs, arrays; not pointers) must match in size too.
  constexpr TypeId EMBEDDED = UINT32_MAX;
  for (TypeId id = dist_end; id < split_end; ++id) {
    if (!is_composite(split.kind(id))) continue;
    for (Member m : split.type(id).members()) {
      TypeId next = m.type;
      // Bounded: a reader-validated table has no reference cycles, but a
      // table built in memory is not re-checked here.
      for (TypeId steps = 0; next != 0 && steps < split_end; ++steps) {
        TypeView t = split.type(next);
        switch (t.kind()) {
          case Kind::Const: case Kind::Restrict: case Kind::Volatile: case Kind::Typedef: case Kind::TypeTag:
            next = t.type();
            continue;
          case Kind::Array:
            next = t.array().type;
            continue;
          case Kind::Struct: case Kind::Union:
            if (next < dist_end) id_map[next] = EMBEDDED;
            break;
          default:
            break;
        }
        break;
      }
    }
  }

  // Distilled types by name; full-base struct/union name counts (a name
  // several base composites share is matched by name and size).
  std::unordered_map<std::string_view, std::vector<TypeId>> by_name;
  for (TypeId i = 1; i < dist_end; ++i) by_name[dist->type(i).name()].push_back(i);
  std::vector<uint8_t> name_count(base.end_str_off(), 0);
  for (TypeId id = 1; id < base.end_id(); ++id) {
    TypeView b = base.type(id);
    if (is_composite(b.kind()) && b.name_off() != 0 && name_count[b.name_off()] < 255) name_count[b.name_off()]++;
  }

  std::vector<uint32_t> str_map(dist->end_str_off(), 0);
  for (TypeId id = 1; id < base.end_id(); ++id) {
    TypeView b = base.type(id);
    if (b.name_off() == 0) continue;
    bool needs_size;
    switch (b.kind()) {
      case Kind::Int: case Kind::Float: case Kind::Enum: case Kind::Enum64: needs_size = true; break;
      case Kind::Fwd: needs_size = false; break;
      case Kind::Struct: case Kind::Union: needs_size = name_count[b.name_off()] > 1; break;
      default: continue;
    }
    auto found = by_name.find(b.name());
    if (found == by_name.end()) continue;
    for (TypeId d_id : found->second) {
      TypeView d = dist->type(d_id);
      // The kernel keeps a size with every distilled entry (0 for FWD).
      if (needs_size && d.size() != b.size()) continue;
      // Kind compatibility, as btf_relocate.c has it (its FWD rule looks
      // at the base struct's/union's kind_flag).
      bool ok = false;
      switch (d.kind()) {
        case Kind::Fwd:
          if (b.kind() == Kind::Fwd) ok = d.kind_flag() == b.kind_flag();
          else if (b.kind() == Kind::Struct) ok = !b.kind_flag();
          else if (b.kind() == Kind::Union) ok = b.kind_flag();
          break;
        case Kind::Int: ok = b.kind() == Kind::Int && b.int_encoding() == d.int_encoding(); break;
        case Kind::Float: ok = b.kind() == Kind::Float; break;
        case Kind::Enum: ok = b.kind() == Kind::Enum || b.kind() == Kind::Enum64; break;
        case Kind::Struct: case Kind::Union: ok = id_map[d_id] != EMBEDDED || b.size() == d.size(); break;
        default: break;
      }
      if (!ok) continue;
      if (id_map[d_id] != 0 && id_map[d_id] != EMBEDDED)
        throw Error("BTF relocation: distilled base BTF type '" + std::string(d.name()) + "' [" +
                    std::to_string(d_id) + "], size " + std::to_string(b.size()) +
                    " has multiple candidates of the same size (ids [" + std::to_string(id) + ", " +
                    std::to_string(id_map[d_id]) + "]) in base BTF");
      id_map[d_id] = id;
      str_map[d.name_off()] = b.name_off();
    }
  }
  for (TypeId i = 1; i < dist_end; ++i)
    if (id_map[i] == 0 || id_map[i] == EMBEDDED)
      throw Error("BTF relocation: distilled base BTF type " + describe(dist->type(i)) +
                  " is not mapped to base BTF id");

  // The module's records and its own string section, renumbered.
  Btf out(&base);
  std::span<const char> own = split.strings().bytes();
  std::vector<uint8_t> strings(own.begin(), own.end());
  out.assign_raw(UninitVector<uint32_t>(split.words().begin(), split.words().end()),
                 UninitVector<uint32_t>(split.offsets().begin(), split.offsets().end()), strings);
  const uint32_t dist_str_len = dist->end_str_off();
  for (TypeId id = out.start_id(); id < out.end_id(); ++id) {
    out.for_each_type_id_ref(id, [&](uint32_t& ref) { ref = id_map[ref]; });
    out.for_each_str_ref(id, [&](uint32_t& off) {
      if (off == 0) return;
      if (off >= dist_str_len) {
        off = off - dist_str_len + base.end_str_off();
        return;
      }
      if (str_map[off] == 0)
        throw Error("BTF relocation: string '" + std::string(dist->str(off)) + "' [offset " + std::to_string(off) +
                    "] is not mapped to base BTF");
      off = str_map[off];
    });
  }
  return out;
}

}  // namespace btfc::btf
