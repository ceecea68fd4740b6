// Type order the kernel can check. The kernel resolves BTF types in id
// order (btf.c's btf_check_all_types): each type that needs resolving
// (modifiers, pointers, arrays, structs, unions, variables, sections,
// functions, decl tags) is pushed on a stack with the types it refers to
// that are not resolved yet, and so on down; a stack deeper than 32
// (MAX_RESOLVE_DEPTH) makes it refuse the whole BTF ("Exceeded max
// resolving depth"). The depth depends on the order: `int ***...*p` with
// 33 stars, encoded outermost pointer first as pahole and btfc number
// types, is refused; numbered innermost first it loads. So is clang's
// DWARF for 33 struct definitions nested in one another.
//
// order_for_kernel() renumbers a table's own types, only when the kernel
// would refuse their order, into the order the kernel's own resolution
// resolves them in: every type then finds what it refers to resolved. The
// type graph is the same, so the output stays equivalent to pahole's
// (which writes the order the kernel refuses).
//
//   btf::order_for_kernel(out);   // after the final dedup, before writing
#pragma once

#include <cstdint>
#include <vector>

#include "btf/btf.h"

namespace btfc::btf {

// The kernel's MAX_RESOLVE_DEPTH.
inline constexpr uint32_t KERNEL_MAX_RESOLVE_DEPTH = 32;

struct KernelResolution {
  // The deepest stack the kernel's check of the own types reaches (base
  // types are resolved already), and the type whose resolution reached it.
  uint32_t max_depth = 0;
  TypeId deepest = 0;
  // The own ids in the order they got resolved, types needing no
  // resolution where the check met them: a permutation of the own ids
  // (empty unless asked for).
  std::vector<TypeId> order;
};

// Replays the kernel's resolution of `btf`'s own types, as far as it
// decides the stack depth (sizes and other rules are validate()'s).
KernelResolution kernel_resolution(const Btf& btf, bool with_order = true);

// Renumbers the own types of `btf` if the kernel would refuse their order
// for depth (see above); returns whether it did. (The encoder replays
// without the order first, beside its checks, and calls this only past
// the limit.) Throws btfc::Error if no
// order it tries is within the kernel's depth. `max_depth`: the kernel's,
// or a lower one to renumber more tables (the fuzz target's).
bool order_for_kernel(Btf& btf, uint32_t max_depth = KERNEL_MAX_RESOLVE_DEPTH);

}  // namespace btfc::btf
