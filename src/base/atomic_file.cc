// Atomic whole-file writes: temp file + rename (see atomic_file.h).
// No fsync: btfc's outputs are build artefacts, remade if lost in a crash;
// what matters is that no one sees a partial file.
#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/mapped_file.h"
#include "base/remove_on_signal.h"

namespace btfc {

namespace {

// An error about the file being written, named as the message's file: the
// caller's input name is then not added (in place, it is the same file).
Error output_error(const std::string& path, std::string message) {
  Error e(std::move(message));
  e.with_file(path);
  return e;
}

mode_t default_mode() {
  mode_t mask = umask(0);
  umask(mask);
  return 0644 & ~mask;
}

// The one temp-file-and-rename sequence both entry points share: the pieces
// go to PATH.tmp.XXXXXX in order, which gets `mode` and is renamed over
// `path`; on any failure the temporary file is removed.
void write_all(int fd, std::span<const std::span<const uint8_t>> pieces, const PieceCopier& copy, const auto& fail) {
  for (std::span<const uint8_t> piece : pieces) {
    const size_t copied = copy && !piece.empty() ? copy(fd, piece) : 0;
    const uint8_t* p = piece.data() + copied;
    size_t left = piece.size() - copied;
    while (left) {
      ssize_t n = write(fd, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        fail("write failed");
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
  }
}

// Blocks for the whole file before a single byte of it is written, when
// it will replace an existing file: ext4 writes a file's delayed-allocated
// data out in the very rename that puts it over another one (its
// auto_da_alloc: a replaced file is not to come back empty after a
// crash), and a file whose blocks are allocated has none of that data.
// amdgpu.ko (357 MB) rewritten in place: the encode 0.67-0.72 -> 0.61 s
// at -j2 (a C program doing the same copy and rename: rename 141 -> 60
// ms, copy 112 -> 86 ms); a 2 MB output written over the last one, 2.1 ->
// 0.7 ms. Only a hint: a file system without fallocate goes on without
// it, and a full disk is then the writes' to report, as before. Exactly
// the file's size: with FALLOC_FL_KEEP_SIZE, blocks past the end written
// would stay allocated.
void reserve_blocks(int fd, std::span<const std::span<const uint8_t>> pieces) {
  size_t total = 0;
  for (std::span<const uint8_t> piece : pieces) total += piece.size();
  if (total) (void)!fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(total));
}

// An existing target that is not a regular file (/dev/null, a FIFO, a
// terminal) is written to as it is: renaming a file over it would replace
// the device node itself (as root, /dev/null with a regular file).
void write_in_place(const std::string& path, std::span<const std::span<const uint8_t>> pieces,
                    const PieceCopier& copy) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw output_error(path, std::string("cannot open for writing: ") + std::strerror(errno));
  auto fail = [&](const char* what) {
    int err = errno;
    close(fd);
    throw output_error(path, std::string(what) + ": " + std::strerror(err));
  };
  write_all(fd, pieces, copy, fail);
  if (close(fd) != 0) throw output_error(path, std::string("close failed: ") + std::strerror(errno));
}

// The complete temporary file `tmp` copied over `path`, in place (by the
// kernel where it can, as write_pieces_atomic copies its input), and
// removed. False, with nothing changed, if `path` cannot be opened for
// writing (a read-only file in a writable folder: renamed over then).
// The space the new contents need is reserved first: a full disk or a
// quota fails there, with `path` untouched and `tmp` removed. Past that
// point nothing stops the copy halfway (signals wait for its end: see
// DeferSignals), and only an I/O error can leave `path` partly rewritten;
// `tmp` then stays (`guard` lets it go), and the error says where it is.
bool copy_over(const char* tmp, const std::string& path, RemoveOnSignal& guard) {
  int out = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (out < 0) return false;
  MappedFile written;
  try {
    written = MappedFile::open(tmp);
  } catch (const Error& e) {
    close(out);
    throw output_error(path, std::string("cannot read the temporary file back: ") + e.what() + "; the complete file is " + tmp);
  }
  // Blocks for the whole new size, the file's size unchanged (those it
  // has already are kept). A file system without fallocate, or without
  // this mode of it, goes on without the reservation.
  if (written.size() && fallocate(out, FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(written.size())) != 0 &&
      errno != EOPNOTSUPP && errno != ENOSYS && errno != EINVAL) {
    const int err = errno;
    close(out);
    unlink(tmp);
    throw output_error(path, std::string("cannot reserve space to rewrite it in place (it has other hard links; it is unchanged): ") +
                std::strerror(err));
  }
  DeferSignals defer;
  auto fail = [&](const std::string& what) {
    int err = errno;
    guard.release();
    if (out >= 0) close(out);
    throw output_error(path, what + " (it has other hard links): " + std::strerror(err) + "; the complete file is " +
                tmp);
  };
  std::span<const uint8_t> whole[] = {written.bytes()};
  write_all(out, whole, [&](int fd, std::span<const uint8_t> piece) { return written.copy_to(fd, piece); }, fail);
  if (ftruncate(out, static_cast<off_t>(written.size())) != 0) fail("truncate failed");
  if (close(out) != 0) {
    out = -1;
    fail("close failed");
  }
  unlink(tmp);
  return true;
}

// `owner`: the file being replaced, whose owner and group the new one
// takes where this process may give them (root rewriting a user's module,
// as pahole's in-place update would leave it); null for a new output.
void write_atomic(const std::string& target, std::span<const std::span<const uint8_t>> pieces, mode_t mode,
                  const struct stat* owner = nullptr, const PieceCopier& copy = {}) {
  // A symlink's target is what gets replaced, as writing through the link
  // would (a dangling link is replaced itself).
  std::string path = target;
  struct stat st;
  if (lstat(target.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    if (char* real = realpath(target.c_str(), nullptr)) {
      path = real;
      std::free(real);
    }
  }
  const struct stat* existing = nullptr;
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw output_error(target, "is a folder, not a file");
    if (!S_ISREG(st.st_mode)) {
      write_in_place(path, pieces, copy);
      return;
    }
    existing = &st;
  }
  std::string tmp = path + ".tmp.XXXXXX";
  std::vector<char> name(tmp.begin(), tmp.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) throw output_error(path, std::string("cannot create a temporary file in its folder: ") + std::strerror(errno));
  RemoveOnSignal guard(name.data());  // until renamed or removed
  auto fail = [&](const char* what) {
    int err = errno;
    close(fd);
    unlink(name.data());
    throw output_error(path, std::string(what) + ": " + std::strerror(err));
  };
  if (existing) reserve_blocks(fd, pieces);
  write_all(fd, pieces, copy, fail);
  // Not ours to give (EPERM for another user's group, say): the new file
  // keeps this process's owner, as any file it writes.
  if (owner && (owner->st_uid != geteuid() || owner->st_gid != getegid()))
    (void)!fchown(fd, owner->st_uid, owner->st_gid);
  // mkstemp makes 0600 (after fchown, which may clear set-id bits).
  if (fchmod(fd, mode) != 0) fail("chmod failed");
  if (close(fd) != 0) {
    int err = errno;
    unlink(name.data());
    throw output_error(path, std::string("close failed: ") + std::strerror(err));
  }
  // A file of several hard links has its bytes replaced, not its name
  // (as binutils' objcopy and pahole's in-place update leave it): the
  // other names would otherwise keep the old file.
  if (existing && existing->st_nlink > 1 && copy_over(name.data(), path, guard)) return;
  if (rename(name.data(), path.c_str()) != 0) {
    int err = errno;
    unlink(name.data());
    throw output_error(path, std::string("cannot rename the temporary file into place: ") + std::strerror(err));
  }
}

}  // namespace

void write_file_atomic(const std::string& path, std::span<const uint8_t> bytes) {
  std::span<const uint8_t> pieces[] = {bytes};
  write_atomic(path, pieces, default_mode());
}

void write_file_atomic(const std::string& path, std::span<const std::span<const uint8_t>> pieces) {
  write_atomic(path, pieces, default_mode());
}

void write_pieces_atomic(const std::string& path, std::span<const std::span<const uint8_t>> pieces,
                         const PieceCopier& copy) {
  struct stat st;
  const bool exists = stat(path.c_str(), &st) == 0;
  write_atomic(path, pieces, exists ? (st.st_mode & 07777) : default_mode(), exists ? &st : nullptr, copy);
}

}  // namespace btfc
