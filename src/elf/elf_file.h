// Reading ELF files: header, section headers, section contents and the
// symbol table, for ELF32 and ELF64 in either byte order.
//
//   auto f = elf::ElfFile::open("ext4.ko");
//   if (const elf::Section* s = f->find_section(".debug_info"))  // or .zdebug_info
//     Bytes info = f->section_data(*s);   // decompressed and relocated
//
// The file is mmap'ed (a packed one, foo.ko.xz, unpacked into memory:
// elf/packed.h); section_data() returns a span of the mapping when the
// bytes can be used as they are, and otherwise a span of a buffer owned by
// the ElfFile, computed once per section:
//  - SHF_COMPRESSED sections (Elf32_Chdr/Elf64_Chdr, zlib or zstd) and legacy
//    GNU ".zdebug_*" sections ("ZLIB" + 8-byte big-endian size + zlib) are
//    decompressed; the output may not exceed the size the header states and
//    must reach it exactly;
//  - in relocatable files (ET_REL: .o, kernel .ko) every SHT_RELA/SHT_REL
//    section whose sh_info names a ".debug_*" (or ".zdebug_*") section is
//    applied to it, as eu-strip --reloc-debug-sections does: S + A with S the
//    symbol's st_value (0 for section symbols), A from r_addend or, for REL,
//    from the bytes in place. Supported machines: x86-64, i386, AArch64, ARM,
//    s390x, PowerPC/PowerPC64 (either byte order), RISC-V (including the
//    ADD/SUB/SET pairs and ULEB128 pairs), MIPS. Relocations aimed at
//    non-debug sections are ignored.
// Everything read from the file is bounds-checked and errors name the file,
// section and offset, e.g. "ext4.ko: .rela.debug_info+0x18: unknown
// relocation type 99 for x86-64".
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/mapped_file.h"
#include "base/page_buffer.h"
#include "base/reader.h"
#include "base/uninit_vector.h"
#include "elf/packed.h"

namespace btfc::elf {

// e_type, e_machine, sh_type and sh_flags values used across btfc.
inline constexpr uint16_t ET_REL = 1, ET_EXEC = 2, ET_DYN = 3;
inline constexpr uint32_t SHT_NULL = 0, SHT_PROGBITS = 1, SHT_SYMTAB = 2, SHT_STRTAB = 3, SHT_RELA = 4,
                          SHT_NOBITS = 8, SHT_REL = 9, SHT_DYNSYM = 11, SHT_SYMTAB_SHNDX = 18;
inline constexpr uint64_t SHF_WRITE = 0x1, SHF_ALLOC = 0x2, SHF_EXECINSTR = 0x4, SHF_COMPRESSED = 0x800;

struct Section {
  uint32_t index = 0;
  std::string_view name;  // points into the mapped .shstrtab
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t addr = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t addralign = 0;
  uint64_t entsize = 0;
};

// STT_* and STB_* as in the ELF specification.
inline constexpr uint8_t STT_NOTYPE = 0, STT_OBJECT = 1, STT_FUNC = 2, STT_SECTION = 3, STT_FILE = 4;
inline constexpr uint8_t STB_LOCAL = 0, STB_GLOBAL = 1, STB_WEAK = 2;
inline constexpr uint32_t SHN_UNDEF = 0, SHN_ABS = 0xfff1, SHN_COMMON = 0xfff2, SHN_XINDEX = 0xffff;

struct Symbol {
  std::string_view name;
  uint64_t value = 0;
  uint64_t size = 0;
  uint8_t type = 0;     // STT_*
  uint8_t bind = 0;     // STB_*
  uint8_t other = 0;    // st_other (visibility)
  uint32_t shndx = 0;   // section index, with SHN_XINDEX resolved
};

// Whether `bytes` start with the ELF magic (\x7fELF): the test a reader
// that takes ELF files among others makes before parsing one.
bool is_elf(Bytes bytes);

class ElfFile {
 public:
  // A packed file (foo.ko.xz, .zst, .gz: elf/packed.h) is unpacked into
  // memory and read from there; packing() says so.
  static std::unique_ptr<ElfFile> open(const std::string& path);
  // Parses bytes that the caller keeps alive (tests, fuzzing), unpacked
  // first if packed. `name` is used in error messages.
  static std::unique_ptr<ElfFile> parse(Bytes bytes, std::string name);
  // Parses a file already opened (BtfFile, which looked at its bytes
  // first), named `path` in error messages.
  static std::unique_ptr<ElfFile> parse(FileBytes contents, std::string path);
  ~ElfFile();

  const std::string& path() const { return path_; }
  // How the file was packed (Packing::None: a plain ELF file).
  Packing packing() const { return contents_.packing; }
  // Drops the mapped pages inside `range` from resident memory (see
  // MappedFile::release); for section data no longer needed soon.
  void release(Bytes range) const { contents_.file.release(range); }
  // For bytes of an uncompressed section's relocated copy that nothing
  // will read again: the copy's whole pages among them are given back, and
  // would read as zeros afterwards (other bytes are left as they are; those
  // of the mapping are release()'s, they come back from the file). Not
  // thread-safe with section_data().
  void discard(Bytes range) const;
  // Copies the bytes at `at` (section data) without mapping file pages
  // (see MappedFile::copy_out); for small reads scattered over a big file.
  void copy_out(const uint8_t* at, std::span<uint8_t> out) const { contents_.file.copy_out(at, out); }
  // Appends bytes of the file to `out_fd` in the kernel (see
  // MappedFile::copy_to); returns how many, 0 for a file parsed from memory.
  size_t copy_to(int out_fd, Bytes range) const { return contents_.file.copy_to(out_fd, range); }
  // Starts reading the sections of these names (a .debug_X name also
  // finds .zdebug_X, as find_section does) into the page cache beside the
  // work that uses them, with the relocations aimed at them and the
  // symbol table those use (see ReadAhead): a file read cold then waits
  // for few of its pages. Once per file; a file parsed from memory has
  // nothing to read.
  void read_ahead(std::span<const std::string_view> names) const;
  Bytes bytes() const { return bytes_; }
  bool is_64() const { return is_64_; }
  bool big_endian() const { return big_endian_; }
  uint16_t type() const { return type_; }
  uint16_t machine() const { return machine_; }
  uint8_t address_size() const { return is_64_ ? 8 : 4; }

  const std::vector<Section>& sections() const { return sections_; }
  // The section called `name`. A name starting with ".debug_" also finds a
  // legacy GNU-compressed ".zdebug_" section of the same suffix when there
  // is no ".debug_" one, so DWARF readers need not know about .zdebug.
  const Section* find_section(std::string_view name) const;
  // Same as find_section; spelled out for callers that want to say so.
  const Section* find_debug_section(std::string_view name) const { return find_section(name); }
  // Exact name match only (".debug_info" never finds ".zdebug_info").
  const Section* find_section_exact(std::string_view name) const;

  // Raw bytes of a section as stored in the file (empty for SHT_NOBITS).
  Bytes raw_data(const Section& s) const;
  // Contents as a reader of the data sees them: decompressed, and for
  // relocatable files with relocations applied to debug sections. Cached;
  // safe to call from several threads.
  Bytes section_data(const Section& s) const;
  // A reader over section_data(s), named after the section.
  Reader reader(const Section& s) const { return Reader(section_data(s), s.name, big_endian_); }
  // Computes section_data() of the given sections in parallel (one
  // parallel_for item per section), so a caller about to read all of
  // .debug_info, .debug_abbrev, .debug_str... pays the decompression and
  // relocation of the big ones side by side. The first error (by position in
  // `list`) is thrown. Sections already computed cost nothing.
  void prepare(const std::vector<const Section*>& list) const;
  // True if section_data(s) differs from raw_data(s): s is compressed, or s
  // is a debug section of a relocatable file with relocations aimed at it.
  bool needs_processing(const Section& s) const;

  // Name of e_machine for messages ("x86-64", "AArch64", ... or "machine N").
  static std::string machine_name(uint16_t machine);

  // .symtab (or .dynsym if there is no .symtab); empty if neither exists.
  const std::vector<Symbol>& symbols() const;

  // Relocatable files only: the section index of the allocated section
  // (SHF_ALLOC) whose symbol the absolute relocation applied at `offset` of
  // debug section `s` refers to, or 0 when no such relocation is applied
  // there (the first in file order if several are). Relocated debug
  // sections hold section-relative values (every section sits at address 0
  // in ET_REL), so this is how a DW_OP_addr operand in .debug_info (or an
  // entry of .debug_addr) tells which section the address belongs to, the
  // way libdwfl's layout of the sections does for pahole (a section that is
  // not allocated has no address there).
  uint32_t relocation_section(const Section& s, uint64_t offset) const;
  // Where an absolute relocation against a symbol of an allocated section
  // was applied in a debug section, and that section.
  struct RelocTarget {
    uint64_t offset;
    uint32_t shndx;
  };
  // The section of the first of `targets` (sorted by offset) at `offset`,
  // 0 if none is there: relocation_section()'s search, also over a part's
  // targets (PartRelocator).
  static uint32_t target_section(std::span<const RelocTarget> targets, uint64_t offset);

 private:
  friend class PartRelocator;
  ElfFile() = default;
  struct Cached;
  void parse_header();
  Bytes compute_section_data(const Section& s, Cached& c) const;
  // Contents after decompression only (compression.cc).
  Bytes decompressed_data(const Section& s, std::vector<uint8_t>& owned) const;
  // Applies every relocation section aimed at `s` to `data` (relocate.cc).
  // `fill`, if given, copies the unrelocated bytes [lo, hi) of `s` into
  // `data` (which holds nothing yet): a big relocation section is then
  // applied in chunks on several threads, each filling its own part first;
  // the bytes come out as one pass in entry order makes them. Without
  // `fill`, `data` already holds the bytes and one pass is made. The
  // absolute relocations against symbols of allocated sections go to
  // `targets`, sorted by offset (stable: file order among equal offsets),
  // for relocation_section(): amdgpu.ko has 180k of them among 6M entries,
  // which are read here once and not again.
  void apply_relocations(const Section& s, std::span<uint8_t> data, std::vector<RelocTarget>& targets,
                         const std::function<void(uint64_t lo, uint64_t hi)>& fill = {}) const;

  FileBytes contents_;  // a packed file unpacked, its mapping dropped
  std::string path_;
  Bytes bytes_;  // contents_.bytes
  bool is_64_ = false;
  bool big_endian_ = false;
  uint16_t type_ = 0;
  uint16_t machine_ = 0;
  std::vector<Section> sections_;

  // Each section's processed contents are computed once, under that
  // section's own lock, so threads reading different sections never wait
  // for each other (relocating .debug_info of a big module takes a while).
  std::unique_ptr<Cached[]> cache_;
  // Relocation sections by target section index (ET_REL only).
  std::vector<std::vector<uint32_t>> relocations_for_;

  mutable std::mutex symbols_mu_;
  mutable std::vector<Symbol> symbols_;
  mutable bool symbols_read_ = false;
};

// Relocates a debug section of a relocatable file part by part, each part
// when a reader wants it, instead of the whole section up front: the
// encoder reads each unit of amdgpu.ko's 94 MB .debug_info into a buffer
// of a few hundred kilobytes that stays in cache, relocated there, rather
// than into a 94 MB copy (its page faults, and its memory traffic).
//
//   std::unique_ptr<PartRelocator> parts = PartRelocator::make(elf, s);
//   if (parts) {                        // null: use section_data(s)
//     PartRelocator::Part part;
//     parts->read(lo, hi, part, /*count=*/true);   // part.bytes: [lo, hi) relocated
//     ...
//     if (!parts->complete()) ...       // some relocation was applied by no read
//   }
//
// A part's bytes are those of section_data(s) (a relocation that straddles
// an end of the part writes the bytes inside it), and part.targets are
// what relocation_section(s, offset) answers for offsets in it. The
// entries that touch a part are found through a sample of every 1024th
// entry's offset, which works when the entries are in offset order
// (compilers emit them so). That is not checked up front, which would read
// all of them once more: each counted read checks that the entries it
// looks at are in order and counts those whose offsets lie in its part,
// and complete() says whether every entry was counted, i.e. whether the
// counted parts, which must not overlap, together got every relocation
// (and none straddles two of them). A caller that gets false, or any error
// from read() (the errors section_data() reports, but not necessarily
// the first), uses section_data() instead.
class PartRelocator {
 public:
  // Null unless `s` is an uncompressed debug section of a relocatable file
  // with exactly one relocation section aimed at it, an uncompressed
  // SHT_RELA over the file's .symtab, for a machine whose debug relocations
  // store a value (not RISC-V, whose relocations add to the bytes in
  // place), and the sampled offsets are in order.
  static std::unique_ptr<PartRelocator> make(const ElfFile& elf, const Section& s);

  // A part's bytes and their relocation targets; kept by the caller from
  // read to read, so that the buffers stay allocated (and in cache).
  struct Part {
    UninitVector<uint8_t> bytes;
    std::vector<ElfFile::RelocTarget> targets;  // sorted by offset
    UninitVector<uint8_t> entries;  // the relocation entries read for it (scratch)
  };
  // Reads bytes [lo, hi) of the section (lo <= hi <= its size) into
  // part.bytes, relocated: the bytes with pread, and the entries that may
  // touch them too, into part.entries. Read in place, the mapping's pages
  // fault in 64 KB at a time, each fault an exit to the host on a virtual
  // machine: amdgpu.ko's 143 MB of entries so cost more than reading them. With `count`, the entries whose offsets
  // lie in [lo, hi) are counted for complete(). Safe to call from several
  // threads.
  void read(uint64_t lo, uint64_t hi, Part& part, bool count) const { run(lo, hi, &part, count); }
  // Counts the entries whose offsets lie in [lo, hi) without reading the
  // bytes: for a part no one reads (a unit the encoder skips).
  void count(uint64_t lo, uint64_t hi) const { run(lo, hi, nullptr, true); }
  // Drops the mapped pages of the entries of [lo, hi) (whole pages between
  // samples), after count() of that part: only count() reads the entries
  // in the mapping.
  void release(uint64_t lo, uint64_t hi) const;
  // True if the counted reads together counted every entry.
  bool complete() const {
    return !failed_.load(std::memory_order_relaxed) && counted_.load(std::memory_order_relaxed) == entries_;
  }

 private:
  PartRelocator(const ElfFile& elf, const Section& s, const Section& rel)
      : elf_(elf), s_(s), rel_(rel), rel_name_(rel.name) {}
  // read(), and count() when `part` is null.
  void run(uint64_t lo, uint64_t hi, Part* part, bool count) const;
  // The index of the first sample at or above `offset` (sample_.size() if
  // none): entries from that sample's on have offsets >= `offset`.
  size_t sample_at(uint64_t offset) const {
    return static_cast<size_t>(std::lower_bound(sample_.begin(), sample_.end(), offset) - sample_.begin());
  }

  static constexpr size_t kSample = 1024;  // entries per sampled offset
  const ElfFile& elf_;
  Section s_, rel_;
  std::string rel_name_;
  size_t entsize_ = 0;
  size_t entries_ = 0;
  std::vector<uint64_t> sample_;           // offset of entry k * kSample
  std::vector<uint64_t> values_;           // S of each symbol
  std::vector<uint32_t> alloc_;            // the symbol's section if allocated, else 0
  mutable std::atomic<size_t> counted_{0};
  mutable std::atomic<bool> failed_{false};  // a counted read met entries out of order, or straddling its ends
};

}  // namespace btfc::elf
