// Fuzz target: bytes as an ELF file with DWARF, encoded to BTF the way
// `btfc encode` does (every unit converted, merged, functions and
// variables collected, deduplicated), with the legacy flags and with
// pahole 1.31's default features. This is the converter's fast paths
// (per-abbreviation plans, inline name caches, skipped attributes) under
// hostile input: it must end in btfc::Error, never a crash, hang or
// unbounded allocation. One thread, so a crash replays. Seeds: the same
// small gcc/clang objects as elf_dwarf.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "base/error.h"
#include "base/parallel.h"
#include "convert/encode.h"
#include "convert/options.h"
#include "elf/elf_file.h"

using namespace btfc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  set_jobs(1);
  std::unique_ptr<elf::ElfFile> elf;
  try {
    elf = elf::ElfFile::parse(Bytes(data, size), "fuzz");
  } catch (const Error&) {
    return 0;
  }
  for (bool features : {false, true}) {
    convert::EncodeOptions o;
    o.load_alt = false;  // the input names the path
    if (features) convert::apply_btf_features("default,global_var", o, /*strict=*/true);
    try {
      convert::build_btf(o, *elf, nullptr);
    } catch (const Error&) {
    }
  }
  return 0;
}
