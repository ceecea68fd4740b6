// BTF as a C header: what `bpftool btf dump file FILE format c` prints
// (bpftool 7.1, whose C output comes from libbpf 1.1's btf_dump), so the
// two can be diffed byte for byte.
//
// The output is valid C only because of ordering: a struct embedded by
// value must be defined before the struct that embeds it, while one only
// pointed to can be forward-declared. So, per type in id order:
//   1. order: a DFS from the type that queues every named definition it
//      needs, dependencies first. A link is "strong" (definition needed)
//      unless it goes through a pointer to a named type; a type met again
//      while being ordered is a cycle, fine only through such a pointer.
//   2. emit: print each queued definition, first printing forward
//      declarations for named structs and typedefs that are needed but
//      still being emitted (the pointer cycles).
// Declarations are printed from the chain of types that make them up
// (pointer -> const -> array -> ...), inside out, the way C spells them.
// Names that occur more than once get ___2, ___3 ... suffixes, struct/
// union/enum tags and typedef/enumerator identifiers counted separately.
// Struct layout that C would not reproduce by itself is made explicit:
// padding as anonymous bitfields ("long: 64;"), and
// __attribute__((packed)) where members are not naturally aligned.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "btf/dump.h"

namespace btfc::btf {

namespace {

class CDumper {
 public:
  CDumper(const Btf& btf, std::string& out) : btf_(btf), out_(out), state_(btf.end_id()) {
    // As libbpf: the guess from `long`, else the host's.
    if (uint32_t p = btf::pointer_size(btf_)) ptr_size_ = static_cast<int>(p);
    uint64_t words = 0;
    for (const Btf* b = &btf; b; b = b->base()) words += b->words().size();
    max_steps_ = 1000000 + 64 * words;
    align_.assign(btf.end_id(), UNKNOWN_ALIGN);
    state_[0].order = state_[0].emit = DONE;  // void
    for (TypeId id = 1; id < btf.end_id(); ++id) mark_referenced(id);
  }

  void dump_all() {
    out_ += "#ifndef __VMLINUX_H__\n#define __VMLINUX_H__\n\n";
    out_ += "#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n";
    out_ += "#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)\n";
    out_ += "#endif\n\n";
    for (TypeId id = 1; id < btf_.end_id(); ++id) {
      try {
        queue_.clear();
        order(id, false);
        for (TypeId q : queue_) emit(q, 0);
      } catch (const Error& e) {
        // The depth and work limits: say at which type the walk began.
        if (!e.section().empty()) throw;
        throw Error("type [" + std::to_string(id) + "] " + std::string(kind_name(btf_.type(id).kind())) + ": " +
                    e.message());
      }
    }
    out_ += "#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n#pragma clang attribute pop\n#endif\n\n";
    out_ += "#endif /* __VMLINUX_H__ */\n";
  }

 private:
  enum : uint8_t { NOT_STARTED, IN_PROGRESS, DONE };

  // The walks recurse along the type graph, which real BTF keeps shallow
  // (tens of levels); hostile input gets an error instead of a stack
  // overflow.
  // Work is bounded too: anonymous types are spelled out (and walked) at
  // every use, which hostile input can make exponential; real BTF takes a
  // few steps per word.
  struct DepthGuard {
    explicit DepthGuard(CDumper& d) : d_(d) {
      if (++d_.depth_ > 2000) throw Error("BTF types nest too deeply for C output");
      if (++d_.steps_ > d_.max_steps_) throw Error("BTF too convoluted for C output");
    }
    ~DepthGuard() { --d_.depth_; }
    CDumper& d_;
  };
  int depth_ = 0;
  uint64_t steps_ = 0;
  uint64_t max_steps_ = 0;
  struct State {
    uint8_t order = NOT_STARTED;
    uint8_t emit = NOT_STARTED;
    bool fwd_emitted = false;
    bool name_resolved = false;
    bool referenced = false;
  };

  const uint32_t* rec(TypeId id) const { return btf_.record(id); }
  Kind kind(TypeId id) const { return info_kind(rec(id)[1]); }
  uint32_t vlen(TypeId id) const { return info_vlen(rec(id)[1]); }
  bool kflag(TypeId id) const { return info_kind_flag(rec(id)[1]); }
  std::string_view name_of(uint32_t off) const { return off ? btf_.str(off) : std::string_view(); }

  // As libbpf marks them: every type a record refers to, except a
  // prototype's return type (an anonymous enum returned by a prototype is
  // still a top-level definition of its own: bpftool 7.1 prints it).
  void mark_referenced(TypeId id) {
    const uint32_t* r = rec(id);
    Kind k = info_kind(r[1]);
    if (k == Kind::Array) {
      state_[r[4]].referenced = true;
      state_[r[3]].referenced = true;
      return;
    }
    if (k == Kind::FuncProto) {
      for (uint32_t i = 0; i < info_vlen(r[1]); ++i) state_[r[4 + 2 * i]].referenced = true;
      return;
    }
    visit_type_id_words(r, [&](const uint32_t& t) { state_[t].referenced = true; });
  }

  // ---- sizes and alignment, as libbpf computes them ----

  int64_t resolve_size(TypeId id) const {
    uint64_t nelems = 1;
    for (int depth = 0; depth < 32 && id != 0; ++depth) {
      const uint32_t* r = rec(id);
      switch (info_kind(r[1])) {
        case Kind::Int: case Kind::Struct: case Kind::Union: case Kind::Enum: case Kind::Enum64:
        case Kind::Datasec: case Kind::Float:
          return static_cast<int64_t>(nelems * r[2]);
        case Kind::Ptr:
          return static_cast<int64_t>(nelems * ptr_size_);
        case Kind::Typedef: case Kind::Volatile: case Kind::Const: case Kind::Restrict: case Kind::Var:
        case Kind::DeclTag: case Kind::TypeTag:
          id = r[2];
          break;
        case Kind::Array:
          nelems *= r[5];
          id = r[3];
          break;
        default:
          return -1;
      }
    }
    return -1;
  }

  // Memoized: nested structs share members, and unmemoized the walk can be
  // exponential. A result cut short by the depth limit is not kept.
  int align_of(TypeId id, int depth = 0) {
    if (id == 0) return 0;
    if (align_[id] != UNKNOWN_ALIGN) return align_[id];
    if (depth > 64) {
      align_truncated_ = true;
      return 0;
    }
    bool outer_truncated = align_truncated_;
    align_truncated_ = false;
    int a = compute_align(id, depth);
    if (!align_truncated_) align_[id] = a;
    align_truncated_ = align_truncated_ || outer_truncated;
    return a;
  }

  int compute_align(TypeId id, int depth) {
    const uint32_t* r = rec(id);
    switch (info_kind(r[1])) {
      case Kind::Int: case Kind::Enum: case Kind::Enum64: case Kind::Float:
        return std::min<int>(ptr_size_, static_cast<int>(r[2]));
      case Kind::Ptr:
        return ptr_size_;
      case Kind::Typedef: case Kind::Volatile: case Kind::Const: case Kind::Restrict: case Kind::TypeTag:
        return align_of(r[2], depth + 1);
      case Kind::Array:
        return align_of(r[3], depth + 1);
      case Kind::Struct: case Kind::Union: {
        int max_align = 1;
        bool kf = info_kind_flag(r[1]);
        for (uint32_t i = 0; i < info_vlen(r[1]); ++i) {
          int a = align_of(r[4 + 3 * i], depth + 1);
          if (a <= 0) return a;
          max_align = std::max(max_align, a);
          uint32_t off = r[5 + 3 * i];
          uint32_t bits = kf ? off >> 24 : 0;
          if (kf) off &= 0xffffff;
          // A member off its natural alignment: the struct is packed.
          if (bits == 0 && off % (8 * a) != 0) return 1;
        }
        if (r[2] % max_align != 0) return 1;
        return max_align;
      }
      default:
        return 0;
    }
  }

  bool is_packed(TypeId id) {
    const uint32_t* r = rec(id);
    bool kf = info_kind_flag(r[1]);
    int max_align = 1;
    for (uint32_t i = 0; i < info_vlen(r[1]); ++i) {
      int a = align_of(r[4 + 3 * i]);
      uint32_t off = r[5 + 3 * i];
      uint32_t bits = kf ? off >> 24 : 0;
      if (kf) off &= 0xffffff;
      if (a && bits == 0 && off % (8 * a) != 0) return true;
      max_align = std::max(max_align, a);
    }
    return r[2] % max_align != 0;
  }

  // ---- names ----

  std::string_view resolve_name(TypeId id, std::unordered_map<std::string, size_t>& names) {
    const uint32_t* r = rec(id);
    if (r[0] == 0) return {};
    State& s = state_[id];
    std::string_view orig = btf_.str(r[0]);
    if (s.name_resolved) {
      auto it = renamed_.find(id);
      return it == renamed_.end() ? orig : std::string_view(it->second);
    }
    s.name_resolved = true;
    Kind k = info_kind(r[1]);
    if (k == Kind::Fwd || (k == Kind::Enum && info_vlen(r[1]) == 0)) return orig;
    size_t dups = ++names[std::string(orig)];
    if (dups > 1) {
      std::string& n = renamed_[id];
      n = std::string(orig) + "___" + std::to_string(dups);
      return n;
    }
    return orig;
  }
  std::string_view type_name(TypeId id) { return resolve_name(id, type_names_); }
  std::string_view ident_name(TypeId id) { return resolve_name(id, ident_names_); }

  // ---- ordering ----

  // Returns 1 for a strong link, 0 for a weak one (see the top comment).
  int order(TypeId id, bool through_ptr) {
    DepthGuard guard(*this);
    State& s = state_[id];
    if (s.order == DONE) return 1;
    const uint32_t* r = rec(id);
    Kind k = info_kind(r[1]);
    if (s.order == IN_PROGRESS) {
      if ((k == Kind::Struct || k == Kind::Union) && through_ptr && r[0] != 0) return 0;
      throw Error("type [" + std::to_string(id) + "]: type cycle that C cannot declare");
    }
    switch (k) {
      case Kind::Int: case Kind::Float:
        s.order = DONE;
        return 0;
      case Kind::Ptr: {
        int strong = order(r[2], true);
        state_[id].order = DONE;
        return strong;
      }
      case Kind::Array:
        return order(r[3], false);
      case Kind::Struct: case Kind::Union: {
        // Needed in full only when embedded, or when anonymous (then it is
        // spelled out inline even behind a pointer).
        if (through_ptr && r[0] != 0) return 0;
        s.order = IN_PROGRESS;
        for (uint32_t i = 0; i < info_vlen(r[1]); ++i) order(rec(id)[4 + 3 * i], false);
        if (rec(id)[0] != 0) queue_.push_back(id);
        state_[id].order = DONE;
        return 1;
      }
      case Kind::Enum: case Kind::Enum64: case Kind::Fwd:
        // Named or never referenced (a top-level anonymous enum of
        // constants): a definition of its own.
        if (r[0] != 0 || !s.referenced) queue_.push_back(id);
        s.order = DONE;
        return 1;
      case Kind::Typedef: {
        int strong = order(r[2], through_ptr);
        if (through_ptr && !strong) return 0;
        queue_.push_back(id);
        state_[id].order = DONE;
        return 1;
      }
      case Kind::Volatile: case Kind::Const: case Kind::Restrict: case Kind::TypeTag:
        return order(r[2], through_ptr);
      case Kind::FuncProto: {
        bool strong = order(r[2], through_ptr) > 0;
        for (uint32_t i = 0; i < info_vlen(r[1]); ++i)
          if (order(rec(id)[4 + 2 * i], through_ptr) > 0) strong = true;
        return strong;
      }
      default:  // FUNC, VAR, DATASEC, DECL_TAG: nothing to declare
        s.order = DONE;
        return 0;
    }
  }

  // ---- emitting ----

  static std::string_view pfx(int lvl) {
    static constexpr std::string_view tabs = "\t\t\t\t\t\t\t\t\t\t\t\t\t";
    return tabs.substr(0, std::min<size_t>(lvl, tabs.size()));
  }

  bool blacklisted(TypeId id) const {
    // __builtin_va_list is the compiler's own: never redefined.
    uint32_t n = rec(id)[0];
    return n != 0 && btf_.str(n) == "__builtin_va_list";
  }

  void emit(TypeId id, TypeId cont_id) {
    DepthGuard guard(*this);
    State& s = state_[id];
    if (s.emit == DONE) return;
    const uint32_t* r = rec(id);
    Kind k = info_kind(r[1]);
    bool top_level = cont_id == 0;
    if (s.emit == IN_PROGRESS) {
      if (s.fwd_emitted) return;
      if (k == Kind::Struct || k == Kind::Union) {
        if (id == cont_id) return;  // a member pointing to its own struct
        if (r[0] == 0) return;      // anonymous loop: nothing to declare
        emit_struct_fwd(id);
        out_ += ";\n\n";
        state_[id].fwd_emitted = true;
      } else if (k == Kind::Typedef) {
        if (!blacklisted(id)) {
          emit_typedef_def(id, 0);
          out_ += ";\n\n";
        }
        state_[id].fwd_emitted = true;
      }
      return;
    }
    switch (k) {
      case Kind::Int:
        emit_missing_alias(id);
        s.emit = DONE;
        break;
      case Kind::Enum: case Kind::Enum64:
        if (top_level) {
          emit_enum_def(id, 0);
          out_ += ";\n\n";
        }
        state_[id].emit = DONE;
        break;
      case Kind::Ptr: case Kind::Volatile: case Kind::Const: case Kind::Restrict: case Kind::TypeTag:
        emit(r[2], cont_id);
        break;
      case Kind::Array:
        emit(r[3], cont_id);
        break;
      case Kind::Fwd:
        emit_fwd_def(id);
        out_ += ";\n\n";
        state_[id].emit = DONE;
        break;
      case Kind::Typedef:
        s.emit = IN_PROGRESS;
        emit(r[2], id);
        // Someone may have needed it as a forward declaration meanwhile.
        if (!state_[id].fwd_emitted && !blacklisted(id)) {
          emit_typedef_def(id, 0);
          out_ += ";\n\n";
        }
        state_[id].emit = DONE;
        break;
      case Kind::Struct: case Kind::Union:
        s.emit = IN_PROGRESS;
        if (top_level || r[0] == 0) {
          TypeId new_cont = r[0] == 0 ? cont_id : id;
          for (uint32_t i = 0; i < info_vlen(r[1]); ++i) emit(rec(id)[4 + 3 * i], new_cont);
        } else if (!state_[id].fwd_emitted && id != cont_id) {
          emit_struct_fwd(id);
          out_ += ";\n\n";
          state_[id].fwd_emitted = true;
        }
        if (top_level) {
          emit_struct_def(id, 0);
          out_ += ";\n\n";
          state_[id].emit = DONE;
        } else {
          state_[id].emit = NOT_STARTED;
        }
        break;
      case Kind::FuncProto:
        emit(r[2], cont_id);
        for (uint32_t i = 0; i < info_vlen(r[1]); ++i) emit(rec(id)[4 + 2 * i], cont_id);
        break;
      default:
        break;
    }
  }

  void emit_missing_alias(TypeId id) {
    // GCC's internal Arm SIMD element types, aliased to standard ones.
    static constexpr std::pair<std::string_view, std::string_view> aliases[] = {
        {"__Poly8_t", "unsigned char"},
        {"__Poly16_t", "unsigned short"},
        {"__Poly64_t", "unsigned long long"},
        {"__Poly128_t", "unsigned __int128"},
    };
    std::string_view n = type_name(id);
    for (auto [from, to] : aliases)
      if (n == from) {
        out_ += "typedef ";
        out_ += to;
        out_ += ' ';
        out_ += n;
        out_ += ";\n\n";
        return;
      }
  }

  void emit_struct_fwd(TypeId id) {
    out_ += kind(id) == Kind::Struct ? "struct" : "union";
    if (rec(id)[0]) out_ += ' ';
    out_ += type_name(id);
  }

  void emit_fwd_def(TypeId id) {
    out_ += kflag(id) ? "union " : "struct ";
    out_ += type_name(id);
  }

  void num(int64_t v) { out_ += std::to_string(v); }

  // Explicit padding from bit cur_off to next_off with anonymous bitfields
  // of long/int/short/char, relying on natural alignment where C's own
  // padding would land on the same offset.
  void emit_bit_padding(int64_t cur_off, int64_t next_off, int next_align, bool in_bitfield, int lvl) {
    struct Pad {
      const char* name;
      int bits;
    };
    const Pad pads[] = {{"long", ptr_size_ * 8}, {"int", 32}, {"short", 16}, {"char", 8}};
    if (cur_off >= next_off) return;
    // bpftool would print a line per 64 bits of any gap; 8 MiB of padding
    // (a million lines) is past anything real and the guard against a
    // 4 GiB struct printing for minutes.
    if (next_off - cur_off > (int64_t{1} << 26)) throw Error("BTF struct padding too large for C output");
    if (next_align <= 0) next_align = 1;  // no alignment known (libbpf would divide by zero)
    auto roundup = [](int64_t v, int64_t a) { return (v + a - 1) / a * a; };
    int64_t new_off = 0;
    int pad_bits = 0;
    const char* pad_type = nullptr;
    for (const Pad& p : pads) {
      pad_bits = p.bits;
      pad_type = p.name;
      new_off = roundup(cur_off, pad_bits);
      if (new_off <= next_off) break;
    }
    if (new_off > cur_off && new_off <= next_off) {
      if (in_bitfield || (new_off == next_off && roundup(cur_off, int64_t{next_align} * 8) != new_off) ||
          (new_off != next_off && next_off - new_off <= new_off - cur_off)) {
        out_ += '\n';
        out_ += pfx(lvl);
        out_ += pad_type;
        out_ += ": ";
        num(in_bitfield ? new_off - cur_off : 0);
        out_ += ';';
      }
      cur_off = new_off;
    }
    while (cur_off != next_off) {
      int64_t bits = std::min<int64_t>(next_off - cur_off, pad_bits);
      if (bits == pad_bits) {
        out_ += '\n';
        out_ += pfx(lvl);
        out_ += pad_type;
        out_ += ": ";
        num(pad_bits);
        out_ += ';';
        cur_off += bits;
        continue;
      }
      // The last piece: the smallest type that holds it.
      for (int i = 3; i >= 0; --i) {
        if (pads[i].bits < bits) continue;
        out_ += '\n';
        out_ += pfx(lvl);
        out_ += pads[i].name;
        out_ += ": ";
        num(bits);
        out_ += ';';
        cur_off += bits;
        break;
      }
    }
  }

  void emit_struct_def(TypeId id, int lvl) {
    bool is_struct = kind(id) == Kind::Struct;
    int align = align_of(id);
    bool packed = is_struct && is_packed(id);
    out_ += is_struct ? "struct" : "union";
    if (rec(id)[0]) out_ += ' ';
    out_ += type_name(id);
    out_ += " {";
    int64_t off = 0;
    bool prev_bitfield = false;
    uint32_t n = vlen(id);
    for (uint32_t i = 0; i < n; ++i) {
      Member m = btf_.type(id).member(i);
      int64_t m_sz = m.bitfield_size();
      int64_t m_off = m.bit_offset();
      int m_align = packed ? 1 : align_of(m.type);
      bool in_bitfield = prev_bitfield && m_sz != 0;
      emit_bit_padding(off, m_off, m_align, in_bitfield, lvl + 1);
      out_ += '\n';
      out_ += pfx(lvl + 1);
      emit_type_decl(m.type, std::string(name_of(m.name_off)), lvl + 1);
      if (m_sz) {
        out_ += ": ";
        num(m_sz);
        off = m_off + m_sz;
        prev_bitfield = true;
      } else {
        m_sz = std::max<int64_t>(0, resolve_size(m.type));
        off = m_off + m_sz * 8;
        prev_bitfield = false;
      }
      out_ += ';';
    }
    if (is_struct) emit_bit_padding(off, int64_t{rec(id)[2]} * 8, align, false, lvl + 1);
    if (n || rec(id)[2]) {
      out_ += '\n';
      out_ += pfx(lvl);
      out_ += '}';
    } else {
      out_ += '}';
    }
    if (packed) out_ += " __attribute__((packed))";
  }

  void emit_enum_def(TypeId id, int lvl) {
    out_ += "enum";
    if (rec(id)[0]) out_ += ' ';
    out_ += type_name(id);
    uint32_t n = vlen(id);
    if (!n) return;
    out_ += " {";
    bool is_signed = kflag(id);
    bool is64 = kind(id) == Kind::Enum64;
    for (uint32_t i = 0; i < n; ++i) {
      TypeView t = btf_.type(id);
      uint32_t name_off = is64 ? t.enum64_value(i).name_off : t.enum_value(i).name_off;
      std::string name(name_of(name_off));
      size_t dups = ++ident_names_[name];
      out_ += '\n';
      out_ += pfx(lvl + 1);
      out_ += name;
      if (dups > 1) {
        out_ += "___";
        out_ += std::to_string(dups);
      }
      out_ += " = ";
      if (is64) {
        uint64_t v = t.enum64_value(i).val;
        if (is_signed) {
          num(static_cast<int64_t>(v));
          out_ += "LL,";
        } else {
          out_ += std::to_string(v);
          out_ += "ULL,";
        }
      } else {
        uint32_t v = t.enum_value(i).val;
        if (is_signed)
          num(static_cast<int32_t>(v));
        else
          num(v);
        out_ += ',';
      }
    }
    out_ += '\n';
    out_ += pfx(lvl);
    out_ += '}';
  }

  void emit_typedef_def(TypeId id, int lvl) {
    std::string name(ident_name(id));
    // Old GCCs type __gnuc_va_list as void; make it the builtin.
    if (rec(id)[2] == 0 && name == "__gnuc_va_list") {
      out_ += "typedef __builtin_va_list __gnuc_va_list";
      return;
    }
    out_ += "typedef ";
    emit_type_decl(rec(id)[2], name, lvl);
  }

  static bool is_mod(Kind k) {
    return k == Kind::Volatile || k == Kind::Const || k == Kind::Restrict || k == Kind::TypeTag;
  }

  // Pushes the chain of types of a declaration up to its base type, then
  // prints it from the base type outwards.
  void emit_type_decl(TypeId id, const std::string& fname, int lvl) {
    DepthGuard guard(*this);
    size_t start = stack_.size();
    for (;;) {
      stack_.push_back(id);
      if (id == 0) break;
      const uint32_t* r = rec(id);
      Kind k = info_kind(r[1]);
      if (k == Kind::Ptr || k == Kind::Volatile || k == Kind::Const || k == Kind::Restrict ||
          k == Kind::FuncProto || k == Kind::TypeTag) {
        id = r[2];
      } else if (k == Kind::Array) {
        id = r[3];
      } else {
        break;
      }
    }
    size_t cnt = stack_.size() - start;
    emit_type_chain(start, cnt, fname, lvl);
    stack_.resize(start);
  }

  // The stack frame is stack_[start, start + cnt); cnt shrinks as types
  // are printed.
  void emit_mods(size_t start, size_t& cnt) {
    while (cnt) {
      switch (kind_or_void(stack_[start + cnt - 1])) {
        case Kind::Volatile: out_ += "volatile "; break;
        case Kind::Const: out_ += "const "; break;
        case Kind::Restrict: out_ += "restrict "; break;
        default: return;
      }
      --cnt;
    }
  }
  void drop_mods(size_t start, size_t& cnt) {
    while (cnt && is_mod(kind_or_void(stack_[start + cnt - 1]))) --cnt;
  }
  Kind kind_or_void(TypeId id) const { return id == 0 ? Kind::Unknown : kind(id); }

  void emit_name(const std::string& fname, bool last_was_ptr) {
    if (!fname.empty() && !last_was_ptr) out_ += ' ';
    out_ += fname;
  }

  void emit_type_chain(size_t start, size_t& cnt, const std::string& fname, int lvl) {
    bool last_was_ptr = true;
    while (cnt) {
      TypeId id = stack_[start + --cnt];
      if (id == 0) {
        emit_mods(start, cnt);
        out_ += "void";
        last_was_ptr = false;
        continue;
      }
      const uint32_t* r = rec(id);
      Kind k = info_kind(r[1]);
      switch (k) {
        case Kind::Int: case Kind::Float:
          emit_mods(start, cnt);
          out_ += name_of(rec(id)[0]);
          break;
        case Kind::Struct: case Kind::Union:
          emit_mods(start, cnt);
          if (rec(id)[0] == 0)
            emit_struct_def(id, lvl);  // anonymous: spelled out inline
          else
            emit_struct_fwd(id);
          break;
        case Kind::Enum: case Kind::Enum64:
          emit_mods(start, cnt);
          if (rec(id)[0] == 0) {
            emit_enum_def(id, lvl);
          } else {
            out_ += "enum ";
            out_ += type_name(id);
          }
          break;
        case Kind::Fwd:
          emit_mods(start, cnt);
          emit_fwd_def(id);
          break;
        case Kind::Typedef:
          emit_mods(start, cnt);
          out_ += ident_name(id);
          break;
        case Kind::Ptr:
          out_ += last_was_ptr ? "*" : " *";
          break;
        case Kind::Volatile:
          out_ += " volatile";
          break;
        case Kind::Const:
          out_ += " const";
          break;
        case Kind::Restrict:
          out_ += " restrict";
          break;
        case Kind::TypeTag:
          emit_mods(start, cnt);
          out_ += " __attribute__((btf_type_tag(\"";
          out_ += name_of(rec(id)[0]);
          out_ += "\")))";
          break;
        case Kind::Array: {
          uint32_t nelems = rec(id)[5];
          // GCC puts the element's const/volatile on the array too: dropped.
          drop_mods(start, cnt);
          if (cnt == 0) {
            emit_name(fname, last_was_ptr);
            out_ += '[' + std::to_string(nelems) + ']';
            return;
          }
          bool multidim = kind_or_void(stack_[start + cnt - 1]) == Kind::Array;
          if (!fname.empty() && !last_was_ptr) out_ += ' ';
          if (!multidim) out_ += '(';
          emit_type_chain(start, cnt, fname, lvl);
          if (!multidim) out_ += ')';
          out_ += '[' + std::to_string(nelems) + ']';
          return;
        }
        case Kind::FuncProto: {
          // GCC's volatile on noreturn function pointers: dropped too.
          drop_mods(start, cnt);
          if (cnt) {
            out_ += " (";
            emit_type_chain(start, cnt, fname, lvl);
            out_ += ')';
          } else {
            emit_name(fname, last_was_ptr);
          }
          out_ += '(';
          uint32_t n = vlen(id);
          if (n == 0 || (n == 1 && rec(id)[4] == 0)) {
            out_ += "void)";
            return;
          }
          for (uint32_t i = 0; i < n; ++i) {
            if (i > 0) out_ += ", ";
            Param p = btf_.type(id).param(i);
            if (i == n - 1 && p.type == 0) {
              out_ += "...";
              break;
            }
            emit_type_decl(p.type, std::string(name_of(p.name_off)), lvl);
          }
          out_ += ')';
          return;
        }
        default:
          return;
      }
      last_was_ptr = k == Kind::Ptr;
    }
    emit_name(fname, last_was_ptr);
  }

  const Btf& btf_;
  std::string& out_;
  std::vector<State> state_;
  int ptr_size_ = 8;
  static constexpr int UNKNOWN_ALIGN = -1000;
  std::vector<int> align_;
  bool align_truncated_ = false;
  std::vector<TypeId> queue_;
  std::vector<TypeId> stack_;
  std::unordered_map<std::string, size_t> type_names_, ident_names_;
  std::unordered_map<TypeId, std::string> renamed_;
};

}  // namespace

void dump_c(const Btf& btf, std::string& out) { CDumper(btf, out).dump_all(); }

}  // namespace btfc::btf
