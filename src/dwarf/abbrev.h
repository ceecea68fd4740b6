// Abbreviation tables (.debug_abbrev, DWARF 5 section 7.5.3), parsed once
// per distinct (offset, form sizes) and shared by every unit that names the
// same table: in vmlinux many units share one.
//
// Everything the DIE cursor needs per abbreviation is computed here, once:
// the byte size of each attribute whose form has a fixed size in units of
// these address/offset sizes, the total when every attribute is fixed (a
// DIE is then skipped in one step, as gimli does), and where DW_AT_sibling
// sits. So is where the type converter's attributes (is_type_attr) sit, when
// their offsets are fixed: DwarfFile::type_attrs then loads them directly.
// Codes are looked up in O(1) through a vector indexed by code when the
// codes are dense (they are 1..n in every producer we know), with a hash map
// as the fallback for sparse codes.
//
// Tables repeat one another: vmlinux's 2,352 tables (one per unit) declare
// 341k abbreviations but only 8,717 distinct ones. An AbbrevCache keeps each
// declaration it has parsed by its bytes, once, in one array; a table is
// pointers into it, so most declarations are a scan and a hash lookup.
// (Tables that held a 56-byte copy of each declaration took 19 MB of
// vmlinux's peak footprint, each byte of it a fresh page.)
#pragma once

#include <cstdint>
#include <memory>
#include <memory_resource>
#include <span>
#include <unordered_map>
#include <vector>

#include "base/reader.h"

namespace btfc::dwarf {

// The unit parameters that decide how many bytes a form takes.
struct FormSizes {
  uint8_t address_size = 8;
  uint8_t offset_size = 4;    // 4 for 32-bit DWARF, 8 for 64-bit DWARF
  uint8_t ref_addr_size = 4;  // address size in DWARF 2, offset size after
  auto operator<=>(const FormSizes&) const = default;
};

// Byte size of `form` in a DIE, or -1 if it varies (LEB128, strings,
// blocks, DW_FORM_indirect), or -2 if btfc does not know the form.
int form_fixed_size(uint32_t form, FormSizes sizes);

struct AttrSpec {
  uint16_t name = 0;            // DW_AT_* (at most 0xffff)
  uint16_t form = 0;            // DW_FORM_* (0xffff for an unknown, larger code)
  int32_t size = 0;             // form_fixed_size(), -1 when variable
  int64_t implicit_const = 0;   // the value of DW_FORM_implicit_const
};

// How DwarfFile::type_attrs takes one of its attributes, decided once per
// abbreviation from the attribute and its form: the pairs compilers write
// for nearly every type, member and parameter in one step each, the rest
// (kKeyRead) decoded as AttrIter would and taken by TypeAttrs' rules.
enum KeyOp : uint8_t {
  kKeyRead,       // decode the value, then take it (rare pairs, values that need checking)
  kKeyIgnore,     // a value of a class TypeAttrs ignores for this attribute (a constant DW_AT_name)
  kKeyNum1,       // data1/2/4/8 into number `field` (TypeAttrs::kType... bit numbers)
  kKeyNum2,
  kKeyNum4,
  kKeyNum8,
  kKeyNumImplicit,  // implicit_const into number `field`
  kKeyTypeRef4,   // DW_AT_type, ref4 (checked to lie in the unit)
  kKeyNameStrp,   // DW_AT_name, strp (checked to lie in .debug_str)
  kKeyNameString, // DW_AT_name, DW_FORM_string: Abbrev::str_pos's string
  kKeyConst1,     // DW_AT_const_value, data1/2/4/8 or implicit_const
  kKeyConst2,
  kKeyConst4,
  kKeyConst8,
  kKeyConstImplicit,
  kKeyFlagTrue,   // DW_AT_declaration (field 0) / DW_AT_external (1), flag_present
  kKeyFlag,       // the same, DW_FORM_flag
  kKeyFlagFalse,  // the same, a constant: not a flag, so false
};

// Where DwarfFile::type_attrs finds one of the attributes it reads: the
// spec's index in Abbrev::specs(), the byte offset of its value from the
// DIE's first attribute (every attribute before it has a fixed size) or,
// `after_str`, from the end of the abbreviation's one DW_FORM_string, and
// how it takes it.
struct KeySpec {
  uint16_t spec = 0;
  uint16_t offset = 0;
  uint8_t op = kKeyRead;  // a KeyOp
  uint8_t field = 0;
  bool after_str = false;
};

// One step of skipping the attributes of an abbreviation that has
// variable-size ones: `fixed` bytes of fixed-size attributes, then one value
// of the variable-size `form` (0 for none: the last step).
struct SkipStep {
  uint16_t fixed = 0;
  uint16_t form = 0;
};

// 56 bytes, the fields the cursor reads for every DIE first. The code
// and the offset of the declaration are not kept: they are only needed
// while the table is parsed. Its position among its cache's declarations
// is AbbrevTable::index_of.
struct Abbrev {
  uint32_t tag = 0;
  uint32_t fixed_size = 0;      // all_fixed: the bytes the attributes take together
  bool has_children = false;
  bool all_fixed = false;       // every attribute has a fixed size
  bool has_sibling = false;     // DW_AT_sibling present (sibling_pos may still be -1)
  // type_attrs' fast path, valid when keys_fixed: the attributes it reads
  // (is_type_attr), each at a fixed offset, and how many bytes from the
  // first attribute hold them and every attribute before them (one bounds
  // check covers all their reads). Or, str_pos set: every attribute has a
  // fixed size but one DW_FORM_string at str_pos (short names: gcc writes
  // names of up to 3 characters in the DIE), keys_end counts from the end of
  // that string to the end of the DIE, and no other attribute's form can
  // fail to decode: the fast path then reads what AttrIter would, with the
  // same outcome.
  bool keys_fixed = false;
  int32_t sibling_pos = -1;     // byte offset of DW_AT_sibling's value when all attributes before it are fixed
  uint16_t sibling_form = 0;    // the form of the first DW_AT_sibling
  uint16_t num_keys = 0;
  uint32_t num_attrs = 0;
  uint16_t keys_end = 0;
  uint16_t str_pos = kNoStr;
  static constexpr uint16_t kNoStr = 0xffff;
  // Not all_fixed: the attributes skipped in runs, each fixed-size run in
  // one step (0 steps: attribute by attribute, for DW_FORM_indirect).
  uint32_t num_skip = 0;
  const AttrSpec* attrs = nullptr;
  const SkipStep* skip = nullptr;
  const KeySpec* keys = nullptr;  // num_keys of them

  std::span<const AttrSpec> specs() const { return {attrs, num_attrs}; }
  std::span<const KeySpec> key_specs() const { return {keys, num_keys}; }
  std::span<const SkipStep> skip_steps() const { return {skip, num_skip}; }
};
static_assert(sizeof(void*) != 8 || sizeof(Abbrev) == 56);

// The attributes DwarfFile::type_attrs reads (DW_AT_name, DW_AT_type, the
// sizes and offsets of members, bounds of subranges, ...).
bool is_type_attr(uint32_t name);

class AbbrevTable;

// The declarations parsed so far, by their bytes (tag to terminator) and
// form sizes, each stored once with the arrays it points into: a cache
// must outlive its tables. One cache per task: it is not thread-safe. Its
// scratch vectors are reused from table to table, so a table costs a few
// allocations whatever its size.
class AbbrevCache {
 public:
  AbbrevCache();
  ~AbbrevCache();
  AbbrevCache(const AbbrevCache&) = delete;
  AbbrevCache& operator=(const AbbrevCache&) = delete;

  // For when no more tables will be parsed through it: frees the lookup
  // index and the scratch space, fixes the declarations in place, and
  // points each of `tables` (those parsed through it) at them. A table
  // answers find() only after this.
  void finish(std::span<AbbrevTable> tables);
  // Whether a declaration parsed through this cache has a form that
  // refers outside its unit (ref_addr, ref_sig8, ref_sup*, GNU_ref_alt) or
  // may (indirect): every abbreviation of its tables was parsed here.
  bool refers_outside_unit() const { return refers_outside_unit_; }

 private:
  friend class AbbrevTable;
  struct Key {
    Bytes bytes;
    FormSizes sizes;
    bool operator==(const Key& o) const;
  };
  static uint64_t hash_of(const Key& k);
  // The index in store_ of the declaration parsed with this key, or
  // kAbsent; and its insertion, which gives its index.
  static constexpr uint32_t kAbsent = UINT32_MAX;
  uint32_t find(const Key& key, uint64_t hash) const;
  uint32_t insert(const Key& key, uint64_t hash, const Abbrev& a);

  // The parse of the declaration at r (after its code), through the scratch
  // vectors, with its arrays copied into the arena.
  Abbrev parse_declaration(Reader& r, uint64_t code, FormSizes sizes);
  template <typename T>
  const T* keep(const std::vector<T>& v);

  // The index: open addressing over entries_, slots_ holding an entry's
  // position + 1 (0: free), a power of two in size and at most half full.
  // Lookups are what a table costs (341k in vmlinux, 18k inserts).
  // An entry's declaration is store_[its position].
  struct Entry {
    Key key;
    uint64_t hash;
  };
  std::vector<Entry> entries_;
  std::vector<uint32_t> slots_;
  std::vector<Abbrev> store_;  // the declarations; moves as it grows until finish()
  std::pmr::monotonic_buffer_resource arena_;
  // Scratch: of one declaration, and of one table.
  std::vector<AttrSpec> specs_;
  std::vector<KeySpec> keys_, str_keys_;
  std::vector<SkipStep> skips_;
  std::vector<uint32_t> indexes_;        // of each abbreviation, in store_
  std::vector<uint64_t> codes_, decls_;  // of each abbreviation, for the duplicate check
  bool refers_outside_unit_ = false;
  // Tells caches apart for the lifetime of the process (unlike an
  // address, which a later cache may take): AbbrevTable::cache_serial.
  uint64_t serial_;
};

class AbbrevTable {
 public:
  // Parses the table starting at r's cursor (a reader over .debug_abbrev
  // seeked to the unit's abbreviation offset), up to its 0 terminator or the
  // end of the section. Unknown forms and duplicate codes are errors. The
  // table points into `cache`, once cache.finish() has linked it.
  static AbbrevTable parse(Reader r, FormSizes sizes, AbbrevCache& cache);

  AbbrevTable() = default;
  AbbrevTable(AbbrevTable&&) noexcept = default;
  AbbrevTable& operator=(AbbrevTable&&) noexcept = default;
  AbbrevTable(const AbbrevTable&) = delete;
  AbbrevTable& operator=(const AbbrevTable&) = delete;

  // The abbreviation with this code, or nullptr.
  const Abbrev* find(uint64_t code) const {
    if (code < dense_.size()) return dense_[code];
    if (sparse_.empty()) return nullptr;
    auto it = sparse_.find(code);
    return it == sparse_.end() ? nullptr : abbrevs_[it->second];
  }

  // The table's abbreviations in the order it declares them.
  std::span<const Abbrev* const> abbrevs() const { return abbrevs_; }
  size_t size() const { return abbrevs_.size(); }
  uint64_t offset() const { return offset_; }
  const FormSizes& sizes() const { return sizes_; }
  // The array every abbreviation of this table lies in (its cache's
  // declarations, shared with the cache's other tables), and that cache's
  // serial: per-abbreviation state can be an array indexed by position
  // there, kept from table to table of one cache.
  std::span<const Abbrev> declarations() const { return declarations_; }
  uint64_t cache_serial() const { return cache_serial_; }
  // Position of one of this table's abbreviations in declarations(), for
  // per-abbreviation counters.
  size_t index_of(const Abbrev* a) const { return static_cast<size_t>(a - declarations_.data()); }

 private:
  friend class AbbrevCache;
  uint64_t offset_ = 0;
  FormSizes sizes_;
  std::vector<const Abbrev*> abbrevs_;              // in declaration order
  std::vector<const Abbrev*> dense_;                // code -> abbreviation (nullptr: no such code)
  std::unordered_map<uint64_t, uint32_t> sparse_;   // code -> position in abbrevs_, for codes past dense_
  // Until the cache links the table: each abbreviation's index in the
  // cache, and dense_ as positions + 1 (0: no such code).
  std::vector<uint32_t> unlinked_, unlinked_dense_;
  std::span<const Abbrev> declarations_;
  uint64_t cache_serial_ = 0;
};

}  // namespace btfc::dwarf
