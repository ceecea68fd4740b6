// A std::vector whose resize() leaves new elements of trivial types
// uninitialised, for buffers that are grown first and filled right after.
//
// std::vector<uint32_t>::resize writes a zero into every new element: one
// serial pass over memory that is overwritten anyway, and for a table of
// tens of megabytes (btf::merge_units' output, filled by parallel copies)
// the pass that takes every page fault on one thread. With this allocator
// the faults are taken by the threads that write the data. Dedup's per-id
// arrays are sized, then filled in parallel, the same way.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace btfc {

template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

  // Value-initialisation (resize, emplace_back()) becomes default-
  // initialisation; every other construction is unchanged.
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    std::allocator_traits<std::allocator<T>>::construct(*this, p, std::forward<Args>(args)...);
  }
};

template <typename T>
using UninitVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace btfc
