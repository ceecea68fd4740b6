// btfc's dedup against libbpf's btf__dedup (Debian's libbpf 1.1, so these
// run with DedupCompat::Libbpf_1_1): the same input must give the same
// bytes. Hand-built cases name one feature each (FWD resolution, cycles,
// anonymous types, a struct differing in one member, split BTF); seeded
// random "compilation units" (a pool of C structs, each unit defining a
// random subset and forward-declaring the rest, some with a conflicting
// definition, in random order) cover the combinations. Results must load
// into the running kernel.
#include <gtest/gtest.h>

#include <random>

#include "base/parallel.h"
#include "btf/dedup.h"
#include "btf/diff.h"
#include "btf/merge.h"
#include "btf/writer.h"
#include "btf_test_util.h"
#include "dedup_oracle.h"

namespace btfc::btf {
namespace {

using testing::format_counts;
using testing::kind_counts;
using testing::libbpf_dedup;

const DedupOptions kLibbpf11{DedupCompat::Libbpf_1_1};

Btf dedup_copy(const Btf& in, DedupOptions opt = kLibbpf11) {
  Btf b = read_raw(write_raw(in), in.base());
  dedup(b, opt);
  return b;
}

// Ours and libbpf's result are the same bytes.
void expect_same_as_libbpf(const Btf& in) {
  Btf ours = dedup_copy(in);
  Btf theirs = libbpf_dedup(in);
  EXPECT_EQ(format_counts(kind_counts(ours)), format_counts(kind_counts(theirs)));
  EXPECT_TRUE(write_raw(ours) == write_raw(theirs)) << "same counts, different bytes";
}

// The worked example of dedup.h: a FWD in unit 1 meets the full struct of
// unit 2 inside the graph of struct A.
Btf worked_example() {
  Btf b;
  b.add_int("int", 4, INT_SIGNED);  // [1]
  b.add_ptr(3);                     // [2]
  b.add_struct("list", 8);          // [3]
  b.add_member("next", 2, 0);
  b.add_fwd("S", false);            // [4]
  b.add_ptr(4);                     // [5]
  b.add_struct("A", 16);            // [6]
  b.add_member("s", 5, 0);
  b.add_member("l", 3, 64);
  b.add_int("int", 4, INT_SIGNED);  // [7]
  b.add_ptr(9);                     // [8]
  b.add_struct("list", 8);          // [9]
  b.add_member("next", 8, 0);
  b.add_struct("S", 4);             // [10]
  b.add_member("x", 7, 0);
  b.add_ptr(10);                    // [11]
  b.add_struct("A", 16);            // [12]
  b.add_member("s", 11, 0);
  b.add_member("l", 9, 64);
  return b;
}

TEST(Dedup, WorkedExampleResolvesFwdToStruct) {
  Btf in = worked_example();
  Btf out = dedup_copy(in);
  ASSERT_EQ(out.type_count(), 6u);
  // The result spelled out in dedup.h.
  EXPECT_EQ(out.type(2).type(), 3u);
  EXPECT_EQ(out.type(3).member(0).type, 2u);
  EXPECT_EQ(out.type(4).type(), 6u);
  EXPECT_EQ(out.type(5).name(), "A");
  EXPECT_EQ(out.type(5).member(0).type, 4u);
  EXPECT_EQ(out.type(5).member(1).type, 3u);
  EXPECT_EQ(out.type(6).name(), "S");
  EXPECT_EQ(out.type(6).member(0).type, 1u);
  expect_same_as_libbpf(in);
  BTFC_EXPECT_LOADS(write_raw(out));
}

// struct A { struct B *b; }; struct B { struct A *a; }; in two units, the
// second in the other order.
TEST(Dedup, DuplicatedCycleCollapses) {
  Btf b;
  b.add_struct("A", 8);  // [1]
  b.add_member("b", 2, 0);
  b.add_ptr(3);          // [2]
  b.add_struct("B", 8);  // [3]
  b.add_member("a", 4, 0);
  b.add_ptr(1);          // [4]
  b.add_ptr(6);          // [5] unit 2: B first
  b.add_struct("B", 8);  // [6]
  b.add_member("a", 7, 0);
  b.add_ptr(8);          // [7]
  b.add_struct("A", 8);  // [8]
  b.add_member("b", 5, 0);
  Btf out = dedup_copy(b);
  EXPECT_EQ(out.type_count(), 4u);
  expect_same_as_libbpf(b);
  BTFC_EXPECT_LOADS(write_raw(out));
}

// Anonymous unions and structs are identified by their place in the
// parent; an anonymous enum by its values.
TEST(Dedup, AnonymousTypesDedupWithTheirParents) {
  Btf b;
  for (int unit = 0; unit < 3; ++unit) {
    TypeId i = b.add_int("int", 4, INT_SIGNED);
    TypeId l = b.add_int("long", 8, INT_SIGNED);
    TypeId u = b.add_union("", 8);
    b.add_member("a", i, 0);
    b.add_member("b", l, 0);
    TypeId s = b.add_struct("", 4);
    b.add_member("x", i, 0);
    TypeId e = b.add_enum("", 4);
    b.add_enum_value("RED", 0);
    b.add_enum_value("GREEN", unit == 2 ? 7 : 1);  // unit 2: another enum
    b.add_struct("outer", 24);
    b.add_member("", u, 0);
    b.add_member("s", s, 64);
    b.add_member("e", e, 128);
  }
  Btf out = dedup_copy(b);
  auto c = kind_counts(out);
  EXPECT_EQ(c[static_cast<int>(Kind::Union)], 1u);
  EXPECT_EQ(c[static_cast<int>(Kind::Enum)], 2u);
  EXPECT_EQ(c[static_cast<int>(Kind::Struct)], 3u);  // the anonymous one, and two "outer"s
  expect_same_as_libbpf(b);
  BTFC_EXPECT_LOADS(write_raw(out));
}

TEST(Dedup, StructDifferingInOneMemberStaysTwice) {
  Btf b;
  TypeId i = b.add_int("int", 4, INT_SIGNED);
  TypeId l = b.add_int("long", 8, INT_SIGNED);
  for (TypeId second : {i, i, l, i}) {
    b.add_struct("S", 16);
    b.add_member("a", i, 0);
    b.add_member("b", second, 64);
  }
  b.add_struct("S", 16);  // a different offset
  b.add_member("a", i, 0);
  b.add_member("b", i, 32);
  Btf out = dedup_copy(b);
  EXPECT_EQ(kind_counts(out)[static_cast<int>(Kind::Struct)], 3u);
  expect_same_as_libbpf(b);
}

// An enum declared without values (enum forward) maps to the full enum,
// whichever comes first.
TEST(Dedup, EnumForwardMeetsItsEnum) {
  Btf b;
  b.add_enum("E", 4);  // forward first
  TypeId full = b.add_enum("E", 4);
  b.add_enum_value("A", 1);
  b.add_enum("E", 4);  // forward after
  b.add_ptr(1);
  b.add_ptr(full);
  Btf out = dedup_copy(b);
  EXPECT_EQ(out.type_count(), 2u);
  expect_same_as_libbpf(b);
}

// `enum E;` is ENUM size 4, kind flag 0 (GCC: DW_AT_encoding unsigned, no
// byte size), whatever E really is. libbpf >= 1.1 matches a forward with any
// ENUM/ENUM64 of its name: here a signed one (a negative value, as
// drm_mode_status's MODE_ERROR = -1 in drm_kms_helper.ko) and an 8-byte
// ENUM64, each inside the graph of a struct that units 1 and 2 share (unit 1
// only has the forward). libbpf 1.0 compared kind flag and size, so each
// struct stayed twice.
TEST(Dedup, EnumForwardMeetsSignedAndEnum64Definitions) {
  Btf b;
  for (int unit = 0; unit < 2; ++unit) {
    TypeId i = b.add_int("int", 4, INT_SIGNED);
    TypeId st = b.add_enum("st", 4);
    if (unit == 1) {
      b.add_enum_value("ST_OK", 0);
      b.add_enum_value("ST_ERR", -1);  // makes the full enum signed
    }
    TypeId big = unit == 0 ? b.add_enum("big", 4) : b.add_enum64("big", 8, false);
    if (unit == 1) b.add_enum64_value("HUGE", 1ull << 40);
    TypeId proto = b.add_func_proto(st);
    b.add_param("", i);
    TypeId fp = b.add_ptr(proto);
    b.add_struct("dev", 16);
    b.add_member("check", fp, 0);
    b.add_member("kind", big, 64);
  }
  ASSERT_EQ(b.type(2).kind_flag(), false);  // unit 1's forward st
  ASSERT_EQ(b.type(8).kind_flag(), true);   // unit 2's st, by its negative value
  Btf out = dedup_copy(b);
  auto c = kind_counts(out);
  EXPECT_EQ(c[static_cast<int>(Kind::Struct)], 1u);
  EXPECT_EQ(c[static_cast<int>(Kind::Enum)], 1u);    // st, signed, 2 values
  EXPECT_EQ(c[static_cast<int>(Kind::Enum64)], 1u);  // big
  expect_same_as_libbpf(b);
  BTFC_EXPECT_LOADS(write_raw(out));
}

// Reference kinds, functions, tags, VAR and DATASEC (never merged).
TEST(Dedup, ReferenceKindsAndVariables) {
  Btf b;
  for (int unit = 0; unit < 2; ++unit) {
    TypeId i = b.add_int("int", 4, INT_SIGNED);
    TypeId c = b.add_const(i);
    TypeId v = b.add_volatile(c);
    TypeId p = b.add_ptr(v);
    TypeId r = b.add_restrict(p);
    TypeId td = b.add_typedef("int_t", i);
    TypeId arr = b.add_array(td, i, 4);
    TypeId tag = b.add_type_tag("user", i);
    TypeId pt = b.add_ptr(tag);
    TypeId proto = b.add_func_proto(i);
    b.add_param("p", r);
    b.add_param("a", pt);
    TypeId f = b.add_func("f", proto, FuncLinkage::Global);
    b.add_decl_tag("hot", f, -1);
    b.add_decl_tag("arg", f, 0);
    TypeId var = b.add_var(unit ? "y" : "x", arr, VarLinkage::GlobalAllocated);
    b.add_datasec(".data", 16);
    b.add_datasec_var(var, 0, 16);
    b.add_float("double", 8);
  }
  Btf out = dedup_copy(b);
  auto c = kind_counts(out);
  EXPECT_EQ(c[static_cast<int>(Kind::Var)], 2u);
  EXPECT_EQ(c[static_cast<int>(Kind::Datasec)], 2u);
  EXPECT_EQ(c[static_cast<int>(Kind::Func)], 1u);
  expect_same_as_libbpf(b);
  BTFC_EXPECT_LOADS(write_raw(out));
}

// FWD S with no graph leading to the struct maps to the only struct S by
// name; a FWD U with two unions U stays.
TEST(Dedup, UnambiguousFwdResolvesByName) {
  Btf b;
  TypeId i = b.add_int("int", 4, INT_SIGNED);
  TypeId fwd = b.add_fwd("S", false);
  b.add_ptr(fwd);
  b.add_struct("S", 4);
  b.add_member("x", i, 0);
  b.add_fwd("U", true);  // two unions U: ambiguous, stays
  b.add_union("U", 4);
  b.add_member("x", i, 0);
  b.add_union("U", 8);
  b.add_member("y", i, 0);
  expect_same_as_libbpf(b);
  Btf out = dedup_copy(b);
  EXPECT_EQ(kind_counts(out)[static_cast<int>(Kind::Fwd)], 1u);
  EXPECT_EQ(out.type(2).kind(), Kind::Ptr);
  EXPECT_EQ(out.type(out.type(2).type()).kind(), Kind::Struct);
}

// A unit whose compiler emitted `int *` twice (as GCC does with some
// attributes): libbpf 1.1-1.5 see a contradiction in the graph comparison
// and keep the second struct S; libbpf 1.6 finds the two pointers
// identical and merges it (DedupCompat::Libbpf_1_6, from libbpf's own
// description of the change; Debian has no libbpf 1.6 to compare with).
TEST(Dedup, IdenticalTwinPointersMergeFromLibbpf16) {
  Btf b;
  TypeId i = b.add_int("int", 4, INT_SIGNED);  // unit 1
  TypeId p = b.add_ptr(i);
  b.add_struct("S", 16);
  b.add_member("a", p, 0);
  b.add_member("b", p, 64);
  TypeId i2 = b.add_int("int", 4, INT_SIGNED);  // unit 2: two int *
  TypeId p2a = b.add_ptr(i2);
  TypeId p2b = b.add_ptr(i2);
  b.add_struct("S", 16);
  b.add_member("a", p2a, 0);
  b.add_member("b", p2b, 64);
  expect_same_as_libbpf(b);
  EXPECT_EQ(kind_counts(dedup_copy(b))[static_cast<int>(Kind::Struct)], 2u);
  Btf newer = dedup_copy(b, DedupOptions{DedupCompat::Libbpf_1_6});
  EXPECT_EQ(kind_counts(newer)[static_cast<int>(Kind::Struct)], 1u);
  EXPECT_EQ(kind_counts(newer)[static_cast<int>(Kind::Ptr)], 1u);
}

// A stranger's table can chain pointer after pointer: dedup and diff
// recurse along it and must not run out of stack (two 200k-long chains
// collapse into one).
TEST(Dedup, DeepPointerChainDoesNotExhaustTheStack) {
  Btf b;
  for (int copy = 0; copy < 2; ++copy) {
    TypeId t = b.add_int("int", 4, INT_SIGNED);
    for (int i = 0; i < 200000; ++i) t = b.add_ptr(t);
  }
  Btf out = read_raw(write_raw(b));
  dedup(out);
  EXPECT_EQ(out.type_count(), 200001u);
  EXPECT_TRUE(diff(out, out).equivalent);
  EXPECT_FALSE(diff(b, out).equivalent);
}

// Split BTF: base types never change; new types equal to base types map to
// them, and a split FWD resolves to a base struct.
TEST(Dedup, SplitMapsNewTypesToBase) {
  Btf base;
  TypeId i = base.add_int("int", 4, INT_SIGNED);
  TypeId s = base.add_struct("S", 8);
  base.add_member("self", s + 1, 0);
  base.add_ptr(s);
  base.add_fwd("T", false);
  Btf split(&base);
  TypeId i2 = split.add_int("int", 4, INT_SIGNED);   // = base int
  TypeId p2 = split.add_ptr(split.end_id() + 1);
  TypeId s2 = split.add_struct("S", 8);               // = base S
  split.add_member("self", p2, 0);
  TypeId t = split.add_struct("T", 4);                // new; base FWD T points here
  split.add_member("x", i2, 0);
  TypeId f = split.add_fwd("S", false);               // resolves to base S
  TypeId holder = split.add_struct("H", 16);
  split.add_member("s", split.end_id(), 0);
  split.add_member("t", s2, 64);
  split.add_ptr(f);
  (void)t;
  (void)holder;
  (void)i;

  Btf ours = read_raw(write_raw(split), &base);
  dedup(ours, kLibbpf11);
  testing::LibbpfBtf lbase = testing::to_libbpf(base);
  Btf theirs = libbpf_dedup(split, &base, lbase.get());
  EXPECT_EQ(ours.start_id(), base.end_id());
  EXPECT_EQ(format_counts(kind_counts(ours)), format_counts(kind_counts(theirs)));
  EXPECT_TRUE(write_raw(ours) == write_raw(theirs));
  // Left: T and H; H's members point into the base.
  ASSERT_EQ(ours.type_count(), 2u);
  TypeView h = ours.type(ours.start_id() + 1);
  EXPECT_EQ(h.name(), "H");
  EXPECT_EQ(h.member(1).type, s);
  EXPECT_EQ(ours.type(h.member(0).type).type(), s);
  BTFC_EXPECT_LOADS(testing::glue_split(write_raw(base), write_raw(ours)));
}

// Split BTF whose records name strings in every way the string pass must
// handle: a name equal to a base name, a new name used twice, and names
// that start in the middle of a stored string (BTF allows any offset), one
// of whose tails is a base name. libbpf gives the same bytes.
TEST(Dedup, SplitStringOffsetsIntoStringsMatchLibbpf) {
  Btf base;
  TypeId i = base.add_int("int", 4, INT_SIGNED);
  base.add_struct("S", 8);
  base.add_member("next", i, 0);
  Btf split(&base);
  uint32_t my_int = split.add_string("my_int");
  uint32_t xnext = split.add_string("xnext");
  uint32_t fresh = split.add_string("fresh_name");
  TypeId t = split.add_typedef_name_off(my_int + 3, i);  // "int": the base's string
  TypeId u = split.add_typedef_name_off(my_int, i);      // "my_int": new
  TypeId s = split.add_struct_name_off(fresh, 8);
  split.add_member_name_off(xnext + 1, t, 0);            // "next": the base's
  split.add_member_name_off(fresh + 6, u, 32);           // "name": new, inside "fresh_name"
  TypeId v = split.add_struct_name_off(fresh, 8);        // a twin of s
  split.add_member_name_off(xnext + 1, t, 0);
  split.add_member_name_off(fresh + 6, u, 32);
  (void)s;
  (void)v;

  Btf ours = read_raw(write_raw(split), &base);
  dedup(ours, kLibbpf11);
  testing::LibbpfBtf lbase = testing::to_libbpf(base);
  Btf theirs = libbpf_dedup(split, &base, lbase.get());
  EXPECT_TRUE(write_raw(ours) == write_raw(theirs));
  ASSERT_EQ(ours.type_count(), 3u);  // typedef int (-> base int's name), my_int, fresh_name
  EXPECT_EQ(ours.type(ours.start_id()).name(), "int");
  EXPECT_LT(ours.type(ours.start_id()).name_off(), base.end_str_off());
  TypeView st = ours.type(ours.start_id() + 2);
  EXPECT_EQ(st.name(), "fresh_name");
  EXPECT_EQ(ours.str(st.member(0).name_off), "next");
  EXPECT_EQ(ours.str(st.member(1).name_off), "name");
}

// ---- random compilation units ----

// A pool of C structs; each member is one of a few type shapes. Struct j
// can embed struct k only for k < j (so embedding has no cycles); pointers
// go anywhere, which makes cycles.
struct Shape {
  enum What { Int, Long, Char, PtrStruct, EmbedStruct, IntArray, FuncPtr, Enum, TypedefStruct, ConstCharPtr } what;
  int arg = 0;
};
struct StructDef {
  std::vector<Shape> members;
  std::vector<Shape> variant;  // an ODR-violating twin (one member changed)
};

class UnitWriter {
 public:
  UnitWriter(Btf& b, const std::vector<StructDef>& pool, std::mt19937& rng) : b_(b), pool_(pool), rng_(rng) {}
  // The value of E1 in the `enum e` units define from now on (1 unless set).
  void set_enum_e1(uint32_t value) { enum_e1_ = value; }

  void write_unit(std::vector<bool> defined, bool use_variant, bool enum_fwd) {
    first_ = b_.end_id();
    recs_.clear();
    struct_id_.assign(pool_.size(), 0);
    fwd_id_.assign(pool_.size(), 0);
    memo_.clear();
    defined_ = std::move(defined);
    use_variant_ = use_variant;
    enum_fwd_ = enum_fwd;
    std::vector<int> order(pool_.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int>(k);
    std::shuffle(order.begin(), order.end(), rng_);
    for (int k : order)
      if (defined_[k]) struct_type(k);
    // A function or two taking struct pointers.
    uint32_t proto = alloc({0, make_info(Kind::FuncProto, false, 1), type_of({Shape::Int})});
    uint32_t param = type_of({Shape::PtrStruct, order[0]});
    recs_[proto - first_].insert(recs_[proto - first_].end(), {b_.add_string("p"), param});
    alloc({b_.add_string("fn" + std::to_string(order[0])), make_info(Kind::Func, false, 1), proto});
    for (auto& r : recs_) b_.add_record(r);
  }

 private:
  uint32_t alloc(std::vector<uint32_t> rec) {
    recs_.push_back(std::move(rec));
    return first_ + static_cast<uint32_t>(recs_.size() - 1);
  }
  uint32_t memo(const std::string& key, const std::function<std::vector<uint32_t>()>& make) {
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    uint32_t id = alloc(make());
    memo_[key] = id;
    return id;
  }
  static uint32_t size_of(const Shape& s, const std::vector<StructDef>& pool) {
    switch (s.what) {
      case Shape::EmbedStruct: return struct_size(pool[s.arg].members, pool);
      case Shape::IntArray: return 4 * s.arg;
      default: return 8;
    }
  }
  static uint32_t struct_size(const std::vector<Shape>& m, const std::vector<StructDef>& pool) {
    uint32_t size = 0;
    for (const Shape& s : m) size += (size_of(s, pool) + 7) / 8 * 8;
    return size ? size : 8;
  }
  uint32_t int_type(const char* name, uint32_t size, uint32_t enc) {
    return memo(name, [&] {
      return std::vector<uint32_t>{b_.add_string(name), make_info(Kind::Int, false, 0), size, enc << 24 | size * 8};
    });
  }
  uint32_t struct_type(int k) {
    if (struct_id_[k]) return struct_id_[k];
    const std::vector<Shape>& m = use_variant_ && !pool_[k].variant.empty() ? pool_[k].variant : pool_[k].members;
    uint32_t id = alloc({b_.add_string("s" + std::to_string(k)), make_info(Kind::Struct, false, 0),
                         struct_size(pool_[k].members, pool_)});
    struct_id_[k] = id;
    uint32_t off = 0;
    std::vector<uint32_t> members;
    for (size_t i = 0; i < m.size(); ++i) {
      uint32_t t = type_of(m[i]);
      members.insert(members.end(), {b_.add_string("m" + std::to_string(i)), t, off * 8});
      off += (size_of(m[i], pool_) + 7) / 8 * 8;
    }
    std::vector<uint32_t>& rec = recs_[id - first_];
    rec[1] = make_info(Kind::Struct, false, static_cast<uint32_t>(m.size()));
    rec.insert(rec.end(), members.begin(), members.end());
    return id;
  }
  uint32_t ptr_to(uint32_t target) {
    return memo("*" + std::to_string(target), [&] { return std::vector<uint32_t>{0, make_info(Kind::Ptr, false, 0), target}; });
  }
  uint32_t type_of(const Shape& s) {
    switch (s.what) {
      case Shape::Int: return int_type("int", 4, INT_SIGNED);
      case Shape::Long: return int_type("long", 8, INT_SIGNED);
      case Shape::Char: return int_type("char", 1, INT_SIGNED);
      case Shape::PtrStruct: {
        uint32_t target;
        if (defined_[s.arg]) {
          target = struct_type(s.arg);
        } else {
          if (!fwd_id_[s.arg])
            fwd_id_[s.arg] = alloc({b_.add_string("s" + std::to_string(s.arg)), make_info(Kind::Fwd, false, 0), 0});
          target = fwd_id_[s.arg];
        }
        return ptr_to(target);
      }
      case Shape::EmbedStruct: return struct_type(s.arg);
      case Shape::IntArray: {
        uint32_t i = type_of({Shape::Int});
        return memo("[" + std::to_string(s.arg), [&] {
          return std::vector<uint32_t>{0, make_info(Kind::Array, false, 0), 0, i, i, static_cast<uint32_t>(s.arg)};
        });
      }
      case Shape::FuncPtr: {
        uint32_t ret = type_of({Shape::Int});
        uint32_t arg = type_of({Shape::PtrStruct, s.arg});
        uint32_t proto = memo("fp" + std::to_string(s.arg), [&] {
          return std::vector<uint32_t>{0, make_info(Kind::FuncProto, false, 2), ret, 0, arg, 0, ret};
        });
        return ptr_to(proto);
      }
      case Shape::Enum:
        return memo("enum", [&] {
          if (enum_fwd_) return std::vector<uint32_t>{b_.add_string("e"), make_info(Kind::Enum, false, 0), 4};
          return std::vector<uint32_t>{b_.add_string("e"), make_info(Kind::Enum, false, 2), 4,
                                       b_.add_string("E0"), 0, b_.add_string("E1"), enum_e1_};
        });
      case Shape::TypedefStruct: {
        uint32_t target = type_of({Shape::PtrStruct, s.arg});
        return memo("td" + std::to_string(s.arg), [&] {
          return std::vector<uint32_t>{b_.add_string("t" + std::to_string(s.arg)), make_info(Kind::Typedef, false, 0), target};
        });
      }
      case Shape::ConstCharPtr: {
        uint32_t c = type_of({Shape::Char});
        uint32_t cc = memo("const char", [&] { return std::vector<uint32_t>{0, make_info(Kind::Const, false, 0), c}; });
        return ptr_to(cc);
      }
    }
    return 0;
  }

  Btf& b_;
  const std::vector<StructDef>& pool_;
  std::mt19937& rng_;
  uint32_t first_ = 0;
  std::vector<std::vector<uint32_t>> recs_;
  std::vector<uint32_t> struct_id_, fwd_id_;
  std::map<std::string, uint32_t> memo_;
  std::vector<bool> defined_;
  bool use_variant_ = false, enum_fwd_ = false;
  uint32_t enum_e1_ = 1;
};

std::vector<StructDef> random_pool(std::mt19937& rng, int n) {
  std::vector<StructDef> pool(n);
  for (int k = 0; k < n; ++k) {
    int members = 1 + static_cast<int>(rng() % 5);
    for (int i = 0; i < members; ++i) {
      Shape s{static_cast<Shape::What>(rng() % 10), static_cast<int>(rng() % n)};
      if (s.what == Shape::EmbedStruct) {
        if (k == 0) s.what = Shape::Int;
        else s.arg = static_cast<int>(rng() % k);
      }
      if (s.what == Shape::IntArray) s.arg = 1 + static_cast<int>(rng() % 4);
      pool[k].members.push_back(s);
    }
    if (rng() % 4 == 0) {  // an ODR-violating twin: first member a long
      pool[k].variant = pool[k].members;
      pool[k].variant[0] = {pool[k].members[0].what == Shape::Long ? Shape::Int : Shape::Long, 0};
    }
  }
  return pool;
}

// Units define a random subset of the pool, closed under embedding.
std::vector<bool> random_subset(std::mt19937& rng, const std::vector<StructDef>& pool) {
  std::vector<bool> d(pool.size());
  for (size_t k = 0; k < pool.size(); ++k) d[k] = rng() % 3 != 0;
  for (size_t k = pool.size(); k-- > 0;)
    if (d[k])
      for (const StructDef* def : {&pool[k]})
        for (const auto* m : {&def->members, &def->variant})
          for (const Shape& s : *m)
            if (s.what == Shape::EmbedStruct) d[s.arg] = true;
  return d;
}

void write_random_units(Btf& b, std::mt19937& rng, const std::vector<StructDef>& pool, int units) {
  UnitWriter w(b, pool, rng);
  for (int u = 0; u < units; ++u) w.write_unit(random_subset(rng, pool), rng() % 5 == 0, rng() % 4 == 0);
}

TEST(Dedup, RandomUnitsMatchLibbpfByteForByte) {
  int loaded = 0;
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    std::mt19937 rng(seed);
    std::vector<StructDef> pool = random_pool(rng, 3 + static_cast<int>(rng() % 10));
    Btf b;
    write_random_units(b, rng, pool, 2 + static_cast<int>(rng() % 6));
    SCOPED_TRACE("seed " + std::to_string(seed));
    Btf ours = dedup_copy(b);
    Btf theirs = libbpf_dedup(b);
    ASSERT_EQ(format_counts(kind_counts(ours)), format_counts(kind_counts(theirs)));
    ASSERT_TRUE(write_raw(ours) == write_raw(theirs));
    if (seed % 30 == 0) {
      BTFC_EXPECT_LOADS(write_raw(ours));
      ++loaded;
    }
  }
  EXPECT_EQ(loaded, 10);
}

// A base for the split tests: libbpf's dedup of 1 to 3 random units of
// `pool`.
Btf random_base(std::mt19937& rng, const std::vector<StructDef>& pool) {
  Btf raw;
  write_random_units(raw, rng, pool, 1 + static_cast<int>(rng() % 3));
  return libbpf_dedup(raw);
}

TEST(Dedup, RandomSplitUnitsMatchLibbpfByteForByte) {
  for (uint32_t seed = 1; seed <= 150; ++seed) {
    std::mt19937 rng(seed * 7919);
    std::vector<StructDef> pool = random_pool(rng, 3 + static_cast<int>(rng() % 10));
    Btf base = random_base(rng, pool);
    Btf split(&base);
    write_random_units(split, rng, pool, 1 + static_cast<int>(rng() % 4));
    SCOPED_TRACE("seed " + std::to_string(seed));
    Btf ours = read_raw(write_raw(split), &base);
    dedup(ours, kLibbpf11);
    testing::LibbpfBtf lbase = testing::to_libbpf(base);
    Btf theirs = libbpf_dedup(split, &base, lbase.get());
    ASSERT_EQ(format_counts(kind_counts(ours)), format_counts(kind_counts(theirs)));
    ASSERT_TRUE(write_raw(ours) == write_raw(theirs));
  }
}

// Big tables (tens of thousands of types, on two threads): libbpf's
// bytes, standalone and split, on a deduplicated base and on one with
// equal twins among its reference types (where the one a new type meets
// depends on the order of its chain).
TEST(Dedup, BigRandomTablesMatchLibbpf) {
  set_jobs(2);
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    std::mt19937 rng(seed * 65537);
    std::vector<StructDef> pool = random_pool(rng, 12);
    SCOPED_TRACE("seed " + std::to_string(seed));
    Btf b;
    write_random_units(b, rng, pool, 700);
    ASSERT_GT(b.type_count(), 1u << 14);
    Btf ours = dedup_copy(b);
    ASSERT_TRUE(write_raw(ours) == write_raw(libbpf_dedup(b)));

    Btf clean_base = random_base(rng, pool);
    Btf twin_base;  // not deduplicated: each unit has its own pointers
    write_random_units(twin_base, rng, pool, 3);
    for (const Btf* base : {&clean_base, &twin_base}) {
      Btf split(base);
      write_random_units(split, rng, pool, 700);
      ASSERT_GT(split.type_count(), 1u << 14);
      DedupBase prepared(*base);
      testing::LibbpfBtf lbase = testing::to_libbpf(*base);
      Btf theirs = libbpf_dedup(split, base, lbase.get());
      Btf ours_split = read_raw(write_raw(split), base);
      dedup(ours_split, {.compat = DedupCompat::Libbpf_1_1, .prepared_base = &prepared});
      ASSERT_TRUE(write_raw(ours_split) == write_raw(theirs)) << (base == &twin_base ? "twin base" : "clean base");
    }
  }
  set_jobs(0);
}

// A split table of several chunks of the string pass (2^17 ids each),
// whose primitive pass follows it chunk by chunk on whichever thread
// completes the prefix of chunks named: libbpf's bytes, on one thread and
// on two; and the same in 14 stages (the encoder's groups of units, here
// with enum forwards met across stages, and a small base whose index
// doubles on the way: the staged passes run again whole).
TEST(Dedup, SplitTableOfManyNameChunksMatchesLibbpf) {
  std::mt19937 rng(271828);
  std::vector<StructDef> pool = random_pool(rng, 12);
  Btf base = random_base(rng, pool);
  Btf split(&base);
  std::vector<TypeId> stages;
  for (int k = 0; k < 14; ++k) {
    stages.push_back(split.end_id());
    write_random_units(split, rng, pool, 1000);
  }
  ASSERT_GT(split.type_count(), 3u << 17);
  testing::LibbpfBtf lbase = testing::to_libbpf(base);
  const std::vector<uint8_t> theirs = write_raw(libbpf_dedup(split, &base, lbase.get()));
  for (unsigned jobs : {1u, 2u})
    for (bool staged : {false, true}) {
      SCOPED_TRACE("-j" + std::to_string(jobs) + (staged ? " staged" : ""));
      set_jobs(jobs);
      Btf ours = read_raw(write_raw(split), &base);
      DedupReport report;
      DedupOptions options = kLibbpf11;
      if (staged) options.stages = stages;
      options.report = &report;
      dedup(ours, options);
      EXPECT_TRUE(write_raw(ours) == theirs);
      EXPECT_EQ(report.redone, staged);
    }
  set_jobs(0);
}

// Stages whose struct passes stand: a base big enough that the index
// does not double while the new types come in (libbpf's table of 4096
// slots holds up to 3071), whose `enum e;` is only declared. When every
// stage defines it, each stage's structs are compared before the next
// stages' primitives are deduplicated; when the first five stages only
// declare it too, they wait for the primitives of the sixth (in the string
// pass's second chunk), whose first `enum e` resolves the base's forward;
// when the eighth (in the third chunk) defines `enum e` otherwise, which
// resolves the forward again, the first seven wait for the eighth's.
// Either way the bytes are libbpf's.
TEST(Dedup, StagedSplitTableMatchesLibbpf) {
  std::mt19937 rng(314159);
  std::vector<StructDef> base_pool = random_pool(rng, 400);
  Btf raw, base;
  UnitWriter base_writer(raw, base_pool, rng);
  for (int u = 0; u < 400 && base.type_count() < 1600; u += 4) {
    for (int k = 0; k < 4; ++k) base_writer.write_unit(random_subset(rng, base_pool), rng() % 5 == 0, true);
    base = libbpf_dedup(raw);
  }
  ASSERT_GE(base.type_count(), 1600u);
  ASSERT_LE(base.type_count(), 2400u);
  testing::LibbpfBtf lbase = testing::to_libbpf(base);
  std::vector<StructDef> pool = random_pool(rng, 12);
  enum Enums { Defined, Declared, DeclaredThenTwoKinds };
  for (Enums enums : {Defined, Declared, DeclaredThenTwoKinds}) {
    Btf split(&base);
    std::vector<TypeId> stages;
    UnitWriter writer(split, pool, rng);
    for (int k = 0; k < 8; ++k) {
      stages.push_back(split.end_id());
      if (k == 7 && enums == DeclaredThenTwoKinds) writer.set_enum_e1(2);
      for (int u = 0; u < (k == 6 ? 5000 : 1000); ++u)
        writer.write_unit(random_subset(rng, pool), rng() % 5 == 0, enums != Defined && k < 5);
    }
    // The string pass's first chunk (2^17 ids) ends before the sixth
    // stage, its second before the eighth.
    ASSERT_GT(stages[5] - split.start_id(), 1u << 17);
    ASSERT_GT(stages[7] - split.start_id(), 2u << 17);
    const std::vector<uint8_t> theirs = write_raw(libbpf_dedup(split, &base, lbase.get()));
    for (unsigned jobs : {1u, 2u}) {
      SCOPED_TRACE("-j" + std::to_string(jobs) + ", enums " + std::to_string(enums));
      set_jobs(jobs);
      Btf ours = read_raw(write_raw(split), &base);
      DedupReport report;
      DedupOptions options = kLibbpf11;
      options.stages = stages;
      options.report = &report;
      dedup(ours, options);
      EXPECT_TRUE(write_raw(ours) == theirs);
      EXPECT_FALSE(report.redone);
    }
  }
  set_jobs(0);
}

// Pass 5 finishes a type's targets before the type, so of equal types
// the first finished, not the lowest id, is canonical: here the pointer
// [p] makes the later of two equal typedefs canonical, which puts typedef
// u before it in the output, as libbpf does.
TEST(Dedup, FirstFinishedOfEqualReferencesIsCanonical) {
  Btf b;
  TypeId int_id = b.add_int("int", 4, INT_SIGNED);
  for (int copy = 0; copy < 3; ++copy) {
    TypeId p = b.end_id();
    b.add_record(std::vector<uint32_t>{0, make_info(Kind::Ptr, false, 0), p + 3});  // [p] -> the second t
    b.add_typedef("t", int_id);                                                    // [p+1]
    b.add_typedef("u", int_id);                                                    // [p+2]
    b.add_typedef("t", int_id);                                                    // [p+3]
  }
  Btf ours = dedup_copy(b);
  Btf theirs = libbpf_dedup(b);
  EXPECT_EQ(format_counts(kind_counts(ours)), format_counts(kind_counts(theirs)));
  EXPECT_TRUE(write_raw(ours) == write_raw(theirs));
}

// Pass 5 first tries the canonical type that followed, last time, the one
// the reference before resolved to. Here that is one of two equal base
// pointers, and which of them libbpf's chain yields flips at every
// doubling of its hash map (new typedefs between the units keep adding):
// a follow kept across a doubling would name the other twin, and the
// typedef of the pointer would come out once instead of once per twin.
TEST(Dedup, ReferenceFollowsForgetTheOrderOfTwinsAfterADoubling) {
  Btf base;
  TypeId int_id = base.add_int("int", 4, INT_SIGNED);
  base.add_ptr(int_id);  // twins: equal, not deduplicated
  base.add_ptr(int_id);
  Btf split(&base);
  for (int unit = 0; unit < 300; ++unit) {
    TypeId own_int = split.add_int("int", 4, INT_SIGNED);
    split.add_typedef("a", own_int);  // the reference before the pointer
    TypeId ptr = split.add_ptr(own_int);  // one of the twins
    split.add_typedef("p", ptr);
    split.add_typedef("u" + std::to_string(unit), own_int);  // new: adds to the index
  }
  Btf ours = read_raw(write_raw(split), &base);
  dedup(ours, kLibbpf11);
  testing::LibbpfBtf lbase = testing::to_libbpf(base);
  Btf theirs = libbpf_dedup(split, &base, lbase.get());
  EXPECT_EQ(format_counts(kind_counts(ours)), format_counts(kind_counts(theirs)));
  EXPECT_TRUE(write_raw(ours) == write_raw(theirs)) << "same counts, different bytes";
}

// A cycle of reference types, or a reference past the last type (any
// word, the largest too): an error that says which, not a crash.
TEST(Dedup, BadReferencesAreErrors) {
  for (uint32_t bad : {0u, 0x7fffffffu, 0xfffffffeu, 0xffffffffu}) {
    Btf b;
    b.add_int("int", 4, INT_SIGNED);
    TypeId first = b.end_id();
    const bool cycle = bad == 0;
    b.add_record(std::vector<uint32_t>{0, make_info(Kind::Ptr, false, 0), first + 1});
    b.add_record(std::vector<uint32_t>{0, make_info(Kind::FuncProto, false, 1), first - 1, 0, cycle ? first : bad});
    SCOPED_TRACE(bad);
    try {
      dedup(b);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      const char* want = cycle ? "a cycle of reference types" : "past the last type";
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  }
}

// A table in stages with two errors, a struct of its first stage whose
// member is past the last type and a name out of range in its last:
// whatever the threads did first, the name's is reported, as pass 1 comes
// before the struct pass in libbpf's order.
TEST(Dedup, StagedErrorsComeInPassOrder) {
  Btf base;
  base.add_int("int", 4, INT_SIGNED);
  std::vector<TypeId> stages;
  auto make = [&] {  // built anew each time: reading it back would refuse it
    Btf split(&base);
    stages = {split.end_id()};
    for (int k = 0; k < 2; ++k) {
      split.add_struct("s", 8);
      split.add_member("m", 0x7ffffff0, 0);
    }
    stages.push_back(split.end_id());
    for (int k = 0; k < 150000; ++k) split.add_int("i" + std::to_string(k % 1000), 4, INT_SIGNED);
    stages.push_back(split.end_id());
    split.add_record(std::vector<uint32_t>{0x7ffffff0, make_info(Kind::Int, false, 0), 4, 32});
    return split;
  };
  for (unsigned jobs : {1u, 2u}) {
    SCOPED_TRACE("-j" + std::to_string(jobs));
    set_jobs(jobs);
    for (int run = 0; run < 3; ++run) {
      Btf ours = make();
      DedupOptions options = kLibbpf11;
      options.stages = stages;
      try {
        dedup(ours, options);
        ADD_FAILURE() << "no error";
      } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()).find("past the last type"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("string"), std::string::npos) << e.what();
      }
    }
  }
  set_jobs(0);
}

// A DedupBase prepared once and shared by several split tables (batch
// mode) gives each of them libbpf's bytes too; a DedupBase of another base
// is ignored.
TEST(Dedup, PreparedBaseSharedBySplitTablesMatchesLibbpf) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed * 104729);
    std::vector<StructDef> pool = random_pool(rng, 3 + static_cast<int>(rng() % 10));
    Btf base = random_base(rng, pool);
    Btf other_base = read_raw(write_raw(base));  // the same types, another table
    DedupBase prepared(base), unrelated(other_base);
    testing::LibbpfBtf lbase = testing::to_libbpf(base);
    SCOPED_TRACE("seed " + std::to_string(seed));
    for (int module = 0; module < 3; ++module) {
      Btf split(&base);
      write_random_units(split, rng, pool, 1 + static_cast<int>(rng() % 4));
      Btf theirs = libbpf_dedup(split, &base, lbase.get());
      for (const DedupBase* p : {&prepared, &unrelated}) {
        Btf ours = read_raw(write_raw(split), &base);
        dedup(ours, {.compat = DedupCompat::Libbpf_1_1, .prepared_base = p});
        ASSERT_TRUE(write_raw(ours) == write_raw(theirs)) << "module " << module;
      }
    }
  }
}

// A single module's dedup, the prepared base's last use, takes the base's
// index instead of copying it: the same bytes as libbpf; the DedupBase is
// spent afterwards, and using it again is an error, not a wrong result.
TEST(Dedup, PreparedBaseLastUseMatchesLibbpfAndIsSpent) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed * 7727);
    std::vector<StructDef> pool = random_pool(rng, 3 + static_cast<int>(rng() % 10));
    Btf base = random_base(rng, pool);
    DedupBase prepared(base);
    testing::LibbpfBtf lbase = testing::to_libbpf(base);
    Btf split(&base);
    write_random_units(split, rng, pool, 1 + static_cast<int>(rng() % 4));
    SCOPED_TRACE("seed " + std::to_string(seed));
    Btf theirs = libbpf_dedup(split, &base, lbase.get());
    Btf ours = read_raw(write_raw(split), &base);
    dedup(ours, {.compat = DedupCompat::Libbpf_1_1, .prepared_base = &prepared, .last_use = true});
    ASSERT_TRUE(write_raw(ours) == write_raw(theirs));
    Btf again = read_raw(write_raw(split), &base);
    EXPECT_THROW(dedup(again, {.compat = DedupCompat::Libbpf_1_1, .prepared_base = &prepared}), Error);
  }
}

// A split table's own types may refer to base types by id, named or not:
// a base reference to such a type is one a new type can meet, whatever
// the names the table has (IndexPerTable leaves out only what no new
// type can meet).
TEST(Dedup, IndexPerTableMeetsReferencesToBaseTypesReferredToById) {
  Btf base;
  const TypeId i = base.add_int("int", 4, INT_SIGNED);
  const TypeId hidden = base.add_typedef("hidden", i);  // a name the split table has not
  base.add_ptr(hidden);
  const TypeId hidden_too = base.add_typedef("hidden_too", i);
  base.add_const(base.add_ptr(hidden_too));
  // Types enough that the split table, smaller, has its names looked up.
  for (int k = 0; k < 8; ++k) base.add_typedef("pad_" + std::to_string(k), i);
  Btf split(&base);
  split.add_ptr(hidden);  // by id, as the base's [3]
  split.add_const(split.add_ptr(hidden_too));
  testing::LibbpfBtf lbase = testing::to_libbpf(base);
  const std::vector<uint8_t> theirs = write_raw(libbpf_dedup(split, &base, lbase.get()));
  DedupBase per_table(base, DedupBase::IndexPerTable{});
  Btf ours = read_raw(write_raw(split), &base);
  dedup(ours, {.compat = DedupCompat::Libbpf_1_1, .prepared_base = &per_table});
  EXPECT_EQ(ours.type_count(), 0u) << "every own type is one of the base's";
  EXPECT_TRUE(write_raw(ours) == theirs);
}

// A DedupBase whose candidate index each table's dedup builds itself, of
// the base types its names can meet (a single small module's run:
// IndexPerTable): libbpf's bytes. The bases have named types no split
// table names (left out of the index, yet counted where libbpf's table
// doubles: the chains reverse as libbpf's do), one of them equal twins
// among its reference types (which twin a new type meets depends on that
// order); the split tables come whole and in stages, and some add enough
// types that libbpf's table doubles on the way (the staged passes run
// again, on an index built again).
TEST(Dedup, IndexPerTableMatchesLibbpf) {
  int redone = 0, tables = 0;
  for (uint32_t seed = 1; seed <= 8; ++seed) {
    std::mt19937 rng(seed * 92821);
    std::vector<StructDef> pool = random_pool(rng, 12);
    Btf clean_base = random_base(rng, pool);
    Btf twin_base;  // not deduplicated: each unit has its own pointers
    write_random_units(twin_base, rng, pool, 40);
    for (Btf* base : {&clean_base, &twin_base}) {
      const int only_in_base = 500 + static_cast<int>(rng() % 3000);
      for (int i = 0; i < only_in_base; ++i) {
        TypeId t = base->add_typedef("base_only_" + std::to_string(i), 1 + rng() % (base->end_id() - 1));
        base->add_ptr(rng() % 2 ? t : 1 + rng() % (base->end_id() - 1));
      }
      DedupBase per_table(*base, DedupBase::IndexPerTable{});
      testing::LibbpfBtf lbase = testing::to_libbpf(*base);
      for (int module = 0; module < 3; ++module) {
        SCOPED_TRACE("seed " + std::to_string(seed) + (base == &twin_base ? " twin base" : " clean base") +
                     " module " + std::to_string(module));
        Btf split(base);
        std::vector<TypeId> stages;
        for (int k = 0; k < 3; ++k) {
          stages.push_back(split.end_id());
          write_random_units(split, rng, pool, 1 + static_cast<int>(rng() % 3));
          for (int i = 0, n = static_cast<int>(rng() % 400); i < n; ++i)
            split.add_int("new_" + std::to_string(k) + "_" + std::to_string(i), 4, 0);
        }
        ASSERT_LT(split.type_count(), base->type_count()) << "the base's names are looked up";
        const std::vector<uint8_t> theirs = write_raw(libbpf_dedup(split, base, lbase.get()));
        for (bool staged : {false, true}) {
          Btf ours = read_raw(write_raw(split), base);
          DedupReport report;
          DedupOptions options{.compat = DedupCompat::Libbpf_1_1, .prepared_base = &per_table, .report = &report};
          if (staged) options.stages = stages;
          dedup(ours, options);
          ASSERT_TRUE(write_raw(ours) == theirs) << (staged ? "staged" : "whole");
          redone += report.redone;
          ++tables;
        }
      }
    }
  }
  EXPECT_GT(redone, 0) << "no staged table had its passes run again, of " << tables;
  EXPECT_THROW(DedupBase(Btf(), DedupBase::IndexPerTable{}).save(), Error);
}

// The base cache (btf/base_cache.h) keeps a DedupBase as DedupBase::save()
// bytes: one made from them saves the same bytes again (its whole state
// came back, the chain order of libbpf's hash map included) and gives
// every split table libbpf's result; bytes cut short, or saved for a
// smaller base, are refused.
TEST(Dedup, PreparedBaseSavedAndRestoredMatchesLibbpf) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed * 6151);
    std::vector<StructDef> pool = random_pool(rng, 3 + static_cast<int>(rng() % 10));
    Btf base = random_base(rng, pool);
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::vector<uint8_t> saved = DedupBase(base).save();
    FlatReader in(saved);
    DedupBase restored(base, in);
    ASSERT_TRUE(in.done());
    ASSERT_EQ(in.digest(), flat_digest(saved));
    ASSERT_TRUE(restored.save() == saved);
    testing::LibbpfBtf lbase = testing::to_libbpf(base);
    for (int module = 0; module < 3; ++module) {
      Btf split(&base);
      write_random_units(split, rng, pool, 1 + static_cast<int>(rng() % 4));
      Btf theirs = libbpf_dedup(split, &base, lbase.get());
      Btf ours = read_raw(write_raw(split), &base);
      dedup(ours, {.compat = DedupCompat::Libbpf_1_1, .prepared_base = &restored, .last_use = module == 2});
      ASSERT_TRUE(write_raw(ours) == write_raw(theirs)) << "module " << module;
    }
    std::vector<uint8_t> cut(saved.begin(), saved.end() - 1);
    FlatReader cut_in(cut);
    EXPECT_THROW(DedupBase(base, cut_in), Error);
    Btf smaller;
    smaller.add_int("int", 4, INT_SIGNED);
    FlatReader again(saved);
    EXPECT_THROW(DedupBase(smaller, again), Error) << "ids past the end of this base";
  }
}

// A prepared base keeps its working state between modules and undoes each
// module's changes to it: a module big enough to outgrow the base's
// candidate index, and modules deduplicated at the same time on several
// threads, still give libbpf's bytes, and so does each module after them.
TEST(Dedup, PreparedBaseStateSurvivesBigAndConcurrentModules) {
  std::mt19937 rng(2718);
  std::vector<StructDef> pool = random_pool(rng, 10);
  Btf raw_base;
  write_random_units(raw_base, rng, pool, 3);
  Btf base = libbpf_dedup(raw_base);
  DedupBase prepared(base);
  testing::LibbpfBtf lbase = testing::to_libbpf(base);
  std::vector<Btf> modules;
  for (int m = 0; m < 8; ++m) {
    modules.emplace_back(&base);
    write_random_units(modules.back(), rng, pool, 1 + static_cast<int>(rng() % 4));
    // Thousands of new canonical types: the index grows. Later modules
    // have some of them too, which must not meet module 2's.
    int ints = m == 2 ? 5000 : m > 2 ? 50 : 0;
    for (int i = 0; i < ints; ++i) modules.back().add_int("big_" + std::to_string(i), 4, 0);
  }
  std::vector<std::vector<uint8_t>> theirs;
  for (const Btf& m : modules) theirs.push_back(write_raw(libbpf_dedup(m, &base, lbase.get())));
  for (size_t m = 0; m < modules.size(); ++m) {  // one after the other
    Btf ours = read_raw(write_raw(modules[m]), &base);
    dedup(ours, {.compat = DedupCompat::Libbpf_1_1, .prepared_base = &prepared});
    EXPECT_TRUE(write_raw(ours) == theirs[m]) << "module " << m;
  }
  set_jobs(4);
  for (int round = 0; round < 3; ++round) {  // several at once
    std::vector<std::vector<uint8_t>> ours(modules.size());
    parallel_for(modules.size(), [&](size_t m) {
      Btf t = read_raw(write_raw(modules[m]), &base);
      dedup(t, {.compat = DedupCompat::Libbpf_1_1, .prepared_base = &prepared});
      ours[m] = write_raw(t);
    });
    for (size_t m = 0; m < modules.size(); ++m) EXPECT_TRUE(ours[m] == theirs[m]) << "round " << round << " module " << m;
  }
  set_jobs(0);
}

// Units whose types take their names from `names` (a list per unit, each
// a NUL-terminated text in `region`): a struct with one member every
// `struct_every` names, a typedef otherwise. Built twice, sharing `region`
// as an encoder's units do and with tables of their own; both merged on
// `base`. The shared ones, deduplicated on two threads (more types than
// one chunk of the string pass), give the bytes libbpf gives the others.
void expect_shared_region_matches_libbpf(const Btf& base, const std::string& region,
                                         const std::vector<std::vector<const char*>>& names, size_t struct_every) {
  std::vector<Btf> shared_units, plain_units;
  for (const std::vector<const char*>& unit : names)
    for (bool shared : {true, false}) {
      Btf b;
      if (shared) b.share_strings(region);
      TypeId unit_int = b.add_int("int", 4, INT_SIGNED);
      for (size_t k = 0; k < unit.size(); ++k) {
        std::string_view name = shared ? std::string_view(unit[k]) : b.str(b.add_string(unit[k]));
        if (k % struct_every == 0) {
          b.add_struct(name, 4);
          b.add_member(name, unit_int, 0);
        } else {
          b.add_typedef(name, unit_int);
        }
      }
      (shared ? shared_units : plain_units).push_back(std::move(b));
    }
  auto merged = [&](const std::vector<Btf>& units) {
    Btf out(&base);
    std::vector<const Btf*> tables;
    for (const Btf& u : units) tables.push_back(&u);
    merge_units(out, tables);
    return out;
  };
  Btf ours = merged(shared_units);
  ASSERT_GT(ours.type_count(), 140000u);  // more than one chunk of the string pass
  set_jobs(2);
  dedup(ours, kLibbpf11);
  set_jobs(0);
  Btf plain = merged(plain_units);
  testing::LibbpfBtf lbase = testing::to_libbpf(base);
  Btf theirs = libbpf_dedup(plain, &base, lbase.get());
  EXPECT_EQ(format_counts(kind_counts(ours)), format_counts(kind_counts(theirs)));
  EXPECT_TRUE(write_raw(ours) == write_raw(theirs));
}

// The string pass on an encoder's kind of table: names lie in a shared
// region where, as in a module's unmerged .debug_str, each unit has its own
// copy of them, some named in the middle; there are more types than one
// chunk of the pass holds, so chunks meet the same new names, each first
// in a different chunk. Split on a base that has some of the names: the
// same bytes as libbpf on a plain copy of the table.
TEST(Dedup, SharedStringRegionAcrossChunksMatchesLibbpf) {
  Btf base;
  TypeId int_id = base.add_int("int", 4, INT_SIGNED);
  base.add_typedef("name_7", int_id);
  base.add_typedef("ame_9", int_id);
  constexpr int kUnits = 40, kNames = 4000;
  std::string region(1, '\0');
  std::vector<std::vector<uint32_t>> at(kUnits, std::vector<uint32_t>(kNames));
  for (int u = 0; u < kUnits; ++u)
    for (int k = 0; k < kNames; ++k) {
      at[u][k] = static_cast<uint32_t>(region.size());
      region += "name_" + std::to_string((k * 7 + u * 131) % (kNames + u * 50)) + '\0';
    }
  std::vector<std::vector<const char*>> names(kUnits);
  for (int u = 0; u < kUnits; ++u)
    for (int k = 0; k < kNames; ++k) {
      const char* text = region.data() + at[u][k];
      if (k % 5 == 3) ++text;  // "ame_...": the middle of a string
      names[u].push_back(text);
    }
  expect_shared_region_matches_libbpf(base, region, names, 3);
}

// Units that name the same things in the same order (as units including
// the same headers do), each from its own copy of the texts, with every
// unit departing from the common order somewhere: a name of the same
// length but other text, a shorter or longer one, a name of its own, a
// name left out. The string pass takes a text for the name that followed
// the one before it last time only when the texts are equal: libbpf's
// bytes.
TEST(Dedup, NamesInRepeatedOrderMatchLibbpf) {
  Btf base;
  TypeId int_id = base.add_int("int", 4, INT_SIGNED);
  base.add_typedef("field_12", int_id);
  constexpr int kUnits = 50, kNames = 3000;
  std::string region(1, '\0');
  std::vector<std::vector<uint32_t>> at(kUnits);
  for (int u = 0; u < kUnits; ++u)
    for (int k = 0; k < kNames; ++k) {
      std::string name = "field_" + std::to_string(k);
      if (k % 101 == u % 101) name[0] = 'g';                   // same length, other text
      else if (k % 211 == u) name += "x";                      // longer
      else if (k % 307 == u) name.pop_back();                  // shorter
      else if (k % 401 == u) name = "own_" + std::to_string(u); // the unit's own
      else if (k % 503 == u) continue;                         // left out
      at[u].push_back(static_cast<uint32_t>(region.size()));
      region += name + '\0';
    }
  std::vector<std::vector<const char*>> names(kUnits);
  for (int u = 0; u < kUnits; ++u)
    for (uint32_t off : at[u]) names[u].push_back(region.data() + off);
  expect_shared_region_matches_libbpf(base, region, names, 4);
}

// A table built through add_string (each text once, as the encoder's
// merge of vmlinux's groups) takes the string pass by offset: libbpf's
// bytes whether the table is in order of first reference already (kept as
// it is), has its strings in another order or one no record names (a new
// table), or names the middle of a string (the pass by text).
TEST(Dedup, BuiltTablesTakeTheStringPassByOffset) {
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    std::mt19937 rng(seed * 31);
    std::vector<StructDef> pool = random_pool(rng, 3 + static_cast<int>(rng() % 10));
    for (int variant = 0; variant < 4; ++variant) {
      Btf b;
      if (variant == 1) b.add_string("m" + std::to_string(rng() % 4));  // a member name early
      if (variant == 2) b.add_string("never_named");
      if (variant == 3) {  // appended: its strings in order of first reference
        Btf units;
        write_random_units(units, rng, pool, 2 + static_cast<int>(rng() % 4));
        append(b, units);
      } else {
        write_random_units(b, rng, pool, 2 + static_cast<int>(rng() % 4));
      }
      SCOPED_TRACE("seed " + std::to_string(seed) + " variant " + std::to_string(variant));
      ASSERT_TRUE(b.strings().unique());
      Btf theirs = libbpf_dedup(b);
      Btf ours = std::move(b);
      dedup(ours, kLibbpf11);
      ASSERT_EQ(format_counts(kind_counts(ours)), format_counts(kind_counts(theirs)));
      ASSERT_TRUE(write_raw(ours) == write_raw(theirs));
    }
  }
  Btf b;
  TypeId int_id = b.add_int("int", 4, INT_SIGNED);
  uint32_t foobar = b.add_string("foobar");
  b.add_struct_name_off(foobar + 3, 4);  // "bar", inside "foobar"
  b.add_member("x", int_id, 0);
  b.add_struct("bar", 4);
  b.add_member("x", int_id, 0);
  ASSERT_TRUE(b.strings().unique());
  Btf theirs = libbpf_dedup(b);
  dedup(b, kLibbpf11);
  EXPECT_EQ(b.type_count(), 2u);  // int and one "bar"
  EXPECT_TRUE(write_raw(b) == write_raw(theirs));
}

// merge.h: appending units then deduplicating equals deduplicating the
// units written into one table directly.
TEST(Dedup, AppendThenDedupEqualsOneTable) {
  std::mt19937 rng(42);
  std::vector<StructDef> pool = random_pool(rng, 8);
  std::vector<Btf> units(4);
  Btf together;
  std::mt19937 rng_a(7), rng_b(7);
  for (Btf& u : units) write_random_units(u, rng_a, pool, 1);
  write_random_units(together, rng_b, pool, 4);
  Btf merged;
  TypeId next = 1;
  for (const Btf& u : units) {
    EXPECT_EQ(append(merged, u), next);
    next += u.type_count();
  }
  EXPECT_EQ(merged.type_count(), together.type_count());
  dedup(merged, kLibbpf11);
  dedup(together, kLibbpf11);
  EXPECT_TRUE(write_raw(merged) == write_raw(together));
}

}  // namespace
}  // namespace btfc::btf

// ---- the pahole 1.31 references ----
namespace btfc::btf {
namespace {

std::string reference(const std::string& name) { return testing::reference_dir() + "/" + name; }

// vmlinux, then for each module its own copy of vmlinux and the module
// rebased onto that copy: one standalone table of ~927k types where the
// ~100k vmlinux types appear nine times over, as in an encoder's merged
// per-unit tables.
Btf concatenated_references(const Btf& vmlinux) {
  Btf all;
  for (const std::string& m : testing::reference_modules()) {
    Btf mod = read_file(reference(m + ".legacy-flags.btf"), &vmlinux);
    TypeId first = append(all, vmlinux);
    std::vector<TypeId> base_ids(vmlinux.end_id());
    for (TypeId id = 1; id < vmlinux.end_id(); ++id) base_ids[id] = first + id - 1;
    append(all, mod, base_ids);
  }
  return all;
}

TEST(DedupCorpus, ConcatenatedReferencesMatchLibbpf) {
  Btf vmlinux = read_file(reference("vmlinux.legacy-flags.btf"));
  Btf input = concatenated_references(vmlinux);
  ASSERT_GT(input.type_count(), 9 * vmlinux.type_count());
  Btf ours = read_raw(write_raw(input));
  dedup(ours);
  Btf theirs = libbpf_dedup(input);
  EXPECT_EQ(format_counts(kind_counts(ours)), format_counts(kind_counts(theirs)));
  std::vector<uint8_t> raw = write_raw(ours);
  EXPECT_TRUE(raw == write_raw(theirs)) << "same counts, different bytes";
  // Shared types collapsed: no more than vmlinux plus the modules' own.
  size_t own = 0;
  for (const std::string& m : testing::reference_modules())
    own += read_file(reference(m + ".legacy-flags.btf"), &vmlinux).type_count();
  // Not all copies collapse: libbpf leaves some 3,000 module-side
  // duplicates here too (the bytes are the same), so only bound it below.
  EXPECT_GE(ours.type_count(), vmlinux.type_count());
  EXPECT_LT(ours.type_count(), vmlinux.type_count() + 2 * own);
  DiffResult d = diff(ours, theirs);
  EXPECT_TRUE(d.equivalent) << d.report.substr(0, 4000);
  BTFC_EXPECT_LOADS(raw);
}

// What pahole wrote for vmlinux is already deduplicated: dedup changes
// nothing. Module BTF is not quite a fixed point of libbpf's dedup: a
// second run on top of vmlinux merges a few more module types into base
// types (nf_tables' copy of struct module, kvm's gfn_to_pfn_cache); ours
// must do exactly what libbpf does, and never add types.
TEST(DedupCorpus, ReferencesAreFixedPoints) {
  Btf vmlinux = read_file(reference("vmlinux.legacy-flags.btf"));
  Btf again = read_file(reference("vmlinux.legacy-flags.btf"));
  dedup(again);
  EXPECT_EQ(format_counts(kind_counts(again)), format_counts(kind_counts(vmlinux)));
  DiffResult d = diff(vmlinux, again);
  EXPECT_TRUE(d.equivalent) << d.report.substr(0, 4000);
  EXPECT_TRUE(write_raw(again) == write_raw(libbpf_dedup(vmlinux)));
  testing::LibbpfBtf lbase = testing::to_libbpf(vmlinux);
  for (const std::string& m : testing::reference_modules()) {
    SCOPED_TRACE(m);
    Btf mod = read_file(reference(m + ".legacy-flags.btf"), &vmlinux);
    Btf mod_again = read_file(reference(m + ".legacy-flags.btf"), &vmlinux);
    dedup(mod_again);
    Btf theirs = libbpf_dedup(mod, &vmlinux, lbase.get());
    EXPECT_EQ(format_counts(kind_counts(mod_again)), format_counts(kind_counts(theirs)));
    EXPECT_TRUE(write_raw(mod_again) == write_raw(theirs));
    EXPECT_LE(mod_again.type_count(), mod.type_count());
  }
}

}  // namespace
}  // namespace btfc::btf
