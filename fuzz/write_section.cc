// Fuzz target: the in-place writer (`btfc encode FILE` without a detached
// output) on a hostile ELF file. The first byte picks the section to write
// (.BTF, new or replaced; .BTF.base; .debug_info, replaced where it is or
// moved; the name table itself, refused), how many bytes it gets, and
// whether .BTF.base is retired beside it (a plain .BTF's write), or, for
// .BTF.base itself, written with .BTF in one write (distilled_base's). The
// output is planned in memory (elf::plan_with_sections), never written: it
// must be refused with btfc::Error, or be an ELF file that parses and
// holds exactly the new bytes in each section written, with every other
// section's bytes unchanged. Never a crash, a hang or unbounded memory. Seeds: those
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
  for (size_t i = 0; i < contents.size(); i++) contents[i] = static_cast<uint8_t>(i * 7 + 1);
  std::string_view retire = data[0] & 0x80 ? ".BTF.base" : "";
  std::vector<elf::NewSection> news = {{name, contents}};
  // .BTF.base retired beside itself would change nothing: that bit then
  // asks for distilled_base's write, .BTF (other bytes) and .BTF.base.
  std::vector<uint8_t> split(contents.size() / 2 + 11);
  for (size_t i = 0; i < split.size(); i++) split[i] = static_cast<uint8_t>(i * 5 + 3);
  if (retire == name) {
    news.insert(news.begin(), {".BTF", split});
    retire = "";
  }
  std::unique_ptr<elf::ElfFile> in;
  try {
    in = elf::ElfFile::parse(Bytes(data + 1, size - 1), "fuzz");
  } catch (const Error&) {
    return 0;
  }
  std::vector<uint8_t> out;
  try {
    elf::SectionWrite w = elf::plan_with_sections(*in, news, retire);
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
  // What was written reads back: each section holds its new bytes, and
  // the other sections (by index) hold what they held, where they were.
  std::unique_ptr<elf::ElfFile> again = elf::ElfFile::parse(out, "fuzz output");
  // Replaced: the section of that index (a hostile file may name several
  // alike); added: the last ones, in the order given.
  std::vector<size_t> written;
  size_t added = 0;
  for (const elf::NewSection& n : news)
    if (!in->find_section_exact(n.name)) added++;
  check(again->sections().size() == in->sections().size() + added, "the section count is wrong");
  size_t next_new = in->sections().size();
  for (const elf::NewSection& n : news) {
    const elf::Section* target = in->find_section_exact(n.name);
    const size_t index = target ? target->index : next_new++;
    check(index < again->sections().size(), "the written section is missing", index);
    Bytes got = again->raw_data(again->sections()[index]);
    check(std::equal(got.begin(), got.end(), n.data.begin(), n.data.end()), "the section holds other bytes", index);
    written.push_back(index);
  }
  // Bytes the writer rewrites: the ELF header's, and where a section was
  // if it is rewritten in place. A (hostile) section overlapping them may
  // read differently.
  auto overlaps = [](const elf::Section& a, uint64_t begin, uint64_t end) {
    return a.offset < end && begin < a.offset + a.size;
  };
  auto rewritten = [&](const elf::Section& old) {
    if (overlaps(old, 0, in->is_64() ? 64 : 52)) return true;
    for (const elf::NewSection& n : news) {
      const elf::Section* target = in->find_section_exact(n.name);
      if (target && target->type != elf::SHT_NOBITS && overlaps(old, target->offset, target->offset + target->size))
        return true;
    }
    return false;
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
    if (old.index == 0 || old.type == elf::SHT_NOBITS) continue;
    if (std::find(written.begin(), written.end(), old.index) != written.end()) continue;
    if (retired && old.index == retired->index) continue;
    if (rewritten(old)) continue;
    const elf::Section& now = again->sections()[old.index];
    if (old.index == shstrndx) continue;
    check(now.offset == old.offset, "a section moved", old.index);
    Bytes a = in->raw_data(old), b = again->raw_data(now);
    check(std::equal(a.begin(), a.end(), b.begin(), b.end()), "a section's bytes changed", old.index);
  }
  return 0;
}
