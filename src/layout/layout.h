// `btfc layout`: which structs and unions pahole prints, in which order,
// from DWARF (unit by unit) or from BTF (one table), and the rendering of
// each through Printer. With -C it is pahole's other path instead: the
// named types (enums and typedefs too), looked up unit by unit.
//
// Selection follows pahole's print_classes()/class__filter(): named,
// defined, CU-level structs and unions (nested ones too with
// show_private_classes), each layout once. Without --sort the first of
// equal layouts in unit order is printed, in unit order (pahole's
// type__compare key: name, size, member count, member names, bit offsets
// and bitfield sizes). With --sort pahole re-sorts at the end by name,
// member names, offsets, bitfield sizes and member type names, dropping
// entries that compare equal, so that is the key and the order here.
//
// DWARF units are processed in chunks: the tables of one chunk are built in
// parallel, the keys are checked against those already seen in unit order,
// and the chunk's new layouts are rendered in parallel; output never depends
// on the thread count.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "btf/btf.h"
#include "dwarf/dwarf_file.h"
#include "layout/printer.h"

namespace btfc::layout {

struct LayoutOptions : PrintOptions {
  bool sort = false;
  // What the listing shows of each struct or union: its layout; with -s
  // "NAME\tSIZE\tHOLES" (pahole's size formatter); with -z its name alone
  // (the class name formatter); with -n "NAME\tMEMBERS"; with -N
  // "NAME\tNAME_LENGTH"; with -T nothing (-T's own list follows). The
  // last of them given decides; -t sets the separator. A listing is in
  // unit order, even with --sort, which then lists a struct each time a
  // unit has it (pahole's structures__add finds no two equal then).
  enum class Listing { Layouts, Sizes, Names, Members, NameLengths, Nothing } listing = Listing::Layouts;
  // -T: after the listing, "NAME\tN" for each struct and union, N the
  // number of units defining that layout (pahole's nr_definitions).
  bool nr_definitions = false;
  // -m: instead of any listing, "NAME\tN" for each struct, N the number of
  // function parameters pointing to it (pahole's nr_methods), in the
  // order first met. The last of -m and -T given decides.
  bool nr_methods = false;
  bool verbose = false;  // -V: -i says how many members of the type each struct has
  char separator = '\t';
  // pahole's filters of the listing (class__filter), applied to each
  // struct or union before the same-name ones are merged: --structs and
  // --unions; -x/--exclude and -y/--prefix_filter (name prefixes); -H, -B
  // and -z (structs with at least that many byte or bit holes, or a hole
  // of at least that many bytes).
  // --packed (structs packed by their layout: pahole's inference) and
  // --with_flexible_array (structs ending in one) too.
  bool just_structs = false, just_unions = false, just_packed = false, with_flexible_array = false;
  std::string exclude_prefix, include_prefix;
  // -D/--decl_exclude: not those declared in a file whose name starts
  // with this, nor those whose file is not known (all of a BTF file's).
  std::string decl_exclude;
  uint32_t min_holes = 0, min_bit_holes = 0, hole_size_ge = 0;
  bool show_private_classes = false;
  // -a: anonymous structs and unions too, each time a unit has one (never
  // merged; with --sort in a listing only): as "typedef struct {...} NAME;"
  // for the first typedef of one, and with -A also those no typedef names.
  bool anon_include = false, nested_anon_include = false;
  std::vector<std::string> class_names;  // -C: only these types (structs, unions, enums, typedefs)
  // With class_names, what is printed of each type found: the type (-C);
  // the structs and unions with a member of that type (-i, with -d the
  // members of those, indented, that hold it too); or "STRUCT: MEMBER" for
  // each member pointing to it (-f). pahole looks in the first unit that
  // has the type only, as for -C.
  enum class Search { Type, Containers, PointersTo } search = Search::Type;
  bool recursive = false;     // -d
  // -R: with -C (or -i, -f: -R wins), each struct found reorganized as
  // pahole's class__reorganize() would have it (layout/reorganize.h), then
  // "/* saved N bytes! */"; with -V the moves first.
  bool reorganize = false;
  // -P: only the structs that reorganizing would shrink, listed as
  // "NAME\tSIZE\tNEW_SIZE\tSAVED" (with -V: their layouts).
  bool packable = false;
  bool show_reorg_steps = false;  // -S: with -R only (refused there); alone nothing
  bool skip_missing = false;  // a name a unit lacks does not stop the look-up of the next ones there
  std::vector<uint16_t> lang_include;    // --lang: only units of these languages (dwarf::language_code)
  std::vector<uint16_t> lang_exclude;    // --lang_exclude
  std::string cu_exclude;                // -X: not the units whose name starts with this
  bool first_obj_only = false;           // --first_obj_only: the first unit the filters leave only
  bool defined_in = false;               // -u: with -C, the name of the unit each type is found in
  // A BTF file is one unit to pahole, named FILE as given (for -u and -X).
  std::string file_name;
  // When not empty, only these structs and unions ("struct NAME", "union NAME") (btfdiff of a
  // module: the split BTF side is limited to what the module's DWARF shows).
  std::unordered_set<std::string> only_names;
  // A module's btfdiff (split BTF): a struct or union of the base is
  // printed only when the module's own types use it, or its layout, as
  // printed, is one of base_layouts (the DWARF side's); the module's own
  // ones as only_names says. A base holds structs of one name that the
  // module never sees: arm64's vmlinux has two `struct cache_req`,
  // sunrpc's (which the module uses) and a driver's.
  bool base_as_in_dwarf = false;
  std::unordered_set<std::string> base_layouts;
  // btfdiff: with --sort, layouts of one name are ordered by all their
  // fields, on both sides alike. pahole orders them by size when no two
  // layouts share name, size and members (the BTF side, deduplicated),
  // by members otherwise (the DWARF side, a struct in many units), and
  // leaves some as they came (one's members a prefix of the other's):
  // radeon's six `union igp_info` came out in different orders.
  bool total_order = false;
};

// Each struct's or union's layout in a layout text, as printed (from its
// "struct NAME {" line to its "};" line).
std::vector<std::string> printed_layouts(std::string_view text);

// "struct NAME" / "union NAME" of each layout in a layout text, in order.
std::vector<std::string> printed_names(std::string_view text);

// With class_names (-C), what pahole -C prints: each name's struct, union,
// enum or typedef, found as pahole finds it (see layout.cc); `missing` gets
// the name pahole reports as not found, if any.
std::string layout_dwarf(const dwarf::DwarfFile& dw, bool little_endian, const LayoutOptions& options,
                         std::string* missing = nullptr);
std::string layout_btf(const btf::Btf& btf, const LayoutOptions& options, std::string* missing = nullptr);

// The layout model of a whole BTF table (base types included).
void build_btf_table(const btf::Btf& btf, Table& out, unsigned cacheline_size = 64);

}  // namespace btfc::layout
