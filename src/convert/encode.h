// The encoder: an ELF file's DWARF to BTF, pahole 1.31's `pahole -J`.
//
//   convert::EncodeOptions o;  o.input = "vmlinux"; o.detached_path = "vmlinux.btf";
//   convert::EncodeStats s = convert::encode(o);
//
// One straight list of passes (docs/design.md), each timed for --stats:
//   1. read     map the ELF, read DWARF unit headers, the base BTF, and the
//               ELF function/variable indexes
//   2. convert  parallel_for over units: each unit's types (UnitTypes), then
//               its function candidates and variables, into slot i
//   3. merge    append the unit tables in unit order (ids shifted)
//   4. funcs    FUNC_PROTO + FUNC in name order, then DATASECs
//   5. dedup    libbpf's btf__dedup (split on the base for modules)
//   6. write    raw BTF in the ELF's byte order: a detached file, or the
//               input's .BTF section, both atomic (temp + rename)
// Units are converted independently and merged in unit order, so the output
// bytes never depend on the thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "btf/btf.h"
#include "convert/functions.h"
#include "convert/options.h"
#include "convert/variables.h"

namespace btfc::convert {

// What one unit's conversion produced (slot i of the convert pass).
struct UnitResult {
  btf::Btf types;                   // standalone, ids 1..n local to the unit
  UnitFunctions funcs;              // collect_functions
  UnitVariables vars;               // collect_variables (its VARs are in `types`)
  uint64_t dies = 0;                // DIEs walked, for --stats
  bool skipped = false;             // partial/skeleton unit, or excluded language
};

struct EncodeStats {
  size_t units = 0, units_skipped = 0;
  uint64_t dies = 0;
  uint64_t types_before_dedup = 0, types_after_dedup = 0;
  FunctionStats functions;
  bool written = false;             // false when there was nothing to encode
};

// The BTF of o.input (types, functions, variables, deduplicated), split on
// `base` if given. Throws btfc::Error naming the file.
btf::Btf build_btf(const EncodeOptions& o, const btf::Btf* base, EncodeStats* stats = nullptr);

// build_btf and write the result where `o` says. Throws btfc::Error naming
// the file; on any error the input and an existing output are untouched.
EncodeStats encode(const EncodeOptions& o);

}  // namespace btfc::convert
