// Fuzz target: bytes as an ELF file with DWARF. Reads the unit headers,
// abbreviation tables and root DIEs, walks every DIE decoding every
// attribute (decode_unit, as `btfc stats` does), then walks again the way an
// encoder does: the one-pass Attrs and TypeAttrs of each DIE, every reference followed
// with die_at, location expressions evaluated, subtrees skipped through
// DW_AT_sibling. Bad input must end in btfc::Error, never a crash, hang or
// unbounded allocation. The alternate (dwz) file is not loaded: its name
// comes from the input. Seeds: small gcc/clang objects (DWARF 2-5, type
// units, 32-bit, big-endian).
#include <cstddef>
#include <cstdint>

#include "base/error.h"
#include "dwarf/dwarf_file.h"
#include "elf/elf_file.h"

using namespace btfc;

namespace {

void walk(const dwarf::DwarfFile& dw, const dwarf::Unit& unit) {
  dwarf::DieCursor cursor(unit);
  dwarf::Die die;
  size_t steps = 0;
  while (cursor.next(die)) {
    dwarf::TypeAttrs t = dw.type_attrs(die);  // the converter's fast reader
    if (const char* p = t.name_pooled()) (void)std::string_view(p).size();  // NUL-terminated in bounds
    dwarf::Attrs a = dw.attrs(die);
    for (std::optional<uint64_t> ref : {a.type, a.abstract_origin, a.specification, a.signature}) {
      if (!ref) continue;
      try {
        dwarf::Die target = dw.die_at(*ref);
        dw.attrs(target);
      } catch (const Error&) {
      }
    }
    if (!a.location.empty()) dw.expr_address(unit, a.location);
    if (!a.member_location_expr.empty()) dw.expr_constant(a.member_location_expr);
    if (++steps % 3 == 0) cursor.skip_children();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto elf = elf::ElfFile::parse(Bytes(data, size), "fuzz");
    dwarf::DwarfFile::Options options;
    options.load_alt = false;
    dwarf::DwarfFile dw(*elf, options);
    std::vector<uint64_t> counts;
    for (const dwarf::Unit& u : dw.units()) {
      try {
        dwarf::decode_unit(dw, u, counts);
      } catch (const Error&) {
      }
      try {
        walk(dw, u);
      } catch (const Error&) {
      }
    }
  } catch (const Error&) {
  }
  return 0;
}
