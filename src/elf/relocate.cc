// Applying relocations to the debug sections of relocatable files (.o and
// kernel .ko). In such a file .debug_info refers to .debug_str, .debug_abbrev,
// .text... through relocations; the bytes in place are only addends (RELA)
// or partial values (REL). The result must equal what
// `eu-strip --reloc-debug-sections` leaves in the file: S + A with S the
// symbol's st_value (sections have address 0 in ET_REL, so a section symbol
// contributes 0) and A the addend.
//
// Relocation sections are scanned once, entries decoded with fixed-offset
// loads (no Reader per entry): ext4.ko has hundreds of thousands of debug
// relocations and this runs on every module. Every entry is still bounds-
// checked: its offset and width against the target section, its symbol
// index against the symbol table. A big section (amdgpu.ko: 94 MB of
// .debug_info, 6M relocations) is copied in and relocated in chunks on
// several threads, with the bytes and the error one pass would give.
#include <algorithm>
#include <array>
#include <cstring>
#include <cstdio>
#include <exception>

#include "base/parallel.h"

#include "elf/elf_file.h"

namespace btfc::elf {

namespace {

constexpr uint16_t EM_386 = 3, EM_MIPS = 8, EM_PPC = 20, EM_PPC64 = 21, EM_S390 = 22, EM_ARM = 40, EM_X86_64 = 62,
                   EM_AARCH64 = 183, EM_RISCV = 243;

// What a relocation does to the bytes at its offset, with V = S + A:
enum class Op : uint8_t {
  None,     // nothing (R_*_NONE, RISC-V RELAX/ALIGN hints)
  Abs,      // store V in `width` bytes
  PcRel,    // store V - P (P = r_offset: sections sit at address 0)
  Add,      // add V to the value in place (RISC-V ADD*)
  Sub,      // subtract V from the value in place (RISC-V SUB*)
  Set6,     // low 6 bits of the byte := V (RISC-V SET6)
  Sub6,     // low 6 bits of the byte -= V (RISC-V SUB6)
  SetUleb,  // the ULEB128 in place := V, same length (RISC-V SET_ULEB128)
  SubUleb,  // the ULEB128 in place -= V (RISC-V SUB_ULEB128)
  Unknown,
};

// The widest write of a relocation outside RISC-V's ULEB128 pairs.
constexpr uint64_t kMaxWidth = 8;

struct Howto {
  Op op = Op::Unknown;
  uint8_t width = 0;  // bytes touched, for the bounds check (ULEB: checked while reading)
};

Howto classify(uint16_t machine, uint32_t type) {
  auto abs = [](uint8_t w) { return Howto{Op::Abs, w}; };
  auto pc = [](uint8_t w) { return Howto{Op::PcRel, w}; };
  constexpr Howto none{Op::None, 0};
  switch (machine) {
    case EM_X86_64:
      switch (type) {
        case 0: return none;
        case 1: return abs(8);    // R_X86_64_64
        case 2: return pc(4);     // R_X86_64_PC32
        case 10: return abs(4);   // R_X86_64_32
        case 11: return abs(4);   // R_X86_64_32S
        case 17: return abs(8);   // R_X86_64_DTPOFF64 (TLS variable locations)
        case 21: return abs(4);   // R_X86_64_DTPOFF32
        case 24: return pc(8);    // R_X86_64_PC64
      }
      break;
    case EM_386:
      switch (type) {
        case 0: return none;
        case 1: return abs(4);   // R_386_32
        case 2: return pc(4);    // R_386_PC32
        case 32: return abs(4);  // R_386_TLS_LDO_32
      }
      break;
    case EM_AARCH64:
      switch (type) {
        case 0: case 256: return none;
        case 257: return abs(8);   // R_AARCH64_ABS64
        case 258: return abs(4);   // R_AARCH64_ABS32
        case 259: return abs(2);   // R_AARCH64_ABS16
        case 260: return pc(8);    // R_AARCH64_PREL64
        case 261: return pc(4);    // R_AARCH64_PREL32
        case 262: return pc(2);    // R_AARCH64_PREL16
        case 1029: return abs(8);  // R_AARCH64_TLS_DTPREL64
      }
      break;
    case EM_ARM:
      switch (type) {
        case 0: return none;
        case 2: return abs(4);    // R_ARM_ABS32
        case 3: return pc(4);     // R_ARM_REL32
        case 106: return abs(4);  // R_ARM_TLS_LDO32
      }
      break;
    case EM_S390:
      switch (type) {
        case 0: return none;
        case 1: return abs(1);   // R_390_8
        case 3: return abs(2);   // R_390_16
        case 4: return abs(4);   // R_390_32
        case 5: return pc(4);    // R_390_PC32
        case 22: return abs(8);  // R_390_64
        case 23: return pc(8);   // R_390_PC64
      }
      break;
    case EM_PPC64:
      switch (type) {
        case 0: return none;
        case 1: return abs(4);   // R_PPC64_ADDR32
        case 3: return abs(2);   // R_PPC64_ADDR16
        case 26: return pc(4);   // R_PPC64_REL32
        case 38: return abs(8);  // R_PPC64_ADDR64
        case 44: return pc(8);   // R_PPC64_REL64
        case 78: return abs(8);  // R_PPC64_DTPREL64
      }
      break;
    case EM_PPC:
      switch (type) {
        case 0: return none;
        case 1: return abs(4);   // R_PPC_ADDR32
        case 3: return abs(2);   // R_PPC_ADDR16
        case 26: return pc(4);   // R_PPC_REL32
        case 78: return abs(4);  // R_PPC_DTPREL32
      }
      break;
    case EM_RISCV:
      switch (type) {
        case 0: return none;
        case 1: return abs(4);  // R_RISCV_32
        case 2: return abs(8);  // R_RISCV_64
        case 8: return abs(4);  // R_RISCV_TLS_DTPREL32
        case 9: return abs(8);  // R_RISCV_TLS_DTPREL64
        case 33: return {Op::Add, 1};
        case 34: return {Op::Add, 2};
        case 35: return {Op::Add, 4};
        case 36: return {Op::Add, 8};
        case 37: return {Op::Sub, 1};
        case 38: return {Op::Sub, 2};
        case 39: return {Op::Sub, 4};
        case 40: return {Op::Sub, 8};
        case 43: case 51: return none;  // R_RISCV_ALIGN, R_RISCV_RELAX: hints for the linker
        case 52: return {Op::Sub6, 1};
        case 53: return {Op::Set6, 1};
        case 54: return abs(1);  // R_RISCV_SET8
        case 55: return abs(2);  // R_RISCV_SET16
        case 56: return abs(4);  // R_RISCV_SET32
        case 57: return pc(4);   // R_RISCV_32_PCREL
        case 60: return {Op::SetUleb, 1};
        case 61: return {Op::SubUleb, 1};
      }
      break;
    case EM_MIPS:
      switch (type) {
        case 0: return none;
        case 2: return abs(4);   // R_MIPS_32
        case 18: return abs(8);  // R_MIPS_64
      }
      break;
  }
  return {};
}

uint64_t load_width(const uint8_t* p, unsigned width, bool be) {
  switch (width) {
    case 1: return *p;
    case 2: return load<uint16_t>(p, be);
    case 4: return load<uint32_t>(p, be);
    default: return load<uint64_t>(p, be);
  }
}

void store_width(uint8_t* p, unsigned width, uint64_t v, bool be) {
  switch (width) {
    case 1: *p = static_cast<uint8_t>(v); break;
    case 2: store<uint16_t>(p, static_cast<uint16_t>(v), be); break;
    case 4: store<uint32_t>(p, static_cast<uint32_t>(v), be); break;
    default: store<uint64_t>(p, v, be); break;
  }
}

// One relocation entry, decoded with fixed-offset loads.
struct Entry {
  uint64_t offset;
  uint64_t sym;
  uint32_t type;
  int64_t addend;
};

class Decoder {
 public:
  Decoder(bool is_64, bool be, bool mips64, bool rela)
      : is_64_(is_64), be_(be), mips64_(mips64), rela_(rela), entsize_((is_64 ? 8 : 4) * (rela ? 3 : 2)) {}
  size_t entsize() const { return entsize_; }
  Entry operator()(const uint8_t* p) const {
    Entry e{};
    if (is_64_) {
      e.offset = load<uint64_t>(p, be_);
      if (mips64_) {
        // MIPS64 packs r_info as r_sym (32 bits) then four one-byte fields,
        // the type last, in the file's byte order; only the first type is
        // used here.
        e.sym = load<uint32_t>(p + 8, be_);
        e.type = p[15];
      } else {
        uint64_t info = load<uint64_t>(p + 8, be_);
        e.sym = info >> 32;
        e.type = static_cast<uint32_t>(info & 0xffffffff);
      }
      if (rela_) e.addend = static_cast<int64_t>(load<uint64_t>(p + 16, be_));
    } else {
      e.offset = load<uint32_t>(p, be_);
      uint32_t info = load<uint32_t>(p + 4, be_);
      e.sym = info >> 8;
      e.type = info & 0xff;
      if (rela_) e.addend = static_cast<int32_t>(load<uint32_t>(p + 8, be_));
    }
    return e;
  }

 private:
  bool is_64_, be_, mips64_, rela_;
  size_t entsize_;
};

// classify() behind a small direct-mapped memo: a section's relocations
// use two or three types, and the nested switches cost ~20 instructions a
// call (14% of the read phase of 400 modules, 7M relocations).
class HowtoMemo {
 public:
  explicit HowtoMemo(uint16_t machine) : machine_(machine) {}
  Howto operator()(uint32_t type) {
    Slot& s = slots_[type & (kSlots - 1)];
    if (s.type != type) s = {type, classify(machine_, type)};
    return s.how;
  }

 private:
  static constexpr size_t kSlots = 64;
  struct Slot {
    // An empty slot claims type ~0u with the default Howto (Unknown), which
    // is what classify() says of that type too.
    uint32_t type = ~0u;
    Howto how;
  };
  uint16_t machine_;
  Slot slots_[kSlots];
};

// Applies a run of entries of one relocation section to `data`, in order,
// each checked first: its type, its offset and width against the target
// section, its symbol index against the symbol table. `data` holds the
// section's bytes from offset `base` on (all of them, or a part). Only
// bytes in [lo, hi) (inside `data`) are written: run() stops at the first
// checked entry that would write outside and returns its index (`end`
// when every entry was applied).
class Applier {
 public:
  // `values`: S of every symbol, by index; `alloc`: the index of the
  // symbol's section if that section is allocated, else 0 (both computed by
  // apply_relocations()). Absolute relocations against the latter go to
  // `targets`, in entry order.
  Applier(const ElfFile& elf, std::span<const uint64_t> values, std::span<const uint32_t> alloc,
          std::span<uint8_t> data, const Decoder& decode, bool rela, std::string_view target_name,
          const std::string& rel_name, std::vector<ElfFile::RelocTarget>& targets)
      : Applier(elf, values, alloc, data, 0, data.size(), decode, rela, target_name, rel_name, targets) {}
  Applier(const ElfFile& elf, std::span<const uint64_t> values, std::span<const uint32_t> alloc,
          std::span<uint8_t> data, uint64_t base, uint64_t section_size, const Decoder& decode, bool rela,
          std::string_view target_name, const std::string& rel_name, std::vector<ElfFile::RelocTarget>& targets)
      : elf_(elf), values_(values), alloc_(alloc), data_(data), base_(base), section_size_(section_size),
        decode_(decode), rela_(rela), target_name_(target_name), rel_name_(rel_name), targets_(targets),
        howto_(elf.machine()) {}

  size_t run(const uint8_t* entries, size_t begin, size_t end, uint64_t lo, uint64_t hi) {
    // x86-64 and little-endian AArch64 (ELF64 RELA, little-endian) get a
    // loop compiled for that layout, with fewer instructions per entry.
    if (elf_.is_64() && !elf_.big_endian() && rela_ && elf_.machine() != EM_MIPS)
      return run_as<true>(entries, begin, end, lo, hi);
    return run_as<false>(entries, begin, end, lo, hi);
  }
  // Writes the bytes inside [lo, hi) of entry i, which run() checked and
  // stopped at because it does not lie wholly inside (a part's relocation
  // that straddles one of its ends). Only for a value stored whole (Abs,
  // PcRel), RELA: what is written does not depend on the bytes in place.
  // True if it wrote any.
  bool apply_clipped(const uint8_t* entries, size_t i, uint64_t lo, uint64_t hi) {
    const Entry e = decode_(entries + i * decode_.entsize());
    const Howto how = howto_(e.type);
    if (how.op != Op::Abs && how.op != Op::PcRel) return false;
    if (e.offset >= hi || e.offset + how.width <= lo) return false;
    const uint64_t V = values_[e.sym] + static_cast<uint64_t>(e.addend);
    uint8_t whole[kMaxWidth];
    store_width(whole, how.width, how.op == Op::Abs ? V : V - e.offset, elf_.big_endian());
    const uint64_t from = std::max(e.offset, lo), to = std::min(e.offset + how.width, hi);
    std::memcpy(data_.data() + (from - base_), whole + (from - e.offset), to - from);
    if (how.op == Op::Abs && alloc_[e.sym]) targets_.push_back({e.offset, alloc_[e.sym]});
    return true;
  }
  // Index of the entry at `entries` (for messages), when run() is given
  // a copy of some entries rather than the whole section.
  void set_entry_base(size_t first) { entry_base_ = first; }

 private:
  template <bool kElf64LeRela>
  size_t run_as(const uint8_t* entries, size_t begin, size_t end, uint64_t lo, uint64_t hi) {
    const bool be = kElf64LeRela ? false : elf_.big_endian();
    const bool rela = kElf64LeRela || rela_;
    const size_t entsize = kElf64LeRela ? 24 : decode_.entsize();
    const uint8_t* p = entries + begin * entsize;
    // Locals, not members: the stores through `loc` below could alias them.
    uint8_t* const data = data_.data();
    const uint64_t base = base_, size = section_size_;
    const size_t nsyms = values_.size();
    size_t i = begin;
    for (; i < end; i++, p += entsize) {
      if constexpr (kElf64LeRela) {
        const size_t next = run_plain(entries, i, end, lo, hi);
        p += (next - i) * entsize;
        i = next;
        if (i == end) break;
      }
      Entry e;
      if constexpr (kElf64LeRela) {
        const uint64_t info = load<uint64_t>(p + 8, false);
        e = {load<uint64_t>(p, false), info >> 32, static_cast<uint32_t>(info),
             static_cast<int64_t>(load<uint64_t>(p + 16, false))};
      } else {
        e = decode_(p);
      }
      const uint64_t offset = e.offset, sym = e.sym;
      const int64_t addend = e.addend;
      const uint64_t entry_offset = (entry_base_ + i) * entsize;
      const Howto how = howto_(e.type);
      if (how.op == Op::Abs && how.width == 4 && plain4_ == kNoType) plain4_ = e.type;
      if (how.op == Op::Abs && how.width == 8 && plain8_ == kNoType) plain8_ = e.type;
      if (how.op == Op::None) continue;
      if (how.op == Op::Unknown)
        throw Error(rel_name_, entry_offset,
                    "unknown relocation type " + std::to_string(e.type) + " for " + ElfFile::machine_name(elf_.machine()));
      if (offset > size || how.width > size - offset)
        throw Error(rel_name_, entry_offset,
                    "relocation offset " + hex(offset) + " is outside " + std::string(target_name_) + " (size " +
                        hex(size) + ")");
      if (sym >= nsyms)
        throw Error(rel_name_, entry_offset,
                    "symbol index " + std::to_string(sym) + " is out of range (" + std::to_string(nsyms) +
                        " symbols)");
      if (offset < lo || offset + how.width > hi) break;
      const uint64_t S = values_[sym];
      uint8_t* loc = data + (offset - base);
      const unsigned w = how.width;
      // REL keeps the addend in the bytes being relocated.
      const uint64_t A = rela ? static_cast<uint64_t>(addend) : load_width(loc, w, be);
      const uint64_t V = S + A;
      switch (how.op) {
        case Op::Abs:
          store_width(loc, w, V, be);
          if (alloc_[sym]) targets_.push_back({offset, alloc_[sym]});
          break;
        case Op::PcRel: store_width(loc, w, V - offset, be); break;
        case Op::Add: store_width(loc, w, load_width(loc, w, be) + S + static_cast<uint64_t>(addend), be); break;
        case Op::Sub: store_width(loc, w, load_width(loc, w, be) - S - static_cast<uint64_t>(addend), be); break;
        case Op::Set6: *loc = static_cast<uint8_t>((*loc & 0xc0) | ((S + addend) & 0x3f)); break;
        case Op::Sub6: *loc = static_cast<uint8_t>((*loc & 0xc0) | ((*loc - S - addend) & 0x3f)); break;
        case Op::SetUleb:
        case Op::SubUleb: {
          // The ULEB128 keeps its length: read it, then rewrite each byte.
          // (Never in a chunk: RISC-V files are relocated in one pass.)
          size_t len = 0;
          uint64_t old = 0;
          for (;; len++) {
            if (offset + len >= size)
              throw Error(rel_name_, entry_offset,
                          "ULEB128 at " + hex(offset) + " runs past the end of " + std::string(target_name_));
            if (len < 10) old |= uint64_t{loc[len] & 0x7fu} << (7 * len);
            if (!(loc[len] & 0x80)) break;
          }
          uint64_t v = how.op == Op::SetUleb ? S + addend : old - S - addend;
          for (size_t k = 0; k <= len; k++) {
            loc[k] = static_cast<uint8_t>((v & 0x7f) | (k < len ? 0x80 : 0));
            v = k < 9 ? v >> 7 : 0;
          }
          break;
        }
        case Op::None:
        case Op::Unknown: break;
      }
    }
    return i;
  }

  // Most entries of a debug section (amdgpu.ko: 6M) are an absolute 4- or
  // 8-byte relocation (R_X86_64_32 to .debug_str, R_X86_64_64 to .text)
  // well inside the bytes being relocated: this loop applies entries
  // [i, end) while they are such, in ELF64 little-endian RELA, with one
  // combined check and no dispatch, and returns the first that is not, for
  // the general loop to apply or report. The two types are the first of
  // each width the general loop met (none yet: nothing is plain). For
  // these entries the general loop's checks pass and its store is this
  // one, so what is written never depends on which loop ran.
  size_t run_plain(const uint8_t* entries, size_t i, size_t end, uint64_t lo, uint64_t hi) const {
    const uint8_t* p = entries + i * 24;
    uint8_t* const data = data_.data();
    const uint64_t base = base_;
    const uint64_t* const values = values_.data();
    const uint32_t* const alloc = alloc_.data();
    const uint64_t nsyms = values_.size();
    const uint64_t plain4 = plain4_, plain8 = plain8_;  // locals: the stores could alias members
    for (; i < end; i++, p += 24) {
      const uint64_t offset = load<uint64_t>(p, false), info = load<uint64_t>(p + 8, false);
      const uint64_t type = static_cast<uint32_t>(info), sym = info >> 32;
      uint64_t width;
      if (type == plain4) width = 4;
      else if (type == plain8) width = 8;
      else break;
      // [lo, hi) lies inside the bytes (and the section).
      if (sym >= nsyms || offset < lo || offset > hi || width > hi - offset) break;
      const uint64_t v = values[sym] + load<uint64_t>(p + 16, false);
      if (width == 4) store<uint32_t>(data + (offset - base), static_cast<uint32_t>(v), false);
      else store<uint64_t>(data + (offset - base), v, false);
      if (alloc[sym]) [[unlikely]]
        targets_.push_back({offset, alloc[sym]});
    }
    return i;
  }

  static constexpr uint64_t kNoType = ~uint64_t{0};  // matches no 32-bit type
  const ElfFile& elf_;
  std::span<const uint64_t> values_;
  std::span<const uint32_t> alloc_;
  std::span<uint8_t> data_;
  uint64_t base_, section_size_;
  size_t entry_base_ = 0;
  const Decoder& decode_;
  bool rela_;
  std::string_view target_name_;
  const std::string& rel_name_;
  std::vector<ElfFile::RelocTarget>& targets_;
  HowtoMemo howto_;
  uint64_t plain4_ = kNoType, plain8_ = kNoType;  // run_plain()'s types
};

// A relocation section of at least two chunks of this many entries is
// applied chunk by chunk in parallel (amdgpu.ko: 6M entries, 92 chunks). A
// fixed size, so the chunks, and which error is reported, never depend on
// the thread count.
constexpr size_t kChunkEntries = size_t{1} << 16;

// S of each symbol: sections and defined symbols have their st_value (0
// for a section in ET_REL), undefined and common ones 0. And the symbol's
// section if it is allocated (relocation_section()'s answer), else 0.
void symbol_values(const ElfFile& elf, std::vector<uint64_t>& values, std::vector<uint32_t>& alloc) {
  const std::vector<Symbol>& syms = elf.symbols();
  values.assign(syms.size(), 0);
  alloc.assign(syms.size(), 0);
  for (size_t k = 0; k < syms.size(); k++) {
    values[k] = (syms[k].shndx == SHN_UNDEF || syms[k].shndx == SHN_COMMON) ? 0 : syms[k].value;
    const uint32_t shndx = syms[k].shndx;
    if (shndx != SHN_UNDEF && shndx < 0xff00 && shndx < elf.sections().size() &&
        (elf.sections()[shndx].flags & SHF_ALLOC))
      alloc[k] = shndx;
  }
}

bool by_offset(const ElfFile::RelocTarget& a, const ElfFile::RelocTarget& b) { return a.offset < b.offset; }

}  // namespace

void ElfFile::apply_relocations(const Section& target, std::span<uint8_t> data, std::vector<RelocTarget>& targets,
                                const std::function<void(uint64_t, uint64_t)>& fill) const {
  std::vector<uint64_t> values;
  std::vector<uint32_t> alloc;
  symbol_values(*this, values, alloc);
  targets.clear();
  const Section* symtab = nullptr;
  for (const Section& s : sections_)
    if (s.type == SHT_SYMTAB) symtab = &s;
  const bool mips64 = machine_ == EM_MIPS && is_64_;
  bool filled = !fill;
  for (uint32_t ri : relocations_for_[target.index]) {
    const Section& rel = sections_[ri];
    const std::string rel_name(rel.name);
    const bool rela = rel.type == SHT_RELA;
    if (!symtab || rel.link != symtab->index)
      throw Error(rel_name, 0, "relocations use symbol table section " + std::to_string(rel.link) +
                                   ", which is not the file's .symtab");
    std::vector<uint8_t> rel_owned;
    Bytes entries = decompressed_data(rel, rel_owned);
    const Decoder decode(is_64_, big_endian_, mips64, rela);
    const size_t entsize = decode.entsize();
    const size_t n = entries.size() / entsize;

    // Chunks: entry ranges whose byte ranges [lo, hi) in `data` follow one
    // another. A boundary goes where an entry starts at least kMaxWidth
    // bytes after the previous one, so in a file in offset order no entry
    // of one chunk touches the bytes of the next; each chunk copies its own
    // bytes in (fill), page faults and all, and relocates them. Only the
    // sole relocation section of a not yet filled target is split (RISC-V
    // never: its ULEB128 writes have no fixed width).
    struct Chunk {
      size_t begin;
      uint64_t lo;
    };
    std::vector<Chunk> chunks;
    if (!filled && relocations_for_[target.index].size() == 1 && machine_ != EM_RISCV && n >= 2 * kChunkEntries &&
        jobs() > 1) {
      auto offset_of = [&](size_t i) { return decode(entries.data() + i * entsize).offset; };
      chunks.push_back({0, 0});
      for (size_t b = kChunkEntries; b + kChunkEntries / 2 < n; b += kChunkEntries) {
        for (size_t tries = 0; tries < 64 && b < n; tries++, b++) {
          const uint64_t o = offset_of(b), prev = offset_of(b - 1);
          if (prev <= data.size() && o >= prev + kMaxWidth && o <= data.size() && o > chunks.back().lo) {
            chunks.push_back({b, o});
            break;
          }
        }
      }
    }
    if (chunks.size() > 1) {
      const size_t m = chunks.size();
      std::vector<std::exception_ptr> errors(m);
      std::vector<uint8_t> misplaced(m, 0);
      std::vector<std::vector<RelocTarget>> chunk_targets(m);
      parallel_for(m, [&](size_t k) {
        const size_t end = k + 1 < m ? chunks[k + 1].begin : n;
        const uint64_t lo = chunks[k].lo, hi = k + 1 < m ? chunks[k + 1].lo : data.size();
        try {
          fill(lo, hi);
          Applier apply(*this, values, alloc, data, decode, rela, target.name, rel_name, chunk_targets[k]);
          misplaced[k] = apply.run(entries.data(), chunks[k].begin, end, lo, hi) != end;
        } catch (...) {
          errors[k] = std::current_exception();
        }
      });
      // The first chunk that failed or met an entry out of place decides:
      // an error is the one a serial pass reports (before it, every entry
      // was applied and checked in order, and no check depends on the
      // bytes); an entry out of place means the file is not in offset
      // order, and it is relocated again in one pass, from fresh bytes.
      size_t first = 0;
      while (first < m && !errors[first] && !misplaced[first]) first++;
      if (first < m && errors[first]) std::rethrow_exception(errors[first]);
      if (first == m) {
        for (const std::vector<RelocTarget>& t : chunk_targets) targets.insert(targets.end(), t.begin(), t.end());
        filled = true;
        continue;
      }
    }
    if (!filled) fill(0, data.size());
    filled = true;
    Applier apply(*this, values, alloc, data, decode, rela, target.name, rel_name, targets);
    apply.run(entries.data(), 0, n, 0, data.size());
  }
  if (!filled) fill(0, data.size());
  // Compilers emit relocations in offset order, so checking is usually all
  // the sorting there is (two relocation sections for one target, or
  // entries out of order: file order kept among equal offsets).
  if (!std::is_sorted(targets.begin(), targets.end(), by_offset))
    std::stable_sort(targets.begin(), targets.end(), by_offset);
}

std::unique_ptr<PartRelocator> PartRelocator::make(const ElfFile& elf, const Section& s) {
  if (elf.type() != ET_REL || s.index >= elf.sections().size() || s.type == SHT_NOBITS ||
      (s.flags & SHF_COMPRESSED) || s.name.starts_with(".zdebug_") || elf.machine() == EM_RISCV)
    return nullptr;
  const std::vector<uint32_t>& rels = elf.relocations_for_[s.index];
  if (rels.size() != 1) return nullptr;
  const Section& rel = elf.sections()[rels[0]];
  const Section* symtab = nullptr;
  for (const Section& x : elf.sections())
    if (x.type == SHT_SYMTAB) symtab = &x;
  // Anything else is section_data()'s to relocate or report.
  if (rel.type != SHT_RELA || (rel.flags & SHF_COMPRESSED) || !symtab || rel.link != symtab->index) return nullptr;
  std::unique_ptr<PartRelocator> p(new PartRelocator(elf, s, rel));
  const Decoder decode(elf.is_64(), elf.big_endian(), elf.machine() == EM_MIPS && elf.is_64(), true);
  p->entsize_ = decode.entsize();
  p->entries_ = rel.size / p->entsize_;
  symbol_values(elf, p->values_, p->alloc_);
  // A pread per sample (amdgpu.ko: 5,900): mapping them would bring in
  // most of the 143 MB of entries around them.
  p->sample_.resize((p->entries_ + kSample - 1) / kSample);
  parallel_for_ranges(0, p->sample_.size(), 512, [&](size_t lo, size_t hi) {
    std::array<uint8_t, 24> entry;
    for (size_t k = lo; k < hi; k++) {
      elf.copy_out(elf.bytes_.data() + rel.offset + k * kSample * p->entsize_, {entry.data(), p->entsize_});
      p->sample_[k] = decode(entry.data()).offset;
    }
  });
  if (!std::is_sorted(p->sample_.begin(), p->sample_.end())) return nullptr;
  return p;
}

void PartRelocator::release(uint64_t lo, uint64_t hi) const {
  const size_t first = sample_at(lo) * kSample, last = std::min(entries_, sample_at(hi) * kSample);
  if (first < last) elf_.release({elf_.bytes_.data() + rel_.offset + first * entsize_, (last - first) * entsize_});
}

void PartRelocator::run(uint64_t lo, uint64_t hi, Part* part, bool count) const {
  if (lo > hi || hi > s_.size) throw Error(std::string(s_.name), lo, "part [" + hex(lo) + ", " + hex(hi) + ") is outside the section");
  if (part) {
    part->bytes.resize(hi - lo);
    elf_.copy_out(elf_.bytes_.data() + s_.offset + lo, part->bytes);
    part->targets.clear();
  }
  // The entries that may touch [lo, hi), if they are in offset order: from
  // the last sample below lo - (kMaxWidth - 1) to the first at or above hi.
  const uint64_t reach = lo >= kMaxWidth - 1 ? lo - (kMaxWidth - 1) : 0;
  const size_t k0 = sample_at(reach);
  const size_t first = (k0 ? k0 - 1 : 0) * kSample, last = std::min(entries_, sample_at(hi) * kSample);
  if (first >= last) return;
  const size_t n = last - first;
  const uint8_t* entries = elf_.bytes_.data() + rel_.offset + first * entsize_;
  if (part) {
    part->entries.resize(n * entsize_);
    elf_.copy_out(entries, part->entries);
    entries = part->entries.data();
  }
  const Decoder decode(elf_.is_64(), elf_.big_endian(), elf_.machine() == EM_MIPS && elf_.is_64(), true);
  auto offset_of = [&](size_t i) { return decode(entries + i * entsize_).offset; };
  // Counting needs the entries read to be in order, so that those found
  // below are all of them (the ones of [lo, hi) elsewhere in the section
  // are then counted by no one, and complete() says so).
  auto in_order = [&] {
    if (elf_.is_64() && !elf_.big_endian()) {  // one load per entry
      for (size_t i = 1; i < n; i++)
        if (load<uint64_t>(entries + i * 24, false) < load<uint64_t>(entries + (i - 1) * 24, false)) return false;
      return true;
    }
    for (size_t i = 1; i < n; i++)
      if (offset_of(i) < offset_of(i - 1)) return false;
    return true;
  };
  if (count && !in_order()) {
    failed_.store(true, std::memory_order_relaxed);
    return;
  }
  auto index_of = [&](uint64_t off) {
    size_t a = 0, b = n;
    while (a < b) {
      const size_t m = a + (b - a) / 2;
      if (offset_of(m) < off) a = m + 1;
      else b = m;
    }
    return a;
  };
  const size_t begin = index_of(reach), end = index_of(hi);
  if (count) counted_.fetch_add(end - index_of(lo), std::memory_order_relaxed);
  if (!part) {
    // An entry that straddles the part's end is one no part applies whole.
    for (size_t i = end; i > begin && offset_of(i - 1) + kMaxWidth > hi; i--) {
      const Entry e = decode(entries + (i - 1) * entsize_);
      if (e.offset + classify(elf_.machine(), e.type).width > hi) failed_.store(true, std::memory_order_relaxed);
    }
    return;
  }
  Applier apply(elf_, values_, alloc_, part->bytes, lo, s_.size, decode, true, s_.name, rel_name_, part->targets);
  apply.set_entry_base(first);
  for (size_t i = begin; i < end;) {
    i = apply.run(entries, i, end, lo, hi);
    if (i == end) break;
    if (apply.apply_clipped(entries, i, lo, hi) && count) failed_.store(true, std::memory_order_relaxed);
    i++;
  }
  if (!std::is_sorted(part->targets.begin(), part->targets.end(), by_offset))
    std::stable_sort(part->targets.begin(), part->targets.end(), by_offset);
}

}  // namespace btfc::elf
