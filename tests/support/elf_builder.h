// Builders for hand-made inputs: ByteWriter appends integers, LEB128 and
// strings in little-endian order (the bytes of a DWARF section, say), and
// build_elf() wraps named sections into a minimal little-endian ELF64 file
// (x86-64, ET_REL or ET_EXEC, no program headers, .shstrtab added). Tests of
// corrupt input build exactly the bytes they mean, with a comment saying
// what is wrong; any layer's tests may use these.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace btfc::test {

class ByteWriter {
 public:
  ByteWriter& u8(uint8_t v);
  ByteWriter& u16(uint16_t v);
  ByteWriter& u32(uint32_t v);
  ByteWriter& u64(uint64_t v);
  ByteWriter& uleb(uint64_t v);
  ByteWriter& sleb(int64_t v);
  ByteWriter& str(std::string_view s);  // with its NUL
  ByteWriter& raw(const std::vector<uint8_t>& b);
  void patch_u32(size_t pos, uint32_t v);
  size_t size() const { return data_.size(); }
  const std::vector<uint8_t>& data() const { return data_; }

 private:
  std::vector<uint8_t> data_;
};

struct ElfSection {
  std::string name;
  std::vector<uint8_t> data;
  uint32_t type = 1;  // SHT_PROGBITS
  uint64_t flags = 0;
};

// A little-endian ELF64 file holding `sections` (after the null section)
// and a .shstrtab.
std::vector<uint8_t> build_elf(const std::vector<ElfSection>& sections, uint16_t type = 1 /* ET_REL */);

// build_elf() written to NAME in the test scratch folder; returns the path.
std::string write_elf(const std::string& name, const std::vector<ElfSection>& sections, uint16_t type = 1);

}  // namespace btfc::test
