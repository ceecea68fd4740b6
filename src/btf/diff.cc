// Semantic BTF diff (see diff.h). Per side, three arrays indexed by type
// id: the hash of a type's own fields, its deep colour (refined in
// parallel sweeps over all ids, both sides at once, so colours compare
// across sides), and its "named-level" key (named types by kind and name,
// anonymous ones by their expanded structure). The verdict is a multiset
// comparison of deep colours; the report groups named types by kind and
// name and describes the first differences a reader needs, in C terms.
#include "btf/diff.h"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <string_view>
#include <vector>

#include "base/deep_stack.h"
#include "base/parallel.h"

namespace btfc::btf {

namespace {

inline uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 32);
}

uint64_t str_hash(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }

constexpr uint64_t VOID_COLOR = 0x5a17c0de5a17c0deull;

// A named type stands for itself in references: its name says which type a
// C reader means.
bool is_anchor(const TypeView& t) {
  switch (t.kind()) {
    case Kind::Struct: case Kind::Union: case Kind::Enum: case Kind::Enum64: return t.name_off() != 0;
    case Kind::Typedef: case Kind::Fwd: case Kind::Int: case Kind::Float: case Kind::Func: case Kind::Var:
    case Kind::Datasec:
      return true;
    default:
      return false;
  }
}

struct Side {
  Side(const Btf& b, std::string n) : btf(b), name(std::move(n)), start(b.start_id()), end(b.end_id()) {}
  const Btf& btf;
  std::string name;
  uint32_t start, end;
  std::vector<uint64_t> local, color, key, body;
  std::vector<uint8_t> fixed;      // colour final without refinement
  std::vector<uint32_t> refined;   // ids refined (on or above a cycle)
  std::vector<uint8_t> key_state;  // 0 new, 1 in progress, 2 done
};

class Differ {
 public:
  Differ(const Btf& a, const Btf& b, const DiffOptions& o) : a_(a, o.name_a), b_(b, o.name_b) {}

  DiffResult run() {
    for (Side* s : {&a_, &b_}) compute_local(*s);
    refine_colors();
    DiffResult r;
    r.equivalent = same_color_multisets();
    if (!r.equivalent) {
      for (Side* s : {&a_, &b_}) compute_keys(*s);
      report_named();
      if (items_ == 0) report_deep();
      if (items_ == 0) add_item("the type graphs differ");
    }
    report_counts();
    r.differences = items_;
    if (r.equivalent) {
      out_ += "equivalent: " + std::to_string(a_.end - a_.start) + " types\n";
    } else {
      out_ += std::to_string(items_) + (items_ == 1 ? " difference\n" : " differences\n");
    }
    r.report = std::move(out_);
    return r;
  }

 private:
  // ---- fields and colours ----
  static uint64_t own_fields(const Btf& btf, uint32_t id) {
    TypeView t = btf.type(id);
    uint64_t h = mix(mix(0, t.info()), str_hash(t.name()));
    switch (t.kind()) {
      case Kind::Int: return mix(mix(h, t.size()), t.words()[3]);
      case Kind::Array: return mix(h, t.array().nelems);
      case Kind::Struct: case Kind::Union:
        h = mix(h, t.size());
        for (Member m : t.members()) h = mix(mix(h, str_hash(btf.str(m.name_off))), m.offset);
        return h;
      case Kind::Enum:
        h = mix(h, t.size());
        for (EnumValue v : t.enum_values()) h = mix(mix(h, str_hash(btf.str(v.name_off))), v.val);
        return h;
      case Kind::Enum64:
        h = mix(h, t.size());
        for (Enum64Value v : t.enum64_values()) h = mix(mix(h, str_hash(btf.str(v.name_off))), v.val);
        return h;
      case Kind::FuncProto:
        for (Param p : t.params()) h = mix(h, str_hash(btf.str(p.name_off)));
        return h;
      case Kind::Var: return mix(h, t.var_linkage());
      case Kind::Datasec:
        h = mix(h, t.size());
        for (VarSecinfo v : t.secinfos()) h = mix(mix(h, v.offset), v.size);
        return h;
      case Kind::Float: return mix(h, t.size());
      case Kind::DeclTag: return mix(h, t.words()[3]);
      default: return h;
    }
  }

  void compute_local(Side& s) {
    s.local.assign(s.end, VOID_COLOR);
    parallel_for_ranges(1, s.end, 4096, [&](size_t lo, size_t hi) {
      for (size_t id = lo; id < hi; ++id) s.local[id] = own_fields(s.btf, static_cast<uint32_t>(id));
    });
  }

  // Types that reach no cycle have a colour fixed by their structure alone:
  // computed once, successors first (Tarjan's SCC order), so a long chain
  // of pointers costs one pass, not one refinement round per link. Types on
  // or above a cycle are left to refinement (s.refined lists them).
  void fix_acyclic(Side& s) {
    uint32_t n = s.end;
    std::vector<uint32_t> adj_begin(n + 1, 0), adj;
    for (uint32_t id = 1; id < n; ++id) {
      adj_begin[id] = static_cast<uint32_t>(adj.size());
      s.btf.for_each_type_id(id, [&](uint32_t ref) { adj.push_back(ref < n ? ref : 0); });
    }
    adj_begin[n] = static_cast<uint32_t>(adj.size());
    adj_begin[0] = 0;
    constexpr uint32_t UNSET = UINT32_MAX;
    std::vector<uint32_t> index(n, UNSET), low(n, 0), stack;
    std::vector<uint8_t> on_stack(n, 0), tainted(n, 0);
    std::vector<std::pair<uint32_t, uint32_t>> frames;  // node, next edge
    s.color.assign(n, VOID_COLOR);
    s.fixed.assign(n, 0);
    s.fixed[0] = 1;
    uint32_t counter = 0;
    auto open = [&](uint32_t v) {
      index[v] = low[v] = counter++;
      stack.push_back(v);
      on_stack[v] = 1;
      frames.push_back({v, adj_begin[v]});
    };
    for (uint32_t root = 1; root < n; ++root) {
      if (index[root] != UNSET) continue;
      open(root);
      while (!frames.empty()) {
        auto& [v, pos] = frames.back();
        if (pos < adj_begin[v + 1]) {
          uint32_t w = adj[pos++];
          if (w == 0) continue;
          if (index[w] == UNSET) open(w);
          else if (on_stack[w]) low[v] = std::min(low[v], index[w]);
          continue;
        }
        uint32_t done = v;
        frames.pop_back();
        if (!frames.empty()) low[frames.back().first] = std::min(low[frames.back().first], low[done]);
        if (low[done] != index[done]) continue;
        // `done` heads a strongly connected component: pop it.
        size_t first = stack.size();
        while (stack[first - 1] != done) --first;
        --first;
        bool cyclic = stack.size() - first > 1;
        for (size_t k = first; k < stack.size(); ++k) {
          uint32_t u = stack[k];
          on_stack[u] = 0;
          for (uint32_t e = adj_begin[u]; e < adj_begin[u + 1]; ++e) {
            uint32_t w = adj[e];
            if (w == u) cyclic = true;
            if (w && tainted[w]) cyclic = true;
          }
        }
        for (size_t k = first; k < stack.size(); ++k) tainted[stack[k]] = cyclic;
        if (!cyclic) {  // a single type whose successors are all fixed
          uint32_t u = stack[first];
          uint64_t h = mix(0xf1f1f1f1ull, s.local[u]);
          for (uint32_t e = adj_begin[u]; e < adj_begin[u + 1]; ++e) h = mix(h, s.color[adj[e]]);
          s.color[u] = h;
          s.fixed[u] = 1;
        }
        stack.resize(first);
      }
    }
    s.refined.clear();
    for (uint32_t id = 1; id < n; ++id)
      if (!s.fixed[id]) {
        s.refined.push_back(id);
        s.color[id] = s.local[id];
      }
  }

  static void sweep(const Side& s, const std::vector<uint64_t>& old, std::vector<uint64_t>& out) {
    parallel_for_ranges(0, s.refined.size(), 4096, [&](size_t lo, size_t hi) {
      for (size_t k = lo; k < hi; ++k) {
        uint32_t id = s.refined[k];
        uint64_t h = old[id];
        s.btf.for_each_type_id(id, [&](uint32_t ref) { h = mix(h, ref < s.end ? old[ref] : 0); });
        out[id] = h;
      }
    });
  }

  // Distinct colours among both sides' refined types.
  size_t distinct() {
    size_t n = a_.refined.size() + b_.refined.size();
    size_t cap = 1024;
    while (cap < n * 2) cap *= 2;
    table_.assign(cap, 0);
    size_t mask = cap - 1, count = 0;
    for (const Side* s : {&a_, &b_})
      for (uint32_t id : s->refined) {
        uint64_t v = s->color[id] | 1;  // 0 marks an empty slot
        for (size_t i = (v ^ (v >> 31)) & mask;; i = (i + 1) & mask) {
          if (table_[i] == v) break;
          if (table_[i] == 0) {
            table_[i] = v;
            ++count;
            break;
          }
        }
      }
    return count;
  }

  // Colour refinement of the types on or above cycles until the partition
  // of both sides' types is stable.
  void refine_colors() {
    for (Side* s : {&a_, &b_}) fix_acyclic(*s);
    std::vector<uint64_t> na = a_.color, nb = b_.color;
    size_t classes = distinct();
    size_t work = 0, budget = size_t{4} << 30;
    for (;;) {
      sweep(a_, a_.color, na);
      sweep(b_, b_.color, nb);
      std::swap(a_.color, na);
      std::swap(b_.color, nb);
      size_t now = distinct();
      if (now == classes) break;
      classes = now;
      work += a_.refined.size() + b_.refined.size();
      if (work > budget) throw Error("BTF diff: type graph cycles too long to compare");
    }
  }

  bool same_color_multisets() {
    std::vector<uint64_t> ca(a_.color.begin() + a_.start, a_.color.end());
    std::vector<uint64_t> cb(b_.color.begin() + b_.start, b_.color.end());
    std::sort(ca.begin(), ca.end());
    std::sort(cb.begin(), cb.end());
    return ca == cb;
  }

  // ---- named-level keys ----
  uint64_t key(Side& s, uint32_t id) {
    if (id == 0) return VOID_COLOR;
    if (id >= s.end) return 0;
    if (s.key_state[id] == 2) return s.key[id];
    if (s.key_state[id] == 1) return 1;  // a cycle of anonymous types (malformed): cut it
    TypeView t = s.btf.type(id);
    uint64_t k;
    if (is_anchor(t)) {
      k = mix(mix(7, t.kind() == Kind::Fwd ? 100 + t.kind_flag() : static_cast<uint32_t>(t.kind())), str_hash(t.name()));
    } else {
      s.key_state[id] = 1;
      k = body_of(s, id);
    }
    s.key_state[id] = 2;
    s.key[id] = k;
    return k;
  }
  uint64_t body_of(Side& s, uint32_t id) {
    uint64_t h = s.local[id];
    s.btf.for_each_type_id(id, [&](uint32_t ref) { h = mix(h, key(s, ref)); });
    return h;
  }
  void compute_keys(Side& s) {
    s.key.assign(s.end, 0);
    s.key_state.assign(s.end, 0);
    s.body.assign(s.end, 0);
    for (uint32_t id = 1; id < s.end; ++id) key(s, id);
    for (uint32_t id = s.start; id < s.end; ++id) s.body[id] = body_of(s, id);
  }

  // ---- rendering in C terms ----
  std::string render(const Side& s, uint32_t id, int depth = 0) const {
    if (id == 0) return "void";
    if (id >= s.end) return "<bad id>";
    if (depth > 8) return "...";
    TypeView t = s.btf.type(id);
    std::string name(t.name());
    switch (t.kind()) {
      case Kind::Int: case Kind::Float: case Kind::Typedef: case Kind::Var: return name;
      case Kind::Struct: return name.empty() ? "struct {...}" : "struct " + name;
      case Kind::Union: return name.empty() ? "union {...}" : "union " + name;
      case Kind::Enum: case Kind::Enum64: return name.empty() ? "enum {...}" : "enum " + name;
      case Kind::Fwd: return (t.kind_flag() ? "union " : "struct ") + name + " (declaration)";
      case Kind::Ptr: {
        if (t.type() != 0 && t.type() < s.end && s.btf.kind(t.type()) == Kind::FuncProto)
          return render_proto(s, t.type(), "(*)", depth + 1);
        return render(s, t.type(), depth + 1) + " *";
      }
      case Kind::Const: case Kind::Volatile: {
        // C puts the qualifier of a pointer after the star.
        const char* q = t.kind() == Kind::Const ? "const" : "volatile";
        bool ptr = t.type() != 0 && t.type() < s.end && s.btf.kind(t.type()) == Kind::Ptr;
        return ptr ? render(s, t.type(), depth + 1) + " " + q : q + (" " + render(s, t.type(), depth + 1));
      }
      case Kind::Restrict: return render(s, t.type(), depth + 1) + " restrict";
      case Kind::Array: return render(s, t.array().type, depth + 1) + "[" + std::to_string(t.array().nelems) + "]";
      case Kind::FuncProto: return render_proto(s, id, "", depth);
      case Kind::Func: return "func " + name;
      case Kind::TypeTag: return render(s, t.type(), depth + 1) + " __tag(" + name + ")";
      case Kind::DeclTag: return "decl_tag(" + name + ") on " + render(s, t.type(), depth + 1);
      case Kind::Datasec: return "section " + name;
      default: return "?";
    }
  }
  std::string render_proto(const Side& s, uint32_t id, const char* inner, int depth) const {
    TypeView t = s.btf.type(id);
    std::string r = render(s, t.type(), depth + 1) + " " + inner + "(";
    for (uint32_t i = 0; i < t.vlen(); ++i) {
      if (i) r += ", ";
      Param p = t.param(i);
      r += p.type == 0 ? std::string("...") : render(s, p.type, depth + 1);
    }
    return r + ")";
  }
  static std::string quoted(std::string_view name) { return name.empty() ? "(anon)" : "'" + std::string(name) + "'"; }

  // ---- the report ----
  void add_item(const std::string& line) {
    ++items_;
    out_ += line;
    out_ += '\n';
  }

  std::string title(const Side& s, uint32_t id) const {
    TypeView t = s.btf.type(id);
    std::string r = std::string(kind_name(t.kind())) + " " + (t.name().empty() ? "(anon)" : std::string(t.name()));
    switch (t.kind()) {
      case Kind::Struct: case Kind::Union:
        return r + " (size " + std::to_string(t.size()) + ", " + std::to_string(t.vlen()) + " members)";
      case Kind::Enum: case Kind::Enum64:
        return r + " (" + std::to_string(t.vlen()) + " values)";
      case Kind::Func: return r + ": " + render(s, t.type());
      case Kind::Typedef: return r + " = " + render(s, t.type());
      case Kind::Var: return r + ": " + render(s, t.type());
      default: return r;
    }
  }

  struct Entry {
    Kind kind;
    std::string_view name;
    bool side_b;
    uint32_t id;
  };

  void report_named() {
    std::vector<Entry> entries;
    for (Side* s : {&a_, &b_})
      for (uint32_t id = s->start; id < s->end; ++id) {
        TypeView t = s->btf.type(id);
        if (is_anchor(t)) entries.push_back({t.kind(), t.name(), s == &b_, id});
      }
    std::stable_sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) {
      if (x.kind != y.kind) return x.kind < y.kind;
      if (x.name != y.name) return x.name < y.name;
      return x.side_b < y.side_b;
    });
    std::vector<std::string> only_a, only_b;
    std::string changed;
    size_t changed_items = 0;
    for (size_t i = 0; i < entries.size();) {
      size_t j = i;
      std::vector<uint32_t> ga, gb;
      while (j < entries.size() && entries[j].kind == entries[i].kind && entries[j].name == entries[i].name) {
        (entries[j].side_b ? gb : ga).push_back(entries[j].id);
        ++j;
      }
      i = j;
      // Equal bodies cancel out, one for one.
      auto left_a = unmatched(a_, ga, b_, gb), left_b = unmatched(b_, gb, a_, ga);
      size_t pairs = ga.empty() || gb.empty() ? 0 : std::min(left_a.size(), left_b.size());
      // A name that one side has more than once says how often each has
      // it: pahole 1.24 encodes a function once per unit that defines it,
      // so its extra copies show as "only in" though both have the name.
      const bool several = ga.size() > 1 || gb.size() > 1;
      const std::string counts = several ? std::to_string(ga.size()) + " in " + a_.name + ", " +
                                               std::to_string(gb.size()) + " in " + b_.name
                                         : std::string();
      for (size_t k = 0; k < pairs; ++k) {
        std::vector<std::string> lines;
        describe(left_a[k], left_b[k], lines);
        if (lines.empty()) lines.push_back("  differs in the types it refers to");
        std::string head = title(a_, left_a[k]);
        if (several) head += " (one of " + counts + ")";
        changed += "  " + head + ":\n";
        for (const std::string& l : lines) changed += "  " + l + "\n";
        ++changed_items;
      }
      auto only = [&](const Side& s, uint32_t id) {
        return several ? title(s, id) + " (of that name: " + counts + ")" : title(s, id);
      };
      for (size_t k = pairs; k < left_a.size(); ++k) only_a.push_back(only(a_, left_a[k]));
      for (size_t k = pairs; k < left_b.size(); ++k) only_b.push_back(only(b_, left_b[k]));
    }
    if (!only_a.empty()) {
      out_ += "only in " + a_.name + ":\n";
      for (const std::string& l : only_a) add_item("  " + l);
    }
    if (!only_b.empty()) {
      out_ += "only in " + b_.name + ":\n";
      for (const std::string& l : only_b) add_item("  " + l);
    }
    if (changed_items) {
      out_ += "changed (" + a_.name + " -> " + b_.name + "):\n" + changed;
      items_ += changed_items;
    }
  }

  // Ids of `g` (side s) whose body has no equal partner in `h` (side o),
  // counting multiplicities, in id order.
  static std::vector<uint32_t> unmatched(const Side& s, const std::vector<uint32_t>& g, const Side& o,
                                         const std::vector<uint32_t>& h) {
    std::vector<uint64_t> other;
    for (uint32_t id : h) other.push_back(o.body[id]);
    std::sort(other.begin(), other.end());
    std::vector<bool> used(other.size());
    std::vector<uint32_t> left;
    for (uint32_t id : g) {
      auto it = std::lower_bound(other.begin(), other.end(), s.body[id]);
      size_t k = static_cast<size_t>(it - other.begin());
      while (k < other.size() && other[k] == s.body[id] && used[k]) ++k;
      if (k < other.size() && other[k] == s.body[id]) used[k] = true;
      else left.push_back(id);
    }
    return left;
  }

  // What differs between named type ia (side A) and ib (side B), as lines.
  void describe(uint32_t ia, uint32_t ib, std::vector<std::string>& lines, const std::string& prefix = "") {
    TypeView x = a_.btf.type(ia), y = b_.btf.type(ib);
    auto line = [&](const std::string& l) { lines.push_back("  " + prefix + l); };
    if (x.kind() != y.kind()) {
      line("kind " + std::string(kind_name(x.kind())) + " -> " + std::string(kind_name(y.kind())));
      return;
    }
    switch (x.kind()) {
      case Kind::Struct: case Kind::Union: {
        if (x.size() != y.size()) line("size " + std::to_string(x.size()) + " -> " + std::to_string(y.size()));
        std::vector<bool> used(y.vlen());
        for (uint32_t i = 0; i < x.vlen(); ++i) {
          Member m = x.member(i);
          std::string_view name = a_.btf.str(m.name_off);
          uint32_t k = 0;
          for (; k < y.vlen(); ++k)
            if (!used[k] && b_.btf.str(y.member(k).name_off) == name) break;
          std::string label = "member " + quoted(name);
          if (k == y.vlen()) {
            line(label + " only in " + a_.name + " (bit offset " + std::to_string(m.bit_offset()) + ", " + render(a_, m.type) + ")");
            continue;
          }
          used[k] = true;
          Member n = y.member(k);
          if (m.bit_offset() != n.bit_offset())
            line(label + ": bit offset " + std::to_string(m.bit_offset()) + " -> " + std::to_string(n.bit_offset()));
          if (m.bitfield_size() != n.bitfield_size())
            line(label + ": bitfield size " + std::to_string(m.bitfield_size()) + " -> " + std::to_string(n.bitfield_size()));
          if (key(a_, m.type) != key(b_, n.type)) {
            std::string ra = render(a_, m.type), rb = render(b_, n.type);
            bool nested = m.type && n.type && m.type < a_.end && n.type < b_.end &&
                          !is_anchor(a_.btf.type(m.type)) && a_.btf.kind(m.type) == b_.btf.kind(n.type) &&
                          (a_.btf.kind(m.type) == Kind::Struct || a_.btf.kind(m.type) == Kind::Union);
            if (nested) {
              describe(m.type, n.type, lines, prefix + (name.empty() ? "(anon)" : std::string(name)) + ".");
            } else {
              line(label + ": type " + ra + " -> " + rb + (ra == rb ? " (differently built)" : ""));
            }
          }
        }
        for (uint32_t k = 0; k < y.vlen(); ++k)
          if (!used[k]) {
            Member n = y.member(k);
            line("member " + quoted(b_.btf.str(n.name_off)) + " only in " + b_.name + " (bit offset " +
                 std::to_string(n.bit_offset()) + ", " + render(b_, n.type) + ")");
          }
        if (lines.empty() && x.vlen() == y.vlen()) line("member order differs");
        return;
      }
      case Kind::Enum: case Kind::Enum64: {
        if (x.size() != y.size()) line("size " + std::to_string(x.size()) + " -> " + std::to_string(y.size()));
        if (x.kind_flag() != y.kind_flag())
          line(std::string(x.kind_flag() ? "signed" : "unsigned") + " -> " + (y.kind_flag() ? "signed" : "unsigned"));
        auto value = [](const TypeView& t, uint32_t i) -> std::pair<uint32_t, std::string> {
          if (t.kind() == Kind::Enum) {
            EnumValue v = t.enum_value(i);
            return {v.name_off, t.kind_flag() ? std::to_string(static_cast<int32_t>(v.val)) : std::to_string(v.val)};
          }
          Enum64Value v = t.enum64_value(i);
          return {v.name_off, t.kind_flag() ? std::to_string(static_cast<int64_t>(v.val)) : std::to_string(v.val)};
        };
        std::vector<bool> used(y.vlen());
        for (uint32_t i = 0; i < x.vlen(); ++i) {
          auto [noff, val] = value(x, i);
          std::string_view name = a_.btf.str(noff);
          uint32_t k = 0;
          for (; k < y.vlen(); ++k)
            if (!used[k] && b_.btf.str(value(y, k).first) == name) break;
          if (k == y.vlen()) {
            line("enumerator " + quoted(name) + " = " + val + " only in " + a_.name);
            continue;
          }
          used[k] = true;
          std::string other = value(y, k).second;
          if (other != val) line("enumerator " + quoted(name) + ": " + val + " -> " + other);
        }
        for (uint32_t k = 0; k < y.vlen(); ++k)
          if (!used[k]) line("enumerator " + quoted(b_.btf.str(value(y, k).first)) + " = " + value(y, k).second + " only in " + b_.name);
        if (lines.empty()) line("enumerator order differs");
        return;
      }
      case Kind::Func: {
        static const char* const linkage[] = {"static", "global", "extern"};
        if (x.func_linkage() != y.func_linkage())
          line(std::string("linkage ") + (x.func_linkage() < 3 ? linkage[x.func_linkage()] : "?") + " -> " +
               (y.func_linkage() < 3 ? linkage[y.func_linkage()] : "?"));
        if (key(a_, x.type()) != key(b_, y.type())) line("prototype " + render(a_, x.type()) + " -> " + render(b_, y.type()));
        return;
      }
      case Kind::Var: {
        static const char* const linkage[] = {"static", "global", "extern"};
        if (x.var_linkage() != y.var_linkage())
          line(std::string("linkage ") + (x.var_linkage() < 3 ? linkage[x.var_linkage()] : "?") + " -> " +
               (y.var_linkage() < 3 ? linkage[y.var_linkage()] : "?"));
        if (key(a_, x.type()) != key(b_, y.type())) line("type " + render(a_, x.type()) + " -> " + render(b_, y.type()));
        return;
      }
      case Kind::Typedef:
        if (key(a_, x.type()) != key(b_, y.type())) line("type " + render(a_, x.type()) + " -> " + render(b_, y.type()));
        return;
      case Kind::Fwd:
        line(std::string(x.kind_flag() ? "union" : "struct") + " -> " + (y.kind_flag() ? "union" : "struct"));
        return;
      case Kind::Int:
        if (x.size() != y.size()) line("size " + std::to_string(x.size()) + " -> " + std::to_string(y.size()));
        if (x.int_encoding() != y.int_encoding())
          line("encoding " + std::to_string(x.int_encoding()) + " -> " + std::to_string(y.int_encoding()));
        if (x.int_bits() != y.int_bits() || x.int_offset() != y.int_offset())
          line("bits " + std::to_string(x.int_bits()) + "@" + std::to_string(x.int_offset()) + " -> " +
               std::to_string(y.int_bits()) + "@" + std::to_string(y.int_offset()));
        return;
      case Kind::Float:
        if (x.size() != y.size()) line("size " + std::to_string(x.size()) + " -> " + std::to_string(y.size()));
        return;
      case Kind::Datasec: {
        if (x.size() != y.size()) line("size " + std::to_string(x.size()) + " -> " + std::to_string(y.size()));
        auto var_name = [](const Side& s, VarSecinfo v) {
          return v.type < s.end ? std::string(s.btf.type(v.type).name()) : std::string("?");
        };
        std::vector<bool> used(y.vlen());
        for (uint32_t i = 0; i < x.vlen(); ++i) {
          VarSecinfo v = x.secinfo(i);
          std::string name = var_name(a_, v);
          uint32_t k = 0;
          for (; k < y.vlen(); ++k)
            if (!used[k] && var_name(b_, y.secinfo(k)) == name) break;
          if (k == y.vlen()) {
            line("variable " + quoted(name) + " only in " + a_.name);
            continue;
          }
          used[k] = true;
          VarSecinfo w = y.secinfo(k);
          if (v.offset != w.offset || v.size != w.size)
            line("variable " + quoted(name) + ": offset " + std::to_string(v.offset) + " size " + std::to_string(v.size) +
                 " -> offset " + std::to_string(w.offset) + " size " + std::to_string(w.size));
        }
        for (uint32_t k = 0; k < y.vlen(); ++k)
          if (!used[k]) line("variable " + quoted(var_name(b_, y.secinfo(k))) + " only in " + b_.name);
        return;
      }
      default:
        return;
    }
  }

  // The named view saw nothing: list the colours whose counts differ.
  void report_deep() {
    std::vector<std::pair<uint64_t, int>> all;  // colour, +1 for A / -1 for B
    for (uint32_t id = a_.start; id < a_.end; ++id) all.push_back({a_.color[id], 1});
    for (uint32_t id = b_.start; id < b_.end; ++id) all.push_back({b_.color[id], -1});
    std::sort(all.begin(), all.end());
    std::vector<std::pair<uint64_t, long>> diffs;
    for (size_t i = 0; i < all.size();) {
      size_t j = i;
      long net = 0;
      for (; j < all.size() && all[j].first == all[i].first; ++j) net += all[j].second;
      if (net) diffs.push_back({all[i].first, net});
      i = j;
    }
    if (diffs.empty()) return;
    out_ += "types whose whole graphs differ (the named view shows no difference):\n";
    size_t shown = 0;
    for (auto [color, net] : diffs) {
      const Side& s = net > 0 ? a_ : b_;
      for (uint32_t id = s.start; id < s.end; ++id) {
        if (s.color[id] != color) continue;
        if (shown < 40) {
          add_item("  " + std::to_string(net > 0 ? net : -net) + " more in " + s.name + ": " + title(s, id) +
                   (is_anchor(s.btf.type(id)) ? "" : " " + render(s, id)));
        } else {
          ++items_;
        }
        ++shown;
        break;
      }
    }
    if (shown > 40) out_ += "  ... and " + std::to_string(shown - 40) + " more\n";
  }

  void report_counts() {
    std::array<uint32_t, KIND_MAX + 1> ca{}, cb{};
    for (uint32_t id = a_.start; id < a_.end; ++id) ++ca[static_cast<unsigned>(a_.btf.kind(id))];
    for (uint32_t id = b_.start; id < b_.end; ++id) ++cb[static_cast<unsigned>(b_.btf.kind(id))];
    // Columns are headed by the file names without their folders.
    auto base = [](const std::string& n) { return n.substr(n.find_last_of('/') == std::string::npos ? 0 : n.find_last_of('/') + 1); };
    std::string la = base(a_.name), lb = base(b_.name);
    if (la == lb) la = "A", lb = "B";
    size_t wa = std::max<size_t>(la.size(), 9), wb = std::max<size_t>(lb.size(), 9);
    char buf[512];
    auto row = [&](std::string_view k, const std::string& x, const std::string& y, const char* mark) {
      std::snprintf(buf, sizeof buf, "%-12.*s %*s %*s%s\n", static_cast<int>(k.size()), k.data(), static_cast<int>(wa),
                    x.c_str(), static_cast<int>(wb), y.c_str(), mark);
      out_ += buf;
    };
    out_ += '\n';
    row("kind", la, lb, "");
    for (unsigned k = 1; k <= KIND_MAX; ++k)
      if (ca[k] || cb[k])
        row(kind_name(static_cast<Kind>(k)), std::to_string(ca[k]), std::to_string(cb[k]), ca[k] != cb[k] ? "  *" : "");
    row("total", std::to_string(a_.end - a_.start), std::to_string(b_.end - b_.start),
        a_.end - a_.start != b_.end - b_.start ? "  *" : "");
    out_ += '\n';
  }

  Side a_, b_;
  std::vector<uint64_t> table_;
  std::string out_;
  size_t items_ = 0;
};

}  // namespace

DiffResult diff(const Btf& a, const Btf& b, const DiffOptions& options) {
  // Named-level keys recurse through chains of anonymous types.
  DiffResult r;
  run_with_stack(size_t{512} * (a.end_id() + b.end_id()), [&] { r = Differ(a, b, options).run(); });
  return r;
}

}  // namespace btfc::btf
