// Writing an ELF file with one section replaced or added: btfc's in-place
// mode (like `pahole -J` without --btf_encode_detached) puts .BTF into the
// input file itself.
//
//   auto in = elf::ElfFile::open("ext4.ko");
//   elf::write_with_section(*in, ".BTF", btf_bytes, "ext4.ko");
//
// Everything but the named section, .shstrtab (when the name is new) and the
// section header table is copied byte for byte: the ELF header (only
// e_shoff, e_shnum, e_shstrndx change), program headers, every segment's
// bytes and every other section at its old offset. A new section is
// SHT_PROGBITS, flags 0, alignment 4 (what objcopy --add-section gives
// .BTF), added as the last section. The output goes to a temporary file in
// the target's folder that is renamed over the target, so on any error the
// target (which may be the input) is untouched.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "elf/elf_file.h"

namespace btfc::elf {

// A section to write: its name and its new contents.
struct NewSection {
  std::string_view name;
  Bytes data;
};

// Writes `in` with each of `sections` holding its data to `out_path` (which
// may be in.path()). An existing non-allocated section is rewritten where it
// is if its data fits there, else moved to the end of the file; an existing
// SHF_ALLOC section (.BTF of vmlinux sits in a loaded segment) is rewritten
// in place and must not grow, unless it is empty (ld.lld's placeholder
// .BTF in .tmp_vmlinux.btf): then it becomes a section that is not loaded
// (no SHF_ALLOC, address 0) with its contents at the end of the file. New
// sections are added last, in the order given (pahole's .BTF, then
// .BTF.base).
// Bytes that lie outside every section and segment after the last of them
// (e.g. an appended module signature, which the new contents would
// invalidate anyway) are not kept.
// `retire`, if given and present (not allocated, not one of `sections`): a
// section that the new contents make stale is left as an inactive header
// (SHT_NULL, no name, no bytes) at its index, so that no reader finds it and
// no section index moves. (.BTF.base beside a .BTF written without
// distilled_base would otherwise make libbpf and the kernel read the new
// .BTF on the old distilled base.)
// Throws btfc::Error on bad input or I/O failure.
void write_with_sections(const ElfFile& in, std::span<const NewSection> sections, const std::string& out_path,
                         std::string_view retire = {});
inline void write_with_section(const ElfFile& in, std::string_view name, Bytes data, const std::string& out_path,
                               std::string_view retire = {}) {
  const NewSection one[] = {{name, data}};
  write_with_sections(in, one, out_path, retire);
}

// What write_with_sections writes, without writing it: the output is the
// pieces in order, spans of the input, of the sections' data and of the
// three buffers (which the pieces point into, so a SectionWrite is moved,
// never copied).
struct SectionWrite {
  std::vector<Bytes> pieces;
  std::vector<uint8_t> header, names, table;
  SectionWrite() = default;
  SectionWrite(SectionWrite&&) = default;
  SectionWrite(const SectionWrite&) = delete;
};
SectionWrite plan_with_sections(const ElfFile& in, std::span<const NewSection> sections, std::string_view retire = {});

}  // namespace btfc::elf
