#include "base/flat_bytes.h"

#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>

namespace btfc {

struct FlatReader::Hash {
  XXH3_state_t* state = XXH3_createState();
  Hash() { XXH3_64bits_reset(state); }
  ~Hash() { XXH3_freeState(state); }
};

uint64_t flat_digest(std::span<const uint8_t> image) { return XXH3_64bits(image.data(), image.size()); }

FlatReader::FlatReader(std::span<const uint8_t> in) : mem_(in), size_(in.size()), hash_(new Hash) {}
FlatReader::FlatReader(int fd, uint64_t offset, uint64_t size)
    : fd_(fd), offset_(offset), size_(size), hash_(new Hash) {}
FlatReader::~FlatReader() = default;

uint64_t FlatReader::digest() const { return XXH3_64bits_digest(hash_->state); }

bool FlatReader::take(void* out, size_t n) {
  if (n > left()) return false;
  // Blocks small enough to be hashed from the cache they were just
  // copied into.
  constexpr size_t kBlock = size_t{256} << 10;
  auto* dst = static_cast<uint8_t*>(out);
  while (n > 0) {
    size_t block = std::min(n, kBlock);
    if (fd_ < 0) {
      std::memcpy(dst, mem_.data() + pos_, block);
    } else {
      for (size_t got = 0; got < block;) {
        ssize_t r = ::pread(fd_, dst + got, block - got, static_cast<off_t>(offset_ + pos_ + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        got += static_cast<size_t>(r);
      }
    }
    XXH3_64bits_update(hash_->state, dst, block);
    dst += block;
    pos_ += block;
    n -= block;
  }
  return true;
}

}  // namespace btfc
