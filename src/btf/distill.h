// Distilled base BTF: a module's split BTF made independent of the exact
// vmlinux BTF it was encoded against (pahole's --btf_features=distilled_base,
// libbpf's btf__distill_base(), the kernel's btf_relocate.c).
//
//   btf::Btf vmlinux = btf::read_file("vmlinux");
//   btf::Btf ext4 = ...;                               // split on vmlinux
//   btf::DistilledBtf d = btf::distill_base(ext4);
//   write_raw(*d.base);   // -> the module's .BTF.base section
//   write_raw(d.split);   // -> the module's .BTF section
//   // Later, against the (possibly rebuilt) running kernel's vmlinux:
//   btf::Btf again = btf::relocate(d.split, vmlinux); // split on vmlinux
//
// What the distilled base holds (libbpf 1.5 rules, which pahole 1.31 calls):
// only the base types the split BTF refers to, directly or through other
// base types it needs, and of those only what can be matched by name:
//  - INT, FLOAT, FWD: copied as they are;
//  - named STRUCT/UNION: an empty STRUCT/UNION (vlen 0) of the same name and
//    size; relocation matches by name, and by size where needed (several
//    base types of that name, or the split BTF embeds it as a member);
//  - named ENUM/ENUM64: an empty ENUM of the same name and size (relocation
//    accepts an ENUM or ENUM64 of that name and size).
// Everything else the split BTF needed from the base moves into the new
// split BTF, after the module's own types: PTR, TYPEDEF, qualifiers, ARRAY,
// FUNC_PROTO, TYPE_TAG, and anonymous STRUCT/UNION/ENUM/ENUM64 with their
// members (an anonymous type has no name to match, so it travels whole).
// Named struct members are never followed, which keeps the distilled base
// small. Both new tables keep the order of the ids they came from: distilled
// base types in base id order; new split = module types, then the moved
// base types in base id order.
//
// relocate() is the inverse the kernel applies at module load time (since
// Linux 6.11): map each distilled base type to the one full-base type of
// that kind, name and (where needed) size, and renumber. btfc uses it to
// prove its distilled output means what the plain split BTF means.
#pragma once

#include <memory>

#include "btf/btf.h"

namespace btfc::btf {

struct DistilledBtf {
  std::unique_ptr<Btf> base;  // standalone; on the heap because `split` points at it
  Btf split;                  // split on *base
};

// Throws btfc::Error if `split` has no base ("Invalid argument", as libbpf
// fails), or refers to a base type of a kind a module cannot refer to
// (FUNC, VAR, DATASEC, DECL_TAG: libbpf refuses those too).
DistilledBtf distill_base(const Btf& split);

// `split` is split BTF on a distilled base (split.base() must be
// standalone and hold only named INT/FLOAT/ENUM/STRUCT/UNION/FWD). Returns
// the same types as split BTF on `base`, which must outlive the result:
// the module's types keep their order, ids are renumbered after `base`,
// references to the distilled base point at the matching `base` types, and
// the string section is the module's own, shifted (as btf_relocate.c does).
// Throws btfc::Error naming the distilled type that has no match, or has
// two equally good candidates.
Btf relocate(const Btf& split, const Btf& base);

}  // namespace btfc::btf
