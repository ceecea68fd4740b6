// Loads and stores of fixed-size integers from unaligned bytes in either
// byte order. Mapped input is never reinterpret_cast: memcpy into a local
// compiles to a single load, is alignment-safe, and keeps UBSan quiet.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace btfc {

template <typename T>
constexpr T byteswap(T v) {
  static_assert(std::is_integral_v<T>);
  if constexpr (sizeof(T) == 1) {
    return v;
  } else if constexpr (sizeof(T) == 2) {
    return static_cast<T>(__builtin_bswap16(static_cast<uint16_t>(v)));
  } else if constexpr (sizeof(T) == 4) {
    return static_cast<T>(__builtin_bswap32(static_cast<uint32_t>(v)));
  } else {
    return static_cast<T>(__builtin_bswap64(static_cast<uint64_t>(v)));
  }
}

// Reads a T stored at p in the given byte order (big_endian or not).
template <typename T>
inline T load(const uint8_t* p, bool big_endian) {
  T v;
  std::memcpy(&v, p, sizeof v);
  if (big_endian != (std::endian::native == std::endian::big)) v = byteswap(v);
  return v;
}

template <typename T>
inline void store(uint8_t* p, T v, bool big_endian) {
  if (big_endian != (std::endian::native == std::endian::big)) v = byteswap(v);
  std::memcpy(p, &v, sizeof v);
}

}  // namespace btfc
