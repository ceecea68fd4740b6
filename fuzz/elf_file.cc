// Fuzz target: bytes as an ELF file, parsed, then every section's contents
// computed as a DWARF reader would ask for them (decompressed, relocated)
// and the symbol table read. Bad input must end in btfc::Error, never a
// crash, hang or unbounded allocation (a lying compression header must not
// make us allocate its stated size), and a packed file (gzip, xz, zstd:
// elf/packed.h) no more than its bound. Seeds: small gcc/clang objects of
// several machines, zlib/zstd/.zdebug compressed, and three packed whole.
#include <cstddef>
#include <cstdint>

#include "base/error.h"
#include "elf/elf_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto f = btfc::elf::ElfFile::parse(btfc::Bytes(data, size), "fuzz");
    try {
      f->symbols();
    } catch (const btfc::Error&) {
    }
    for (const auto& s : f->sections()) {
      try {
        f->section_data(s);
      } catch (const btfc::Error&) {
      }
    }
    f->find_section(".debug_info");
  } catch (const btfc::Error&) {
  }
  return 0;
}
