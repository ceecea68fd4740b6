// The section writer (see write_section.h). The output is a list of pieces,
// mostly spans of the mapped input, handed to write_pieces_atomic, which has
// the kernel copy those (copy_file_range): rewriting a 600 MB vmlinux
// copies it once within the page cache, never through this process, and
// allocates only the new section header table and string table.
//
// Layout: the input up to the end of the last byte that must stay where it
// is (header, program headers, segments, sections other than the rewritten
// ones), then the new .shstrtab if it grew, then the section's data if it
// moves, then the section header table.
#include "elf/write_section.h"

#include <algorithm>
#include <array>
#include <bit>
#include <vector>

#include "base/atomic_file.h"

namespace btfc::elf {

namespace {

constexpr char kHeader[] = "ELF header";

uint64_t align_up(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

}  // namespace

SectionWrite plan_with_section(const ElfFile& in, std::string_view name, Bytes data, std::string_view retire) {
  SectionWrite w;
  std::vector<Bytes>& pieces = w.pieces;
  std::vector<uint8_t>&header = w.header, &names = w.names, &table = w.table;
  try {
    const Bytes file = in.bytes();
    const bool is64 = in.is_64(), be = in.big_endian();
    const auto& sections = in.sections();
    if (sections.empty()) throw Error(kHeader, 0, "the file has no section headers to add " + std::string(name) + " to");
    if (name.empty() || name.find('\0') != std::string_view::npos) throw Error("bad section name");

    // Header fields the reader does not keep. ElfFile::parse checked the
    // header is complete.
    Reader h(file, kHeader, be);
    h.seek(is64 ? 32 : 28);
    const uint64_t phoff = is64 ? h.u64() : h.u32();
    const uint64_t shoff = is64 ? h.u64() : h.u32();
    h.u32();  // e_flags
    const uint16_t ehsize = h.u16();
    const uint16_t phentsize = h.u16();
    const uint16_t phnum = h.u16();
    const uint16_t shentsize = h.u16();
    const uint16_t e_shnum = h.u16();
    const uint16_t e_shstrndx = h.u16();
    const uint32_t shstrndx = e_shstrndx == SHN_XINDEX ? sections[0].link : e_shstrndx;
    const size_t header_size = is64 ? 64 : 52;
    // Section 0 is reserved (with extended numbering its sh_size is the
    // section count, which would cut a name table there short).
    if (shstrndx == 0 || shstrndx >= sections.size())
      throw Error(kHeader, is64 ? 62 : 50, "no section name table to name " + std::string(name) + " in");
    const Section& shstrtab = sections[shstrndx];
    const Section* target = in.find_section_exact(name);
    if (target && target->index == shstrndx) throw Error("cannot replace the section name table");
    if (target && target->index == 0) throw Error(kHeader, 0, "section 0 (reserved) is named " + std::string(name));
    const uint64_t max_offset = is64 ? ~uint64_t{0} : 0xffffffffu;
    const Section* retired = retire.empty() || retire == name ? nullptr : in.find_section_exact(retire);
    if (retired && (retired->index == 0 || retired->index == shstrndx || (retired->flags & SHF_ALLOC)))
      retired = nullptr;  // not a section that can go quietly

    // Bytes that stay where they are: everything any header points at,
    // except the section being rewritten and a .shstrtab that grows.
    uint64_t keep_end = std::max<uint64_t>(ehsize, header_size);
    if (phnum) {
      if (phoff > file.size() || uint64_t{phnum} * phentsize > file.size() - phoff)
        throw Error(kHeader, is64 ? 32 : 28, "program headers lie outside the file");
      keep_end = std::max(keep_end, phoff + uint64_t{phnum} * phentsize);
      for (uint16_t i = 0; i < phnum; i++) {
        Reader p = Reader(file, "program headers", be).sub(phoff + uint64_t{i} * phentsize, phentsize);
        uint64_t off, filesz;
        if (is64) {
          p.skip(8);
          off = p.u64();
          p.skip(16);
          filesz = p.u64();
        } else {
          p.skip(4);
          off = p.u32();
          p.skip(8);
          filesz = p.u32();
        }
        if (filesz == 0) continue;
        if (off > file.size() || filesz > file.size() - off)
          throw Error("program headers", phoff + uint64_t{i} * phentsize,
                      "segment " + std::to_string(i) + " lies outside the file");
        keep_end = std::max(keep_end, off + filesz);
      }
    }
    const bool new_section = target == nullptr;
    const bool alloc = target && (target->flags & SHF_ALLOC);
    const bool in_place = target && target->type != SHT_NOBITS && data.size() <= target->size;
    if (in_place && target->offset < header_size)
      throw Error(std::string(name), 0, "section overlaps the ELF header");
    if (in_place) {
      // Rewriting where it is must not write over another section (a
      // hostile header can make the section cover the name table).
      for (const Section& s : sections) {
        if (&s == target || s.index == 0 || s.type == SHT_NOBITS || s.size == 0) continue;
        if (s.offset < target->offset + target->size && target->offset < s.offset + s.size)
          throw Error(std::string(name), 0,
                      "section " + std::string(name) + " overlaps section " + std::to_string(s.index) +
                          "; it cannot be rewritten in place");
      }
    }
    // An empty allocated section is a placeholder: ld.lld keeps the kernel
    // linker script's `.BTF : { KEEP(*(.BTF)) }` in .tmp_vmlinux.btf with
    // no bytes, for pahole to fill and objcopy to take out. It becomes what
    // GNU ld's output gets instead, a section that is not loaded (no
    // SHF_ALLOC, address 0), its contents at the end of the file: the
    // segments, which held none of its bytes, are unchanged, and no loaded
    // address now lies in two sections (at its old address, with its new
    // size, it would cover the sections after it: on arm64, .data..percpu,
    // whose variables the next read of the file would then not find).
    // A non-empty one would leave its old bytes in the segment: refused.
    const bool placeholder = alloc && !in_place && target->size == 0;
    if (alloc && !in_place && !placeholder)
      throw Error(std::string(name), 0,
                  "cannot grow allocated section " + std::string(name) + " (" + std::to_string(target->size) +
                      " bytes, new contents " + std::to_string(data.size()) +
                      "): it lies in a loaded segment");
    for (const Section& s : sections) {
      if (s.type == SHT_NOBITS) continue;
      if (s.size == 0) {
        // An empty section still points into the file: keep its offset in.
        keep_end = std::max(keep_end, s.offset);
        continue;
      }
      if (&s == target && !in_place) continue;
      if (&s == retired) continue;
      if (s.index == shstrndx && new_section) continue;
      keep_end = std::max(keep_end, s.offset + s.size);
    }
    keep_end = std::min<uint64_t>(keep_end, file.size());

    // Pieces of the output, in order; `at` is the output offset so far.
    static const std::array<uint8_t, 4096> zeros{};
    uint64_t at = 0;
    auto pad_to = [&](uint64_t a) {
      uint64_t to = align_up(at, a);
      while (at < to) {
        uint64_t n = std::min<uint64_t>(to - at, zeros.size());
        pieces.push_back(Bytes(zeros.data(), n));
        at += n;
      }
    };

    header.assign(file.begin(), file.begin() + header_size);
    pieces.push_back(header);
    uint64_t section_offset = target ? target->offset : 0;
    if (in_place) {
      // Copy up to the section, the new contents, zeros for what they no
      // longer cover, then the rest.
      pieces.push_back(file.subspan(header_size, target->offset - header_size));
      pieces.push_back(data);
      for (uint64_t left = target->size - data.size(); left;) {
        uint64_t n = std::min<uint64_t>(left, zeros.size());
        pieces.push_back(Bytes(zeros.data(), n));
        left -= n;
      }
      pieces.push_back(file.subspan(target->offset + target->size, keep_end - (target->offset + target->size)));
    } else {
      pieces.push_back(file.subspan(header_size, keep_end - header_size));
    }
    at = keep_end;

    uint64_t names_offset = shstrtab.offset, name_index = 0;
    if (new_section) {
      Bytes old = in.raw_data(shstrtab);
      names.assign(old.begin(), old.end());
      name_index = names.size();
      names.insert(names.end(), name.begin(), name.end());
      names.push_back(0);
      names_offset = at;
      pieces.push_back(names);
      at += names.size();
    }
    uint64_t align = 4;
    if (!in_place) {
      if (target && target->addralign > 1) {
        // Keep the section's own alignment if sane; huge values are not
        // worth megabytes of padding in a non-loaded section.
        align = std::has_single_bit(target->addralign) ? std::min<uint64_t>(target->addralign, 4096) : 4;
      }
      pad_to(align);
      section_offset = at;
      pieces.push_back(data);
      at += data.size();
    }

    pad_to(is64 ? 8 : 4);
    const uint64_t new_shoff = at;
    const uint64_t count = sections.size() + (new_section ? 1 : 0);
    if (new_shoff > max_offset || section_offset > max_offset || data.size() > max_offset)
      throw Error("the output does not fit the offsets of a 32-bit ELF file");
    table.assign(count * shentsize, 0);
    Reader table_in(file, "section headers", be);
    for (const Section& s : sections) {
      Bytes old = table_in.sub(shoff + uint64_t{s.index} * shentsize, shentsize).bytes();
      std::copy(old.begin(), old.end(), table.begin() + uint64_t{s.index} * shentsize);
    }
    auto put = [&](uint64_t index, unsigned field64, unsigned field32, uint64_t v) {
      uint8_t* p = table.data() + index * shentsize + (is64 ? field64 : field32);
      if (is64) {
        store<uint64_t>(p, v, be);
      } else {
        store<uint32_t>(p, static_cast<uint32_t>(v), be);
      }
    };
    auto put32 = [&](uint64_t index, unsigned field, uint32_t v) {
      store<uint32_t>(table.data() + index * shentsize + field, v, be);
    };
    // Field offsets (ELF64, ELF32): sh_name 0, sh_type 4, sh_flags (8, 8),
    // sh_addr (16, 12), sh_offset (24, 16), sh_size (32, 20), sh_link (40,
    // 24), sh_info (44, 28), sh_addralign (48, 32), sh_entsize (56, 36).
    if (new_section) {
      put(shstrndx, 24, 16, names_offset);
      put(shstrndx, 32, 20, names.size());
      uint64_t i = sections.size();
      put32(i, 0, static_cast<uint32_t>(name_index));
      put32(i, 4, SHT_PROGBITS);
      put(i, 24, 16, section_offset);
      put(i, 32, 20, data.size());
      put(i, 48, 32, 4);
    } else {
      uint64_t i = target->index;
      if (target->type == SHT_NOBITS) put32(i, 4, SHT_PROGBITS);
      put(i, 8, 8, target->flags & ~(SHF_COMPRESSED | (placeholder ? SHF_ALLOC : 0)));  // the new bytes are plain
      if (placeholder) put(i, 16, 12, 0);  // sh_addr
      put(i, 24, 16, section_offset);
      put(i, 32, 20, data.size());
      if (!in_place) put(i, 48, 32, align);
    }
    if (retired) {
      const uint64_t i = retired->index;
      std::fill_n(table.begin() + i * shentsize, shentsize, uint8_t{0});  // SHT_NULL, no name, no bytes
    }
    // Extended numbering: from SHN_LORESERVE sections on, e_shnum is 0 and
    // section 0's sh_size holds the count.
    constexpr uint64_t SHN_LORESERVE = 0xff00;
    if (count >= SHN_LORESERVE || e_shnum == 0) put(0, 32, 20, count);
    store<uint16_t>(header.data() + (is64 ? 60 : 48), count >= SHN_LORESERVE ? 0 : static_cast<uint16_t>(count), be);
    if (is64) {
      store<uint64_t>(header.data() + 40, new_shoff, be);
    } else {
      store<uint32_t>(header.data() + 32, static_cast<uint32_t>(new_shoff), be);
    }
    pieces.push_back(table);
  } catch (Error& e) {
    throw e.with_file(in.path());
  }
  return w;
}

void write_with_section(const ElfFile& in, std::string_view name, Bytes data, const std::string& out_path,
                        std::string_view retire) {
  SectionWrite w = plan_with_section(in, name, data, retire);
  // I/O errors name out_path themselves. The spans of the input are copied
  // by the kernel: amdgpu.ko's 595 MB through write() from the mapping
  // cost 0.6-1.4 s and as much resident memory.
  write_pieces_atomic(out_path, w.pieces, [&in](int fd, Bytes piece) { return in.copy_to(fd, piece); });
}

}  // namespace btfc::elf
