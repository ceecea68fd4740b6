// A cheap, copyable, bounds-checked cursor over input bytes.
//
//   Reader r(bytes, ".debug_info", /*big_endian=*/false);
//   uint32_t len = r.u32();
//   Reader unit = r.split(len);      // confined to one unit
//   uint64_t code = unit.uleb128();
//
// Every read checks its bounds and throws btfc::Error naming the section and
// the offset of the failing read within that section; the offset is the
// absolute section offset even for readers made by split() or sub().
// Readers are two pointers and a few words: pass them by value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/endian.h"
#include "base/error.h"

namespace btfc {

using Bytes = std::span<const uint8_t>;

class Reader {
 public:
  Reader() = default;
  // `section` must outlive the reader (a literal or a name owned by the file).
  Reader(Bytes data, std::string_view section, bool big_endian, uint64_t base_offset = 0)
      : begin_(data.data()), pos_(data.data()), end_(data.data() + data.size()),
        section_(section), base_(base_offset), big_endian_(big_endian) {}

  bool big_endian() const { return big_endian_; }
  std::string_view section() const { return section_; }
  // Offset of the cursor within the section.
  uint64_t offset() const { return base_ + static_cast<uint64_t>(pos_ - begin_); }
  // Offset of the cursor within this reader's bytes.
  size_t pos() const { return static_cast<size_t>(pos_ - begin_); }
  size_t size() const { return static_cast<size_t>(end_ - begin_); }
  size_t remaining() const { return static_cast<size_t>(end_ - pos_); }
  bool empty() const { return pos_ == end_; }
  const uint8_t* data() const { return pos_; }
  Bytes bytes() const { return {begin_, size()}; }

  // Moves to `pos` within this reader's bytes.
  void seek(size_t pos) {
    if (pos > size()) fail_at(base_ + pos, "offset past the end of the section");
    pos_ = begin_ + pos;
  }
  void skip(uint64_t n) {
    if (n > remaining()) fail("unexpected end of data (skipping " + std::to_string(n) + " bytes)");
    pos_ += n;
  }

  uint8_t u8() {
    need(1);
    return *pos_++;
  }
  uint16_t u16() { return fixed<uint16_t>(); }
  uint32_t u32() { return fixed<uint32_t>(); }
  uint64_t u64() { return fixed<uint64_t>(); }
  int8_t s8() { return static_cast<int8_t>(u8()); }
  // An unsigned integer of 1, 2, 4 or 8 bytes (DWARF offsets, addresses).
  uint64_t uint(unsigned size) {
    switch (size) {
      case 1: return u8();
      case 2: return u16();
      case 4: return u32();
      case 8: return u64();
      case 3: {
        need(3);
        uint64_t v = big_endian_ ? (uint64_t{pos_[0]} << 16 | uint64_t{pos_[1]} << 8 | pos_[2])
                                 : (uint64_t{pos_[2]} << 16 | uint64_t{pos_[1]} << 8 | pos_[0]);
        pos_ += 3;
        return v;
      }
      default: fail("unsupported integer size " + std::to_string(size));
    }
  }

  uint64_t uleb128() {
    uint64_t result = 0;
    unsigned shift = 0;
    const uint8_t* start = pos_;
    for (;;) {
      if (pos_ == end_) fail_at(base_ + (start - begin_), "truncated LEB128");
      uint8_t b = *pos_++;
      if (shift >= 64 || (shift == 63 && (b & 0x7e))) {
        if ((b & 0x7f) != 0) fail_at(base_ + (start - begin_), "LEB128 overflows 64 bits");
      } else {
        result |= uint64_t{b & 0x7fu} << shift;
      }
      shift += 7;
      if (!(b & 0x80)) return result;
    }
  }

  int64_t sleb128() {
    uint64_t result = 0;
    unsigned shift = 0;
    const uint8_t* start = pos_;
    uint8_t b;
    do {
      if (pos_ == end_) fail_at(base_ + (start - begin_), "truncated LEB128");
      b = *pos_++;
      if (shift < 64) {
        result |= uint64_t{b & 0x7fu} << shift;
      } else if ((b & 0x7f) != ((result >> 63) ? 0x7f : 0)) {
        fail_at(base_ + (start - begin_), "LEB128 overflows 64 bits");
      }
      shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) result |= ~uint64_t{0} << shift;
    return static_cast<int64_t>(result);
  }

  // A NUL-terminated string; the cursor moves past the NUL.
  std::string_view cstr() {
    const void* nul = memchr(pos_, 0, remaining());
    if (!nul) fail("string is not NUL-terminated");
    std::string_view s(reinterpret_cast<const char*>(pos_), static_cast<const uint8_t*>(nul) - pos_);
    pos_ = static_cast<const uint8_t*>(nul) + 1;
    return s;
  }

  Bytes take(uint64_t n) {
    if (n > remaining()) fail("unexpected end of data (need " + std::to_string(n) + " bytes)");
    Bytes b(pos_, n);
    pos_ += n;
    return b;
  }

  // A reader over the next n bytes; this one moves past them.
  Reader split(uint64_t n) {
    if (n > remaining()) fail("length " + std::to_string(n) + " runs past the end of the section");
    Reader r = *this;
    r.begin_ = pos_;
    r.end_ = pos_ + n;
    r.base_ = offset();
    pos_ += n;
    return r;
  }

  // A reader over [pos, pos+n) of this reader's bytes; this one stays put.
  Reader sub(uint64_t pos, uint64_t n) const {
    if (pos > size() || n > size() - pos) fail_at(base_ + pos, "range runs past the end of the section");
    Reader r = *this;
    r.begin_ = r.pos_ = begin_ + pos;
    r.end_ = r.begin_ + n;
    r.base_ = base_ + pos;
    return r;
  }

  [[noreturn]] void fail(const std::string& what) const { fail_at(offset(), what); }
  [[noreturn]] void fail_at(uint64_t section_offset, const std::string& what) const {
    throw Error(std::string(section_), section_offset, what);
  }

 private:
  void need(size_t n) const {
    if (static_cast<size_t>(end_ - pos_) < n) fail("unexpected end of data");
  }
  template <typename T>
  T fixed() {
    need(sizeof(T));
    T v = load<T>(pos_, big_endian_);
    pos_ += sizeof(T);
    return v;
  }

  const uint8_t* begin_ = nullptr;
  const uint8_t* pos_ = nullptr;
  const uint8_t* end_ = nullptr;
  std::string_view section_;
  uint64_t base_ = 0;
  bool big_endian_ = false;
};

}  // namespace btfc
