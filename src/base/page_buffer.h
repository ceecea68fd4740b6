// A writable byte buffer for a processed copy of file data (a relocated
// .debug_info, an unpacked file), uninitialised, sized once or resized.
//
// Large buffers are their own anonymous mapping, so that the pages of
// bytes read for the last time can be given back early (discard). Small
// pages, not transparent huge ones: on a virtual machine whose host takes
// back free memory in large blocks (free page reporting: this project's
// test machines), a huge page fresh from the host costs a host fault and
// a zeroing of 2 MB, and a process started a few seconds after the last
// one mostly gets such pages. amdgpu.ko's 94 MB .debug_info: read phase
// 0.17 -> 0.12 s in runs 5 s apart; back to back, where huge pages come
// warm, small pages (23,000 faults instead of 50) cost 0.03 s more, and
// bench/compare.sh, whose runs follow one another, sees no difference.
// Small buffers come from the heap, where freed blocks of earlier files
// are reused.
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
  // Keeps the first min(size(), size) bytes. A buffer of its own mapping
  // that stays one grows or shrinks by mremap: no byte is copied, and the
  // pages given up go back to the system.
  void resize(size_t size);
  // Gives the memory of the whole pages inside `range` (part of this
  // buffer) back to the system, keeping the mapping: they read as zeros
  // afterwards. For bytes that will not be read again. Only for a buffer
  // of its own mapping (kMapped and up); a heap block is left as it is.
  void discard(std::span<const uint8_t> range);

  // Sizes from which a buffer is its own mapping.
  static constexpr size_t kMapped = size_t{2} << 20;

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_ = 0;  // length of the mapping, 0 for a heap block
};

}  // namespace btfc
