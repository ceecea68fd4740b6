// BTF deduplication (see dedup.h for the algorithm and a worked example).
//
// Built for speed on ~1M-type inputs: every per-type state is a flat array
// indexed by type id (filled in parallel, never zeroed first); candidate
// lookup is one open-addressing table of 32-bit signature tags whose ids
// are chained through a list of the added ids only (in the order libbpf's
// hash map would yield them: dedup_index.h, with the signatures and the
// equality of single records); records are compared word by word in place.
// Signatures of primitive types are computed in parallel once names are
// final (a struct's when it is looked up: most never are), and the string
// pass looks every name up in parallel, only adding the new ones in order.
// The type passes themselves are sequential: which type is canonical
// depends on the order of decisions, and that order is what makes the
// result equal to libbpf's.
#include "btf/dedup.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>

// XXH3 inline: the string pass hashes millions of short names, and a call
// through the shared library's PLT per name cost more than the hash. The
// same function as StringTable::hash, so the base's index finds them.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base/deep_stack.h"
#include "base/flat_bytes.h"
#include "base/parallel.h"
#include "base/prefault.h"
#include "base/timer.h"
#include "base/trace.h"
#include "base/uninit_vector.h"
#include "btf/dedup_index.h"

namespace btfc::btf {

using namespace dedup_index;  // NOLINT: the passes below are its only users

namespace {

constexpr uint32_t MAX_ID = 0x7fffffff;         // libbpf's BTF_MAX_NR_TYPES
constexpr uint32_t UNPROCESSED = 0xffffffff;
constexpr uint32_t IN_PROGRESS = 0xfffffffe;
// dedup_strings: NEW_NAME + k stands for the k-th distinct name a chunk of
// the string pass found missing from the base (below IN_PROGRESS).
constexpr uint32_t NEW_NAME = 0x80000000;
const uint32_t VOID_RECORD[3] = {0, 0, 0};

// Per-id arrays are filled in parallel right after they are sized: zeroing
// them first would be a serial pass over fresh pages (a big module's dedup
// allocates tens of MB of them).
template <typename T>
using IdArray = UninitVector<T>;

// Ids per task of the parallel per-id passes.
constexpr uint32_t kIdChunk = 1 << 16;

// A name the string pass found in neither the base nor earlier records.
struct NewName {
  std::string_view s;
  uint64_t h;
};

// Names one chunk of dedup's string pass has met, with a number for each
// (the caller's index of what it resolved to): a module's units repeat
// their names many times, and this table stays in cache where the base's
// does not.
class ChunkNames {
 public:
  ChunkNames() : slots_(1024) {}
  std::optional<uint32_t> find(std::string_view s, uint64_t h) const {
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (!slot.text) return std::nullopt;
      if (slot.tag == tag_of(h) && slot.len == s.size() && std::memcmp(slot.text, s.data(), s.size()) == 0)
        return slot.result;
    }
  }
  // `s` (not in the table yet) must stay where it is while the table lives.
  void add(std::string_view s, uint64_t h, uint32_t result) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    insert({s.data(), static_cast<uint32_t>(s.size()), tag_of(h), result}, h);
    ++count_;
  }

 private:
  struct Slot {
    const char* text = nullptr;  // nullptr = empty
    uint32_t len = 0;
    uint32_t tag = 0;  // the hash's high half
    uint32_t result = 0;
  };
  static uint32_t tag_of(uint64_t h) { return static_cast<uint32_t>(h >> 32); }
  void insert(const Slot& s, uint64_t h) {
    size_t mask = slots_.size() - 1;
    size_t i = h & mask;
    while (slots_[i].text) i = (i + 1) & mask;
    slots_[i] = s;
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.size() * 2, Slot{});
    for (const Slot& s : old)
      if (s.text) insert(s, StringTable::hash(std::string_view(s.text, s.len)));
  }
  std::vector<Slot> slots_;
  size_t count_ = 0;
};

// The per-id arrays of a dedup on a prepared base, kept by the DedupBase
// and reused. Batch mode deduplicates thousands of modules on one base:
// filling the base's part of these arrays (100k ids) and copying its
// candidate index for every module was most of a small module's dedup. A
// run leaves the base's part as it found it (its few changes are undone),
// so the next run on that base starts from it.
struct Scratch {
  bool base_ready = false;   // [0, base end) of kind, map, hypot (and all of rec) is as index_records() fills it
  IdArray<const uint32_t*> rec;  // base ids only
  IdArray<Kind> kind;
  IdArray<uint32_t> map, hypot;
  std::optional<CandidateIndex> index;  // a working copy of the base's index
  bool index_ready = false;  // `index` equals the base's
};

}  // namespace

struct DedupBase::Impl {
  const Btf& base;
  mutable CandidateIndex index;     // moved out by a last_use dedup
  mutable bool index_taken = false;
  bool index_per_table = false;     // `index` unused: each dedup builds its own (IndexPerTable)
  UniqueNames composites;  // base STRUCT/UNIONs by name (they are all canonical)
  // Scratches not in use: as many as dedups ran at once.
  mutable std::mutex mutex;
  mutable std::vector<std::unique_ptr<Scratch>> scratches;

  std::unique_ptr<Scratch> take() const {
    std::lock_guard<std::mutex> lock(mutex);
    if (scratches.empty()) return std::make_unique<Scratch>();
    std::unique_ptr<Scratch> s = std::move(scratches.back());
    scratches.pop_back();
    return s;
  }
  void give_back(std::unique_ptr<Scratch> s) const {
    std::lock_guard<std::mutex> lock(mutex);
    scratches.push_back(std::move(s));
  }
};

namespace {

UniqueNames composites_of(const Btf& base) {
  // Sized by the composites (a tenth of vmlinux's ids), not by every id:
  // a single module's process fills and faults in this table.
  std::vector<std::pair<uint32_t, uint32_t>> found;  // name_off, id
  for (uint32_t id = 1; id < base.end_id(); ++id) {
    const uint32_t* r = base.record(id);
    if (is_composite(kind_of(r))) found.emplace_back(r[0], id);
  }
  UniqueNames composites(found.size());
  for (auto [name, id] : found) composites.add(name, id);
  return composites;
}

}  // namespace

// The two indexes read the base and nothing else: built side by side (a
// single module's dedup waits for them). The candidate index is sized for
// every base type at once rather than grown to it (the order of its chains
// does not depend on its size): no rehashing on the way.
DedupBase::DedupBase(const Btf& base)
    : impl_(new Impl{base, CandidateIndex(base.end_id()), false, false, UniqueNames(0), {}, {}}) {
  parallel_for(2, [&](size_t k) {
    if (k == 0) index_base(base.end_id(), [&](uint32_t id) { return base.record(id); }, impl_->index);
    else impl_->composites = composites_of(base);
  });
}
DedupBase::DedupBase(const Btf& base, IndexPerTable)
    : impl_(new Impl{base, CandidateIndex(0), false, true, composites_of(base), {}, {}}) {}

std::vector<uint8_t> DedupBase::save() const {
  if (impl_->index_taken) throw Error("internal: DedupBase::save after a last_use dedup took its index");
  if (impl_->index_per_table) throw Error("internal: DedupBase::save of a base without its index");
  std::vector<uint8_t> out;
  FlatWriter w(out);
  impl_->index.save(w);
  impl_->composites.save(w);
  return out;
}

DedupBase::DedupBase(const Btf& base, FlatReader& in) {
  std::optional<CandidateIndex> index = CandidateIndex::restore(in, base.end_id());
  std::optional<UniqueNames> composites = index ? UniqueNames::restore(in, base.end_id()) : std::nullopt;
  if (!composites || !in.done()) throw Error("saved dedup index does not fit the base");
  impl_.reset(new Impl{base, std::move(*index), false, false, std::move(*composites), {}, {}});
}

DedupBase::~DedupBase() = default;
const Btf& DedupBase::base() const { return impl_->base; }

namespace {

class Deduper {
  // The type passes, each with a list of the own ids it handles.
  enum Pass { kPrims, kStructs, kRefs, kPasses };
  using PassLists = std::array<std::vector<uint32_t>, kPasses>;
  // The pass a kind is listed for; kPasses for none (VAR and DATASEC are
  // never deduplicated: their map entry is their own id).
  static Pass pass_of(Kind k) {
    switch (k) {
      case Kind::Int: case Kind::Enum: case Kind::Enum64: case Kind::Fwd: case Kind::Float: return kPrims;
      case Kind::Struct: case Kind::Union: return kStructs;
      case Kind::Var: case Kind::Datasec: return kPasses;
      default: return kRefs;  // and any kind dedup_reference() rejects
    }
  }

 public:
  Deduper(Btf& btf, const DedupOptions& options)
      : btf_(btf), compat_(options.compat), last_use_(options.last_use),
        own_name_words_(btf.base() || btf.shared_strings().empty() ? nullptr : options.own_name_words),
        start_(btf.start_id()), end_(btf.end_id()),
        prepared_(prepared_for(btf, options)),
        scratch_(prepared_ ? prepared_->take() : std::make_unique<Scratch>()),
        rec_(scratch_->rec), kind_(scratch_->kind), map_(scratch_->map), hypot_(scratch_->hypot),
        own_words_(btf.words().data()), own_offsets_(btf.offsets().data()),
        hypot_list_(end_), merge_list_(end_), report_(options.report) {
    const std::span<const TypeId> st = options.stages;
    if (st.size() >= 2 && st.front() == start_ && st.back() < end_ &&
        std::adjacent_find(st.begin(), st.end(), std::greater_equal<>()) == st.end())
      stages_.assign(st.begin(), st.end());
  }
  ~Deduper() {
    if (prepared_) prepared_->give_back(std::move(scratch_));
  }

  void run(std::vector<TypeId>* id_map) {
    // Every pass below reads records through rec_; own records are edited
    // in place (the word buffer does not move during dedup). Base types
    // (split BTF) are canonical as they are and candidates for new ones.
    // A prepared base's index is copied beside the per-id arrays' filling
    // (a single small module waits for both); an index built here reads
    // the records those arrays point to.
    timed("dedup.prepare", [&] {
      if (prepared_) parallel_for(2, [&](size_t k) { k == 0 ? index_records() : prepare_base(); });
      else index_records(), prepare_base();
    });
    // 1. One copy of each referenced string, in order of first reference.
    // 2. INT, FLOAT, FWD, ENUM, ENUM64: exact matches; enum forwards meet
    //    their full enums. Pass 2 follows pass 1 chunk by chunk, as the
    //    names of a chunk become final (see dedup_strings).
    // 3. STRUCT/UNION: type-graph equivalence, resolving FWDs on the way.
    //    Passes 2 and 3 follow pass 1 stage by stage when the table comes
    //    in stages (see run_staged).
    const StringTable& old = btf_.strings();
    if (!btf_.base() && btf_.shared_strings().empty() && old.unique() &&
        timed("dedup.strings", [&] { return dedup_unique_strings(); })) {
      timed("dedup.prims", [&] { prims_pass(start_, end_); });
      timed("dedup.structs", [&] { structs_pass(start_, end_); });
    } else if (own_name_words_) {
      timed("dedup.strings", [&] { dedup_own_strings(); });
      timed("dedup.prims", [&] { prims_pass(start_, end_); });
      timed("dedup.structs", [&] { structs_pass(start_, end_); });
    } else if (!stages_.empty()) {
      timed("dedup.strings+prims+structs", [&] { run_staged(); });
    } else {
      timed("dedup.strings+prims", [&] { dedup_strings(); });
      timed("dedup.structs", [&] { structs_pass(start_, end_); });
    }
    // 4. FWDs left over go to the only STRUCT/UNION with their name.
    timed("dedup.fwds", [&] { resolve_fwds_by_name(); });
    // 5. Reference types, depth first, now that their targets are final.
    timed("dedup.refs", [&] {
      start_follows();
      for_listed(kRefs, [&](uint32_t id) { return !is_mapped(id); }, [&](uint32_t id) { dedup_reference(id); });
      clear_hypot();  // the follows
    });
    // 6 and 7. Canonical types get dense new ids; every reference follows.
    timed("dedup.compact", [&] { compact_and_remap(id_map); });
    restore_base();
  }

 private:
  // Pass 3 on the own ids [lo, hi). Most structs are mapped by an earlier
  // comparison before their turn comes (amdgpu.ko: 426k of 471k), so a
  // struct's signature is computed when it is looked up, not beforehand
  // for all.
  void structs_pass(uint32_t lo, uint32_t hi) {
    RecordStream ahead(btf_, lo);
    for_listed(kStructs, [&](uint32_t id) { return !is_mapped(id); }, [&](uint32_t id) {
      ahead.prefetch_until(id + kStructAhead);
      dedup_struct(id);
    }, lo, hi);
  }

  // Passes 1-3 for a table in stages (DedupOptions::stages), a stage's
  // struct pass as soon as the primitive pass has seen every id it may
  // depend on, while the other threads name the chunks ahead. libbpf's
  // order is every primitive, then every struct; here a stage's structs
  // come before later stages' primitives, which gives the same result as
  // long as no primitive touches what an earlier stage's structs met and
  // the candidate index does not double in between:
  //  - a stage's types refer only to the base and to the stage, so its
  //    comparisons meet nothing of a later stage. A primitive changes the
  //    map of no other type but an enum forward that its full enum
  //    resolves: a stage that may meet such a forward waits for the
  //    primitives that decide what it resolves to (see
  //    hold_for_enum_forwards), and conflict_ tells if one got through;
  //  - primitives never match structs, nor structs primitives, so the
  //    other order of their additions to the index changes no lookup
  //    unless a doubling reverses the chains in between (a module on
  //    vmlinux starts with the base's 101k types in a table that doubles
  //    at 196k).
  // Otherwise passes 2 and 3 run again on the whole table, as libbpf
  // orders them (pass 1's result stands). The struct passes stay on this
  // thread, whose stack is sized for their recursion.
  void run_staged() {
    const size_t n = stages_.size();
    // Before pass 1 changes the names: which stages wait for which.
    std::vector<uint32_t> need(n);
    for (size_t k = 0; k < n; ++k) need[k] = stage_end(k);
    hold_for_enum_forwards(need);
    const uint32_t doublings = index_->doublings();
    NameChunks names(*this);
    std::atomic<bool> failed{false};
    size_t primed = 0;  // chunks through pass 2
    size_t structs_done = 0;  // stages through pass 3
    auto primed_end = [&] { return std::min<uint64_t>(end_, start_ + uint64_t{kNameChunk} * primed); };
    std::exception_ptr passes_2_3_error;
    run_beside([&] {
      try {
        while (structs_done < n && !failed.load()) {
          if (primed < names.finished.load()) {
            // A canonical enum forward resolved below this is one a
            // finished stage may have met.
            conflict_below_ = structs_done ? stages_[structs_done] : 0;
            const uint32_t lo = start_ + static_cast<uint32_t>(primed) * kNameChunk;
            prims_pass(lo, std::min(end_, lo + kNameChunk));
            for (auto [fwd, was] : touched_) conflict_ |= resolve(fwd) != was;
            touched_.clear();
            ++primed;
          } else if (primed_end() >= need[structs_done]) {
            limit_ = stage_end(structs_done);
            structs_pass(stages_[structs_done], stage_end(structs_done));
            ++structs_done;
          } else if (!names.resolve_next_keeping_error(failed)) {
            // Every chunk is taken: wait for the others to name theirs.
            names.finish_ready(false);  // any they left
            names.wait_past(primed, failed);
          }
        }
      } catch (...) {
        passes_2_3_error = std::current_exception();
        failed.store(true);
      }
    }, jobs() > 1 ? jobs() - 1 : 0, [&](size_t) {
      while (names.resolve_next_keeping_error(failed)) {
      }
    });
    // Errors come in libbpf's order: pass 1's first, then the others'.
    if (passes_2_3_error)
      while (names.resolve_next_keeping_error(failed)) {
      }
    names.errors.rethrow();
    if (passes_2_3_error) std::rethrow_exception(passes_2_3_error);
    conflict_below_ = 0;
    limit_ = end_;
    new_strings_ = std::move(names.strings);
    if (!conflict_ && index_->doublings() == doublings) return;
    if (report_) report_->redone = true;
    restart_type_passes();
    prims_pass(start_, end_);
    structs_pass(start_, end_);
  }

  // The id after the last of stage k.
  uint32_t stage_end(size_t k) const { return k + 1 < stages_.size() ? stages_[k + 1] : end_; }

  // For run_staged: a stage whose structs may meet an enum forward (of
  // the base, or of its own or an earlier stage) waits for the primitive
  // pass of the stage holding the first full enum of the same name, which
  // resolves the forward, or of the last one if they are not all alike:
  // each full enum unlike the one before resolves the forward again.
  // (conflict_ tells if that was not all.)
  void hold_for_enum_forwards(std::vector<uint32_t>& need) {
    std::unordered_map<std::string_view, uint32_t> forwards;  // name -> the first stage that may meet it
    for (uint32_t id = 1; id < start_; ++id)
      if (is_enum_fwd(rec(id))) forwards.emplace(btf_.str(rec(id)[0]), 0);
    auto stage_of = [&](uint32_t id) {
      return static_cast<size_t>(std::upper_bound(stages_.begin(), stages_.end(), id) - stages_.begin() - 1);
    };
    // The own enums, per chunk of ids, on every thread: each record and
    // each name read is a cache miss of its own (amdgpu.ko: 150k prims,
    // 80k full enums, 5 forward names; 13 ms on one thread).
    struct Enums {
      std::vector<uint32_t> forwards, full;  // own enums without and with values
    };
    std::vector<Enums> enums(listed_.size());
    parallel_for(listed_.size(), [&](size_t c) {
      for (uint32_t id : listed_[c][kPrims]) {
        const uint32_t* r = rec(id);
        Kind k = kind_of(r);
        if (k == Kind::Enum || k == Kind::Enum64) (vlen_of(r) == 0 ? enums[c].forwards : enums[c].full).push_back(id);
      }
    });
    for (const Enums& e : enums)
      for (uint32_t id : e.forwards) forwards.emplace(btf_.str(rec(id)[0]), static_cast<uint32_t>(stage_of(id)));
    if (forwards.empty()) return;
    // The full enums with a forward's name, in id order.
    parallel_for(enums.size(), [&](size_t c) {
      std::erase_if(enums[c].full, [&](uint32_t id) { return !forwards.contains(btf_.str(rec(id)[0])); });
    });
    // Names still go by the offsets of before pass 1: compared as text.
    auto alike = [&](const uint32_t* a, const uint32_t* b) {
      if (a[1] != b[1] || a[2] != b[2]) return false;
      const size_t step = kind_of(a) == Kind::Enum64 ? 3 : 2;
      for (size_t w = 3, end = 3 + step * vlen_of(a); w < end; w += step)
        if (btf_.str(a[w]) != btf_.str(b[w]) || std::memcmp(a + w + 1, b + w + 1, 4 * (step - 1)) != 0) return false;
      return true;
    };
    struct Fulls {
      uint32_t first, last;
      bool all_alike = true;
    };
    std::unordered_map<std::string_view, Fulls> by_name;
    for (const Enums& e : enums)
      for (uint32_t id : e.full) {
        auto [it, added] = by_name.try_emplace(btf_.str(rec(id)[0]), Fulls{id, id});
        if (added) continue;
        it->second.all_alike = it->second.all_alike && alike(rec(it->second.first), rec(id));
        it->second.last = id;
      }
    for (const auto& [name, f] : by_name) {
      const size_t s = stage_of(f.all_alike ? f.first : f.last);
      for (size_t k = forwards[name]; k < s; ++k) need[k] = std::max(need[k], stage_end(s));
    }
  }

  // Puts the maps, the comparisons' state and the candidate index back as
  // they were before pass 2 (the table's strings stay final).
  void restart_type_passes() {
    clear_hypot();
    for (uint32_t id : base_map_log_) map_[id] = id;
    base_map_log_.clear();
    for_id_chunks([&](uint32_t lo, uint32_t hi) {
      for (uint32_t id = lo; id < hi; ++id) {
        map_[id] = pass_of(kind_[id]) == kPasses ? id : UNPROCESSED;
      }
    });
    conflict_ = false;
    if (!prepared_ || prepared_->index_per_table) {
      index_base_here();
      return;
    }
    if (!index_->rollback()) {
      // The slot table grew: the base's index again, as the base sized it.
      scratch_->index.emplace(start_);
      index_base(start_, [&](uint32_t id) { return rec(id); }, *scratch_->index);
    }
    index_ = &*scratch_->index;
    index_->begin_journal();
  }

  // Calls fn(id) for every own id of the pass's kinds, in id order, from
  // the lists index_records() made (a serial pass then never looks at the
  // other ids: amdgpu.ko's prims are 150k of 1.8M). Their records lie
  // sparse in the table's words: the hardware does not see them coming, so
  // the record of the id kAhead places on is prefetched if the pass still
  // wants it, and for the prims, whose signatures compute_signatures()
  // left beside their list, the slot of the candidate index its signature
  // leads to (the index of a module on vmlinux is megabytes); fn(id, sig)
  // gets that signature. (Only those in [lo, hi) when given.)
  template <typename Wants, typename Fn>
  void for_listed(Pass pass, Wants&& wants, Fn&& fn, uint32_t lo = 0, uint32_t hi = UINT32_MAX) {
    constexpr size_t kAhead = 32;
    lo = std::max(lo, start_);
    hi = std::min(hi, end_);
    if (lo >= hi) return;
    for (size_t c = (lo - start_) / kIdChunk, last = (hi - 1 - start_) / kIdChunk; c <= last; ++c) {
      const std::vector<uint32_t>& all = listed_[c][pass];
      std::span<const uint32_t> ids(std::lower_bound(all.begin(), all.end(), lo), all.end());
      ids = ids.first(static_cast<size_t>(std::lower_bound(ids.begin(), ids.end(), hi) - ids.begin()));
      // The prims' signatures, by place in their list.
      const uint32_t* sigs = pass == kPrims ? prim_sigs_[c].data() + (ids.data() - all.data()) : nullptr;
      for (size_t i = 0; i < ids.size(); ++i) {
        if (i + kAhead < ids.size()) {
          uint32_t ahead = ids[i + kAhead];
          if (wants(ahead)) {
            __builtin_prefetch(rec(ahead));
            if (sigs) index_->prefetch(sigs[i + kAhead]);  // its candidates' slot
          }
        }
        if constexpr (std::is_invocable_v<Fn, uint32_t, uint32_t>) fn(ids[i], sigs[i]);
        else fn(ids[i]);
      }
    }
  }

  // The struct pass compares a struct through its whole type graph, whose
  // records lie among the ids around it (its unit's) but are met in graph
  // order, each a cache miss of its own: the words have not been read
  // since the string pass. So the words of the next kStructAhead ids are
  // prefetched in address order as the pass moves on, and come in at
  // streaming speed. amdgpu.ko, dedup repeated in one process at -j1
  // (median of 30): struct pass 0.203 -> 0.150 s; 1024 ids ahead gain
  // less, 4096 no more, 32768 nothing (evicted before use). The other
  // passes read their records in order already (pass 5 got slower).
  static constexpr uint32_t kStructAhead = 2048;
  class RecordStream {
   public:
    // From own id `from` on.
    RecordStream(const Btf& btf, uint32_t from)
        : words_(btf.words()), offsets_(btf.offsets()), start_(btf.start_id()), next_(from) {}
    // Prefetches the words of the own ids in [next, until). (A table's
    // records lie in id order: every way of building one appends them.)
    void prefetch_until(uint32_t until) {
      const uint32_t end = start_ + static_cast<uint32_t>(offsets_.size());
      until = std::min(until, end);
      if (until <= next_) return;
      const uint32_t* from = words_.data() + offsets_[next_ - start_];
      const uint32_t* to = until < end ? words_.data() + offsets_[until - start_] : words_.data() + words_.size();
      next_ = until;
      constexpr uintptr_t kLine = 64;
      for (uintptr_t p = reinterpret_cast<uintptr_t>(from) & ~(kLine - 1); p < reinterpret_cast<uintptr_t>(to); p += kLine)
        __builtin_prefetch(reinterpret_cast<const void*>(p));
    }

   private:
    std::span<const uint32_t> words_;
    std::span<const uint32_t> offsets_;
    uint32_t start_, next_;
  };

  template <typename Fn>
  static std::invoke_result_t<Fn> timed(const char* phase, Fn&& fn) {
    PhaseTimer t(phase);
    return fn();
  }

  // ---- record access and canonical map ----
  // Base ids through a pointer each, own ids through the table's offsets
  // (4 bytes per id, already there): a pointer per own id too was 8 bytes
  // of fresh memory per type (amdgpu.ko: 14 MB), which costs more than
  // choosing the table here (own words do not move during dedup).
  const uint32_t* rec(uint32_t id) const {
    return id >= start_ ? own_words_ + own_offsets_[id - start_] : rec_[id];
  }
  uint32_t* own(uint32_t id) { return btf_.mutable_record(id); }
  // From a byte per id: the kind is asked for far more often than the
  // record, and a byte array stays in cache.
  Kind kind(uint32_t id) const { return kind_[id]; }
  bool is_mapped(uint32_t id) const { return map_[id] <= MAX_ID; }
  // Follows the canonical chain (a FWD resolved to a struct that was itself
  // found to be a duplicate, ...).
  uint32_t resolve(uint32_t id) const {
    for (;;) {
      uint32_t to = map_[id];
      if (to > MAX_ID || to == id) return id;
      id = to;
    }
  }
  uint32_t resolve_fwd(uint32_t id) const {
    if (kind(id) != Kind::Fwd) return id;
    uint32_t r = resolve(id);
    return kind(r) == Kind::Fwd ? id : r;
  }
  [[noreturn, gnu::cold, gnu::noinline]] void fail_past_limit(uint32_t id) const {
    if (id >= end_) fail(id, "past the last type");
    fail(id, "internal: a type of a later stage met in a struct comparison");
  }
  [[noreturn]] void fail(uint32_t id, const std::string& what) const {
    throw Error("BTF dedup: type [" + std::to_string(id) + "]: " + what);
  }

  static const DedupBase::Impl* prepared_for(const Btf& btf, const DedupOptions& options) {
    const DedupBase* p = options.prepared_base;
    return p && &p->impl().base == btf.base() ? &p->impl() : nullptr;
  }

  // Base ids [0, start_) are canonical as they are: rec_, kind_ and an
  // identity map_, kept from the last run on the same prepared base.
  void index_records() {
    bool ready = scratch_->base_ready;
    scratch_->base_ready = false;  // until this run ends well
    rec_.resize(start_);
    kind_.resize(end_);
    map_.resize(end_);
    hypot_.resize(end_);
    if (!ready) {
      rec_[0] = VOID_RECORD;
      kind_[0] = Kind::Unknown;
      map_[0] = 0;
      hypot_[0] = UNPROCESSED;
      // The base's part (a 100k-type vmlinux for a module): fresh pages,
      // faulted in at once (a single module waits for them), then filled
      // in chunks.
      prefault(rec_.data(), start_ * sizeof(rec_[0]));
      prefault(kind_.data(), start_ * sizeof(kind_[0]));
      prefault(map_.data(), start_ * sizeof(map_[0]));
      prefault(hypot_.data(), start_ * sizeof(hypot_[0]));
      // Through the table that holds each id (the base, or its base):
      // btf_.record() of a base id takes an out-of-line call per id.
      parallel_for_ranges(1, start_, kIdChunk, [&](size_t lo, size_t hi) {
        const Btf* table = &btf_.owner(static_cast<uint32_t>(lo));
        for (uint32_t id = static_cast<uint32_t>(lo); id < hi; ++id) {
          if (id >= table->end_id()) table = &btf_.owner(id);
          rec_[id] = table->record(id);
          kind_[id] = kind_of(rec_[id]);
          map_[id] = id;
          hypot_[id] = UNPROCESSED;
        }
      });
    }
    // Own ids: fresh pages for a big table, so filled in parallel.
    listed_.resize((end_ - start_ + kIdChunk - 1) / kIdChunk);
    // Each list at its size from the start (grown by doublings, a list
    // left up to twice its size in fresh memory behind), and the prims'
    // signatures beside theirs, written by compute_signatures() where
    // read: per prim rather than per id (a tenth of them; amdgpu.ko: 7 MB
    // -> 0.6 MB of fresh memory).
    prim_sigs_.resize(listed_.size());
    for_id_chunks([&](uint32_t lo, uint32_t hi) {
      const size_t c = (lo - start_) / kIdChunk;
      PassLists& lists = listed_[c];
      std::array<size_t, kPasses + 1> count{};
      for (uint32_t id = lo; id < hi; ++id) {
        Kind k = kind_of(rec(id));
        kind_[id] = k;
        const Pass p = pass_of(k);
        map_[id] = p == kPasses ? id : UNPROCESSED;
        hypot_[id] = UNPROCESSED;
        ++count[p];
      }
      for (size_t p = 0; p < kPasses; ++p) {
        lists[p].clear();
        lists[p].reserve(count[p]);
      }
      for (uint32_t id = lo; id < hi; ++id)
        if (Pass p = pass_of(kind_[id]); p != kPasses) lists[p].push_back(id);
      prim_sigs_[c].resize(count[kPrims]);
    });
  }

  void prepare_base() {
    if (prepared_ && !prepared_->index_per_table) {
      if (prepared_->index_taken) throw Error("internal: a DedupBase used after its last use");
      if (last_use_) {
        scratch_->index = std::move(prepared_->index);  // a copy of it costs a small module 1-2 ms
        prepared_->index_taken = true;
      } else if (!scratch_->index_ready) {
        scratch_->index = prepared_->index;
      }
      scratch_->index_ready = false;  // until rolled back
      index_ = &*scratch_->index;
      index_->begin_journal();
      return;
    }
    index_base_here();
  }

  // The base's part of an index of this dedup's own: without a prepared
  // base, or with one whose index is built per table (DedupBase::
  // IndexPerTable), then of the base types this table's own types can
  // meet (dedup_index::base_types_met). The index holds canonical types only, typically a
  // tenth of the input: it starts small and grows, so it stays in cache.
  void index_base_here() {
    index_ = &own_index_.emplace(1024);
    if (!prepared_) {
      index_base(start_, [&](uint32_t id) { return rec(id); }, *index_);
      return;
    }
    // A table with more types than its base gains nothing by the names.
    if (!base_reach_ && end_ - start_ < start_) base_reach_.emplace(base_reach_of_records());
    const Btf& base = prepared_->base;
    index_base(start_, [&](uint32_t id) { return base.record(id); }, *index_, base_reach_ ? &*base_reach_ : nullptr);
  }

  // What own records name of the base: the base offsets of their names
  // after pass 1 (each looked up in the base as resolve_names does), and
  // the base ids they refer to.
  BaseReach base_reach_of_records() const {
    const Btf& base = prepared_->base;
    BaseReach reach(base.end_str_off(), start_);
    const uint32_t start_off = btf_.start_str_off();
    for (uint32_t id = start_; id < end_; ++id) {
      visit_type_id_words(rec(id), [&](const uint32_t& t) {
        if (t != 0 && t < start_) reach.add_id(t);
      });
      const uint32_t off = rec(id)[0];
      if (off == 0) continue;
      if (off < start_off) {
        reach.add_name(off);  // a base string already
        continue;
      }
      const std::span<const char> bytes = name_bytes(off);
      if (bytes.empty()) continue;  // out of range: pass 1's error
      const std::string_view s = bytes.data();
      if (s.empty()) continue;
      if (std::optional<uint32_t> in_base = base.find_string(s, XXH3_64bits(s.data(), s.size()))) reach.add_name(*in_base);
    }
    return reach;
  }

  // The bytes from own name offset `off` (past the base's strings) to the
  // end of the region it lies in, before pass 1: the shared region or the
  // table's own strings, each ending with a NUL; empty past them.
  std::span<const char> name_bytes(uint32_t off) const {
    if (btf_.is_shared_str_off(off)) return btf_.shared_strings().subspan(off - Btf::SHARED_STR_BASE);
    const std::span<const char> own_bytes = btf_.strings().bytes();
    if (const uint32_t at = off - btf_.start_str_off(); at < own_bytes.size()) return own_bytes.subspan(at);
    return {};
  }

  // Puts the base's part of a prepared scratch back as index_records()
  // expects it, for the next run on the same base.
  void restore_base() {
    if (!prepared_) return;
    clear_hypot();
    for (uint32_t id : base_map_log_) map_[id] = id;
    scratch_->index_ready = !prepared_->index_per_table && index_->rollback();
    scratch_->base_ready = true;
  }

  // Every write to map_ goes here: a base id's entry changes only when a
  // base FWD resolves to a new struct, and is logged to be undone.
  void set_map(uint32_t id, uint32_t to) {
    if (id < start_ && map_[id] == id) base_map_log_.push_back(id);
    map_[id] = to;
  }

  // ---- pass 1 ----
  // Every string a record names gets its offset in the new table: the
  // base's when the base has it (split BTF, as libbpf), else that of its
  // one copy among the new strings, which are added in the order of first
  // reference (libbpf's order). An encoder's table names its strings where
  // they lie in the file (a shared .debug_str region of 75 MB for
  // amdgpu.ko, where most names are stored once per unit that has them),
  // so the pass works by text, not by offset:
  //  a. In parallel chunks of ids, in record order, each name is taken
  //     for the one that followed the name before it last time, when it
  //     is, else hashed and looked up in the chunk's table of names met,
  //     else in the base (resolve_names); a name in neither is the chunk's
  //     k-th new one, and its word becomes NEW_NAME + k. The units'
  //     strings lie in the order of their types, so the texts read stream
  //     through the cache.
  //  b. Chunk after chunk, in order, its new names are added to the new
  //     table: the order of first reference. Only this part depends on
  //     the order.
  //  c. The chunk's NEW_NAME + k become the k-th new name's offset.
  //  d. Pass 2 runs on the chunk's ids: their names are final, and so are
  //     those of every id before them.
  // b-d are serial, and are done by the thread whose chunk completes the
  // prefix of chunks resolved, while the others resolve the chunks after
  // it: amdgpu.ko at -j2, passes 1 and 2 took 0.19 + 0.03 s one after the
  // other, 0.18 s so (alternating medians of 11, dedup 0.50 -> 0.47 s).
  // Ids per chunk of a: each chunk looks its distinct names up in the
  // base once, so bigger than kIdChunk.
  static constexpr uint32_t kNameChunk = uint32_t{1} << 17;
  // Pass 1's chunks: a resolves them in order, any thread taking the next;
  // b-c (and d if asked) are done under the mutex by whichever thread
  // completes the prefix of chunks resolved.
  struct NameChunks {
    explicit NameChunks(Deduper& d)
        : d(d), chunks((d.end_ - d.start_ + kNameChunk - 1) / kNameChunk), fresh(chunks),
          resolved(new std::atomic<bool>[chunks]), strings(d.btf_.base() == nullptr) {
      if (d.btf_.start_str_off() >= NEW_NAME) d.fail(d.start_, "the base's strings are too big to be deduplicated");
      for (size_t c = 0; c < chunks; ++c) resolved[c] = false;
    }
    uint32_t lo(size_t c) const { return d.start_ + static_cast<uint32_t>(c) * kNameChunk; }
    uint32_t hi(size_t c) const { return std::min(d.end_, lo(c) + kNameChunk); }
    // a for chunk c, then b-d for what it completes.
    void resolve(size_t c, bool with_prims) {
      d.resolve_names(lo(c), hi(c), fresh[c]);
      resolved[c].store(true);
      finish_ready(with_prims);
    }
    // a-c for the next chunk nobody took; false when none is left. An
    // error is kept, not thrown, and `failed` set: of pass 1's errors the
    // first chunk's is reported, whichever thread met it, so the threads
    // go on naming the chunks after it.
    bool resolve_next_keeping_error(std::atomic<bool>& failed) {
      const size_t c = next.fetch_add(1);
      if (c >= chunks) return false;
      if (errors.run(c, [&] { resolve(c, false); })) {
        failed.store(true);
        progress.notify_all();
      }
      return true;
    }
    // b-d for every chunk whose turn has come, unless another thread is at
    // it (which then sees the chunks resolved meanwhile, mostly: finish_all
    // takes any left).
    void finish_ready(bool with_prims) {
      for (;;) {
        std::unique_lock lock(finishing, std::try_to_lock);
        if (!lock) return;
        size_t c = finished.load();
        for (; c < chunks && resolved[c].load(); ++c) {
          finish(c, with_prims);
          finished.store(c + 1);
        }
        lock.unlock();
        progress.notify_all();
        if (c == chunks || !resolved[c].load()) return;
      }
    }
    // Until more than `done` chunks are through b-d, or `failed` is set
    // (a wake-up lost to the race of a notify with the wait costs 1 ms).
    void wait_past(size_t done, const std::atomic<bool>& failed) {
      std::unique_lock lock(progress_mutex);
      progress.wait_for(lock, std::chrono::milliseconds(1), [&] { return finished.load() > done || failed.load(); });
    }
    // Once every chunk is resolved: b-d for the rest.
    void finish_all(bool with_prims) {
      std::lock_guard lock(finishing);
      for (size_t c = finished.load(); c < chunks; ++c) {
        finish(c, with_prims);
        finished.store(c + 1);
      }
    }
    void finish(size_t c, bool with_prims) {
      trace::Exclusive finishing_chunk("names");  // under `finishing`
      const uint32_t start_off = d.btf_.start_str_off();
      std::vector<uint32_t> final_off(fresh[c].size());
      for (size_t k = 0; k < fresh[c].size(); ++k) final_off[k] = start_off + strings.add(fresh[c][k].s, fresh[c][k].h);
      std::vector<NewName>().swap(fresh[c]);
      if (!final_off.empty())
        for (uint32_t id = lo(c); id < hi(c); ++id)
          visit_str_off_words(d.own(id), [&](uint32_t& off) {
            if (off >= NEW_NAME) off = final_off[off - NEW_NAME];
          });
      if (with_prims) d.prims_pass(lo(c), hi(c));
    }

    Deduper& d;
    const size_t chunks;
    std::vector<std::vector<NewName>> fresh;  // per chunk: the names a found new
    std::unique_ptr<std::atomic<bool>[]> resolved;
    std::atomic<size_t> next{0};      // the next chunk for a
    std::mutex finishing;             // held by the thread doing b-d
    std::atomic<size_t> finished{0};  // chunks [0, finished) are through b-d
    std::mutex progress_mutex;        // for waiting on `finished`
    std::condition_variable progress;
    StringTable strings;              // the new table
    FirstError errors;                // pass 1's, by chunk
  };
  void dedup_strings() {
    NameChunks names(*this);
    parallel_for_in_order(names.chunks, [&](size_t c) { names.resolve(c, true); });
    names.finish_all(true);  // any the loop left
    new_strings_ = std::move(names.strings);
  }

  // Pass 2 on the own ids [lo, hi), whose names are final. (Signatures of
  // primitive types depend only on names and sizes: computed in parallel.)
  void prims_pass(uint32_t lo, uint32_t hi) {
    compute_signatures(lo, hi);
    for_listed(kPrims, [](uint32_t) { return true; }, [&](uint32_t id, uint32_t sig) { dedup_primitive(id, sig); }, lo,
               hi);
  }

  // Pass 1 for a standalone table whose strings are each there once
  // (StringTable::unique(): vmlinux's final dedup, over the groups'
  // outputs appended through add()): an offset at the start of a string
  // already says which text it is, so no name is hashed. Each chunk lists
  // the offsets it names first, in record order; serially, the lists in
  // chunk order give the new table in order of first reference; in
  // parallel, every offset becomes its new one. False, with no word
  // changed, if the table does not qualify or a name starts elsewhere than
  // at a string (then the pass by text runs).
  bool dedup_unique_strings() {
    const StringTable& old = btf_.strings();
    if (btf_.base() || !btf_.shared_strings().empty() || !old.unique()) return false;
    const std::span<const char> bytes = old.bytes();
    const size_t chunks = (end_ - start_ + kNameChunk - 1) / kNameChunk;
    std::vector<std::vector<uint32_t>> first(chunks);
    std::vector<char> starts_ok(chunks, 1);
    for_id_chunks([&](uint32_t lo, uint32_t hi) {
      const size_t c = (lo - start_) / kNameChunk;
      std::vector<uint32_t>& mine = first[c];
      std::vector<bool> seen(bytes.size());
      for (uint32_t id = lo; id < hi && starts_ok[c]; ++id)
        visit_str_off_words(own(id), [&](uint32_t& off) {
          if (off == 0 || seen[off]) return;
          if (off >= bytes.size() || bytes[off - 1] != '\0') {
            starts_ok[c] = 0;
            return;
          }
          seen[off] = true;
          mine.push_back(off);
        });
    }, kNameChunk);
    if (std::find(starts_ok.begin(), starts_ok.end(), 0) != starts_ok.end()) return false;
    // Usually the table is in order of first reference already, with every
    // string named: add() built it from these very records, in this order.
    // It then stays as it is.
    auto in_order = [&] {
      uint32_t expect = 1;  // the next string's offset, after ""
      for (const std::vector<uint32_t>& v : first)
        for (uint32_t off : v) {
          if (off < expect) continue;  // named before (every start below expect was)
          if (off != expect) return false;
          expect += static_cast<uint32_t>(old.at(off).size()) + 1;
        }
      return expect == bytes.size();
    };
    if (in_order()) return strings_kept_ = true;
    // By old offset; only the entries of named offsets are ever read, and
    // they are cleared first (0: not added yet; "" stays 0).
    UninitVector<uint32_t> new_off(bytes.size());
    new_off[0] = 0;
    for (const std::vector<uint32_t>& v : first)
      for (uint32_t off : v) new_off[off] = 0;
    StringTable strings(true);
    {
      PhaseTimer t("dedup.strings.add");
      size_t count = 0;
      for (const std::vector<uint32_t>& v : first) count += v.size();
      strings.reserve(bytes.size(), count);
      for (const std::vector<uint32_t>& v : first)
        for (uint32_t off : v)
          if (!new_off[off]) new_off[off] = strings.add(old.at(off));
    }
    for_id_chunks([&](uint32_t lo, uint32_t hi) {
      for (uint32_t id = lo; id < hi; ++id)
        visit_str_off_words(own(id), [&](uint32_t& off) { off = new_off[off]; });
    }, kNameChunk);
    new_strings_ = std::move(strings);
    return true;
  }

  // Pass 1 with names by offset (DedupOptions::own_name_words): shared
  // offsets are names as they are, and only the listed words, those that
  // name an own string, get the offset of its one copy in the new table,
  // in order of first reference. No chunks: they are a few percent of the
  // names (the corpus vmlinux's groups: 0.6M of 8.4M).
  void dedup_own_strings() {
    const StringTable& old = btf_.strings();
    std::vector<uint32_t> new_off(old.size(), UINT32_MAX);  // by old offset
    StringTable strings(true);
    const size_t word_count = btf_.words().size();
    uint32_t* const words = end_ > start_ ? own(start_) - btf_.offsets()[0] : nullptr;  // word 0 of the table
    for (uint32_t w : *own_name_words_) {
      if (w >= word_count) fail(start_, "a listed name word past the last record");
      uint32_t& off = words[w];
      if (off >= old.size()) fail(start_, "a listed name word does not name an own string");
      if (new_off[off] == UINT32_MAX) new_off[off] = strings.add(old.at(off));  // "" stays 0
      off = new_off[off];
    }
    new_strings_ = std::move(strings);
  }

  // Pass 1a on the own ids [lo, hi); `fresh` gets the chunk's new names.
  //
  // Units that include the same headers name the same things in the same
  // order, each unit from its own copy of the text: after a name, the
  // next is most often the one that followed that name the last time
  // (amdgpu.ko: 91% of its 4.65M texts; vmlinux's groups, whose strings
  // the linker merged, 35%). So each distinct name remembers its last
  // follower, and a text is first compared with the follower of the name
  // before it: equal, it is that name, with no hashing and no lookup, and
  // not even measured (amdgpu.ko at -j1: samples in strlen, memcmp and
  // this function 845 -> 745, about 20 ms of CPU).
  // Otherwise it is hashed and looked up in the chunk's table of names
  // met (they repeat, and it stays in cache), then in the base.
  void resolve_names(uint32_t lo, uint32_t hi, std::vector<NewName>& fresh) {
    const uint32_t start_off = btf_.start_str_off();
    const Btf* base = btf_.base();
    constexpr uint32_t kNone = UINT32_MAX;
    // Every distinct name met: its text (the copy read last: in cache
    // when next compared), what it resolved to (a base offset or
    // NEW_NAME + k), and the name that followed it last time.
    struct Met {
      const char* text;
      uint32_t len;
      uint32_t result;
      uint32_t follow = kNone;
    };
    std::vector<Met> names;
    ChunkNames met;  // text -> index in names
    uint32_t prev = kNone;  // the name of the text before
    // Texts go through in batches of 32, each text prefetched when its
    // batch is filled (they are read in record order, not file order).
    constexpr size_t kBatch = 32;
    std::array<const char*, kBatch> texts;
    std::array<uint32_t*, kBatch> outs;   // the record's word
    std::array<uint32_t, kBatch> offs;    // its old offset
    std::array<size_t, kBatch> rooms;     // the bytes readable from the text on (name_bytes)
    size_t n = 0;
    // The last result for an offset, by a hash of the offset: where the
    // strings were merged (vmlinux), most names are named again and again
    // at one offset, and this skips reading and hashing them.
    // Sized by the chunk (a small module's table has few names), at most
    // 512 KB: bigger misses the cache as often as it hits.
    int cache_bits = 8;
    while (cache_bits < 16 && (uint32_t{1} << cache_bits) < hi - lo) ++cache_bits;
    struct Cached {
      uint32_t off = 0;  // 0: empty (offset 0 never gets here)
      uint32_t result = 0;
    };
    std::vector<Cached> cache(size_t{1} << cache_bits);
    auto cache_slot = [&](uint32_t off) -> Cached& { return cache[(off * 0x9e3779b1u) >> (32 - cache_bits)]; };
    // The name of text i, not the predicted one.
    auto look_up = [&](size_t i, size_t len) {
      std::string_view s(texts[i], len);
      uint64_t h = XXH3_64bits(s.data(), s.size());
      if (std::optional<uint32_t> seen = met.find(s, h)) return *seen;
      std::optional<uint32_t> in_base = base ? base->find_string(s, h) : std::nullopt;
      uint32_t result = in_base ? *in_base : NEW_NAME + static_cast<uint32_t>(fresh.size());
      if (!in_base) fresh.push_back({s, h});
      uint32_t k = static_cast<uint32_t>(names.size());
      names.push_back({s.data(), static_cast<uint32_t>(len), result});
      met.add(s, h, k);
      return k;
    };
    auto flush = [&] {
      for (size_t i = 0; i < n; i++) {
        // The predicted name, when it is this text, is known without
        // measuring the text: its bytes, then a NUL.
        uint32_t k = prev != kNone ? names[prev].follow : kNone;
        if (k != kNone) {
          const Met& p = names[k];
          if (!(p.len < rooms[i] && std::memcmp(p.text, texts[i], p.len) == 0 && texts[i][p.len] == '\0'))
            k = kNone;
        }
        if (k == kNone) {
          const size_t len = std::strlen(texts[i]);
          if (len == 0) {
            *outs[i] = 0;  // a "" elsewhere than at offset 0 (the shared region has many)
            cache_slot(offs[i]) = {offs[i], 0};
            continue;
          }
          k = look_up(i, len);
        }
        if (prev != kNone) names[prev].follow = k;
        Met& m = names[k];
        m.text = texts[i];
        *outs[i] = m.result;
        cache_slot(offs[i]) = {offs[i], m.result};
        prev = k;
      }
      n = 0;
    };
    for (uint32_t id = lo; id < hi; ++id)
      visit_str_off_words(own(id), [&](uint32_t& off) {
        if (off == 0 || off < start_off) return;  // "", or a base string already
        if (const Cached& c = cache_slot(off); c.off == off) {
          off = c.result;
          return;
        }
        std::span<const char> bytes = name_bytes(off);
        if (bytes.empty()) {
          const std::string_view text = btf_.str(off);  // throws: out of range
          bytes = {text.data(), text.size() + 1};
        }
        __builtin_prefetch(bytes.data());
        texts[n] = bytes.data();
        rooms[n] = bytes.size();
        offs[n] = off;
        outs[n++] = &off;
        if (n == kBatch) flush();
      });
    flush();
  }

  // Calls fn(lo, hi) for consecutive ranges of own ids, in parallel.
  template <typename Fn>
  void for_id_chunks(Fn&& fn, uint32_t chunk = kIdChunk) {
    parallel_for_ranges(start_, end_, chunk, [&](size_t lo, size_t hi) {
      fn(static_cast<uint32_t>(lo), static_cast<uint32_t>(hi));
    });
  }

  void compute_signatures(uint32_t lo, uint32_t hi) {
    if (lo >= hi) return;
    const size_t first = (lo - start_) / kIdChunk, last = (hi - 1 - start_) / kIdChunk;
    parallel_for(last - first + 1, [&](size_t k) {
      const std::vector<uint32_t>& all = listed_[first + k][kPrims];
      std::vector<uint32_t>& sigs = prim_sigs_[first + k];
      for (auto it = std::lower_bound(all.begin(), all.end(), lo); it != all.end() && *it < hi; ++it) {
        const uint32_t* r = rec(*it);
        uint32_t& sig = sigs[static_cast<size_t>(it - all.begin())];
        switch (kind_of(r)) {
          case Kind::Int: sig = sig_tag(hash_int_tag(r)); break;
          case Kind::Enum: case Kind::Enum64: sig = sig_tag(hash_enum(r)); break;
          default: sig = sig_tag(hash_common(r)); break;  // FWD, FLOAT
        }
      }
    });
  }

  // ---- pass 2 ----
  // `id` is one of the prims pass's list (INT, ENUM, ENUM64, FWD, FLOAT).
  void dedup_primitive(uint32_t id, uint32_t h) {
    const uint32_t* t = rec(id);
    uint32_t new_id = id;
    switch (kind_of(t)) {
      case Kind::Int:
        index_->for_each(h, [&](uint32_t c) { return equal_int_tag(t, rec(c)) ? (new_id = c, true) : false; });
        break;
      case Kind::Enum: case Kind::Enum64: {
        // equal_enum/compat_enum spelled out: anonymous enums share one
        // chain, and every lookup walks all of it.
        const size_t value_bytes = size_t{vlen_of(t)} * (kind_of(t) == Kind::Enum64 ? 12 : 8);
        const bool t_fwd = is_enum_fwd(t);
        const uint32_t t_summary = enum_summary(t);
        index_->for_each(h, [&](uint32_t c, uint32_t summary) {
          // Another summary and no forward on either side: neither equal
          // nor compatible, known without reading c's record.
          if (summary != t_summary && !t_fwd && !(summary & 1)) return false;
          const uint32_t* cand = rec(c);
          if (cand[0] != t[0]) return false;  // a name sharing the tag: neither equal nor compatible
          if (cand[1] == t[1] && cand[2] == t[2] && std::memcmp(t + 3, cand + 3, value_bytes) == 0)
            return new_id = c, true;
          // Not equal: compatible only when one is a forward.
          Kind ck = kind_of(cand);
          if ((ck == Kind::Enum || ck == Kind::Enum64) && (t_fwd || vlen_of(cand) == 0)) {
            if (t_fwd) return new_id = c, true;  // a forward meets its enum
            if (c < conflict_below_) touched_.push_back({c, resolve(c)});
            set_map(c, id);  // a canonical forward now resolves to this enum
          }
          return false;
        });
        break;
      }
      case Kind::Fwd: case Kind::Float:
        index_->for_each(h, [&](uint32_t c) { return equal_common(t, rec(c)) ? (new_id = c, true) : false; });
        break;
      default:
        return;
    }
    map_[id] = new_id;
    if (new_id == id) index_->add(h, id, enum_summary(t));
  }

  // ---- pass 3 ----
  void clear_hypot() {
    for (uint32_t id : std::span<const uint32_t>(hypot_list_.data(), hypot_count_)) hypot_[id] = UNPROCESSED;
    hypot_count_ = merge_count_ = 0;
    hypot_adjust_canon_ = false;
  }

  // Are the type graphs at cand_id and canon_id the same? Records
  // canon -> cand pairs in hypot_; see dedup.h. Inline at every call
  // site: three comparisons in four end here (the pair resolves to one
  // type, or was met before), and a call per member cost more than they
  // do.
  // `shallow_known`: the caller has checked shallow_equal_struct() on
  // this very pair of structs (dedup_struct, for every candidate).
  [[gnu::always_inline]] bool is_equiv(uint32_t cand_id, uint32_t canon_id, bool shallow_known = false) {
    int known = decided(cand_id, canon_id);
    return known >= 0 ? known : expand_equiv(cand_id, canon_id, shallow_known);
  }
  // What is_equiv() knows before expanding a pair: 1 or 0, or -1 when the
  // pair is new, with canon_id then resolved through its FWD.
  [[gnu::always_inline]] int decided(uint32_t cand_id, uint32_t& canon_id) {
    if (cand_id >= limit_ || canon_id >= limit_) [[unlikely]] fail_past_limit(std::max(cand_id, canon_id));
    // A pair met before in this comparison (amdgpu.ko: 4.0M of 8.8M) is
    // equal whatever the two resolve to: known from the canonical side's
    // hypot alone, without resolving either (as below, where a FWD's
    // hypot is never set once it resolves).
    if (hypot_[canon_id] == cand_id) return 1;
    if (resolve(cand_id) == resolve(canon_id)) return 1;
    canon_id = resolve_fwd(canon_id);
    uint32_t h = hypot_[canon_id];
    if (h <= MAX_ID) {
      if (h == cand_id) return 1;  // a cycle, or a type met again
      // Compilers sometimes emit identical types twice in one unit; a
      // contradiction with an identical twin is no contradiction.
      return identical(h, cand_id);
    }
    return -1;
  }
  // is_equiv() of a pair met for the first time. A modifier's comparison
  // is its target's (libbpf's tail call), taken here in a loop rather than
  // by a call: half the pairs are modifiers, and a call of this function
  // costs more than their checks.
  [[gnu::noinline]] bool expand_equiv(uint32_t cand_id, uint32_t canon_id, bool shallow_known) {
    for (;;) {
      hypot_[canon_id] = cand_id;
      hypot_list_[hypot_count_++] = canon_id;

      const uint32_t* cand = rec(cand_id);
      const uint32_t* canon = rec(canon_id);
      Kind ck = kind_of(cand), nk = kind_of(canon);
      if (ck == Kind::Fwd || is_composite(ck)) merge_list_[merge_count_++] = canon_id;
      if (cand[0] != canon[0]) return false;

      if ((ck == Kind::Fwd || nk == Kind::Fwd) && ck != nk) {
        Kind real_kind, fwd_kind;
        if (ck == Kind::Fwd) {
          real_kind = nk;
          fwd_kind = info_kind_flag(cand[1]) ? Kind::Union : Kind::Struct;
        } else {
          real_kind = ck;
          fwd_kind = info_kind_flag(canon[1]) ? Kind::Union : Kind::Struct;
          // A base FWD would have to become this struct: base types cannot
          // change, so for the rest of the graph this is no match.
          if (fwd_kind == real_kind && canon_id < start_) hypot_adjust_canon_ = true;
        }
        return fwd_kind == real_kind;
      }
      if (ck != nk) return false;

      switch (ck) {
        case Kind::Int: return equal_int_tag(cand, canon);
        case Kind::Enum: return compat_enum(cand, canon);
        case Kind::Enum64: return compat_enum64(cand, canon);
        case Kind::Fwd: case Kind::Float: return equal_common(cand, canon);
        case Kind::Const: case Kind::Volatile: case Kind::Restrict: case Kind::Ptr: case Kind::Typedef:
        case Kind::Func: case Kind::TypeTag: {
          if (cand[1] != canon[1]) return false;
          uint32_t next_canon = canon[2];
          int known = decided(cand[2], next_canon);
          if (known >= 0) return known;
          cand_id = cand[2];
          canon_id = next_canon;
          shallow_known = false;
          continue;
        }
        case Kind::Array:
          if (!compat_array(cand, canon)) return false;
          // Index type first, as libbpf: the order decides which pairs a
          // failed comparison leaves behind.
          return is_equiv(cand[4], canon[4]) && is_equiv(cand[3], canon[3]);
        case Kind::Struct: case Kind::Union:
          if (!shallow_known && !shallow_equal_struct(cand, canon)) return false;
          for (uint32_t i = 0, n = vlen_of(cand); i < n; ++i)
            if (!is_equiv(cand[4 + 3 * i], canon[4 + 3 * i])) return false;
          return true;
        case Kind::FuncProto:
          if (!compat_fnproto(cand, canon)) return false;
          if (!is_equiv(cand[2], canon[2])) return false;
          for (uint32_t i = 0, n = vlen_of(cand); i < n; ++i)
            if (!is_equiv(cand[4 + 2 * i], canon[4 + 2 * i])) return false;
          return true;
        default:
          fail(cand_id, "unexpected " + std::string(kind_name(ck)) + " in a struct's type graph");
      }
    }
  }

  // "Identical twins" check of is_equiv, per libbpf release.
  bool identical(uint32_t a, uint32_t b) const {
    switch (compat_) {
      case DedupCompat::Libbpf_1_1: return identical_array(a, b) || identical_struct(a, b);
      case DedupCompat::Libbpf_1_6: return identical_types(a, b, 16);
    }
    return false;
  }
  bool identical_array(uint32_t a, uint32_t b) const {
    return kind(a) == Kind::Array && kind(b) == Kind::Array && equal_array(rec(a), rec(b));
  }
  bool identical_struct(uint32_t a, uint32_t b) const {
    const uint32_t* t1 = rec(a);
    const uint32_t* t2 = rec(b);
    if (!is_composite(kind_of(t1)) || kind_of(t1) != kind_of(t2) || !shallow_equal_struct(t1, t2)) return false;
    for (uint32_t i = 0, n = vlen_of(t1); i < n; ++i) {
      uint32_t m1 = t1[4 + 3 * i], m2 = t2[4 + 3 * i];
      if (m1 == m2) continue;
      if (!identical_array(m1, m2) && !identical_struct(m1, m2)) return false;
    }
    return true;
  }
  bool identical_types(uint32_t a, uint32_t b, int depth) const {
    for (;;) {
      if (depth <= 0) return false;
      const uint32_t* t1 = rec(a);
      const uint32_t* t2 = rec(b);
      Kind k = kind_of(t1);
      if (k != kind_of(t2)) return false;
      switch (k) {
        case Kind::Unknown: return true;  // void
        case Kind::Int: return equal_int_tag(t1, t2);
        case Kind::Enum: case Kind::Enum64: return compat_enum(t1, t2);
        case Kind::Fwd: case Kind::Float: return equal_common(t1, t2);
        case Kind::Const: case Kind::Volatile: case Kind::Restrict: case Kind::Ptr: case Kind::Typedef:
        case Kind::Func: case Kind::TypeTag:
          if (t1[1] != t2[1] || t1[0] != t2[0]) return false;
          a = t1[2];
          b = t2[2];
          continue;  // libbpf loops here without using up depth
        case Kind::Array:
          if (!compat_array(t1, t2)) return false;
          if (t1[4] != t2[4] && !identical_types(t1[4], t2[4], depth - 1)) return false;
          return t1[3] == t2[3] || identical_types(t1[3], t2[3], depth - 1);
        case Kind::Struct: case Kind::Union:
          if (!shallow_equal_struct(t1, t2)) return false;
          for (uint32_t i = 0, n = vlen_of(t1); i < n; ++i) {
            uint32_t m1 = t1[4 + 3 * i], m2 = t2[4 + 3 * i];
            if (m1 != m2 && !identical_types(m1, m2, depth - 1)) return false;
          }
          return true;
        case Kind::FuncProto:
          if (!compat_fnproto(t1, t2)) return false;
          if (t1[2] != t2[2] && !identical_types(t1[2], t2[2], depth - 1)) return false;
          for (uint32_t i = 0, n = vlen_of(t1); i < n; ++i) {
            uint32_t p1 = t1[4 + 2 * i], p2 = t2[4 + 2 * i];
            if (p1 != p2 && !identical_types(p1, p2, depth - 1)) return false;
          }
          return true;
        default:
          return false;
      }
    }
  }

  // After a successful comparison: FWDs met opposite a struct resolve to
  // it, and structs met opposite canonical structs map to them (which only
  // saves later comparisons). Only pairs whose candidate is a FWD, STRUCT
  // or UNION can do either: any other kind resolves within its kind on
  // both sides of a pair that compared equal.
  void merge_hypot() {
    for (uint32_t canon : std::span<const uint32_t>(merge_list_.data(), merge_count_)) {
      uint32_t t_id = resolve(hypot_[canon]);
      uint32_t c_id = resolve(canon);
      Kind tk = kind(t_id), ck = kind(c_id);
      // Also for a base FWD: split FWDs resolve through it.
      if (tk != Kind::Fwd && ck == Kind::Fwd) set_map(c_id, t_id);
      if (hypot_adjust_canon_) continue;
      if (tk == Kind::Fwd && ck != Kind::Fwd) set_map(t_id, c_id);
      if (is_composite(tk) && ck != Kind::Fwd && is_mapped(c_id) && !is_mapped(t_id)) set_map(t_id, c_id);
    }
  }

  // `id` is one of the struct pass's list (STRUCT, UNION).
  void dedup_struct(uint32_t id) {
    if (is_mapped(id)) return;
    const uint32_t* t = rec(id);
    uint32_t h = sig_tag(hash_struct(t));
    uint32_t new_id = id;
    index_->for_each(h, [&](uint32_t c) {
      // A FWD must not become a candidate through a signature clash: FWD
      // and struct count as equivalent and could map to each other.
      if (!shallow_equal_struct(t, rec(c))) return false;
      clear_hypot();
      if (!is_equiv(id, c, /*shallow_known=*/true)) return false;
      merge_hypot();
      if (hypot_adjust_canon_) return false;  // only a base FWD matched
      new_id = c;
      return true;
    });
    map_[id] = new_id;
    if (new_id == id) index_->add(h, id);
  }

  // ---- pass 4 ----
  void resolve_fwds_by_name() {
    // Name -> the canonical STRUCT/UNION with it, or 0 if several have it.
    // A prepared base has its own (base structs are all canonical), and
    // only the new types are indexed here.
    uint32_t first = prepared_ ? start_ : 1;
    // Sized by the canonical ones (a few percent of a big input's ids),
    // and found through the kind bytes: only their records are read.
    std::vector<uint32_t> composites, fwds;
    for (uint32_t id = first; id < end_; ++id) {
      Kind k = kind(id);
      if (is_composite(k) && map_[id] == id) composites.push_back(id);
      else if (k == Kind::Fwd && id >= start_ && map_[id] == id) fwds.push_back(id);
    }
    UniqueNames names(composites.size());
    for (uint32_t id : composites) names.add(rec(id)[0], id);
    for (uint32_t id : fwds) {
      const uint32_t* t = rec(id);
      std::optional<uint32_t> found = names.find(t[0]);
      if (prepared_) {
        std::optional<uint32_t> in_base = prepared_->composites.find(t[0]);
        if (in_base) found = found ? 0 : *in_base;  // base ones come first: in both means several
      }
      if (!found || *found == 0) continue;
      Kind want = info_kind_flag(t[1]) ? Kind::Union : Kind::Struct;
      if (kind(*found) == want) map_[id] = *found;
    }
  }

  // ---- pass 5 ----
  // Units that include the same headers hold the same reference types in
  // the same order, so the canonical type a reference resolves to is most
  // often the one that followed, last time, the canonical type the
  // reference before it resolved to. That one is compared first: equal,
  // it is the answer, with no hash and no walk of the candidate index
  // (whose slots miss the cache). It is the answer the index gives, too:
  //  - an own canonical reference is the only candidate equal to it (a
  //    later equal one would have found it), and the references' targets
  //    are final in this pass;
  //  - a base one was the index's first equal candidate for the same
  //    words last time, and adds since then put no equal candidate before
  //    it (an equal own one is never added); only a doubling reverses the
  //    chains, and then every follow is forgotten.
  // The follows live in hypot_, unused in this pass, and are cleared as
  // the struct comparisons' pairs are.
  void start_follows() {
    clear_hypot();
    last_ref_ = UNPROCESSED;
    follows_doublings_ = index_->doublings();
  }
  // The canonical type that followed the last reference's last time, if
  // `equal` to `t`; UNPROCESSED if none.
  template <typename Equal>
  uint32_t followed(const uint32_t* t, Equal&& equal) const {
    if (last_ref_ == UNPROCESSED) return UNPROCESSED;
    const uint32_t next = hypot_[last_ref_];
    return next != UNPROCESSED && equal(t, rec(next)) ? next : UNPROCESSED;
  }
  void follow(uint32_t canonical) {
    if (index_->doublings() != follows_doublings_) {
      clear_hypot();
      follows_doublings_ = index_->doublings();
    } else if (last_ref_ != UNPROCESSED) {
      if (hypot_[last_ref_] == UNPROCESSED) hypot_list_[hypot_count_++] = last_ref_;
      hypot_[last_ref_] = canonical;
    }
    last_ref_ = canonical;
  }

  uint32_t dedup_reference(uint32_t id) {
    if (map_[id] == IN_PROGRESS) fail(id, "a cycle of reference types");
    if (is_mapped(id)) return resolve(id);
    if (id >= end_) fail(id, "reference past the last type");
    map_[id] = IN_PROGRESS;
    uint32_t* t = own(id);
    uint32_t new_id = id;
    uint64_t h = 0;
    // The follow first, else the index; `equal` a lambda, not a function
    // pointer: inlined into the walk.
    auto find = [&](auto hash, auto equal) {
      if (uint32_t f = followed(t, equal); f != UNPROCESSED) {
        new_id = f;
        return;
      }
      h = hash(t);
      index_->for_each(sig_tag(h), [&](uint32_t c) { return equal(t, rec(c)) ? (new_id = c, true) : false; });
    };
    switch (kind_of(t)) {
      case Kind::Const: case Kind::Volatile: case Kind::Restrict: case Kind::Ptr: case Kind::Typedef:
      case Kind::Func: case Kind::TypeTag:
        t[2] = target(id, t[2]);
        find(hash_common, [](const uint32_t* a, const uint32_t* b) { return equal_common(a, b); });
        break;
      case Kind::DeclTag:
        t[2] = target(id, t[2]);
        find(hash_int_tag, [](const uint32_t* a, const uint32_t* b) { return equal_int_tag(a, b); });
        break;
      case Kind::Array:
        t[3] = target(id, t[3]);
        t[4] = target(id, t[4]);
        find(hash_array, [](const uint32_t* a, const uint32_t* b) { return equal_array(a, b); });
        break;
      case Kind::FuncProto:
        t[2] = target(id, t[2]);
        for (uint32_t i = 0, n = vlen_of(t); i < n; ++i) t[4 + 2 * i] = target(id, t[4 + 2 * i]);
        find(hash_fnproto, [](const uint32_t* a, const uint32_t* b) { return equal_fnproto(a, b); });
        break;
      default:
        fail(id, "unexpected kind " + std::string(kind_name(kind_of(t))));
    }
    map_[id] = new_id;
    if (new_id == id) index_->add(sig_tag(h), id);
    follow(new_id);
    return new_id;
  }
  // The canonical id of a referenced type: most are decided already (a
  // struct, a primitive, a shared pointer), and are resolved here without
  // a call of dedup_reference().
  uint32_t target(uint32_t from, uint32_t to) {
    if (to >= end_) fail(from, "refers to type " + std::to_string(to) + ", past the last type");
    return is_mapped(to) ? resolve(to) : dedup_reference(to);
  }

  // ---- passes 6 and 7 ----
  void compact_and_remap(std::vector<TypeId>* id_map) {
    // Old canonical id -> new id; base ids stay as they are. In parallel
    // chunks of ids: each counts its canonical types and their words, and
    // from the prefix sums knows its first new id and where its records go.
    // In hypot_'s own part, not read again (the next run on the scratch
    // sets it anew): fresh pages cost more than their filling (amdgpu.ko:
    // 7 MB).
    uint32_t* const new_own = hypot_.data() + start_;
    auto new_id = [&](uint32_t id) { return id < start_ ? id : new_own[id - start_]; };
    size_t chunks = (end_ - start_ + kIdChunk - 1) / kIdChunk;
    std::vector<uint32_t> first_type(chunks + 1, 0);
    std::vector<size_t> first_word(chunks + 1, 0);
    auto chunk_of = [&](uint32_t lo) { return (lo - start_) / kIdChunk; };
    for_id_chunks([&](uint32_t lo, uint32_t hi) {
      uint32_t types = 0;
      size_t words = 0;
      for (uint32_t id = lo; id < hi; ++id) {
        if (map_[id] != id) continue;
        ++types;
        words += 3 + static_cast<size_t>(extra_words(kind(id), vlen_of(rec(id))));
      }
      first_type[chunk_of(lo) + 1] = types;
      first_word[chunk_of(lo) + 1] = words;
    });
    for (size_t c = 0; c < chunks; ++c) {
      first_type[c + 1] += first_type[c];
      first_word[c + 1] += first_word[c];
    }
    // Filled in parallel below, and moved into the table as they are.
    UninitVector<uint32_t> out_words(first_word.back());
    UninitVector<uint32_t> out_offsets(first_type.back());
    for_id_chunks([&](uint32_t lo, uint32_t hi) {
      uint32_t next = start_ + first_type[chunk_of(lo)];
      for (uint32_t id = lo; id < hi; ++id) new_own[id - start_] = map_[id] == id ? next++ : UNPROCESSED;
    });
    auto remap = [&](uint32_t& ref) {
      if (ref >= end_) fail(ref, "past the last type");
      uint32_t n = new_id(resolve(ref));
      if (n > MAX_ID) fail(ref, "no canonical type after dedup");
      ref = n;
    };
    for_id_chunks([&](uint32_t lo, uint32_t hi) {
      uint32_t t = first_type[chunk_of(lo)];
      size_t at = first_word[chunk_of(lo)];
      for (uint32_t id = lo; id < hi; ++id) {
        if (map_[id] != id) continue;
        const uint32_t* r = rec(id);
        size_t len = 3 + static_cast<size_t>(extra_words(kind_of(r), vlen_of(r)));
        out_offsets[t++] = static_cast<uint32_t>(at);
        std::copy(r, r + len, out_words.begin() + static_cast<std::ptrdiff_t>(at));
        visit_type_id_words(out_words.data() + at, remap);
        at += len;
      }
    });
    if (id_map) {
      id_map->resize(end_);
      // What a reference to the id becomes (a base FWD resolved to a new
      // struct gives that struct).
      parallel_for_ranges(0, end_, kIdChunk, [&](size_t lo, size_t hi) {
        for (size_t id = lo; id < hi; ++id) (*id_map)[id] = new_id(resolve(static_cast<uint32_t>(id)));
      });
    }
    // The new string table as the string pass built it, index and all
    // (or the table's own, when it was in order already).
    if (strings_kept_) {
      btf_.assign_records(std::move(out_words), std::move(out_offsets));
    } else {
      const std::span<const char> shared = btf_.shared_strings();
      btf_.assign_raw(std::move(out_words), std::move(out_offsets), std::move(new_strings_));
      if (own_name_words_) btf_.share_strings(shared);  // names by offset: still its names
    }
  }

  Btf& btf_;
  DedupCompat compat_;
  bool last_use_;
  const std::vector<uint32_t>* own_name_words_;  // DedupOptions::own_name_words, for a table it fits
  uint32_t start_, end_;
  const DedupBase::Impl* prepared_;    // when prepared for this table's base
  std::unique_ptr<Scratch> scratch_;   // the prepared base's, or this run's own
  IdArray<const uint32_t*>& rec_;  // the record of every base id
  IdArray<Kind>& kind_;
  IdArray<uint32_t>& map_;        // id -> canonical id (chains allowed)
  IdArray<uint32_t>& hypot_;      // canonical-side id -> candidate-side id
  const uint32_t* own_words_;     // the table's words and offsets (which do not move during dedup)
  const uint32_t* own_offsets_;
  // The ids set in hypot_, to clear them, and those of them merge_hypot()
  // looks at, in order. An id is set at most once between two clears, so
  // room for every id is room enough: no capacity check per pair.
  IdArray<uint32_t> hypot_list_, merge_list_;
  size_t hypot_count_ = 0, merge_count_ = 0;
  std::vector<uint32_t> base_map_log_;  // base ids whose map_ entry changed
  bool hypot_adjust_canon_ = false;
  std::vector<std::vector<uint32_t>> prim_sigs_;  // signature tags of listed_[c][kPrims], by place
  std::vector<PassLists> listed_;  // own ids by type pass, per chunk of kIdChunk ids
  std::optional<CandidateIndex> own_index_;
  std::optional<BaseReach> base_reach_;  // see index_base_here()
  CandidateIndex* index_ = nullptr;   // own_index_, or the scratch's copy of the base's
  StringTable new_strings_;
  bool strings_kept_ = false;  // the table's own strings are the new ones
  // Staged passes (run_staged).
  DedupReport* report_;
  std::vector<uint32_t> stages_;  // first ids of the stages; empty: not staged
  uint32_t limit_ = end_;         // struct comparisons meet no id from here on
  // An enum forward below this that pass 2 resolves again: in touched_
  // with what it resolved to before, conflict_ if that changed.
  uint32_t conflict_below_ = 0;
  std::vector<std::pair<uint32_t, uint32_t>> touched_;
  bool conflict_ = false;
  // Pass 5's follows (start_follows).
  uint32_t last_ref_ = UNPROCESSED;
  uint32_t follows_doublings_ = 0;
};

}  // namespace

void dedup(Btf& btf, const DedupOptions& options, std::vector<TypeId>* id_map) {
  // The comparisons recurse as deep as the type graph (once per type at
  // most): give them a stack that fits any input.
  run_with_stack(size_t{1024} * btf.end_id(), [&] { Deduper(btf, options).run(id_map); });
}

}  // namespace btfc::btf
