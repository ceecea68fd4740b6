// Raw BTF writer (see writer.h). The table already holds the on-disk words:
// in the host's byte order they are the section as they are, else each is
// byte-swapped into a copy.
#include "btf/writer.h"

#include <bit>
#include <cstring>

#include "base/atomic_file.h"
#include "base/endian.h"

namespace btfc::btf {

namespace {

// Whether `big_endian` is this host's byte order: the table's words are
// then the type section as they are.
bool host_order(bool big_endian) { return big_endian == (std::endian::native == std::endian::big); }

// The header of write_raw's output for `btf`, at `p`.
void store_header(uint8_t* p, const Btf& btf, bool big_endian) {
  const uint64_t type_len = uint64_t{btf.words().size()} * 4;
  const size_t str_len = btf.strings().bytes().size();
  if (type_len + str_len > UINT32_MAX) throw Error("BTF too large to write (over 4 GiB)");
  store<uint16_t>(p, MAGIC, big_endian);
  p[2] = FORMAT_VERSION;
  p[3] = 0;  // flags
  store<uint32_t>(p + 4, HEADER_SIZE, big_endian);
  store<uint32_t>(p + 8, 0, big_endian);  // type_off
  store<uint32_t>(p + 12, static_cast<uint32_t>(type_len), big_endian);
  store<uint32_t>(p + 16, static_cast<uint32_t>(type_len), big_endian);  // str_off
  store<uint32_t>(p + 20, static_cast<uint32_t>(str_len), big_endian);
}

}  // namespace

std::vector<uint8_t> write_raw(const Btf& btf, bool big_endian) {
  std::span<const uint32_t> words = btf.words();
  std::span<const char> strs = btf.strings().bytes();
  const uint64_t type_len = uint64_t{words.size()} * 4;
  std::vector<uint8_t> out(HEADER_SIZE);
  store_header(out.data(), btf, big_endian);
  out.resize(HEADER_SIZE + type_len + strs.size());
  uint8_t* p = out.data() + HEADER_SIZE;
  if (host_order(big_endian)) {
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
  if (!host_order(big_endian)) {
    write_file_atomic(path, write_raw(btf, big_endian));
    return;
  }
  // In the host's byte order the table's own buffers are the sections:
  // written from where they are, not copied into a fresh 4 MB first.
  uint8_t header[HEADER_SIZE];
  store_header(header, btf, big_endian);
  const std::span<const uint32_t> words = btf.words();
  const std::span<const char> strs = btf.strings().bytes();
  const std::span<const uint8_t> pieces[] = {
      {header, HEADER_SIZE},
      {reinterpret_cast<const uint8_t*>(words.data()), words.size_bytes()},
      {reinterpret_cast<const uint8_t*>(strs.data()), strs.size()}};
  write_file_atomic(path, pieces);
}

}  // namespace btfc::btf
