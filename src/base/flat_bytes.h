// Byte images of plain values and arrays of them, in this machine's
// layout, for the base cache (btf/base_cache.h): an index saved by one
// btfc process and read back by another run of the same binary.
//
//   std::vector<uint8_t> out;
//   FlatWriter(out).value(count).array(std::span(slots));
//   FlatReader in(bytes);
//   if (!in.value(count) || !in.array(slots, max_slots) || !in.done()) ...  // does not fit
//
// Reading never goes past the bytes; a count over `max` or past the end
// makes the read fail, and the caller treats the image as absent.
#pragma once

#include <cstdint>
#include <cstring>
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

class FlatReader {
 public:
  explicit FlatReader(std::span<const uint8_t> in) : in_(in) {}
  template <typename T>
  [[nodiscard]] bool value(T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (in_.size() - pos_ < sizeof v) return false;
    std::memcpy(&v, in_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return true;
  }
  // What array() wrote, into `items` (resized); at most `max` elements.
  template <typename T, typename A>
  [[nodiscard]] bool array(std::vector<T, A>& items, uint64_t max) {
    static_assert(std::is_trivially_copyable_v<T>);
    uint64_t n;
    if (!value(n) || n > max || n > (in_.size() - pos_) / sizeof(T)) return false;
    items.clear();
    items.reserve(n);
    prefault(items.data(), n * sizeof(T));
    items.resize(n);
    std::memcpy(items.data(), in_.data() + pos_, n * sizeof(T));
    pos_ += n * sizeof(T);
    return true;
  }
  // True once every byte has been read.
  bool done() const { return pos_ == in_.size(); }

 private:
  std::span<const uint8_t> in_;
  size_t pos_ = 0;
};

}  // namespace btfc
