// Appending one BTF table to another: how the encoder joins the tables it
// built per compilation unit (in parallel) into one before dedup.
//
//   btf::Btf all;                                   // or Btf all(&vmlinux)
//   for (const btf::Btf& unit : units) btf::append(all, unit);
//   btf::dedup(all);
//
// Each unit numbers its own types from unit.start_id(); append shifts them
// to follow out's last type. Ids below unit.start_id() (void, or types of
// the base both tables sit on) stay as they are, or go through `base_ids`
// when the unit's base is not out's (e.g. to rebase a module onto a copy
// of vmlinux). Strings are added to out in order of first reference, each
// distinct unit string looked up once.
#pragma once

#include <span>
#include <vector>

#include "btf/btf.h"

namespace btfc::btf {

// For appending tables whose names still point into a shared region (see
// Btf::share_strings; dedup with DedupOptions::own_name_words leaves
// them so): where each region offset's string landed in `out`, looked up
// once, and a check of what that dedup assumed of each table: no text
// named at two of its shared offsets, or at one of them and by one of its
// own strings, and no "" among them. Two tables may name a text
// differently: each was deduplicated on its own. Memory goes with the
// names met, not with the region.
class SharedNames {
 public:
  // False once an appended table broke the assumption (its dedup may then
  // have kept two types apart that a dedup by text would have folded).
  bool held() const { return held_; }

 private:
  friend TypeId append(Btf&, const Btf&, std::span<const TypeId>, SharedNames*);
  struct Slot {
    uint32_t key = 0;    // region offset + 1; 0: empty
    uint32_t out_off;    // its string's offset in out
    uint32_t table;      // the last table that named it (table_ counts tables from 1)
  };
  // The slot of region offset `at`, inserted if new (out_off then 0).
  Slot& slot(uint32_t at);
  // The slot holding `key`, or the empty one where it would go.
  Slot& probe(uint32_t key);
  // Within the table being appended, the first naming of out's string at
  // `out_off` by one source (a region offset, or an own string).
  void named(uint32_t out_off);
  void next_table();
  std::vector<Slot> slots_ = std::vector<Slot>(1024);
  size_t count_ = 0;
  uint32_t table_ = 1;
  std::vector<uint64_t> named_;    // bit per out offset: named in this table
  std::vector<uint32_t> touched_;  // out offsets whose bit is set
  bool held_ = true;
};

// Returns the id unit.start_id() got in out. `base_ids`, if not empty,
// maps every id below unit.start_id() (index = old id) to its id in out.
// A unit with shared strings needs `shared` (one for every table appended
// to out), else its shared offsets are out of range.
TypeId append(Btf& out, const Btf& unit, std::span<const TypeId> base_ids = {}, SharedNames* shared = nullptr);

// Appends many standalone tables (ids from 1) to `out` in order, in
// parallel: the encoder's per-unit tables. Returns the id each table's
// type 1 got in out. Nothing is looked up: each table's own strings are
// copied as they are, and out shares the tables' shared strings (all must
// share the same region, see Btf::share_strings), so it must be
// deduplicated (which rewrites every string) before it is written. out
// may hold a string several times; dedup's string pass folds them, as it
// folds equal strings of any table. Throws btfc::Error if a record refers
// past its table's last type. `own_name_words`, if given, gets the words
// (indices into out.words()) of the appended records that name one of the
// tables' own strings, in order: what dedup's names by offset need
// (DedupOptions::own_name_words).
std::vector<TypeId> merge_units(Btf& out, std::span<const Btf* const> units,
                                std::vector<uint32_t>* own_name_words = nullptr);

}  // namespace btfc::btf
