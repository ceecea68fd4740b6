// Atomic whole-file writes: temp file + rename (see atomic_file.h).
// No fsync: btfc's outputs are build artefacts, remade if lost in a crash;
// what matters is that no one sees a partial file.
#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "base/error.h"

namespace btfc {

void write_file_atomic(const std::string& path, std::span<const uint8_t> bytes) {
  std::string tmp = path + ".tmp.XXXXXX";
  std::vector<char> name(tmp.begin(), tmp.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) throw Error(path + ": cannot create a temporary file: " + std::strerror(errno));
  auto fail = [&](const char* what) {
    int err = errno;
    close(fd);
    unlink(name.data());
    throw Error(path + ": " + what + ": " + std::strerror(err));
  };
  const uint8_t* p = bytes.data();
  size_t left = bytes.size();
  while (left) {
    ssize_t n = write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write failed");
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  // mkstemp makes 0600; outputs get the usual 0644 (less the umask).
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0644 & ~mask) != 0) fail("chmod failed");
  if (close(fd) != 0) {
    int err = errno;
    unlink(name.data());
    throw Error(path + ": close failed: " + std::strerror(err));
  }
  if (rename(name.data(), path.c_str()) != 0) {
    int err = errno;
    unlink(name.data());
    throw Error(path + ": cannot rename the temporary file into place: " + std::strerror(err));
  }
}

void write_pieces_atomic(const std::string& path, std::span<const std::span<const uint8_t>> pieces) {
  mode_t mode;
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    mode_t mask = umask(0);
    umask(mask);
    mode = 0644 & ~mask;
  }
  std::string tmp = path + ".tmp.XXXXXX";
  std::vector<char> name(tmp.begin(), tmp.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) throw Error(path + ": cannot create a temporary file: " + std::strerror(errno));
  auto fail = [&](const char* what) {
    int err = errno;
    close(fd);
    unlink(name.data());
    throw Error(path + ": " + what + ": " + std::strerror(err));
  };
  for (std::span<const uint8_t> piece : pieces) {
    const uint8_t* p = piece.data();
    size_t left = piece.size();
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
  if (fchmod(fd, mode) != 0) fail("chmod failed");
  if (close(fd) != 0) {
    int err = errno;
    unlink(name.data());
    throw Error(path + ": close failed: " + std::strerror(err));
  }
  if (rename(name.data(), path.c_str()) != 0) {
    int err = errno;
    unlink(name.data());
    throw Error(path + ": cannot rename the temporary file into place: " + std::strerror(err));
  }
}

}  // namespace btfc
