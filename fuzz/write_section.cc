// Fuzz target: the in-place writer (`btfc encode FILE` without a detached
// output) on a hostile ELF file. The first byte picks the section to write
// (.BTF, new or replaced; .BTF.base; .debug_info, replaced where it is or
// moved; the name table itself, refused), how many bytes it gets, and
// whether .BTF.base is retired beside it (a plain .BTF's write). The
// output is planned in memory (elf::plan_with_section), never written: it
// must be refused with btfc::Error, or be an ELF file that parses and
// holds exactly the new bytes in that section, with every other section's
// bytes unchanged. Never a crash, a hang or unbounded memory. Seeds: those
// of elf_file.
#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/reader.h"
#include "elf/elf_file.h"
#include "elf/write_section.h"

using namespace btfc;

namespace {
// A broken promise of the writer: say which, then crash for the fuzzer.
void check(bool ok, const char* what, size_t index = 0) {
  if (ok) return;
  std::fprintf(stderr, "write_section: %s (section %zu)\n", what, index);
  __builtin_trap();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const char* const kNames[] = {".BTF", ".BTF.base", ".debug_info", ".shstrtab"};
  const char* name = kNames[data[0] & 3];
  std::vector<uint8_t> contents(((data[0] >> 2) & 31) * 37);
  const std::string_view retire = data[0] & 0x80 ? ".BTF.base" : "";
  for (size_t i = 0; i < contents.size(); i++) contents[i] = static_cast<uint8_t>(i * 7 + 1);
  std::unique_ptr<elf::ElfFile> in;
  try {
    in = elf::ElfFile::parse(Bytes(data + 1, size - 1), "fuzz");
  } catch (const Error&) {
    return 0;
  }
  std::vector<uint8_t> out;
  try {
    elf::SectionWrite w = elf::plan_with_section(*in, name, contents, retire);
    for (Bytes piece : w.pieces) out.insert(out.end(), piece.begin(), piece.end());
  } catch (const Error&) {
    return 0;
  }
  // The section name table, which moves when it grows: e_shstrndx, or
  // section 0's sh_link (SHN_XINDEX).
  Reader h(Bytes(data + 1, size - 1), "ELF header", in->big_endian());
  h.seek(in->is_64() ? 62 : 50);
  uint32_t shstrndx = h.u16();
  if (shstrndx == 0xffff) shstrndx = in->sections()[0].link;
  // What was written reads back: the section holds the new bytes, and the
  // other sections (by index) hold what they held, where they were.
  std::unique_ptr<elf::ElfFile> again = elf::ElfFile::parse(out, "fuzz output");
  // Replaced: the section of that index (a hostile file may name several
  // alike); added: the last one.
  const elf::Section* target = in->find_section_exact(name);
  const elf::Section* s = target ? (target->index < again->sections().size() ? &again->sections()[target->index] : nullptr)
                                 : &again->sections().back();
  check(s != nullptr, "the written section is missing");
  Bytes got = again->raw_data(*s);
  check(std::equal(got.begin(), got.end(), contents.begin(), contents.end()), "the section holds other bytes",
        s->index);
  // Bytes the writer rewrites: the ELF header's, and where the section
  // was if it is rewritten in place. A (hostile) section overlapping them
  // may read differently.
  auto overlaps = [](const elf::Section& a, uint64_t begin, uint64_t end) {
    return a.offset < end && begin < a.offset + a.size;
  };
  // Retired (when it could be): an inactive header at the same index.
  const elf::Section* retired = retire.empty() || retire == name ? nullptr : in->find_section_exact(retire);
  if (retired && (retired->index == 0 || retired->index == shstrndx || (retired->flags & elf::SHF_ALLOC)))
    retired = nullptr;
  if (retired) {
    check(retired->index < again->sections().size(), "the retired section's index is gone", retired->index);
    const elf::Section& now = again->sections()[retired->index];
    check(now.type == 0 && now.size == 0 && now.offset == 0, "the retired section is still there", retired->index);
  }
  for (const elf::Section& old : in->sections()) {
    // Section 0 is reserved: its fields may hold the section count.
    if (old.index == 0 || old.index == s->index || old.type == elf::SHT_NOBITS) continue;
    if (retired && old.index == retired->index) continue;
    if (overlaps(old, 0, in->is_64() ? 64 : 52)) continue;
    if (target && target->type != elf::SHT_NOBITS && overlaps(old, target->offset, target->offset + target->size))
      continue;
    check(old.index < again->sections().size(), "a section is missing", old.index);
    const elf::Section& now = again->sections()[old.index];
    if (old.index == shstrndx) continue;
    check(now.offset == old.offset, "a section moved", old.index);
    Bytes a = in->raw_data(old), b = again->raw_data(now);
    check(std::equal(a.begin(), a.end(), b.begin(), b.end()), "a section's bytes changed", old.index);
  }
  return 0;
}
