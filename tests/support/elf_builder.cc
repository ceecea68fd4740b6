#include "support/elf_builder.h"

#include <fstream>

#include "support/test_support.h"

namespace btfc::test {

ByteWriter& ByteWriter::u8(uint8_t v) {
  data_.push_back(v);
  return *this;
}
ByteWriter& ByteWriter::u16(uint16_t v) { return u8(v & 0xff).u8(v >> 8); }
ByteWriter& ByteWriter::u32(uint32_t v) { return u16(v & 0xffff).u16(v >> 16); }
ByteWriter& ByteWriter::u64(uint64_t v) { return u32(v & 0xffffffff).u32(v >> 32); }
ByteWriter& ByteWriter::uleb(uint64_t v) {
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    u8(v ? b | 0x80 : b);
  } while (v);
  return *this;
}
ByteWriter& ByteWriter::sleb(int64_t v) {
  for (;;) {
    uint8_t b = v & 0x7f;
    v >>= 7;
    bool done = (v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40));
    u8(done ? b : b | 0x80);
    if (done) return *this;
  }
}
ByteWriter& ByteWriter::str(std::string_view s) {
  data_.insert(data_.end(), s.begin(), s.end());
  return u8(0);
}
ByteWriter& ByteWriter::raw(const std::vector<uint8_t>& b) {
  data_.insert(data_.end(), b.begin(), b.end());
  return *this;
}
void ByteWriter::patch_u32(size_t pos, uint32_t v) {
  for (int i = 0; i < 4; i++) data_[pos + i] = static_cast<uint8_t>(v >> (8 * i));
}

std::vector<uint8_t> build_elf(const std::vector<ElfSection>& sections, uint16_t type) {
  ByteWriter shstr;
  shstr.u8(0);
  std::vector<uint32_t> names;
  for (const ElfSection& s : sections) {
    names.push_back(static_cast<uint32_t>(shstr.size()));
    shstr.str(s.name);
  }
  uint32_t shstr_name = static_cast<uint32_t>(shstr.size());
  shstr.str(".shstrtab");

  ByteWriter f;
  for (int i = 0; i < 64; i++) f.u8(0);  // header, written last
  std::vector<uint64_t> offsets;
  for (const ElfSection& s : sections) {
    offsets.push_back(f.size());
    f.raw(s.data);
  }
  uint64_t shstr_off = f.size();
  f.raw(shstr.data());
  while (f.size() % 8) f.u8(0);
  uint64_t shoff = f.size();
  auto header = [&](uint32_t name, uint32_t t, uint64_t flags, uint64_t off, uint64_t size) {
    f.u32(name).u32(t).u64(flags).u64(0).u64(off).u64(size).u32(0).u32(0).u64(1).u64(0);
  };
  header(0, 0, 0, 0, 0);
  for (size_t i = 0; i < sections.size(); i++)
    header(names[i], sections[i].type, sections[i].flags, offsets[i], sections[i].data.size());
  header(shstr_name, 3, 0, shstr_off, shstr.size());

  ByteWriter h;
  h.u8(0x7f).u8('E').u8('L').u8('F').u8(2).u8(1).u8(1);
  for (int i = 0; i < 9; i++) h.u8(0);
  h.u16(type).u16(62).u32(1).u64(0).u64(0).u64(shoff).u32(0).u16(64).u16(0).u16(0).u16(64);
  h.u16(static_cast<uint16_t>(sections.size() + 2)).u16(static_cast<uint16_t>(sections.size() + 1));
  std::vector<uint8_t> out = f.data();
  std::copy(h.data().begin(), h.data().end(), out.begin());
  return out;
}

std::string write_elf(const std::string& name, const std::vector<ElfSection>& sections, uint16_t type) {
  std::string path = scratch_dir() + "/" + name;
  std::vector<uint8_t> bytes = build_elf(sections, type);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return path;
}

}  // namespace btfc::test
