// The formatting rules are pahole's (dwarves_fprintf.c, dwarves.c): each
// function here corresponds to one of its routines and keeps its quirks,
// because the goal is byte-identical output. Widths follow C printf: a
// negative `*` width means left-justified, and "%*s" of " " is at least one
// space. pahole prints into fixed buffers (128 bytes for a member's type
// name), so long names are cut the same way here.
#include "layout/printer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace btfc::layout {

namespace {

constexpr int kMaxTabs = 16;

void tabs(std::string& o, int n) {
  if (n > kMaxTabs) n = kMaxTabs;
  if (n > 0) o.append(static_cast<size_t>(n), '\t');
}

// printf("%-*s", w, s)
void left(std::string& o, std::string_view s, int w) {
  if (w < 0) w = -w;
  o.append(s);
  if (static_cast<int>(s.size()) < w) o.append(static_cast<size_t>(w) - s.size(), ' ');
}

// printf("%*s", w, s)
void right(std::string& o, std::string_view s, int w) {
  if (w < 0) return left(o, s, -w);
  if (static_cast<int>(s.size()) < w) o.append(static_cast<size_t>(w) - s.size(), ' ');
  o.append(s);
}

void num(std::string& o, uint64_t v, int w) {
  char buf[32];
  int n = std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
  right(o, std::string_view(buf, static_cast<size_t>(n)), w);
}

// printf("%#*x", w, v): in hex, "0x" before any value but 0 (--hex).
void hex_num(std::string& o, uint64_t v, int w) {
  char buf[32];
  int n = std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(v));
  right(o, std::string_view(buf, static_cast<size_t>(n)), w);
}

// pahole's "/* offset[:bit_offset] size */" after a member; in hex with
// --hex (its widths then count the "0x").
void offset_comment(std::string& o, uint32_t offset, const Member& member, int size, bool hex) {
  auto number = hex ? hex_num : num;
  int size_spacing = 5;
  o += "/* ";
  number(o, offset, 5);
  if (member.bitfield_size != 0) {
    o += ':';
    number(o, static_cast<uint32_t>(member.bitfield_offset), 2);
    size_spacing -= 3;
  }
  o += ' ';
  number(o, static_cast<uint32_t>(size), size_spacing);
  o += " */";
}

void snum(std::string& o, int64_t v) {
  char buf[32];
  int n = std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  o.append(buf, static_cast<size_t>(n));
}

std::string cut(std::string s, size_t len) {
  if (len && s.size() > len - 1) s.resize(len - 1);
  return s;
}

}  // namespace

struct Printer::Conf {
  int indent = 0;
  int type_spacing = 26;
  int name_spacing = 23;
  const char* prefix = nullptr;
  const std::string* suffix = nullptr;
  bool emit_stats = true;
  bool suppress_offset_comment = false;
  bool rel_offset = false;
  bool last_member = false, first_member = false, union_member = false;
  bool expand_types = false;
  uint32_t base_offset = 0;
  uint32_t* cachelinep = nullptr;
};

struct TypeHoles {
  uint16_t nr_paddings = 0, nr_with_bit_paddings = 0, nr_with_holes = 0, nr_with_bit_holes = 0;
  uint16_t total_nr_holes = 0, total_nr_bit_holes = 0, nr_flexible = 0, nr_embedded_flexible = 0;
  uint32_t sum_paddings = 0, sum_bit_paddings = 0;
};

Printer::Printer(const Table& table, const PrintOptions& options)
    : table_(table), expanding_(table.types.size()), options_(options), info_(table.types.size()),
      alignment_memo_(table.types.size()), members_(table.members) {
  if (options_.cacheline_size == 0) options_.cacheline_size = 64;
}

// ---- type names (tag__name) ---------------------------------------------------

std::string Printer::ptr_name(uint32_t index, const char* suffix) const {
  const Type& ty = table_.t(index);
  if (ty.type == 0) return std::string("void ") + suffix;
  uint32_t type = ty.type;
  const char* const_pointer = "";
  if (table_.t(type).kind == TKind::Const) {
    uint32_t next = table_.t(type).type;
    if (next && table_.t(next).kind == TKind::Pointer) {
      const_pointer = "const ";
      type = next;
    }
  }
  return type_name(type, 1024) + " " + const_pointer + suffix;
}

std::string Printer::type_name(uint32_t index, size_t limit) const {
  if (index == 0) return cut("void", limit);
  Nesting nesting(nesting_);
  NameStep step(*this);
  if (nesting.too_deep() || step.spent()) return cut("...", limit);
  const Type& ty = table_.t(index);
  std::string s;
  switch (ty.kind) {
    case TKind::Void: s = "void"; break;
    case TKind::Base: s = ty.name.empty() ? "nameless base type!" : std::string(ty.name); break;
    case TKind::Pointer: s = ptr_name(index, "*"); break;
    case TKind::Other: s = ptr_name(index, "&"); break;
    case TKind::Const: case TKind::Volatile: case TKind::Restrict: case TKind::Atomic:
    case TKind::Unspecified: {
      std::string inner = ty.type ? type_name(ty.type, 128) : std::string("void");
      const char* prefix = ty.kind == TKind::Const ? "const " : ty.kind == TKind::Volatile ? "volatile "
                           : ty.kind == TKind::Atomic ? "_Atomic " : "";
      const char* suffix = ty.kind == TKind::Restrict ? " restrict" : "";
      s = std::string(prefix) + inner + suffix + " ";
      break;
    }
    case TKind::Array: case TKind::Annotation: return type_name(ty.type, limit);
    case TKind::Func: ftype_fprintf(index, nullptr, false, false, 0, true, s); break;
    case TKind::Struct:
      s = std::string(ty.is_class && !options_.classes_as_structs ? "class " : "struct ") + std::string(ty.name);
      break;
    case TKind::Union: s = "union " + std::string(ty.name); break;
    case TKind::Enum: s = "enum " + std::string(ty.name); break;
    case TKind::Typedef: s = std::string(ty.name); break;
  }
  return cut(std::move(s), limit);
}

size_t Printer::ftype_fprintf(uint32_t type, const std::string* name, bool inlined, bool is_pointer, int type_spacing,
                              bool is_prototype, std::string& o) const {
  size_t start = o.size();
  const Type& ft = table_.t(type);
  std::string stype = type_name(ft.type, 128);
  if (inlined) o += "inline ";
  left(o, stype, type_spacing);
  o += ' ';
  if (is_prototype) o += '(';
  if (is_pointer) o += '*';
  if (name) o += *name;
  if (is_prototype) o += ')';
  params_fprintf(type, o);
  return o.size() - start;
}

size_t Printer::params_fprintf(uint32_t type, std::string& o) const {
  size_t start = o.size();
  // A prototype whose parameter points back at it (hostile DWARF or BTF)
  // recurses through ftype_fprintf without passing type_name's guard.
  Nesting nesting(nesting_);
  NameStep step(*this);
  if (nesting.too_deep() || step.spent()) {
    o += "(...)";
    return o.size() - start;
  }
  const Type& ft = table_.t(type);
  o += '(';
  bool first = true;
  for (uint32_t k = 0; k < ft.count; ++k) {
    const Param& p = table_.params[ft.first + k];
    if (!first) o += ", ";
    first = false;
    if (step.spent()) {  // the parameters before took the name's steps
      o += "...)";
      return o.size() - start;
    }
    std::string pname(p.name);
    const std::string* name = p.name.empty() ? nullptr : &pname;
    const Type& pt = table_.t(p.type);
    if (p.type == 0) {
      o += "void";
      if (name) o += " " + pname;
      continue;
    }
    if (pt.kind == TKind::Pointer) {
      if (pt.type != 0 && table_.t(pt.type).kind == TKind::Func) {
        ftype_fprintf(pt.type, name ? name : &pname, false, true, 0, true, o);
        continue;
      }
    } else if (pt.kind == TKind::Func) {
      ftype_fprintf(p.type, name ? name : &pname, true, false, 0, false, o);
      continue;
    }
    o += type_name(p.type, 128);
    if (name) o += " " + pname;
  }
  if (first)
    o += "void)";
  else if (ft.unspec_params)
    o += ", ...)";
  else
    o += ")";
  return o.size() - start;
}

// ---- holes, packing (dwarves.c) ---------------------------------------------

const Printer::ClassInfo& Printer::holes(uint32_t index) {
  find_holes(index);
  return info_[index];
}

bool Printer::has_hole_ge(uint32_t index, uint32_t size) {
  if (holes(index).nr_holes == 0) return false;
  const Type& ty = table_.t(index);
  for (uint32_t k = 0; k < ty.count; ++k)
    if (!members_[ty.first + k].is_static && members_[ty.first + k].hole >= static_cast<int64_t>(size)) return true;
  return false;
}

namespace {
// a - b as pahole computes it from unsigned fields into an int: wrapping,
// never overflowing (hostile offsets are anything).
int wrapped_difference(uint32_t a, uint32_t b) { return static_cast<int>(a - b); }
}  // namespace

void Printer::find_holes(uint32_t index) {
  const Type& ty = table_.t(index);
  if (ty.kind != TKind::Struct) return;
  ClassInfo& c = info_[index];
  if (c.holes_searched) return;
  find_member_holes(std::span<Member>(members_.data() + ty.first, ty.count), ty.size, c);
}

void find_member_holes(std::span<Member> members, uint64_t size, Printer::ClassInfo& c) {
  c.nr_holes = c.nr_bit_holes = 0;
  uint32_t cur_bitfield_end = static_cast<uint32_t>(size * 8), cur_bitfield_size = 0;
  uint32_t last_seen_bit = 0;
  bool in_bitfield = false;
  Member* last = nullptr;
  for (Member& pos : members) {
    if (pos.is_static) continue;
    pos.bit_hole = 0;
    pos.hole = 0;
    uint32_t bit_start = pos.bit_offset;
    uint32_t bit_end = pos.bitfield_size ? bit_start + pos.bitfield_size : bit_start + pos.byte_size * 8;
    int bit_holes = 0, byte_holes = 0;
    if (in_bitfield) {
      uint32_t bitfield_end = std::min(bit_start, cur_bitfield_end);
      bit_holes = wrapped_difference(bitfield_end, last_seen_bit);
      last_seen_bit = bitfield_end;
    }
    if (pos.bitfield_size) {
      uint32_t aligned_start = pos.byte_offset * 8;
      if (last_seen_bit < aligned_start && aligned_start <= bit_start) {
        byte_holes = wrapped_difference(pos.byte_offset, last_seen_bit / 8);
        last_seen_bit = aligned_start;
      }
      bit_holes = static_cast<int>(static_cast<uint32_t>(bit_holes) + (bit_start - last_seen_bit));
    } else {
      byte_holes = wrapped_difference(bit_start / 8, last_seen_bit / 8);
    }
    last_seen_bit = bit_end;
    if (pos.bitfield_size) {
      in_bitfield = true;
      if (bit_end > cur_bitfield_end || pos.bit_size > cur_bitfield_size) {
        cur_bitfield_size = pos.bit_size;
        cur_bitfield_end = pos.byte_offset * 8 + cur_bitfield_size;
        if (bit_end > cur_bitfield_end) cur_bitfield_end += cur_bitfield_size;
      }
    } else {
      in_bitfield = false;
      cur_bitfield_size = 0;
      cur_bitfield_end = bit_end;
    }
    if (last) {
      last->hole = static_cast<uint16_t>(byte_holes);  // pahole keeps a member's hole in 16 bits
      last->bit_hole = bit_holes;
    } else {
      c.pre_hole = byte_holes;
      c.pre_bit_hole = bit_holes;
    }
    if (bit_holes) c.nr_bit_holes++;
    if (byte_holes != 0) c.nr_holes++;
    last = &pos;
  }
  if (in_bitfield) {
    uint32_t bitfield_end = static_cast<uint32_t>(std::min<uint64_t>(size * 8, cur_bitfield_end));
    c.bit_padding = static_cast<uint8_t>(bitfield_end - last_seen_bit);
    last_seen_bit = bitfield_end;
  } else {
    c.bit_padding = 0;
  }
  // pahole keeps the padding in 16 bits and the bit padding in 8: a size
  // smaller than the members (broken DWARF, hostile BTF) wraps, as there,
  // and bounds the "Force padding" lines printed from it.
  c.padding = static_cast<uint16_t>(static_cast<uint32_t>(size) - last_seen_bit / 8);
  c.holes_searched = true;
}

uint32_t Printer::add_clone(Table& table, uint32_t original, std::span<const Member> members, uint64_t size) {
  Type clone = table.t(original);
  clone.first = static_cast<uint32_t>(table.members.size());
  clone.count = static_cast<uint32_t>(members.size());
  clone.size = size;
  table.members.insert(table.members.end(), members.begin(), members.end());
  members_.insert(members_.end(), members.begin(), members.end());
  biggest_memo_.clear();  // it points into members_
  const uint32_t at = static_cast<uint32_t>(table.types.size());
  table.types.push_back(clone);
  ClassInfo info = info_[original < info_.size() ? original : 0];
  info.holes_searched = false;  // its own members' holes
  info_.push_back(info);
  expanding_.push_back(0);
  alignment_memo_.push_back(0);
  return at;
}

uint32_t Printer::natural_alignment(uint32_t index) { return table_.natural_alignment(index, alignment_memo_); }

void Printer::check_unnatural(uint32_t index) {
  const Type& ty = table_.t(index);
  for (uint32_t k = 0; k < ty.count; ++k) {
    const Member& m = members_[ty.first + k];
    uint32_t mt = table_.strip(m.type);
    if (mt == 0 || !is_struct(mt)) continue;
    uint32_t na = natural_alignment(mt);
    if (m.byte_offset % na != 0) {
      info_[mt].is_packed = true;
      info_[mt].packed_inferred = true;
    }
  }
}

bool Printer::infer_packed(uint32_t index) {
  const Type& ty = table_.t(index);
  if (ty.kind != TKind::Struct) return false;
  ClassInfo& c = info_[index];
  if (c.packed_inferred) return c.is_packed;
  find_holes(index);
  if (c.padding != 0 || c.nr_holes != 0) {
    check_unnatural(index);
    c.is_packed = false;
    c.packed_inferred = true;
    return false;
  }
  uint32_t max_na = 1;
  for (uint32_t k = 0; k < ty.count; ++k) {
    const Member& m = members_[ty.first + k];
    if (m.is_static) continue;
    uint32_t mt = table_.strip(m.type);
    uint32_t na = natural_alignment(mt);
    if (na == 1) continue;
    if (max_na < na) max_na = na;
    if (m.byte_offset % na == 0) continue;
    c.is_packed = true;
    c.packed_inferred = true;
    return true;
  }
  if ((max_na != 1 && ty.alignment == 1) || (table_.size_of(index) % max_na) != 0) c.is_packed = true;
  c.packed_inferred = true;
  return c.is_packed;
}

void Printer::union_infer_packed(uint32_t index) {
  const Type& ty = table_.t(index);
  ClassInfo& c = info_[index];
  if (c.packed_inferred) return;
  for (uint32_t k = 0; k < ty.count; ++k) {
    const Member& m = members_[ty.first + k];
    uint32_t mt = table_.strip(m.type);
    if (mt == 0 || !is_struct(mt)) continue;
    uint32_t na = natural_alignment(mt);
    if (ty.size % na != 0) {
      info_[mt].is_packed = true;
      info_[mt].packed_inferred = true;
    }
  }
  c.packed_inferred = true;
}

bool Printer::has_flexible_array(uint32_t index) {
  ClassInfo& c = info_[index];
  if (!c.flex_verified) {
    c.flex_verified = true;
    const Type& ty = table_.t(index);
    c.has_flex = false;
    if (ty.count) {
      const Member& m = members_[ty.first + ty.count - 1];
      const Type& at = table_.t(m.type);
      // No dimension at all, or one of 0 (pahole: of a one-dimensional array).
      if (m.type && at.kind == TKind::Array && (at.count <= 1 || options_.flexible_multi_dim)) {
        c.has_flex = at.count == 0;
        for (uint32_t i = 0; i < at.count && !c.has_flex; ++i)
          c.has_flex = static_cast<uint32_t>(table_.dims[at.first + i]) == 0;
      }
    }
  }
  return c.has_flex;
}

bool Printer::has_embedded_flexible_array(uint32_t index) {
  if (!is_struct(index)) return false;
  ClassInfo& c = info_[index];
  if (c.embedded_searched) return c.has_embedded;
  c.embedded_searched = true;  // set early: recursion through pointers is impossible, loops are not
  const Type& ty = table_.t(index);
  for (uint32_t k = 0; k < ty.count; ++k) {
    const Member& m = members_[ty.first + k];
    if (m.is_static) continue;
    uint32_t mt = table_.strip(m.type);
    if (mt == 0 || !is_struct(mt)) continue;
    c.has_embedded = has_flexible_array(mt);
    if (c.has_embedded) break;
    if (mt == index) continue;
    c.has_embedded = has_embedded_flexible_array(mt);
    if (c.has_embedded) break;
  }
  return c.has_embedded;
}

// type__find_first_biggest_size_base_type_member(): the first member of
// the largest power-of-two size up to the word, a struct or union member
// standing for its own such member; past the word size, that member
// itself. Sizes come through arrays, typedefs, const and volatile; a
// member of another kind (restrict, _Atomic, a prototype) counts 0.
// Memoised per type: hostile input can nest structs of two such members
// 128 levels deep (2^128 paths), or a struct in itself.
const Member* Printer::first_biggest_member(uint32_t index, int depth) const {
  if (depth > kMaxNesting || index >= table_.types.size()) return nullptr;
  if (biggest_memo_.empty()) biggest_memo_.assign(table_.types.size(), {});
  if (biggest_memo_[index].done) return biggest_memo_[index].member;
  biggest_memo_[index].done = true;  // inside itself: nothing
  const Member* found = first_biggest_member_of(index, depth);
  biggest_memo_[index].member = found;
  return found;
}

const Member* Printer::first_biggest_member_of(uint32_t index, int depth) const {
  const Type& ty = table_.t(index);
  const uint32_t word = table_.addr_size;
  const Member* result = nullptr;
  uint32_t result_size = 0;
  for (uint32_t k = 0; k < ty.count; ++k) {
    const Member& pos = members_[ty.first + k];
    if (pos.is_static) continue;
    const Member* inner = nullptr;
    uint64_t member_size = 0;
    uint32_t type = pos.type;
    bool skip = false;
    for (int guard = 0; guard < 64 && type != 0; ++guard) {
      const Type& t = table_.t(type);
      if (t.kind == TKind::Array || t.kind == TKind::Const || t.kind == TKind::Typedef || t.kind == TKind::Volatile) {
        type = t.type;
        continue;
      }
      if (t.kind == TKind::Base) member_size = t.bit_size / 8;
      else if (t.kind == TKind::Pointer) member_size = word;
      else if (t.kind == TKind::Enum) member_size = t.size;
      else if (t.kind == TKind::Struct || t.kind == TKind::Union) {
        if (t.count == 0) skip = true;
        else if ((inner = first_biggest_member(type, depth + 1))) member_size = inner->byte_size;
      }
      break;
    }
    if (skip) continue;
    if (member_size > word) return &pos;
    for (uint32_t power2 = word; power2 > result_size; power2 /= 2)
      if (member_size >= power2) {
        if (power2 == word) return inner ? inner : &pos;
        result_size = power2;
        result = inner ? inner : &pos;
      }
  }
  return result;
}

// ---- printing ---------------------------------------------------------------

size_t Printer::cacheline_boundary(Conf& conf, uint32_t offset, std::string& o) const {
  size_t start = o.size();
  uint32_t cl = options_.cacheline_size;
  uint32_t cacheline = offset / cl;
  if (cacheline > *conf.cachelinep) {
    uint32_t pos = offset % cl;
    char buf[160];
    int n;
    if (pos == 0)
      n = std::snprintf(buf, sizeof buf, "/* --- cacheline %u boundary (%u bytes) --- */\n", cacheline, offset - pos);
    else
      n = std::snprintf(buf, sizeof buf, "/* --- cacheline %u boundary (%u bytes) was %u byte%s ago --- */\n",
                        cacheline, offset - pos, pos, pos > 1 ? "s" : "");
    o.append(buf, static_cast<size_t>(n));
    tabs(o, conf.indent);
    *conf.cachelinep = cacheline;
  }
  return o.size() - start;
}

size_t Printer::type_fprintf(uint32_t type, const std::string* name, const Conf& conf, std::string& o) {
  size_t start = o.size();
  Nesting nesting(nesting_);
  if (nesting.too_deep() || o.size() > text_limit_) {
    o += "... ";
    if (name) o += *name;
    return o.size() - start;
  }
  static const std::string kEmpty;
  std::string namebuf;
  Conf tconf = conf;
  bool expand_types = conf.expand_types;
  if (type == 0) {
    left(o, "<ERROR", tconf.type_spacing);
    o += "> ";
    if (name) o += *name;
    return o.size() - start;
  }
  if (expand_types) {
    bool typedef_expanded = false;
    for (int guard = 0; guard < 64 && table_.t(type).kind == TKind::Typedef; ++guard) {
      if (typedef_expanded) {
        o += " -> ";
        o += table_.t(type).name;
      } else {
        o += "/* typedef ";
        o += table_.t(type).name;
        typedef_expanded = true;
      }
      type = table_.t(type).type;
      if (type == 0) break;
    }
    if (typedef_expanded) o += " */ ";
  }
  auto inner = [&] {
    tconf.prefix = nullptr;
    tconf.suffix = name;
    tconf.emit_stats = false;
  };
  if (is_struct(type) || is_union(type) || is_enum(type)) inner();
  for (int guard = 0; guard < 64; ++guard) {
    const Type& ty = table_.t(type);
    switch (ty.kind) {
      case TKind::Pointer: {
        uint32_t pt = ty.type;
        while (pt && table_.t(pt).kind == TKind::Annotation) pt = table_.t(pt).type;
        if (pt != 0) {
          const Type& p = table_.t(pt);
          if (p.kind == TKind::Func) {
            ftype_fprintf(pt, name, false, true, tconf.type_spacing, true, o);
            return o.size() - start;
          }
          if ((p.kind == TKind::Struct || p.kind == TKind::Union || p.kind == TKind::Enum) && p.name.empty()) {
            namebuf = "* " + (name ? *name : kEmpty);
            if (namebuf.size() > 257) namebuf.resize(257);
            name = &namebuf;
            tconf.rel_offset = true;
            type = pt;
            tconf.type_spacing -= 8;
            inner();
            continue;
          }
        }
        [[fallthrough]];
      }
      default:
        left(o, type_name(type, 128), tconf.type_spacing);
        o += ' ';
        if (name) o += *name;
        return o.size() - start;
      case TKind::Func:
        ftype_fprintf(type, name, false, false, tconf.type_spacing, true, o);
        return o.size() - start;
      case TKind::Const: case TKind::Atomic: {
        const char* mod = ty.kind == TKind::Const ? "const " : "_Atomic ";
        o += mod;
        tconf.type_spacing -= static_cast<int>(std::strlen(mod));
        if (ty.type) {
          type = ty.type;
          continue;
        }
        left(o, type_name(type, 128), tconf.type_spacing);
        o += ' ';
        if (name) o += *name;
        return o.size() - start;
      }
      case TKind::Array:
        array_fprintf(type, name, tconf, o);
        return o.size() - start;
      case TKind::Struct:
        if ((!ty.name.empty() && !expand_types) || expanding_[type]) {
          o += ty.is_class && !options_.classes_as_structs ? "class " : "struct ";
          left(o, ty.name, tconf.type_spacing - 7);
          o += ' ';
          if (name) o += *name;
        } else {
          find_holes(type);
          tconf.type_spacing -= 8;
          tconf.expand_types = expand_types;
          class_fprintf(type, tconf, o);
        }
        return o.size() - start;
      case TKind::Union:
        union_decl_fprintf(type, name, tconf, o);
        return o.size() - start;
      case TKind::Enum:
        if (!ty.name.empty() && !expand_types) {
          o += "enum ";
          left(o, ty.name, tconf.type_spacing - 5);
          o += ' ';
          if (name) o += *name;
        } else {
          enum_fprintf(type, tconf, o);
        }
        return o.size() - start;
      case TKind::Annotation:
        type = ty.type;
        continue;
    }
  }
  return o.size() - start;
}

size_t Printer::array_fprintf(uint32_t type, const std::string* name, const Conf& conf, std::string& o) {
  size_t start = o.size();
  const Type& at = table_.t(type);
  uint32_t elem = at.type;
  if (at.count >= 1 && static_cast<uint32_t>(table_.dims[at.first]) == 0 && table_.t(elem).kind == TKind::Const)
    elem = table_.t(elem).type;
  type_fprintf(elem, name, conf, o);
  unsigned long long flat = 0;
  bool single_member = conf.last_member && conf.first_member;
  for (uint32_t i = 0; i < at.count; ++i) {
    uint32_t n = static_cast<uint32_t>(table_.dims[at.first + i]);
    if (options_.flat_arrays || at.is_vector) {
      if (n == 0 && i == 0) break;
      flat = flat ? flat * n : n;
    } else if (n != 0 || !conf.last_member || single_member || conf.union_member) {
      o += '[';
      num(o, n, 0);
      o += ']';
    } else {
      o += "[]";
    }
  }
  if (at.is_vector) {
    uint32_t t = at.type;
    while (t && table_.t(t).kind == TKind::Typedef) t = table_.t(t).type;
    if (flat == 0) flat = 1;
    o += " __attribute__ ((__vector_size__ (";
    num(o, flat * table_.size_of(t), 0);
    o += ")))";
  } else if (options_.flat_arrays) {
    if (flat != 0 || !conf.last_member || single_member || conf.union_member) {
      o += '[';
      num(o, flat, 0);
      o += ']';
    } else {
      o += "[]";
    }
  }
  return o.size() - start;
}

size_t Printer::union_decl_fprintf(uint32_t type, const std::string* name, const Conf& conf, std::string& o) {
  size_t start = o.size();
  const Type& ty = table_.t(type);
  if ((!ty.name.empty() && !conf.expand_types) || expanding_[type]) {
    o += "union ";
    left(o, ty.name, conf.type_spacing - 6);
    o += ' ';
    if (name) o += *name;
    return o.size() - start;
  }
  Conf tconf = conf;
  tconf.type_spacing -= 8;
  tconf.suffix = name;
  union_fprintf(type, tconf, o);
  return o.size() - start;
}

size_t Printer::union_fprintf(uint32_t type, const Conf& conf, std::string& o) {
  size_t start = o.size();
  const Type& ty = table_.t(type);
  Expanding expanding(expanding_[type]);
  int indent = std::min(conf.indent, kMaxTabs);
  if (conf.prefix) {
    o += conf.prefix;
    o += ' ';
  }
  o += "union";
  if (!ty.name.empty()) {
    o += ' ';
    o += ty.name;
  }
  o += " {\n";
  Conf uconf = conf;
  uconf.indent = indent + 1;
  union_infer_packed(type);
  uint32_t cacheline = 0;
  if (!uconf.cachelinep) uconf.cachelinep = &cacheline;
  uint32_t initial = *uconf.cachelinep;
  for (uint32_t k = 0; k < ty.count; ++k) {
    uint32_t mi = ty.first + k;
    uconf.union_member = true;
    tabs(o, uconf.indent);
    member_fprintf(mi, true, members_[mi].type, uconf, o);
    o += '\n';
    *uconf.cachelinep = initial;
  }
  tabs(o, indent);
  o += '}';
  if (conf.suffix) {
    o += ' ';
    o += *conf.suffix;
  }
  return o.size() - start;
}

size_t Printer::enum_fprintf(uint32_t type, const Conf& conf, std::string& o) {
  size_t start = o.size();
  const Type& ty = table_.t(type);
  o += "enum";
  if (!ty.name.empty()) {
    o += ' ';
    o += ty.name;
  }
  if (ty.count == 0) return o.size() - start;
  o += " {\n";
  int indent = std::min(conf.indent, kMaxTabs);
  int maxlen = 0;
  for (uint32_t k = 0; k < ty.count; ++k)
    maxlen = std::max(maxlen, static_cast<int>(table_.enumerators[ty.first + k].name.size()));
  for (uint32_t k = 0; k < ty.count; ++k) {
    const Enumerator& e = table_.enumerators[ty.first + k];
    tabs(o, indent);
    o += '\t';
    left(o, e.name, maxlen);
    o += " = ";
    if (options_.hex)
      hex_num(o, e.value, 0);
    else if (ty.is_signed)
      snum(o, static_cast<int64_t>(e.value));
    else
      num(o, e.value, 0);
    o += ",\n";
  }
  tabs(o, indent);
  o += '}';
  if (ty.size != 4) o += " __attribute__((__packed__))";
  if (conf.suffix) {
    o += ' ';
    o += *conf.suffix;
  }
  return o.size() - start;
}

size_t Printer::member_fprintf(uint32_t mi, bool union_member, uint32_t type, Conf& conf, std::string& o) {
  const Member& member = members_[mi];
  int size = static_cast<int>(member.byte_size);
  size_t member_alignment_printed = 0;
  Conf sconf = conf;
  uint32_t offset = member.byte_offset;
  std::string cm_name(member.name);
  const std::string* name = member.name.empty() ? nullptr : &cm_name;
  if (!sconf.rel_offset) {
    offset += sconf.base_offset;
    if (!union_member) sconf.base_offset = offset;
  }
  if (member.bitfield_offset < 0) offset += member.byte_size;
  size_t printed_cacheline = options_.quiet ? 0 : cacheline_boundary(conf, offset, o);
  size_t start = o.size();
  if (member.is_static) o += "static ";
  const Type& ty = table_.t(type);
  bool aggregate = type != 0 && (ty.kind == TKind::Struct || ty.kind == TKind::Union || ty.kind == TKind::Enum);
  if (aggregate) {
    type_fprintf(type, nullptr, sconf, o);
    if (name) {
      if (ty.name.empty() || sconf.expand_types) o += ' ';
      o += *name;
    }
  } else {
    type_fprintf(type, name, sconf, o);
  }
  if (!member.is_static && member.bitfield_size != 0) {
    o += ':';
    num(o, member.bitfield_size, 0);
  }
  if (!options_.suppress_aligned_attribute && member.alignment != 0) {
    size_t before = o.size();
    o += " __attribute__((__aligned__(";
    num(o, member.alignment, 0);
    o += ")))";
    member_alignment_printed = o.size() - before;
  }
  o += ';';
  int printed = static_cast<int>(o.size() - start);
  if (aggregate && ty.name.empty()) {
    if (!sconf.suppress_offset_comment) {
      int slen = static_cast<int>(member_alignment_printed) + (name ? static_cast<int>(name->size()) : -1);
      if (ty.kind == TKind::Struct && info_[type].is_packed && !options_.suppress_packed)
        slen += static_cast<int>(sizeof("__attribute__((__packed__))"));
      right(o, " ", sconf.type_spacing + sconf.name_spacing - slen - 3);
      offset_comment(o, offset, member, size, options_.hex);
    }
  } else {
    int spacing = sconf.type_spacing + sconf.name_spacing - printed;
    if (!sconf.suppress_offset_comment) {
      right(o, " ", spacing > 0 ? spacing : 0);
      offset_comment(o, offset, member, size, options_.hex);
    }
  }
  return o.size() - start + printed_cacheline;
}

size_t Printer::member_type_holes(uint32_t cls, TypeHoles& h, uint8_t& newline, const Conf& conf, std::string& o) {
  size_t start = o.size();
  find_holes(cls);
  infer_packed(cls);
  const ClassInfo& c = info_[cls];
  int padding = static_cast<uint16_t>(c.padding);
  int bit_padding = static_cast<uint8_t>(c.bit_padding);
  int nr_holes = static_cast<uint8_t>(c.nr_holes);
  int nr_bit_holes = static_cast<uint8_t>(c.nr_bit_holes);
  bool flex = has_flexible_array(cls);
  bool embedded = has_embedded_flexible_array(cls);
  if (!padding && !bit_padding && !nr_holes && !nr_bit_holes && !flex && !embedded) return 0;
  if (!newline++) o += '\n';
  o += '\n';
  tabs(o, conf.indent);
  o += "/* XXX last struct has";
  bool first = true;
  // One ", N unit[s] tail" item of the comment (no comma before the first).
  auto item = [&](int n, const char* unit, const char* tail) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s %d %s%s%s", first ? "" : ",", n, unit, n != 1 ? "s" : "", tail);
    o += buf;
    first = false;
  };
  if (flex) {
    o += " a flexible array";
    ++h.nr_flexible;
    first = false;
  }
  if (embedded) {
    o += first ? "" : ",";
    o += " embedded flexible array(s)";
    ++h.nr_embedded_flexible;
    first = false;
  }
  if (padding) {
    ++h.nr_paddings;
    h.sum_paddings += static_cast<uint32_t>(padding);
    item(padding, "byte", " of padding");
  }
  if (bit_padding) {
    ++h.nr_with_bit_paddings;
    h.sum_bit_paddings += static_cast<uint32_t>(bit_padding);
    item(bit_padding, "bit", " of padding");
  }
  if (nr_holes) {
    ++h.nr_with_holes;
    h.total_nr_holes += static_cast<uint16_t>(nr_holes);
    item(nr_holes, "hole", "");
  }
  if (nr_bit_holes) {
    ++h.nr_with_bit_holes;
    h.total_nr_bit_holes += static_cast<uint16_t>(nr_bit_holes);
    item(nr_bit_holes, "bit hole", "");
  }
  o += " */";
  return o.size() - start;
}

size_t Printer::class_fprintf(uint32_t index, const Conf& conf, std::string& o) {
  size_t start = o.size();
  const Type& ty = table_.t(index);
  Expanding expanding(expanding_[index]);
  uint8_t newline = 0;
  uint16_t nr_forced_alignments = 0, nr_forced_alignment_holes = 0;
  uint32_t sum_forced_alignment_holes = 0;
  uint32_t sum_bytes = 0, sum_bits = 0, sum_holes = 0, sum_bit_holes = 0;
  TypeHoles mth;
  uint32_t cacheline = 0;
  Conf cconf = conf;
  char buf[256];
  if (cconf.prefix) {
    o += cconf.prefix;
    o += ' ';
  }
  o += ty.is_class && !options_.classes_as_structs ? "class" : "struct";
  if (!ty.name.empty()) {
    o += ' ';
    o += ty.name;
  }
  int indent = std::min(cconf.indent, kMaxTabs);
  if (!cconf.cachelinep) cconf.cachelinep = &cacheline;
  cconf.indent = indent + 1;
  infer_packed(index);
  find_holes(index);
  const ClassInfo& c = info_[index];
  o += " {\n";
  const bool comments = !options_.quiet;
  if (c.pre_bit_hole > 0 && comments) {
    if (!newline++) o += '\n';
    tabs(o, cconf.indent);
    std::snprintf(buf, sizeof buf, "/* XXX %d bit%s hole, try to pack */\n", c.pre_bit_hole,
                  c.pre_bit_hole != 1 ? "s" : "");
    o += buf;
    sum_bit_holes += static_cast<uint32_t>(c.pre_bit_hole);
  }
  if (c.pre_hole > 0 && comments) {
    if (!newline++) o += '\n';
    tabs(o, cconf.indent);
    std::snprintf(buf, sizeof buf, "/* XXX %d byte%s hole, try to pack */\n", c.pre_hole, c.pre_hole != 1 ? "s" : "");
    o += buf;
    sum_holes += static_cast<uint32_t>(c.pre_hole);
  }
  const Member* last = nullptr;
  size_t last_size = 0;
  for (uint32_t k = 0; k < ty.count; ++k) {
    uint32_t mi = ty.first + k;
    const Member& pos = members_[mi];
    if (!options_.suppress_aligned_attribute && pos.alignment != 0) {
      int32_t forced = last ? last->hole : c.pre_hole;
      if (forced != 0) {
        ++nr_forced_alignment_holes;
        sum_forced_alignment_holes += static_cast<uint32_t>(forced);
      }
      ++nr_forced_alignments;
    }
    if (last != nullptr && last_size != 0) {
      if (last->bit_hole != 0 && pos.bitfield_size) {
        uint32_t bitfield_size = static_cast<uint8_t>(last->bit_hole);
        if (last->byte_offset != pos.byte_offset) {
          o += '\n';
          tabs(o, cconf.indent);
          o += "/* Force alignment to the next boundary: */\n";
          bitfield_size = 0;
        }
        tabs(o, cconf.indent);
        static const std::string kEmpty;
        type_fprintf(pos.type, &kEmpty, cconf, o);
        o += ':';
        num(o, bitfield_size, 0);
        o += ";\n";
      }
      if (pos.byte_offset < last->byte_offset ||
          (pos.byte_offset == last->byte_offset && last->bitfield_size == 0 && pos.bitfield_size != 0)) {
        if (comments) {
          if (!newline++) o += '\n';
          tabs(o, cconf.indent);
          o += "/* Bitfield combined with previous fields */\n";
        }
      } else {
        int64_t cc_last_size = static_cast<int64_t>(pos.byte_offset) - static_cast<int64_t>(last->byte_offset);
        if (cc_last_size > 0 && static_cast<size_t>(cc_last_size) < last_size && comments) {
          if (!newline++) o += '\n';
          tabs(o, cconf.indent);
          o += "/* Bitfield combined with next fields */\n";
        }
      }
    }
    if (newline) {
      o += '\n';
      newline = 0;
    }
    cconf.last_member = k + 1 == ty.count;
    cconf.first_member = last == nullptr;
    size_t size = pos.byte_size;
    tabs(o, cconf.indent);
    member_fprintf(mi, false, pos.type, cconf, o);
    if (pos.type && is_struct(pos.type) && comments) member_type_holes(pos.type, mth, newline, cconf, o);
    if (pos.bit_hole != 0 && comments) {
      if (!newline++) o += '\n';
      o += '\n';
      tabs(o, cconf.indent);
      std::snprintf(buf, sizeof buf, "/* XXX %d bit%s hole, try to pack */", pos.bit_hole,
                    pos.bit_hole != 1 ? "s" : "");
      o += buf;
      sum_bit_holes += static_cast<uint32_t>(pos.bit_hole);
    }
    if (pos.hole > 0 && comments) {
      if (!newline++) o += '\n';
      o += '\n';
      tabs(o, cconf.indent);
      std::snprintf(buf, sizeof buf, "/* XXX %d byte%s hole, try to pack */", pos.hole, pos.hole != 1 ? "s" : "");
      o += buf;
      sum_holes += static_cast<uint32_t>(pos.hole);
    }
    o += '\n';
    if (pos.bitfield_size)
      sum_bits += pos.bitfield_size;
    else
      sum_bytes += static_cast<uint32_t>(size);
    if (last == nullptr || last_size == 0 || last->byte_offset != pos.byte_offset) {
      last_size = size;
    } else if (last->bitfield_size == 0 && pos.bitfield_size != 0) {
      last_size = size;
    }
    last = &pos;
  }
  if (c.padding != 0 && ty.alignment == 0 && table_.has_alignment_info && !options_.suppress_force_paddings &&
      last != nullptr) {
    uint64_t size = table_.size_of(last->type);
    if (size && (size & (size - 1)) == 0 && static_cast<uint64_t>(c.padding) > table_.addr_size) {
      o += '\n';
      tabs(o, cconf.indent);
      o += "/* Force padding: */\n";
      for (uint64_t added = 0; added < static_cast<uint64_t>(c.padding); added += size) {
        tabs(o, cconf.indent);
        static const std::string kEmpty;
        type_fprintf(last->type, &kEmpty, cconf, o);
        o += ':';
        num(o, size * 8, 0);
        o += ";\n";
      }
    }
  }
  if (cconf.emit_stats) {
    uint32_t cl = options_.cacheline_size;
    uint64_t tsize = table_.size_of(index);
    o += '\n';
    tabs(o, cconf.indent);
    std::snprintf(buf, sizeof buf, "/* size: %d, cachelines: %zd, members: %u */\n", static_cast<int>(ty.size),
                  static_cast<size_t>((tsize + cl - 1) / cl), ty.count);
    o += buf;
    if (sum_holes > 0 || sum_bit_holes > 0) {
      if (sum_bytes > 0) {
        tabs(o, cconf.indent);
        std::snprintf(buf, sizeof buf, "/* sum members: %u", sum_bytes);
        o += buf;
        if (sum_holes > 0) {
          std::snprintf(buf, sizeof buf, ", holes: %d, sum holes: %u", c.nr_holes, sum_holes);
          o += buf;
        }
        o += " */\n";
      }
      if (sum_bits > 0) {
        tabs(o, cconf.indent);
        std::snprintf(buf, sizeof buf, "/* sum bitfield members: %u bits", sum_bits);
        o += buf;
        if (sum_bit_holes > 0)
          std::snprintf(buf, sizeof buf, ", bit holes: %d, sum bit holes: %u bits", c.nr_bit_holes, sum_bit_holes);
        else
          std::snprintf(buf, sizeof buf, " (%u bytes)", sum_bits / 8);
        o += buf;
        o += " */\n";
      }
    }
    if (c.padding > 0) {
      tabs(o, cconf.indent);
      std::snprintf(buf, sizeof buf, "/* padding: %u */\n", static_cast<uint32_t>(c.padding));
      o += buf;
    }
    if (mth.nr_with_holes > 0 || mth.nr_with_bit_holes > 0 || mth.nr_with_bit_paddings > 0) {
      bool first = true;
      tabs(o, cconf.indent);
      o += "/* member types with ";
      if (mth.nr_with_holes > 0) {
        std::snprintf(buf, sizeof buf, "holes: %u, total: %u", mth.nr_with_holes, mth.total_nr_holes);
        o += buf;
        first = false;
      }
      if (mth.nr_with_bit_holes > 0) {
        std::snprintf(buf, sizeof buf, "%sbit holes: %u, total: %u", first ? "" : ", ", mth.nr_with_bit_holes,
                      mth.total_nr_bit_holes);
        o += buf;
        first = false;
      }
      if (mth.nr_with_bit_paddings > 0) {
        std::snprintf(buf, sizeof buf, "%sbit paddings: %u, total: %u bit%s", first ? "" : ", ",
                      mth.nr_with_bit_paddings, mth.sum_bit_paddings, mth.sum_bit_paddings > 1 ? "s" : "");
        o += buf;
      }
      o += " */\n";
    }
    if (mth.nr_paddings > 0) {
      tabs(o, cconf.indent);
      std::snprintf(buf, sizeof buf, "/* paddings: %u, sum paddings: %u */\n", mth.nr_paddings, mth.sum_paddings);
      o += buf;
    }
    if (c.bit_padding > 0) {
      tabs(o, cconf.indent);
      std::snprintf(buf, sizeof buf, "/* bit_padding: %u bits */\n", static_cast<uint32_t>(c.bit_padding));
      o += buf;
    }
    if (!options_.suppress_aligned_attribute && nr_forced_alignments != 0) {
      tabs(o, cconf.indent);
      std::snprintf(buf, sizeof buf, "/* forced alignments: %u", nr_forced_alignments);
      o += buf;
      if (nr_forced_alignment_holes != 0) {
        std::snprintf(buf, sizeof buf, ", forced holes: %u, sum forced holes: %u", nr_forced_alignment_holes,
                      sum_forced_alignment_holes);
        o += buf;
      }
      o += " */\n";
    }
    if (mth.nr_flexible > 0 || mth.nr_embedded_flexible > 0) {
      tabs(o, cconf.indent);
      o += "/* flexible array members: ";
      if (mth.nr_flexible > 0) {
        std::snprintf(buf, sizeof buf, "end: %u", mth.nr_flexible);
        o += buf;
      }
      if (mth.nr_embedded_flexible > 0) {
        std::snprintf(buf, sizeof buf, "%smiddle: %u", mth.nr_flexible ? ", " : "", mth.nr_embedded_flexible);
        o += buf;
      }
      o += " */\n";
    }
    uint32_t last_cl = static_cast<uint32_t>((cconf.base_offset + ty.size) % cl);
    if (last_cl != 0) {
      tabs(o, cconf.indent);
      std::snprintf(buf, sizeof buf, "/* last cacheline: %u bytes */\n", last_cl);
      o += buf;
    }
    if (options_.first_biggest_member && ty.count != 0) {
      if (const Member* m = first_biggest_member(index)) {
        tabs(o, cconf.indent);
        o += "/* first biggest size base type member: ";
        o += name_or_null(m->name);
        std::snprintf(buf, sizeof buf, " %u %u */\n", m->byte_offset, m->byte_size);
        o += buf;
      }
    }
    int64_t size_diff = static_cast<int64_t>(ty.size) * 8 -
                        (static_cast<int64_t>(sum_bytes) * 8 + sum_bits + static_cast<int64_t>(sum_holes) * 8 +
                         sum_bit_holes + static_cast<int64_t>(c.padding) * 8 + c.bit_padding);
    if (size_diff && ty.count != 0) {
      o += '\n';
      tabs(o, cconf.indent);
      std::snprintf(buf, sizeof buf,
                    "/* BRAIN FART ALERT! %d bytes != %u (member bytes) + %u (member bits) + %u (byte holes) + %u "
                    "(bit holes), diff = %d bits */\n",
                    static_cast<int>(ty.size), sum_bytes, sum_bits, sum_holes, sum_bit_holes,
                    static_cast<int>(size_diff));
      o += buf;
    }
  }
  tabs(o, indent);
  o += '}';
  if (c.is_packed && !options_.suppress_packed) o += " __attribute__((__packed__))";
  if (cconf.suffix) {
    o += ' ';
    o += *cconf.suffix;
  }
  if (!options_.suppress_aligned_attribute && ty.alignment != 0 && !c.is_packed) {
    o += " __attribute__((__aligned__(";
    num(o, ty.alignment, 0);
    o += ")))";
  }
  return o.size() - start;
}

// typedef__fprintf(): the target's name and the typedef's, except that an
// array, a prototype (or pointer to one) wraps the name, and an anonymous
// struct or enum is printed in full with the typedef name as its suffix. An
// anonymous union is not (pahole has no case for it): "typedef union  u_t".
size_t Printer::typedef_fprintf(uint32_t index, const Conf& conf, std::string& o) {
  size_t start = o.size();
  const std::string name(table_.t(index).name);
  o += "typedef ";
  uint32_t type = table_.t(index).type;
  for (int guard = 0; guard < 64 && type != 0; ++guard) {
    const Type& ty = table_.t(type);
    switch (ty.kind) {
      case TKind::Atomic:
        o += "_Atomic ";
        type = ty.type;
        continue;
      case TKind::Array:
        array_fprintf(type, &name, conf, o);
        return o.size() - start;
      case TKind::Pointer:
        if (ty.type != 0 && table_.t(ty.type).kind == TKind::Func) {
          ftype_fprintf(ty.type, &name, false, true, 0, true, o);
          return o.size() - start;
        }
        break;
      case TKind::Func:
        ftype_fprintf(type, &name, false, false, 0, true, o);
        return o.size() - start;
      case TKind::Struct:
      case TKind::Enum: {
        if (!ty.name.empty()) {
          o += ty.kind == TKind::Enum ? "enum " : "struct ";
          o += ty.name;
          o += ' ';
          o += name;
          return o.size() - start;
        }
        Conf tconf = conf;
        tconf.suffix = &name;
        if (ty.kind == TKind::Enum)
          enum_fprintf(type, tconf, o);
        else
          class_fprintf(type, tconf, o);
        return o.size() - start;
      }
      default:
        break;
    }
    o += type_name(type, 512);
    o += ' ';
    o += name;
    return o.size() - start;
  }
  o += "void ";
  o += name;
  return o.size() - start;
}

// The conf_fprintf pahole's options make for a type printed on its own.
Printer::Conf Printer::top_conf() const {
  Conf conf;
  conf.expand_types = options_.expand_types;
  conf.emit_stats = !options_.quiet;
  conf.suppress_offset_comment = options_.quiet;
  conf.rel_offset = options_.rel_offset;
  return conf;
}

// tag__fprintf()'s lines of show_decl_info; glibc's printf prints a null
// string as "(null)".
void Printer::decl_info(uint32_t index, std::string& out) const {
  if (!options_.show_decl_info) return;
  char offset[24];
  snprintf(offset, sizeof offset, "%llx", static_cast<unsigned long long>(table_.t(index).die_offset));
  out += "/* Used at: ";
  out += name_or_null(table_.unit_name);
  out += " */\n/* <";
  out += offset;
  out += "> ";
  out += table_.decl_path(index);
  out += ':';
  out += std::to_string(table_.t(index).decl_line);
  out += " */\n";
}

void Printer::print_named(uint32_t index, std::string& out) {
  const Type& ty = table_.t(index);
  if (ty.kind != TKind::Enum && ty.kind != TKind::Typedef) return print_class(index, out);
  limit_text(out);
  decl_info(index, out);
  Conf conf = top_conf();
  if (options_.expand_types) conf.name_spacing = 55;
  if (ty.kind == TKind::Enum)
    enum_fprintf(index, conf, out);
  else
    typedef_fprintf(index, conf, out);
  out += ";\n";
}

void Printer::print_class(uint32_t index, std::string& out, std::string_view typedef_name) {
  limit_text(out);
  decl_info(index, out);
  Conf conf = top_conf();
  const std::string alias(typedef_name);
  if (!alias.empty()) {
    conf.prefix = "typedef";
    conf.suffix = &alias;
  }
  if (options_.expand_types)
    conf.name_spacing = 55;
  else
    conf.name_spacing = is_union(index) ? 21 : 23;
  conf.type_spacing = 26;
  if (is_union(index))
    union_fprintf(index, conf, out);
  else
    class_fprintf(index, conf, out);
  out += ";\n";
}

}  // namespace btfc::layout
