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
};

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
  btf::TypeId type_id(uint64_t die_offset) override;
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

  void number_unit();
  void index_slots();
  btf::TypeId reserve(const dwarf::Die& die, uint32_t what);
  void drain();
  void emit(const Pending& p);
  void emit_base(const dwarf::Die& die, const dwarf::TypeAttrs& a);
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
  uint32_t name_off(const dwarf::TypeAttrs& a, bool required = false);

  // The vectors a unit fills, kept per thread with their capacity: the
  // next unit on the thread fills them again without growing them, which
  // cost more than filling them (each unit's grew from empty).
  struct Scratch {
    std::vector<Slot> slots;
    std::vector<Pending> pending;
    std::vector<Item> items, walked_items;
    std::vector<dwarf::Die> subprograms, variables;
    std::vector<DeclTag> decl_tags;
    std::vector<btf::Btf::NewMember> members;
    std::vector<std::pair<uint32_t, btf::TypeId>> params;
    std::vector<std::pair<uint32_t, uint64_t>> enumerators;
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
  std::unordered_map<uint64_t, btf::TypeId> foreign_;  // DIEs of other units
  std::vector<Pending>& pending_;                   // index = id - 1
  size_t emitted_ = 0;                              // pending_[0, emitted_) are in out_
  bool draining_ = false;
  btf::TypeId int_id_ = 0;                          // the unit's `int`, or the appended one
  bool has_int_ = false;
  size_t int_slot_ = 0;
  bool has_array_ = false;
  uint64_t dies_walked_ = 0;
  std::vector<DeclTag>& decl_tags_;
  std::vector<Item>& items_;                        // children of structs and function types (Pending)
  std::vector<dwarf::Die>& subprograms_;
  std::vector<dwarf::Die>& variables_;

  // Reused across DIEs.
  std::vector<btf::Btf::NewMember>& members_;
  std::vector<std::pair<uint32_t, btf::TypeId>>& params_;       // name offset, type
  std::vector<std::pair<uint32_t, uint64_t>>& enumerators_;      // name offset, value
  std::vector<Item>& walked_items_;                 // items_of() a DIE pass 1 did not meet
};

}  // namespace btfc::convert
