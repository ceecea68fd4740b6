// Dedup's candidate lookup, as libbpf's btf__dedup finds candidates: the
// signature and the equality of single records (libbpf's btf_hash_* and
// btf_equal_* / btf_compat_*, on raw words), the candidate index that
// yields the ids of a signature in the order libbpf's hash map would, and
// the STRUCT/UNION-by-name table of pass 4. Included by dedup.cc only:
// everything here is inline, in the translation unit of the passes that
// call it millions of times.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/flat_bytes.h"
#include "base/parallel.h"
#include "base/prefault.h"
#include "base/uninit_vector.h"
#include "btf/btf.h"

namespace btfc::btf::dedup_index {

// UniqueNames' empty slot (no string section reaches this offset).
constexpr uint32_t kNoName = 0xffffffff;

// Mixes one word into a 64-bit signature (multiply-xorshift; good enough
// that different signatures practically never share a chain).
inline uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 32);
}

// The 32 bits of a signature the candidate index keeps (and dedup stores
// per type).
inline uint32_t sig_tag(uint64_t sig) { return static_cast<uint32_t>(sig ^ (sig >> 32)); }

inline Kind kind_of(const uint32_t* r) { return info_kind(r[1]); }
inline uint32_t vlen_of(const uint32_t* r) { return info_vlen(r[1]); }

// ---- Signatures and equality of single records (libbpf's btf_hash_* and
// btf_equal_* / btf_compat_*), on raw words. ----

inline uint64_t hash_common(const uint32_t* r) { return mix(mix(mix(0, r[0]), r[1]), r[2]); }
inline uint64_t hash_int_tag(const uint32_t* r) { return mix(hash_common(r), r[3]); }
// Name only (libbpf >= 1.1): an enum forward (vlen 0, size 4, kind flag 0)
// must meet its full definition whatever the latter's size, sign or kind.
inline uint64_t hash_enum(const uint32_t* r) { return mix(0, r[0]); }
// Not member types: they are not canonical yet.
inline uint64_t hash_struct(const uint32_t* r) {
  uint64_t h = hash_common(r);
  for (uint32_t i = 0, n = vlen_of(r); i < n; ++i) h = mix(mix(h, r[3 + 3 * i]), r[5 + 3 * i]);
  return h;
}
inline uint64_t hash_array(const uint32_t* r) { return mix(mix(mix(hash_common(r), r[3]), r[4]), r[5]); }
inline uint64_t hash_fnproto(const uint32_t* r) {
  uint64_t h = hash_common(r);
  for (uint32_t i = 0, n = vlen_of(r); i < n; ++i) h = mix(mix(h, r[3 + 2 * i]), r[4 + 2 * i]);
  return h;
}

inline bool equal_common(const uint32_t* a, const uint32_t* b) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }
inline bool equal_int_tag(const uint32_t* a, const uint32_t* b) { return equal_common(a, b) && a[3] == b[3]; }
// Compares vlen pairs of words after the header, as libbpf's btf_equal_enum
// does (also when called on ENUM64 records by the 1.6 identity check).
inline bool equal_enum(const uint32_t* a, const uint32_t* b) {
  if (!equal_common(a, b)) return false;
  return std::memcmp(a + 3, b + 3, size_t{vlen_of(a)} * 8) == 0;
}
inline bool equal_enum64(const uint32_t* a, const uint32_t* b) {
  if (!equal_common(a, b)) return false;
  return std::memcmp(a + 3, b + 3, size_t{vlen_of(a)} * 12) == 0;
}
inline bool is_enum_fwd(const uint32_t* r) {
  Kind k = kind_of(r);
  return (k == Kind::Enum || k == Kind::Enum64) && vlen_of(r) == 0;
}
// One side is a forward: libbpf >= 1.1 compares names only, so `enum E;`
// (DW_AT_encoding unsigned, no size: ENUM 4, kind flag 0) meets `enum E`
// with a negative value (kind flag 1) or an ENUM64 (drm_mode_status).
inline bool compat_enum_ignoring_vlen(const uint32_t* a, const uint32_t* b) {
  auto any_enum = [](const uint32_t* r) { return kind_of(r) == Kind::Enum || kind_of(r) == Kind::Enum64; };
  return a[0] == b[0] && any_enum(a) && any_enum(b);
}
inline bool compat_enum(const uint32_t* a, const uint32_t* b) {
  if (!is_enum_fwd(a) && !is_enum_fwd(b)) return equal_enum(a, b);
  return compat_enum_ignoring_vlen(a, b);
}
inline bool compat_enum64(const uint32_t* a, const uint32_t* b) {
  if (!is_enum_fwd(a) && !is_enum_fwd(b)) return equal_enum64(a, b);
  return compat_enum_ignoring_vlen(a, b);
}
inline bool shallow_equal_struct(const uint32_t* a, const uint32_t* b) {
  if (!equal_common(a, b)) return false;
  for (uint32_t i = 0, n = vlen_of(a); i < n; ++i)
    if (a[3 + 3 * i] != b[3 + 3 * i] || a[5 + 3 * i] != b[5 + 3 * i]) return false;
  return true;
}
inline bool equal_array(const uint32_t* a, const uint32_t* b) {
  return equal_common(a, b) && a[3] == b[3] && a[4] == b[4] && a[5] == b[5];
}
inline bool compat_array(const uint32_t* a, const uint32_t* b) { return equal_common(a, b) && a[5] == b[5]; }
inline bool equal_fnproto(const uint32_t* a, const uint32_t* b) {
  if (!equal_common(a, b)) return false;
  return std::memcmp(a + 3, b + 3, size_t{vlen_of(a)} * 8) == 0;
}
// Ignores the return and parameter types.
inline bool compat_fnproto(const uint32_t* a, const uint32_t* b) {
  if (a[0] != b[0] || a[1] != b[1]) return false;
  for (uint32_t i = 0, n = vlen_of(a); i < n; ++i)
    if (a[3 + 2 * i] != b[3 + 2 * i]) return false;
  return true;
}

// A summary of an ENUM/ENUM64 kept next to it in the candidate index, so
// that a walk down a chain of enums (all anonymous ones share one) can pass
// over most without reading their records: equal enums have equal
// summaries, and bit 0 marks a forward (vlen 0), which is compatible with
// any enum of its name. 0 for other kinds.
inline uint32_t enum_summary(const uint32_t* r) {
  Kind k = kind_of(r);
  if (k != Kind::Enum && k != Kind::Enum64) return 0;
  uint32_t vlen = vlen_of(r);
  uint32_t h = sig_tag(mix(mix(mix(0, r[1]), r[2]), vlen ? r[3] : 0));  // r[3]: the first enumerator's name
  return (h & ~1u) | (vlen == 0 ? 1u : 0u);
}

// Signature -> the ids having it. When several earlier types match,
// libbpf takes the first its hash map yields, so the ids of a signature are
// kept in that map's order: libbpf's hashmap puts a new entry at the head of
// its bucket and, each time it doubles (when (size + 1) * 4 / 3 exceeds the
// capacity, which starts at 4), re-inserts every bucket front to back, which
// reverses each chain. Here a chain is a doubly linked list with a
// "reversed" bit that catches up with the number of doublings lazily; the
// doublings are counted from the number of adds, which are the same adds
// libbpf makes. (A type matching two canonical types is rare, since only
// FWD resolution makes equivalence ambiguous, but then the order decides.)
class CandidateIndex {
 public:
  // `expected`: about how many ids will be added.
  explicit CandidateIndex(size_t expected) {
    size_t cap = 1024;
    while (cap < expected * 2) cap *= 2;
    assign_prefaulted(slots_, cap, Slot{});
    nodes_.reserve(expected + 1);
    nodes_.push_back(Node{});  // node 0: the end of a chain
  }

  // Its whole state as bytes, and back (the base cache): a restored index
  // yields the same chains as the saved one. nullopt when the bytes are
  // not an index of ids below `end_id` (every link is checked, so a bad
  // image cannot send a walk out of the arrays).
  void save(FlatWriter& out) const {
    out.value(uint64_t{count_}).value(libbpf_size_).value(libbpf_cap_).value(doublings_);
    out.array(std::span<const Slot>(slots_)).array(std::span<const Node>(nodes_));
  }
  static std::optional<CandidateIndex> restore(FlatReader& in, uint32_t end_id) {
    CandidateIndex x(0);
    uint64_t count;
    x.nodes_.clear();
    // Room beyond the base's nodes for the types a module's dedup adds,
    // so that its first add does not move the whole array into fresh
    // memory (vmlinux's 1.6 MB); room never written takes no pages.
    x.nodes_.reserve(size_t{end_id} + 1 + end_id / 8);
    if (!in.value(count) || !in.value(x.libbpf_size_) || !in.value(x.libbpf_cap_) || !in.value(x.doublings_) ||
        !in.array(x.slots_, uint64_t{1} << 32) || !in.array(x.nodes_, uint64_t{end_id} + 1))
      return std::nullopt;
    const size_t n_slots = x.slots_.size(), n_nodes = x.nodes_.size();
    if (n_slots < 1024 || (n_slots & (n_slots - 1)) || count * 2 > n_slots || n_nodes == 0) return std::nullopt;
    uint64_t used = 0;  // as many as counted: a probe then always meets an empty slot
    for (const Slot& s : x.slots_) {
      if (s.head >= n_nodes || s.tail >= n_nodes || (s.head == 0) != (s.tail == 0)) return std::nullopt;
      used += s.head != 0;
    }
    if (used != count) return std::nullopt;
    for (size_t i = 1; i < n_nodes; ++i) {
      const Node& node = x.nodes_[i];
      if (node.id == 0 || node.id >= end_id || node.next >= n_nodes || node.prev >= n_nodes) return std::nullopt;
    }
    x.count_ = count;
    return x;
  }

  // `aux`: what for_each hands a two-argument fn along with the id.
  void add(uint32_t tag, uint32_t id, uint32_t aux = 0) {
    count_libbpf_add();
    if ((count_ + 1) * 2 > slots_.size()) grow();
    Slot& s = find_slot(tag);
    note_slot(s);
    uint32_t node = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back(Node{id, 0, 0, aux});
    if (s.head == 0) {
      s.tag = tag;
      s.head = s.tail = node;
      s.state = doublings_ << 1;
      ++count_;
      return;
    }
    catch_up(s);
    if (!reversed(s)) {  // logical front = head
      nodes_[node].next = s.head;
      note_node(s.head);
      nodes_[s.head].prev = node;
      s.head = node;
    } else {            // logical front = tail
      nodes_[node].prev = s.tail;
      note_node(s.tail);
      nodes_[s.tail].next = node;
      s.tail = node;
    }
  }

  // Room for `more` adds beyond those made, in one step rather than in
  // doublings, each of which moves every slot (a single small module
  // indexes 47k of its base's types into an index that starts at 1024
  // slots: seven doublings).
  void reserve(size_t more) {
    size_t cap = slots_.size();
    while (cap < (count_ + more) * 2) cap *= 2;
    if (cap != slots_.size()) rehash(cap);
    nodes_.reserve(nodes_.size() + more);
  }

  // Journal mode, for a working copy of a prepared base's index that many
  // split tables use in turn: every change to a slot or to the chain links
  // of a node that was there before is logged, and rollback() puts the
  // index back as it was, instead of copying the whole base index again.
  void begin_journal() {
    journal_ = true;
    grown_ = false;
    first_new_node_ = static_cast<uint32_t>(nodes_.size());
    saved_ = {count_, libbpf_size_, libbpf_cap_, doublings_};
    slot_log_.clear();
    node_log_.clear();
  }
  // Undoes every change since begin_journal(); false when that is not
  // possible (the slot table grew) and the caller must copy the base again.
  bool rollback() {
    journal_ = false;
    if (grown_) return false;
    for (size_t i = slot_log_.size(); i-- > 0;) slots_[slot_log_[i].first] = slot_log_[i].second;
    for (size_t i = node_log_.size(); i-- > 0;) nodes_[node_log_[i].first] = node_log_[i].second;
    nodes_.resize(first_new_node_);
    std::tie(count_, libbpf_size_, libbpf_cap_, doublings_) = saved_;
    return true;
  }

  // An id libbpf adds and this index leaves out, as no lookup can meet
  // it (see index_base): libbpf's table grows as if it were added, so the
  // chains of the others reverse when libbpf's would.
  void add_left_out() { count_libbpf_add(); }

  // How often libbpf's table would have doubled by now (each doubling
  // reverses every chain).
  uint32_t doublings() const { return doublings_; }

  // Starts loading the front node of the chain add(tag) would extend, if
  // the tag sits in its first slot (for after prefetch(tag)).
  void prefetch_front(uint32_t tag) const {
    const Slot& s = slots_[tag & (slots_.size() - 1)];
    if (s.head && s.tag == tag) {
      __builtin_prefetch(&nodes_[s.head]);
      __builtin_prefetch(&nodes_[s.tail]);
    }
  }

  // Starts loading the slot for_each(tag) reads first.
  void prefetch(uint32_t tag) const { __builtin_prefetch(&slots_[tag & (slots_.size() - 1)]); }

  // Calls fn(id) (or fn(id, aux)) for each id with this signature tag, in
  // libbpf's order, until fn returns true.
  template <typename Fn>
  void for_each(uint32_t tag, Fn&& fn) {
    Slot& s = find_slot(tag);
    if (s.head == 0) return;
    catch_up(s);
    auto call = [&](const Node& node) {
      if constexpr (std::is_invocable_v<Fn, uint32_t, uint32_t>) return fn(node.id, node.aux);
      else return fn(node.id);
    };
    if (!reversed(s)) {
      for (uint32_t n = s.head; n != 0; n = nodes_[n].next)
        if (call(nodes_[n])) return;
    } else {
      for (uint32_t n = s.tail; n != 0; n = nodes_[n].prev)
        if (call(nodes_[n])) return;
    }
  }

 private:
  // 16 bytes, so the table of ~100k canonical types stays in cache. Only 32
  // bits of the signature are kept: two signatures sharing a chain cost an
  // extra equality check, and their relative orders stay libbpf's (libbpf
  // also chains whatever its weaker hash puts together).
  struct Slot {
    uint32_t tag = 0;
    uint32_t head = 0, tail = 0;  // nodes; 0: empty (void is never a candidate)
    uint32_t state = 0;           // doublings_ when last caught up << 1 | reversed
  };
  // One per added id, in the order added: chains link these rather than
  // arrays over all ids, because only canonical types (a tenth or less of
  // a big input) are ever added, and two arrays of every id were 8 bytes
  // per type of fresh memory to clear.
  struct Node {
    uint32_t id = 0;
    uint32_t next = 0, prev = 0;
    uint32_t aux = 0;
  };
  void count_libbpf_add() {
    // libbpf's doubling check comes before its insert.
    if (libbpf_cap_ == 0 || (libbpf_size_ + 1) * 4 / 3 > libbpf_cap_) {
      libbpf_cap_ = libbpf_cap_ ? libbpf_cap_ * 2 : 4;
      ++doublings_;
    }
    ++libbpf_size_;
  }
  [[gnu::always_inline]] void catch_up(Slot& s) {
    uint32_t seen = s.state >> 1;
    bool reversed = (s.state & 1) ^ ((doublings_ - seen) & 1);
    uint32_t state = doublings_ << 1 | reversed;
    if (state == s.state) return;
    note_slot(s);
    s.state = state;
  }
  void note_slot(const Slot& s) {
    if (journal_) slot_log_.emplace_back(static_cast<size_t>(&s - slots_.data()), s);
  }
  void note_node(uint32_t n) {
    if (journal_ && n < first_new_node_) node_log_.emplace_back(n, nodes_[n]);
  }
  static bool reversed(const Slot& s) { return s.state & 1; }
  Slot& find_slot(uint32_t tag) {
    size_t mask = slots_.size() - 1;
    for (size_t i = tag & mask;; i = (i + 1) & mask)
      if (slots_[i].head == 0 || slots_[i].tag == tag) return slots_[i];
  }
  void grow() { rehash(slots_.size() * 2); }
  void rehash(size_t cap) {
    grown_ = true;  // a journal of slot positions is void now
    std::vector<Slot> old = std::move(slots_);
    assign_prefaulted(slots_, cap, Slot{});
    for (const Slot& s : old)
      if (s.head) find_slot(s.tag) = s;
  }

  std::vector<Slot> slots_;
  std::vector<Node> nodes_;
  size_t count_ = 0;
  uint64_t libbpf_size_ = 0, libbpf_cap_ = 0;
  uint32_t doublings_ = 0;

  bool journal_ = false, grown_ = false;
  uint32_t first_new_node_ = 0;
  std::tuple<size_t, uint64_t, uint64_t, uint32_t> saved_;
  std::vector<std::pair<size_t, Slot>> slot_log_;
  std::vector<std::pair<uint32_t, Node>> node_log_;
};

// The kinds libbpf adds to its table (not VAR and DATASEC, nor an
// unknown kind, which index_base reports).
inline bool libbpf_indexes(Kind k) {
  return k != Kind::Unknown && k != Kind::Var && k != Kind::Datasec && static_cast<unsigned>(k) <= KIND_MAX;
}

// What of its base a split table's own records name: the base names its
// types can have once its strings are deduplicated (a bit per string
// offset of the base), and the base types they refer to by id (a bit per
// base id).
class BaseReach {
 public:
  BaseReach(uint32_t end_str_off, uint32_t base_end_id)
      : names_((size_t{end_str_off} + 63) / 64), ids_((size_t{base_end_id} + 63) / 64) {}
  void add_name(uint32_t off) { set(names_, off); }
  bool has_name(uint32_t off) const { return get(names_, off); }
  void add_id(uint32_t id) { set(ids_, id); }
  bool has_id(uint32_t id) const { return get(ids_, id); }

 private:
  static void set(std::vector<uint64_t>& bits, uint32_t i) { bits[i / 64] |= uint64_t{1} << (i % 64); }
  static bool get(const std::vector<uint64_t>& bits, uint32_t i) {
    return i / 64 < bits.size() && (bits[i / 64] >> (i % 64) & 1);
  }
  std::vector<uint64_t> names_, ids_;
};

// The base types [1, start) a split table's types can meet, given what
// they name of it: a type they refer to by id; a named type only if
// `reach` has its name (every lookup compares names first); and a
// reference type (pointer, modifier, typedef, array, prototype, function)
// only if every type it refers to can be met too, since equal references
// refer to the same types, and a new type that matched it would refer to
// one the table cannot reach. Anything else can be met. Small modules on vmlinux keep 350
// to 1,000 of its 56k named types, and 12k to 19k of its 45k anonymous
// ones (the others lead to structs the module never names). A walk of
// the references depth first, each type once; a loop of them (a
// prototype taking a pointer to itself) counts as met.
enum class Met : uint8_t { New, Open, Yes, No };  // New and Open only while walking
template <typename Rec>
std::vector<Met> base_types_met(uint32_t start, Rec&& rec, const BaseReach& reach) {
  std::vector<Met> state(start, Met::New);
  if (start) state[0] = Met::Yes;  // void
  // The ids a reference type refers to, by value or not.
  auto for_targets = [&](const uint32_t* r, auto&& fn) {
    switch (kind_of(r)) {
      case Kind::Ptr: case Kind::Const: case Kind::Volatile: case Kind::Restrict: case Kind::Typedef:
      case Kind::TypeTag: case Kind::Func:
        fn(r[2]);
        return true;
      case Kind::Array:
        fn(r[3]);
        fn(r[4]);
        return true;
      case Kind::FuncProto:
        fn(r[2]);
        for (uint32_t i = 0, n = vlen_of(r); i < n; ++i) fn(r[4 + 2 * i]);
        return true;
      default:
        return false;
    }
  };
  auto named_out = [&](const uint32_t* r) { return r[0] && !reach.has_name(r[0]) && libbpf_indexes(kind_of(r)); };
  std::vector<std::pair<uint32_t, bool>> stack;  // id, its targets pushed
  for (uint32_t root = 1; root < start; ++root) {
    if (state[root] != Met::New) continue;
    stack.push_back({root, false});
    while (!stack.empty()) {
      auto [id, expanded] = stack.back();
      const uint32_t* r = rec(id);
      if (!expanded) {
        if (state[id] != Met::New) {
          stack.pop_back();
          continue;
        }
        if (reach.has_id(id)) {
          state[id] = Met::Yes;
          stack.pop_back();
          continue;
        }
        if (named_out(r)) {
          state[id] = Met::No;
          stack.pop_back();
          continue;
        }
        // Most types are decided here: no references, or only to types
        // decided already (most point back); the others are walked.
        bool decided = true, met = true;
        if (!for_targets(r, [&](uint32_t t) {
              if (t >= start) return;
              if (state[t] == Met::New || state[t] == Met::Open) decided = false;
              else met &= state[t] == Met::Yes;
            })) {
          state[id] = Met::Yes;
          stack.pop_back();
          continue;
        }
        if (decided) {
          state[id] = met ? Met::Yes : Met::No;
          stack.pop_back();
          continue;
        }
        state[id] = Met::Open;
        stack.back().second = true;
        for_targets(r, [&](uint32_t t) {
          if (t < start && state[t] == Met::New) stack.push_back({t, false});
        });
        continue;
      }
      bool all_met = true;  // an Open target is a loop: met
      for_targets(r, [&](uint32_t t) { all_met &= t >= start || state[t] != Met::No; });
      state[id] = all_met ? Met::Yes : Met::No;
      stack.pop_back();
    }
  }
  return state;
}

// Adds the base types [1, start) to a fresh index: they are canonical as
// they are, and candidates for new types. With `reach`, the types
// base_types_met() finds no new type can meet are left out, and the
// others keep libbpf's order (add_left_out).
template <typename Rec>
void index_base(uint32_t start, Rec&& rec, CandidateIndex& index, const BaseReach* reach = nullptr) {
  // Signatures first, in parallel chunks of ids (a base is read once, in
  // order); then the adds, in id order (that order is libbpf's chain
  // order), each loading ahead what a later add will touch: the index of
  // a 100k-type base is megabytes, and an add otherwise waits for its
  // slot and then for the node at the front of its chain (a single small
  // module's dedup waits for this index).
  struct Entry {
    uint32_t tag, id, aux;  // id 0: not indexed (VAR, DATASEC: aux 0) or left out (aux 1)
  };
  UninitVector<Entry> entries(start > 0 ? start - 1 : 0);
  const std::vector<Met> met = reach ? base_types_met(start, rec, *reach) : std::vector<Met>();
  parallel_for_ranges(1, start, 1 << 14, [&](size_t lo, size_t hi) {
    for (uint32_t id = static_cast<uint32_t>(lo); id < hi; ++id) {
      const uint32_t* r = rec(id);
      if (reach && met[id] == Met::No && libbpf_indexes(kind_of(r))) {
        entries[id - 1] = {0, 0, 1};
        continue;
      }
      uint64_t h;
      switch (kind_of(r)) {
        case Kind::Var: case Kind::Datasec: entries[id - 1] = {0, 0, 0}; continue;
        case Kind::Const: case Kind::Volatile: case Kind::Restrict: case Kind::Ptr: case Kind::Fwd:
        case Kind::Typedef: case Kind::Func: case Kind::Float: case Kind::TypeTag:
          h = hash_common(r);
          break;
        case Kind::Int: case Kind::DeclTag: h = hash_int_tag(r); break;
        case Kind::Enum: case Kind::Enum64: h = hash_enum(r); break;
        case Kind::Struct: case Kind::Union: h = hash_struct(r); break;
        case Kind::Array: h = hash_array(r); break;
        case Kind::FuncProto: h = hash_fnproto(r); break;
        default: throw Error("BTF dedup: type [" + std::to_string(id) + "]: unknown kind in the base");
      }
      entries[id - 1] = {sig_tag(h), id, enum_summary(r)};
    }
  });
  constexpr size_t kAhead = 16;
  const size_t n = entries.size();
  const auto adds = std::count_if(entries.begin(), entries.end(), [](const Entry& e) { return e.id != 0; });
  index.reserve(static_cast<size_t>(adds));
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) index.prefetch(entries[i + kAhead].tag);
    if (i + kAhead / 2 < n) index.prefetch_front(entries[i + kAhead / 2].tag);
    if (entries[i].id) index.add(entries[i].tag, entries[i].id, entries[i].aux);
    else if (entries[i].aux) index.add_left_out();
  }
}

// Name offset -> the one canonical STRUCT/UNION with that name, or 0 when
// several have it (pass 4).
class UniqueNames {
  struct Slot {
    uint32_t first, second;  // name_off (kNoName: empty), id (0: several)
  };

 public:
  explicit UniqueNames(size_t expected) {
    size_t cap = 64;
    while (cap < expected * 2) cap *= 2;
    slots_.assign(cap, {kNoName, 0});
  }
  void add(uint32_t name, uint32_t id) {
    auto& s = slot(name);
    if (s.first == kNoName) s = {name, id};
    else s.second = 0;
  }
  // As CandidateIndex::save/restore, for names of ids below `end_id`.
  void save(FlatWriter& out) const { out.array(std::span<const Slot>(slots_)); }
  static std::optional<UniqueNames> restore(FlatReader& in, uint32_t end_id) {
    UniqueNames x(0);
    if (!in.array(x.slots_, uint64_t{1} << 32)) return std::nullopt;
    const size_t n = x.slots_.size();
    if (n < 64 || (n & (n - 1))) return std::nullopt;
    size_t used = 0;
    for (auto [name, id] : x.slots_)
      if (name != kNoName) {
        if (id >= end_id) return std::nullopt;
        ++used;
      }
    if (used * 2 > n) return std::nullopt;  // find() needs an empty slot to stop at
    return x;
  }

  // nullopt: no such name; 0: several types have it.
  std::optional<uint32_t> find(uint32_t name) const {
    const auto& s = slots_[find_slot(name)];
    if (s.first == kNoName) return std::nullopt;
    return s.second;
  }

 private:
  size_t find_slot(uint32_t name) const {
    size_t mask = slots_.size() - 1;
    for (size_t i = mix(0, name) & mask;; i = (i + 1) & mask)
      if (slots_[i].first == kNoName || slots_[i].first == name) return i;
  }
  Slot& slot(uint32_t name) { return slots_[find_slot(name)]; }
  std::vector<Slot> slots_;
};

}  // namespace btfc::btf::dedup_index
