// The BTF type table: format constants, a string table that stores each
// string once, and a compact table of type records.
//
//   btf::Btf b;                                    // standalone; id 0 is void
//   TypeId i = b.add_int("int", 4, btf::INT_SIGNED);
//   TypeId s = b.add_struct("pair", 8);
//   b.add_member("a", i, 0);
//   b.add_member("b", i, 32);
//   for (btf::Member m : b.type(s).members()) use(b.str(m.name_off), m.type);
//
//   btf::Btf mod(&vmlinux);                        // split BTF on a base:
//   mod.start_id() == vmlinux.end_id()             // ids and string offsets
//                                                  // continue the base's
//
// Why it is built this way: the encoder builds ~100k types per vmlinux and
// merges per-unit tables (tens of millions of words), so there is no heap
// object per type. All records live in ONE vector of u32 words, exactly in
// the on-disk layout (host byte order), plus an id -> word offset index;
// writing is a byte swap at most, and reading is a copy plus validation.
// Every field of every record is a u32 word, which is what makes that work.
// Pointers and TypeViews into the table are invalidated by any add_*.
//
// Dedup and merging rewrite ids and string offsets in place through
// for_each_type_id_ref / for_each_str_ref, which know where every id and
// string offset field of each kind sits.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/flat_bytes.h"
#include "base/uninit_vector.h"

namespace btfc::btf {

using TypeId = uint32_t;

// ---- Format constants (include/uapi/linux/btf.h) ---------------------------

inline constexpr uint16_t MAGIC = 0xeB9F;
inline constexpr uint8_t FORMAT_VERSION = 1;
inline constexpr uint32_t HEADER_SIZE = 24;
inline constexpr uint32_t MAX_TYPE = 0x000fffff;         // largest type id the kernel loads
// libbpf's BTF_MAX_NR_TYPES: a table being built (an encoder's merged units
// before dedup: millions of types for vmlinux) may hold this many.
inline constexpr uint32_t MAX_BUILD_TYPES = 0x7fffffff;
inline constexpr uint32_t MAX_NAME_OFFSET = 0x00ffffff;  // largest string offset
inline constexpr uint32_t MAX_VLEN = 0xffff;

enum class Kind : uint8_t {
  Unknown = 0,
  Int = 1,
  Ptr = 2,
  Array = 3,
  Struct = 4,
  Union = 5,
  Enum = 6,
  Fwd = 7,        // kind_flag: 0 struct, 1 union
  Typedef = 8,
  Volatile = 9,
  Const = 10,
  Restrict = 11,
  Func = 12,      // vlen holds the FuncLinkage
  FuncProto = 13,
  Var = 14,
  Datasec = 15,
  Float = 16,
  DeclTag = 17,   // kind_flag: 1 = __attribute__ rather than a btf_decl_tag
  TypeTag = 18,   // kind_flag: 1 = __attribute__ rather than a btf_type_tag
  Enum64 = 19,
};
inline constexpr unsigned KIND_MAX = 19;

// "INT", "STRUCT", ... as bpftool prints them; "UNKNOWN" for anything else.
std::string_view kind_name(Kind k);

// Kind flag meanings:
//   STRUCT/UNION: member offset = bitfield_size << 24 | bit_offset
//   ENUM/ENUM64:  values are signed
//   FWD:          union rather than struct
//   DECL_TAG/TYPE_TAG: the tag is an attribute
// INT encoding bits (the top byte of the INT word).
inline constexpr uint32_t INT_SIGNED = 1, INT_CHAR = 2, INT_BOOL = 4;

enum class FuncLinkage : uint32_t { Static = 0, Global = 1, Extern = 2 };
enum class VarLinkage : uint32_t { Static = 0, GlobalAllocated = 1, GlobalExtern = 2 };

constexpr uint32_t make_info(Kind k, bool kind_flag, uint32_t vlen) {
  return (kind_flag ? 1u << 31 : 0u) | (uint32_t{static_cast<uint8_t>(k)} & 0x1f) << 24 | (vlen & 0xffff);
}
constexpr Kind info_kind(uint32_t info) { return static_cast<Kind>((info >> 24) & 0x1f); }
constexpr uint32_t info_vlen(uint32_t info) { return info & 0xffff; }
constexpr bool info_kind_flag(uint32_t info) { return info >> 31; }
// STRUCT or UNION: the kinds with members.
constexpr bool is_composite(Kind k) { return k == Kind::Struct || k == Kind::Union; }
// The kernel's modifiers (btf_type_is_modifier): a name or qualifier on
// the type they refer to, whose size is that type's.
constexpr bool is_modifier(Kind k) {
  return k == Kind::Typedef || k == Kind::Volatile || k == Kind::Const || k == Kind::Restrict || k == Kind::TypeTag;
}

// Words following the 3-word common header for a kind (-1 for unknown kinds).
constexpr int64_t extra_words(Kind k, uint32_t vlen) {
  switch (k) {
    case Kind::Int: case Kind::Var: case Kind::DeclTag: return 1;
    case Kind::Ptr: case Kind::Fwd: case Kind::Typedef: case Kind::Volatile: case Kind::Const:
    case Kind::Restrict: case Kind::Func: case Kind::Float: case Kind::TypeTag: return 0;
    case Kind::Array: return 3;
    case Kind::Struct: case Kind::Union: case Kind::Datasec: case Kind::Enum64: return 3 * int64_t{vlen};
    case Kind::Enum: case Kind::FuncProto: return 2 * int64_t{vlen};
    default: return -1;
  }
}

// ---- Items of a record, decoded by value from its words --------------------

struct Member {
  uint32_t name_off, type, offset;  // offset as stored (see bit_offset())
  bool kind_flag;                   // of the enclosing struct/union
  uint32_t bit_offset() const { return kind_flag ? offset & 0xffffff : offset; }
  uint32_t bitfield_size() const { return kind_flag ? offset >> 24 : 0; }
};
struct Param {
  uint32_t name_off, type;
};
struct EnumValue {
  uint32_t name_off;
  uint32_t val;  // as stored; signed if the enum's kind_flag is set
};
struct Enum64Value {
  uint32_t name_off;
  uint64_t val;
};
struct VarSecinfo {
  uint32_t type, offset, size;
};
struct ArrayInfo {
  uint32_t type, index_type, nelems;
};

class Btf;

// A view of one record: the table, the id and a pointer to the words;
// cheap to copy, invalid after the table grows.
class TypeView {
 public:
  TypeView(const Btf* btf, TypeId id, const uint32_t* rec) : btf_(btf), id_(id), rec_(rec) {}

  TypeId id() const { return id_; }
  const uint32_t* words() const { return rec_; }
  uint32_t word_count() const { return 3 + static_cast<uint32_t>(extra_words(kind(), vlen())); }

  uint32_t name_off() const { return rec_[0]; }
  std::string_view name() const;
  uint32_t info() const { return rec_[1]; }
  Kind kind() const { return info_kind(rec_[1]); }
  uint32_t vlen() const { return info_vlen(rec_[1]); }
  bool kind_flag() const { return info_kind_flag(rec_[1]); }
  // The third word is the size for INT, STRUCT, UNION, ENUM, ENUM64,
  // DATASEC, FLOAT and the referenced type for the others.
  uint32_t size() const { return rec_[2]; }
  TypeId type() const { return rec_[2]; }

  // INT
  uint32_t int_encoding() const { return rec_[3] >> 24; }
  uint32_t int_offset() const { return (rec_[3] >> 16) & 0xff; }
  uint32_t int_bits() const { return rec_[3] & 0xff; }
  // ARRAY
  ArrayInfo array() const { return {rec_[3], rec_[4], rec_[5]}; }
  // VAR
  uint32_t var_linkage() const { return rec_[3]; }
  // FUNC
  uint32_t func_linkage() const { return vlen(); }
  // DECL_TAG: -1 for the declaration itself, else a member/param index
  int32_t component_idx() const { return static_cast<int32_t>(rec_[3]); }

  // The vlen items; i < vlen().
  Member member(uint32_t i) const { return {rec_[3 + 3 * i], rec_[4 + 3 * i], rec_[5 + 3 * i], kind_flag()}; }
  Param param(uint32_t i) const { return {rec_[3 + 2 * i], rec_[4 + 2 * i]}; }
  EnumValue enum_value(uint32_t i) const { return {rec_[3 + 2 * i], rec_[4 + 2 * i]}; }
  Enum64Value enum64_value(uint32_t i) const {
    return {rec_[3 + 3 * i], uint64_t{rec_[5 + 3 * i]} << 32 | rec_[4 + 3 * i]};
  }
  VarSecinfo secinfo(uint32_t i) const { return {rec_[3 + 3 * i], rec_[4 + 3 * i], rec_[5 + 3 * i]}; }

  // Ranges for range-for over the items (see ItemRange below).
  template <typename T, T (TypeView::*Get)(uint32_t) const>
  struct ItemRange;
  ItemRange<Member, &TypeView::member> members() const;
  ItemRange<Param, &TypeView::param> params() const;
  ItemRange<EnumValue, &TypeView::enum_value> enum_values() const;
  ItemRange<Enum64Value, &TypeView::enum64_value> enum64_values() const;
  ItemRange<VarSecinfo, &TypeView::secinfo> secinfos() const;

 private:
  const Btf* btf_;
  TypeId id_;
  const uint32_t* rec_;
};

template <typename T, T (TypeView::*Get)(uint32_t) const>
struct TypeView::ItemRange {
  TypeView v;  // by value: the view may be a temporary of the range-for
  struct It {
    const TypeView* v;
    uint32_t i;
    T operator*() const { return (v->*Get)(i); }
    It& operator++() {
      ++i;
      return *this;
    }
    bool operator!=(const It& o) const { return i != o.i; }
  };
  It begin() const { return {&v, 0}; }
  It end() const { return {&v, v.vlen()}; }
  uint32_t size() const { return v.vlen(); }
};
inline auto TypeView::members() const -> ItemRange<Member, &TypeView::member> { return {*this}; }
inline auto TypeView::params() const -> ItemRange<Param, &TypeView::param> { return {*this}; }
inline auto TypeView::enum_values() const -> ItemRange<EnumValue, &TypeView::enum_value> { return {*this}; }
inline auto TypeView::enum64_values() const -> ItemRange<Enum64Value, &TypeView::enum64_value> { return {*this}; }
inline auto TypeView::secinfos() const -> ItemRange<VarSecinfo, &TypeView::secinfo> { return {*this}; }

// ---- Visitors over the id and string fields of one record -------------------

// Calls on_id(word) for every word of the record at `rec` that holds a type
// id and on_str(word) for every word that holds a string offset, in one pass
// (rec[0], then the kind's fields in record order). `Word` is uint32_t or
// const uint32_t. The one place that knows which words of a record are ids
// and strings.
template <typename Word, typename OnId, typename OnStr>
inline void visit_record_words(Word* rec, OnId&& on_id, OnStr&& on_str) {
  on_str(rec[0]);
  const uint32_t vlen = info_vlen(rec[1]);
  switch (info_kind(rec[1])) {
    case Kind::Ptr: case Kind::Typedef: case Kind::Volatile: case Kind::Const: case Kind::Restrict:
    case Kind::Func: case Kind::Var: case Kind::DeclTag: case Kind::TypeTag:
      on_id(rec[2]);
      break;
    case Kind::FuncProto:
      on_id(rec[2]);
      for (uint32_t i = 0; i < vlen; ++i) {
        on_str(rec[3 + 2 * i]);
        on_id(rec[4 + 2 * i]);
      }
      break;
    case Kind::Array:
      on_id(rec[3]);
      on_id(rec[4]);
      break;
    case Kind::Struct: case Kind::Union:
      for (uint32_t i = 0; i < vlen; ++i) {
        on_str(rec[3 + 3 * i]);
        on_id(rec[4 + 3 * i]);
      }
      break;
    case Kind::Enum:
      for (uint32_t i = 0; i < vlen; ++i) on_str(rec[3 + 2 * i]);
      break;
    case Kind::Enum64:
      for (uint32_t i = 0; i < vlen; ++i) on_str(rec[3 + 3 * i]);
      break;
    case Kind::Datasec:
      for (uint32_t i = 0; i < vlen; ++i) on_id(rec[3 + 3 * i]);
      break;
    default:
      break;
  }
}

// Calls fn(uint32_t&) (or fn(const uint32_t&)) for every word of the record
// at `rec` that holds a type id, in record order.
template <typename Word, typename Fn>
inline void visit_type_id_words(Word* rec, Fn&& fn) {
  visit_record_words(rec, fn, [](auto&) {});
}

// Calls fn on every word of the record that holds a string offset, in
// record order (the order of first reference dedup keeps).
template <typename Word, typename Fn>
inline void visit_str_off_words(Word* rec, Fn&& fn) {
  visit_record_words(rec, [](auto&) {}, fn);
}

// ---- String table ----------------------------------------------------------

// NUL-terminated strings back to back, each distinct string stored once: an
// open-addressing hash index of u32 offsets into the bytes (no per-string
// heap object), each with 32 bits of the string's hash, so a probe that
// meets another string is mostly told apart without reading its bytes (a
// cache miss into the data: looking a module's names up in vmlinux's table
// is a miss for most of them). Offsets here are relative to this table; Btf adds the base's
// string size for split BTF.
class StringTable {
 public:
  // `leading_empty`: start with "" at offset 0 (standalone BTF); a split
  // table starts empty, the base's offset 0 serving as "".
  explicit StringTable(bool leading_empty = true);

  // Takes raw string-section bytes as they are (duplicates kept, so writing
  // them back gives the same bytes) and indexes every string in them.
  void assign(std::span<const uint8_t> bytes) {
    assign_unindexed(bytes);
    build_index();
  }
  // The same in two steps, for the reader, which checks a table's records
  // (reading its strings) while the index is built: until build_index(),
  // add() and find() throw. The bytes must end with NUL.
  void assign_unindexed(std::span<const uint8_t> bytes);
  void build_index();
  // Or an index that waits to see what is looked up: a module's base,
  // vmlinux, has 100k strings, and a small module looks up only its own
  // few thousand names (see Btf::index_strings_for). After
  // defer_index(), index_only(asked) indexes the strings equal to one of
  // `asked`'s (a table of the texts to be looked up), in a pass with no
  // hash for most strings; any other find(), before it or of a text not
  // asked, builds the whole index first, once, on whatever thread asks
  // (the answers are those of build_index()). add() builds it too.
  void defer_index();
  bool index_deferred() const { return state_ == Index::Deferred; }
  void index_only(StringTable asked);

  // Offset of `s`, appending it if it is new. `s` must not contain NUL.
  uint32_t add(std::string_view s) { return add(s, hash(s)); }
  std::optional<uint32_t> find(std::string_view s) const { return find(s, hash(s)); }
  // The same with hash(s) already known (a caller that looks one string up
  // in several tables hashes it once).
  uint32_t add(std::string_view s, uint64_t hash);
  std::optional<uint32_t> find(std::string_view s, uint64_t hash) const;
  static uint64_t hash(std::string_view s);
  // Starts loading the index slot find(s, hash) probes first.
  void prefetch(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]);
  }

  // The NUL-terminated string at `off`; the caller checked off < size() and
  // that the bytes end with NUL (the reader validates both).
  std::string_view at(uint32_t off) const { return std::string_view(data_.data() + off); }
  // at(off) == s without measuring the stored string first: the hot
  // comparison of every hash probe (merging an encoder's units adds
  // millions of strings).
  bool equals(uint32_t off, std::string_view s) const {
    return off + s.size() < data_.size() && std::memcmp(data_.data() + off, s.data(), s.size()) == 0 &&
           data_[off + s.size()] == '\0';
  }

  std::span<const char> bytes() const { return data_; }
  uint32_t size() const { return static_cast<uint32_t>(data_.size()); }
  // Appends NUL-terminated strings as they are, without indexing them (so
  // add() may later store one of them again): the bulk copy of a merge.
  // Returns the offset of the first byte.
  uint32_t append_unindexed(std::span<const char> bytes);
  void reserve(size_t bytes, size_t strings);
  void shrink_to_fit() { data_.shrink_to_fit(); }
  // Frees the hash index: add() and find() throw afterwards.
  void drop_index();
  // Is every text in the table once? True while all of it came through
  // add() (not assign() or append_unindexed(), which keep duplicates).
  bool unique() const { return unique_; }

  // The hash index as bytes, and back, for the base cache
  // (btf/base_cache.h): a table given the same bytes again gets the same
  // index without hashing every string. restore_index() reads all of an
  // image save_index() made of a table with these very bytes (false: it
  // does not fit, and the table is left without an index). save_index()
  // needs the whole index (not deferred).
  void save_index(std::vector<uint8_t>& out) const;
  bool restore_index(FlatReader& saved);

 private:
  struct Slot {
    uint32_t off1 = 0;  // offset + 1, 0 = empty
    uint32_t tag = 0;   // the hash's low half: a probe's filter, and the home slot when the table grows
  };
  // What find() answers from: slots_ (Whole); nothing (None: dropped, or
  // not built yet); the whole index built at the first find (Deferred);
  // slots_ for the texts of asked_, else as Deferred (Partial).
  enum class Index : uint8_t { Whole, None, Deferred, Partial };
  // Deferred and Partial: the whole index, built at the first need.
  struct Lazy {
    std::once_flag once;
    std::vector<Slot> slots;
  };
  static uint32_t tag_of(uint64_t hash) { return static_cast<uint32_t>(hash); }
  void index(uint32_t off, uint64_t hash);
  // index() of `s` at `off` into `slots`, which have room for it, unless
  // an equal text is there (counted in `count` if added).
  void insert_new(std::vector<Slot>& slots, uint32_t& count, uint32_t off, std::string_view s, uint64_t hash) const;
  void insert_new(uint32_t off, std::string_view s, uint64_t hash) { insert_new(slots_, count_, off, s, hash); }
  std::optional<uint32_t> probe(const std::vector<Slot>& slots, std::string_view s, uint64_t hash) const;
  // The whole index of the bytes (build_index()'s), hashed in parallel
  // chunks or, for a lazy build (which may run inside a parallel loop),
  // on this thread.
  std::vector<Slot> whole_index(bool parallel, uint32_t& count) const;
  const std::vector<Slot>& lazy_whole() const;
  // From Deferred or Partial to Whole, before an add().
  void make_whole();
  void grow();
  void rehash(size_t slots);  // a power of two, at least twice the strings indexed
  // The index size for this many strings: a power of two, at least twice
  // as many, at least kFirstSlots.
  static size_t slots_for(size_t strings);
  // The first index: small, as most tables stay small (an encoder's unit
  // table names its strings in .debug_str and holds almost none of its own,
  // and a run keeps one per unit: 2,352 for vmlinux, where 1024 slots each
  // were 13% of the page faults).
  static constexpr size_t kFirstSlots = 16;

  std::vector<char> data_;
  std::vector<Slot> slots_;
  uint32_t count_ = 0;
  Index state_ = Index::Whole;
  bool unique_ = true;
  // Shared by copies, which have the same bytes until an add() makes the
  // index whole.
  std::shared_ptr<const StringTable> asked_;  // Partial
  std::shared_ptr<Lazy> lazy_;                // Deferred, Partial
};

// ---- The type table --------------------------------------------------------

class Btf {
 public:
  Btf();                           // standalone: id 0 void, string 0 ""
  explicit Btf(const Btf* base);   // split on `base`, which must outlive it
  Btf(Btf&&) = default;
  Btf& operator=(Btf&&) = default;

  const Btf* base() const { return base_; }
  TypeId start_id() const { return start_id_; }  // first id of this table
  TypeId end_id() const { return start_id_ + static_cast<uint32_t>(offsets_.size()); }  // one past the last
  uint32_t type_count() const { return static_cast<uint32_t>(offsets_.size()); }  // own types
  uint32_t start_str_off() const { return start_str_off_; }
  uint32_t end_str_off() const { return start_str_off_ + strings_.size(); }

  // -- strings (offsets are absolute: base strings first) --
  // Offset of `s`: the base's if it has it (as libbpf does), else this
  // table's, appending it if new. "" is offset 0.
  uint32_t add_string(std::string_view s);
  // The same with `hash` = StringTable::hash(s) computed beforehand (in
  // parallel, say): only the insertion is left.
  uint32_t add_string(std::string_view s, uint64_t hash);
  std::optional<uint32_t> find_string(std::string_view s) const;
  // With StringTable::hash(s) already known.
  std::optional<uint32_t> find_string(std::string_view s, uint64_t hash) const;
  // Starts loading what find_string(s, hash) reads first (a batch of
  // lookups overlaps its cache misses).
  void prefetch_string(uint64_t hash) const {
    if (base_) base_->prefetch_string(hash);
    strings_.prefetch(hash);
  }
  // The string at `off`; throws btfc::Error if off is past the end.
  std::string_view str(uint32_t off) const;

  // Shared strings, for an encoder's per-unit tables: nearly every name a
  // unit adds already lies in the file's .debug_str, which the caller keeps
  // mapped. After share_strings(region), add_string of a string lying in
  // `region` (NUL-terminated there) returns SHARED_STR_BASE + its position:
  // no hashing, no copy, and merge_units() turns it into an offset of the
  // region's one copy in the merged table. Such offsets are not valid BTF;
  // the table must be merged before it is written or deduplicated.
  static constexpr uint32_t SHARED_STR_BASE = 0x80000000;
  void share_strings(std::span<const char> region);
  // add_string of a NUL-terminated string; one inside the shared region is
  // not even read (a name straight from DW_FORM_strp: reading it is a
  // cache miss per name). A "" there gets a nonzero offset, which dedup's
  // string pass turns into 0.
  uint32_t add_string_pooled(const char* s);
  std::span<const char> shared_strings() const { return shared_; }
  // An offset add_string gave for a string of the shared region.
  bool is_shared_str_off(uint32_t off) const {
    return off >= SHARED_STR_BASE && off - SHARED_STR_BASE < shared_.size();
  }
  bool valid_str_off(uint32_t off) const { return off < end_str_off(); }
  const StringTable& strings() const { return strings_; }

  // -- records --
  // `id` in [1, end_id()) (base ids reach into the base); throws otherwise.
  TypeView type(TypeId id) const;
  Kind kind(TypeId id) const { return info_kind(record(id)[1]); }
  // The table of this one's base chain whose own ids hold `id` (id <
  // end_id()): this one, its base, or the base's base.
  const Btf& owner(TypeId id) const {
    const Btf* t = this;
    while (t->start_id_ > id) t = t->base_;
    return *t;
  }
  // An own id in a few instructions here (checks read every record of a
  // table, and a module's base has 100k); base ids and errors out of line.
  const uint32_t* record(TypeId id) const {
    if (id >= start_id_ && id - start_id_ < offsets_.size()) [[likely]]
      return words_.data() + offsets_[id - start_id_];
    return record_elsewhere(id);
  }
  // Own ids only (start_id() <= id < end_id()).
  uint32_t* mutable_record(TypeId id) { return words_.data() + offsets_[id - start_id_]; }
  // All own records, back to back, and the word offset of each.
  std::span<const uint32_t> words() const { return words_; }
  std::span<const uint32_t> offsets() const { return offsets_; }

  template <typename Fn>  // fn(uint32_t& id)
  void for_each_type_id_ref(TypeId id, Fn&& fn) { visit_type_id_words(mutable_record(id), fn); }
  template <typename Fn>  // fn(uint32_t id)
  void for_each_type_id(TypeId id, Fn&& fn) const {
    visit_type_id_words(record(id), [&](const uint32_t& w) { fn(w); });
  }
  template <typename Fn>  // fn(uint32_t& str_off)
  void for_each_str_ref(TypeId id, Fn&& fn) { visit_str_off_words(mutable_record(id), fn); }
  template <typename Fn>
  void for_each_str_off(TypeId id, Fn&& fn) const {
    visit_str_off_words(record(id), [&](const uint32_t& w) { fn(w); });
  }

  // -- builders, in libbpf's spirit: each returns the new id --
  // Names are optional where C allows anonymity ("" gives name_off 0).
  // Invalid arguments (libbpf's -EINVAL cases) throw btfc::Error.
  TypeId add_int(std::string_view name, uint32_t size, uint32_t encoding);
  TypeId add_int(std::string_view name, uint32_t size, uint32_t encoding, uint32_t nr_bits, uint32_t bits_offset);
  TypeId add_ptr(TypeId type);
  TypeId add_array(TypeId elem_type, TypeId index_type, uint32_t nelems);
  TypeId add_struct(std::string_view name, uint32_t size);
  TypeId add_union(std::string_view name, uint32_t size);
  // To the last type, which must be a struct or union. A bitfield (size > 0
  // or an offset not on a byte) sets the kind_flag of the whole type, as
  // libbpf does; offsets are then stored as size << 24 | offset.
  void add_member(std::string_view name, TypeId type, uint32_t bit_offset, uint32_t bitfield_size = 0);
  // The same with the name already added (add_string / add_string_pooled).
  void add_member_name_off(uint32_t name_off, TypeId type, uint32_t bit_offset, uint32_t bitfield_size = 0);
  // The arguments of one add_member_name_off.
  struct NewMember {
    uint32_t name_off;
    TypeId type;
    uint32_t bit_offset, bitfield_size;
  };
  // Adds the members in order (add_member_name_off adds one this way): one
  // look at the last type and one growth of the table, as an encoder adds
  // millions of members. Every member is checked before any is added.
  void add_members(std::span<const NewMember> members);
  // kind_flag (signed) is set by `is_signed` or, as libbpf does, by the
  // first negative value.
  TypeId add_enum(std::string_view name, uint32_t size, bool is_signed = false);
  void add_enum_value(std::string_view name, int64_t value);  // in [INT32_MIN, UINT32_MAX]
  TypeId add_enum64(std::string_view name, uint32_t size, bool is_signed);
  void add_enum64_value(std::string_view name, uint64_t value);
  TypeId add_fwd(std::string_view name, bool is_union);
  TypeId add_typedef(std::string_view name, TypeId type);
  TypeId add_volatile(TypeId type);
  TypeId add_const(TypeId type);
  TypeId add_restrict(TypeId type);
  TypeId add_func(std::string_view name, TypeId proto, FuncLinkage linkage);
  TypeId add_func_proto(TypeId ret_type);
  void add_param(std::string_view name, TypeId type);  // to the last FUNC_PROTO
  TypeId add_var(std::string_view name, TypeId type, VarLinkage linkage);
  TypeId add_datasec(std::string_view name, uint32_t size);
  void add_datasec_var(TypeId var, uint32_t offset, uint32_t size);  // to the last DATASEC
  TypeId add_float(std::string_view name, uint32_t size);
  // Some of the above with the name already added (add_string /
  // add_string_pooled: an encoder stores names it never reads). A name C
  // requires (typedef, enumerator, fwd) must not be offset 0.
  TypeId add_struct_name_off(uint32_t name_off, uint32_t size);
  TypeId add_union_name_off(uint32_t name_off, uint32_t size);
  TypeId add_enum_name_off(uint32_t name_off, uint32_t size, bool is_signed = false);
  void add_enum_value_name_off(uint32_t name_off, int64_t value);
  TypeId add_enum64_name_off(uint32_t name_off, uint32_t size, bool is_signed);
  void add_enum64_value_name_off(uint32_t name_off, uint64_t value);
  TypeId add_typedef_name_off(uint32_t name_off, TypeId type);
  TypeId add_fwd_name_off(uint32_t name_off, bool is_union);
  void add_param_name_off(uint32_t name_off, TypeId type);
  TypeId add_func_name_off(uint32_t name_off, TypeId proto, FuncLinkage linkage);
  // add_enum_value_name_off and add_param_name_off of several, in order:
  // one look at the last type and one growth of the table (an encoder adds
  // millions). Every item is checked, as those check it, before any is
  // added.
  struct NewEnumValue {
    uint32_t name_off;
    int64_t value;
  };
  void add_enum_values(std::span<const NewEnumValue> values);
  struct NewParam {
    uint32_t name_off;
    TypeId type;
  };
  void add_params(std::span<const NewParam> params);
  TypeId add_decl_tag(std::string_view value, TypeId type, int32_t component_idx, bool attribute = false);
  TypeId add_type_tag(std::string_view value, TypeId type, bool attribute = false);

  // Appends a complete record as is (ids and string offsets must already be
  // those of this table), e.g. one copied from another table and remapped.
  TypeId add_record(std::span<const uint32_t> rec);

  void reserve(size_t types, size_t words, size_t string_bytes);
  // Room for this many records and words in all, without reserve's room
  // in the string index (for a builder that stores few strings of its own).
  void reserve_records(size_t types, size_t words);
  // Room for `bytes` more string bytes (append_strings_raw), no index room.
  void reserve_string_bytes(size_t bytes) { strings_.reserve(strings_.size() + bytes, 0); }
  // Gives back spare capacity (a table kept long after it was built).
  void shrink_to_fit();

  // Bulk building (btf::merge_units): appends `types` records of `words`
  // words in total, uninitialised, and returns the new tails of the word
  // array and of the offset index for the caller to fill (offsets are
  // indexes into words(), so the caller adds the old word count).
  struct RawTail {
    std::span<uint32_t> words, offsets;
    uint32_t first_word;  // words().size() before the call
  };
  RawTail extend_raw(size_t types, size_t words);
  // Appends strings unindexed (see StringTable::append_unindexed); returns
  // the absolute offset of their first byte.
  uint32_t append_strings_raw(std::span<const char> bytes);

  // Takes the words and the string bytes (distill_base), whose index
  // index_strings() builds.
  void assign_raw(UninitVector<uint32_t> words, UninitVector<uint32_t> offsets, std::span<const uint8_t> strings);
  // Builds the index of strings taken without one: here, or by the reader
  // through StringTable::assign_unindexed (beside its checks, which read
  // the strings but never look one up).
  void index_strings() { strings_.build_index(); }
  // Or leaves the index to be built for what is looked up (a module's
  // base: StringTable::defer_index). Until index_strings_for(), a table
  // split on this one adds every string as its own (add_string), which
  // dedup's string pass then finds here, as it does any name.
  void defer_string_index() { strings_.defer_index(); }
  bool string_index_deferred() const { return strings_.index_deferred(); }
  // Indexes the strings of this table (whose index is deferred) that
  // `split`'s own records name: the names dedup will look up here
  // (StringTable::index_only). Any other lookup still gets its answer.
  void index_strings_for(const Btf& split);
  // Or takes the index StringTable::save_index() made of these strings
  // (the base cache); false if it does not fit.
  bool restore_string_index(FlatReader& saved) { return strings_.restore_index(saved); }
  // Takes the records and a string table (dedup's, the reader's), or the
  // records only (the strings stay).
  void assign_raw(UninitVector<uint32_t> words, UninitVector<uint32_t> offsets, StringTable strings);
  void assign_records(UninitVector<uint32_t> words, UninitVector<uint32_t> offsets);

  // Frees the string index of a table that will only be read and appended
  // elsewhere from now on (the encoder's group outputs: 43 of them wait
  // for the final merge). add_string and find_string throw afterwards.
  void drop_string_index() { strings_.drop_index(); }

 private:
  const uint32_t* record_elsewhere(TypeId id) const;  // record() of a base id, or the error
  TypeId push(uint32_t name_off, uint32_t info, uint32_t size_or_type);
  uint32_t* last(Kind a, Kind b, const char* what);
  uint32_t name_or_throw(std::string_view name, const char* what);
  // SHARED_STR_BASE + the position of `s` if it points into the shared region.
  std::optional<uint32_t> shared_offset(const char* s) const;

  const Btf* base_ = nullptr;
  TypeId start_id_ = 1;
  uint32_t start_str_off_ = 0;
  // Grown by resize and then filled (add_members, extend_raw): no zeroing.
  UninitVector<uint32_t> words_;
  UninitVector<uint32_t> offsets_;  // id - start_id_ -> index into words_
  StringTable strings_;
  std::span<const char> shared_;
};

inline std::string_view TypeView::name() const { return btf_->str(name_off()); }

// The target's pointer size as libbpf's btf__pointer_size guesses it for
// BTF that is not read from an ELF file: the size of an INT named like
// `long` (4 or 8), the base's types included; 0 if there is none. Readers
// that print sizes (btfdiff's BTF side, the C dump) need it: i386's BTF
// has 4-byte pointers, and BTF records no pointer size.
uint32_t pointer_size(const Btf& b);

}  // namespace btfc::btf
