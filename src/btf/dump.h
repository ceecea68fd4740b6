// Text dumps of a BTF table. dump_raw() prints exactly what
// `bpftool btf dump file FILE` (format raw, bpftool 7.1) prints, line for
// line, so the two can be compared byte for byte: one line per type
// "[ID] KIND 'name' fields...", then one tab-indented line per member,
// parameter, enumerator or section variable. For split BTF only the
// table's own types are printed, as bpftool does with -B.
#pragma once

#include <string>

#include "btf/btf.h"

namespace btfc::btf {

// Appends the dump of every own type of `btf` to `out`.
void dump_raw(const Btf& btf, std::string& out);

// Appends `btf` as a C header, as `bpftool btf dump file FILE format c`
// prints it (libbpf 1.1's btf_dump): every type, the base's too for split
// BTF. See dump_c.cc for how definitions are ordered.
void dump_c(const Btf& btf, std::string& out);

}  // namespace btfc::btf
