// DWARF type DIEs to BTF records, pahole 1.31's rules (pahole-rules.md
// section 2; the section numbers below refer to it). See unit_types.h for
// the two-pass structure.
#include "convert/unit_types.h"

#include "base/endian.h"

#include <algorithm>
#include <bit>
#include <array>
#include <cstring>
#include <initializer_list>

namespace btfc::convert {

using namespace dwarf;
using btf::TypeId;

namespace {

constexpr uint32_t DW_TAG_interface_type = 0x38;  // DWARF 3
constexpr uint32_t DW_TAG_string_type = 0x12;
constexpr uint8_t DW_ATE_imaginary_float = 0x09;

// What the walk needs to know of a tag, as bits of one table entry: pass 1
// asks it for each of a unit's DIEs, so the three questions below are one
// load (every tag they name is below 128).
enum : uint8_t {
  kIsType = 1,   // pahole's loader puts it in a unit's type table (1.1 "Which DIEs")
  kNested = 2,   // its children may hold types the loader sees (see below)
  kItems = 4,    // its children become items of its BTF record (members, parameters)
  kDescend = 8,  // pass 1 walks its children: kNested, or a pointer (for its type tags)
};

consteval std::array<uint8_t, 128> make_tag_classes() {
  std::array<uint8_t, 128> c{};
  for (uint32_t t : {DW_TAG_base_type, DW_TAG_pointer_type, DW_TAG_typedef, DW_TAG_structure_type, DW_TAG_class_type,
                     DW_TAG_interface_type, DW_TAG_union_type, DW_TAG_enumeration_type, DW_TAG_array_type,
                     DW_TAG_subroutine_type, DW_TAG_const_type, DW_TAG_volatile_type, DW_TAG_restrict_type,
                     DW_TAG_atomic_type, DW_TAG_ptr_to_member_type, DW_TAG_reference_type,
                     DW_TAG_rvalue_reference_type, DW_TAG_string_type, DW_TAG_unspecified_type})
    c.at(t) |= kIsType;
  // The unit, structs, subroutine types, function bodies with their blocks
  // and inlined calls, namespaces. The children of anything else (array
  // subranges, enumerators, qualifiers) never hold types pahole's loader
  // would see.
  for (uint32_t t : {DW_TAG_structure_type, DW_TAG_class_type, DW_TAG_interface_type, DW_TAG_union_type,
                     DW_TAG_subroutine_type, DW_TAG_subprogram, DW_TAG_lexical_block, DW_TAG_inlined_subroutine,
                     DW_TAG_namespace, DW_TAG_compile_unit, DW_TAG_partial_unit, DW_TAG_type_unit})
    c.at(t) |= kNested | kDescend;
  c.at(DW_TAG_pointer_type) |= kDescend;
  for (uint32_t t : {DW_TAG_structure_type, DW_TAG_class_type, DW_TAG_interface_type, DW_TAG_union_type,
                     DW_TAG_subroutine_type})
    c.at(t) |= kItems;
  return c;
}
constexpr std::array<uint8_t, 128> kTagClasses = make_tag_classes();

uint8_t tag_class(uint32_t tag) { return tag < kTagClasses.size() ? kTagClasses[tag] : 0; }
bool is_type_tag(uint32_t tag) { return tag_class(tag) & kIsType; }
bool is_annotation(uint32_t tag) { return tag == DW_TAG_LLVM_annotation; }

}  // namespace

namespace {
// The DIE offset -> slot index of type_id(), one u32 per byte of the unit,
// kept per thread: allocating and zeroing it per unit would cost more than
// the lookups it saves. Entries are reset when the unit is done.
thread_local std::vector<uint32_t> t_dense;
thread_local bool t_dense_busy = false;
}  // namespace

thread_local UnitTypes::Scratch UnitTypes::t_scratch_;
thread_local bool UnitTypes::t_scratch_busy_ = false;

void UnitTypes::Scratch::clear() {
  slots.clear();
  pending.clear();
  items.clear();
  walked_items.clear();
  subprograms.clear();
  variables.clear();
  decl_tags.clear();
  members.clear();
  params.clear();
  enumerators.clear();
  short_names.assign(kShortNames, ShortName{});
  if (plans.empty()) plans.resize(kPlanSlots);
}

UnitTypes::Scratch& UnitTypes::acquire_scratch(std::unique_ptr<Scratch>& own) {
  if (t_scratch_busy_) {
    own = std::make_unique<Scratch>();
    own->clear();
    return *own;
  }
  t_scratch_busy_ = true;
  t_scratch_.clear();
  return t_scratch_;
}

UnitTypes::UnitTypes(const UnitContext& ctx, btf::Btf& out)
    : ctx_(ctx), out_(out), scratch_(acquire_scratch(own_scratch_)), slots_(scratch_.slots),
      pending_(scratch_.pending), decl_tags_(scratch_.decl_tags), items_(scratch_.items),
      subprograms_(scratch_.subprograms), variables_(scratch_.variables), members_(scratch_.members),
      params_(scratch_.params), enumerators_(scratch_.enumerators), walked_items_(scratch_.walked_items) {
  static thread_local uint64_t t_serial = 0;
  serial_ = ++t_serial;
  if (const AbbrevTable* t = ctx_.unit.abbrevs; t && t->size()) {
    if (scratch_.own_plans_cache != t->cache_serial()) {
      scratch_.own_plans.assign(t->declarations().size(), QuickPlan{});
      scratch_.own_plans_cache = t->cache_serial();
    }
    own_plans_ = scratch_.own_plans.data();
    own_base_ = reinterpret_cast<uintptr_t>(t->declarations().data());
    own_bytes_ = t->declarations().size() * sizeof(Abbrev);
  }
  // With kabi_prefix every name is looked at (kabi()): no fast path.
  if (ctx_.options.kabi_prefix.empty() && !out_.shared_strings().empty()) {
    shared_base_ = reinterpret_cast<uintptr_t>(out_.shared_strings().data());
    shared_size_ = out_.shared_strings().size();
  }
}

UnitTypes::~UnitTypes() {
  if (dense_) {
    for (const Slot& s : slots_) (*dense_)[s.offset - dense_base_] = 0;
    t_dense_busy = false;
  }
  if (&scratch_ == &t_scratch_) t_scratch_busy_ = false;
}

// A direct index when the unit is not huge (binary search otherwise).
void UnitTypes::index_slots() {
  uint64_t size = ctx_.unit.global_end() - ctx_.unit.global_offset();
  if (t_dense_busy || size > (uint64_t{64} << 20)) return;
  t_dense_busy = true;
  if (t_dense.size() < size) t_dense.resize(size);
  dense_ = &t_dense;
  dense_base_ = ctx_.unit.global_offset();
  dense_data_ = t_dense.data();
  dense_size_ = t_dense.size();
  // The ids themselves (they are final by now): a lookup is one load.
  for (const Slot& s : slots_) t_dense[s.offset - dense_base_] = s.id + 1;
}

[[noreturn]] void UnitTypes::fail(const Die& die, const std::string& what) const {
  throw Error(std::string(die.unit->section_name()), die.section_offset(), what);
}

std::string_view UnitTypes::kabi(std::string_view name) const {
  const std::string& p = ctx_.options.kabi_prefix;
  if (!p.empty() && name.size() > p.size() && name.substr(0, p.size()) == p) return p;
  return name;
}

// Most names are only stored, and most lie in .debug_str: those are added
// unread (Btf::add_string_pooled), which saves a cache miss per name. Not
// with kabi_prefix, which needs the text. A name BTF requires (`required`)
// is looked at just enough to let the builder refuse an empty one.
uint32_t UnitTypes::name_off_slow(const Value& v, bool required) {
  // A short DW_FORM_string name (the common case here), without kabi_prefix.
  if (shared_size_ && v.kind == Value::kString && v.len != Value::kNulTerminated && v.len - 1 < 7)
    return short_name_off(std::string_view(reinterpret_cast<const char*>(v.ptr), v.len));
  const bool pooled = v.kind == Value::kString && v.len == Value::kNulTerminated;
  const char* p = ctx_.options.kabi_prefix.empty() && pooled ? reinterpret_cast<const char*>(v.ptr) : nullptr;
  if (p && !(required && *p == '\0')) return out_.add_string_pooled(p);
  std::string_view name = kabi(v.kind == Value::kString ? v.str() : std::string_view());
  if (name.size() - 1 < 7 && ctx_.options.kabi_prefix.empty()) return short_name_off(name);
  return out_.add_string(name);
}

// add_string of a name of 1 to 7 bytes, remembered: Btf::add_string gives
// a name the same offset every time.
uint32_t UnitTypes::short_name_off(std::string_view name) {
  uint64_t key = uint64_t{name.size()} << 56;
  for (size_t i = 0; i < name.size(); i++) key |= uint64_t{static_cast<uint8_t>(name[i])} << (8 * i);
  ShortName& e = scratch_.short_names[(key * 0x9E3779B97F4A7C15ull) >> 56];
  if (e.key != key) e = {key, out_.add_string(name)};
  return e.off;
}

UnitTypes::QuickPlan UnitTypes::make_plan(const Abbrev* a) {
  QuickPlan q;
  bool has_name = false, has_loc = false, has_const = false, member_ok = true, ok = a->keys_fixed;
  for (const KeySpec& k : a->key_specs()) {
    if (!ok) break;
    const AttrSpec& spec = a->attrs[k.spec];
    // type_attrs decodes these in full (and may report an error): not here.
    if (k.op == kKeyRead) ok = false;
    switch (spec.name) {
      case DW_AT_name:
        // The last of repeated attributes would win: left to type_attrs.
        if (has_name) ok = false;
        has_name = true;
        if (k.op == kKeyNameStrp) q.name = QuickPlan::kNameStrp;
        else if (k.op == kKeyNameString) q.name = QuickPlan::kNameString;
        else if (k.op != kKeyIgnore) ok = false;
        q.name_pos = k.offset;
        q.name_after = k.after_str;
        break;
      case DW_AT_type:
        if (q.has_type) ok = false;
        if (k.op == kKeyTypeRef4) q.has_type = true;
        else if (k.op != kKeyIgnore) ok = false;
        q.type_pos = k.offset;
        q.type_after = k.after_str;
        break;
      case DW_AT_data_member_location:
        if (has_loc) ok = false;
        has_loc = true;
        switch (k.op) {
          case kKeyNum1: q.loc_size = 1; break;
          case kKeyNum2: q.loc_size = 2; break;
          case kKeyNum4: q.loc_size = 4; break;
          case kKeyNum8: q.loc_size = 8; break;
          case kKeyNumImplicit: q.loc_implicit = static_cast<uint64_t>(spec.implicit_const); break;
          default: ok = false;
        }
        q.loc_pos = k.offset;
        q.loc_after = k.after_str;
        break;
      case DW_AT_const_value:
        // Constants as enumerators read them (TypeAttrs::const_value's u).
        if (has_const) ok = false;
        has_const = true;
        switch (k.op) {
          case kKeyConst1: q.const_size = 1; break;
          case kKeyConst2: q.const_size = 2; break;
          case kKeyConst4: q.const_size = 4; break;
          case kKeyConst8: q.const_size = 8; break;
          case kKeyConstImplicit: q.const_implicit = static_cast<uint64_t>(spec.implicit_const); break;
          default: ok = false;
        }
        q.const_pos = k.offset;
        q.const_after = k.after_str;
        break;
      case DW_AT_bit_size: case DW_AT_data_bit_offset: case DW_AT_bit_offset: case DW_AT_declaration:
      case DW_AT_external:
        member_ok = false;
        break;
      default: break;  // byte_size, encoding, bounds: no reader of Quick looks at them
    }
  }
  q.built = true;
  q.ok = ok;
  q.member_ok = ok && member_ok;
  q.simple_param = q.ok && a->tag == DW_TAG_formal_parameter && a->str_pos == Abbrev::kNoStr &&
                   q.name == QuickPlan::kNoName && q.has_type;
  q.simple_member = q.member_ok && a->tag == DW_TAG_member && !a->has_children && a->str_pos == Abbrev::kNoStr &&
                    q.name == QuickPlan::kNameStrp && q.has_type && q.const_size == 0 && q.loc_size <= 4 &&
                    (q.loc_size || q.loc_implicit < (uint64_t{1} << 29));
  return q;
}

// The plan of an abbreviation: made once per thread and abbreviation
// cache, found by its index in the cache's declarations, or for another
// cache's (a DIE of another unit) once per unit in the hashed slots.
[[gnu::noinline]] const UnitTypes::QuickPlan& UnitTypes::plan_slow(const Abbrev* a) {
  const uintptr_t d = reinterpret_cast<uintptr_t>(a) - own_base_;
  if (d < own_bytes_) return own_plans_[d / sizeof(Abbrev)] = make_plan(a);
  PlanSlot& slot = scratch_.plans[(reinterpret_cast<uintptr_t>(a) * 0x9E3779B97F4A7C15ull) >> 55];
  if (slot.abbrev != a || slot.unit != serial_) slot = {a, serial_, make_plan(a)};
  return slot.plan;
}

// Inline: emit_struct calls it for every member.
[[gnu::always_inline]] inline bool UnitTypes::quick_attrs(const Abbrev* a, const UnitBytes& u, uint64_t attr_pos,
                                                          bool member, Quick& q) {
  const uintptr_t d = reinterpret_cast<uintptr_t>(a) - own_base_;
  const QuickPlan& plan = d < own_bytes_ && own_plans_[d / sizeof(Abbrev)].built ? own_plans_[d / sizeof(Abbrev)] : plan_slow(a);
  if (!(member ? plan.member_ok : plan.ok)) return false;
  const uint8_t* data = u.data;
  const uint64_t size = u.size;
  // The same bounds type_attrs checks before its fast path. Keys before
  // the DW_FORM_string (or all, without one) count from `head`, those
  // after it from `tail`.
  const uint8_t* head = data + attr_pos;
  const uint8_t* tail = head;
  uint64_t str_len = 0;
  if (a->str_pos == Abbrev::kNoStr) [[likely]] {
    if (attr_pos + a->keys_end > size) return false;
  } else {
    const uint64_t at = attr_pos + a->str_pos;
    const void* nul = at < size ? std::memchr(data + at, 0, size - at) : nullptr;
    if (!nul) return false;
    str_len = static_cast<uint64_t>(static_cast<const uint8_t*>(nul) - (data + at));
    const uint64_t after = at + str_len + 1;
    if (after + a->keys_end > size) return false;
    tail = data + after;
  }
  const bool be = u.big_endian;
  q.name.kind = Value::kNone;
  if (plan.name == QuickPlan::kNameStrp) {
    const uint8_t* p = (plan.name_after ? tail : head) + plan.name_pos;
    const uint64_t off = u.strp8 ? load<uint64_t>(p, be) : load<uint32_t>(p, be);
    if (off >= u.str_end) return false;
    q.name = Value{Value::kString, 0, u.str + off, Value::kNulTerminated};
  } else if (plan.name == QuickPlan::kNameString) {
    q.name = Value{Value::kString, 0, (plan.name_after ? tail : head) + plan.name_pos, str_len};
  }
  q.has_type = plan.has_type;
  if (plan.has_type) {
    const uint64_t off = load<uint32_t>((plan.type_after ? tail : head) + plan.type_pos, be);
    if (off >= u.length) return false;
    q.type = u.base + off;
  }
  const uint8_t* l = (plan.loc_after ? tail : head) + plan.loc_pos;
  switch (plan.loc_size) {
    case 1: q.location = *l; break;
    case 2: q.location = load<uint16_t>(l, be); break;
    case 4: q.location = load<uint32_t>(l, be); break;
    case 8: q.location = load<uint64_t>(l, be); break;
    default: q.location = plan.loc_implicit; break;
  }
  const uint8_t* c = (plan.const_after ? tail : head) + plan.const_pos;
  switch (plan.const_size) {
    case 1: q.constant = *c; break;
    case 2: q.constant = load<uint16_t>(c, be); break;
    case 4: q.constant = load<uint32_t>(c, be); break;
    case 8: q.constant = load<uint64_t>(c, be); break;
    default: q.constant = plan.const_implicit; break;
  }
  return true;
}

namespace {
[[noreturn, gnu::noinline]] void too_many_types() {
  throw Error("unit has more than " + std::to_string(btf::MAX_TYPE) + " types");
}
[[noreturn, gnu::noinline]] void too_many_items() { throw Error("unit has more than 2^32 members and parameters"); }

// Appends T{args...} to a vector, built where it lands: a braced
// temporary passed to push_back was copied with 16-byte loads of fields
// just stored 4 bytes at a time, which stalls until the stores land (a
// third of emit_struct's samples in the profile-guided build).
template <typename T, typename... Args>
[[gnu::always_inline]] inline void append(std::vector<T>& v, Args&&... args) {
  ::new (static_cast<void*>(&v.emplace_back())) T{std::forward<Args>(args)...};
}
}  // namespace

// Inline: pass 1 calls it for every type DIE.
[[gnu::always_inline]] inline TypeId UnitTypes::reserve(const Die& die, uint32_t what) {
  if (pending_.size() >= btf::MAX_TYPE) [[unlikely]] too_many_types();
  pending_.emplace_back(die, what, 0u, 0u);
  return static_cast<TypeId>(pending_.size());
}

// The chain runs pointer -> last tag -> ... -> first tag -> pointee; each
// tag's id comes before its pointer's (2.12).
void UnitTypes::reserve_type_tag(const Die& ann, uint64_t pointer, TypeId& last_tag) {
  if (ctx_.dwarf.type_attrs(ann).name_str() != "btf_type_tag") return;
  TypeId id = reserve(ann, kTypeTag);
  pending_.back().link = last_tag;
  pending_.back().parent = pointer;
  last_tag = id;
}

inline UnitTypes::Item UnitTypes::make_item(const Die& die, const Unit& unit) {
  uint64_t pos = die.offset - unit.global_base - unit.offset;
  uint64_t code_len = die.attr_pos - pos;
  return {die.abbrev, pos, code_len < UINT32_MAX ? static_cast<uint32_t>(code_len) : UINT32_MAX, 0};
}

inline Die UnitTypes::item_die(const Item& item, const Unit& unit) {
  Die d;
  d.offset = unit.global_base + unit.offset + item.pos;
  d.tag = item.abbrev->tag;
  d.has_children = item.abbrev->has_children;
  d.abbrev = item.abbrev;
  d.unit = &unit;
  d.attr_pos = item.code_len != UINT32_MAX ? item.pos + item.code_len : attr_pos_slow(item, unit);
  return d;
}

// An abbreviation code of 4 GiB (padded LEB128): read again, as pass 1's
// cursor did without error.
[[gnu::noinline]] uint64_t UnitTypes::attr_pos_slow(const Item& item, const Unit& unit) {
  Reader r = unit.reader;
  r.seek(item.pos);
  r.uleb128();
  return r.pos();
}

// Pass 1: number the type DIEs in pahole's table order (post-order for
// nested types). Only tags are decoded, except for base types (to find
// `int`) and annotations (to tell type tags from other annotations).
void UnitTypes::number_unit() {
  const DwarfFile& dw = ctx_.dwarf;
  const Unit& unit = ctx_.unit;
  DieCursor cursor(unit);
  struct Open {
    unsigned depth;
    int64_t slot;        // index into slots_ of a type to number when it closes, -1 otherwise
    Die die;             // kept for emit(), which then need not find it again
    TypeId last_tag;     // pointers: the last btf_type_tag child's id
    uint8_t cls;         // tag_class(die.tag)
    // Structs and function types: their children in items_, a list linked
    // through Item::next (a nested struct's children come between two
    // members of its parent).
    uint32_t first_item, last_item, num_items;
  };
  std::vector<Open> stack;
  stack.reserve(64);
  auto number = [&](int64_t slot, const Die& d, TypeId last_tag) {
    if (slot < 0) return;
    TypeId id = reserve(d, kType);
    pending_.back().link = last_tag;
    slots_[static_cast<size_t>(slot)].id = id;
  };
  auto close = [&]() {
    Open& o = stack.back();
    number(o.slot, o.die, o.last_tag);
    if (o.slot >= 0 && (o.cls & kItems)) {
      pending_.back().first_item = o.num_items ? o.first_item : 0;
      pending_.back().num_items = o.num_items;
    }
    stack.pop_back();
  };
  Die die;
  bool type_tags = ctx_.options.type_tag;
  size_t items = 0;  // children of structs and function types: their members and parameters
  uint64_t walked = 0;
  while (cursor.next(die)) {
    ++walked;
    unsigned depth = cursor.depth();
    while (!stack.empty() && stack.back().depth >= depth) close();
    uint32_t tag = die.tag;
    uint8_t cls = tag_class(tag);
    if (depth == 0) {
      append(stack, 0u, int64_t{-1}, die, 0u, cls, 0u, 0u, 0u);
      continue;
    }
    if (depth == 1) {
      if (tag == DW_TAG_subprogram) {
        subprograms_.push_back(die);
        // Most function bodies hold no type: scanned cheaply, then jumped.
        if (die.has_children && die.sibling && body_without_types(die)) {
          cursor.skip_children();
          continue;
        }
      } else if (tag == DW_TAG_variable) {
        variables_.push_back(die);
      }
    }
    if (Open& parent = stack.back(); parent.cls & kItems) {
      ++items;
      if (items_.size() >= kNoItems) [[unlikely]] too_many_items();
      uint32_t at = static_cast<uint32_t>(items_.size());
      items_.push_back(make_item(die, unit));
      if (parent.num_items++) items_[parent.last_item].next = at;
      else parent.first_item = at;
      parent.last_item = at;
      // Most items: a member or parameter, no type, nothing below it.
      if (cls == 0 && !die.has_children && !is_annotation(tag)) continue;
    }
    int64_t slot = -1;
    if (cls & kIsType) {
      append(slots_, die.offset, 0u);
      // unspecified_type (2.11) stays 0: void, and no id of its own.
      if (tag != DW_TAG_unspecified_type) slot = static_cast<int64_t>(slots_.size() - 1);
      if (tag == DW_TAG_array_type) has_array_ = true;
      if (tag == DW_TAG_base_type && !has_int_ && dw.type_attrs(die).name_str() == "int") {
        has_int_ = true;  // the first `int` is the index type of the unit's arrays
        int_slot_ = slots_.size() - 1;
      }
    } else if (is_annotation(tag) && type_tags && !stack.empty() && stack.back().die.tag == DW_TAG_pointer_type &&
               stack.back().depth + 1 == depth) {
      // A btf_type_tag of a pointer: its own table entry, before the pointer.
      reserve_type_tag(die, stack.back().die.offset, stack.back().last_tag);
    }
    bool descend = cls & kDescend;
    if (!descend && die.has_children) cursor.skip_children();
    if (!descend || !die.has_children) {
      // Nothing comes before it closes (the next DIE would close it): it
      // is numbered now and never goes on the stack, which most DIEs
      // (members, parameters, variables) thus skip.
      number(slot, die, 0);
      continue;
    }
    append(stack, depth, slot, die, 0u, cls, 0u, 0u, 0u);
    if (cls & kItems) read_plain_items(cursor, stack.back().first_item, stack.back().last_item,
                                       stack.back().num_items, items, walked);
  }
  while (!stack.empty()) close();
  dies_walked_ += walked;
  if (has_int_) int_id_ = slots_[int_slot_].id;
  index_slots();
  // The table grows once: a record is 3 words and most have at most one
  // more, members take 3 and parameters 2 (enumerators, not walked here,
  // may make it grow).
  out_.reserve_records(pending_.size() + 1, 4 * (pending_.size() + 1) + 3 * items);
}

// The first children of a struct or function type that cursor.next()
// just returned, as long as they are plain: members and parameters with a
// code of one or two bytes, no children, no DW_AT_sibling, no type or
// annotation of their own. These are most of a unit's DIEs, and
// number_unit's loop does nothing with them but add an item; this loop
// does the same with its position, the unit's bytes and the abbreviation
// table in registers, where the general loop keeps the cursor and the Die
// in memory (about 140 instructions a DIE, a third of pass 1). It stops
// at the first entry that is not plain: the null entry that ends the
// children, a nested type, or anything unusual (a long code, a missing
// abbreviation, truncation), and the cursor goes on from there, reporting
// any error as it would have. Attributes of other than fixed sizes are
// skipped by the same call on the same bytes as the cursor's, so they fail
// with the same error.
void UnitTypes::read_plain_items(DieCursor& cursor, uint32_t& first_item, uint32_t& last_item,
                                 uint32_t& num_items, size_t& items, uint64_t& walked) {
  const Unit& unit = ctx_.unit;
  const AbbrevTable& table = *unit.abbrevs;
  const uint8_t* const data = unit.reader.bytes().data();
  const uint64_t size = unit.reader.size();
  uint64_t pos = cursor.enter_children();
  uint32_t first = first_item, last = last_item, n = num_items;
  uint64_t count = 0;
  while (pos < size) {
    uint64_t code = data[pos];
    uint32_t code_len = 1;
    if (code >= 0x80) {
      if (size - pos < 2 || data[pos + 1] >= 0x80) break;
      code = (code & 0x7f) | uint64_t{data[pos + 1]} << 7;
      code_len = 2;
    }
    if (code == 0) break;
    const Abbrev* a = table.find(code);
    if (!a || a->has_children || a->has_sibling || tag_class(a->tag) || is_annotation(a->tag)) break;
    if (items_.size() >= kNoItems) [[unlikely]] too_many_items();
    uint64_t end;
    if (a->all_fixed) [[likely]] {
      if (a->fixed_size + code_len > size - pos) break;  // truncated: the cursor says so
      end = pos + code_len + a->fixed_size;
    } else {
      Reader r = unit.reader;
      r.seek(pos + code_len);
      DwarfFile::skip_attrs(r, *a, table.sizes());
      end = r.pos();
    }
    const uint32_t at = static_cast<uint32_t>(items_.size());
    items_.emplace_back(a, pos, code_len, 0u);
    if (n++) items_[last].next = at;
    else first = at;
    last = at;
    ++count;
    pos = end;
  }
  cursor.resume_at(pos);
  first_item = first;
  last_item = last;
  num_items = n;
  items += count;
  walked += count;
}

// Whether the walk below would number nothing in the subtree of `die` (a
// unit-level subprogram with DW_AT_sibling): no DIE with a type tag where
// it looks (below lexical blocks, inlined calls and the like; not below
// parameters, variables, call sites, whose children it skips). Then
// dies_walked_ counts what the walk would have returned, and the caller
// jumps over the subtree. The scan reads abbreviation codes and skips
// attributes, nothing else; on anything unusual (a type, a bad code, a
// sibling that disagrees, truncation) it says no, and the walk reads the
// subtree and reports what is wrong exactly as before.
bool UnitTypes::body_without_types(const Die& die) {
  const Unit& u = *die.unit;
  const AbbrevTable& table = *u.abbrevs;
  const FormSizes sizes = table.sizes();
  uint64_t walked = 0;
  try {
    Reader r = u.reader;
    // Most codes take one byte and most DIEs fixed-size attributes: those
    // inline. The rest goes through a copy of r, so that r's address never
    // escapes and it can stay in registers.
    auto code = [&]() -> uint64_t {
      if (const uint8_t b = *r.data(); b < 0x80) {
        r.skip(1);
        return b;
      }
      Reader t = r;
      const uint64_t c = t.uleb128();
      r = t;
      return c;
    };
    auto skip = [&](const Abbrev& a) {
      if (a.all_fixed) [[likely]] {
        r.skip(a.fixed_size);
        return;
      }
      Reader t = r;
      DwarfFile::skip_attrs(t, a, sizes);
      r = t;
    };
    r.seek(die.attr_pos);
    skip(*die.abbrev);
    unsigned depth = 1;  // open DIEs, `die` included
    while (depth) {
      if (r.empty()) return false;
      const uint64_t off = r.offset();
      const uint64_t c = code();
      if (c == 0) {
        --depth;
        continue;
      }
      const Abbrev* a = table.find(c);
      if (!a) return false;
      const uint8_t cls = tag_class(a->tag);
      if (cls & kIsType) return false;
      ++walked;
      if (!a->has_children) {
        skip(*a);
        continue;
      }
      if (cls & kDescend) {
        skip(*a);
        if (++depth > DieCursor::kMaxDepth) return false;
        continue;
      }
      // Children the walk skips: jumped with DW_AT_sibling, else read
      // past (their types do not count).
      if (uint64_t sib = a->has_sibling ? DwarfFile::read_sibling(r, u, *a) : 0) {
        if (sib <= off || sib > u.end) return false;
        r.seek(sib - u.offset);
        continue;
      }
      skip(*a);
      for (unsigned open = 1; open;) {
        if (r.empty()) return false;
        const uint64_t c2 = code();
        if (c2 == 0) {
          --open;
          continue;
        }
        const Abbrev* b = table.find(c2);
        if (!b) return false;
        skip(*b);
        if (b->has_children && ++open > DieCursor::kMaxDepth) return false;
      }
    }
    // The subprogram's DW_AT_sibling must point where its children end.
    if (u.global_base + r.offset() != die.sibling) return false;
  } catch (const Error&) {
    return false;
  }
  dies_walked_ += walked;
  return true;
}

void UnitTypes::convert_all() {
  number_unit();
  // 2.5: a unit with arrays but no `int` gets one after its types, as
  // their index type.
  if (has_array_ && !int_id_) int_id_ = reserve(Die{}, kIndexInt);
  drain();
  for (const DeclTag& t : decl_tags_) out_.add_decl_tag(t.value, t.target, t.component_idx);
  decl_tags_.clear();
}

// type_id when the dense index has no entry: before index_slots, for a
// DIE pass 1 did not number, or without the dense index (a huge unit).
TypeId UnitTypes::type_id_slow(uint64_t offset) {
  if (offset - dense_base_ < dense_size_) {
    // The dense index covers every numbered DIE: not one of them.
  } else if (auto it = std::lower_bound(slots_.begin(), slots_.end(), offset,
                             [](const Slot& s, uint64_t off) { return s.offset < off; });
             it != slots_.end() && it->offset == offset) {
    return it->id;
  }
  if (auto f = foreign_.find(offset); f != foreign_.end()) return f->second;
  // A DIE the numbering did not meet: another unit's (ref_addr), or one
  // nested where pahole's loader would not look. Convert it here.
  Die die = ctx_.dwarf.die_at(offset);
  if (die.tag == DW_TAG_unspecified_type) {
    foreign_[offset] = 0;
    return 0;
  }
  if (!is_type_tag(die.tag)) fail(die, "DW_AT_type refers to a " + tag_name(die.tag) + ", not a type");
  // A pointer's btf_type_tags come with it, ids before its own, as the
  // numbering gives them (2.12): clang's LTO units point at other units'
  // `void __user *`, and a copy without its tag is another type graph,
  // which dedup cannot merge with the tagged copies (a ThinLTO kernel's
  // BTF came out five times the size of pahole's).
  TypeId last_tag = 0;
  if (die.tag == DW_TAG_pointer_type && die.has_children && ctx_.options.type_tag) {
    DieCursor c(die);
    Die kid;
    while (c.next(kid)) {
      if (c.depth() == 0) continue;
      if (c.depth() == 1 && is_annotation(kid.tag)) reserve_type_tag(kid, die.offset, last_tag);
      if (kid.has_children) c.skip_children();
    }
  }
  TypeId id = reserve(die, kType);
  pending_.back().link = last_tag;
  foreign_[offset] = id;
  drain();
  return id;
}

void UnitTypes::drain() {
  if (draining_) return;
  draining_ = true;
  while (emitted_ < pending_.size()) {
    Pending p = pending_[emitted_];
    try {
      emit(p);
    } catch (const Error& e) {
      // The builder's refusals (a FWD or TYPEDEF without a name, from a
      // damaged .debug_str) know no place: the DIE is where to look.
      if (!e.section().empty() || e.offset() || !p.die.unit) throw;
      constexpr std::string_view kBuilder = "BTF builder: ";
      std::string_view what = e.message();
      if (what.starts_with(kBuilder)) what.remove_prefix(kBuilder.size());
      fail(p.die, tag_name(p.die.tag) + " cannot be encoded: " + std::string(what));
    }
    ++emitted_;
    if (out_.type_count() != emitted_)
      throw Error("internal: unit type table out of step at id " + std::to_string(emitted_));
  }
  draining_ = false;
}

// An array of another unit (met through a reference: a type unit's, or
// LTO's) in a unit that numbered no array of its own, and so has no index
// `int` yet: it gets one now, as 2.5's, or the ARRAY would index by void.
TypeId UnitTypes::index_type() {
  if (!int_id_) int_id_ = reserve(Die{}, kIndexInt);
  return int_id_;
}

const char* shared_int_name(const DwarfFile& dw) {
  try {
    for (const Unit& unit : dw.units()) {
      if (unit.root_tag == 0) continue;
      DieCursor cursor(unit);
      Die die;
      while (cursor.next(die)) {
        if (cursor.depth() == 0) continue;
        if (die.tag == DW_TAG_base_type) {
          const std::string_view name = dw.type_attrs(die).name_str();
          if (name == "int") return dw.in_debug_str(name) ? name.data() : nullptr;
        }
        cursor.skip_children();
      }
    }
  } catch (const Error&) {
  }
  return nullptr;
}

void UnitTypes::emit(const Pending& p) {
  const DwarfFile& dw = ctx_.dwarf;
  if (p.what == kIndexInt) {
    out_.add_int(ctx_.int_name ? std::string_view(ctx_.int_name) : std::string_view("int"), 4, btf::INT_SIGNED);
    return;
  }
  const Die& die = p.die;
  TypeId self = static_cast<TypeId>(emitted_ + 1);
  if (p.what == kType && die.abbrev) {
    // Pointers and qualifiers of the unit's own abbreviations: at most a
    // ref4 DW_AT_type, read as quick_attrs would, without the rest of it.
    const uint32_t tag = die.tag;
    if (tag == DW_TAG_pointer_type || tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
        tag == DW_TAG_restrict_type) {
      const Abbrev* ab = die.abbrev;
      const Unit& u = *die.unit;
      if (const uintptr_t d = reinterpret_cast<uintptr_t>(ab) - own_base_; d < own_bytes_) {
        const QuickPlan& plan = own_plans_[d / sizeof(Abbrev)];
        if (plan.built && plan.ok && ab->str_pos == Abbrev::kNoStr && die.attr_pos + ab->keys_end <= u.reader.size()) {
          TypeId t = 0;
          bool in_range = true;
          if (plan.has_type) {
            const uint64_t off =
                load<uint32_t>(u.reader.bytes().data() + die.attr_pos + plan.type_pos, u.reader.big_endian());
            in_range = off < u.end - u.offset;
            // A pointer with type tags points at its last tag; its own
            // DW_AT_type is not looked up (as below).
            if (in_range && !(tag == DW_TAG_pointer_type && p.link)) t = type_id(u.global_base + u.offset + off);
          }
          if (in_range) {
            switch (tag) {
              case DW_TAG_pointer_type: out_.add_ptr(p.link ? p.link : t); return;
              case DW_TAG_const_type: out_.add_const(t); return;
              case DW_TAG_volatile_type: out_.add_volatile(t); return;
              default: out_.add_restrict(t); return;
            }
          }
        }
      }
    }
    Quick q;
    auto type = [&] { return q.has_type ? type_id(q.type) : 0; };
    switch (die.tag) {
      case DW_TAG_pointer_type:
        if (!quick_attrs(die.abbrev, UnitBytes(*die.unit), die.attr_pos, false, q)) break;
        out_.add_ptr(p.link ? p.link : type());
        return;
      case DW_TAG_typedef: {
        if (!quick_attrs(die.abbrev, UnitBytes(*die.unit), die.attr_pos, false, q)) break;
        TypeId t = type();
        out_.add_typedef_name_off(name_off(q.name, /*required=*/true), t);
        typedef_tags(die, self);
        return;
      }
      case DW_TAG_const_type:
        if (!quick_attrs(die.abbrev, UnitBytes(*die.unit), die.attr_pos, false, q)) break;
        out_.add_const(type());
        return;
      case DW_TAG_volatile_type:
        if (!quick_attrs(die.abbrev, UnitBytes(*die.unit), die.attr_pos, false, q)) break;
        out_.add_volatile(type());
        return;
      case DW_TAG_restrict_type:
        if (!quick_attrs(die.abbrev, UnitBytes(*die.unit), die.attr_pos, false, q)) break;
        out_.add_restrict(type());
        return;
      default: break;
    }
  }
  TypeAttrs a = dw.type_attrs(die);
  if (p.what == kTypeTag) {
    TypeId target = p.link;
    // The first tag points at the pointee: the parent pointer's DW_AT_type.
    if (!target) target = type_of(dw.type_attrs(dw.die_at(p.parent)));
    std::string_view value = a.const_value.kind == Value::kString ? a.const_value.str() : std::string_view();
    if (value.empty()) fail(die, "btf_type_tag annotation without a string value");
    out_.add_type_tag(value, target);
    return;
  }
  switch (die.tag) {
    case DW_TAG_base_type: emit_base(die, a); return;
    case DW_TAG_pointer_type:
      out_.add_ptr(p.link ? p.link : type_of(a));
      return;
    case DW_TAG_typedef: {
      TypeId t = type_of(a);
      out_.add_typedef_name_off(name_off(a, /*required=*/true), t);
      typedef_tags(die, self);
      return;
    }
    case DW_TAG_const_type: out_.add_const(type_of(a)); return;
    case DW_TAG_volatile_type: out_.add_volatile(type_of(a)); return;
    case DW_TAG_restrict_type: out_.add_restrict(type_of(a)); return;
    case DW_TAG_structure_type: case DW_TAG_class_type: case DW_TAG_interface_type: case DW_TAG_union_type:
      emit_struct(die, a, self, items_of(p));
      return;
    case DW_TAG_enumeration_type: emit_enum(die, a); return;
    case DW_TAG_array_type: emit_array(die, a); return;
    case DW_TAG_subroutine_type: emit_func_proto(die, a, items_of(p)); return;
    default:
      // 2.2, 2.8: pahole's encoder has no case for these and fails.
      fail(die, "Unsupported " + tag_name(die.tag) + "(" + hex(die.tag) + ")");
  }
}

// The btf_decl_tag annotations of a typedef.
void UnitTypes::typedef_tags(const Die& die, TypeId self) {
  if (!die.has_children || !ctx_.options.decl_tag) return;
  const DwarfFile& dw = ctx_.dwarf;
  DieCursor c(die);
  Die child;
  while (c.next(child)) {
    if (c.depth() == 0) continue;
    if (c.depth() == 1 && is_annotation(child.tag)) {
      TypeAttrs ca = dw.type_attrs(child);
      if (ca.name_str() == "btf_decl_tag" && ca.const_value.kind == Value::kString)
        decl_tags_.push_back({ca.const_value.str(), self, -1});
    }
    c.skip_children();
  }
}

// 2.1
void UnitTypes::emit_base(const Die& die, const TypeAttrs& a) {
  uint64_t bits = a.byte_size().value_or(0) * 8;
  uint64_t enc = a.encoding().value_or(0);
  std::string_view name = kabi(a.name_str());
  if (name.empty()) fail(die, "base type without a name");
  uint32_t btf_enc = 0;
  if (enc == DW_ATE_signed || enc == DW_ATE_signed_char) {
    btf_enc = btf::INT_SIGNED;
  } else if (enc == DW_ATE_boolean) {
    btf_enc = btf::INT_BOOL;
  } else if (ctx_.options.float_ &&
             (enc == DW_ATE_float || enc == DW_ATE_complex_float || enc == DW_ATE_imaginary_float)) {
    if (enc != DW_ATE_float) fail(die, "Complex, interval and imaginary float types are not supported");
    out_.add_float(name, static_cast<uint32_t>((bits + 7) / 8));
    return;
  }
  uint64_t size = (bits + 7) / 8;
  if (size == 0 || !std::has_single_bit(size) || size > 16) {
    name = "__SANITIZED_FAKE_INT__";
    size = 4;
  }
  out_.add_int(name, static_cast<uint32_t>(size), btf_enc);
}

// Byte size of a DWARF type with typedefs and qualifiers followed, for the
// DWARF 2/3 bit_offset conversion (2.3).
uint64_t UnitTypes::dwarf_type_byte_size(uint64_t offset, int depth) {
  if (depth > 64) return 0;
  Die d = ctx_.dwarf.die_at(offset);
  TypeAttrs a = ctx_.dwarf.type_attrs(d);
  if (a.byte_size()) return *a.byte_size();
  switch (d.tag) {
    case DW_TAG_typedef: case DW_TAG_const_type: case DW_TAG_volatile_type: case DW_TAG_restrict_type:
    case DW_TAG_atomic_type:
      return a.type() ? dwarf_type_byte_size(*a.type(), depth + 1) : 0;
    case DW_TAG_enumeration_type: return 4;
    case DW_TAG_pointer_type: return d.unit->address_size;
    default: return 0;
  }
}

// 2.3
void UnitTypes::emit_struct(const Die& die, const TypeAttrs& a, TypeId self, ItemList items) {
  bool is_union = die.tag == DW_TAG_union_type;
  if (a.declaration) {
    out_.add_fwd_name_off(name_off(a, /*required=*/true), is_union);
    return;
  }
  const DwarfFile& dw = ctx_.dwarf;
  members_.clear();
  bool decl_tags = ctx_.options.decl_tag;
  int32_t member_idx = -1;
  // The children of a member: its annotations, decl tags with the member's
  // index. Pass 1 skipped them; walked here, after the member, as the
  // struct's walk once did (gcc's members have none).
  auto member_children = [&](const Die& member) {
    if (!member.has_children) return;
    DieCursor c(member);
    Die ann;
    while (c.next(ann)) {
      if (c.depth() == 0) continue;
      if (decl_tags && is_annotation(ann.tag)) {
        TypeAttrs ca = dw.type_attrs(ann);
        if (ca.name_str() == "btf_decl_tag" && ca.const_value.kind == Value::kString)
          decl_tags_.push_back({ca.const_value.str(), self, member_idx});
      }
      c.skip_children();
    }
  };
  Quick q;
  const UnitBytes ub(*die.unit);
  // A unit of the main file reads its names from the shared region itself:
  // a member's name offset is then its DW_FORM_strp offset, as name_off
  // would find (no Value, no range check but the strp's own).
  const bool str_shared =
      shared_size_ && reinterpret_cast<uintptr_t>(ub.str) == shared_base_ && ub.str_end <= shared_size_;
  for (const Item& item : items) {
    // Most members: a name, a type and a byte offset, read by plan, nearly
    // all of them by a simple one (quick_attrs' steps for that plan).
    const Abbrev* ab = item.abbrev;
    if (const uintptr_t d = reinterpret_cast<uintptr_t>(ab) - own_base_;
        d < own_bytes_ && !ub.strp8 && item.code_len != UINT32_MAX) {
      const QuickPlan& plan = own_plans_[d / sizeof(Abbrev)];
      const uint64_t attr_pos = item.pos + item.code_len;
      if (plan.simple_member && attr_pos + ab->keys_end <= ub.size) {
        const uint8_t* head = ub.data + attr_pos;
        const bool be = ub.big_endian;
        const uint64_t name = load<uint32_t>(head + plan.name_pos, be);
        const uint64_t type = load<uint32_t>(head + plan.type_pos, be);
        const uint8_t* l = head + plan.loc_pos;
        const uint64_t loc = plan.loc_size == 1   ? *l
                             : plan.loc_size == 2 ? load<uint16_t>(l, be)
                             : plan.loc_size == 4 ? load<uint32_t>(l, be)
                                                  : plan.loc_implicit;
        if (name < ub.str_end && type < ub.length && loc <= UINT32_MAX / 8) {
          ++member_idx;
          const uint32_t noff =
              str_shared ? btf::Btf::SHARED_STR_BASE + static_cast<uint32_t>(name)
                         : name_off(Value{Value::kString, 0, ub.str + name, Value::kNulTerminated});
          append(members_, noff, type_id(ub.base + type), static_cast<uint32_t>(loc * 8), 0u);
          continue;
        }
      }
    }
    if (ab->tag == DW_TAG_member && !ab->has_children && item.code_len != UINT32_MAX &&
        quick_attrs(ab, ub, item.pos + item.code_len, /*member=*/true, q)) {
      // (Compared before multiplying: a hostile location would overflow.)
      if (q.location <= UINT32_MAX / 8) {
        ++member_idx;
        append(members_, name_off(q.name), q.has_type ? type_id(q.type) : 0, static_cast<uint32_t>(q.location * 8), 0u);
        continue;
      }
    }
    Die child = item_die(item, *die.unit);
    if (child.tag == DW_TAG_member) {
      ++member_idx;
      TypeAttrs m = dw.type_attrs(child);
      // C++ static data members are declarations, not storage.
      if (m.declaration || m.external) {
        member_children(child);
        continue;
      }
      uint32_t bitfield_size = static_cast<uint32_t>(m.bit_size().value_or(0));
      int64_t bit_offset;
      if (m.data_bit_offset()) {
        bit_offset = static_cast<int64_t>(*m.data_bit_offset());
      } else {
        // Checked arithmetic: hostile offsets and sizes must not overflow.
        bool overflow = false;
        auto add = [&](int64_t x, int64_t y) { int64_t r; overflow |= __builtin_add_overflow(x, y, &r); return r; };
        auto sub = [&](int64_t x, int64_t y) { int64_t r; overflow |= __builtin_sub_overflow(x, y, &r); return r; };
        auto mul8 = [&](int64_t x) { int64_t r; overflow |= __builtin_mul_overflow(x, int64_t{8}, &r); return r; };
        int64_t byte_off = static_cast<int64_t>(m.member_location().value_or(0));
        if (bitfield_size == 0 || !m.bit_offset()) {
          bit_offset = mul8(byte_off);
        } else {
          // DWARF 2/3: DW_AT_bit_offset counts from the most significant
          // bit of the storage unit.
          int64_t byte_size = static_cast<int64_t>(
              m.byte_size() ? *m.byte_size() : (m.type() ? dwarf_type_byte_size(*m.type()) : 0));
          int64_t storage_bits = mul8(byte_size);
          int64_t bo = static_cast<int64_t>(*m.bit_offset());
          if (!dw.big_endian()) bo = sub(sub(storage_bits, bo), bitfield_size);
          if (bo < 0) {
            bo = add(bo, storage_bits);
            byte_off = sub(byte_off, byte_size);
          }
          bit_offset = add(mul8(byte_off), bo);
        }
        if (overflow) fail(child, "member bit offset out of range");
      }
      if (bit_offset < 0 || bit_offset > UINT32_MAX) fail(child, "member bit offset out of range");
      append(members_, name_off(m), type_of(m), static_cast<uint32_t>(bit_offset), bitfield_size);
      member_children(child);
    } else if (child.tag == DW_TAG_inheritance) {
      ++member_idx;  // pahole counts it, and BTF has no base classes for C
    } else if (is_annotation(child.tag) && decl_tags) {
      TypeAttrs ca = dw.type_attrs(child);
      if (ca.name_str() == "btf_decl_tag" && ca.const_value.kind == Value::kString)
        decl_tags_.push_back({ca.const_value.str(), self, -1});
    }
  }
  uint32_t size = static_cast<uint32_t>(a.byte_size().value_or(0));
  if (is_union) out_.add_union_name_off(name_off(a), size);
  else out_.add_struct_name_off(name_off(a), size);
  out_.add_members(members_);
}

// 2.4
void UnitTypes::emit_enum(const Die& die, const TypeAttrs& a) {
  const DwarfFile& dw = ctx_.dwarf;
  uint32_t size = a.byte_size() ? static_cast<uint32_t>(*a.byte_size()) : 4;
  enumerators_.clear();
  if (die.has_children) {
    DieCursor c(die);
    Die child;
    Quick q;
    const UnitBytes ub(*die.unit);
    while (c.next(child)) {
      if (c.depth() == 0) continue;
      if (child.tag == DW_TAG_enumerator) {
        // The name an enumerator requires is checked below, all at once.
        if (quick_attrs(child.abbrev, ub, child.attr_pos, false, q)) {
          append(enumerators_, name_off_unchecked(q.name), static_cast<int64_t>(q.constant));
        } else {
          TypeAttrs e = dw.type_attrs(child);
          uint64_t v =
              e.const_value.kind == Value::kUnsigned || e.const_value.kind == Value::kSigned ? e.const_value.u : 0;
          append(enumerators_, name_off_unchecked(e.name), static_cast<int64_t>(v));
        }
      }
      c.skip_children();
    }
  }
  // name_off(required) of each: a name in .debug_str that is "" becomes 0
  // (which the builder refuses). Looked at in one loop: its reads of
  // .debug_str overlap, where one per enumerator above waited for each
  // (amdgpu.ko's register enums made that a cache miss per enumerator).
  for (auto& e : enumerators_)
    if (e.name_off - btf::Btf::SHARED_STR_BASE < shared_size_ &&
        reinterpret_cast<const char*>(shared_base_)[e.name_off - btf::Btf::SHARED_STR_BASE] == '\0')
      e.name_off = 0;
  if (size <= 4 || !ctx_.options.enum64) {
    out_.add_enum_name_off(name_off(a), size);
    // All at once (add_enum_values) unless one would make the builder
    // throw: then one by one as before, so that the same error comes
    // after the same values.
    bool one_by_one = false;
    for (size_t i = 0; i < enumerators_.size(); i++) {
      btf::Btf::NewEnumValue& e = enumerators_[i];
      if (!ctx_.options.enum64) e.value = static_cast<int64_t>(static_cast<uint32_t>(e.value));
      if (e.value < INT32_MIN || e.value > int64_t{UINT32_MAX})
        fail(die, "enumerator '" + std::string(out_.str(e.name_off)) + "' value does not fit a 4-byte BTF enum");
      if (e.name_off == 0 || i >= btf::MAX_VLEN) {
        one_by_one = true;
        for (size_t j = i + 1; j < enumerators_.size(); j++)
          if (!ctx_.options.enum64) enumerators_[j].value = static_cast<int64_t>(static_cast<uint32_t>(enumerators_[j].value));
        break;
      }
    }
    if (!one_by_one) {
      out_.add_enum_values(enumerators_);
      return;
    }
    for (const auto& e : enumerators_) {
      if (e.value < INT32_MIN || e.value > int64_t{UINT32_MAX})
        fail(die, "enumerator '" + std::string(out_.str(e.name_off)) + "' value does not fit a 4-byte BTF enum");
      out_.add_enum_value_name_off(e.name_off, e.value);
    }
    return;
  }
  bool is_signed = false;
  if (a.type()) {
    TypeAttrs t = dw.type_attrs(dw.die_at(*a.type()));
    is_signed = t.encoding() && (*t.encoding() == DW_ATE_signed || *t.encoding() == DW_ATE_signed_char);
  }
  out_.add_enum64_name_off(name_off(a), size, is_signed);
  for (const auto& e : enumerators_) out_.add_enum64_value_name_off(e.name_off, static_cast<uint64_t>(e.value));
}

// 2.5: multi-dimensional arrays flattened into one ARRAY.
void UnitTypes::emit_array(const Die& die, const TypeAttrs& a) {
  const DwarfFile& dw = ctx_.dwarf;
  uint32_t nelems = 1;
  unsigned dims = 0;
  if (die.has_children) {
    DieCursor c(die);
    Die child;
    while (c.next(child)) {
      if (c.depth() == 0) continue;
      c.skip_children();
      if (child.tag != DW_TAG_subrange_type || dims == 64) continue;
      ++dims;
      TypeAttrs s = dw.type_attrs(child);
      uint64_t n = 0;
      if (s.upper_bound()) n = static_cast<uint64_t>(*s.upper_bound()) + 1;
      else if (!s.has_upper_bound_ref && s.count()) n = static_cast<uint64_t>(*s.count());
      nelems *= static_cast<uint32_t>(n);
    }
  }
  if (dims == 0) nelems = 0;
  TypeId elem = type_of(a);
  out_.add_array(elem, index_type(), nelems);
}

// 2.6
void UnitTypes::emit_func_proto(const Die& die, const TypeAttrs& a, ItemList items) {
  const DwarfFile& dw = ctx_.dwarf;
  params_.clear();
  Quick q;
  const UnitBytes ub(*die.unit);
  for (const Item& item : items) {
    if (item.abbrev->tag == DW_TAG_formal_parameter) {
      // Most: a DW_AT_type (ref4) and no name, read as quick_attrs would.
      const Abbrev* ab = item.abbrev;
      if (const uintptr_t d = reinterpret_cast<uintptr_t>(ab) - own_base_; d < own_bytes_ && item.code_len != UINT32_MAX) {
        const QuickPlan& plan = own_plans_[d / sizeof(Abbrev)];
        const uint64_t attr_pos = item.pos + item.code_len;
        if (plan.simple_param && attr_pos + ab->keys_end <= ub.size) {
          const uint64_t type = load<uint32_t>(ub.data + attr_pos + plan.type_pos, ub.big_endian);
          if (type < ub.length) {
            append(params_, 0u, type_id(ub.base + type));
            continue;
          }
        }
      }
      if (item.code_len != UINT32_MAX && quick_attrs(item.abbrev, ub, item.pos + item.code_len, false, q)) {
        append(params_, name_off(q.name), q.has_type ? type_id(q.type) : 0);
        continue;
      }
      TypeAttrs p = dw.type_attrs(item_die(item, *die.unit));
      append(params_, name_off(p), type_of(p));
    } else if (item.abbrev->tag == DW_TAG_unspecified_parameters) {
      append(params_, 0u, 0u);
    }
  }
  TypeId ret = type_of(a);
  out_.add_func_proto(ret);
  out_.add_params(params_);
}

// The children of a struct, union or function type: those pass 1 kept,
// or, for a DIE it did not meet, found now.
UnitTypes::ItemList UnitTypes::items_of(const Pending& p) {
  if (p.first_item != kNoItems) return {items_.data(), p.first_item, p.num_items};
  walked_items_.clear();
  if (p.die.has_children) {
    DieCursor c(p.die);
    Die child;
    while (c.next(child)) {
      if (c.depth() == 0) continue;
      walked_items_.push_back(make_item(child, *p.die.unit));
      walked_items_.back().next = static_cast<uint32_t>(walked_items_.size());
      c.skip_children();
    }
  }
  return {walked_items_.data(), 0, static_cast<uint32_t>(walked_items_.size())};
}

uint64_t UnitTypes::type_size(TypeId id) const {
  for (int depth = 0; id && depth < 64; ++depth) {
    if (id >= out_.end_id()) return 0;
    btf::TypeView t = out_.type(id);
    switch (t.kind()) {
      case btf::Kind::Int: case btf::Kind::Float: case btf::Kind::Struct: case btf::Kind::Union:
      case btf::Kind::Enum: case btf::Kind::Enum64: case btf::Kind::Datasec:
        return t.size();
      case btf::Kind::Ptr: return ctx_.unit.address_size;
      case btf::Kind::Typedef: case btf::Kind::Const: case btf::Kind::Volatile: case btf::Kind::Restrict:
      case btf::Kind::TypeTag: case btf::Kind::Var:
        id = t.type();
        continue;
      case btf::Kind::Array: {
        btf::ArrayInfo ai = t.array();
        return uint64_t{ai.nelems} * type_size(ai.type);
      }
      default: return 0;
    }
  }
  return 0;
}

}  // namespace btfc::convert
