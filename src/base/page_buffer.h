// A writable byte buffer for a processed copy of file data (a relocated
// .debug_info), uninitialised, sized once.
//
// Large buffers are their own anonymous mapping with transparent huge pages
// asked for: amdgpu.ko's 94 MB .debug_info then costs ~50 page faults
// instead of ~23,000, and the DIE walks over it miss the TLB less. Small
// ones come from the heap, where freed blocks of earlier files are reused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

namespace btfc {

// MADV_DONTNEED on the whole pages inside `range` (its unaligned ends
// keep their pages): pages of a private file mapping are dropped and read
// back from the file, anonymous ones are given back and read as zeros.
void drop_whole_pages(std::span<const uint8_t> range);

class PageBuffer {
 public:
  PageBuffer() = default;
  // Throws std::bad_alloc if the memory cannot be had.
  explicit PageBuffer(size_t size);
  PageBuffer(PageBuffer&& other) noexcept { *this = std::move(other); }
  PageBuffer& operator=(PageBuffer&& other) noexcept;
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;
  ~PageBuffer() { reset(); }

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::span<uint8_t> span() const { return {data_, size_}; }
  void reset();
  // Gives the memory of the whole pages inside `range` (part of this
  // buffer) back to the system, keeping the mapping: they read as zeros
  // afterwards. For bytes that will not be read again. Only for a buffer
  // of its own mapping (kMapped and up); a heap block is left as it is.
  void discard(std::span<const uint8_t> range);

  // Sizes from which a buffer is its own huge-page mapping.
  static constexpr size_t kMapped = size_t{2} << 20;

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_ = 0;  // length of the mapping, 0 for a heap block
};

}  // namespace btfc
