// BTF deduplication: the same result as libbpf's btf__dedup, written for
// speed (flat arrays, one open-addressing candidate index, 64-bit
// signatures).
//
//   btf::Btf merged = ...;             // every unit's types, back to back
//   btf::dedup(merged);                // now one record per distinct type
//
// The problem. An encoder converts each compilation unit on its own, so
// `struct list_head` arrives once per unit that uses it, and a unit that
// only saw `struct S;` has a FWD where another unit has the full definition.
// Dedup keeps one record per distinct C type, resolves FWDs to definitions,
// and renumbers every reference.
//
// The worked example (two units, ids as the encoder gave them):
//
//   unit 1:  [1] INT int   [2] PTR -> 3   [3] STRUCT list {next: 2}
//            [4] FWD S     [5] PTR -> 4   [6] STRUCT A {s: 5, l: 3}
//   unit 2:  [7] INT int   [8] PTR -> 9   [9] STRUCT list {next: 8}
//            [10] STRUCT S {x: 7}         [11] PTR -> 10
//            [12] STRUCT A {s: 11, l: 9}
//
// Passes, each one a loop over ids in order, so the first occurrence of a
// type is the one kept (libbpf does the same):
//
//  1. Strings: a new string table with every referenced string once, in
//     the order of first reference; afterwards equal names have equal
//     offsets, so names compare as integers.
//  2. Primitive types (INT, FLOAT, FWD, ENUM, ENUM64) have no references:
//     hash, look up equal earlier ones, else become canonical. [7] -> [1].
//     An ENUM without values (an enum forward) maps to the full ENUM or ENUM64
//     of its name, whatever its size and sign (libbpf >= 1.1).
//  3. STRUCT/UNION. Their members may point back at themselves, so they are
//     compared as graphs: a DFS walks candidate and canonical side by side,
//     recording a hypothetical map canonical -> candidate; meeting a pair
//     again is fine (a cycle), meeting a canonical type paired with another
//     candidate is a contradiction. A FWD pairs with a STRUCT/UNION of the
//     same name. [9] vs [3]: next: [8] vs [2] -> [9] vs [3] already paired:
//     equal, so [9] -> [3]. [12] vs [6]: s: [11] vs [5] -> [10] vs [4],
//     a FWD and a struct of the same name: compatible; l: [9] vs [3]: equal.
//     So [12] -> [6], and [4] (FWD S) now resolves to [10] (STRUCT S).
//  4. FWDs still unresolved map to the one STRUCT/UNION of their name when
//     the name is unique.
//  5. Reference types (PTR, TYPEDEF, CV-qualifiers, ARRAY, FUNC,
//     FUNC_PROTO, tags): their targets are final now, so they are rewritten
//     to canonical ids and hashed exactly, depth first. [5] -> [10] and
//     [11] -> [10]: equal, so [11] -> [5]; [8] -> [2].
//  6. Compaction: canonical types get new, dense ids in their order.
//  7. Remapping: every id field goes to its canonical type's new id.
//
//   result:  [1] int  [2] PTR -> 3  [3] list {next: 2}  [4] PTR -> 6
//            [5] A {s: 4, l: 3}     [6] S {x: 1}
//
// Split BTF (a module on vmlinux): base types are canonical from the start
// and never change; a new type equal to a base type maps to it, and only
// the remaining new types are kept, numbered after the base.
//
// libbpf's heuristics changed over releases (pahole 1.31 builds with libbpf
// 1.5); `Compat` picks one, so each can be checked against that libbpf.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "btf/btf.h"

namespace btfc::btf {

enum class DedupCompat : uint8_t {
  // libbpf 1.1 to 1.5 (Debian 12 has 1.1, pahole 1.31 builds with 1.5): in
  // a graph comparison, a type met twice may differ from its first partner
  // only by being an identical ARRAY, or a STRUCT/UNION whose members are
  // the same ids or, recursively, identical ARRAYs or STRUCT/UNIONs.
  Libbpf_1_1,
  // libbpf 1.6: "identical" is a structural comparison of any kind (also
  // pointers and prototypes), up to 16 levels deep.
  Libbpf_1_6,
};

// The base's part of dedup's candidate index, built once for a base that
// many split tables are deduplicated on (batch mode: 4,023 modules on one
// vmlinux). Without it every dedup of a split table hashes and indexes all
// base types again, ~40% of a small module's encoding time. Read only
// once built, so any number of dedups may share it.
class DedupBase {
 public:
  explicit DedupBase(const Btf& base);
  // The indexes as bytes, and a DedupBase made from them equal to
  // DedupBase(base) for the base they were saved from: the base cache
  // (btf/base_cache.h) keeps them between runs. The constructor throws
  // btfc::Error if `saved` is not such an image for a base of this size.
  std::vector<uint8_t> save() const;
  DedupBase(const Btf& base, FlatReader& saved);
  // For a base that one small table is deduplicated on (a single small
  // module's run, no base cache): only the STRUCT/UNION-by-name table is
  // built here. The table's dedup builds the candidate index itself, of
  // the base types its names can meet (about a thousand of vmlinux's 56k
  // named types, and a third of the 45k anonymous ones: those that refer
  // only to types it can meet), once it knows them; the result is the
  // same. Not for save().
  struct IndexPerTable {};
  DedupBase(const Btf& base, IndexPerTable);
  ~DedupBase();
  DedupBase(const DedupBase&) = delete;
  DedupBase& operator=(const DedupBase&) = delete;
  const Btf& base() const;

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// What a dedup did, for --stats and tests.
struct DedupReport {
  bool redone = false;  // a staged dedup ran passes 2-3 again whole (DedupOptions::stages)
};

struct DedupOptions {
  DedupCompat compat = DedupCompat::Libbpf_1_1;
  // Used when it was built for the table's base (else ignored).
  const DedupBase* prepared_base = nullptr;
  // This is the prepared base's last dedup (a single module's): it takes
  // the base's candidate index rather than a copy, and the DedupBase is
  // not to be used again (a dedup that tries throws).
  bool last_use = false;
  // The first ids of consecutive stages of the table's own types (the
  // first is start_id()), each of whose types refers only to the base and
  // to its own stage's: an encoder's groups of units, merged one after
  // the other. A table whose strings go by text (split BTF) then has a
  // stage's struct pass run as soon as the primitive pass has seen its
  // ids, while other threads are still naming the stages after it. The
  // result is the same: where a stage may have seen other state than
  // libbpf's order gives it, passes 2-3 run again whole. Fewer than two
  // stages: ignored.
  std::span<const TypeId> stages = {};
  // Names by offset, for a standalone table that shares a region of
  // strings (Btf::share_strings): each text of the region it names is
  // named at one offset, none is "" and none is among its own strings, and
  // this lists every word of its records that names an own string (indices
  // into words(), in order: merge_units gives them). The string pass then
  // folds only those; shared offsets stay as they are, and the table keeps
  // sharing the region. Whoever sets this checks the assumption afterwards
  // (btf::SharedNames). Ignored for split BTF or a table sharing nothing.
  const std::vector<uint32_t>* own_name_words = nullptr;
  DedupReport* report = nullptr;
};

// Deduplicates `btf` in place (types and strings). For split BTF only its
// own types change; the base is read only. If `id_map` is given, it gets
// one entry per id below the old end_id(): the new id of that type (base
// ids map to themselves). Throws btfc::Error on a malformed table (an
// unknown kind, a cycle made only of reference types).
void dedup(Btf& btf, const DedupOptions& options = {}, std::vector<TypeId>* id_map = nullptr);

}  // namespace btfc::btf
