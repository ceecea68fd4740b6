// Raw BTF parsing and validation (see reader.h).
//
// Parsing copies the type section into the table's word buffer (swapping
// bytes for the other byte order) while walking the records once to build
// the id index; then validate() checks every record. The rules follow the
// kernel's btf.c (btf_parse_hdr, btf_check_sec_info, btf_parse_str_sec, the
// per-kind check_meta and resolve steps), reduced to what can be judged
// without knowing the target's pointer size; the messages are ours. The
// commonest records of a table read as it is (a module's base) pass
// through fast paths first, which pass only what the full checks pass and
// hand them everything else; the sanitizers' build checks that they do.
#include "btf/reader.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cctype>
#include <cstring>
#include <memory>
#include <vector>

#include "base/mapped_file.h"
#include "base/parallel.h"
#include "base/prefault.h"
#include "btf/distill.h"
#include "btf/kernel_order.h"
#include "elf/elf_file.h"

namespace btfc::btf {

namespace {

// KSYM_NAME_LEN: the kernel's limit on the length of a name.
constexpr size_t MAX_NAME_LEN = 512;

// A C identifier, plus '.' as the kernel allows (e.g. "foo.cold"). By a
// table of the bytes that may start one (1) and continue one (2): a base's
// 100k types name a few hundred thousand of them.
constexpr std::array<uint8_t, 256> kIdentifierBytes = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    bool alpha = (c | 0x20) >= 'a' && (c | 0x20) <= 'z';  // ASCII, as the kernel's C locale
    if (alpha || c == '_' || c == '.') t[c] = 3;
    else if (c >= '0' && c <= '9') t[c] = 2;
  }
  return t;
}();
bool valid_identifier(std::string_view s) {
  if (s.empty() || s.size() > MAX_NAME_LEN) return false;
  if (!(kIdentifierBytes[static_cast<unsigned char>(s[0])] & 1)) return false;
  uint8_t all = 2;
  for (size_t i = 1; i < s.size(); ++i) all &= kIdentifierBytes[static_cast<unsigned char>(s[i])];
  return all != 0;
}

// DATASEC names: any printable characters (".data..percpu", ".rodata.str1.1").
bool valid_section_name(std::string_view s) {
  if (s.empty() || s.size() > MAX_NAME_LEN) return false;
  for (char c : s)
    if (c < 0x20 || c > 0x7e) return false;  // isprint in the C locale
  return true;
}

// How strict a Validator is, each level adding to the one before: what
// every BTF file read must pass (read_raw: what bpftool shows, whatever
// its names), names as BTF's producers must write them (validate: what the
// encoder checks), and the rules only the kernel applies
// (validate_for_kernel).
enum class Rules { Read, Names, Kernel };

class Validator {
 public:
  Validator(const Btf& btf, std::string_view section, uint64_t types_offset, Rules rules)
      : btf_(btf), section_(section), types_offset_(types_offset), check_names_(rules >= Rules::Names),
        kernel_only_(rules == Rules::Kernel),
        identifiers_(check_names_ ? (uint64_t{btf.end_str_off()} + 63) / 64 : 0),
        kinds_(btf.type_count()), size_or_type_(btf.type_count()) {}

  // The per-record checks run in parallel chunks of ids; parallel_for
  // reports the lowest chunk's error, so the message is the first record's
  // that fails, as in one pass (a module's base, vmlinux, has 100k records).
  void run() const {
    for_chunks([&](TypeId id) {
      if (!record_passes(id)) check_record(id);
      else cross_check([&] { check_record(id); });
    });
    check_cycles();
    check_pointer_loops();
    if (kernel_only_) {
      check_type_tags_first();
      check_resolve_depth();
    }
    for_chunks([&](TypeId id) {
      if (!references_pass(id)) check_references(id);
      else cross_check([&] { check_references(id); });
    });
  }

 private:
  static constexpr uint32_t kChunk = 16384;

  template <typename Check>
  void for_chunks(const Check& check) const {
    parallel_for_ranges(btf_.start_id(), btf_.end_id(), kChunk, [&](size_t lo, size_t hi) {
      for (TypeId id = static_cast<TypeId>(lo); id < hi; ++id) check(id);
    });
  }

  uint64_t offset_of(TypeId id, uint32_t word) const {
    return types_offset_ + 4 * (uint64_t{btf_.offsets()[id - btf_.start_id()]} + word);
  }

  // The sanitizers' build (the tests, the fuzz targets) also runs the full
  // check on whatever a fast path passed, and stops dead if it fails.
  template <typename Check>
  static void cross_check([[maybe_unused]] const Check& full) {
#ifdef BTFC_CROSS_CHECK
    try {
      full();
    } catch (...) {
      __builtin_trap();  // a fast path passed what the full check refuses
    }
#endif
  }

  // check_record and check_references as they judge the commonest kinds
  // when every check passes, in a few instructions: a module's base
  // (vmlinux, 100k records) is checked again by every process of a kernel
  // build, most on one thread. True: the record passes (check_record's
  // kinds_ and size_or_type_ are filled); false: the full check decides,
  // and words the error. Each must pass only what the full check passes.
  // With Rules::Names or Rules::Kernel, everything goes the full way.
  bool record_passes(TypeId id) const {
    if (!quick_) return false;
    const uint32_t* rec = btf_.record(id);
    const uint32_t info = rec[1];
    if (info & 0x60ff0000) return false;
    const Kind kind = info_kind(info);
    const uint32_t vlen = info_vlen(info);
    const bool kflag = info_kind_flag(info);
    if (rec[0] >= end_str_ || kflag) return false;
    switch (kind) {
      case Kind::Ptr: case Kind::Volatile: case Kind::Const: case Kind::Restrict:
        if (vlen || rec[0] || rec[2] >= end_id_) return false;
        break;
      case Kind::Typedef:
        if (vlen || !named_here(rec[0]) || rec[2] >= end_id_) return false;
        break;
      case Kind::Func:
        if (vlen > static_cast<uint32_t>(FuncLinkage::Extern) || !named_here(rec[0]) || rec[2] >= end_id_) return false;
        break;
      case Kind::FuncProto:
        if (rec[0] || rec[2] >= end_id_) return false;
        for (uint32_t i = 0; i < vlen; ++i) {
          const uint32_t name = rec[3 + 2 * i], type = rec[4 + 2 * i];
          if (name >= end_str_ || type >= end_id_) return false;
          if (type == 0 && (i + 1 != vlen || name != 0)) return false;  // varargs: last, and no name at all
        }
        break;
      case Kind::Struct: case Kind::Union: {
        const uint64_t size_bits = uint64_t{rec[2]} * 8;
        for (uint32_t i = 0; i < vlen; ++i) {
          const uint32_t* m = rec + 3 + 3 * i;
          if (m[0] >= end_str_ || m[1] == 0 || m[1] >= end_id_) return false;
          if (kind == Kind::Union ? m[2] != 0 : m[2] > size_bits) return false;
        }
        break;
      }
      default:
        return false;
    }
    kinds_[id - btf_.start_id()] = static_cast<uint8_t>(kind);
    size_or_type_[id - btf_.start_id()] = rec[2];
    return true;
  }
  bool references_pass(TypeId id) const {
    if (!quick_) return false;
    const uint32_t* rec = btf_.record(id);
    switch (info_kind(rec[1])) {
      case Kind::Ptr: case Kind::Typedef: case Kind::Volatile: case Kind::Const: case Kind::Restrict:
        return !is_not_a_type(kind_of(rec[2]));
      case Kind::Func:
        return kind_of(rec[2]) == Kind::FuncProto;
      case Kind::FuncProto: {
        if (is_not_a_type(kind_of(rec[2]))) return false;
        for (uint32_t i = 0, vlen = info_vlen(rec[1]); i < vlen; ++i)
          if (is_not_a_type(kind_of(rec[4 + 2 * i]))) return false;
        return true;
      }
      default:
        return false;
    }
  }
  // A name that is not "", its offset checked in range; false also for a
  // base's string (split BTF), which the full check reads.
  bool named_here(uint32_t off) const {
    return off >= start_str_ && off != 0 && own_strings_[off - start_str_] != '\0';
  }

  // "type [42] STRUCT 'foo'"; the name only if its offset is valid.
  std::string describe(TypeId id) const {
    const uint32_t* rec = btf_.record(id);
    std::string s = "type [" + std::to_string(id) + "] " + std::string(kind_name(info_kind(rec[1])));
    return s + " '" + name_text(rec[0]) + "'";
  }
  // A name as a message shows it (shown_name).
  std::string name_text(uint32_t off) const {
    if (off == 0) return "(anon)";
    if (!btf_.valid_str_off(off)) return "(invalid)";
    return shown_name(btf_.str(off));
  }

  [[noreturn]] void fail(TypeId id, uint32_t word, const std::string& what) const {
    throw Error(std::string(section_), offset_of(id, word), describe(id) + ": " + what);
  }
  // The name at `off` (a valid offset) is not an identifier: InvalidName,
  // or an ordinary failure for no name at all (off 0).
  [[noreturn]] void fail_name(TypeId id, uint32_t word, uint32_t off, const std::string& what) const {
    if (off == 0) fail(id, word, what);
    throw InvalidName(Error(std::string(section_), offset_of(id, word), describe(id) + ": " + what),
                      std::string(btf_.str(off)));
  }

  // Message prefixes are built only when a check fails: `what` is a string
  // or a callable returning one (checks run for every member of vmlinux).
  static std::string text(const char* s) { return s; }
  static std::string text(const std::string& s) { return s; }
  template <typename F>
  static std::string text(const F& f) {
    return f();
  }

  template <typename What>
  void check_name_off(TypeId id, uint32_t word, uint32_t off, const What& what) const {
    if (!btf_.valid_str_off(off))
      fail(id, word, text(what) + "name offset " + std::to_string(off) + " out of range (strings end at " +
                         std::to_string(btf_.end_str_off()) + ")");
  }

  template <typename What>
  void check_id(TypeId id, uint32_t word, uint32_t ref, const What& what) const {
    if (ref >= btf_.end_id())
      fail(id, word, text(what) + "type id " + std::to_string(ref) + " out of range (last id is " +
                         std::to_string(btf_.end_id() - 1) + ")");
  }

  void check_record(TypeId id) const {
    const uint32_t* rec = btf_.record(id);
    Kind kind = info_kind(rec[1]);
    uint32_t vlen = info_vlen(rec[1]);
    bool kflag = info_kind_flag(rec[1]);
    if (extra_words(kind, vlen) < 0 || kind == Kind::Unknown)
      fail(id, 1, "unknown kind " + std::to_string(static_cast<unsigned>(kind)));
    kinds_[id - btf_.start_id()] = static_cast<uint8_t>(kind);
    size_or_type_[id - btf_.start_id()] = rec[2];
    if (rec[1] & 0x60ff0000) fail(id, 1, "reserved info bits set (" + hex(rec[1]) + ")");
    check_name_off(id, 0, rec[0], "");
    // Read only by the kinds whose name is not an identifier.
    auto name = [&] { return rec[0] ? btf_.str(rec[0]) : std::string_view(); };

    switch (kind) {
      case Kind::Struct: case Kind::Union: case Kind::Enum: case Kind::Fwd: case Kind::Enum64:
      case Kind::DeclTag: case Kind::TypeTag: case Kind::FuncProto: case Kind::Datasec: case Kind::Func:
        break;
      default:
        if (vlen) fail(id, 1, "vlen " + std::to_string(vlen) + " must be 0");
    }
    switch (kind) {
      case Kind::Struct: case Kind::Union: case Kind::Enum: case Kind::Fwd: case Kind::Enum64:
      case Kind::DeclTag: case Kind::TypeTag:
        break;
      default:
        if (kflag) fail(id, 1, "kind_flag must be 0");
    }

    auto need_no_name = [&] {
      if (rec[0]) fail(id, 0, "must have no name");
    };
    auto need_identifier = [&] {
      if (!named(rec[0])) fail(id, 0, "needs a name");
      if (!identifier_ok(rec[0])) fail_name(id, 0, rec[0], "invalid name");
    };
    auto optional_identifier = [&] {
      if (rec[0] && !identifier_ok(rec[0])) fail_name(id, 0, rec[0], "invalid name");
    };

    switch (kind) {
      case Kind::Int: {
        uint32_t size = rec[2], data = rec[3];
        if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16)
          fail(id, 2, "INT size " + std::to_string(size) + " is not 1, 2, 4, 8 or 16");
        if (data & 0xf0000000) fail(id, 3, "reserved INT bits set (" + hex(data) + ")");
        uint32_t enc = data >> 24, off = (data >> 16) & 0xff, bits = data & 0xff;
        if (enc != 0 && enc != INT_SIGNED && enc != INT_CHAR && enc != INT_BOOL)
          fail(id, 3, "unsupported INT encoding " + hex(enc));
        if (off + bits > 128) fail(id, 3, "INT bits_offset + nr_bits exceed 128");
        if ((off + bits + 7) / 8 > size) fail(id, 3, "INT bits_offset + nr_bits exceed its size");
        // No name rule: base type names have spaces ("long unsigned int").
        break;
      }
      case Kind::Ptr: case Kind::Volatile: case Kind::Const: case Kind::Restrict:
        need_no_name();
        check_id(id, 2, rec[2], "");
        break;
      case Kind::Typedef:
        need_identifier();
        check_id(id, 2, rec[2], "");
        break;
      case Kind::TypeTag:
        if (name().empty()) fail(id, 0, "needs a name");
        check_id(id, 2, rec[2], "");
        break;
      case Kind::Array:
        need_no_name();
        if (rec[2]) fail(id, 2, "size " + std::to_string(rec[2]) + " must be 0");
        check_id(id, 3, rec[3], "element ");
        check_id(id, 4, rec[4], "index ");
        break;
      case Kind::Struct: case Kind::Union: {
        optional_identifier();
        uint64_t size_bits = uint64_t{rec[2]} * 8;
        for (uint32_t i = 0; i < vlen; ++i) {
          uint32_t w = 3 + 3 * i;
          check_name_off(id, w, rec[w], [&] { return "member " + std::to_string(i) + " "; });
          auto what = [&] { return "member '" + name_text(rec[w]) + "' "; };
          if (rec[w] && !identifier_ok(rec[w])) fail_name(id, w, rec[w], what() + "has an invalid name");
          check_id(id, w + 1, rec[w + 1], what);
          if (rec[w + 1] == 0) fail(id, w + 1, what() + "has type void");
          uint32_t off = kflag ? rec[w + 2] & 0xffffff : rec[w + 2];
          uint32_t bits = kflag ? rec[w + 2] >> 24 : 0;
          if (kind == Kind::Union && off) fail(id, w + 2, what() + "of a union at non-zero bit offset " + std::to_string(off));
          // ">" rather than ">=": a last member may be a zero-length array.
          if (uint64_t{off} + bits > size_bits)
            fail(id, w + 2, what() + "at bit " + std::to_string(off) + " lies past the end (size " +
                                std::to_string(rec[2]) + ")");
        }
        break;
      }
      case Kind::Enum: case Kind::Enum64: {
        optional_identifier();
        uint32_t size = rec[2];
        if (size != 1 && size != 2 && size != 4 && size != 8)
          fail(id, 2, std::string(kind_name(kind)) + " size " + std::to_string(size) + " is not 1, 2, 4 or 8");
        uint32_t stride = kind == Kind::Enum ? 2 : 3;
        for (uint32_t i = 0; i < vlen; ++i) {
          uint32_t w = 3 + stride * i;
          check_name_off(id, w, rec[w], [&] { return "value " + std::to_string(i) + " "; });
          if (!named(rec[w])) fail(id, w, "value " + std::to_string(i) + " needs a name");
          if (!identifier_ok(rec[w]))
            fail_name(id, w, rec[w], "value " + std::to_string(i) + " has an invalid name '" + name_text(rec[w]) + "'");
        }
        break;
      }
      case Kind::Fwd:
        need_identifier();
        if (rec[2]) fail(id, 2, "type " + std::to_string(rec[2]) + " must be 0");
        break;
      case Kind::Func:
        need_identifier();
        if (vlen > static_cast<uint32_t>(FuncLinkage::Extern)) fail(id, 1, "unknown linkage " + std::to_string(vlen));
        if (kernel_only_ && vlen == static_cast<uint32_t>(FuncLinkage::Extern))
          fail(id, 1, "extern linkage (the kernel loads static and global only)");
        check_id(id, 2, rec[2], "prototype ");
        break;
      case Kind::FuncProto: {
        need_no_name();
        check_id(id, 2, rec[2], "return ");
        for (uint32_t i = 0; i < vlen; ++i) {
          uint32_t w = 3 + 2 * i;
          check_name_off(id, w, rec[w], [&] { return "param " + std::to_string(i) + " "; });
          auto what = [&] { return "param " + std::to_string(i) + " '" + name_text(rec[w]) + "' "; };
          if (rec[w] && !identifier_ok(rec[w])) fail_name(id, w, rec[w], what() + "has an invalid name");
          check_id(id, w + 1, rec[w + 1], what);
          // Only a last, unnamed param may be void: the "..." of varargs.
          if (rec[w + 1] == 0 && (i + 1 != vlen || named(rec[w]))) fail(id, w + 1, what() + "has type void");
        }
        break;
      }
      case Kind::Var:
        need_identifier();
        check_id(id, 2, rec[2], "");
        if (rec[3] > static_cast<uint32_t>(VarLinkage::GlobalExtern)) fail(id, 3, "unknown linkage " + std::to_string(rec[3]));
        if (kernel_only_ && rec[3] == static_cast<uint32_t>(VarLinkage::GlobalExtern))
          fail(id, 3, "extern linkage (the kernel loads static and global only)");
        break;
      case Kind::Datasec: {
        if (name().empty()) fail(id, 0, "needs a name");
        if (check_names_ && !valid_section_name(name())) fail(id, 0, "invalid section name");
        // Sorted by offset and inside the section. Overlap is let through
        // (the kernel refuses it): pahole 1.31 --btf_features=global_var
        // writes the same variable twice at one offset, and dump must show
        // that output.
        if (kernel_only_ && rec[2] == 0) fail(id, 2, "size 0 (not yet laid out)");
        uint32_t prev = 0;
        uint64_t prev_end = 0;
        for (uint32_t i = 0; i < vlen; ++i) {
          uint32_t w = 3 + 3 * i;
          auto what = [&] { return "variable " + std::to_string(i) + " "; };
          check_id(id, w, rec[w], what);
          if (rec[w] == 0) fail(id, w, what() + "has type void");
          uint32_t off = rec[w + 1], size = rec[w + 2];
          if (off < prev)
            fail(id, w + 1, what() + "at offset " + std::to_string(off) + " is not sorted (previous at " +
                                std::to_string(prev) + ")");
          if (size == 0) fail(id, w + 2, what() + "has size 0");
          if (kernel_only_ && off < prev_end)
            fail(id, w + 1, what() + "at offset " + std::to_string(off) + " overlaps the previous one (ending at " +
                                std::to_string(prev_end) + ")");
          prev = off;
          prev_end = uint64_t{off} + size;
          uint64_t end = uint64_t{off} + size;
          // Size 0 is a BPF object file's section before libbpf fills in
          // sizes and offsets at load time (clang writes it so).
          if (end > rec[2] && rec[2] != 0)
            fail(id, w + 1, what() + "at offset " + std::to_string(off) + " size " + std::to_string(size) +
                                " runs past the section's size " + std::to_string(rec[2]));
        }
        break;
      }
      case Kind::Float: {
        uint32_t size = rec[2];
        if (size != 2 && size != 4 && size != 8 && size != 12 && size != 16)
          fail(id, 2, "FLOAT size " + std::to_string(size) + " is not 2, 4, 8, 12 or 16");
        break;
      }
      case Kind::DeclTag:
        if (name().empty()) fail(id, 0, "needs a name");
        check_id(id, 2, rec[2], "");
        if (static_cast<int32_t>(rec[3]) < -1)
          fail(id, 3, "component_idx " + std::to_string(static_cast<int32_t>(rec[3])) + " is below -1");
        break;
      default:
        break;
    }
  }

  // Is the string at `off` (a valid offset) an identifier? Each offset
  // is read once: a base's records share their names (vmlinux's members,
  // parameters and values name a few hundred thousand times what are far
  // fewer strings), and reading a name's bytes is a cache miss. A bit set
  // per offset found valid; the chunks run in parallel, hence atomics
  // (relaxed: a bit not seen yet only means the name is read again).
  bool identifier_ok(uint32_t off) const { return !check_names_ || identifier_at(off); }
  // Has a name: an empty string at a non-zero offset is none (the kernel's
  // identifier check fails it, and dedup, as libbpf's, maps it to offset 0).
  bool named(uint32_t off) const { return off && !btf_.str(off).empty(); }
  bool identifier_at(uint32_t off) const {
    std::atomic_ref<uint64_t> word(identifiers_[off / 64]);
    const uint64_t bit = uint64_t{1} << (off % 64);
    if (word.load(std::memory_order_relaxed) & bit) return true;
    if (!valid_identifier(btf_.str(off))) return false;
    word.fetch_or(bit, std::memory_order_relaxed);
    return true;
  }

  // Kinds that have no place where a type is expected.
  static bool is_not_a_type(Kind k) {
    return k == Kind::Func || k == Kind::Var || k == Kind::Datasec || k == Kind::DeclTag;
  }
  // Kinds with no size, so nothing holds them by value (past modifiers).
  static bool has_no_size(Kind k) { return k == Kind::FuncProto || k == Kind::Fwd; }

  // The kind of a type id checked in range (own ids from kinds_, which
  // check_record has filled by the time the later checks run).
  Kind kind_of(TypeId id) const {
    if (id >= btf_.start_id()) return static_cast<Kind>(kinds_[id - btf_.start_id()]);
    return id == 0 ? Kind::Unknown : btf_.kind(id);
  }
  // Word 2 of a record (its size or type) the same way.
  uint32_t size_or_type(TypeId id) const {
    if (id >= btf_.start_id()) return size_or_type_[id - btf_.start_id()];
    return btf_.record(id)[2];
  }

  // Follows typedefs, modifiers and type tags (acyclic by now). Stops after
  // a bounded number of steps on a pathological chain: the checks that use
  // it then pass rather than take quadratic time.
  TypeId skip_modifiers(TypeId id) const {
    for (int steps = 0; id != 0 && steps < 1024 && is_modifier(kind_of(id)); ++steps) id = size_or_type(id);
    return id;
  }

  // The size in bytes of a type, or nullopt if unknown here (pointers: the
  // target's pointer size is not recorded in BTF).
  std::optional<uint64_t> size_of(TypeId id, int depth = 0) const { return size_of_skipped(skip_modifiers(id), depth); }
  // The same for an id skip_modifiers() has been through already.
  std::optional<uint64_t> size_of_skipped(TypeId id, int depth = 0) const {
    if (id == 0 || depth > 64) return std::nullopt;
    switch (kind_of(id)) {
      case Kind::Int: case Kind::Struct: case Kind::Union: case Kind::Enum: case Kind::Enum64: case Kind::Float:
        return size_or_type(id);
      case Kind::Array: {
        const uint32_t* rec = btf_.record(id);
        auto elem = size_of(rec[3], depth + 1);
        if (!elem) return std::nullopt;
        return *elem * rec[5];
      }
      default:
        return std::nullopt;
    }
  }

  // Every type must be reachable from itself only through a pointer: the
  // by-value edges (typedef, modifiers, tags, array elements, struct
  // members, var types) form a DAG. Iterative DFS: no recursion on input.
  void check_cycles() const {
    TypeId start = btf_.start_id();
    uint32_t n = btf_.type_count();
    std::vector<uint8_t> state(n, 0);  // 0 new, 1 on the stack, 2 done
    std::vector<Frame> stack;
    for (TypeId root = start; root < btf_.end_id(); ++root) {
      if (state[root - start]) continue;
      const Frame first = frame(root);
      if (first.left == 0) {
        state[root - start] = 2;  // no edges: done as soon as met
        continue;
      }
      stack.push_back(first);
      state[root - start] = 1;
      while (!stack.empty()) {
        Frame& f = stack.back();
        if (f.left == 0) {
          state[f.id - start] = 2;
          stack.pop_back();
          continue;
        }
        TypeId c = *f.edge;
        f.edge += f.stride;
        --f.left;
        if (c < start) continue;  // the base is already checked and cannot point back
        if (state[c - start] == 1) {
          TypeId from = f.id;
          fail(c, 2, "reference cycle through " + describe(from).substr(5));
        }
        if (state[c - start] == 0) {
          Frame child = frame(c);
          if (child.left == 0) {
            state[c - start] = 2;  // no edges: done as soon as met
            continue;
          }
          state[c - start] = 1;
          stack.push_back(child);
        }
      }
    }
  }

  // The kernel follows a pointer through pointers and modifiers (typedef,
  // const, volatile, restrict, type tag) to what it points at, and refuses
  // a chain of those that comes back on itself ("Loop detected"): e.g. two
  // PTRs to each other, which no C type is. Each such type has one edge,
  // so walking the chains with a colour per type is linear.
  void check_pointer_loops() const {
    TypeId start = btf_.start_id();
    auto in_chain = [&](TypeId id) {
      if (id < start || id >= btf_.end_id()) return false;  // the base is checked and cannot point back
      switch (kind_of(id)) {
        case Kind::Ptr: case Kind::Typedef: case Kind::Volatile: case Kind::Const: case Kind::Restrict:
        case Kind::TypeTag:
          return true;
        default:
          return false;
      }
    };
    std::vector<uint8_t> state(btf_.type_count(), 0);  // 0 new, 1 on this walk, 2 done
    std::vector<TypeId> walk;
    for (TypeId root = start; root < btf_.end_id(); ++root) {
      if (state[root - start] || !in_chain(root)) continue;
      for (TypeId id = root; in_chain(id) && state[id - start] != 2; id = size_or_type(id)) {
        if (state[id - start] == 1) fail(id, 2, "loop of pointers and modifiers");
        state[id - start] = 1;
        walk.push_back(id);
      }
      for (TypeId id : walk) state[id - start] = 2;
      walk.clear();
    }
  }

  // The kernel wants the type tags of a chain of modifiers (typedef,
  // const, volatile, restrict, type tag) before the others, and refuses a
  // type tag below any other modifier ("Type tags don't precede
  // modifiers"): PTR -> TYPE_TAG -> CONST -> INT loads, PTR -> CONST ->
  // TYPE_TAG -> INT does not. libbpf and bpftool take either. Chains are
  // loop-free by now (check_cycles), and each type is walked once: a
  // chain met again stops at what its first walk found. As in the kernel,
  // a chain is followed down to the base, not into it.
  void check_type_tags_first() const {
    const TypeId start = btf_.start_id();
    auto modifier = [&](TypeId id) { return id >= start && is_modifier(kind_of(id)); };
    std::vector<int8_t> tag_at_or_below(btf_.type_count(), -1);  // -1 not known yet
    std::vector<TypeId> walk;
    for (TypeId id = start; id < btf_.end_id(); ++id) {
      if (!modifier(id) || kind_of(id) == Kind::TypeTag) continue;
      bool tag = false;
      for (TypeId t = size_or_type(id); modifier(t); t = size_or_type(t)) {
        if (tag_at_or_below[t - start] >= 0) {
          tag = tag_at_or_below[t - start];
          break;
        }
        if (kind_of(t) == Kind::TypeTag) {
          tag = true;
          break;
        }
        walk.push_back(t);
      }
      for (TypeId t : walk) tag_at_or_below[t - start] = tag;
      walk.clear();
      tag_at_or_below[id - start] = tag;
      if (tag) fail(id, 2, "type tag below a modifier (the kernel wants type tags first)");
    }
  }

  // The kernel resolves types in id order on a stack of at most 32 (see
  // btf/kernel_order.h): a chain of 33 references, each to a later id, is
  // refused ("Exceeded max resolving depth"); the encoder renumbers such
  // a table, order_for_kernel().
  void check_resolve_depth() const {
    const KernelResolution r = kernel_resolution(btf_, /*with_order=*/false);
    if (r.max_depth > KERNEL_MAX_RESOLVE_DEPTH)
      fail(r.deepest, 0,
           "the kernel's resolution of it goes " + std::to_string(r.max_depth) + " types deep (it takes at most " +
               std::to_string(KERNEL_MAX_RESOLVE_DEPTH) + ")");
  }

  // Where a type's by-value references are, for the cycle walk: `left`
  // words from `edge` on, `stride` words apart, read once rather than once
  // per edge. The kind comes from kinds_: the walk meets every type, and
  // only the kinds with such references have their record read.
  struct Frame {
    TypeId id;
    const uint32_t* edge = nullptr;  // the next edge's word
    uint32_t left = 0;               // edges not taken yet
    uint32_t stride = 1;             // words from one edge to the next
  };
  Frame frame(TypeId id) const {
    switch (kind_of(id)) {
      case Kind::Typedef: case Kind::Volatile: case Kind::Const: case Kind::Restrict: case Kind::TypeTag:
      case Kind::Var: {
        const uint32_t* rec = btf_.record(id);
        return {id, rec + 2, rec[2] ? 1u : 0u, 1};
      }
      case Kind::Array:
        return {id, btf_.record(id) + 3, 1, 1};
      case Kind::Struct: case Kind::Union: {
        const uint32_t* rec = btf_.record(id);
        return {id, rec + 4, info_vlen(rec[1]), 3};
      }
      default:
        return {id};
    }
  }

  // Checks that depend on the kind of the referenced types.
  void check_references(TypeId id) const {
    const uint32_t* rec = btf_.record(id);
    Kind kind = info_kind(rec[1]);
    uint32_t vlen = info_vlen(rec[1]);
    auto bad_target = [&](uint32_t word, TypeId ref, const std::string& what) {
      fail(id, word, what + "type [" + std::to_string(ref) + "] is a " + std::string(kind_name(kind_of(ref))));
    };
    switch (kind) {
      case Kind::Ptr: case Kind::Typedef: case Kind::Volatile: case Kind::Const: case Kind::Restrict:
      case Kind::TypeTag:
        if (is_not_a_type(kind_of(rec[2]))) bad_target(2, rec[2], "");
        break;
      case Kind::Array: {
        Kind ek = kind_of(skip_modifiers(rec[3]));
        if (rec[3] == 0 || is_not_a_type(ek) || has_no_size(ek))
          fail(id, 3, "element type [" + std::to_string(rec[3]) + "] has no size");
        if (kind_of(skip_modifiers(rec[4])) != Kind::Int)
          fail(id, 4, "index type [" + std::to_string(rec[4]) + "] is not an INT");
        break;
      }
      case Kind::Struct: case Kind::Union: {
        bool kflag = info_kind_flag(rec[1]);
        for (uint32_t i = 0; i < vlen; ++i) {
          uint32_t w = 3 + 3 * i;
          TypeId t = rec[w + 1];
          const TypeId skipped = skip_modifiers(t);
          Kind mk = kind_of(skipped);
          auto what = [&] { return "member '" + name_text(rec[w]) + "' "; };
          // By value, so it needs a size: no FWD (the kernel's "Invalid member").
          if (is_not_a_type(kind_of(t)) || is_not_a_type(mk) || has_no_size(mk))
            bad_target(w + 1, t, what());
          uint32_t off = kflag ? rec[w + 2] & 0xffffff : rec[w + 2];
          uint32_t bits = kflag ? rec[w + 2] >> 24 : 0;
          if (bits) {
            if (mk != Kind::Int && mk != Kind::Enum && mk != Kind::Enum64)
              fail(id, w + 2, what() + "is a bitfield of a " + std::string(kind_name(mk)));
            continue;
          }
          if (off % 8) {
            if (mk != Kind::Int) fail(id, w + 2, what() + "is not byte aligned");
            continue;  // an old-style bitfield: the INT's nr_bits say how wide
          }
          auto size = size_of_skipped(skipped);
          if (size && off / 8 + *size > rec[2])
            fail(id, w + 2, what() + "(" + std::to_string(*size) + " bytes at byte " + std::to_string(off / 8) +
                                ") runs past the end (size " + std::to_string(rec[2]) + ")");
        }
        break;
      }
      case Kind::Func:
        if (kind_of(rec[2]) != Kind::FuncProto) bad_target(2, rec[2], "prototype ");
        break;
      case Kind::FuncProto: {
        // The kernel also wants a size behind the return type and each
        // parameter (btf_func_proto_check: "Invalid return type", "Invalid
        // arg#N"): no prototype returning or taking a prototype or a FWD.
        auto sizeless = [&](TypeId t) { return kernel_only_ && t && has_no_size(kind_of(skip_modifiers(t))); };
        if (is_not_a_type(kind_of(rec[2]))) bad_target(2, rec[2], "return ");
        if (sizeless(rec[2])) bad_target(2, skip_modifiers(rec[2]), "return ");
        for (uint32_t i = 0; i < vlen; ++i) {
          TypeId t = rec[4 + 2 * i];
          if (t && is_not_a_type(kind_of(t))) bad_target(4 + 2 * i, t, "param " + std::to_string(i) + " ");
          if (sizeless(t)) bad_target(4 + 2 * i, skip_modifiers(t), "param " + std::to_string(i) + " ");
        }
        break;
      }
      case Kind::Var: {
        Kind vk = kind_of(skip_modifiers(rec[2]));
        if (rec[2] == 0 || is_not_a_type(kind_of(rec[2])) || is_not_a_type(vk) || has_no_size(vk))
          bad_target(2, rec[2], "");
        break;
      }
      case Kind::Datasec:
        for (uint32_t i = 0; i < vlen; ++i) {
          uint32_t w = 3 + 3 * i;
          TypeId v = rec[w];
          if (kind_of(v) != Kind::Var) bad_target(w, v, "variable " + std::to_string(i) + " ");
          auto size = size_of(btf_.record(v)[2]);
          if (size && *size > rec[w + 2])
            fail(id, w + 2, "variable " + std::to_string(i) + " '" + name_text(btf_.record(v)[0]) + "' of " +
                                std::to_string(*size) + " bytes has a smaller size " + std::to_string(rec[w + 2]));
        }
        break;
      case Kind::DeclTag: {
        TypeId t = rec[2];
        Kind tk = kind_of(t);
        int32_t idx = static_cast<int32_t>(rec[3]);
        if (tk != Kind::Struct && tk != Kind::Union && tk != Kind::Var && tk != Kind::Func && tk != Kind::Typedef)
          bad_target(2, t, "");
        if (idx == -1) break;
        uint32_t items = 0;
        if (tk == Kind::Struct || tk == Kind::Union) {
          items = info_vlen(btf_.record(t)[1]);
        } else if (tk == Kind::Func) {
          items = info_vlen(btf_.record(btf_.record(t)[2])[1]);
        } else {
          fail(id, 3, "component_idx " + std::to_string(idx) + " on a " + std::string(kind_name(tk)));
        }
        if (static_cast<uint32_t>(idx) >= items)
          fail(id, 3, "component_idx " + std::to_string(idx) + " out of range (" + std::to_string(items) + " items)");
        break;
      }
      default:
        break;
    }
  }

  const Btf& btf_;
  std::string_view section_;
  uint64_t types_offset_;
  bool check_names_;  // names are identifiers where BTF wants one (Rules::Names)
  bool kernel_only_;  // also the rules only the kernel applies (see reader.h)
  // For record_passes and references_pass (Rules::Read only).
  bool quick_ = !check_names_ && !kernel_only_;
  uint32_t end_str_ = btf_.end_str_off(), start_str_ = btf_.start_str_off();
  TypeId end_id_ = btf_.end_id();
  const char* own_strings_ = btf_.strings().bytes().data();
  mutable std::vector<uint64_t> identifiers_;  // identifier_at(): a bit per string offset
  // The kind and word 2 (size or type) of each own record, written by
  // check_record: the later checks ask them of every type a record refers
  // to, and these 5 bytes per type (500 KB for vmlinux) stay in cache
  // where the records do not.
  mutable std::vector<uint8_t> kinds_;
  mutable std::vector<uint32_t> size_or_type_;
};

// The record walk of read_raw: where each record starts, checked to fit.
void record_offsets(const Reader& r, std::span<const uint32_t> words, uint64_t type_start, TypeId start_id,
                   UninitVector<uint32_t>& offsets) {
  const size_t nwords = words.size();
  for (size_t w = 0; w < nwords;) {
    TypeId id = start_id + static_cast<uint32_t>(offsets.size());
    uint64_t at = type_start + 4 * w;
    if (id > MAX_TYPE) r.fail_at(at, "more than " + std::to_string(MAX_TYPE) + " types");
    if (nwords - w < 3)
      r.fail_at(at, "type [" + std::to_string(id) + "]: truncated record (" + std::to_string(4 * (nwords - w)) +
                        " bytes left, need 12)");
    uint32_t info = words[w + 1];
    int64_t extra = extra_words(info_kind(info), info_vlen(info));
    if (extra < 0 || info_kind(info) == Kind::Unknown)
      r.fail_at(at + 4, "type [" + std::to_string(id) + "]: unknown kind " +
                            std::to_string(static_cast<unsigned>(info_kind(info))));
    if (static_cast<uint64_t>(extra) > nwords - w - 3)
      r.fail_at(at + 4, "type [" + std::to_string(id) + "] " + std::string(kind_name(info_kind(info))) + ": vlen " +
                            std::to_string(info_vlen(info)) + " needs " + std::to_string(4 * extra) + " bytes, only " +
                            std::to_string(4 * (nwords - w - 3)) + " left");
    offsets.push_back(static_cast<uint32_t>(w));
    w += 3 + static_cast<size_t>(extra);
  }
}

}  // namespace

bool is_raw_btf(Bytes bytes) {
  return bytes.size() >= 2 && ((bytes[0] == 0x9f && bytes[1] == 0xeb) || (bytes[0] == 0xeb && bytes[1] == 0x9f));
}

void validate(const Btf& btf, std::string_view section, uint64_t types_offset) {
  Validator(btf, section, types_offset, Rules::Names).run();
}

void validate_for_kernel(const Btf& btf) { Validator(btf, ".BTF", HEADER_SIZE, Rules::Kernel).run(); }

namespace {

// read_raw into `out`, running `beside` (if any) beside the checks; with
// `saved_strings`, see read_raw_checked_before.
void read_raw_into(Btf& out, Bytes bytes, const Btf* base, std::string_view section, const BesideChecks& beside,
                   FlatReader* saved_strings, StringIndex string_index = StringIndex::Built) {
  Reader r(bytes, section, false);
  if (bytes.size() < 8) r.fail_at(0, "too short for a BTF header (" + std::to_string(bytes.size()) + " bytes)");
  bool big_endian;
  if (bytes[0] == 0x9f && bytes[1] == 0xeb) {
    big_endian = false;
  } else if (bytes[0] == 0xeb && bytes[1] == 0x9f) {
    big_endian = true;
  } else {
    r.fail_at(0, "bad magic " + hex(uint32_t{bytes[0]} | uint32_t{bytes[1]} << 8) + " (not BTF)");
  }
  r = Reader(bytes, section, big_endian);
  r.skip(2);
  uint8_t version = r.u8(), flags = r.u8();
  if (version != FORMAT_VERSION) r.fail_at(2, "unsupported BTF version " + std::to_string(version));
  if (flags) r.fail_at(3, "unsupported BTF flags " + hex(flags));
  uint32_t hdr_len = r.u32();
  if (hdr_len < HEADER_SIZE) r.fail_at(4, "header length " + std::to_string(hdr_len) + " is shorter than 24");
  if (hdr_len > bytes.size())
    r.fail_at(4, "header length " + std::to_string(hdr_len) + " runs past the end of the data (" +
                     std::to_string(bytes.size()) + " bytes)");
  uint32_t type_off = r.u32(), type_len = r.u32(), str_off = r.u32(), str_len = r.u32();
  for (size_t i = HEADER_SIZE; i < hdr_len; ++i)
    if (bytes[i]) r.fail_at(i, "unsupported header field (non-zero byte past the 24 known ones)");

  uint64_t data_len = bytes.size() - hdr_len;
  if (type_off % 4) r.fail_at(8, "type section offset " + std::to_string(type_off) + " is not 4-byte aligned");
  if (type_len % 4) r.fail_at(12, "type section length " + std::to_string(type_len) + " is not a multiple of 4");
  if (uint64_t{type_off} + type_len > data_len)
    r.fail_at(8, "type section (offset " + std::to_string(type_off) + ", " + std::to_string(type_len) +
                     " bytes) runs past the end of the data (" + std::to_string(data_len) + " bytes after the header)");
  if (uint64_t{str_off} + str_len > data_len)
    r.fail_at(16, "string section (offset " + std::to_string(str_off) + ", " + std::to_string(str_len) +
                      " bytes) runs past the end of the data (" + std::to_string(data_len) + " bytes after the header)");
  // As the kernel: the sections, in either order, must tile the data.
  uint64_t first_off = std::min(type_off, str_off), first_len = type_off <= str_off ? type_len : str_len;
  uint64_t second_off = std::max(type_off, str_off), second_len = type_off <= str_off ? str_len : type_len;
  if (type_len && str_len && first_off + first_len > second_off) r.fail_at(8, "type and string sections overlap");
  if (first_off != 0 || first_off + first_len != second_off || second_off + second_len != data_len)
    r.fail_at(8, "unexpected bytes between or after the type and string sections");

  // Strings.
  uint64_t str_start = uint64_t{hdr_len} + str_off;
  uint32_t start_str_off = base ? base->end_str_off() : 0;
  if (!base && str_len == 0) r.fail_at(20, "string section is empty (needs at least the empty string)");
  if (str_len) {
    // A module's .BTF read without its base looks so: its strings follow the base's.
    if (!base && bytes[str_start] != 0)
      r.fail_at(str_start, "string section does not start with the empty string (split BTF? it needs its base, and cannot be one)");
    if (bytes[str_start + str_len - 1] != 0)
      r.fail_at(str_start + str_len - 1, "string section does not end with NUL");
  }
  if (uint64_t{start_str_off} + str_len - 1 > MAX_NAME_OFFSET && str_len)
    r.fail_at(20, "string section too large (" + std::to_string(str_len) + " bytes)");

  // Types: copy words, index records. The copy goes in parallel chunks
  // (fresh pages: a vmlinux base is 4 MB of them), and the strings are
  // copied beside the record walk (a single small module waits for its
  // base to be read).
  uint64_t type_start = uint64_t{hdr_len} + type_off;
  size_t nwords = type_len / 4;
  UninitVector<uint32_t> words(nwords);
  prefault(words.data(), nwords * 4);
  const bool native = big_endian == (std::endian::native == std::endian::big);
  parallel_for_ranges(0, nwords, size_t{1} << 16, [&](size_t lo, size_t hi) {
    const uint8_t* from = bytes.data() + type_start + 4 * lo;
    if (native) {  // one memcpy, not a load per word (which the compiler leaves scalar)
      std::memcpy(words.data() + lo, from, 4 * (hi - lo));
      return;
    }
    for (size_t i = lo; i < hi; ++i) words[i] = load<uint32_t>(from + 4 * (i - lo), big_endian);
  });
  UninitVector<uint32_t> offsets;
  offsets.reserve(nwords / 4);  // records are 4 words and more, mostly
  StringTable strings(/*leading_empty=*/false);  // the section's bytes replace whatever it starts with
  parallel_for(2, [&](size_t k) {
    if (k == 0) record_offsets(r, words, type_start, base ? base->end_id() : 1, offsets);
    else strings.assign_unindexed(bytes.subspan(str_start, str_len));
  });

  out = Btf(base);
  out.assign_raw(std::move(words), std::move(offsets), std::move(strings));
  if (saved_strings) {
    parallel_for(beside ? 2 : 1, [&](size_t k) {
      if (k == 1) beside(out);
      else if (!out.restore_string_index(*saved_strings))
        throw Error(std::string(section), 0, "saved string index does not fit the strings");
    });
    return;
  }
  // The checks read the strings, the index is built beside them (a
  // module's base, session 51's host: 3 ms of hashing vmlinux's strings,
  // 6 ms of checks), and so is what the caller builds from the records.
  // A deferred index is built later, for what is looked up.
  const bool index_here = string_index == StringIndex::Built;
  if (!index_here) out.defer_string_index();
  parallel_for(1 + (index_here ? 1 : 0) + (beside ? 1 : 0), [&](size_t k) {
    if (k == 0) Validator(out, section, type_start, Rules::Read).run();
    else if (k == 1 && index_here) out.index_strings();
    else beside(out);
  });
}

}  // namespace

void read_raw(Btf& out, Bytes bytes, const BesideChecks& beside) {
  read_raw_into(out, bytes, nullptr, ".BTF", beside, nullptr);
}

void read_raw_checked_before(Btf& out, Bytes bytes, FlatReader& saved_strings, const BesideChecks& beside) {
  read_raw_into(out, bytes, nullptr, ".BTF", beside, &saved_strings);
}

Btf read_raw(Bytes bytes, const Btf* base, std::string_view section) {
  Btf btf;
  read_raw_into(btf, bytes, base, section, nullptr, nullptr);
  return btf;
}

BtfFile::BtfFile() = default;
BtfFile::BtfFile(BtfFile&&) noexcept = default;
BtfFile::~BtfFile() = default;

BtfFile BtfFile::open(const std::string& path) {
  BtfFile f;
  // Either kind may come packed (foo.ko.xz): read from memory then.
  f.contents = elf::FileBytes::open(path);
  if (is_raw_btf(f.contents.bytes)) {
    f.bytes = f.contents.bytes;
    return f;
  }
  // Either kind is welcome: say so, rather than "not an ELF file" to one
  // who gave a (damaged) raw BTF file.
  if (!elf::is_elf(f.contents.bytes))
    throw Error("neither raw BTF (magic 0xeb9f) nor an ELF file").with_file(path);
  f.elf = elf::ElfFile::parse(std::move(f.contents), path);
  const elf::Section* s = f.elf->find_section(".BTF");
  if (!s) throw Error("no .BTF section (and not raw BTF)");
  f.bytes = f.elf->section_data(*s);
  f.distilled_base = f.elf->find_section_exact(".BTF.base");
  return f;
}

namespace {

// The BTF of a file open: `bytes` (raw BTF, or `elf`'s .BTF), split on
// `elf`'s .BTF.base when `distilled` is that section.
void read_opened(Btf& out, Bytes bytes, const elf::ElfFile* elf, const elf::Section* distilled, const Btf* base,
                 const BesideChecks& beside, StringIndex string_index = StringIndex::Built) {
  // A module encoded with distilled_base: .BTF is split on .BTF.base.
  // Given the full base, relocate onto it as libbpf 1.5's parser does.
  if (distilled) {
    if (!base)
      throw Error(".BTF.base: .BTF is split BTF on this distilled base; give the full base (e.g. vmlinux) "
                  "to relocate it onto");
    Btf distilled_base = read_raw(elf->section_data(*distilled), nullptr, ".BTF.base");
    out = relocate(read_raw(bytes, &distilled_base, ".BTF"), *base);
    if (beside) beside(out);  // the table is computed, not read: nothing to run beside
    return;
  }
  read_raw_into(out, bytes, base, ".BTF", beside, nullptr, string_index);
}

}  // namespace

void read_file(const std::string& path, const Btf* base, Btf& out, const BesideChecks& beside,
               StringIndex string_index) {
  try {
    BtfFile f = BtfFile::open(path);
    read_opened(out, f.bytes, f.elf.get(), f.distilled_base, base, beside, string_index);
  } catch (Error& e) {
    throw e.with_file(path);
  }
}

Btf read_elf(const elf::ElfFile& elf, const Btf* base) {
  Btf out;
  try {
    const elf::Section* s = elf.find_section(".BTF");
    if (!s) throw Error("no .BTF section (and not raw BTF)");
    read_opened(out, elf.section_data(*s), &elf, elf.find_section_exact(".BTF.base"), base, nullptr);
  } catch (Error& e) {
    throw e.with_file(elf.path());
  }
  return out;
}

Btf read_file(const std::string& path, const Btf* base) {
  Btf btf;
  read_file(path, base, btf, nullptr);
  return btf;
}

}  // namespace btfc::btf
