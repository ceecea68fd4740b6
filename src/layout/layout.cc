// Selection, de-duplication and ordering of printed layouts (see layout.h).
#include "layout/layout.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "base/parallel.h"
#include "layout/diff.h"
#include "layout/dwarf_model.h"
#include "layout/reorganize.h"

namespace btfc::layout {

namespace {

struct Candidate {
  uint32_t index = 0;        // in its table
  std::string plain_key;     // type__compare's fields
  bool empty = false;        // no members
  // --sort: name, then per member: name, bit offset, bitfield size, type name
  std::string name;
  struct M {
    std::string name, type;
    uint32_t bit_offset, bitfield_size;
  };
  std::vector<M> members;
  uint64_t reorganized_size = 0;  // -P
  bool anonymous = false;  // -a
  uint32_t alias = 0;      // an anonymous one's first typedef, if any
  bool winner = false;
  std::string text;
};

void put_u32(std::string& k, uint32_t v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); }

// class__filter's tests of the type: kind, scope, name. An anonymous one
// (-a) is tested by the name of `alias`, its first typedef, and passes
// the prefix tests when it has none.
bool wanted(const Table& t, uint32_t i, const LayoutOptions& o, uint32_t alias = 0) {
  const Type& ty = t.t(i);
  if (o.just_unions && ty.kind != TKind::Union) return false;
  if (o.just_structs && ty.kind != TKind::Struct) return false;
  if (!ty.top_level && !o.show_private_classes) return false;
  if (ty.declaration || (ty.name.empty() && !o.anon_include)) return false;
  const std::string_view name = ty.name.empty() && alias ? t.t(alias).name : ty.name;
  if (!o.exclude_prefix.empty() && !name.empty() && name.starts_with(o.exclude_prefix)) return false;
  if (!o.include_prefix.empty() && !name.empty() && !name.starts_with(o.include_prefix)) return false;
  if (!o.decl_exclude.empty()) {
    const dwarf::FileName file = t.decl_file(i);
    if (file.empty() || file.path_starts_with(o.decl_exclude)) return false;
  }
  if (!o.only_names.empty() &&
      !o.only_names.count((ty.kind == TKind::Union ? "union " : "struct ") + std::string(ty.name)))
    return false;
  return true;
}

// class__filter's tests of the layout itself: --packed; the hole tests,
// which a struct with fewer holes than asked fails and a union whenever one
// is asked, unless --unions; --with_flexible_array, for structs.
// With -P, `reorganized_size` (if given) gets the struct's size reorganized.
bool layout_wanted(const Table& t, uint32_t i, const LayoutOptions& o, Printer& p,
                   uint64_t* reorganized_size = nullptr) {
  if (o.just_packed && !p.is_packed(i)) return false;
  const bool hole_tests = o.min_holes || o.min_bit_holes || o.hole_size_ge;
  // (pahole -P --unions lists unions unreorganized: it crashes then.)
  if (t.t(i).kind != TKind::Struct) return !o.packable && (o.just_unions || !hole_tests);
  if (hole_tests) {
    const Printer::ClassInfo& h = p.holes(i);
    if (h.nr_holes < o.min_holes || h.nr_bit_holes < o.min_bit_holes) return false;
    if (o.hole_size_ge && !p.has_hole_ge(i, o.hole_size_ge)) return false;
  }
  if (o.packable) {  // class__packable()
    const Printer::ClassInfo& h = p.holes(i);
    if (h.nr_holes == 0 && h.nr_bit_holes == 0) return false;
    const uint64_t size = reorganize(t, i, false).size;
    if (size >= t.t(i).size) return false;
    if (reorganized_size) *reorganized_size = size;
  }
  return !o.with_flexible_array || p.has_flexible_array(i);
}

// do_reorg(): struct `index` reorganized, printed as a copy of it with
// the members moved (appended to `t` through `p`, the unit's printer),
// and what that saves.
void print_reorganized(Table& t, Printer& p, uint32_t index, const LayoutOptions& o, std::string& out) {
  const Reorganized r = reorganize(t, index, o.verbose);
  const uint32_t old_size = static_cast<uint32_t>(t.t(index).size), new_size = static_cast<uint32_t>(r.size);
  const int savings = static_cast<int>(old_size - new_size);
  out += r.moves;
  if (savings != 0 && o.verbose) out += '\n';
  p.print_class(p.add_clone(t, index, r.members, r.size), out);
  if (savings == 0) return;
  out.pop_back();  // the newline after "};"
  out += "   /* saved " + std::to_string(savings) + (savings != 1 ? " bytes" : " byte");
  const uint64_t line = o.cacheline_size ? o.cacheline_size : 64;
  const uint64_t cachelines = (uint64_t{old_size} + line - 1) / line - (uint64_t{new_size} + line - 1) / line;
  if (cachelines != 0) out += " and " + std::to_string(cachelines) + (cachelines != 1 ? " cachelines" : " cacheline");
  out += "! */\n";
}

// type__compare()'s fields: name, size, member count, member names, bit
// offsets and bitfield sizes. pahole prints a struct once per key.
std::string plain_key(const Table& t, uint32_t i) {
  const Type& ty = t.t(i);
  std::string k(ty.name);
  k.push_back('\0');
  put_u32(k, static_cast<uint32_t>(ty.size));
  put_u32(k, ty.count);
  for (uint32_t n = 0; n < ty.count; ++n) {
    const Member& m = t.members[ty.first + n];
    k.append(m.name);
    k.push_back('\0');
    put_u32(k, m.bit_offset);
    put_u32(k, m.bitfield_size);
  }
  return k;
}

void make_candidates(const Table& t, const LayoutOptions& o, std::vector<Candidate>& out) {
  Printer names(t, o);
  // -a: by type, its first typedef in the table (cu__find_first_typedef_of_type).
  std::vector<uint32_t> first_typedef;
  if (o.anon_include) {
    first_typedef.assign(t.types.size(), 0);
    for (size_t i = t.types.size(); i-- > 1;)
      if (t.types[i].kind == TKind::Typedef && t.types[i].type < t.types.size()) first_typedef[t.types[i].type] = i;
  }
  for (uint32_t i : t.classes) {
    const Type& ty = t.t(i);
    const uint32_t alias = ty.name.empty() && o.anon_include ? first_typedef[i] : 0;
    Candidate c;
    if (!wanted(t, i, o, alias) || !layout_wanted(t, i, o, names, &c.reorganized_size)) continue;
    if (ty.name.empty()) {
      // pahole's class_formatter prints one inside its user unless -A;
      // the one-line formatters list it as "(null)".
      const bool layout_printed = o.listing == LayoutOptions::Listing::Layouts && !(o.packable && !o.verbose);
      if (layout_printed && !alias && !o.nested_anon_include) continue;
      c.anonymous = true;
      c.alias = alias;
    }
    c.index = i;
    c.empty = ty.count == 0;
    c.plain_key = plain_key(t, i);
    if (o.sort) {
      c.name = std::string(ty.name);
      c.members.reserve(ty.count);
      for (uint32_t k = 0; k < ty.count; ++k) {
        const Member& m = t.members[ty.first + k];
        c.members.push_back({std::string(m.name), names.type_name(m.type, 1024), m.bit_offset, m.bitfield_size});
      }
    }
    out.push_back(std::move(c));
  }
}

// type__compare_members_types(): a's members against b's.
int compare_sorted(const Candidate& a, const Candidate& b) {
  int r = a.name.compare(b.name);
  if (r) return r;
  if (a.members.empty()) return 0;
  for (size_t i = 0; i < a.members.size(); ++i) {
    if (i >= b.members.size()) return 1;
    const Candidate::M& x = a.members[i];
    const Candidate::M& y = b.members[i];
    if (!x.name.empty() && !y.name.empty()) {
      r = std::strcmp(x.name.c_str(), y.name.c_str());
      if (r) return r;
    }
    // pahole subtracts; for offsets past INT_MAX (hostile input) that
    // overflows, and the sort needs a consistent order: the sign alone.
    if (x.bit_offset != y.bit_offset) return x.bit_offset < y.bit_offset ? -1 : 1;
    if (x.bitfield_size != y.bitfield_size) return x.bitfield_size < y.bitfield_size ? -1 : 1;
    r = std::strcmp(x.type.c_str(), y.type.c_str());
    if (r) return r;
  }
  return 0;
}

// compare_sorted made a total order (LayoutOptions::total_order): every
// member name compared, and a layout whose members begin another's first.
int compare_total(const Candidate& a, const Candidate& b) {
  if (int r = a.name.compare(b.name)) return r;
  for (size_t i = 0; i < a.members.size() && i < b.members.size(); ++i) {
    const Candidate::M& x = a.members[i];
    const Candidate::M& y = b.members[i];
    if (int r = x.name.compare(y.name)) return r;
    if (x.bit_offset != y.bit_offset) return x.bit_offset < y.bit_offset ? -1 : 1;
    if (x.bitfield_size != y.bitfield_size) return x.bitfield_size < y.bitfield_size ? -1 : 1;
    if (int r = x.type.compare(y.type)) return r;
  }
  if (a.members.size() != b.members.size()) return a.members.size() < b.members.size() ? -1 : 1;
  return 0;
}

// The key under which --sort drops duplicates: everything compare_sorted looks at.
std::string sort_key(const Candidate& c) {
  std::string k = c.name;
  k.push_back('\0');
  for (const Candidate::M& m : c.members) {
    k += m.name;
    k.push_back('\0');
    put_u32(k, m.bit_offset);
    put_u32(k, m.bitfield_size);
    k += m.type;
    k.push_back('\0');
  }
  return k;
}

// Decides, in unit order, which candidates are printed.
class Selector {
 public:
  explicit Selector(const LayoutOptions& o) : o_(o) {}

  void offer(Candidate& c) {
    if (c.anonymous) {
      // Never among the printed structures; with --sort, whose printing
      // of layouts walks those, never printed (a listing's line is).
      c.winner = !o_.sort || o_.listing != LayoutOptions::Listing::Layouts;
      return;
    }
    if (o_.sort && o_.listing != LayoutOptions::Listing::Layouts && !c.empty) {
      // A listing (-s, -z, -n, -N, -T) is printed as met, never sorted;
      // with --sort pahole's structures__add finds no two non-empty
      // structs equal (type__compare_members says 1 then), so each one
      // met is listed, and counted once. Empty ones are merged by name
      // and size, as below.
      c.winner = true;
      definitions_.push_back({&unmerged_keys_.emplace_back(c.plain_key), 1});
      return;
    }
    if (!o_.sort || o_.listing != LayoutOptions::Listing::Layouts) {
      auto [it, fresh] = plain_.emplace(c.plain_key, definitions_.size());
      c.winner = fresh;
      if (fresh)
        definitions_.push_back({&it->first, 1});
      else
        ++definitions_[it->second].second;
      return;
    }
    // --sort: structures__add keeps every non-empty copy (and notes that a
    // re-sort is needed when two share the plain key); empty ones are
    // de-duplicated by name and size. The re-sort then drops equal keys.
    bool fresh_plain = plain_.emplace(c.plain_key, 0).second;
    if (c.empty && !fresh_plain) return;
    if (!c.empty && !fresh_plain) need_resort_ = true;
    if (empty_names_.count(c.name)) return;  // an empty struct of this name compares equal to all
    if (!sorted_.insert(sort_key(c)).second) return;
    if (c.empty) empty_names_.insert(c.name);
    c.winner = true;
  }
  bool need_resort() const { return need_resort_; }
  // -T's list: each layout's name and how many units define it, in the
  // order first met (without --sort).
  std::string definitions(char separator) const {
    std::string out;
    for (const auto& [key, count] : definitions_)  // a key starts with the name
      out += key->substr(0, key->find('\0')) + separator + std::to_string(count) + '\n';
    return out;
  }

 private:
  const LayoutOptions& o_;
  std::unordered_map<std::string, size_t> plain_;  // the key -> its entry in definitions_
  std::vector<std::pair<const std::string*, uint32_t>> definitions_;  // a key of plain_ (nodes stay put)
  std::deque<std::string> unmerged_keys_;  // of the structs --sort lists each time (they stay put too)
  std::unordered_set<std::string> sorted_, empty_names_;
  bool need_resort_ = false;
};

// -m: cu__account_nr_methods(). Each parameter of each function that
// points to a named struct passing class__filter is a method of that
// struct's layout (type__compare's key); entries in the order first met.
// --sort changes nothing here (pahole 1.24 crashes with -m --sort).
class Methods {
 public:
  void account(const Table& t, const LayoutOptions& o, Printer& p) {
    for (uint32_t param : t.function_params) {
      const Type& ptr = t.t(param);
      if (ptr.kind != TKind::Pointer) continue;
      const uint32_t s = ptr.type < t.types.size() ? ptr.type : 0;
      const Type& st = t.t(s);
      if (st.kind != TKind::Struct || st.name.empty() || !wanted(t, s, o) || !layout_wanted(t, s, o, p)) continue;
      auto [it, fresh] = index_.emplace(plain_key(t, s), entries_.size());
      if (fresh) entries_.push_back({std::string(st.name), 0});
      ++entries_[it->second].second;
    }
  }
  std::string list(char separator) const {
    std::string out;
    for (const auto& [name, count] : entries_) out += name + separator + std::to_string(count) + '\n';
    return out;
  }

 private:
  std::unordered_map<std::string, size_t> index_;
  std::vector<std::pair<std::string, uint32_t>> entries_;
};

struct Printed {
  std::string text;
  Candidate key;  // for --sort
};

// What the listing shows of one struct or union (LayoutOptions::Listing).
void print_entry(Printer& p, const Table& t, const LayoutOptions& o, const Candidate& c, std::string& text) {
  const uint32_t index = c.index;
  if (o.packable && !o.verbose) {
    // print_packable_info(): an anonymous struct by its typedef's name,
    // or where it is declared.
    const Type& ty = t.t(index);
    if (!ty.name.empty() || c.alias) {
      text += ty.name.empty() ? t.t(c.alias).name : ty.name;
    } else {
      text += t.decl_path(index);
      text += "(" + std::to_string(static_cast<int32_t>(ty.decl_line)) + ")";
    }
    const uint64_t new_size = c.reorganized_size;
    text += o.separator + std::to_string(ty.size) + o.separator + std::to_string(new_size) + o.separator +
            std::to_string(ty.size - new_size) + '\n';
    return;
  }
  if (o.listing == LayoutOptions::Listing::Layouts) return p.print_class(index, text, t.t(c.alias).name);
  if (o.listing == LayoutOptions::Listing::Nothing) return;
  const Type& ty = t.t(index);
  text.append(name_or_null(ty.name));
  switch (o.listing) {
    case LayoutOptions::Listing::Layouts: case LayoutOptions::Listing::Names:
      break;
    case LayoutOptions::Listing::Nothing:
      break;
    case LayoutOptions::Listing::Sizes: {
      const unsigned holes = ty.kind == TKind::Union ? 0 : p.holes(index).nr_holes;  // a union has none
      text += o.separator + std::to_string(static_cast<uint32_t>(ty.size)) + o.separator + std::to_string(holes);
      break;
    }
    case LayoutOptions::Listing::Members:
      text += o.separator + std::to_string(ty.count);
      break;
    case LayoutOptions::Listing::NameLengths:
      text += o.separator + std::to_string(ty.name.size());
      break;
  }
  text += '\n';
}

void finish(std::vector<Printed>& printed, const LayoutOptions& o, const Selector& sel, std::string& out) {
  const bool need_resort = sel.need_resort();
  if (o.sort && o.listing == LayoutOptions::Listing::Layouts) {
    std::stable_sort(printed.begin(), printed.end(), [&](const Printed& a, const Printed& b) {
      if (o.total_order) return compare_total(a.key, b.key) < 0;
      if (!need_resort) return a.key.plain_key < b.key.plain_key;  // name first, then the plain fields
      return compare_sorted(a.key, b.key) < 0;
    });
  }
  size_t total = 0;
  for (const Printed& p : printed) total += p.text.size();
  out.reserve(total);
  for (const Printed& p : printed) out += p.text;
  if (o.nr_definitions) out += sel.definitions(o.separator);
}

// cu__filter() (-X), for DWARF units and for a BTF file's one unit.
bool unit_name_wanted(std::string_view name, const LayoutOptions& o) {
  return o.cu_exclude.empty() || (!name.empty() && !name.starts_with(o.cu_exclude));
}

bool unit_wanted(const dwarf::Unit& u, const LayoutOptions& o) {
  if (u.root_tag != dwarf::DW_TAG_compile_unit || !unit_name_wanted(u.name, o)) return false;
  if (!o.lang_include.empty() &&
      std::find(o.lang_include.begin(), o.lang_include.end(), u.language) == o.lang_include.end())
    return false;
  if (std::find(o.lang_exclude.begin(), o.lang_exclude.end(), u.language) != o.lang_exclude.end()) return false;
  return true;
}

// The file's .debug_line when where types are declared is asked for (-I, -D).
const Bytes* decl_lines(const dwarf::DwarfFile& dw, const LayoutOptions& o, Bytes& storage) {
  if (!o.show_decl_info && o.decl_exclude.empty() && !o.packable) return nullptr;
  storage = dw.line_section();
  return &storage;
}

// The units pahole reads, in order.
std::vector<size_t> wanted_units(const dwarf::DwarfFile& dw, const LayoutOptions& o) {
  const auto& units = dw.units();
  std::vector<size_t> todo;
  for (size_t i = 0; i < units.size() && !(o.first_obj_only && !todo.empty()); ++i)
    if (unit_wanted(units[i], o)) todo.push_back(i);
  return todo;
}

// ---- -C: pahole's class_names path -------------------------------------------
//
// pahole looks each -C name up with cu__find_type_by_name(): the first
// struct, union, enum or typedef of that name in the unit's type table that
// is not a declaration, wherever it is declared (nested, function-local),
// and prints it with tag__fprintf(). Names are tried in the order given; a
// found name leaves the list (so a repeated name is printed again from the
// same unit), and the first name a unit lacks ends the look-up in that unit
// (pahole without --skip_missing), so later names wait for a later unit.
// Loading stops when the list is empty; what is left is reported, the first
// name only, as pahole does.

// -f looks for declarations too (pahole's include_decls).
bool findable(const Type& ty, const LayoutOptions& o) {
  switch (ty.kind) {
    case TKind::Struct: case TKind::Union: case TKind::Enum: case TKind::Typedef:
      return !ty.declaration || o.search == LayoutOptions::Search::PointersTo;
    default:
      return false;
  }
}

// For each name, the index pahole's look-up finds in `t` (0: none). In C a
// type's name cannot clash with one of its nested types', so the DIE order
// of the table is pahole's table order for this purpose.
void find_named(const Table& t, const LayoutOptions& o, const std::vector<std::string>& names,
                std::vector<uint32_t>& found) {
  found.assign(names.size(), 0);
  size_t left = names.size();
  for (uint32_t i = 1; i < t.types.size() && left > 0; ++i) {
    const Type& ty = t.types[i];
    if (ty.name.empty() || !findable(ty, o)) continue;
    for (size_t k = 0; k < names.size(); ++k)
      if (found[k] == 0 && ty.name == names[k]) {
        found[k] = i;
        --left;
      }
  }
}

// A struct or union listed by -i or -f: named, and through pahole's
// class__filter.
bool listable(const Table& t, uint32_t i, const LayoutOptions& o, Printer& p) {
  return !t.t(i).name.empty() && wanted(t, i, o) && layout_wanted(t, i, o, p);
}

// type__print_containers(): `type` when some of its members are of type
// `wanted` (the very index: a typedef of it is another type), then with
// -d those of its struct and union members that hold such members too,
// indented by two spaces a level. A top-level struct is listed once per
// type__compare key (`seen`). Hostile input could nest structs in
// themselves, deeply, or fan out at every level: a type is not entered
// again inside itself, nor past kMaxDepth levels, and one listing stops at
// kMaxLines lines.
struct Containers {
  static constexpr size_t kMaxLines = size_t{1} << 16;
  static constexpr int kMaxDepth = 128;
  const Table& t;
  const LayoutOptions& o;
  uint32_t wanted;
  std::unordered_set<std::string>& seen;
  std::string& out;
  std::vector<uint8_t> inside = std::vector<uint8_t>(t.types.size());
  size_t lines = 0;

  void print(uint32_t type, int ident) {
    const Type& ty = t.t(type);
    uint32_t n = 0;
    for (uint32_t k = 0; k < ty.count; ++k) n += t.members[ty.first + k].type == wanted;
    if (n == 0 || inside[type] || lines >= kMaxLines || ident > kMaxDepth) return;
    if (ident == 0 && !seen.insert(plain_key(t, type)).second) return;
    out.append(std::min(ident * 2, 127), ' ');
    out += name_or_null(ty.name);
    if (o.verbose) out += ": " + std::to_string(n);
    out += '\n';
    ++lines;
    if (!o.recursive) return;
    inside[type] = 1;
    for (uint32_t k = 0; k < ty.count; ++k) {
      uint32_t mt = t.members[ty.first + k].type;
      if (t.t(mt).kind == TKind::Struct || t.t(mt).kind == TKind::Union) print(mt, ident + 1);
    }
    inside[type] = 0;
  }
};

// print_structs_with_pointer_to(): "STRUCT: MEMBER" for each member of a
// listed struct or union that points to `wanted`, each struct once per
// type__compare key.
void print_pointers_to(const Table& t, const LayoutOptions& o, Printer& p, uint32_t wanted,
                       std::unordered_set<std::string>& seen, std::string& out) {
  for (uint32_t i : t.classes) {
    if (!listable(t, i, o, p)) continue;
    const Type& ty = t.t(i);
    bool looked = false;
    for (uint32_t k = 0; k < ty.count; ++k) {
      const Member& m = t.members[ty.first + k];
      const Type& mt = t.t(m.type);
      if (m.type == 0 || mt.kind != TKind::Pointer || mt.type != wanted) continue;
      if (!looked) {
        if (!seen.insert(plain_key(t, i)).second) break;  // listed from another unit
        looked = true;
      }
      out += ty.name;
      out += ": ";
      out += name_or_null(m.name);
      out += '\n';
    }
  }
}

// One unit's turn (`unit_name`: its DW_AT_name, or the BTF file's name):
// prints what pahole prints from it and drops those names from `pending`.
// `names`/`found` are the look-up results for this table; `seen` the
// structs -i and -f have listed.
void print_named_from(Table& t, std::string_view unit_name, const LayoutOptions& o,
                      const std::vector<std::string>& names, const std::vector<uint32_t>& found,
                      std::vector<std::string>& pending, std::unordered_set<std::string>& seen, std::string& out) {
  std::unique_ptr<Printer> printer;
  for (size_t at = 0; at < pending.size();) {
    uint32_t index = 0;
    for (size_t k = 0; k < names.size(); ++k)
      if (names[k] == pending[at]) {
        index = found[k];
        break;
      }
    if (index == 0) {
      if (!o.skip_missing) return;
      ++at;
      continue;
    }
    if (o.defined_in) {
      // The unit's name, and on to the next unit (pahole's goto dump_it).
      out += name_or_null(unit_name);
      out += '\n';
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(at));
      return;
    }
    if (!printer) printer = std::make_unique<Printer>(t, o);
    if (o.reorganize) {  // whatever -i or -f say
      if (t.t(index).kind == TKind::Struct) print_reorganized(t, *printer, index, o, out);
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(at));
      continue;
    }
    switch (o.search) {
      case LayoutOptions::Search::Type:
        printer->print_named(index, out);
        break;
      case LayoutOptions::Search::Containers: {
        Containers c{t, o, index, seen, out};
        for (uint32_t i : t.classes)
          if (listable(t, i, o, *printer)) c.print(i, 0);
        break;
      }
      case LayoutOptions::Search::PointersTo:
        print_pointers_to(t, o, *printer, index, seen, out);
        break;
    }
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(at));
  }
}

std::string named_dwarf(const dwarf::DwarfFile& dw, bool little_endian, const LayoutOptions& o,
                        std::string* missing) {
  const auto& units = dw.units();
  const std::vector<size_t> todo = wanted_units(dw, o);
  Bytes lines;
  const Bytes* debug_line = decl_lines(dw, o, lines);
  std::vector<std::string> pending = o.class_names;
  std::unordered_set<std::string> seen;
  std::string out;
  // Units are read in parallel chunks (a name that is nowhere would
  // otherwise mean reading every unit one by one); the chunk is then
  // walked in unit order, so the output is the sequential one.
  const size_t chunk = std::max<size_t>(16, size_t{jobs()} * 16);
  std::vector<std::unique_ptr<Table>> tables;
  std::vector<std::vector<uint32_t>> found;
  for (size_t begin = 0; begin < todo.size() && !pending.empty(); begin += chunk) {
    size_t n = std::min(chunk, todo.size() - begin);
    tables.resize(n);
    found.resize(n);
    const std::vector<std::string> names = pending;
    parallel_for(n, [&](size_t j) {
      if (!tables[j]) tables[j] = std::make_unique<Table>();
      build_dwarf_table(dw, units[todo[begin + j]], little_endian, *tables[j], debug_line);
      find_named(*tables[j], o, names, found[j]);
    });
    for (size_t j = 0; j < n && !pending.empty(); ++j)
      print_named_from(*tables[j], units[todo[begin + j]].name, o, names, found[j], pending, seen, out);
  }
  if (missing && !pending.empty()) *missing = pending.front();
  return out;
}

// "struct NAME" / "union NAME" when `line` opens a layout ("struct NAME {"),
// else empty.
std::string_view opened_name(std::string_view line) {
  for (std::string_view kw : {"struct ", "union "})
    if (line.starts_with(kw) && line.size() > kw.size() + 2 && line.ends_with(" {"))
      return line.substr(0, line.size() - 2);
  return {};
}

}  // namespace

std::vector<std::string> printed_names(std::string_view text) {
  std::vector<std::string> names;
  for (std::string_view line : split_lines(text))
    if (std::string_view name = opened_name(line); !name.empty()) names.emplace_back(name);
  return names;
}

std::vector<std::string> printed_layouts(std::string_view text) {
  std::vector<std::string> layouts;
  const char* start = nullptr;  // of the open layout
  for (std::string_view line : split_lines(text)) {
    if (!start && !opened_name(line).empty()) {
      start = line.data();
    } else if (start && line == "};") {
      const char* end = std::min(line.data() + line.size() + 1, text.data() + text.size());  // with its newline
      layouts.emplace_back(start, end);
      start = nullptr;
    }
  }
  return layouts;
}

std::string layout_dwarf(const dwarf::DwarfFile& dw, bool little_endian, const LayoutOptions& o,
                         std::string* missing) {
  if (!o.class_names.empty()) return named_dwarf(dw, little_endian, o, missing);
  const auto& units = dw.units();
  const std::vector<size_t> todo = wanted_units(dw, o);
  Bytes lines;
  const Bytes* debug_line = decl_lines(dw, o, lines);
  Selector sel(o);
  Methods methods;
  std::vector<Printed> printed;
  const size_t chunk = std::max<size_t>(16, size_t{jobs()} * 16);
  std::vector<std::unique_ptr<Table>> tables;
  std::vector<std::vector<Candidate>> cands;
  for (size_t begin = 0; begin < todo.size(); begin += chunk) {
    size_t n = std::min(chunk, todo.size() - begin);
    tables.resize(n);
    cands.assign(n, {});
    parallel_for(n, [&](size_t j) {
      if (!tables[j]) tables[j] = std::make_unique<Table>();
      build_dwarf_table(dw, units[todo[begin + j]], little_endian, *tables[j], debug_line, o.nr_methods);
      if (!o.nr_methods) make_candidates(*tables[j], o, cands[j]);
    });
    if (o.nr_methods) {
      for (size_t j = 0; j < n; ++j) {
        Printer p(*tables[j], o);
        methods.account(*tables[j], o, p);
      }
      continue;
    }
    for (size_t j = 0; j < n; ++j)
      for (Candidate& c : cands[j]) sel.offer(c);
    parallel_for(n, [&](size_t j) {
      bool any = false;
      for (const Candidate& c : cands[j]) any |= c.winner;
      if (!any) return;
      Printer p(*tables[j], o);
      for (Candidate& c : cands[j])
        if (c.winner) print_entry(p, *tables[j], o, c, c.text);
    });
    for (size_t j = 0; j < n; ++j)
      for (Candidate& c : cands[j])
        if (c.winner) {
          Printed pr;
          pr.text = std::move(c.text);
          pr.key = std::move(c);
          printed.push_back(std::move(pr));
        }
  }
  if (o.nr_methods) return methods.list(o.separator);
  std::string out;
  finish(printed, o, sel, out);
  return out;
}

namespace {

// By base id: the structs and unions of a split BTF's base that its own
// types use, directly or through pointers, typedefs, qualifiers, arrays
// and prototypes (not through the members of other base structs).
std::vector<bool> base_structs_used(const btf::Btf& b) {
  std::vector<bool> used(b.start_id(), false);
  std::vector<btf::TypeId> todo;
  auto reach = [&](uint32_t id) {
    if (id && id < b.start_id() && !used[id]) todo.push_back(id);
  };
  for (btf::TypeId id = b.start_id(); id < b.end_id(); ++id) b.for_each_type_id(id, reach);
  while (!todo.empty()) {
    btf::TypeId id = todo.back();
    todo.pop_back();
    if (used[id]) continue;
    used[id] = true;
    btf::Kind k = b.type(id).kind();
    if (k != btf::Kind::Struct && k != btf::Kind::Union) b.for_each_type_id(id, reach);
  }
  return used;
}

}  // namespace

std::string layout_btf(const btf::Btf& b, const LayoutOptions& o, std::string* missing) {
  Table t;
  if (!unit_name_wanted(o.file_name, o)) {
    if (missing && !o.class_names.empty()) *missing = o.class_names.front();
    return {};
  }
  build_btf_table(b, t, o.cacheline_size);
  t.unit_name = o.file_name;
  if (!o.class_names.empty()) {
    // pahole's BTF loader makes one unit of the whole table.
    std::vector<std::string> pending = o.class_names;
    std::vector<uint32_t> found;
    find_named(t, o, pending, found);
    std::unordered_set<std::string> seen;
    std::string out;
    print_named_from(t, o.file_name, o, o.class_names, found, pending, seen, out);
    if (missing && !pending.empty()) *missing = pending.front();
    return out;
  }
  if (o.nr_methods) {
    Printer p(t, o);
    Methods methods;
    methods.account(t, o, p);
    return methods.list(o.separator);
  }
  std::vector<Candidate> cands;
  make_candidates(t, o, cands);
  Printer p(t, o);
  if (o.base_as_in_dwarf) {
    // A base struct the module does not use is kept when its printed
    // layout is one the DWARF side shows (the text is kept for the output).
    const std::vector<bool> used = base_structs_used(b);
    for (Candidate& c : cands)
      if (c.index < b.start_id() && !used[c.index]) p.print_class(c.index, c.text);
    std::erase_if(cands, [&](const Candidate& c) { return !c.text.empty() && !o.base_layouts.count(c.text); });
  }
  Selector sel(o);
  for (Candidate& c : cands) sel.offer(c);
  std::vector<Printed> printed;
  for (Candidate& c : cands) {
    if (!c.winner) continue;
    Printed pr;
    if (c.text.empty() || o.listing != LayoutOptions::Listing::Layouts) print_entry(p, t, o, c, pr.text);
    else pr.text = std::move(c.text);
    pr.key = std::move(c);
    printed.push_back(std::move(pr));
  }
  std::string out;
  finish(printed, o, sel, out);
  return out;
}

}  // namespace btfc::layout
