// Fuzz target: `btfc layout` and btfdiff's two sides on hostile input. The
// first byte picks the side and the options (sort, -E, private classes,
// flat arrays, the suppress flags, a cache line size, -C with a few
// common names), the last byte more of them (-q, -r, --packed,
// --with_flexible_array, -i or -f and -d, --skip_missing, -a, -A, -V, -T,
// --first_obj_only, -u, -X, -l, -I and -D, which read the line table
// headers, -m, which reads functions' parameters, -R and -P, which
// reorganize structs; it stays part of the input too); the rest is raw BTF (the
// -F btf side) or an ELF file with DWARF (the -F dwarf side). Bad input
// must end in btfc::Error, never a crash, a hang or unbounded memory: the
// layout code follows type chains (typedefs, arrays, nested and expanded
// members) that hostile input can make cyclic or deep. Seeds: those of btf_reader and elf_dwarf.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/error.h"
#include "btf/reader.h"
#include "dwarf/dwarf_file.h"
#include "elf/elf_file.h"
#include "layout/layout.h"

using namespace btfc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  uint8_t pick = data[0];
  Bytes rest(data + 1, size - 1);
  layout::LayoutOptions o;
  o.sort = pick & 0x02;
  o.expand_types = pick & 0x04;
  o.show_private_classes = pick & 0x08;
  o.flat_arrays = pick & 0x10;
  o.suppress_aligned_attribute = o.suppress_packed = pick & 0x20;
  o.suppress_force_paddings = pick & 0x40;
  o.cacheline_size = (pick & 0x80) ? 32 : 64;
  o.hex = (pick & 0x30) == 0x30;
  if ((pick & 0x50) == 0x50) {
    using L = layout::LayoutOptions::Listing;
    static constexpr L kListings[] = {L::Names, L::Sizes, L::Members, L::NameLengths};
    o.listing = kListings[(pick >> 1) & 3];
  }
  o.min_holes = (pick & 0x28) == 0x28 ? 1 : 0;
  o.hole_size_ge = (pick & 0x48) == 0x48 ? 2 : 0;
  o.just_structs = (pick & 0x84) == 0x84;
  o.just_unions = (pick & 0x88) == 0x88;
  if ((pick & 0x0e) == 0x0e) o.class_names = {"a", "s", "t", "u", "list_head"};
  const uint8_t more = data[size - 1];
  o.quiet = more & 0x01;
  o.rel_offset = more & 0x02;
  o.just_packed = more & 0x04;
  o.just_structs |= o.just_packed;
  o.with_flexible_array = more & 0x08;
  using Search = layout::LayoutOptions::Search;
  static constexpr Search kSearches[] = {Search::Type, Search::Containers, Search::PointersTo, Search::Type};
  o.search = kSearches[(more >> 4) & 3];
  if (o.search != Search::Type) o.class_names = {"a", "s", "t", "list_head"};
  o.recursive = more & 0x40;
  o.skip_missing = more & 0x80;
  o.anon_include = (more & 0x41) == 0x41;
  o.nested_anon_include = (more & 0x81) == 0x81;
  o.verbose = (more & 0x0a) == 0x0a;
  o.nr_definitions = (pick & 0x60) == 0x60;
  o.first_obj_only = (more & 0x14) == 0x14;
  o.first_biggest_member = (more & 0x03) == 0x03;
  o.defined_in = (more & 0x28) == 0x28;
  if ((more & 0x50) == 0x50) o.cu_exclude = "a";
  o.show_decl_info = (more & 0x06) == 0x06;
  o.nr_methods = (pick & 0x82) == 0x82 && o.class_names.empty();
  o.reorganize = (more & 0x21) == 0x21;
  o.packable = (pick & 0x41) == 0x41 && !o.sort;  // the command line refuses -P --sort
  if ((more & 0x0c) == 0x0c) o.decl_exclude = "/";
  try {
    if (pick & 0x01) {
      auto elf = elf::ElfFile::parse(rest, "fuzz");
      dwarf::DwarfFile::Options options;
      options.load_alt = false;
      dwarf::DwarfFile dw(*elf, options);
      std::string missing;
      layout::layout_dwarf(dw, !elf->big_endian(), o, &missing);
    } else {
      btf::Btf b = btf::read_raw(rest);
      std::string missing;
      layout::layout_btf(b, o, &missing);
    }
  } catch (const Error&) {
  }
  return 0;
}
