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
#include <span>
#include <string>
#include <vector>

#include "base/atomic_file.h"

namespace btfc::elf {

namespace {

constexpr char kHeader[] = "ELF header";

uint64_t align_up(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

}  // namespace

SectionWrite plan_with_sections(const ElfFile& in, std::span<const NewSection> news, std::string_view retire) {
  SectionWrite w;
  std::vector<Bytes>& pieces = w.pieces;
  std::vector<uint8_t>&header = w.header, &names = w.names, &table = w.table;
  try {
    const Bytes file = in.bytes();
    const bool is64 = in.is_64(), be = in.big_endian();
    const auto& sections = in.sections();
    if (news.empty()) throw Error("no section to write");
    if (sections.empty())
      throw Error(kHeader, 0, "the file has no section headers to add " + std::string(news[0].name) + " to");

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
      throw Error(kHeader, is64 ? 62 : 50, "no section name table to name " + std::string(news[0].name) + " in");
    const Section& shstrtab = sections[shstrndx];
    const uint64_t max_offset = is64 ? ~uint64_t{0} : 0xffffffffu;

    // What becomes of each section written: rewritten where it is (its
    // bytes fit), moved to the end, or added there.
    struct Target {
      NewSection what;
      const Section* old;  // null: a new section
      bool in_place, placeholder;
      uint64_t offset = 0, align = 4, name_index = 0;
    };
    std::vector<Target> targets;
    size_t added = 0;
    for (const NewSection& n : news) {
      const std::string name(n.name);
      if (name.empty() || name.find('\0') != std::string::npos) throw Error("bad section name");
      for (const Target& t : targets)
        if (t.what.name == n.name) throw Error("section " + name + " given twice");
      const Section* old = in.find_section_exact(n.name);
      if (old && old->index == shstrndx) throw Error("cannot replace the section name table");
      if (old && old->index == 0) throw Error(kHeader, 0, "section 0 (reserved) is named " + name);
      const bool alloc = old && (old->flags & SHF_ALLOC);
      const bool in_place = old && old->type != SHT_NOBITS && n.data.size() <= old->size;
      if (in_place && old->offset < header_size) throw Error(name, 0, "section overlaps the ELF header");
      if (in_place) {
        // Rewriting where it is must not write over another section (a
        // hostile header can make the section cover the name table).
        for (const Section& s : sections) {
          if (&s == old || s.index == 0 || s.type == SHT_NOBITS || s.size == 0) continue;
          if (s.offset < old->offset + old->size && old->offset < s.offset + s.size)
            throw Error(name, 0,
                        "section " + name + " overlaps section " + std::to_string(s.index) +
                            "; it cannot be rewritten in place");
        }
      }
      // An empty allocated section is a placeholder: ld.lld keeps the
      // kernel linker script's `.BTF : { KEEP(*(.BTF)) }` in
      // .tmp_vmlinux.btf with no bytes, for pahole to fill and objcopy to
      // take out. It becomes what GNU ld's output gets instead, a section
      // that is not loaded (no SHF_ALLOC, address 0), its contents at the
      // end of the file: the segments, which held none of its bytes, are
      // unchanged, and no loaded address now lies in two sections (at its
      // old address, with its new size, it would cover the sections after
      // it: on arm64, .data..percpu, whose variables the next read of the
      // file would then not find). A non-empty one would leave its old
      // bytes in the segment: refused.
      const bool placeholder = alloc && !in_place && old->size == 0;
      if (alloc && !in_place && !placeholder)
        throw Error(name, 0,
                    "cannot grow allocated section " + name + " (" + std::to_string(old->size) +
                        " bytes, new contents " + std::to_string(n.data.size()) + "): it lies in a loaded segment");
      targets.push_back({n, old, in_place, placeholder});
      if (!old) added++;
    }
    auto moved = [&](const Section& s) {
      for (const Target& t : targets)
        if (t.old == &s) return !t.in_place;
      return false;
    };
    const Section* retired = retire.empty() ? nullptr : in.find_section_exact(retire);
    for (const Target& t : targets)
      if (t.what.name == retire) retired = nullptr;
    if (retired && (retired->index == 0 || retired->index == shstrndx || (retired->flags & SHF_ALLOC)))
      retired = nullptr;  // not a section that can go quietly

    // Bytes that stay where they are: everything any header points at,
    // except the sections moved and a .shstrtab that grows.
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
    for (const Section& s : sections) {
      if (s.type == SHT_NOBITS) continue;
      if (s.size == 0) {
        // An empty section still points into the file: keep its offset in.
        keep_end = std::max(keep_end, s.offset);
        continue;
      }
      if (moved(s) || &s == retired) continue;
      if (s.index == shstrndx && added) continue;
      keep_end = std::max(keep_end, s.offset + s.size);
    }
    keep_end = std::min<uint64_t>(keep_end, file.size());

    // Pieces of the output, in order; `at` is the output offset so far.
    static const std::array<uint8_t, 4096> zeros{};
    uint64_t at = 0;
    auto zero_fill = [&](uint64_t n) {
      while (n) {
        const uint64_t piece = std::min<uint64_t>(n, zeros.size());
        pieces.push_back(Bytes(zeros.data(), piece));
        n -= piece;
      }
    };
    auto pad_to = [&](uint64_t a) {
      const uint64_t to = align_up(at, a);
      zero_fill(to - at);
      at = to;
    };

    header.assign(file.begin(), file.begin() + header_size);
    pieces.push_back(header);
    // The kept bytes, with the sections rewritten where they are (in file
    // order; they overlap no other section): up to each, its new contents,
    // zeros for what they no longer cover, and on.
    std::vector<Target*> in_place;
    for (Target& t : targets)
      if (t.in_place) in_place.push_back(&t);
    std::sort(in_place.begin(), in_place.end(), [](const Target* a, const Target* b) {
      return a->old->offset < b->old->offset;
    });
    uint64_t copied = header_size;
    for (Target* t : in_place) {
      pieces.push_back(file.subspan(copied, t->old->offset - copied));
      pieces.push_back(t->what.data);
      zero_fill(t->old->size - t->what.data.size());
      t->offset = t->old->offset;
      copied = t->old->offset + t->old->size;
    }
    if (keep_end > copied) pieces.push_back(file.subspan(copied, keep_end - copied));
    at = std::max(keep_end, copied);

    uint64_t names_offset = shstrtab.offset;
    if (added) {
      Bytes old = in.raw_data(shstrtab);
      names.assign(old.begin(), old.end());
      for (Target& t : targets) {
        if (t.old) continue;
        t.name_index = names.size();
        names.insert(names.end(), t.what.name.begin(), t.what.name.end());
        names.push_back(0);
      }
      names_offset = at;
      pieces.push_back(names);
      at += names.size();
    }
    for (Target& t : targets) {
      if (t.in_place) continue;
      if (t.old && t.old->addralign > 1) {
        // Keep the section's own alignment if sane; huge values are not
        // worth megabytes of padding in a non-loaded section.
        t.align = std::has_single_bit(t.old->addralign) ? std::min<uint64_t>(t.old->addralign, 4096) : 4;
      }
      pad_to(t.align);
      t.offset = at;
      pieces.push_back(t.what.data);
      at += t.what.data.size();
      if (t.offset > max_offset || t.what.data.size() > max_offset)
        throw Error("the output does not fit the offsets of a 32-bit ELF file");
    }

    pad_to(is64 ? 8 : 4);
    const uint64_t new_shoff = at;
    const uint64_t count = sections.size() + added;
    if (new_shoff > max_offset) throw Error("the output does not fit the offsets of a 32-bit ELF file");
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
    if (added) {
      put(shstrndx, 24, 16, names_offset);
      put(shstrndx, 32, 20, names.size());
    }
    uint64_t next_index = sections.size();
    for (const Target& t : targets) {
      if (!t.old) {
        const uint64_t i = next_index++;
        put32(i, 0, static_cast<uint32_t>(t.name_index));
        put32(i, 4, SHT_PROGBITS);
        put(i, 24, 16, t.offset);
        put(i, 32, 20, t.what.data.size());
        put(i, 48, 32, 4);
        continue;
      }
      const uint64_t i = t.old->index;
      if (t.old->type == SHT_NOBITS) put32(i, 4, SHT_PROGBITS);
      // The new bytes are plain.
      put(i, 8, 8, t.old->flags & ~(SHF_COMPRESSED | (t.placeholder ? SHF_ALLOC : 0)));
      if (t.placeholder) put(i, 16, 12, 0);  // sh_addr
      put(i, 24, 16, t.offset);
      put(i, 32, 20, t.what.data.size());
      if (!t.in_place) put(i, 48, 32, t.align);
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

void write_with_sections(const ElfFile& in, std::span<const NewSection> sections, const std::string& out_path,
                         std::string_view retire) {
  SectionWrite w = plan_with_sections(in, sections, retire);
  // I/O errors name out_path themselves. The spans of the input are copied
  // by the kernel: amdgpu.ko's 595 MB through write() from the mapping
  // cost 0.6-1.4 s and as much resident memory.
  write_pieces_atomic(out_path, w.pieces, [&in](int fd, Bytes piece) { return in.copy_to(fd, piece); });
}

}  // namespace btfc::elf

