// DWARF -> layout model for one unit. One depth-first walk: type DIEs get an
// index in pre-order (so the index of a DIE offset is a binary search over a
// sorted vector), references are kept as offsets and resolved when the walk
// ends, and members/enumerators/params are gathered per open parent on a
// small stack so each parent's items end up contiguous. Subtrees that cannot
// hold types (variables, call sites, parameters of functions) are skipped
// without decoding their attributes.
#include "layout/dwarf_model.h"

#include <algorithm>

#include "dwarf/line_files.h"

namespace btfc::layout {
namespace {

using namespace btfc::dwarf;

struct Frame {
  unsigned depth = 0;
  uint32_t index = 0;   // type index, 0 for a non-type scope (function, block)
  uint32_t tag = 0;
  std::vector<Member> members;
  std::vector<Enumerator> enumerators;
  std::vector<Param> params;
  std::vector<uint64_t> dims;
  std::vector<uint32_t> nested;
  bool unspec = false;
};

class Builder {
 public:
  Builder(const DwarfFile& dw, const Unit& unit, Table& t, bool decl_info, bool function_params)
      : dw_(dw), unit_(unit), t_(t), decl_info_(decl_info), function_params_(function_params) {}

  void run() {
    DieCursor cur(unit_);
    Die die;
    size_t top = 0;  // frames in use
    while (cur.next(die)) {
      unsigned depth = cur.depth();
      while (top > 0 && frames_[top - 1].depth >= depth) close(frames_[--top]);
      if (depth == 0) continue;  // the unit DIE
      Frame* parent = top ? &frames_[top - 1] : nullptr;
      uint32_t ptag = parent ? parent->tag : DW_TAG_compile_unit;
      uint32_t tag = die.tag;
      bool in_class = ptag == DW_TAG_structure_type || ptag == DW_TAG_union_type || ptag == DW_TAG_class_type;

      if (in_class && (tag == DW_TAG_member || tag == DW_TAG_inheritance)) {
        Attrs a = dw_.attrs(die);
        Member m;
        m.name = a.name;
        m.type = ref(a.type);
        m.alignment = a.alignment.value_or(0);
        if (a.data_bit_offset) {
          m.has_bit_offset = true;
          m.bit_offset = static_cast<uint32_t>(*a.data_bit_offset);
        } else {
          if (a.member_location)
            m.byte_offset = static_cast<uint32_t>(*a.member_location);
          else
            m.is_static = ptag != DW_TAG_union_type;
          m.bit_offset = m.byte_offset * 8;
          m.bitfield_offset = static_cast<int32_t>(a.bit_offset.value_or(0));
        }
        m.byte_size = static_cast<uint32_t>(a.byte_size.value_or(0));
        m.bitfield_size = static_cast<uint32_t>(a.bit_size.value_or(0));
        parent->members.push_back(m);
        if (die.has_children) cur.skip_children();
        continue;
      }
      if (ptag == DW_TAG_enumeration_type && tag == DW_TAG_enumerator) {
        Attrs a = dw_.attrs(die);
        parent->enumerators.push_back({a.name, a.const_value.u});
        if (a.const_value.kind == Value::kSigned && a.const_value.s() < 0) t_.types[parent->index].is_signed = true;
        continue;
      }
      if (ptag == DW_TAG_array_type && tag == DW_TAG_subrange_type) {
        Attrs a = dw_.attrs(die);
        uint64_t n = 0;
        if (a.upper_bound) n = static_cast<uint64_t>(*a.upper_bound) + 1;
        else if (a.has_upper_bound_ref) n = 0;
        else if (a.count) n = static_cast<uint64_t>(*a.count);
        parent->dims.push_back(n);
        continue;
      }
      if (function_params_ && ptag == DW_TAG_subprogram && tag == DW_TAG_formal_parameter) {
        // pahole's loader gives a parameter without a type its abstract
        // origin's (an out-of-line copy of an inlined function's).
        Attrs a = dw_.attrs(die);
        std::optional<uint64_t> type = a.type;
        if (!type && a.abstract_origin) type = dw_.attrs(dw_.die_at(*a.abstract_origin)).type;
        t_.function_params.push_back(ref(type));
        if (die.has_children) cur.skip_children();
        continue;
      }
      if (ptag == DW_TAG_subroutine_type) {
        if (tag == DW_TAG_formal_parameter) {
          Attrs a = dw_.attrs(die);
          parent->params.push_back({a.name, ref(a.type)});
        } else if (tag == DW_TAG_unspecified_parameters) {
          parent->unspec = true;
        }
        if (die.has_children) cur.skip_children();
        continue;
      }

      TKind kind;
      switch (tag) {
        case DW_TAG_base_type: kind = TKind::Base; break;
        case DW_TAG_pointer_type: kind = TKind::Pointer; break;
        case DW_TAG_const_type: kind = TKind::Const; break;
        case DW_TAG_volatile_type: kind = TKind::Volatile; break;
        case DW_TAG_restrict_type: kind = TKind::Restrict; break;
        case DW_TAG_atomic_type: kind = TKind::Atomic; break;
        case DW_TAG_typedef: kind = TKind::Typedef; break;
        case DW_TAG_structure_type: case DW_TAG_class_type: kind = TKind::Struct; break;
        case DW_TAG_union_type: kind = TKind::Union; break;
        case DW_TAG_enumeration_type: kind = TKind::Enum; break;
        case DW_TAG_array_type: kind = TKind::Array; break;
        case DW_TAG_subroutine_type: kind = TKind::Func; break;
        case DW_TAG_unspecified_type: kind = TKind::Unspecified; break;
        case DW_TAG_reference_type: case DW_TAG_rvalue_reference_type: case DW_TAG_ptr_to_member_type:
          kind = TKind::Other; break;
        case DW_TAG_subprogram: case DW_TAG_lexical_block: case DW_TAG_inlined_subroutine:
        case DW_TAG_namespace:
          if (die.has_children) push(top, depth, 0, tag);
          continue;
        default:
          if (die.has_children) cur.skip_children();
          continue;
      }
      Attrs a = dw_.attrs(die);
      uint32_t index = static_cast<uint32_t>(t_.types.size());
      Type ty;
      ty.kind = kind;
      ty.name = a.name;
      ty.declaration = a.declaration;
      ty.top_level = depth == 1;
      ty.alignment = static_cast<uint32_t>(a.alignment.value_or(0));
      ty.type = ref(a.type);
      ty.is_class = tag == DW_TAG_class_type;
      if (decl_info_) {
        ty.decl_file = static_cast<uint32_t>(std::min<uint64_t>(a.decl_file.value_or(0), UINT32_MAX));
        ty.decl_line = static_cast<uint32_t>(a.decl_line.value_or(0));
        ty.die_offset = die.section_offset();
      }
      switch (kind) {
        case TKind::Base:
          ty.size = a.byte_size.value_or(0);
          ty.bit_size = static_cast<uint32_t>(ty.size * 8);
          break;
        case TKind::Struct: case TKind::Union: case TKind::Enum: case TKind::Func:
          ty.size = a.byte_size.value_or(0);
          break;
        case TKind::Array:
          ty.is_vector = dw_.attr(die, 0x2107 /* DW_AT_GNU_vector */).kind != Value::kNone;
          break;
        default:
          break;
      }
      if (kind == TKind::Enum && a.type) enum_base_.push_back({index, ty.type});
      t_.types.push_back(ty);
      offsets_.push_back({die.offset, index});
      if (parent && parent->index && (ptag == DW_TAG_structure_type || ptag == DW_TAG_union_type ||
                                      ptag == DW_TAG_class_type))
        parent->nested.push_back(index);
      bool container = kind == TKind::Struct || kind == TKind::Union || kind == TKind::Enum ||
                       kind == TKind::Array || kind == TKind::Func;
      if (die.has_children) {
        if (container) push(top, depth, index, tag);
        else cur.skip_children();
      } else if (kind == TKind::Struct || kind == TKind::Union) {
        t_.classes.push_back(index);
      }
    }
    while (top > 0) close(frames_[--top]);
    resolve();
  }

 private:
  void push(size_t& top, unsigned depth, uint32_t index, uint32_t tag) {
    if (top == frames_.size()) frames_.emplace_back();
    Frame& f = frames_[top++];
    f.depth = depth;
    f.index = index;
    f.tag = tag;
    f.members.clear();
    f.enumerators.clear();
    f.params.clear();
    f.dims.clear();
    f.nested.clear();
    f.unspec = false;
  }

  void close(Frame& f) {
    if (f.index == 0) return;
    Type& ty = t_.types[f.index];
    switch (ty.kind) {
      case TKind::Struct: case TKind::Union:
        ty.first = static_cast<uint32_t>(t_.members.size());
        ty.count = static_cast<uint32_t>(f.members.size());
        t_.members.insert(t_.members.end(), f.members.begin(), f.members.end());
        ty.first_nested = static_cast<uint32_t>(t_.nested.size());
        ty.nr_nested = static_cast<uint32_t>(f.nested.size());
        t_.nested.insert(t_.nested.end(), f.nested.begin(), f.nested.end());
        t_.classes.push_back(f.index);
        break;
      case TKind::Enum:
        ty.first = static_cast<uint32_t>(t_.enumerators.size());
        ty.count = static_cast<uint32_t>(f.enumerators.size());
        t_.enumerators.insert(t_.enumerators.end(), f.enumerators.begin(), f.enumerators.end());
        break;
      case TKind::Array:
        ty.first = static_cast<uint32_t>(t_.dims.size());
        ty.count = static_cast<uint32_t>(f.dims.size());
        t_.dims.insert(t_.dims.end(), f.dims.begin(), f.dims.end());
        break;
      case TKind::Func:
        ty.first = static_cast<uint32_t>(t_.params.size());
        ty.count = static_cast<uint32_t>(f.params.size());
        ty.unspec_params = f.unspec;
        t_.params.insert(t_.params.end(), f.params.begin(), f.params.end());
        break;
      default:
        break;
    }
  }

  // References are numbered 1.. into refs_ until the walk ends.
  uint32_t ref(const std::optional<uint64_t>& off) {
    if (!off) return 0;
    refs_.push_back(*off);
    return static_cast<uint32_t>(refs_.size());
  }

  uint32_t lookup(uint32_t r) const {
    if (r == 0) return 0;
    uint64_t off = refs_[r - 1];
    auto it = std::lower_bound(offsets_.begin(), offsets_.end(), std::pair<uint64_t, uint32_t>{off, 0});
    if (it == offsets_.end() || it->first != off) return 0;  // outside this unit: void
    return it->second;
  }

  void resolve() {
    for (size_t i = 1; i < t_.types.size(); ++i) t_.types[i].type = lookup(t_.types[i].type);
    for (Member& m : t_.members) m.type = lookup(m.type);
    for (Param& p : t_.params) p.type = lookup(p.type);
    for (uint32_t& p : t_.function_params) p = lookup(p);
    // An enum is signed when its underlying type is (DW_AT_type of the enum).
    for (auto [e, b] : enum_base_) {
      (void)b;
      uint32_t base = t_.types[e].type;
      std::string_view n = t_.t(base).name;
      if (t_.t(base).kind == TKind::Base && n.find("unsigned") == std::string_view::npos && n != "_Bool")
        t_.types[e].is_signed = true;
    }
  }

  const DwarfFile& dw_;
  const Unit& unit_;
  Table& t_;
  bool decl_info_, function_params_;
  std::vector<Frame> frames_;
  std::vector<uint64_t> refs_;
  std::vector<std::pair<uint64_t, uint32_t>> offsets_;
  std::vector<std::pair<uint32_t, uint32_t>> enum_base_;
};

}  // namespace

void build_dwarf_table(const DwarfFile& dw, const Unit& unit, bool little_endian, Table& out,
                       const Bytes* debug_line, bool function_params) {
  out = Table{};
  out.unit_name = unit.name;
  if (debug_line) out.files = dwarf::decl_files(unit, *debug_line);
  out.addr_size = unit.address_size ? unit.address_size : 8;
  out.little_endian = little_endian;
  out.language = unit.language;
  out.has_alignment_info = true;
  Builder(dw, unit, out, debug_line != nullptr, function_params).run();
  out.finalize();
}

}  // namespace btfc::layout
