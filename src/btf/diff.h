// Semantic comparison of two BTF tables as type graphs, whatever the order
// of their types: the proof that two encoders (or two kernel builds) made
// the same types.
//
//   btf::DiffResult r = btf::diff(a, b, {"old.btf", "new.btf"});
//   fputs(r.report.c_str(), stdout);   // what differs, counts per kind
//   return r.equivalent ? 0 : 1;
//
// Two levels:
//  - The verdict compares the whole graphs: every type gets a colour by
//    colour refinement (start from the type's own fields: kind, name, size,
//    member names and offsets, values, linkage; then repeatedly mix in the
//    colours of the types it refers to, until the number of colours stops
//    growing; cycles need no special case). Two types have the same colour
//    exactly when their unfolded type graphs are the same. The tables are
//    equivalent when each colour has as many types on both sides
//    (duplicates count: two equal FUNCs are not one).
//  - The report names what differs the way a person reads C: named types
//    (struct, union, enum, typedef, func, var, ...) are grouped by kind and
//    name, and compared by their bodies, where a reference to another named
//    type counts by its name (so a change in struct A is reported once, in
//    A, not in every struct pointing to A) and anonymous types are expanded
//    in place. It lists types only one side has, and for a type both have:
//    size, members (offset, bitfield, type), enumerators, prototype,
//    linkage. Should the named view find nothing while the graphs differ
//    (duplicated anonymous types, or references to different types of the
//    same name), the deep differences are listed by kind and name instead.
//
// For split BTF only the table's own types are compared; references into
// the bases are compared structurally like any other.
#pragma once

#include <cstddef>
#include <string>

#include "btf/btf.h"

namespace btfc::btf {

struct DiffOptions {
  std::string name_a = "A";  // how the report names the two sides
  std::string name_b = "B";
};

struct DiffResult {
  bool equivalent = false;
  size_t differences = 0;  // items in the report
  // Differences, a per-kind count table, and a last line
  // "equivalent: N types" or "N differences".
  std::string report;
};

DiffResult diff(const Btf& a, const Btf& b, const DiffOptions& options = {});

}  // namespace btfc::btf
