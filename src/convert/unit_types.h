// One compilation unit's DWARF types as BTF, by pahole 1.31's rules
// (pahole-rules.md section 2), into a standalone table whose ids are local
// to the unit (1..n; the encoder shifts them when it merges units).
//
//   btf::Btf table;
//   UnitTypes types(ctx, table);
//   types.convert_all();                        // every type DIE, pahole's order
//   btf::TypeId t = types.type_id(die_offset);  // local id of any type DIE, 0 = void
//
// Order. pahole puts every type DIE of a unit into a table in the order the
// loader finishes them: unit-level types in DIE order, a type nested inside
// another one (a struct inside a struct, the btf_type_tag annotations of a
// pointer) before its parent, types inside function bodies where they
// appear. Ids are that table's indexes. So the walk runs in two passes:
// the first numbers type DIEs in that order (tags only, attributes skipped
// in one step), the second emits each record in id order, resolving
// references through the numbering. A reference to a DIE the first pass
// did not number (another unit's DIE through DW_FORM_ref_addr, with LTO or
// dwz) gets the next free id and is converted into this table too; dedup
// merges the copies later, so units never wait for each other.
//
// Cost. No heap allocation per DIE: the numbering is one vector of
// (DIE offset, id) pairs sorted by offset (binary search), the scratch
// vectors for members/parameters are reused, strings go straight into the
// table's string index. The unit's DIEs are walked once: pass 1 keeps what
// the later steps would otherwise walk the unit again for (the children of
// structs, unions and function types as 16-byte references, the unit-level
// subprograms and variables that collect_functions/collect_variables read).
// Attributes: most DIEs are read by a per-abbreviation plan (QuickPlan) in a
// few loads, the rest by DwarfFile::type_attrs; function bodies without
// types are scanned and jumped over (body_without_types).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "btf/btf.h"
#include "convert/functions.h"
#include "convert/options.h"
#include "dwarf/dwarf_file.h"
#include "elf/elf_file.h"

namespace btfc::convert {

// What a per-unit converter (types, functions, variables) may read.
struct UnitContext {
  const elf::ElfFile& elf;
  const dwarf::DwarfFile& dwarf;
  const dwarf::Unit& unit;
  const EncodeOptions& options;
  size_t unit_index = 0;  // position in dwarf.units()
  // The name of the INT a unit with arrays but no `int` makes for their
  // index (2.5): "int" in .debug_str where the file's units name it so
  // (shared_int_name), else nullptr for an own copy of "int".
  const char* int_name = nullptr;
};

// Where the file's units name `int` when that is in .debug_str, as clang
// names every type (gcc writes "int" inline): the first unit with an `int`
// base type tells; nullptr if none does so, or on any error (the units'
// conversion reports it). A unit that makes its own `int` names it there
// too, so that names by offset (encode.cc) find no "int" both ways.
const char* shared_int_name(const dwarf::DwarfFile& dw);

// A btf_decl_tag annotation found while converting types, emitted after
// the unit's types as pahole does.
struct DeclTag {
  std::string_view value;
  btf::TypeId target;
  int32_t component_idx;  // -1 for the type itself, else the member index
};

// Implements the functions/variables collectors' TypeLookup.
class UnitTypes final : public TypeLookup {
 public:
  UnitTypes(const UnitContext& ctx, btf::Btf& out);
  ~UnitTypes();
  UnitTypes(const UnitTypes&) = delete;
  UnitTypes& operator=(const UnitTypes&) = delete;

  // Converts every type DIE of the unit, then the `int` index type pahole
  // appends to a unit that has arrays but no `int`, then the DECL_TAGs of
  // structs, unions and typedefs. Call once, before type_id().
  void convert_all();

  // Local id of the type DIE at this global offset (0 for void and for
  // DW_TAG_unspecified_type). A DIE outside this unit is converted now.
  // Inline: every member, parameter and reference asks it; most find
  // their id in the dense index in one load.
  btf::TypeId type_id(uint64_t die_offset) override {
    if (uint64_t at = die_offset - dense_base_; at < dense_size_)
      if (uint32_t id = dense_data_[at]) return id - 1;
    return type_id_slow(die_offset);
  }
  // The DIE's DW_AT_type, or 0 (void) when it has none.
  btf::TypeId type_of(const dwarf::TypeAttrs& a) {
    std::optional<uint64_t> t = a.type();
    return t ? type_id(*t) : 0;
  }

  // Size in bytes of a local type as C sizeof sees it (typedefs and
  // qualifiers followed, arrays multiplied, pointers the address size),
  // 0 for void, functions and incomplete types.
  uint64_t type_size(btf::TypeId id) const;

  btf::Btf& btf() { return out_; }
  btf::Btf& table() override { return out_; }
  const UnitContext& context() const { return ctx_; }

  // Counts for --stats.
  uint64_t dies_walked() const { return dies_walked_; }

  // The unit-level (depth 1) DW_TAG_subprogram and DW_TAG_variable DIEs in
  // DIE order, as pass 1 met them: what collect_functions and
  // collect_variables read, without walking the unit again. Valid after
  // convert_all().
  std::span<const dwarf::Die> subprograms() const { return subprograms_; }
  std::span<const dwarf::Die> variables() const { return variables_; }

 private:
  struct Slot {          // one numbered DIE, in DIE (offset) order
    uint64_t offset;
    btf::TypeId id;      // 0 until its subtree ends (post-order), or for unspecified_type
  };
  struct Pending {       // one id to emit, in id order
    dwarf::Die die;      // the DIE (for a type tag: the annotation DIE), kept from numbering: not found again
    uint32_t what;       // kType, kTypeTag, kIndexInt
    btf::TypeId link;    // kTypeTag: the previous tag (0: the pointee); pointer: its last tag
    uint64_t parent;     // kTypeTag: the pointer DIE
    // Structs, unions, function types: their children, num_items Items
    // linked from items_[first_item], when pass 1 met them; kNoItems for a
    // DIE only type_id() met, whose children emit walks.
    uint32_t first_item = kNoItems, num_items = 0;
  };
  enum : uint32_t { kType = 0, kTypeTag = 1, kIndexInt = 2 };
  static constexpr uint32_t kNoItems = UINT32_MAX;
  // A child DIE of a struct, union or function type as pass 1 met it:
  // enough to read its attributes (type_attrs) without a cursor, in half a
  // Die. Positions are in the reader of the parent's unit.
  struct Item {
    const dwarf::Abbrev* abbrev;
    uint64_t pos;        // of the DIE
    uint32_t code_len;   // bytes of its abbreviation code (UINT32_MAX: that many or more, read again)
    uint32_t next;       // the parent's next child in the same vector
  };
  // The children of one parent, in DIE order.
  class ItemList {
   public:
    struct Iter {
      const Item* items;
      uint32_t at, left;
      const Item& operator*() const { return items[at]; }
      Iter& operator++() {
        if (--left) at = items[at].next;
        return *this;
      }
      bool operator!=(const Iter& o) const { return left != o.left; }
    };
    ItemList(const Item* items, uint32_t first, uint32_t count) : items_(items), first_(first), count_(count) {}
    Iter begin() const { return {items_, first_, count_}; }
    Iter end() const { return {items_, 0, 0}; }

   private:
    const Item* items_;
    uint32_t first_, count_;
  };

  btf::TypeId type_id_slow(uint64_t die_offset);
  // What quick_attrs reads of a unit, loaded once per struct rather than
  // through the Unit for every member.
  struct UnitBytes {
    const uint8_t* data;   // the unit's reader's bytes
    uint64_t size;
    const uint8_t* str;    // its .debug_str, str_end bytes of it usable
    uint64_t str_end;
    uint64_t length;       // end - offset: a ref4 must be below it
    uint64_t base;         // global offset of the unit's byte 0
    bool big_endian, strp8;
    explicit UnitBytes(const dwarf::Unit& u)
        : data(u.reader.bytes().data()), size(u.reader.size()), str(u.sections->str.data()),
          str_end(u.sections->str_end), length(u.end - u.offset), base(u.global_base + u.offset),
          big_endian(u.reader.big_endian()), strp8(u.offset_size != 4) {}
  };
  // The attributes most members, parameters, pointers, qualifiers and
  // typedefs have, read by a plan made once per abbreviation (QuickPlan).
  struct Quick {
    dwarf::Value name;     // kind kNone when absent
    uint64_t type = 0;     // global offset; has_type says whether present
    uint64_t location = 0; // DW_AT_data_member_location, 0 when absent
    uint64_t constant = 0; // DW_AT_const_value, 0 when absent
    bool has_type = false;
  };
  struct QuickPlan;
  static QuickPlan make_plan(const dwarf::Abbrev* a);
  const QuickPlan& plan_slow(const dwarf::Abbrev* a);
  // Fills q from the DIE with abbreviation `a` whose attributes start at
  // `attr_pos` in u's reader, as type_attrs would; false when the plan does
  // not cover the abbreviation (or, `member`, a member needs more than
  // these: bit fields, declarations) or the DIE's bytes are not all there,
  // which the caller leaves to type_attrs.
  bool quick_attrs(const dwarf::Abbrev* a, const UnitBytes& u, uint64_t attr_pos, bool member, Quick& q);
  void number_unit();
  void read_plain_items(dwarf::DieCursor& cursor, uint32_t& first_item, uint32_t& last_item, uint32_t& num_items,
                        size_t& items, uint64_t& walked);
  bool body_without_types(const dwarf::Die& die);
  void index_slots();
  btf::TypeId reserve(const dwarf::Die& die, uint32_t what);
  // `ann`, an annotation child of the pointer at `pointer`: if it is a
  // btf_type_tag, its id, linked to `last_tag` (0: the pointee), becomes
  // `last_tag` (2.12).
  void reserve_type_tag(const dwarf::Die& ann, uint64_t pointer, btf::TypeId& last_tag);
  void drain();
  void emit(const Pending& p);
  void emit_base(const dwarf::Die& die, const dwarf::TypeAttrs& a);
  void typedef_tags(const dwarf::Die& die, btf::TypeId self);
  void emit_struct(const dwarf::Die& die, const dwarf::TypeAttrs& a, btf::TypeId self, ItemList items);
  void emit_enum(const dwarf::Die& die, const dwarf::TypeAttrs& a);
  void emit_array(const dwarf::Die& die, const dwarf::TypeAttrs& a);
  void emit_func_proto(const dwarf::Die& die, const dwarf::TypeAttrs& a, ItemList items);
  ItemList items_of(const Pending& p);
  static Item make_item(const dwarf::Die& die, const dwarf::Unit& unit);
  static dwarf::Die item_die(const Item& item, const dwarf::Unit& unit);
  static uint64_t attr_pos_slow(const Item& item, const dwarf::Unit& unit);
  void emit_pointer(const dwarf::Die& die, const dwarf::TypeAttrs& a, btf::TypeId self);
  btf::TypeId index_type();
  uint64_t dwarf_type_byte_size(uint64_t die_offset, int depth = 0);
  [[noreturn]] void fail(const dwarf::Die& die, const std::string& what) const;
  std::string_view kabi(std::string_view name) const;
  // Inline for a name in .debug_str (nearly all): its offset in the
  // shared region, as Btf::add_string_pooled gives it, without the call.
  uint32_t name_off(const dwarf::Value& name, bool required = false) {
    if (name.kind == dwarf::Value::kString && name.len == dwarf::Value::kNulTerminated) {
      const char* p = reinterpret_cast<const char*>(name.ptr);
      uintptr_t at = reinterpret_cast<uintptr_t>(p) - shared_base_;
      if (at < shared_size_ && !(required && *p == '\0')) return btf::Btf::SHARED_STR_BASE + static_cast<uint32_t>(at);
    } else if (name.kind == dwarf::Value::kNone) {
      return 0;  // no name (most parameters of function types): what add_string("") gives
    }
    return name_off_slow(name, required);
  }
  uint32_t name_off(const dwarf::TypeAttrs& a, bool required = false) { return name_off(a.name, required); }
  // name_off(name, true) but for a name in the shared region, whose "" the
  // caller turns into 0 itself (see emit_enum).
  uint32_t name_off_unchecked(const dwarf::Value& name) {
    if (name.kind == dwarf::Value::kString && name.len == dwarf::Value::kNulTerminated) {
      uintptr_t at = reinterpret_cast<uintptr_t>(name.ptr) - shared_base_;
      if (at < shared_size_) return btf::Btf::SHARED_STR_BASE + static_cast<uint32_t>(at);
    }
    return name_off_slow(name, true);
  }
  uint32_t name_off_slow(const dwarf::Value& name, bool required);
  uint32_t short_name_off(std::string_view name);

  // DW_FORM_string names (gcc writes names shorter than a .debug_str
  // offset inline): their offsets in the unit's own strings, by the name's
  // bytes, so that the thousandth `id` of a unit is not hashed again.
  struct ShortName {
    uint64_t key = 0;    // the name's bytes (at most 7) and its length in the top byte; 0: empty entry
    uint32_t off = 0;
  };
  static constexpr size_t kShortNames = 256;

  // How quick_attrs reads an abbreviation's DW_AT_name, DW_AT_type and
  // DW_AT_data_member_location (from Abbrev::key_specs).
  struct QuickPlan {
    enum : uint8_t { kNoName, kNameStrp, kNameString };
    bool built = false;      // made (own_plans_ are made when first asked for)
    bool ok = false;         // keys_fixed, each key read as type_attrs would without a check that can fail
    bool member_ok = false;  // ok, and no key a member reads but these three
    // A member abbreviation with a strp name, a ref4 type, a location of at
    // most 4 bytes (or implicit, small) and no DW_FORM_string: emit_struct
    // reads such members in a straight line (nearly all of gcc's).
    bool simple_member = false;
    // A parameter abbreviation with a ref4 type, no name and no
    // DW_FORM_string: emit_func_proto reads it in a straight line.
    bool simple_param = false;
    uint8_t name = kNoName;
    uint8_t loc_size = 0;    // 1, 2, 4, 8; 0: absent or implicit (loc_implicit)
    uint8_t const_size = 0;  // DW_AT_const_value the same way (const_implicit)
    bool const_after = false;
    uint16_t const_pos = 0;
    uint64_t const_implicit = 0;
    bool has_type = false, name_after = false, type_after = false, loc_after = false;
    uint16_t name_pos = 0, type_pos = 0, loc_pos = 0;  // from the first attribute, or after the string (*_after)
    uint64_t loc_implicit = 0;
  };
  struct PlanSlot {
    const dwarf::Abbrev* abbrev = nullptr;
    uint64_t unit = 0;       // the serial number of the UnitTypes that made it (Abbrevs die with their file)
    QuickPlan plan;
  };
  static constexpr size_t kPlanSlots = 512;

  // A vector whose elements outlive clear(): the next unit overwrites them,
  // and only growth value-initializes (the new part). Appending is inline:
  // pass 1 appends for most DIEs.
  template <typename T>
  class Pool {
   public:
    [[gnu::always_inline]] void push_back(const T& x) {
      if (n_ == cap_) [[unlikely]] grow();
      v_[n_++] = x;
    }
    // T{args...} built where it lands (see append in unit_types.cc).
    template <typename... Args>
    [[gnu::always_inline]] void emplace_back(Args&&... args) {
      if (n_ == cap_) [[unlikely]] grow();
      ::new (static_cast<void*>(&v_[n_++])) T{std::forward<Args>(args)...};
    }
    size_t size() const { return n_; }
    T& operator[](size_t i) { return v_[i]; }
    const T& operator[](size_t i) const { return v_[i]; }
    T& back() { return v_[n_ - 1]; }
    const T* data() const { return v_.data(); }
    void clear() { n_ = 0; }

   private:
    [[gnu::noinline]] void grow() {
      v_.resize(v_.size() < 64 ? 64 : 2 * v_.size());
      cap_ = v_.size();
    }
    std::vector<T> v_;
    size_t n_ = 0;
    size_t cap_ = 0;  // v_.size(), kept: comparing with it is one load, not a division
  };

  // The vectors a unit fills, kept per thread with their capacity: the
  // next unit on the thread fills them again without growing them, which
  // cost more than filling them (each unit's grew from empty).
  struct Scratch {
    std::vector<Slot> slots;
    Pool<Pending> pending;
    Pool<Item> items;
    std::vector<Item> walked_items;
    std::vector<dwarf::Die> subprograms, variables;
    std::vector<DeclTag> decl_tags;
    std::vector<btf::Btf::NewMember> members;
    std::vector<btf::Btf::NewParam> params;
    std::vector<btf::Btf::NewEnumValue> enumerators;
    std::vector<ShortName> short_names;  // kShortNames, direct-mapped
    std::vector<PlanSlot> plans;         // kPlanSlots, direct-mapped by abbreviation
    // By index in the declarations of the unit's abbreviation cache
    // (AbbrevTable::declarations()): a plan depends on its abbreviation
    // alone, so they are kept from unit to unit of the cache whose
    // serial own_plans_cache is.
    std::vector<QuickPlan> own_plans;
    uint64_t own_plans_cache = 0;
    void clear();
  };
  static Scratch& acquire_scratch(std::unique_ptr<Scratch>& own);
  static thread_local Scratch t_scratch_;
  static thread_local bool t_scratch_busy_;

  const UnitContext& ctx_;
  btf::Btf& out_;
  std::unique_ptr<Scratch> own_scratch_;            // when another UnitTypes of this thread has t_scratch_
  Scratch& scratch_;
  std::vector<Slot>& slots_;                        // sorted by offset
  std::vector<uint32_t>* dense_ = nullptr;          // offset - dense_base_ -> id + 1 (index_slots)
  uint64_t dense_base_ = 0;
  const uint32_t* dense_data_ = nullptr;            // dense_'s entries, dense_size_ of them (0 without dense_)
  uint64_t dense_size_ = 0;
  // The table's shared string region (Btf::share_strings), as integers;
  // empty (size 0) when kabi_prefix needs every name's text.
  uintptr_t shared_base_ = 0;
  uint64_t shared_size_ = 0;
  std::unordered_map<uint64_t, btf::TypeId> foreign_;  // DIEs of other units
  Pool<Pending>& pending_;                          // index = id - 1
  size_t emitted_ = 0;                              // pending_[0, emitted_) are in out_
  bool draining_ = false;
  btf::TypeId int_id_ = 0;                          // the unit's `int`, or the appended one
  bool has_int_ = false;
  size_t int_slot_ = 0;
  bool has_array_ = false;
  uint64_t dies_walked_ = 0;
  uint64_t serial_ = 0;                             // this object's number in the thread (PlanSlot::unit)
  // The plans of the unit's own abbreviations (nearly every DIE's), by
  // their index in its table's declarations(): own_base_ is the first of
  // those, own_bytes_ their size in bytes.
  uintptr_t own_base_ = 0;
  uint64_t own_bytes_ = 0;
  QuickPlan* own_plans_ = nullptr;
  std::vector<DeclTag>& decl_tags_;
  Pool<Item>& items_;                               // children of structs and function types (Pending)
  std::vector<dwarf::Die>& subprograms_;
  std::vector<dwarf::Die>& variables_;

  // Reused across DIEs.
  std::vector<btf::Btf::NewMember>& members_;
  std::vector<btf::Btf::NewParam>& params_;
  std::vector<btf::Btf::NewEnumValue>& enumerators_;   // the value as DW_AT_const_value's bits
  std::vector<Item>& walked_items_;                 // items_of() a DIE pass 1 did not meet
};

}  // namespace btfc::convert
