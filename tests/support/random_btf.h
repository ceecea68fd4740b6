// Random type graphs for dedup's differential tests (tests/btf and the
// fuzz target dedup_vs_libbpf), driven by a seed or by a fuzzer's bytes.
//
// A "universe" of random types of every kind dedup knows (forward
// references included, loops only through STRUCT/UNION members, as C
// allows) stands for a program's headers; a "unit" is what a compiler
// emits for one file: a copy of the part of the universe some roots reach,
// in random order, where a struct it only points to may be just declared
// (a FWD), one definition may differ from the others (a member renamed, an
// enumerator's value changed), and a type may come twice (the identical
// twins compilers sometimes emit), some with variables in a DATASEC. A
// base is one to three units, deduplicated or not; a split table on it is
// one to four more units (now and then up to 47), each of which may refer
// to the base's copy of a type directly instead of its own (what dedup
// sees from btfc's API or an earlier split table, never from the encoder).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "base/error.h"
#include "btf/btf.h"
#include "btf/dedup.h"
#include "btf/reader.h"
#include "btf/writer.h"

namespace btfc::btf::testing {

// Where the random choices come from.
class Choices {
 public:
  virtual ~Choices() = default;
  // A number in [0, n); 0 when n is 0.
  virtual uint32_t below(uint32_t n) = 0;
  bool one_in(uint32_t n) { return below(n) == 0; }
  template <typename T>
  const T& of(std::span<const T> items) { return items[below(static_cast<uint32_t>(items.size()))]; }
};

class SeededChoices : public Choices {
 public:
  explicit SeededChoices(uint32_t seed) : rng_(seed) {}
  uint32_t below(uint32_t n) override { return n ? static_cast<uint32_t>(rng_() % n) : 0; }

 private:
  std::mt19937 rng_;
};

// A fuzzer's bytes, one (or two, past 256 choices) per choice; 0 once
// they run out, so every input makes some tables.
class ByteChoices : public Choices {
 public:
  explicit ByteChoices(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  uint32_t below(uint32_t n) override {
    if (n <= 1) return 0;
    uint32_t v = next();
    if (n > 256) v = v << 8 | next();
    return v % n;
  }

 private:
  uint32_t next() { return at_ < bytes_.size() ? bytes_[at_++] : 0; }
  std::span<const uint8_t> bytes_;
  size_t at_ = 0;
};

class RandomGraph {
 public:
  // A universe of 6 to 39 types.
  explicit RandomGraph(Choices& c) : c_(c) { make_universe(); }

  // Appends a unit to `out`; with `base_copy` (universe id -> the id of an
  // unchanged copy in out's base, or 0), each type the base has a copy of
  // is referred to there instead, with chance 1 in `base_odds`.
  // `copies` (if given) gets, per universe id, the id of its unchanged
  // copy in this unit (0: none).
  void write_unit(Btf& out, const std::vector<TypeId>* base_copy = nullptr, uint32_t base_odds = 2,
                  std::vector<TypeId>* copies = nullptr) {
    const TypeId n = u_.end_id();
    // The part the roots reach.
    std::vector<bool> in(n, false);
    std::vector<TypeId> todo;
    for (uint32_t k = 1 + c_.below(4); k-- > 0;) todo.push_back(1 + c_.below(n - 1));
    while (!todo.empty()) {
      TypeId t = todo.back();
      todo.pop_back();
      if (t == 0 || in[t]) continue;
      in[t] = true;
      visit_type_id_words(u_.record(t), [&](uint32_t x) { todo.push_back(x); });
    }
    // Taken from the base, declared only, changed, or twinned.
    std::vector<bool> by_value(n, false), from_base(n, false), declared(n, false), changed(n, false),
        twinned(n, false);
    // A struct met by value (through anything but a pointer) must be
    // defined where it is met.
    for (TypeId t = 1; t < n; ++t)
      if (in[t] && info_kind(u_.record(t)[1]) != Kind::Ptr)
        visit_type_id_words(u_.record(t), [&](uint32_t x) { by_value[x] = true; });
    std::vector<TypeId> kept;
    for (TypeId t = 1; t < n; ++t) {
      if (!in[t]) continue;
      if (base_copy && (*base_copy)[t] && c_.one_in(base_odds)) {
        from_base[t] = true;
        continue;
      }
      const uint32_t* r = u_.record(t);
      const Kind k = info_kind(r[1]);
      if ((k == Kind::Struct || k == Kind::Union) && r[0] && !by_value[t] && c_.one_in(3)) declared[t] = true;
      else if ((k == Kind::Struct || k == Kind::Union) && info_vlen(r[1]) && c_.one_in(8)) changed[t] = true;
      else if (k == Kind::Enum && info_vlen(r[1]) && c_.one_in(8)) changed[t] = true;
      if (k != Kind::Fwd && k != Kind::DeclTag && !declared[t] && c_.one_in(8)) twinned[t] = true;
      kept.push_back(t);
      if (twinned[t]) kept.push_back(t);
    }
    // A random order; a twin's references go to either copy.
    for (size_t i = kept.size(); i > 1; --i) std::swap(kept[i - 1], kept[c_.below(static_cast<uint32_t>(i))]);
    std::vector<TypeId> first(n, 0), second(n, 0);
    for (size_t i = 0; i < kept.size(); ++i) {
      TypeId id = out.end_id() + static_cast<TypeId>(i);
      (first[kept[i]] ? second[kept[i]] : first[kept[i]]) = id;
    }
    auto target = [&](uint32_t t) -> uint32_t {
      if (t == 0) return 0;
      if (from_base[t]) return (*base_copy)[t];
      return second[t] && c_.one_in(2) ? second[t] : first[t];
    };
    for (TypeId t : kept) {
      const uint32_t* r = u_.record(t);
      std::vector<uint32_t> rec(r, r + u_.type(t).word_count());
      if (declared[t]) {
        out.add_fwd(u_.str(r[0]), info_kind(r[1]) == Kind::Union);
        continue;
      }
      visit_type_id_words(rec.data(), [&](uint32_t& x) { x = target(x); });
      visit_str_off_words(rec.data(), [&](uint32_t& off) { off = out.add_string(u_.str(off)); });
      if (changed[t]) {
        const uint32_t i = c_.below(info_vlen(rec[1]));
        if (info_kind(rec[1]) == Kind::Enum) rec[4 + 2 * i] += 1;
        else rec[3 + 3 * i] = out.add_string("q");
      }
      out.add_record(rec);
    }
    // Some units end with variables of their types, in a DATASEC.
    if (c_.one_in(4)) {
      std::vector<std::pair<TypeId, uint32_t>> vars;  // VAR, size
      uint32_t at = 0;
      for (uint32_t k = 1 + c_.below(2); k-- > 0;) {
        const TypeId t = kept.empty() ? 0 : kept[c_.below(static_cast<uint32_t>(kept.size()))];
        if (!t || !sizes_[t] || declared[t] || kinds_[t] == Kind::Func || kinds_[t] == Kind::DeclTag) continue;
        const VarLinkage linkage = c_.one_in(2) ? VarLinkage::Static : VarLinkage::GlobalAllocated;
        vars.push_back({out.add_var(of_names(c_, {"v", "w"}), first[t], linkage), sizes_[t]});
      }
      if (!vars.empty()) {
        for (auto [var, size] : vars) at += (size + 7) / 8 * 8;
        out.add_datasec(".data", at);
        at = 0;
        for (auto [var, size] : vars) {
          out.add_datasec_var(var, at, size);
          at += (size + 7) / 8 * 8;
        }
      }
    }
    if (copies) {
      copies->assign(n, 0);
      for (TypeId t = 1; t < n; ++t)
        if (first[t] && !changed[t] && !declared[t]) (*copies)[t] = first[t];
    }
  }

 private:
  static constexpr std::string_view kTagNames[] = {"s", "t", "u"};

  bool terminal(Kind k) const {
    return k == Kind::Struct || k == Kind::Union || k == Kind::Fwd || k == Kind::Int || k == Kind::Enum ||
           k == Kind::Enum64 || k == Kind::Float;
  }
  // A type `id` may refer to: one before it, or a later one whose kind
  // leads nowhere but through members (no loop then avoids a STRUCT).
  TypeId pick(TypeId id, bool void_ok, auto&& ok) {
    std::vector<TypeId> cands;
    if (void_ok) cands.push_back(0);
    for (TypeId t = 1; t < kinds_.size(); ++t)
      if (t != id && (t < id || terminal(kinds_[t])) && ok(t)) cands.push_back(t);
    return cands.empty() ? 1 : cands[c_.below(static_cast<uint32_t>(cands.size()))];
  }
  // Size in bytes, when known at `id` (0: none, or not yet).
  uint32_t size_at(TypeId t, TypeId id) const { return t < id || terminal(kinds_[t]) ? sizes_[t] : 0; }

  void make_universe() {
    static constexpr Kind kKinds[] = {
        Kind::Int,   Kind::Int,      Kind::Ptr,      Kind::Ptr,     Kind::Ptr,    Kind::Struct,    Kind::Struct,
        Kind::Struct, Kind::Union,   Kind::Enum,     Kind::Enum,    Kind::Enum64, Kind::Fwd,       Kind::Typedef,
        Kind::Typedef, Kind::Const,  Kind::Volatile, Kind::Restrict, Kind::Array, Kind::Array,     Kind::FuncProto,
        Kind::FuncProto, Kind::Func, Kind::Float,    Kind::TypeTag, Kind::DeclTag};
    const TypeId n = 7 + c_.below(34);
    kinds_.assign(n, Kind::Unknown);
    sizes_.assign(n, 0);
    enum_vlens_.assign(n, 0);
    kinds_[1] = Kind::Int;
    for (TypeId t = 2; t < n; ++t) kinds_[t] = c_.of(std::span<const Kind>(kKinds));
    // Sizes a later type may need before its record is made.
    for (TypeId t = 1; t < n; ++t) {
      static constexpr uint32_t kIntSizes[] = {1, 2, 4, 8};
      switch (kinds_[t]) {
        case Kind::Int: sizes_[t] = t == 1 ? 4 : c_.of(std::span<const uint32_t>(kIntSizes)); break;
        case Kind::Enum:  // a forward (no enumerators) is never used by value, as in C
          enum_vlens_[t] = c_.below(4);
          sizes_[t] = enum_vlens_[t] ? 4 : 0;
          break;
        case Kind::Enum64: case Kind::Ptr: sizes_[t] = 8; break;
        case Kind::Float: sizes_[t] = c_.one_in(2) ? 4 : 8; break;
        default: break;
      }
    }
    bool any_proto = std::count(kinds_.begin(), kinds_.end(), Kind::FuncProto) > 0;
    for (TypeId t = 1; t < n; ++t) {
      Kind& k = kinds_[t];
      if (k == Kind::Func && !any_proto) k = Kind::FuncProto;
      if (k == Kind::Restrict && !pick_kind(t, Kind::Ptr)) k = Kind::Const;
      if (k == Kind::DeclTag && !pick_kind(t, Kind::Struct) && !pick_kind(t, Kind::Func)) k = Kind::Int, sizes_[t] = 4;
      add(t);
    }
  }
  // An earlier type of kind `k`, or 0.
  TypeId pick_kind(TypeId id, Kind k) {
    std::vector<TypeId> cands;
    for (TypeId t = 1; t < id; ++t)
      if (kinds_[t] == k) cands.push_back(t);
    return cands.empty() ? 0 : cands[c_.below(static_cast<uint32_t>(cands.size()))];
  }
  static std::string_view of_names(Choices& c, std::initializer_list<std::string_view> names) {
    return c.of(std::span<const std::string_view>(names.begin(), names.size()));
  }

  void add(TypeId t) {
    auto not_func = [&](TypeId x) { return kinds_[x] != Kind::Func && kinds_[x] != Kind::DeclTag; };
    auto sized = [&](TypeId x) { return not_func(x) && size_at(x, t) != 0; };
    switch (kinds_[t]) {
      case Kind::Int:
        u_.add_int(t == 1 ? "int" : of_names(c_, {"int", "char", "long", "u8"}), sizes_[t],
                   c_.one_in(2) ? INT_SIGNED : 0);
        break;
      case Kind::Float: u_.add_float(sizes_[t] == 4 ? "float" : "double", sizes_[t]); break;
      case Kind::Ptr: u_.add_ptr(pick(t, true, not_func)); break;
      case Kind::Const: sizes_[t] = size_of(u_.add_const(pick(t, true, not_func)), t); break;
      case Kind::Volatile: sizes_[t] = size_of(u_.add_volatile(pick(t, false, sized)), t); break;
      case Kind::Restrict: u_.add_restrict(pick_kind(t, Kind::Ptr)), sizes_[t] = 8; break;
      case Kind::Typedef:
        sizes_[t] = size_of(u_.add_typedef(of_names(c_, {"td", "te"}), pick(t, false, not_func)), t);
        break;
      case Kind::TypeTag:
        sizes_[t] = size_of(u_.add_type_tag(of_names(c_, {"user", "rcu"}), pick(t, false, sized)), t);
        break;
      case Kind::Array: {
        TypeId elem = pick(t, false, sized);
        uint32_t n = c_.below(4);
        u_.add_array(elem, 1, n);
        sizes_[t] = size_at(elem, t) * n;  // 0 (no members of it) when unknown or empty
        break;
      }
      case Kind::Struct: case Kind::Union: {
        const bool is_union = kinds_[t] == Kind::Union;
        std::string_view name = c_.one_in(3) ? "" : c_.of(std::span<const std::string_view>(kTagNames));
        struct M {
          TypeId type;
          uint32_t bits, bitfield;
        };
        std::vector<M> members;
        uint32_t at = 0, size = 0;  // bytes
        for (uint32_t i = 0, vlen = c_.below(5); i < vlen; ++i) {
          TypeId m = pick(t, false, sized);
          uint32_t msize = size_at(m, t);
          uint32_t bitfield = kinds_[m] == Kind::Int && c_.one_in(4) ? 1 + c_.below(msize * 8 < 7 ? msize * 8 : 7) : 0;
          uint32_t align = std::min<uint32_t>(msize, 8);
          uint32_t off = is_union ? 0 : (at + align - 1) / align * align;
          members.push_back({m, off * 8, bitfield});
          if (!is_union) at = off + msize;
          size = std::max(size, off + msize);
        }
        size = (size + 7) / 8 * 8;
        if (is_union) u_.add_union(name, size);
        else u_.add_struct(name, size);
        static constexpr std::string_view kMembers[] = {"a", "b", "c", "d"};
        for (size_t i = 0; i < members.size(); ++i)
          u_.add_member(i + 1 == members.size() && c_.one_in(6) ? "" : kMembers[i], members[i].type, members[i].bits,
                        members[i].bitfield);
        sizes_[t] = size;
        break;
      }
      case Kind::Enum: {
        const uint32_t vlen = enum_vlens_[t];
        u_.add_enum(vlen && c_.one_in(3) ? "" : of_names(c_, {"e", "f"}), 4, c_.one_in(2));
        static constexpr std::string_view kValues[] = {"X", "Y", "Z"};
        for (uint32_t i = 0; i < vlen; ++i) u_.add_enum_value(kValues[i], static_cast<int64_t>(c_.below(3)) - 1);
        break;
      }
      case Kind::Enum64:
        u_.add_enum64(of_names(c_, {"e", "g"}), 8, false);
        u_.add_enum64_value("W", uint64_t{1} << 40);
        if (c_.one_in(2)) u_.add_enum64_value("V", c_.below(3));
        break;
      case Kind::Fwd: u_.add_fwd(c_.of(std::span<const std::string_view>(kTagNames)), c_.one_in(3)); break;
      case Kind::FuncProto: {
        u_.add_func_proto(pick(t, true, sized));
        for (uint32_t i = 0, vlen = c_.below(4); i < vlen; ++i)
          u_.add_param(of_names(c_, {"x", "y", "z"}), pick(t, false, sized));
        if (c_.one_in(8)) u_.add_param("", 0);  // ...
        break;
      }
      case Kind::Func: {
        // Any prototype, later ones too: nothing refers to a FUNC but a
        // tag, so no loop can pass through one.
        std::vector<TypeId> protos;
        for (TypeId x = 1; x < kinds_.size(); ++x)
          if (kinds_[x] == Kind::FuncProto) protos.push_back(x);
        u_.add_func(of_names(c_, {"f", "g", "h"}), protos[c_.below(static_cast<uint32_t>(protos.size()))],
                    c_.one_in(2) ? FuncLinkage::Static : FuncLinkage::Global);
        break;
      }
      case Kind::DeclTag: {
        TypeId on = c_.one_in(2) ? pick_kind(t, Kind::Struct) : pick_kind(t, Kind::Func);
        if (!on) on = pick_kind(t, Kind::Struct);
        if (!on) on = pick_kind(t, Kind::Func);
        // A member of a struct, or the whole of it or of a function.
        const uint32_t items = kinds_[on] == Kind::Struct ? info_vlen(u_.record(on)[1]) : 0;
        int32_t component = items && c_.one_in(2) ? static_cast<int32_t>(c_.below(items)) : -1;
        u_.add_decl_tag(of_names(c_, {"k1", "k2"}), on, component);
        break;
      }
      default: break;
    }
  }
  // A modifier's or typedef's size: its target's, if known at `t`.
  uint32_t size_of(TypeId self, TypeId t) const { return size_at(u_.record(self)[2], t); }

  Choices& c_;
  Btf u_;
  std::vector<Kind> kinds_;
  std::vector<uint32_t> sizes_;
  std::vector<uint32_t> enum_vlens_;
};

// A copy of `t` read from its bytes (split on `base`), or null if the
// reader refuses it.
inline std::unique_ptr<Btf> reread(const Btf& t, const Btf* base = nullptr) {
  try {
    return std::make_unique<Btf>(read_raw(write_raw(t), base));
  } catch (const Error&) {
    return nullptr;
  }
}

// A base and a split table on it, as above, each read back as a user's
// would be (null where the reader refuses one: the generator's tables are
// valid nearly always).
struct RandomTables {
  std::unique_ptr<Btf> base, split;
  std::vector<TypeId> stages;  // the first id of each unit of `split`
};
inline RandomTables random_tables(Choices& c) {
  RandomTables t;
  RandomGraph g(c);
  Btf base;
  std::vector<TypeId> copies;
  g.write_unit(base, nullptr, 2, &copies);
  for (uint32_t k = c.below(3); k-- > 0;) g.write_unit(base);
  if (!(t.base = reread(base))) return t;
  // Half the bases deduplicated first, as vmlinux is: each type once.
  if (c.one_in(2)) {
    std::vector<TypeId> map;
    try {
      dedup(*t.base, {}, &map);
    } catch (const Error&) {
      return {};
    }
    for (TypeId& id : copies) id = map[id];
  }
  Btf split(t.base.get());
  const uint32_t odds = 1 + c.below(4);
  // Now and then many units: the candidate index doubles on the way.
  for (uint32_t k = c.one_in(8) ? 8 + c.below(40) : 1 + c.below(4); k-- > 0;) {
    t.stages.push_back(split.end_id());
    g.write_unit(split, &copies, odds);
  }
  t.split = reread(split, t.base.get());
  return t;
}

}  // namespace btfc::btf::testing
