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

#include "btf/btf.h"

namespace btfc::btf {

// Returns the id unit.start_id() got in out. `base_ids`, if not empty,
// maps every id below unit.start_id() (index = old id) to its id in out.
TypeId append(Btf& out, const Btf& unit, std::span<const TypeId> base_ids = {});

}  // namespace btfc::btf
