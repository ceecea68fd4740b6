#include "base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "base/page_buffer.h"

namespace btfc {

MappedFile MappedFile::open(const std::string& path) {
  // O_NONBLOCK: a FIFO given as FILE is refused below instead of blocking
  // the open until some writer comes (no effect on a regular file).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw Error(std::string("cannot open: ") + std::strerror(errno)).with_file(path);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    throw Error(std::string("cannot stat: ") + std::strerror(e)).with_file(path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error("not a regular file").with_file(path);
  }
  MappedFile f;
  f.path_ = path;
  f.size_ = static_cast<size_t>(st.st_size);
  if (f.size_ > 0) {
    void* p = mmap(nullptr, f.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int e = errno;
      ::close(fd);
      throw Error(std::string("cannot map: ") + std::strerror(e)).with_file(path);
    }
    f.data_ = static_cast<const uint8_t*>(p);
    f.guard_ = MappingGuard(f.data_, f.size_, path);
  }
  f.fd_ = fd;
  return f;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    read_ahead_.reset();
    guard_ = std::move(other.guard_);  // ours released before the unmap
    if (data_) munmap(const_cast<uint8_t*>(data_), size_);
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    fd_ = std::exchange(other.fd_, -1);
    read_ahead_ = std::move(other.read_ahead_);
  }
  return *this;
}

MappedFile::~MappedFile() {
  read_ahead_.reset();
  guard_ = MappingGuard();  // before the unmap
  if (data_) munmap(const_cast<uint8_t*>(data_), size_);
  if (fd_ >= 0) ::close(fd_);
}

bool MappedFile::read(uint64_t offset, std::span<uint8_t> out) const {
  if (fd_ < 0) return false;
  if (offset > size_ || out.size() > size_ - offset)
    throw Error("cannot read " + std::to_string(out.size()) + " bytes at offset " + std::to_string(offset) +
                ": outside the file").with_file(path_);
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    // The file was mapped at its full size: a short read means it shrank.
    if (n <= 0)
      throw Error(std::string("cannot read: ") + (n < 0 ? std::strerror(errno) : "file shrank while open"))
          .with_file(path_);
    done += static_cast<size_t>(n);
  }
  return true;
}

std::optional<uint64_t> MappedFile::offset_of(const uint8_t* at, size_t n) const {
  // Compared as integers: `at` usually points into another object.
  uintptr_t b = reinterpret_cast<uintptr_t>(data_), p = reinterpret_cast<uintptr_t>(at);
  if (!data_ || p < b || p - b > size_ || n > size_ - (p - b)) return std::nullopt;
  return p - b;
}

void MappedFile::copy_out(const uint8_t* at, std::span<uint8_t> out) const {
  if (std::optional<uint64_t> offset = offset_of(at, out.size()); offset && fd_ >= 0) {
    read(*offset, out);
    return;
  }
  if (!out.empty()) std::memcpy(out.data(), at, out.size());
}

size_t MappedFile::copy_to(int out_fd, Bytes range) const {
  std::optional<uint64_t> offset = offset_of(range.data(), range.size());
  if (!offset || fd_ < 0) return 0;
  off64_t from = static_cast<off64_t>(*offset);
  size_t done = 0;
  while (done < range.size()) {
    ssize_t n = copy_file_range(fd_, &from, out_fd, nullptr, range.size() - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // unsupported here, or the file shrank: the caller's write() says which
    done += static_cast<size_t>(n);
  }
  return done;
}

void MappedFile::read_ahead(std::vector<ReadAhead::Range> ranges) const {
  if (!read_ahead_) read_ahead_ = std::make_unique<ReadAhead>(fd_, std::move(ranges));
}

void MappedFile::release(Bytes range) const {
  // Read-only private file pages: MADV_DONTNEED drops them, no data lost.
  if (!range.empty() && offset_of(range.data(), range.size())) drop_whole_pages(range);
}

}  // namespace btfc
