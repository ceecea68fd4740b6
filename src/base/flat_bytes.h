// Byte images of plain values and arrays of them, in this machine's
// layout, for the base cache (btf/base_cache.h): an index saved by one
// btfc process and read back by another run of the same binary.
//
//   std::vector<uint8_t> out;
//   FlatWriter(out).value(count).array(std::span(slots));
//   uint64_t sum = flat_digest(out);
//
//   FlatReader in(fd, offset, out.size());   // or FlatReader in(bytes)
//   if (!in.value(count) || !in.array(slots, max_slots) || !in.done() || in.digest() != sum) ...  // not that image
//
// Reading never goes past the image; a count over `max` or past the end,
// or a failed read, makes it fail, and the caller treats the image as
// absent. Whatever has been read so far has an XXH3-64 digest, equal to
// flat_digest() of the image once all of it is read: a file is read in
// blocks straight into the arrays (pread, no mapping), each block hashed
// while it is in cache, so checking a base cache entry costs no pass of
// its own over its megabytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "base/prefault.h"

namespace btfc {

class FlatWriter {
 public:
  explicit FlatWriter(std::vector<uint8_t>& out) : out_(out) {}
  template <typename T>
  FlatWriter& value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    out_.insert(out_.end(), p, p + sizeof v);
    return *this;
  }
  // The element count, then the elements.
  template <typename T>
  FlatWriter& array(std::span<const T> items) {
    static_assert(std::is_trivially_copyable_v<T>);
    value(uint64_t{items.size()});
    const auto* p = reinterpret_cast<const uint8_t*>(items.data());
    out_.insert(out_.end(), p, p + items.size_bytes());
    return *this;
  }

 private:
  std::vector<uint8_t>& out_;
};

// The digest a FlatReader gives once it has read all of `image`.
uint64_t flat_digest(std::span<const uint8_t> image);

class FlatReader {
 public:
  // The image in memory.
  explicit FlatReader(std::span<const uint8_t> in);
  // The image as `size` bytes of the open file `fd` at `offset`.
  FlatReader(int fd, uint64_t offset, uint64_t size);
  ~FlatReader();
  FlatReader(const FlatReader&) = delete;
  FlatReader& operator=(const FlatReader&) = delete;

  template <typename T>
  [[nodiscard]] bool value(T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    return take(&v, sizeof v);
  }
  // What array() wrote, into `items` (resized); at most `max` elements.
  template <typename T, typename A>
  [[nodiscard]] bool array(std::vector<T, A>& items, uint64_t max) {
    static_assert(std::is_trivially_copyable_v<T>);
    uint64_t n;
    if (!value(n) || n > max || n > left() / sizeof(T)) return false;
    reserve_prefaulted(items, n);
    items.resize(n);
    return take(items.data(), n * sizeof(T));
  }
  // True once every byte has been read.
  bool done() const { return left() == 0; }
  // XXH3-64 of the bytes read so far.
  uint64_t digest() const;

 private:
  uint64_t left() const { return size_ - pos_; }
  bool take(void* out, size_t n);  // the next n bytes, hashed; false past the end or on a failed read

  std::span<const uint8_t> mem_;  // the image, or empty when read from fd_
  int fd_ = -1;
  uint64_t offset_ = 0, size_ = 0, pos_ = 0;
  struct Hash;
  std::unique_ptr<Hash> hash_;
};

}  // namespace btfc
