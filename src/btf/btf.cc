// The BTF type table and string table (see btf.h). Builders check their
// arguments the way libbpf's btf__add_* do, so a table built here is one
// libbpf would have built and the kernel would load.
#include "btf/btf.h"

#include <xxhash.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>

#include "base/endian.h"
#include "base/flat_bytes.h"
#include "base/parallel.h"
#include "base/prefault.h"

namespace btfc::btf {

namespace {
[[noreturn]] void bad_argument(const std::string& what) { throw Error("BTF builder: " + what); }
}  // namespace

std::string_view kind_name(Kind k) {
  static constexpr std::string_view names[] = {
      "UNKNOWN", "INT",      "PTR",        "ARRAY", "STRUCT",  "UNION", "ENUM",     "FWD",      "TYPEDEF", "VOLATILE",
      "CONST",   "RESTRICT", "FUNC",       "FUNC_PROTO", "VAR", "DATASEC", "FLOAT", "DECL_TAG", "TYPE_TAG", "ENUM64"};
  unsigned i = static_cast<unsigned>(k);
  return i <= KIND_MAX ? names[i] : names[0];
}

// ---- StringTable ------------------------------------------------------------

StringTable::StringTable(bool leading_empty) {
  if (leading_empty) {
    data_.push_back('\0');
    // "" is deliberately indexed too, so add("") on a table read from a
    // file returns 0 like libbpf.
    grow();
    index(0, hash(""));
  }
}

size_t StringTable::slots_for(size_t strings) {
  size_t slots = kFirstSlots;
  while (slots < strings * 2) slots *= 2;
  return slots;
}

void StringTable::reserve(size_t bytes, size_t strings) {
  data_.reserve(bytes);
  if (size_t slots = slots_for(strings); slots > slots_.size()) rehash(slots);
}

void StringTable::grow() { rehash(slots_.empty() ? kFirstSlots : slots_.size() * 2); }

void StringTable::rehash(size_t slots) {
  std::vector<Slot> old = std::move(slots_);
  assign_prefaulted(slots_, slots, Slot{});
  // The home slot is the hash's low bits, all kept in the tag (slots are
  // fewer than 2^32): no string is read or hashed again, which made each
  // doubling of a kernel's table a pass over all its strings.
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (!s.off1) continue;
    size_t i = s.tag & mask;
    while (slots_[i].off1) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

uint64_t StringTable::hash(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }

// Inserts `off` unless an equal string is already indexed (first one wins,
// which is what libbpf's strset does for a table read from a file).
void StringTable::index(uint32_t off, uint64_t h) {
  if ((count_ + 1) * 2 > slots_.size()) grow();
  insert_new(off, at(off), h);
}

void StringTable::assign_unindexed(std::span<const uint8_t> bytes) {
  reserve_prefaulted(data_, bytes.size());  // a base's megabytes, copied while its reader waits
  // As chars: from unsigned chars, assign() copies byte by byte (vmlinux's
  // 2 MB: 9M instructions against a memcpy's few hundred thousand).
  const char* from = reinterpret_cast<const char*>(bytes.data());
  data_.assign(from, from + bytes.size());
  unique_ = false;
  drop_index();
}

void StringTable::build_index() {
  count_ = 0;
  slots_ = whole_index(/*parallel=*/true, count_);
  state_ = Index::Whole;
  asked_.reset();
  lazy_.reset();
}

std::vector<StringTable::Slot> StringTable::whole_index(bool parallel, uint32_t& count) const {
  // The strings and their hashes first, in parallel chunks of the bytes
  // (a chunk has the strings that start in it); then the inserts, in
  // offset order as one pass would make them (the first of equal texts
  // is the one found), each loading ahead the slot of a later one: a
  // module's base is vmlinux, whose index is megabytes, and a single
  // small module waits for it.
  struct Entry {
    uint32_t off, len;
    uint64_t hash;
  };
  constexpr size_t kChunkBytes = size_t{1} << 18;
  const size_t size = data_.size();
  std::vector<std::vector<Entry>> parts((size + kChunkBytes - 1) / kChunkBytes);
  auto hash_chunk = [&](size_t c) {
    const size_t lo = c * kChunkBytes, hi = std::min(size, lo + kChunkBytes);
    size_t off = lo;
    while (off < hi && off > 0 && data_[off - 1] != '\0') ++off;  // the first string starting here
    std::vector<Entry>& mine = parts[c];
    mine.reserve((hi - lo) / 16);
    // The reader has checked the bytes end with NUL.
    while (off < hi) {
      std::string_view s = at(static_cast<uint32_t>(off));
      mine.push_back({static_cast<uint32_t>(off), static_cast<uint32_t>(s.size()), hash(s)});
      off += s.size() + 1;
    }
  };
  if (parallel) parallel_for(parts.size(), hash_chunk);
  else for (size_t c = 0; c < parts.size(); ++c) hash_chunk(c);
  size_t n = 0;
  for (const std::vector<Entry>& p : parts) n += p.size();
  std::vector<Slot> slots;
  assign_prefaulted(slots, slots_for(n + 1), Slot{});  // sized once, not grown through every size on the way
  const size_t mask = slots.size() - 1;
  constexpr size_t kAhead = 16;
  for (size_t c = 0; c < parts.size(); ++c) {
    const std::vector<Entry>& p = parts[c];
    for (size_t i = 0; i < p.size(); ++i) {
      if (i + kAhead < p.size()) __builtin_prefetch(&slots[p[i + kAhead].hash & mask]);
      const Entry& e = p[i];
      insert_new(slots, count, e.off, std::string_view(data_.data() + e.off, e.len), e.hash);
    }
  }
  return slots;
}

void StringTable::defer_index() {
  drop_index();
  state_ = Index::Deferred;
  lazy_ = std::make_shared<Lazy>();
}

namespace {

// index_only's filter of a table's strings: a key of a string's length
// and first 8 bytes (of `bytes`, which end with NUL), read as a
// little-endian word on any host.
inline uint64_t prefix_key(std::span<const char> bytes, size_t start, size_t len) {
  uint64_t w = 0;
  const uint8_t* p = reinterpret_cast<const uint8_t*>(bytes.data()) + start;
  if (bytes.size() - start >= 8) [[likely]] {
    w = load<uint64_t>(p, /*big_endian=*/false);
    w &= len < 8 ? (uint64_t{1} << (8 * len)) - 1 : ~uint64_t{0};
  } else {
    for (size_t i = 0; i < len; ++i) w |= uint64_t{p[i]} << (8 * i);
  }
  return (w ^ (uint64_t{len} * 0x9e3779b97f4a7c15u)) * 0xff51afd7ed558ccdu;
}

// Calls fn(start, len) for each NUL-terminated string of `bytes` (which
// end with NUL), in order. The NULs of 64 bytes at a time are found as the
// bits of a mask, without a branch per byte or per word: a loop that
// stops at each string's end guesses wrong at most of them (vmlinux has
// 100k strings).
template <typename Fn>
void for_each_string(std::span<const char> bytes, Fn&& fn) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t size = bytes.size();
  size_t start = 0, i = 0;
  for (; size - i >= 64; i += 64) {
    uint64_t nuls = 0;  // bit k: byte i + k is NUL
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    for (int k = 0; k < 4; ++k) {
      __m128i v;
      std::memcpy(&v, p + i + 16 * k, 16);
      nuls |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero)))} << (16 * k);
    }
#else
    constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fu;
    for (int k = 0; k < 8; ++k) {
      const uint64_t w = load<uint64_t>(p + i + 8 * k, /*big_endian=*/false);
      // 1 in the low bit of each zero byte, exactly (no borrow between
      // bytes), then those 8 bits gathered into one byte.
      const uint64_t z = ~(((w & kLow7) + kLow7) | w | kLow7) >> 7;
      nuls |= (z * 0x0102040810204080u >> 56) << (8 * k);
    }
#endif
    for (; nuls; nuls &= nuls - 1) {
      const size_t at = i + static_cast<size_t>(std::countr_zero(nuls));
      fn(start, at - start);
      start = at + 1;
    }
  }
  for (; i < size; ++i)
    if (p[i] == 0) {
      fn(start, i - start);
      start = i + 1;
    }
}

}  // namespace

void StringTable::index_only(StringTable asked) {
  if (state_ != Index::Deferred) throw Error("internal: index_only on a table whose index is not deferred");
  // A bit per key of the asked texts: most of this table's strings are
  // told apart by it without being hashed.
  constexpr int kFilterBits = 18;
  std::vector<uint64_t> filter(size_t{1} << (kFilterBits - 6));
  auto bit = [](uint64_t key) { return key >> (64 - kFilterBits); };
  const std::span<const char> asked_bytes = asked.bytes();
  for_each_string(asked_bytes, [&](size_t start, size_t len) {
    const uint64_t b = bit(prefix_key(asked_bytes, start, len));
    filter[b / 64] |= uint64_t{1} << (b % 64);
  });
  slots_.assign(slots_for(asked.count_ + 1), Slot{});
  count_ = 0;
  const std::span<const char> mine = bytes();
  for_each_string(mine, [&](size_t start, size_t len) {
    const uint64_t b = bit(prefix_key(mine, start, len));
    if (!(filter[b / 64] >> (b % 64) & 1)) return;
    const std::string_view s(mine.data() + start, len);
    const uint64_t h = hash(s);
    if (asked.find(s, h)) insert_new(static_cast<uint32_t>(start), s, h);  // the first of equal texts stays
  });
  asked_ = std::make_shared<const StringTable>(std::move(asked));
  state_ = Index::Partial;
}

const std::vector<StringTable::Slot>& StringTable::lazy_whole() const {
  std::call_once(lazy_->once, [&] {
    uint32_t count = 0;
    lazy_->slots = whole_index(/*parallel=*/false, count);
  });
  return lazy_->slots;
}

void StringTable::make_whole() {
  if (state_ == Index::Deferred || state_ == Index::Partial) build_index();
}

void StringTable::insert_new(std::vector<Slot>& slots, uint32_t& count, uint32_t off, std::string_view s,
                             uint64_t h) const {
  const size_t mask = slots.size() - 1;
  const uint32_t tag = tag_of(h);
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots[i];
    if (!slot.off1) {
      slots[i] = {off + 1, tag};
      ++count;
      return;
    }
    if (slot.tag == tag && equals(slot.off1 - 1, s)) return;
  }
}

void StringTable::save_index(std::vector<uint8_t>& out) const {
  if (state_ != Index::Whole) throw Error("internal: save_index of a string table without its whole index");
  FlatWriter(out).value(uint64_t{count_}).array(std::span<const Slot>(slots_));
}

bool StringTable::restore_index(FlatReader& in) {
  drop_index();
  uint64_t count;
  std::vector<Slot> slots;
  if (!in.value(count) || !in.array(slots, uint64_t{1} << 32) || !in.done()) return false;
  const size_t n = slots.size();
  if (n == 0 || (n & (n - 1)) || count * 2 > n) return false;  // the shape every index has
  // Every entry a string of this table, and as many as counted: a probe
  // then always meets an empty slot, and finds offsets in range.
  uint64_t used = 0;
  for (const Slot& slot : slots) {
    if (!slot.off1) continue;
    if (slot.off1 > data_.size()) return false;
    ++used;
  }
  if (used != count) return false;
  slots_ = std::move(slots);
  count_ = static_cast<uint32_t>(count);
  state_ = Index::Whole;
  return true;
}

void StringTable::drop_index() {
  slots_ = {};
  count_ = 0;
  state_ = Index::None;
  asked_.reset();
  lazy_.reset();
}

// Inlined into find(), which every base lookup of a batch goes through.
[[gnu::always_inline]] inline std::optional<uint32_t> StringTable::probe(const std::vector<Slot>& slots,
                                                                        std::string_view s, uint64_t h) const {
  if (slots.empty()) return std::nullopt;
  size_t mask = slots.size() - 1;
  uint32_t tag = tag_of(h);
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots[i];
    if (!slot.off1) return std::nullopt;
    if (slot.tag == tag && equals(slot.off1 - 1, s)) return slot.off1 - 1;
  }
}

std::optional<uint32_t> StringTable::find(std::string_view s, uint64_t h) const {
  switch (state_) {
    case Index::Whole:
      return probe(slots_, s, h);
    case Index::None:
      throw Error("internal: a string table without its index (dropped or not built yet) was looked up");
    case Index::Partial:
      if (std::optional<uint32_t> off = probe(slots_, s, h)) return off;
      if (asked_->find(s, h)) return std::nullopt;  // asked for, and not here
      break;
    case Index::Deferred:
      break;
  }
  return probe(lazy_whole(), s, h);
}

uint32_t StringTable::add(std::string_view s, uint64_t h) {
  if (state_ == Index::None)
    throw Error("internal: a string table without its index (dropped or not built yet) was added to");
  make_whole();
  if (slots_.empty()) grow();
  if ((count_ + 1) * 2 > slots_.size()) grow();
  size_t mask = slots_.size() - 1;
  uint32_t tag = tag_of(h);
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (!slot.off1) {
      uint32_t off = static_cast<uint32_t>(data_.size());
      data_.insert(data_.end(), s.begin(), s.end());
      data_.push_back('\0');
      slots_[i] = {off + 1, tag};
      ++count_;
      return off;
    }
    if (slot.tag == tag && equals(slot.off1 - 1, s)) return slot.off1 - 1;
  }
}

uint32_t StringTable::append_unindexed(std::span<const char> bytes) {
  if (data_.size() + bytes.size() > UINT32_MAX) throw Error("BTF string table larger than 4 GiB");
  uint32_t off = static_cast<uint32_t>(data_.size());
  data_.insert(data_.end(), bytes.begin(), bytes.end());
  unique_ &= bytes.empty();
  return off;
}

// ---- Btf ----------------------------------------------------------------------

Btf::Btf() : strings_(true) {}

Btf::Btf(const Btf* base) : base_(base), strings_(base == nullptr) {
  if (base) {
    start_id_ = base->end_id();
    start_str_off_ = base->end_str_off();
  }
}

void Btf::share_strings(std::span<const char> region) {
  // Offsets must stay below 2^32 and above every own string.
  shared_ = region.size() < SHARED_STR_BASE ? region : std::span<const char>();
}

std::optional<uint32_t> Btf::shared_offset(const char* s) const {
  // Compared as integers: s usually points into another object.
  uintptr_t p = reinterpret_cast<uintptr_t>(s), b = reinterpret_cast<uintptr_t>(shared_.data());
  if (shared_.empty() || p < b || p - b >= shared_.size()) return std::nullopt;
  return SHARED_STR_BASE + static_cast<uint32_t>(p - b);
}

uint32_t Btf::add_string(std::string_view s) {
  if (s.empty()) return 0;
  // In the region, and NUL-terminated there (not a prefix of a longer name).
  if (std::optional<uint32_t> off = shared_offset(s.data());
      off && *off - SHARED_STR_BASE + s.size() < shared_.size() && s.data()[s.size()] == '\0')
    return *off;
  return add_string(s, StringTable::hash(s));
}

uint32_t Btf::add_string(std::string_view s, uint64_t h) {
  if (s.empty()) return 0;
  if (std::optional<uint32_t> off = shared_offset(s.data());
      off && *off - SHARED_STR_BASE + s.size() < shared_.size() && s.data()[s.size()] == '\0')
    return *off;
  // A base whose index waits for dedup (defer_string_index) is not asked.
  if (base_ && !base_->string_index_deferred())
    if (auto off = base_->find_string(s, h)) return *off;
  return start_str_off_ + strings_.add(s, h);
}

void Btf::index_strings_for(const Btf& split) {
  if (!string_index_deferred()) return;
  StringTable asked(/*leading_empty=*/false);
  const uint32_t own_start = split.start_str_off();
  // The offsets met last, by a hash of the offset: the units of a module
  // name the same .debug_str offsets again and again.
  std::vector<uint32_t> met(4096, 0);
  for (TypeId id = split.start_id(); id < split.end_id(); ++id)
    split.for_each_str_off(id, [&](uint32_t off) {
      // Base strings are looked up by nobody; an offset out of range is
      // dedup's error to report.
      if (off < own_start || (!split.is_shared_str_off(off) && !split.valid_str_off(off))) return;
      uint32_t& last = met[(off * 0x9e3779b1u) >> 20];
      if (last == off) return;
      last = off;
      if (std::string_view text = split.str(off); !text.empty()) asked.add(text);
    });
  strings_.index_only(std::move(asked));
}

uint32_t Btf::add_string_pooled(const char* s) {
  if (std::optional<uint32_t> off = shared_offset(s)) return *off;
  return add_string(std::string_view(s));
}

std::optional<uint32_t> Btf::find_string(std::string_view s) const {
  return find_string(s, StringTable::hash(s));
}

std::optional<uint32_t> Btf::find_string(std::string_view s, uint64_t hash) const {
  if (s.empty()) return 0;
  if (base_)
    if (auto off = base_->find_string(s, hash)) return off;
  if (auto off = strings_.find(s, hash)) return start_str_off_ + *off;
  return std::nullopt;
}

std::string_view Btf::str(uint32_t off) const {
  if (off < start_str_off_) return base_->str(off);
  if (is_shared_str_off(off)) return std::string_view(shared_.data() + (off - SHARED_STR_BASE));
  if (off - start_str_off_ >= strings_.size()) {
    if (off == 0) return {};  // an empty split table: "" lives in the (absent) base
    throw Error("BTF string offset " + std::to_string(off) + " out of range");
  }
  return strings_.at(off - start_str_off_);
}

const uint32_t* Btf::record_elsewhere(TypeId id) const {
  if (id < start_id_) {
    if (!base_ || id == 0) throw Error("BTF type id " + std::to_string(id) + " has no record");
    return base_->record(id);
  }
  throw Error("BTF type id " + std::to_string(id) + " out of range");
}

TypeView Btf::type(TypeId id) const {
  const uint32_t* rec = record(id);
  return TypeView(&owner(id), id, rec);
}

void Btf::reserve(size_t types, size_t words, size_t string_bytes) {
  reserve_records(types, words);
  strings_.reserve(string_bytes, types);
}

void Btf::reserve_records(size_t types, size_t words) {
  offsets_.reserve(types);
  words_.reserve(words);
}

void Btf::assign_raw(UninitVector<uint32_t> words, UninitVector<uint32_t> offsets, std::span<const uint8_t> strings) {
  words_ = std::move(words);
  offsets_ = std::move(offsets);
  strings_.assign_unindexed(strings);
  shared_ = {};  // every offset now points into `strings`
}

void Btf::assign_raw(UninitVector<uint32_t> words, UninitVector<uint32_t> offsets, StringTable strings) {
  words_ = std::move(words);
  offsets_ = std::move(offsets);
  strings_ = std::move(strings);
  shared_ = {};
}

void Btf::assign_records(UninitVector<uint32_t> words, UninitVector<uint32_t> offsets) {
  words_ = std::move(words);
  offsets_ = std::move(offsets);
}

void Btf::shrink_to_fit() {
  words_.shrink_to_fit();
  offsets_.shrink_to_fit();
  strings_.shrink_to_fit();
}

Btf::RawTail Btf::extend_raw(size_t types, size_t words) {
  if (end_id() + uint64_t{types} - 1 > MAX_BUILD_TYPES)
    throw Error("BTF: more than " + std::to_string(MAX_BUILD_TYPES) + " types");
  if (words_.size() + words > UINT32_MAX) throw Error("BTF: more than 2^32 words of records");
  size_t w = words_.size(), t = offsets_.size();
  words_.resize(w + words);
  offsets_.resize(t + types);
  return {std::span<uint32_t>(words_).subspan(w), std::span<uint32_t>(offsets_).subspan(t), static_cast<uint32_t>(w)};
}

uint32_t Btf::append_strings_raw(std::span<const char> bytes) {
  return start_str_off_ + strings_.append_unindexed(bytes);
}

TypeId Btf::push(uint32_t name_off, uint32_t info, uint32_t size_or_type) {
  TypeId id = end_id();
  if (id > MAX_BUILD_TYPES) bad_argument("more than " + std::to_string(MAX_BUILD_TYPES) + " types");
  offsets_.push_back(static_cast<uint32_t>(words_.size()));
  words_.push_back(name_off);
  words_.push_back(info);
  words_.push_back(size_or_type);
  return id;
}

uint32_t* Btf::last(Kind a, Kind b, const char* what) {
  if (offsets_.empty()) bad_argument(std::string(what) + " without a type to add it to");
  uint32_t* rec = words_.data() + offsets_.back();
  Kind k = info_kind(rec[1]);
  if (k != a && k != b) bad_argument(std::string(what) + " after a " + std::string(kind_name(k)));
  if (info_vlen(rec[1]) == MAX_VLEN) bad_argument(std::string(what) + ": more than 65535 items");
  return rec;
}

uint32_t Btf::name_or_throw(std::string_view name, const char* what) {
  if (name.empty()) bad_argument(std::string(what) + " needs a name");
  return add_string(name);
}

TypeId Btf::add_int(std::string_view name, uint32_t size, uint32_t encoding) {
  return add_int(name, size, encoding, size * 8, 0);
}

TypeId Btf::add_int(std::string_view name, uint32_t size, uint32_t encoding, uint32_t nr_bits,
                    uint32_t bits_offset) {
  uint32_t name_off = name_or_throw(name, "INT");
  if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16)
    bad_argument("INT size " + std::to_string(size));
  if (encoding & ~(INT_SIGNED | INT_CHAR | INT_BOOL)) bad_argument("INT encoding " + std::to_string(encoding));
  if (nr_bits == 0 || nr_bits > 128 || bits_offset > 127 || bits_offset + nr_bits > size * 8)
    bad_argument("INT bits");
  TypeId id = push(name_off, make_info(Kind::Int, false, 0), size);
  words_.push_back(encoding << 24 | bits_offset << 16 | nr_bits);
  return id;
}

TypeId Btf::add_ptr(TypeId type) { return push(0, make_info(Kind::Ptr, false, 0), type); }

TypeId Btf::add_array(TypeId elem_type, TypeId index_type, uint32_t nelems) {
  TypeId id = push(0, make_info(Kind::Array, false, 0), 0);
  words_.push_back(elem_type);
  words_.push_back(index_type);
  words_.push_back(nelems);
  return id;
}

TypeId Btf::add_struct(std::string_view name, uint32_t size) { return add_struct_name_off(add_string(name), size); }

TypeId Btf::add_struct_name_off(uint32_t name_off, uint32_t size) {
  return push(name_off, make_info(Kind::Struct, false, 0), size);
}

TypeId Btf::add_union(std::string_view name, uint32_t size) { return add_union_name_off(add_string(name), size); }

TypeId Btf::add_union_name_off(uint32_t name_off, uint32_t size) {
  return push(name_off, make_info(Kind::Union, false, 0), size);
}

void Btf::add_member(std::string_view name, TypeId type, uint32_t bit_offset, uint32_t bitfield_size) {
  last(Kind::Struct, Kind::Union, "member");
  add_member_name_off(add_string(name), type, bit_offset, bitfield_size);
}

void Btf::add_member_name_off(uint32_t name_off, TypeId type, uint32_t bit_offset, uint32_t bitfield_size) {
  const NewMember m{name_off, type, bit_offset, bitfield_size};
  add_members({&m, 1});
}

void Btf::add_members(std::span<const NewMember> members) {
  if (members.empty()) return;
  const uint32_t* rec = last(Kind::Struct, Kind::Union, "member");
  Kind kind = info_kind(rec[1]);
  uint32_t vlen = info_vlen(rec[1]);
  bool kind_flag = info_kind_flag(rec[1]);
  // Checked and written in one pass; a member that fails a check takes
  // the ones written back out before the error, so nothing is added.
  const size_t at = words_.size();
  words_.resize(at + 3 * members.size());
  uint32_t* w = words_.data() + at;
  auto fail = [&](const char* what) {
    words_.resize(at);
    bad_argument(what);
  };
  for (size_t i = 0; i < members.size(); i++) {
    const NewMember& m = members[i];
    if (vlen + i == MAX_VLEN) [[unlikely]] fail("member: more than 65535 items");
    const bool bitfield = m.bitfield_size != 0 || m.bit_offset % 8 != 0;
    if (bitfield && (m.bitfield_size > 0xff || m.bit_offset > 0xffffff)) [[unlikely]] fail("member bitfield out of range");
    if (kind == Kind::Union && m.bit_offset) [[unlikely]] fail("union member at a non-zero offset");
    kind_flag |= bitfield;
    w[0] = m.name_off;
    w[1] = m.type;
    w[2] = m.bit_offset | m.bitfield_size << 24;
    w += 3;
  }
  words_[offsets_.back() + 1] = make_info(kind, kind_flag, vlen + static_cast<uint32_t>(members.size()));
}

TypeId Btf::add_enum(std::string_view name, uint32_t size, bool is_signed) {
  return add_enum_name_off(add_string(name), size, is_signed);
}

TypeId Btf::add_enum_name_off(uint32_t name_off, uint32_t size, bool is_signed) {
  if (size == 0 || (size & (size - 1)) || size > 8) bad_argument("ENUM size " + std::to_string(size));
  return push(name_off, make_info(Kind::Enum, is_signed, 0), size);
}

void Btf::add_enum_value(std::string_view name, int64_t value) {
  last(Kind::Enum, Kind::Enum, "enum value");
  if (value < INT32_MIN || value > int64_t{UINT32_MAX}) bad_argument("enum value out of 32-bit range");
  add_enum_value_name_off(name_or_throw(name, "enum value"), value);
}

void Btf::add_enum_value_name_off(uint32_t name_off, int64_t value) {
  last(Kind::Enum, Kind::Enum, "enum value");
  if (value < INT32_MIN || value > int64_t{UINT32_MAX}) bad_argument("enum value out of 32-bit range");
  if (name_off == 0) bad_argument("enum value needs a name");
  uint32_t* rec = words_.data() + offsets_.back();
  rec[1] = make_info(Kind::Enum, value < 0 || info_kind_flag(rec[1]), info_vlen(rec[1]) + 1);
  words_.push_back(name_off);
  words_.push_back(static_cast<uint32_t>(value));
}

void Btf::add_enum_values(std::span<const NewEnumValue> values) {
  if (values.empty()) return;
  const uint32_t* rec = last(Kind::Enum, Kind::Enum, "enum value");
  const uint32_t vlen = info_vlen(rec[1]);
  bool kind_flag = info_kind_flag(rec[1]);
  for (size_t i = 0; i < values.size(); i++) {
    const NewEnumValue& v = values[i];
    if (vlen + i == MAX_VLEN) bad_argument("enum value: more than 65535 items");
    if (v.value < INT32_MIN || v.value > int64_t{UINT32_MAX}) bad_argument("enum value out of 32-bit range");
    if (v.name_off == 0) bad_argument("enum value needs a name");
    kind_flag |= v.value < 0;
  }
  const size_t at = words_.size();
  words_.resize(at + 2 * values.size());
  words_[offsets_.back() + 1] = make_info(Kind::Enum, kind_flag, vlen + static_cast<uint32_t>(values.size()));
  uint32_t* w = words_.data() + at;
  for (const NewEnumValue& v : values) {
    *w++ = v.name_off;
    *w++ = static_cast<uint32_t>(v.value);
  }
}

TypeId Btf::add_enum64(std::string_view name, uint32_t size, bool is_signed) {
  return add_enum64_name_off(add_string(name), size, is_signed);
}

TypeId Btf::add_enum64_name_off(uint32_t name_off, uint32_t size, bool is_signed) {
  if (size == 0 || (size & (size - 1)) || size > 8) bad_argument("ENUM64 size " + std::to_string(size));
  return push(name_off, make_info(Kind::Enum64, is_signed, 0), size);
}

void Btf::add_enum64_value(std::string_view name, uint64_t value) {
  last(Kind::Enum64, Kind::Enum64, "enum64 value");
  add_enum64_value_name_off(name_or_throw(name, "enum64 value"), value);
}

void Btf::add_enum64_value_name_off(uint32_t name_off, uint64_t value) {
  last(Kind::Enum64, Kind::Enum64, "enum64 value");
  if (name_off == 0) bad_argument("enum64 value needs a name");
  uint32_t* rec = words_.data() + offsets_.back();
  rec[1] = make_info(Kind::Enum64, info_kind_flag(rec[1]), info_vlen(rec[1]) + 1);
  words_.push_back(name_off);
  words_.push_back(static_cast<uint32_t>(value));
  words_.push_back(static_cast<uint32_t>(value >> 32));
}

TypeId Btf::add_fwd(std::string_view name, bool is_union) {
  return add_fwd_name_off(name_or_throw(name, "FWD"), is_union);
}

TypeId Btf::add_fwd_name_off(uint32_t name_off, bool is_union) {
  if (name_off == 0) bad_argument("FWD needs a name");
  return push(name_off, make_info(Kind::Fwd, is_union, 0), 0);
}

TypeId Btf::add_typedef(std::string_view name, TypeId type) {
  return add_typedef_name_off(name_or_throw(name, "TYPEDEF"), type);
}

TypeId Btf::add_typedef_name_off(uint32_t name_off, TypeId type) {
  if (name_off == 0) bad_argument("TYPEDEF needs a name");
  return push(name_off, make_info(Kind::Typedef, false, 0), type);
}

TypeId Btf::add_volatile(TypeId type) { return push(0, make_info(Kind::Volatile, false, 0), type); }
TypeId Btf::add_const(TypeId type) { return push(0, make_info(Kind::Const, false, 0), type); }
TypeId Btf::add_restrict(TypeId type) { return push(0, make_info(Kind::Restrict, false, 0), type); }

TypeId Btf::add_func(std::string_view name, TypeId proto, FuncLinkage linkage) {
  return add_func_name_off(name_or_throw(name, "FUNC"), proto, linkage);
}

TypeId Btf::add_func_name_off(uint32_t name_off, TypeId proto, FuncLinkage linkage) {
  if (static_cast<uint32_t>(linkage) > 2) bad_argument("FUNC linkage");
  if (name_off == 0) bad_argument("FUNC needs a name");
  return push(name_off, make_info(Kind::Func, false, static_cast<uint32_t>(linkage)), proto);
}

TypeId Btf::add_func_proto(TypeId ret_type) { return push(0, make_info(Kind::FuncProto, false, 0), ret_type); }

void Btf::add_param(std::string_view name, TypeId type) {
  last(Kind::FuncProto, Kind::FuncProto, "param");
  add_param_name_off(add_string(name), type);
}

void Btf::add_param_name_off(uint32_t name_off, TypeId type) {
  last(Kind::FuncProto, Kind::FuncProto, "param");
  uint32_t* rec = words_.data() + offsets_.back();
  rec[1] = make_info(Kind::FuncProto, false, info_vlen(rec[1]) + 1);
  words_.push_back(name_off);
  words_.push_back(type);
}

void Btf::add_params(std::span<const NewParam> params) {
  if (params.empty()) return;
  const uint32_t* rec = last(Kind::FuncProto, Kind::FuncProto, "param");
  const uint32_t vlen = info_vlen(rec[1]);
  if (vlen + params.size() > MAX_VLEN) bad_argument("param: more than 65535 items");
  const size_t at = words_.size();
  words_.resize(at + 2 * params.size());
  words_[offsets_.back() + 1] = make_info(Kind::FuncProto, false, vlen + static_cast<uint32_t>(params.size()));
  uint32_t* w = words_.data() + at;
  for (const NewParam& p : params) {
    *w++ = p.name_off;
    *w++ = p.type;
  }
}

TypeId Btf::add_var(std::string_view name, TypeId type, VarLinkage linkage) {
  if (static_cast<uint32_t>(linkage) > 2) bad_argument("VAR linkage");
  TypeId id = push(name_or_throw(name, "VAR"), make_info(Kind::Var, false, 0), type);
  words_.push_back(static_cast<uint32_t>(linkage));
  return id;
}

TypeId Btf::add_datasec(std::string_view name, uint32_t size) {
  return push(name_or_throw(name, "DATASEC"), make_info(Kind::Datasec, false, 0), size);
}

void Btf::add_datasec_var(TypeId var, uint32_t offset, uint32_t size) {
  uint32_t* rec = last(Kind::Datasec, Kind::Datasec, "datasec var");
  rec[1] = make_info(Kind::Datasec, false, info_vlen(rec[1]) + 1);
  words_.push_back(var);
  words_.push_back(offset);
  words_.push_back(size);
}

TypeId Btf::add_float(std::string_view name, uint32_t size) {
  if (size != 2 && size != 4 && size != 8 && size != 12 && size != 16)
    bad_argument("FLOAT size " + std::to_string(size));
  return push(name_or_throw(name, "FLOAT"), make_info(Kind::Float, false, 0), size);
}

TypeId Btf::add_decl_tag(std::string_view value, TypeId type, int32_t component_idx, bool attribute) {
  if (component_idx < -1) bad_argument("DECL_TAG component_idx");
  TypeId id = push(name_or_throw(value, "DECL_TAG"), make_info(Kind::DeclTag, attribute, 0), type);
  words_.push_back(static_cast<uint32_t>(component_idx));
  return id;
}

TypeId Btf::add_type_tag(std::string_view value, TypeId type, bool attribute) {
  return push(name_or_throw(value, "TYPE_TAG"), make_info(Kind::TypeTag, attribute, 0), type);
}

TypeId Btf::add_record(std::span<const uint32_t> rec) {
  if (rec.size() < 3) bad_argument("record shorter than 3 words");
  int64_t extra = extra_words(info_kind(rec[1]), info_vlen(rec[1]));
  if (extra < 0 || rec.size() != 3 + static_cast<size_t>(extra)) bad_argument("record size does not match its kind");
  TypeId id = push(rec[0], rec[1], rec[2]);
  words_.insert(words_.end(), rec.begin() + 3, rec.end());
  return id;
}

uint32_t pointer_size(const Btf& b) {
  static constexpr std::string_view longs[] = {
      "long", "long int", "int long", "unsigned long", "long unsigned", "unsigned long int",
      "unsigned int long", "long unsigned int", "long int unsigned", "int unsigned long", "int long unsigned"};
  for (TypeId id = 1; id < b.end_id(); ++id) {
    const uint32_t* r = b.record(id);
    if (info_kind(r[1]) != Kind::Int || (r[2] != 4 && r[2] != 8)) continue;
    std::string_view n = b.str(r[0]);
    for (std::string_view l : longs)
      if (n == l) return r[2];
  }
  return 0;
}

}  // namespace btfc::btf
