// Reading ELF files: header, section headers, section contents and the
// symbol table, for ELF32 and ELF64 in either byte order.
//
//   elf::ElfFile f = elf::ElfFile::open("vmlinux");
//   if (const elf::Section* s = f.find_section(".debug_info"))
//     Bytes info = f.section_data(*s);   // decompressed and relocated
//
// The file is mmap'ed; section_data() returns a span of the mapping when the
// bytes can be used as they are, and otherwise (SHF_COMPRESSED, .zdebug_*,
// relocations of a relocatable file applied to a debug section) a span of a
// buffer owned by the ElfFile, computed once. Everything read from the file
// is bounds-checked and errors name the file, section and offset.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/mapped_file.h"
#include "base/reader.h"

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

class ElfFile {
 public:
  static std::unique_ptr<ElfFile> open(const std::string& path);
  // Parses bytes that the caller keeps alive (tests, fuzzing). `name` is used
  // in error messages.
  static std::unique_ptr<ElfFile> parse(Bytes bytes, std::string name);

  const std::string& path() const { return path_; }
  Bytes bytes() const { return bytes_; }
  bool is_64() const { return is_64_; }
  bool big_endian() const { return big_endian_; }
  uint16_t type() const { return type_; }
  uint16_t machine() const { return machine_; }
  uint8_t address_size() const { return is_64_ ? 8 : 4; }

  const std::vector<Section>& sections() const { return sections_; }
  const Section* find_section(std::string_view name) const;

  // Raw bytes of a section as stored in the file (empty for SHT_NOBITS).
  Bytes raw_data(const Section& s) const;
  // Contents as a reader of the data sees them: decompressed, and for
  // relocatable files with relocations applied to debug sections. Cached;
  // safe to call from several threads.
  Bytes section_data(const Section& s) const;
  // A reader over section_data(s), named after the section.
  Reader reader(const Section& s) const { return Reader(section_data(s), s.name, big_endian_); }

  // .symtab (or .dynsym if there is no .symtab); empty if neither exists.
  const std::vector<Symbol>& symbols() const;

 private:
  ElfFile() = default;
  void parse_header();
  Bytes compute_section_data(const Section& s) const;

  MappedFile file_;
  std::string path_;
  Bytes bytes_;
  bool is_64_ = false;
  bool big_endian_ = false;
  uint16_t type_ = 0;
  uint16_t machine_ = 0;
  std::vector<Section> sections_;

  mutable std::mutex mu_;
  mutable std::vector<std::unique_ptr<std::vector<uint8_t>>> owned_;  // decompressed/relocated buffers
  mutable std::vector<Bytes> data_cache_;
  mutable std::vector<uint8_t> data_cached_;
  mutable std::vector<Symbol> symbols_;
  mutable bool symbols_read_ = false;
};

}  // namespace btfc::elf
