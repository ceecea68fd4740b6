// Input files that shrink while btfc reads them. Inputs are mapped (see
// MappedFile), and a read of a mapped page past the file's end, after
// another process truncated it (or an I/O error under it), raises SIGBUS:
// by default a crash ("Bus error", status 135), with a kernel build's
// PATH.tmp.XXXXXX left behind. While a MappingGuard lives, such a fault
// in its range ends the run as bad input does: one line naming the file
// and the offset, the temporary outputs removed (RemoveOnSignal), exit
// status 1. A fault anywhere else goes on to the handler that was there
// before (the default one, or a sanitizer's).
//
//   MappingGuard guard(data, size, path);   // after mmap
//   ... read the mapping ...
//   // guard's end: before munmap
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace btfc {

class MappingGuard {
 public:
  MappingGuard() = default;
  MappingGuard(const uint8_t* data, size_t size, const std::string& path);
  MappingGuard(MappingGuard&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
  MappingGuard& operator=(MappingGuard&& other) noexcept;
  MappingGuard(const MappingGuard&) = delete;
  MappingGuard& operator=(const MappingGuard&) = delete;
  ~MappingGuard() { release(); }

  // How messages begin ("btfc" unless told; pahole mode's "pahole (btfc)").
  // Set once, before any guard is made.
  static void set_program(const char* name);

 private:
  void release();

  int slot_ = -1;  // -1: none (no mapping, or every slot was in use)
};

}  // namespace btfc
