// The small type model the layout printer works on: what pahole's `struct
// cu` holds about types (names, sizes, member offsets, bitfields, array
// dimensions, prototypes), built either from one DWARF unit (dwarf_model.cc)
// or from a whole BTF table (btf_model.cc). One printer (printer.cc) then
// formats it exactly as pahole does, so DWARF and BTF go through the same
// code, which is what makes `btfc btfdiff` meaningful.
//
// Tables are flat vectors indexed by a 32-bit type index (0 = void); names
// are string_views into the mapped DWARF sections or the BTF string table,
// so building a table allocates a handful of vectors, not one object per
// type.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dwarf/line_files.h"

namespace btfc::layout {

enum class TKind : uint8_t {
  Void,
  Base,
  Pointer,
  Const,
  Volatile,
  Restrict,
  Atomic,
  Typedef,
  Struct,
  Union,
  Enum,
  Array,
  Func,          // a subroutine type / FUNC_PROTO
  Unspecified,   // DW_TAG_unspecified_type
  Annotation,    // BTF TYPE_TAG: transparent
  Other,         // something pahole cannot print (reference types...)
};

// A name as pahole's printf("%s") prints it: glibc prints a null one as
// "(null)".
inline std::string_view name_or_null(std::string_view name) { return name.empty() ? "(null)" : name; }

struct Member {
  std::string_view name;
  uint32_t type = 0;
  uint32_t byte_offset = 0;
  uint32_t bit_offset = 0;
  uint32_t byte_size = 0;      // set by finalize()
  uint32_t bit_size = 0;       // byte_size * 8
  uint32_t bitfield_size = 0;
  int32_t bitfield_offset = 0;
  uint32_t alignment = 0;      // DW_AT_alignment
  bool has_bit_offset = false; // DW_AT_data_bit_offset (or BTF)
  bool is_static = false;
  // Filled by the printer (class__find_holes).
  int32_t hole = 0;            // 0..65535: pahole keeps it in 16 bits
  int32_t bit_hole = 0;
};

struct Enumerator {
  std::string_view name;
  uint64_t value = 0;
};

struct Param {
  std::string_view name;
  uint32_t type = 0;
};

struct Type {
  TKind kind = TKind::Void;
  bool declaration = false;
  bool top_level = false;
  bool is_vector = false;       // arrays: DW_AT_GNU_vector
  bool is_signed = false;       // enums
  bool unspec_params = false;   // prototypes: `...`
  bool is_class = false;        // DW_TAG_class_type (printed as struct in C)
  std::string_view name;
  uint32_t type = 0;            // referenced type, element type, return type
  uint64_t size = 0;            // bytes: struct/union/base/enum; byte_size of a prototype
  uint32_t bit_size = 0;        // base types
  uint32_t alignment = 0;       // DW_AT_alignment
  uint32_t first = 0, count = 0;  // members / enumerators / params / dims, by kind
  uint32_t first_nested = 0, nr_nested = 0;  // type DIEs nested in a struct (printed inside it)
  // Where it is declared (pahole -I, -D), when the table was built with
  // that: an index into Table::files, the line, the DIE's offset in its
  // section. BTF has none of them (0).
  uint32_t decl_file = 0, decl_line = 0;
  uint64_t die_offset = 0;
};

// One unit's (or one BTF file's) types.
struct Table {
  std::vector<Type> types{Type{}};  // [0] = void
  std::vector<Member> members;
  std::vector<Enumerator> enumerators;
  std::vector<Param> params;
  std::vector<uint64_t> dims;
  std::vector<uint32_t> nested;     // indexes of nested types, by parent range
  // Structs and unions in pahole's table order (a nested type before its
  // parent), which is the order they are considered for printing.
  std::vector<uint32_t> classes;
  uint8_t addr_size = 8;
  bool little_endian = true;
  bool has_alignment_info = true;   // DWARF yes, BTF no
  uint16_t language = 0;
  unsigned cacheline_size = 64;     // BTF: what inferred alignments snap to
  std::string_view unit_name;       // DW_AT_name of the unit; a BTF file's name as given
  std::vector<dwarf::FileName> files;  // Type::decl_file's names (empty where none is named)
  // -m: the parameter types of each function, functions in table order
  // (DWARF: when the table was built with them; BTF: always).
  std::vector<uint32_t> function_params;

  const Type& t(uint32_t i) const { return types[i < types.size() ? i : 0]; }
  // The file a type is declared in, empty when none is known.
  dwarf::FileName decl_file(uint32_t i) const {
    const uint32_t f = t(i).decl_file;
    return f < files.size() ? files[f] : dwarf::FileName{};
  }
  // Its path as pahole prints it, "(null)" when none is known.
  std::string decl_path(uint32_t i) const {
    const dwarf::FileName f = decl_file(i);
    return f.empty() ? std::string("(null)") : f.path();
  }
  // tag__size(): bytes of a type, following typedefs/qualifiers, times array elements.
  uint64_t size_of(uint32_t i, int depth = 0) const;
  // tag__strip_typedefs_and_modifiers() of a type index.
  uint32_t strip(uint32_t i) const;
  // tag__natural_alignment(): the largest base alignment inside a type.
  // `memo` (one entry per type, 0 = not known yet) makes it linear: hostile
  // BTF can hold 64 levels of unions with two members of the level below
  // (2^64 paths), or a union holding itself.
  uint32_t natural_alignment(uint32_t i, std::vector<uint32_t>& memo, int depth = 0) const;
  // Computes member byte sizes, bitfield offsets (class_member__cache_byte_size).
  void finalize();
};

}  // namespace btfc::layout
