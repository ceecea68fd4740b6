// pahole's --reorganize (-R) and --packable (-P): a struct's members moved
// into the holes of others, as dwarves' class__reorganize() moves them
// (pahole built, as Debian's and upstream's are, without its bitfield
// algorithms: a bitfield is never moved), for the size it would have then.
//
//   Reorganized r = reorganize(table, index, /*verbose=*/false);
//   if (r.size < table.t(index).size) ...   // pahole -P lists it
//
// The heuristics, in pahole's order, repeated from the start after every
// move: the padding is recomputed from the largest member that fits in a
// word with its hole; then, for each member followed by a hole, a later
// member that fits it and has a hole after it (the first member of its
// bitfield), else the last member if the struct has padding, is moved
// after it; then, while holes remain, the last member that fits one. A
// move that would take a member only one place up is not made (it may be
// an explicit alignment, like ____cacheline_aligned_in_smp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layout/model.h"

namespace btfc::layout {

struct Reorganized {
  std::vector<Member> members;  // in their new order, with their new offsets
  uint64_t size = 0;
  // With `verbose` (pahole -V): "/* Moving 'x' from after 'y' to after 'z' */"
  // for each move, as pahole prints them before the struct.
  std::string moves;
};

Reorganized reorganize(const Table& t, uint32_t index, bool verbose);

}  // namespace btfc::layout
