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
//
// Batch mode (several FILEs, or a directory searched for *.ko): one process
// reads the base once and encodes every module against it, parallel_for
// over the files (biggest first, so the largest module does not start
// last) with the units of each file parallel inside. Each module goes
// through exactly the single-file path, so its bytes are those of encoding
// it alone; results go in place or to --output-dir as DIR/<module>.btf.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/allocator.h"
#include "btf/base_cache.h"
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

  // The type ids the candidates hold follow the unit's types when those
  // move (merged, deduplicated): fn(old id) -> new id, void stays void.
  template <typename Fn>
  void remap_type_ids(Fn&& fn) {
    funcs.remap_type_ids(fn);
    vars.remap_type_ids(fn);
  }
};

struct EncodeStats {
  size_t units = 0, units_skipped = 0;
  size_t units_split = 0;           // skeleton units (split DWARF): their types are in .dwo files
  uint64_t dies = 0;
  uint64_t types_before_dedup = 0, types_after_dedup = 0;
  FunctionStats functions;
  bool written = false;             // false when there was nothing to encode
  size_t files = 0, files_written = 0;  // batch mode (single file: 1 and 0/1)
  size_t files_by_unit = 0;         // files whose units were relocated one by one
  size_t files_copied = 0;          // files whose units were copied one by one (DwarfFile::copies_units)
  size_t files_redone = 0;          // files whose staged dedup ran its type passes again (btf::DedupReport)
  size_t files_names_by_offset = 0; // files whose groups took .debug_str offsets as names (see build())
  size_t files_names_redone = 0;    // files encoded again by text, those offsets naming a text twice
  btf::BaseCacheUse base_cache = btf::BaseCacheUse::Off;  // a single module's base (btf/base_cache.h)
  unsigned threads = 0;             // the threads it ran on (-j without a number: see encode())
  PageChoice pages;                 // the page size of its fresh memory (base/allocator.h)
};

// A module file's name without its suffix (.ko, or a packed module's
// .ko.xz, .ko.zst, .ko.gz); nullopt for any other name.
std::optional<std::string_view> module_stem(std::string_view name);

// The files a batch encodes: FILE arguments as given, directories searched
// recursively for modules (module_stem), in path order. Throws btfc::Error
// for a missing path.
std::vector<std::string> batch_inputs(const std::vector<std::string>& args);

// Where batch mode writes FILE with --output-dir=DIR: DIR/<module_stem>.btf
// (DIR/<name>.btf for another name).
std::string batch_output_path(const std::string& dir, const std::string& file);

// The BTF of o.input (types, functions, variables, deduplicated), split on
// `base` if given. Throws btfc::Error naming the file.
btf::Btf build_btf(const EncodeOptions& o, const btf::Btf* base, EncodeStats* stats = nullptr);
// The same for an ELF file already open (o.input is not read; the fuzz
// target's bytes). Errors do not name a file.
btf::Btf build_btf(const EncodeOptions& o, const elf::ElfFile& elf, const btf::Btf* base,
                   EncodeStats* stats = nullptr);

// build_btf and write the result where `o` says. Throws btfc::Error naming
// the file; on any error the input and an existing output are untouched.
// In batch mode (o.inputs has several files or a directory, or
// o.output_dir is set) every file is encoded even when some fail; each
// failure is printed to stderr as "btfc: FILE: message" and then one Error
// says how many failed. Stats are summed over the files.
EncodeStats encode(const EncodeOptions& o);

}  // namespace btfc::convert
