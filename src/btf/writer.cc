// Raw BTF writer (see writer.h). The table already holds the on-disk words,
// so writing is one copy, with a byte swap per word for the other order.
#include "btf/writer.h"

#include <bit>
#include <cstring>

#include "base/atomic_file.h"
#include "base/endian.h"

namespace btfc::btf {

std::vector<uint8_t> write_raw(const Btf& btf, bool big_endian) {
  std::span<const uint32_t> words = btf.words();
  std::span<const char> strs = btf.strings().bytes();
  uint64_t type_len = uint64_t{words.size()} * 4;
  if (type_len + strs.size() > UINT32_MAX) throw Error("BTF too large to write (over 4 GiB)");
  std::vector<uint8_t> out(HEADER_SIZE + type_len + strs.size());
  uint8_t* p = out.data();
  store<uint16_t>(p, MAGIC, big_endian);
  p[2] = FORMAT_VERSION;
  p[3] = 0;  // flags
  store<uint32_t>(p + 4, HEADER_SIZE, big_endian);
  store<uint32_t>(p + 8, 0, big_endian);  // type_off
  store<uint32_t>(p + 12, static_cast<uint32_t>(type_len), big_endian);
  store<uint32_t>(p + 16, static_cast<uint32_t>(type_len), big_endian);  // str_off
  store<uint32_t>(p + 20, static_cast<uint32_t>(strs.size()), big_endian);
  p += HEADER_SIZE;
  if (big_endian == (std::endian::native == std::endian::big)) {
    if (!words.empty()) std::memcpy(p, words.data(), type_len);
  } else {
    for (uint32_t w : words) {
      store<uint32_t>(p, w, big_endian);
      p += 4;
    }
    p -= type_len;
  }
  if (!strs.empty()) std::memcpy(p + type_len, strs.data(), strs.size());
  return out;
}

void write_raw_file(const std::string& path, const Btf& btf, bool big_endian) {
  write_file_atomic(path, write_raw(btf, big_endian));
}

}  // namespace btfc::btf
