// pahole's struct/union layout printer over the layout model: member lines
// with offset/size comments, `XXX N bytes hole, try to pack`, bit holes,
// paddings, cacheline boundaries and the closing summary, with pahole's
// column rules (type column 26, name column 23 (21 in unions), 8 less per
// nesting level, printf's treatment of negative widths) and its
// abbreviations of type names ("const char  *", "struct foo * *").
//
// The printer keeps pahole's per-unit mutable state: holes are computed once
// per struct, and packed-ness inferred while printing one struct can mark
// another struct of the same table packed, so the order in which one table's
// structs are printed matters as it does in pahole.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "layout/model.h"

namespace btfc::layout {

struct PrintOptions {
  unsigned cacheline_size = 64;
  bool flat_arrays = false;
  bool suppress_aligned_attribute = false;
  bool suppress_force_paddings = false;
  bool suppress_packed = false;
  bool expand_types = false;
  bool hex = false;  // --hex: member offsets and sizes, enumerator values
  // -q: no comments (holes, cacheline boundaries, "Bitfield combined"),
  // no offset comments and no statistics: what is left reads as C.
  bool quiet = false;
  bool rel_offset = false;          // -r: offsets inside nested structs from their start
  bool classes_as_structs = false;  // a C++ class printed as "struct"
  bool first_biggest_member = false;  // -l: a summary line naming it
  // -I: before each type printed on its own, the unit it was found in and
  // where it is declared, "/* Used at: UNIT */" and "/* <DIE offset> FILE:LINE */"
  // (from BTF, which has neither, "/* <0> (null):0 */").
  bool show_decl_info = false;
  // btfdiff: a struct's last member that is an array of several
  // dimensions, one of them 0, is a flexible array. pahole's test takes
  // only one-dimensional arrays, and BTF keeps one dimension (their
  // product), so the same struct read as flexible from BTF only (smc.ko's
  // `u8 user_eids[][32]`, in a struct embedded in another).
  bool flexible_multi_dim = false;
};

class Printer {
 public:
  Printer(const Table& table, const PrintOptions& options);

  // One struct or union as `pahole` prints it (tag__fprintf + ";\n");
  // an anonymous one with a typedef name as "typedef struct {...} NAME;".
  void print_class(uint32_t index, std::string& out, std::string_view typedef_name = {});
  // What `pahole -C NAME` prints for the type it found: a struct or union
  // as above, an enum with its enumerators, a typedef as a declaration
  // (`typedef __u32 u32;`, with an anonymous struct or enum spelled out).
  void print_named(uint32_t index, std::string& out);
  // pahole's tag__name(): the type as it appears in member lines.
  std::string type_name(uint32_t index, size_t limit = 1024) const;
  // The holes of a struct, as class__find_holes leaves them.
  struct ClassInfo {
    bool holes_searched = false, packed_inferred = false, is_packed = false;
    bool flex_verified = false, has_flex = false, embedded_searched = false, has_embedded = false;
    int32_t pre_hole = 0, pre_bit_hole = 0, padding = 0, bit_padding = 0;
    uint16_t nr_holes = 0, nr_bit_holes = 0;
  };
  const ClassInfo& holes(uint32_t index);
  // class__has_hole_ge(): a byte hole of at least `size` after a member.
  bool has_hole_ge(uint32_t index, uint32_t size);
  // class__infer_packed_attributes(): a struct packed by its layout.
  bool is_packed(uint32_t index) { return infer_packed(index); }
  // class__has_flexible_array(): the last member an array of no elements.
  bool has_flexible_array(uint32_t index);
  // class__clone() of struct `original` with other `members` and `size`
  // (a reorganized copy, layout/reorganize.h), appended to `table`, which
  // must be the table this printer prints; returns its index. Like
  // pahole's clone it keeps what was found of the original (packed or
  // not, if that was inferred already), and this printer keeps what it
  // found of the other types.
  uint32_t add_clone(Table& table, uint32_t original, std::span<const Member> members, uint64_t size);

 private:
  struct Conf;
  Conf top_conf() const;
  void decl_info(uint32_t index, std::string& out) const;
  size_t type_fprintf(uint32_t type, const std::string* name, const Conf& conf, std::string& o);
  size_t array_fprintf(uint32_t type, const std::string* name, const Conf& conf, std::string& o);
  size_t union_decl_fprintf(uint32_t type, const std::string* name, const Conf& conf, std::string& o);
  size_t union_fprintf(uint32_t type, const Conf& conf, std::string& o);
  size_t class_fprintf(uint32_t type, const Conf& conf, std::string& o);
  size_t enum_fprintf(uint32_t type, const Conf& conf, std::string& o);
  size_t typedef_fprintf(uint32_t type, const Conf& conf, std::string& o);
  size_t ftype_fprintf(uint32_t type, const std::string* name, bool inlined, bool is_pointer, int type_spacing,
                       bool is_prototype, std::string& o) const;
  size_t params_fprintf(uint32_t type, std::string& o) const;
  size_t member_fprintf(uint32_t member, bool union_member, uint32_t type, Conf& conf, std::string& o);
  size_t member_type_holes(uint32_t cls, struct TypeHoles& h, uint8_t& newline, const Conf& conf, std::string& o);
  size_t cacheline_boundary(Conf& conf, uint32_t offset, std::string& o) const;
  std::string ptr_name(uint32_t index, const char* suffix) const;

  void find_holes(uint32_t index);
  bool infer_packed(uint32_t index);
  void union_infer_packed(uint32_t index);
  void check_unnatural(uint32_t index);
  uint32_t natural_alignment(uint32_t index);
  const Member* first_biggest_member(uint32_t index, int depth = 0) const;
  const Member* first_biggest_member_of(uint32_t index, int depth) const;
  bool has_embedded_flexible_array(uint32_t index);
  bool is_struct(uint32_t i) const { return table_.t(i).kind == TKind::Struct; }
  bool is_union(uint32_t i) const { return table_.t(i).kind == TKind::Union; }
  bool is_enum(uint32_t i) const { return table_.t(i).kind == TKind::Enum; }

  // How deep type_name(), type_fprintf() and params_fprintf() are in
  // their recursion. Real types nest a few levels; a loop of pointers in
  // hostile DWARF (which nothing else rejects) or a chain of thousands
  // would otherwise recurse for ever or past the stack, so past
  // kMaxNesting a name is "...".
  static constexpr int kMaxNesting = 128;
  mutable int nesting_ = 0;
  struct Nesting {
    int& depth;
    explicit Nesting(int& d) : depth(++d) {}
    ~Nesting() { --depth; }
    bool too_deep() const { return depth > kMaxNesting; }
  };
  // A name (type_name(), params_fprintf()) nests no deeper than
  // kMaxNesting, but hostile BTF or DWARF can make it branch: a prototype
  // whose two parameters point back at it doubles at every level, 2^128
  // steps. So one name, from its outermost call, takes at most
  // kMaxNameSteps of them (real names take a few dozen), and past them
  // the rest of it is "...".
  static constexpr uint32_t kMaxNameSteps = 4096;
  mutable int name_depth_ = 0;
  mutable uint32_t name_steps_ = 0;
  struct NameStep {
    const Printer& p;
    explicit NameStep(const Printer& printer) : p(printer) {
      if (p.name_depth_++ == 0) p.name_steps_ = 0;
      ++p.name_steps_;
    }
    ~NameStep() { --p.name_depth_; }
    bool spent() const { return p.name_steps_ > kMaxNameSteps; }
  };

  const Table& table_;
  // Hostile input can make expansion explode without nesting deeply: a
  // struct or union that holds itself (through an anonymous member, or any
  // member with -E) doubles at every level with two such members, and a
  // chain of distinct types with two members each does the same. A type
  // whose body is being printed is not expanded again inside it (printed
  // as a reference, as pahole does for pointers), and once one top-level
  // type's text passes kMaxTypeText (the largest of the corpus vmlinux is
  // 240 KB with -E) further members print as "...".
  static constexpr size_t kMaxTypeText = size_t{4} << 20;
  size_t text_limit_ = SIZE_MAX;
  std::vector<uint8_t> expanding_;  // per type: its body is being printed
  struct Expanding {
    uint8_t& flag;
    explicit Expanding(uint8_t& f) : flag(f) { flag = 1; }
    ~Expanding() { flag = 0; }
  };
  void limit_text(const std::string& out) { text_limit_ = out.size() + kMaxTypeText; }

  PrintOptions options_;
  std::vector<ClassInfo> info_;
  std::vector<uint32_t> alignment_memo_;  // Table::natural_alignment's
  struct Biggest {
    bool done = false;
    const Member* member = nullptr;
  };
  mutable std::vector<Biggest> biggest_memo_;  // first_biggest_member's, by type
  std::vector<Member> members_;  // the table's members, with holes filled in
};

// class__find_holes() over a struct's members (`size` its size in bytes):
// each member's hole and bit hole after it, and the struct's counts and
// padding in `c`.
void find_member_holes(std::span<Member> members, uint64_t size, Printer::ClassInfo& c);

}  // namespace btfc::layout
