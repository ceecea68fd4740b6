// The DWARF reader: units, DIEs and attributes of one ELF file (and of the
// alternate file dwz splits common DIEs into), lazily, without allocating
// per DIE. It knows nothing of BTF.
//
//   auto elf = elf::ElfFile::open("vmlinux");
//   dwarf::DwarfFile dw(*elf);                  // unit headers, abbreviations, root DIEs
//   parallel_for(dw.units().size(), [&](size_t i) {
//     const dwarf::Unit& unit = dw.units()[i];
//     dwarf::DieCursor cursor(unit);
//     dwarf::Die die;
//     while (cursor.next(die)) {                 // depth-first; cursor.depth() is 0 for the root
//       if (die.tag == DW_TAG_subprogram) { cursor.skip_children(); continue; }
//       if (die.tag != DW_TAG_member) continue;
//       dwarf::Attrs a = dw.attrs(die);          // the attributes an encoder needs, one pass
//       std::string_view name = a.name;          // strp/strx/line_strp/strp_alt resolved
//       if (a.type) { dwarf::Die t = dw.die_at(*a.type); ... }
//       dwarf::Attr at;                          // or every attribute, in order:
//       for (dwarf::AttrIter it(dw, die); it.next(at);) use(at.name, at.form, at.value);
//     }
//   });
//
// DIE offsets are *global*: a .debug_info offset as it is (so they match
// llvm-dwarfdump), .debug_types offsets after those, then the alternate
// file's .debug_info. One integer names any DIE, whatever section it lives
// in; die_at() finds its unit by binary search over the unit offsets.
//
// Every read is bounds-checked; bad input throws btfc::Error naming the
// section and section-relative offset (not the file: callers add it with
// Error::with_file(dw.path()), as `btfc stats` does). Units are independent:
// reading two units from two threads at once is safe, and that is how the
// encoder is meant to run (one work item per unit). The encoder also asks
// for a module's units to be relocated one at a time
// (Options::relocate_by_unit): each unit is then read through a UnitBytes.
//
// Ideas from gimli (reader split per unit, abbreviation codes looked up by
// index, fixed-size attributes skipped in one step), bloaty (a lazy
// unit/DIE API, one error type) and LLVM (DW_AT_sibling used to skip whole
// subtrees; tag names as llvm-dwarfdump prints them).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/reader.h"
#include "dwarf/abbrev.h"
#include "dwarf/constants.h"
#include "elf/elf_file.h"

namespace btfc::dwarf {

// The sections of one file that DIEs are read from. A relocatable file may
// hold several .debug_info and .debug_types sections (type units in COMDAT
// groups), each with offsets from 0; they are laid one after the other in
// the global DIE offset space.
struct Sections {
  std::string file;  // path, for the alternate file's messages
  bool big_endian = false;
  std::vector<Bytes> info, types;
  Bytes abbrev, str, line_str, str_offsets, addr;
  // One past the last NUL of str / line_str: a string starting before it is
  // terminated, so resolving DW_FORM_strp is a bounds check and the length
  // is found only when someone reads the string.
  size_t str_end = 0, line_str_end = 0;
  std::string_view info_name = ".debug_info", types_name = ".debug_types", abbrev_name = ".debug_abbrev",
                   str_name = ".debug_str", line_str_name = ".debug_line_str",
                   str_offsets_name = ".debug_str_offsets", addr_name = ".debug_addr";
  bool split = false;      // .dwo sections: addrx refers to the skeleton's file
  uint64_t info_base = 0;  // global offset of info[0], where DW_FORM_GNU_ref_alt points
};

struct Unit {
  const Sections* sections = nullptr;
  bool in_types = false;        // in .debug_types rather than .debug_info
  bool is_alt = false;          // a unit of the alternate (dwz) file
  uint64_t offset = 0;          // of the unit header, within its section
  uint64_t end = 0;             // one past the unit's last byte, within its section
  uint64_t die_offset = 0;      // of the root DIE, within its section
  uint64_t global_base = 0;     // global offset of its section's byte 0
  uint64_t section_size = 0;    // size of its section
  uint16_t version = 0;
  uint8_t unit_type = 0;        // DW_UT_*; DWARF 2-4 units get DW_UT_compile or DW_UT_type
  uint8_t address_size = 0;
  uint8_t offset_size = 0;      // 4 or 8 (64-bit DWARF)
  uint64_t abbrev_offset = 0;
  uint64_t type_signature = 0;  // type units
  uint64_t type_offset = 0;     // type units: unit-relative offset of the type DIE
  uint64_t dwo_id = 0;          // skeleton and split units
  const AbbrevTable* abbrevs = nullptr;
  Reader reader;                // over [offset, end) of its section

  // From the root DIE.
  uint32_t root_tag = 0;        // DW_TAG_compile_unit, _partial_unit, _type_unit, _skeleton_unit (0 if none)
  uint16_t language = 0;        // DW_AT_language
  uint64_t str_offsets_base = 0;
  uint64_t addr_base = 0;
  std::string_view name;        // DW_AT_name of the root
  std::string_view producer;    // DW_AT_producer
  std::string_view comp_dir;    // DW_AT_comp_dir
  std::optional<uint64_t> stmt_list;  // DW_AT_stmt_list: its line table's offset in .debug_line

  uint64_t global_offset() const { return global_base + offset; }
  uint64_t global_end() const { return global_base + end; }
  // Global offset of the type DIE of a type unit.
  uint64_t type_die() const { return global_base + offset + type_offset; }
  bool is_type_unit() const { return unit_type == DW_UT_type || unit_type == DW_UT_split_type; }
  std::string_view section_name() const { return reader.section(); }
};

struct Die {
  uint64_t offset = 0;          // global
  uint32_t tag = 0;
  bool has_children = false;
  const Abbrev* abbrev = nullptr;
  const Unit* unit = nullptr;
  uint64_t attr_pos = 0;        // where the attributes start, as a position in unit->reader
  uint64_t sibling = 0;         // DW_AT_sibling as a global offset, 0 if absent

  // Offset within the unit's section, for messages.
  uint64_t section_offset() const { return offset - unit->global_base; }
};

// An attribute value, already resolved: strings to their bytes, references
// to global DIE offsets, addrx to addresses.
struct Value {
  enum Kind : uint8_t {
    kNone,
    kUnsigned,    // data1/2/4/8, udata
    kSigned,      // sdata, implicit_const
    kFlag,        // flag, flag_present
    kAddress,     // addr, addrx*, GNU_addr_index
    kAddrIndex,   // addrx in a split unit: an index into the skeleton's .debug_addr
    kString,      // string, strp, line_strp, strx*, GNU_str_index, GNU_strp_alt, strp_sup
    kBlock,       // block*, exprloc, data16
    kRef,         // ref*, ref_addr, GNU_ref_alt, ref_sup*, and ref_sig8 of a known type unit
    kSignature,   // ref_sig8 of a type unit not in this file
    kSecOffset,   // sec_offset, and the index of loclistx/rnglistx
  };
  Kind kind = kNone;
  uint64_t u = 0;               // every kind but kString/kBlock (kSigned as two's complement)
  const uint8_t* ptr = nullptr; // kString, kBlock (meaningless for other kinds)
  size_t len = 0;               // kNulTerminated: a string whose length is not computed yet

  static constexpr size_t kNulTerminated = ~size_t{0};
  int64_t s() const { return static_cast<int64_t>(u); }
  std::string_view str() const {
    const char* p = reinterpret_cast<const char*>(ptr);
    return len == kNulTerminated ? std::string_view(p) : std::string_view(p, len);
  }
  Bytes block() const { return {ptr, len}; }
  bool is_constant() const { return kind == kUnsigned || kind == kSigned; }
};

struct Attr {
  uint32_t name = 0;            // DW_AT_*
  uint32_t form = 0;            // DW_FORM_* (DW_FORM_indirect already resolved)
  Value value;
  uint64_t offset = 0;          // of the value within the unit's section, for messages
};

// What an encoder reads from a DIE, collected in one pass over its
// attributes. Absent attributes are nullopt / empty / false.
struct Attrs {
  std::string_view name;                        // empty when name_pooled is set (attrs(die, true))
  const char* name_pooled = nullptr;            // attrs(die, true) only: a DW_AT_name of a string section
  std::string_view linkage_name;                // DW_AT_linkage_name or DW_AT_MIPS_linkage_name
  std::optional<uint64_t> type;                 // global offset
  std::optional<uint64_t> byte_size, bit_size, data_bit_offset, bit_offset;  // bit_offset: DWARF 2/3 style
  std::optional<uint64_t> member_location;      // constant, or DW_OP_plus_uconst/DW_OP_constu N
  Bytes member_location_expr;                   // the expression when it is not that simple
  std::optional<int64_t> lower_bound, upper_bound, count;
  std::optional<uint64_t> encoding, alignment, inline_, calling_convention, accessibility;
  std::optional<uint64_t> low_pc, high_pc;      // high_pc made absolute when it is an offset from low_pc
  std::optional<uint64_t> abstract_origin, specification;  // global offsets
  std::optional<uint64_t> signature;            // DW_AT_signature: the type unit's type DIE (global offset)
  std::optional<uint64_t> decl_file, decl_line;
  Value const_value;                            // kind kNone when absent; form tells signedness of data*
  uint32_t const_value_form = 0;
  Bytes location;                               // DW_AT_location when it is an expression
  bool declaration = false, external = false, prototyped = false, artificial = false;
  bool has_upper_bound_ref = false;             // upper_bound/count given as a reference (VLA)
};

class DwarfFile;

// What the type converter reads of a type DIE and of its members,
// enumerators, parameters and subranges (the attributes is_type_attr names):
// a part of Attrs, with the same meanings, read faster. Most such DIEs have
// abbreviations in which every one of these attributes sits at a fixed
// offset (Abbrev::keys_fixed), so each is loaded from there and the others
// (decl_file, decl_line, sibling, ...) are not decoded at all. The numbers
// are kept with a bit each saying whether they were read, not as
// std::optional: making one costs a few stores instead of clearing a
// quarter kilobyte, and it is made for every member of every struct.
class TypeAttrs {
 public:
  Value name;                                   // DW_AT_name when it is a string, else kind kNone
  Value const_value;                            // kind kNone when absent
  Bytes member_location_expr;                   // as Attrs::member_location_expr
  bool declaration = false, external = false;
  bool has_upper_bound_ref = false;             // upper_bound/count given as a reference (VLA)

  std::optional<uint64_t> type() const { return get(kType); }  // a global offset
  std::optional<uint64_t> byte_size() const { return get(kByteSize); }
  std::optional<uint64_t> bit_size() const { return get(kBitSize); }
  std::optional<uint64_t> data_bit_offset() const { return get(kDataBitOffset); }
  std::optional<uint64_t> bit_offset() const { return get(kBitOffset); }
  std::optional<uint64_t> member_location() const { return get(kMemberLocation); }
  std::optional<uint64_t> encoding() const { return get(kEncoding); }
  std::optional<int64_t> upper_bound() const { return get_signed(kUpperBound); }
  std::optional<int64_t> count() const { return get_signed(kCount); }

  std::string_view name_str() const { return name.kind == Value::kString ? name.str() : std::string_view(); }
  // The name when it lies NUL-terminated in a string section (strp, strx,
  // ...), not read: for callers that only store it. nullptr otherwise.
  const char* name_pooled() const {
    return name.kind == Value::kString && name.len == Value::kNulTerminated ? reinterpret_cast<const char*>(name.ptr)
                                                                            : nullptr;
  }

 private:
  friend class DwarfFile;  // type_attrs fills it
  // Takes one attribute, by attrs()'s rules for the same fields (the last
  // of repeated attributes wins, values of the wrong class are ignored).
  void set(const DwarfFile& file, uint32_t at, const Value& v);

  // The numbers, by their index in num_ (KeySpec::field of kKeyNum*).
  enum : uint32_t {
    kType, kByteSize, kBitSize, kDataBitOffset, kBitOffset, kMemberLocation, kEncoding, kUpperBound, kCount,
    kNumbers
  };
  std::optional<uint64_t> get(uint32_t i) const {
    return present_ >> i & 1 ? std::optional<uint64_t>(num_[i]) : std::nullopt;
  }
  std::optional<int64_t> get_signed(uint32_t i) const {
    return present_ >> i & 1 ? std::optional<int64_t>(static_cast<int64_t>(num_[i])) : std::nullopt;
  }
  void put(uint32_t i, uint64_t v) {
    present_ |= 1u << i;
    num_[i] = v;
  }
  // DW_AT_declaration (0) and DW_AT_external (1), for KeySpec::field.
  bool& flag(uint32_t i) { return i ? external : declaration; }

  uint32_t present_ = 0;
  uint64_t num_[kNumbers];  // meaningful only when their bit is set in present_; signed ones as two's complement
};

// Iterates a DIE's attributes in abbreviation order:
//   Attr a;
//   for (AttrIter it(dw, die); it.next(a);) ...
class AttrIter {
 public:
  AttrIter(const DwarfFile& file, const Die& die);
  inline bool next(Attr& attr);
  // Position just past the last attribute, valid once next() returned false.
  uint64_t end_pos() const { return r_.pos(); }

 private:
  void next_slow(const AttrSpec& spec, Attr& attr);

  const DwarfFile* file_;
  const Unit* unit_;
  const AttrSpec* spec_;
  const AttrSpec* spec_end_;
  Reader r_;
};

// Walks one unit's DIE tree depth-first. Null entries are consumed, not
// returned. The walk ends after the root's subtree, as llvm-dwarfdump's does.
// DW_AT_sibling values are checked as they pass by: one that points
// backwards, outside the unit or anywhere but the end of the DIE's children
// is an error, so no walk can loop.
class DieCursor {
 public:
  static constexpr unsigned kMaxDepth = 1024;

  // The cursor reads only the unit's own bytes and abbreviations.
  explicit DieCursor(const Unit& unit);
  // Starts at `die`: its subtree is walked.
  explicit DieCursor(const Die& die);
  DieCursor(const DieCursor&) = delete;
  DieCursor& operator=(const DieCursor&) = delete;

  // The next DIE in depth-first order; false at the end. Inline (below):
  // the walks call it for every DIE.
  inline bool next(Die& die);
  // Depth of the DIE next() returned last (0 for the start DIE).
  unsigned depth() const { return depth_; }
  // Makes next() continue after the subtree of the DIE it returned last,
  // jumping over it through DW_AT_sibling when the DIE has one.
  void skip_children();
  // Tells the cursor where the attributes of the DIE next() returned last
  // end (AttrIter::end_pos() once it is exhausted), so that it need not
  // skip them again.
  void set_attrs_end(uint64_t pos) {
    if (pending_) pending_end_ = pos;
  }
  // For a caller that reads some children of the DIE next() returned last
  // itself (UnitTypes::number_unit, for the members of a struct): skips
  // that DIE's attributes and returns the reader position of its first
  // child. The caller then calls resume_at() with the position of the
  // first entry it did not consume (a child's code or the null entry that
  // ends the children); it must have consumed only whole childless DIEs,
  // so the cursor's depth is that of the children.
  uint64_t enter_children() {
    skip_pending();
    return r_.pos();
  }
  void resume_at(uint64_t pos) { r_.seek(pos); }

 private:
  void skip_pending();
  void close_level(uint64_t at);
  [[noreturn]] void fail_code(uint64_t off, uint64_t code);
  [[noreturn]] void fail_sibling(uint64_t off, uint64_t sib);

  const Unit* unit_;
  Reader r_;
  const Abbrev* pending_ = nullptr;  // last returned DIE, attributes not yet skipped
  uint64_t pending_pos_ = 0;         // where its attributes start
  uint64_t pending_end_ = 0;         // where they end, if set_attrs_end() said so
  uint64_t last_offset_ = 0;         // section offset of the last returned DIE
  uint64_t last_sibling_ = 0;        // its DW_AT_sibling (section offset) or 0
  unsigned depth_ = 0;
  unsigned level_ = 0;               // depth of the next entry
  bool done_ = false;
  // Per level: where the parent's DW_AT_sibling says its children end (0:
  // unknown), and the parent's offset, for the message when they do not.
  uint64_t expect_end_[kMaxDepth + 2];
  uint64_t parent_[kMaxDepth + 2];
};

class DwarfFile {
 public:
  struct Options {
    // Where to look for the file named by .gnu_debugaltlink / .debug_sup
    // besides next to the file (the empty default means /usr/lib/debug).
    std::string debug_dir = "/usr/lib/debug";
    // Off for untrusted bytes (the fuzz target): the file names a path.
    bool load_alt = true;
    // Relocate the units of a relocatable file one by one, each when a
    // UnitBytes reads it, rather than the whole .debug_info up front (the
    // encoder: see elf::PartRelocator), when the file allows it: one
    // .debug_info, no .debug_types, no alternate file, no reference from
    // one unit into another (DW_FORM_ref_addr, ref_sig8, the alternate
    // file's or the supplementary file's) and the PartRelocator's own
    // conditions. by_unit() says whether it does.
    bool relocate_by_unit = false;
    // Read each unit's bytes, through a UnitBytes, as a copy in the
    // caller's buffer rather than in the file's mapping, when they lie in
    // it (a linked file's uncompressed .debug_info): see copies_units().
    bool copy_by_unit = false;
  };

  // The sections read_sections reads, each .debug_X standing for
  // .zdebug_X too (and .debug_X.dwo in a split DWARF file): what an encode
  // has the kernel read ahead of a file cold on the disk, and load_alt of
  // the alternate file (elf::ElfFile::read_ahead).
  static constexpr std::string_view kSectionNames[] = {".debug_info",     ".debug_types",       ".debug_abbrev",
                                                       ".debug_str",      ".debug_line_str",    ".debug_str_offsets",
                                                       ".debug_addr"};

  // Does `elf` hold DWARF units at all (.debug_info or .debug_types, in
  // any of their spellings)?
  static bool present(const elf::ElfFile& elf);
  // Throws, for a command that needs DWARF, if !present(elf): an Error
  // naming the places its debug file was looked for, if it names one
  // (dwarf/debug_file.h). The caller adds the file's name.
  static void require(const elf::ElfFile& elf);

  // Reads the unit headers of .debug_info and .debug_types, their
  // abbreviation tables and root DIEs, and the alternate file if
  // .gnu_debugaltlink or .debug_sup names one (not for a file with no
  // units: a stripped binary keeps the link). Errors carry the file name.
  explicit DwarfFile(const elf::ElfFile& elf);
  DwarfFile(const elf::ElfFile& elf, Options options);
  ~DwarfFile();
  DwarfFile(const DwarfFile&) = delete;
  DwarfFile& operator=(const DwarfFile&) = delete;

  const std::string& path() const { return path_; }
  bool big_endian() const { return main_.big_endian; }

  // Units of this file: .debug_info in order, then .debug_types.
  const std::vector<Unit>& units() const { return units_; }
  // The main file's .debug_line (decompressed, relocated), empty if it has
  // none: read when first asked for (an encode never does), and not part
  // of kSectionNames. Thread-safe.
  Bytes line_section() const;

  // Whether units are relocated one by one (Options::relocate_by_unit).
  // Then a unit's DIEs are read through a UnitBytes only (its reader
  // holds the bytes as they are in the file, not relocated), every unit
  // is either read so once or passed to skip_unit(), and by_unit_complete()
  // says afterwards whether every relocation was applied; if not, what
  // was read may be wrong, and the file should be read again without.
  bool by_unit() const { return parts_ != nullptr; }
  // Whether a UnitBytes copies its unit's bytes out of the file's mapping
  // (Options::copy_by_unit, on a file that is not relocatable whose units
  // lie in the mapping). A read of pages of a mapping faults them in 64 KB
  // at a time, and on a virtual machine a fault is an exit to the host:
  // reading vmlinux's 166 MB of .debug_info so took 0.11 s of CPU, copying
  // it unit by unit with pread 0.04 s. A unit's DIEs are then read from a
  // buffer that stays in cache, and no page of the mapping needs giving
  // back. Units not read through a UnitBytes still read the mapping.
  bool copies_units() const { return copy_units_; }
  // Counts a unit's relocations for by_unit_complete() when no UnitBytes
  // reads it, and drops the pages of the entries counting mapped.
  void skip_unit(const Unit& unit) const;
  bool by_unit_complete() const { return parts_ && parts_->complete(); }
  // The allocated ELF section that the absolute relocation applied at
  // `at` (inside the bytes of `unit`, a main-file unit) refers to, 0 if
  // none: ElfFile::relocation_section for the unit's section.
  uint32_t relocation_section(const Unit& unit, const uint8_t* at) const;
  // The main file's .debug_str up to its last NUL (empty if none): the
  // bytes every DW_FORM_strp/strx name points into.
  std::span<const char> debug_str() const {
    return {reinterpret_cast<const char*>(main_.str.data()), main_.str_end};
  }
  // Whether `s` starts in debug_str() (a name from there, not one inline in
  // a unit's bytes or from a supplement). Compared as integers: `s` usually
  // points into another object.
  bool in_debug_str(std::string_view s) const {
    const std::span<const char> str = debug_str();
    const uintptr_t p = reinterpret_cast<uintptr_t>(s.data()), b = reinterpret_cast<uintptr_t>(str.data());
    return p - b < str.size();
  }
  // Units of the alternate file (partial units that DW_FORM_GNU_ref_alt
  // points into); not part of units().
  const std::vector<Unit>& alt_units() const { return alt_units_; }
  const std::string& alt_path() const { return alt_path_; }

  // The unit that holds this global offset; throws if none does.
  const Unit& unit_at(uint64_t offset) const;
  // The DIE at a global offset (a DW_FORM_ref* value); throws if there is
  // none there.
  Die die_at(uint64_t offset) const;
  // The root DIE of a unit (has tag 0 if the unit has no DIEs).
  Die root(const Unit& unit) const;
  // The type unit with this signature (DW_FORM_ref_sig8), or nullptr.
  const Unit* type_unit(uint64_t signature) const;

  // The encoder's attributes of a DIE, in one pass.
  Attrs attrs(const Die& die) const { return attrs(die, false); }
  // With `lazy_name`, a DW_AT_name in a string section (strp, strx, ...:
  // NUL-terminated there) is given as name_pooled, unread, and `name`
  // stays empty: the caller that only stores the name saves a cache miss.
  Attrs attrs(const Die& die, bool lazy_name) const;
  // The value of one attribute, or a kNone value.
  Value attr(const Die& die, uint32_t name) const;
  // The type converter's attributes of a DIE (see TypeAttrs). Values in
  // other attributes are not checked when the fast path skips them.
  TypeAttrs type_attrs(const Die& die) const;

  // The string at `offset` of a string section (`name`, bytes `section`,
  // its last NUL at `end` - 1): an Error at `where` of `at`'s section if the
  // offset is past the section, one at the offset if no NUL follows it.
  static const uint8_t* string_at(Bytes section, size_t end, std::string_view name, uint64_t offset,
                                  const Reader& at, uint64_t where);

  // Evaluates a location expression that is just an address:
  // DW_OP_addr A, DW_OP_addrx / DW_OP_GNU_addr_index I (resolved through
  // .debug_addr). nullopt for anything else.
  std::optional<uint64_t> expr_address(const Unit& unit, Bytes expr) const;
  // Evaluates DW_OP_plus_uconst N / DW_OP_constu N (and DW_OP_const*u),
  // the forms data_member_location takes in DWARF 2/3.
  std::optional<uint64_t> expr_constant(Bytes expr) const;
  // The address at index `index` of the unit's .debug_addr contribution.
  uint64_t address_at(const Unit& unit, uint64_t index, uint64_t where) const;

  // Reads the value of `spec` at r's cursor (the internals of AttrIter).
  void read_value(Reader& r, const Unit& unit, uint32_t form, int64_t implicit_const, Value& v) const;
  // Moves r past one value of `spec` without decoding it.
  static void skip_value(Reader& r, const AttrSpec& spec, const FormSizes& sizes);
  // Moves r past all attributes of a DIE with abbreviation `a`.
  static void skip_attrs(Reader& r, const Abbrev& a, const FormSizes& sizes) {
    if (a.all_fixed) {
      r.skip(a.fixed_size);
      return;
    }
    if (a.num_skip) {
      for (const SkipStep& s : a.skip_steps()) {
        r.skip(s.fixed);
        if (s.form) skip_variable(r, s.form);
      }
      return;
    }
    for (const AttrSpec& s : a.specs()) skip_value(r, s, sizes);
  }
  // Moves r past one value of a variable-size form other than
  // DW_FORM_indirect.
  static void skip_variable(Reader& r, uint32_t form) {
    switch (form) {
      case DW_FORM_string: r.cstr(); return;
      case DW_FORM_block1: r.skip(r.u8()); return;
      case DW_FORM_block2: r.skip(r.u16()); return;
      case DW_FORM_block4: r.skip(r.u32()); return;
      case DW_FORM_block:
      case DW_FORM_exprloc: r.skip(r.uleb128()); return;
      case DW_FORM_sdata: r.sleb128(); return;
      default: r.uleb128(); return;  // udata, ref_udata, strx, addrx, loclistx, rnglistx, GNU_*_index
    }
  }
  // DW_AT_sibling of a DIE whose attributes start at r's cursor, as a
  // section offset; 0 if the abbreviation has none.
  static uint64_t read_sibling(const Reader& r, const Unit& unit, const Abbrev& a) {
    // What gcc and clang write, inline: the cursor reads it for most DIEs
    // with children. Read where it lies, not through a copy of the
    // reader: the cursor has just moved it, and a copy's wide loads of
    // the fresh narrow stores stall (about 5% of pass 1's samples).
    if (a.sibling_pos >= 0 && a.sibling_form == DW_FORM_ref4) {
      const uint64_t at = static_cast<uint64_t>(a.sibling_pos);
      if (at <= r.remaining() && 4 <= r.remaining() - at) return unit.offset + load<uint32_t>(r.data() + at, r.big_endian());
    }
    return read_sibling_slow(r, unit, a);  // and its errors
  }

 private:
  void read_sections(const elf::ElfFile& elf, Sections& s);
  void read_units(Sections& s, bool is_alt, std::vector<Unit>& out);
  void read_abbrevs(std::vector<Unit>& units, const Sections& s);
  void read_root(Unit& unit);
  static uint64_t read_sibling_slow(Reader r, const Unit& unit, const Abbrev& a);
  void type_attr_read(TypeAttrs& out, const Die& die, const KeySpec& k, uint64_t pos) const;
  template <bool kShifted>
  void take_keys(TypeAttrs& out, const Die& die, uint64_t after, uint64_t str_len) const;
  bool type_attrs_str(TypeAttrs& out, const Die& die) const;
  void load_alt(const elf::ElfFile& elf, const Options& options);
  Die die_in(const Unit& unit, uint64_t section_offset) const;

  friend class UnitBytes;
  // The bytes [lo, hi) of the main .debug_info relocated into `buffer`
  // (by_unit() only), and a reader over them for the unit's section.
  Reader relocated(uint64_t lo, uint64_t hi, elf::PartRelocator::Part& buffer, bool count = false) const;
  // The bytes [lo, hi) of `u` (section offsets, u's reader the file's
  // bytes) in `buffer`, relocated (by_unit()) or copied (copies_units()),
  // and a reader over them; `count`: see PartRelocator::read.
  Reader unit_part(const Unit& u, uint64_t lo, uint64_t hi, elf::PartRelocator::Part& buffer,
                   bool count = false) const;
  // read_root from a window of the unit's start (unit_part).
  void read_root_windowed(Unit& u, elf::PartRelocator::Part& part);
  bool has_cross_unit_forms() const;

  std::string path_;
  const elf::ElfFile* elf_ = nullptr;  // for releasing pages read once
  std::unique_ptr<elf::PartRelocator> parts_;  // by_unit()
  bool copy_units_ = false;                    // copies_units()
  const elf::Section* parts_section_ = nullptr;
  Sections main_;
  Sections alt_;
  bool has_alt_ = false;
  std::string alt_path_;
  std::unique_ptr<elf::ElfFile> alt_elf_;
  std::vector<std::string> alt_section_names_;
  std::vector<Unit> units_;
  std::vector<Unit> alt_units_;
  uint64_t global_size_ = 0;    // global offsets handed out so far
  // Units of both files in global-offset order, for unit_at().
  std::vector<const Unit*> by_offset_;
  std::vector<std::unique_ptr<AbbrevCache>> abbrev_caches_;  // what the tables point into
  std::map<std::tuple<const Sections*, uint64_t, FormSizes>, std::unique_ptr<AbbrevTable>> abbrev_tables_;
  std::vector<std::pair<uint64_t, const Unit*>> signatures_;  // sorted
};

// One unit's bytes, relocated into a buffer of the caller's when the file
// is relocated unit by unit (DwarfFile::by_unit()), copied there when the
// file copies its units (DwarfFile::copies_units()); otherwise the unit as
// it is. While it lives, this thread's reads of the unit's DIEs through
// unit(), DwarfFile::die_at and unit_at see those bytes. Die values made
// from it (and strings of DW_FORM_string) point into the buffer: they are
// valid while it lives and the buffer is not reused.
//
//   thread_local elf::PartRelocator::Part buffer;
//   dwarf::UnitBytes bytes(dw, dw.units()[i], buffer);
//   dwarf::DieCursor cursor(bytes.unit());
class UnitBytes {
 public:
  UnitBytes(const DwarfFile& dw, const Unit& unit, elf::PartRelocator::Part& buffer);
  ~UnitBytes();
  UnitBytes(const UnitBytes&) = delete;
  UnitBytes& operator=(const UnitBytes&) = delete;

  const Unit& unit() const { return copy_ ? *copy_ : unit_; }
  // The unit in effect on this thread for `dw` that holds the global
  // offset, or nullptr.
  static const Unit* current(const DwarfFile& dw, uint64_t offset);
  // The buffer of `unit` if it is the copy a UnitBytes in effect gives.
  static const elf::PartRelocator::Part* current_part(const DwarfFile& dw, const Unit& unit);

 private:
  const DwarfFile& dw_;
  const Unit& unit_;
  elf::PartRelocator::Part& part_;
  std::optional<Unit> copy_;
  const UnitBytes* outer_ = nullptr;  // the one in effect before this one
};

// The forms that make up most DIEs, decoded inline: true if `s`'s form is
// one of them and its value is valid. Otherwise the caller moves r back and
// calls DwarfFile::read_value, which decodes the rest and reports every
// error.
[[gnu::always_inline]] inline bool read_common_value(Reader& r, const Unit& u, const AttrSpec& s, Value& v) {
  switch (s.form) {
    case DW_FORM_data1: v.kind = Value::kUnsigned; v.u = r.u8(); return true;
    case DW_FORM_data2: v.kind = Value::kUnsigned; v.u = r.u16(); return true;
    case DW_FORM_data4: v.kind = Value::kUnsigned; v.u = r.u32(); return true;
    case DW_FORM_implicit_const: v.kind = Value::kSigned; v.u = static_cast<uint64_t>(s.implicit_const); return true;
    case DW_FORM_flag_present: v.kind = Value::kFlag; v.u = 1; return true;
    case DW_FORM_ref4: {
      uint64_t off = r.u32();
      if (off < u.end - u.offset) {
        v.kind = Value::kRef;
        v.u = u.global_base + u.offset + off;
        return true;
      }
      return false;
    }
    case DW_FORM_strp: {
      uint64_t off = u.offset_size == 4 ? r.u32() : r.u64();
      if (off < u.sections->str_end) {
        v.kind = Value::kString;
        v.ptr = u.sections->str.data() + off;
        v.len = Value::kNulTerminated;
        return true;
      }
      return false;
    }
    case DW_FORM_sec_offset:
      v.kind = Value::kSecOffset;
      v.u = u.offset_size == 4 ? r.u32() : r.u64();
      return true;
    default: return false;
  }
}

[[gnu::always_inline]] inline bool DieCursor::next(Die& die) {
  if (pending_) {
    // Most DIEs: fixed-size attributes and no children, skipped here.
    if (pending_->all_fixed && !pending_->has_children && !pending_end_ && level_ > 0) {
      r_.seek(pending_pos_);
      r_.skip(pending_->fixed_size);
      pending_ = nullptr;
    } else {
      skip_pending();
    }
  }
  for (;;) {
    if (done_) return false;
    if (r_.empty()) {  // a unit may end without the null entries that close its last DIEs
      done_ = true;
      return false;
    }
    uint64_t off = r_.offset();
    const uint8_t* p = r_.data();
    uint64_t code;
    if (*p < 0x80) {
      code = *p;
      r_.skip(1);
    } else {
      code = r_.uleb128();
    }
    if (code == 0) {
      if (level_ == 0) {
        done_ = true;
        return false;
      }
      close_level(off);
      continue;
    }
    const Abbrev* a = unit_->abbrevs->find(code);
    if (!a) fail_code(off, code);
    pending_ = a;
    pending_pos_ = r_.pos();
    pending_end_ = 0;
    last_offset_ = off;
    last_sibling_ = 0;
    if (a->has_sibling) {
      uint64_t sib = DwarfFile::read_sibling(r_, *unit_, *a);
      if (sib <= off || sib > unit_->end) fail_sibling(off, sib);
      last_sibling_ = sib;
    }
    depth_ = level_;
    die.offset = unit_->global_base + off;
    die.tag = a->tag;
    die.has_children = a->has_children;
    die.abbrev = a;
    die.unit = unit_;
    die.attr_pos = pending_pos_;
    die.sibling = last_sibling_ ? unit_->global_base + last_sibling_ : 0;
    return true;
  }
}

inline bool AttrIter::next(Attr& a) {
  if (spec_ == spec_end_) return false;
  const AttrSpec& s = *spec_++;
  a.name = s.name;
  a.form = s.form;
  a.offset = r_.offset();
  size_t pos = r_.pos();
  if (read_common_value(r_, *unit_, s, a.value)) return true;
  r_.seek(pos);
  next_slow(s, a);
  return true;
}

// Walks every DIE of `unit` and decodes every attribute (strings and
// references resolved), the full validation `btfc stats`, the fuzz target and
// the benchmark run. counts[j] is set to the number of DIEs with
// abbreviation j of unit.abbrevs->declarations().
void decode_unit(const DwarfFile& file, const Unit& unit, std::vector<uint64_t>& counts);

}  // namespace btfc::dwarf
