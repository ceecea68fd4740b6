#include "base/page_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace btfc {

PageBuffer::PageBuffer(size_t size) : size_(size) {
  if (size < kMapped) {
    data_ = size ? new uint8_t[size] : nullptr;  // default-initialised: no zeroing pass
    return;
  }
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t length = (size + page - 1) & ~(page - 1);
  void* p = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<uint8_t*>(p);
  mapped_ = length;
}

PageBuffer& PageBuffer::operator=(PageBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
  }
  return *this;
}

void drop_whole_pages(std::span<const uint8_t> range) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t p = reinterpret_cast<uintptr_t>(range.data());
  const uintptr_t first = (p + page - 1) & ~(page - 1), last = (p + range.size()) & ~(page - 1);
  if (first < last) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

void PageBuffer::discard(std::span<const uint8_t> range) {
  if (!mapped_ || range.empty()) return;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(data_), b = reinterpret_cast<uintptr_t>(range.data());
  if (b < lo || b - lo > size_ || range.size() > size_ - (b - lo)) return;
  drop_whole_pages(range);
}

void PageBuffer::resize(size_t size) {
  if (mapped_ && size >= kMapped) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t length = (size + page - 1) & ~(page - 1);
    if (length != mapped_) {
      void* p = mremap(data_, mapped_, length, MREMAP_MAYMOVE);
      if (p == MAP_FAILED) throw std::bad_alloc();
      data_ = static_cast<uint8_t*>(p);
      mapped_ = length;
    }
    size_ = size;
    return;
  }
  PageBuffer other(size);
  if (const size_t kept = std::min(size, size_)) std::memcpy(other.data_, data_, kept);
  *this = std::move(other);
}

void PageBuffer::reset() {
  if (mapped_) munmap(data_, mapped_);
  else delete[] data_;
  data_ = nullptr;
  size_ = mapped_ = 0;
}

}  // namespace btfc
