// A read-only memory mapping of a whole file. Input files (vmlinux is over
// 600 MB) are never copied: readers borrow spans of the mapping, and the
// page cache does the rest. Should the file shrink while it is mapped, a
// read past its new end ends the run with an error naming the file
// (MappingGuard), not with a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/mapping_guard.h"
#include "base/read_ahead.h"
#include "base/reader.h"

namespace btfc {

class MappedFile {
 public:
  // Throws btfc::Error naming the file when it cannot be opened or mapped.
  static MappedFile open(const std::string& path);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept { *this = std::move(other); }
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  const std::string& path() const { return path_; }
  Bytes bytes() const { return {data_, size_}; }
  size_t size() const { return size_; }

  // Lets the kernel drop the pages lying wholly inside `range` from this
  // process (they stay in the page cache, and a later read maps them
  // again): a reader done with a part of a big file keeps its resident
  // memory small. A range outside the mapping (a decompressed or relocated
  // copy on the heap) is left alone.
  void release(Bytes range) const;

  // Copies `out.size()` bytes from `offset` of the file into `out` with
  // pread: a copy made this way never maps (and later unmaps) the file's
  // pages in this process, which costs more than the copy for a section
  // read once (a module's .debug_info, relocated in the copy). Returns
  // false if there is no file (a default-constructed MappedFile); throws
  // btfc::Error naming the file if reading fails or the range is outside it.
  bool read(uint64_t offset, std::span<uint8_t> out) const;
  // Copies the `out.size()` bytes at `at` into `out`: with read() when
  // they lie in the mapping (so that a small read, like a unit header,
  // does not map the pages around it), else from memory.
  void copy_out(const uint8_t* at, std::span<uint8_t> out) const;
  // Appends the bytes of `range`, if it lies in the mapping, to `out_fd`
  // at its file position with copy_file_range(2): the kernel copies them
  // from the page cache (or shares their blocks, on a file system that can)
  // without mapping them into this process. Returns how many bytes it
  // copied: 0 for a range outside the mapping or where the kernel cannot
  // (another file system, a device, an old kernel), fewer than asked if
  // the copy stopped part way; the caller writes the rest itself.
  size_t copy_to(int out_fd, Bytes range) const;
  // Starts reading these ranges of the file into the page cache, beside
  // whatever reads them next (see ReadAhead); once, later calls do nothing.
  void read_ahead(std::vector<ReadAhead::Range> ranges) const;

 private:
  // The offset in the file of the `n` bytes at `at`, if they lie in the
  // mapping.
  std::optional<uint64_t> offset_of(const uint8_t* at, size_t n) const;

  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  int fd_ = -1;  // kept open for read()
  MappingGuard guard_;  // a read past the end, once the file shrank: an error, not a crash
  mutable std::unique_ptr<ReadAhead> read_ahead_;  // reads fd_: reset before it closes
};

}  // namespace btfc
