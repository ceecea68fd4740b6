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

// Returns the id unit.start_id() got in out. `base_ids`, if not empty,
// maps every id below unit.start_id() (index = old id) to its id in out.
TypeId append(Btf& out, const Btf& unit, std::span<const TypeId> base_ids = {});

// Appends many standalone tables (ids from 1) to `out` in order, in
// parallel: the encoder's per-unit tables. Returns the id each table's
// type 1 got in out. Nothing is looked up: each table's own strings are
// copied as they are, and out shares the tables' shared strings (all must
// share the same region, see Btf::share_strings), so it must be
// deduplicated (which rewrites every string) before it is written. out
// may hold a string several times; dedup's string pass folds them, as it
// folds equal strings of any table. Throws btfc::Error if a record refers
// past its table's last type.
std::vector<TypeId> merge_units(Btf& out, std::span<const Btf* const> units);

}  // namespace btfc::btf
