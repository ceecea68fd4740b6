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

}  // namespace btfc::btf
