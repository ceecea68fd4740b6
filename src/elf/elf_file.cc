// ELF header, section header and symbol table parsing. Section contents that
// need work before use (compression, relocation) are produced in
// compute_section_data and cached per section; the work itself lives in
// compression.cc and relocate.cc.
#include "elf/elf_file.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "base/parallel.h"
#include "base/prefault.h"

namespace btfc::elf {

// One slot per section. `ready` is read without the lock on the fast path
// (acquire/release pairs with the store after computing), so readers of an
// already computed section never contend on anything.
struct ElfFile::Cached {
  std::mutex mu;
  std::atomic<bool> ready{false};
  Bytes data;
  std::vector<uint8_t> owned;  // decompressed contents (relocated in place)
  PageBuffer copy;             // an uncompressed section's relocated copy
  std::vector<ElfFile::RelocTarget> targets;  // relocation_section()'s answers
};

ElfFile::~ElfFile() = default;

void ElfFile::discard(Bytes range) const {
  if (!cache_) return;
  for (size_t i = 0; i < sections_.size(); i++)
    if (cache_[i].ready.load(std::memory_order_acquire)) cache_[i].copy.discard(range);
}

namespace {
constexpr char kHeader[] = "ELF header";
constexpr char kSectionHeaders[] = "section headers";
}  // namespace

std::unique_ptr<ElfFile> ElfFile::open(const std::string& path) { return parse(FileBytes::open(path), path); }

std::unique_ptr<ElfFile> ElfFile::parse(FileBytes contents, std::string path) {
  std::unique_ptr<ElfFile> f(new ElfFile);
  f->contents_ = std::move(contents);
  f->path_ = std::move(path);
  f->bytes_ = f->contents_.bytes;
  try {
    f->parse_header();
  } catch (Error& e) {
    throw e.with_file(f->path_);
  }
  return f;
}

void ElfFile::read_ahead(std::span<const std::string_view> names) const {
  std::vector<char> wanted(sections_.size(), 0);
  auto want = [&](uint64_t i) {
    if (i < wanted.size()) wanted[i] = 1;
  };
  // Every section of the name (.debug_types may come in several), else
  // the one find_section finds for it (.zdebug_X for .debug_X), as the
  // readers look them up.
  for (std::string_view name : names) {
    bool found = false;
    for (const Section& s : sections_)
      if (s.name == name) {
        want(s.index);
        found = true;
      }
    if (const Section* s = found ? nullptr : find_section(name)) want(s->index);
  }
  for (const Section& s : sections_)
    if ((s.type == SHT_RELA || s.type == SHT_REL) && s.info < wanted.size() && wanted[s.info]) {
      want(s.index);
      want(s.link);  // the symbol table
      if (s.link < sections_.size()) want(sections_[s.link].link);  // its names
    }
  std::vector<ReadAhead::Range> ranges;
  for (const Section& s : sections_)
    if (wanted[s.index] && s.type != SHT_NOBITS) ranges.push_back({s.offset, s.size});
  contents_.file.read_ahead(std::move(ranges));
}

std::unique_ptr<ElfFile> ElfFile::parse(Bytes bytes, std::string name) {
  FileBytes contents;
  try {
    contents = FileBytes::of(bytes);
  } catch (Error& e) {
    throw e.with_file(name);
  }
  return parse(std::move(contents), std::move(name));
}

bool is_elf(Bytes bytes) { return bytes.size() >= 4 && std::memcmp(bytes.data(), "\x7f" "ELF", 4) == 0; }

void ElfFile::parse_header() {
  Reader r(bytes_, kHeader, false);
  if (!is_elf(bytes_)) throw Error(kHeader, 0, "not an ELF file (bad magic)");
  if (bytes_.size() < 16)
    throw Error(kHeader, 0, "ELF header is truncated (" + std::to_string(bytes_.size()) + " bytes)");
  uint8_t cls = bytes_[4], data = bytes_[5];
  if (cls != 1 && cls != 2) throw Error(kHeader, 4, "bad ELF class " + std::to_string(cls));
  if (data != 1 && data != 2) throw Error(kHeader, 5, "bad ELF data encoding " + std::to_string(data));
  if (size_t need = cls == 2 ? 64 : 52; bytes_.size() < need)
    throw Error(kHeader, 0,
                "ELF header is truncated (" + std::to_string(bytes_.size()) + " bytes, need " + std::to_string(need) + ")");
  is_64_ = cls == 2;
  big_endian_ = data == 2;
  r = Reader(bytes_, kHeader, big_endian_);
  r.seek(16);
  type_ = r.u16();
  machine_ = r.u16();
  r.u32();  // e_version
  uint64_t shoff;
  if (is_64_) {
    r.u64();  // e_entry
    r.u64();  // e_phoff
    shoff = r.u64();
  } else {
    r.u32();
    r.u32();
    shoff = r.u32();
  }
  r.u32();  // e_flags
  r.u16();  // e_ehsize
  r.u16();  // e_phentsize
  r.u16();  // e_phnum
  uint16_t shentsize = r.u16();
  uint64_t shnum = r.u16();
  uint32_t shstrndx = r.u16();
  if (shoff == 0) return;  // no section headers at all
  size_t want = is_64_ ? 64 : 40;
  if (shentsize < want) throw Error(kHeader, is_64_ ? 58 : 46, "bad section header size " + std::to_string(shentsize));

  Reader all(bytes_, kSectionHeaders, big_endian_);
  auto read_header = [&](uint64_t i) {
    if (shoff > bytes_.size() || i >= (bytes_.size() - shoff) / shentsize)
      throw Error(kSectionHeaders, shoff + i * shentsize, "section header " + std::to_string(i) + " is outside the file");
    Reader h = all.sub(shoff + i * shentsize, shentsize);
    Section s;
    s.index = static_cast<uint32_t>(i);
    // Elf32_Shdr and Elf64_Shdr differ only in the width of the address-
    // and size-like fields (sh_flags, sh_addr, ... sh_entsize).
    auto word = [&]() -> uint64_t { return is_64_ ? h.u64() : h.u32(); };
    uint32_t name = h.u32();
    s.type = h.u32();
    s.flags = word();
    s.addr = word();
    s.offset = word();
    s.size = word();
    s.link = h.u32();
    s.info = h.u32();
    s.addralign = word();
    s.entsize = word();
    return std::make_pair(s, name);
  };

  // Extended numbering: section 0 holds the real count and string table index.
  auto [first, first_name] = read_header(0);
  if (shnum == 0) shnum = first.size;
  if (shstrndx == SHN_XINDEX) shstrndx = first.link;
  if (shnum > (bytes_.size() - std::min<uint64_t>(shoff, bytes_.size())) / shentsize)
    throw Error(kSectionHeaders, shoff, std::to_string(shnum) + " section headers do not fit in the file");

  std::vector<uint32_t> names(shnum);
  sections_.resize(shnum);
  for (uint64_t i = 0; i < shnum; i++) {
    auto [s, name] = read_header(i);
    sections_[i] = s;
    names[i] = name;
    if (s.type != SHT_NOBITS && (s.offset > bytes_.size() || s.size > bytes_.size() - s.offset))
      throw Error(kSectionHeaders, shoff + i * shentsize,
                  "section " + std::to_string(i) + " lies outside the file");
  }
  if (shstrndx >= shnum) throw Error(kHeader, 0, "section name table index " + std::to_string(shstrndx) + " out of range");
  const Section& strtab = sections_[shstrndx];
  Reader names_reader(raw_data(strtab), ".shstrtab", big_endian_);
  for (uint64_t i = 0; i < shnum; i++) {
    if (names[i] >= names_reader.size()) {
      if (i == 0 && names[i] == 0) continue;
      throw Error(".shstrtab", names[i], "name of section " + std::to_string(i) + " is outside .shstrtab");
    }
    Reader n = names_reader;
    n.seek(names[i]);
    sections_[i].name = n.cstr();
  }
  cache_ = std::make_unique<Cached[]>(shnum);
  relocations_for_.resize(shnum);
  if (type_ == ET_REL)
    for (const Section& s : sections_)
      if ((s.type == SHT_RELA || s.type == SHT_REL) && s.info > 0 && s.info < shnum)
        relocations_for_[s.info].push_back(s.index);
}

std::string ElfFile::machine_name(uint16_t machine) {
  switch (machine) {
    case 3: return "i386";
    case 8: return "MIPS";
    case 20: return "PowerPC";
    case 21: return "PowerPC64";
    case 22: return "s390";
    case 40: return "ARM";
    case 62: return "x86-64";
    case 183: return "AArch64";
    case 243: return "RISC-V";
    default: return "machine " + std::to_string(machine);
  }
}

const Section* ElfFile::find_section_exact(std::string_view name) const {
  for (const Section& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

const Section* ElfFile::find_section(std::string_view name) const {
  if (const Section* s = find_section_exact(name)) return s;
  constexpr std::string_view kDebug = ".debug_";
  if (name.substr(0, kDebug.size()) == kDebug) {
    std::string z = ".zdebug_";
    z += name.substr(kDebug.size());
    return find_section_exact(z);
  }
  return nullptr;
}

namespace {
bool is_debug_name(std::string_view name) {
  return name.starts_with(".debug_") || name.starts_with(".zdebug_");
}
}  // namespace

bool ElfFile::needs_processing(const Section& s) const {
  if (s.type == SHT_NOBITS) return false;
  if ((s.flags & SHF_COMPRESSED) || s.name.starts_with(".zdebug_")) return true;
  return type_ == ET_REL && is_debug_name(s.name) && !relocations_for_[s.index].empty();
}

Bytes ElfFile::raw_data(const Section& s) const {
  if (s.type == SHT_NOBITS) return {};
  return bytes_.subspan(s.offset, s.size);
}

Bytes ElfFile::section_data(const Section& s) const {
  // Callers may pass a copy of a Section; the index picks our slot.
  if (s.index >= sections_.size())
    throw Error(std::string(s.name), 0, "not a section of this file").with_file(path_);
  const Section& sec = sections_[s.index];
  if (!needs_processing(sec)) return raw_data(sec);
  Cached& c = cache_[sec.index];
  if (c.ready.load(std::memory_order_acquire)) return c.data;
  std::lock_guard lock(c.mu);
  if (!c.ready.load(std::memory_order_relaxed)) {
    // On error nothing is cached: the next call recomputes and throws the
    // same error, which keeps the message independent of who asked first.
    try {
      c.data = compute_section_data(sec, c);
    } catch (Error& e) {
      c.owned.clear();
      c.copy.reset();
      throw e.with_file(path_);
    }
    c.ready.store(true, std::memory_order_release);
  }
  return c.data;
}

Bytes ElfFile::compute_section_data(const Section& s, Cached& c) const {
  Bytes data = decompressed_data(s, c.owned);
  if (type_ != ET_REL || !is_debug_name(s.name) || relocations_for_[s.index].empty()) return data;
  std::span<uint8_t> out = c.owned;
  std::function<void(uint64_t, uint64_t)> fill;
  if (c.owned.empty() && !data.empty()) {
    // Not compressed: relocate a copy, read from the file rather than the
    // mapping so the original's pages are never mapped (see MappedFile::read).
    c.copy = PageBuffer(data.size());
    // Its small pages present in one call, not one fault each (an exit to
    // the host on a virtual machine): amdgpu.ko's .debug_loclists and
    // .debug_rnglists, 1.4k of its 4.2k faults, read phase 0.104 -> 0.095 s.
    prefault(c.copy.data(), c.copy.size());
    out = c.copy.span();
    fill = [&](uint64_t lo, uint64_t hi) { copy_out(data.data() + lo, out.subspan(lo, hi - lo)); };
  }
  apply_relocations(s, out, c.targets, fill);
  // The relocations are read once (amdgpu.ko: 143 MB of .rela.debug_info):
  // drop their pages. A decompressed copy is not part of the mapping.
  for (uint32_t ri : relocations_for_[s.index]) {
    std::vector<uint8_t> unused;
    if (!(sections_[ri].flags & SHF_COMPRESSED)) release(decompressed_data(sections_[ri], unused));
  }
  return out;
}

uint32_t ElfFile::relocation_section(const Section& s, uint64_t offset) const {
  if (type_ != ET_REL || s.index >= sections_.size()) return 0;
  section_data(s);  // checks every relocation (and throws as it does)
  Cached& c = cache_[s.index];
  if (!c.ready.load(std::memory_order_acquire)) return 0;
  return target_section(c.targets, offset);
}

uint32_t ElfFile::target_section(std::span<const RelocTarget> targets, uint64_t offset) {
  auto it = std::lower_bound(targets.begin(), targets.end(), offset,
                             [](const RelocTarget& t, uint64_t off) { return t.offset < off; });
  return it != targets.end() && it->offset == offset ? it->shndx : 0;
}

void ElfFile::prepare(const std::vector<const Section*>& list) const {
  parallel_for(list.size(), [&](size_t i) {
    if (list[i]) section_data(*list[i]);
  });
}

const std::vector<Symbol>& ElfFile::symbols() const {
  std::lock_guard lock(symbols_mu_);
  if (symbols_read_) return symbols_;
  const Section* symtab = nullptr;
  for (const Section& s : sections_)
    if (s.type == SHT_SYMTAB) symtab = &s;
  if (!symtab)
    for (const Section& s : sections_)
      if (s.type == SHT_DYNSYM) symtab = &s;
  if (!symtab) {
    symbols_read_ = true;
    return symbols_;
  }
  try {
    if (symtab->link >= sections_.size())
      throw Error(std::string(symtab->name), 0, "string table index " + std::to_string(symtab->link) + " out of range");
    Reader strings(raw_data(sections_[symtab->link]), sections_[symtab->link].name, big_endian_);
    // The section indexes SHN_XINDEX stands for (a file of more than
    // 65,279 sections), a word per symbol.
    std::optional<Reader> xindex;
    for (const Section& s : sections_)
      if (s.type == SHT_SYMTAB_SHNDX && s.link == symtab->index) xindex.emplace(raw_data(s), s.name, big_endian_);
    Reader r(raw_data(*symtab), symtab->name, big_endian_);
    size_t entsize = is_64_ ? 24 : 16;
    size_t n = r.size() / entsize;
    symbols_.resize(n);
    // In chunks, in parallel: vmlinux has 130k symbols, read while the
    // units are (the lowest chunk's error is the first symbol's, as in
    // one pass).
    constexpr size_t kChunk = 16384;
    parallel_for_ranges(0, n, kChunk, [&](size_t lo, size_t hi) {
      for (size_t i = lo; i < hi; i++) {
        Reader e = r.sub(i * entsize, entsize);
        Symbol& sym = symbols_[i];
        uint32_t name = e.u32();
        uint8_t info;
        uint16_t shndx;
        if (is_64_) {
          info = e.u8();
          sym.other = e.u8();
          shndx = e.u16();
          sym.value = e.u64();
          sym.size = e.u64();
        } else {
          sym.value = e.u32();
          sym.size = e.u32();
          info = e.u8();
          sym.other = e.u8();
          shndx = e.u16();
        }
        sym.type = info & 0xf;
        sym.bind = info >> 4;
        sym.shndx = shndx;
        if (shndx == SHN_XINDEX && xindex) {
          Reader x = *xindex;
          x.seek(i * 4);
          sym.shndx = x.u32();
        }
        if (name >= strings.size()) {
          if (name == 0) continue;
          r.fail_at(i * entsize, "the name of symbol " + std::to_string(i) + " (" + hex(name) + ") lies outside " +
                                     std::string(strings.section()) + " (" + hex(strings.size()) + " bytes)");
        }
        Reader s = strings;
        s.seek(name);
        sym.name = s.cstr();
      }
    });
  } catch (Error& e) {
    symbols_.clear();
    throw e.with_file(path_);
  }
  symbols_read_ = true;
  return symbols_;
}

}  // namespace btfc::elf
