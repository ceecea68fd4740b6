// The base cache (see base_cache.h).
//
// An entry is one file, DIR/base-<32 hex digits>.cache:
//
//   Header    magic, the two keys below, and the size and XXH3-64 digest
//             of each image
//   strings   StringTable::save_index() of the base's strings
//   dedup     DedupBase::save()
//
// The images are read with pread straight into the tables (FlatReader),
// side by side, and their digests checked once they are in: what a bad
// image restored is then dropped (restoring checks every index link, so
// a bad image cannot make it read out of bounds first).
//
// Its name is the XXH3-128 of (build key, base key): the build key is the
// XXH3-128 of the running binary's GNU build ID (another build may hash or
// lay out its indexes otherwise), the base key the XXH3-128 of the BTF
// bytes. The images are this machine's layout, read only by the binary
// that wrote them.
#include "btf/base_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "base/atomic_file.h"
#include "base/build_id.h"
#include "base/error.h"
#include "base/flat_bytes.h"
#include "btf/reader.h"

namespace btfc::btf {

namespace {

constexpr char kMagic[8] = {'B', 'T', 'F', 'C', 'B', 'A', 'S', '1'};
constexpr size_t kKeep = 8;  // entries the directory keeps

struct Key {
  uint64_t lo = 0, hi = 0;
  bool operator==(const Key&) const = default;
};
Key key_of(const void* data, size_t size) {
  XXH128_hash_t h = XXH3_128bits(data, size);
  return {h.low64, h.high64};
}

struct Header {
  char magic[8];
  Key build, base;
  uint64_t base_size;
  uint64_t strings_size, dedup_size;  // the images, in this order after the header
  uint64_t strings_digest, dedup_digest;  // flat_digest() of each
};

const std::optional<Key>& build_key() {
  static const std::optional<Key> key = []() -> std::optional<Key> {
    std::vector<uint8_t> id = own_build_id();
    if (id.empty()) return std::nullopt;
    return key_of(id.data(), id.size());
  }();
  return key;
}

// The directory, created if missing (its parents as mkdir -p would); false
// if it is not ours alone (another user could plant entries there).
bool usable_dir(const std::string& dir) {
  if (std::filesystem::path parent = std::filesystem::path(dir).parent_path(); !parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return false;
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  return st.st_uid == ::geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

std::string entry_path(const std::string& dir, const Key& build, const Key& base) {
  const Key both[2] = {build, base};
  Key name = key_of(both, sizeof both);
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(name.hi),
                static_cast<unsigned long long>(name.lo));
  return dir + "/base-" + hex + ".cache";
}

// An entry whose header is this base's and this build's: the open file
// and the header (the images are still to be read and checked).
struct Entry {
  int fd = -1;
  Header header{};
  Entry() = default;
  Entry(Entry&& o) noexcept : fd(std::exchange(o.fd, -1)), header(o.header) {}
  ~Entry() {
    if (fd >= 0) ::close(fd);
  }
};
std::optional<Entry> open_entry(const std::string& path, const Key& build, const Key& base, uint64_t base_size) {
  Entry e;
  e.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);  // a FIFO: no wait, refused below
  if (e.fd < 0) return std::nullopt;  // none yet
  struct stat st;
  if (::fstat(e.fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  Header& h = e.header;
  if (size < sizeof h || ::pread(e.fd, &h, sizeof h, 0) != static_cast<ssize_t>(sizeof h)) return std::nullopt;
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || !(h.build == build) || !(h.base == base) ||
      h.base_size != base_size || h.strings_size > size - sizeof h || h.dedup_size != size - sizeof h - h.strings_size)
    return std::nullopt;
  return e;
}

// Keeps the kKeep entries used last (a hit refreshes its entry's time),
// and removes temporary files a killed run left behind an hour ago.
void evict(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  struct Found {
    struct timespec used;
    std::string path;
  };
  std::vector<Found> entries;
  const time_t now = ::time(nullptr);
  while (dirent* de = ::readdir(d)) {
    std::string_view name = de->d_name;
    if (!name.starts_with("base-")) continue;
    std::string path = dir + "/" + std::string(name);
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (name.ends_with(".cache")) entries.push_back({st.st_mtim, path});
    else if (name.find(".cache.tmp.") != std::string_view::npos && now - st.st_mtime > 3600) ::unlink(path.c_str());
  }
  ::closedir(d);
  if (entries.size() <= kKeep) return;
  std::sort(entries.begin(), entries.end(), [](const Found& a, const Found& b) {
    return a.used.tv_sec != b.used.tv_sec ? a.used.tv_sec > b.used.tv_sec : a.used.tv_nsec > b.used.tv_nsec;
  });
  for (size_t i = kKeep; i < entries.size(); ++i) ::unlink(entries[i].path.c_str());
}

bool store(const std::string& path, const Key& build, const Key& base, uint64_t base_size, const Btf& btf,
           const DedupBase& index) {
  std::vector<uint8_t> bytes(sizeof(Header));
  btf.strings().save_index(bytes);
  const size_t strings_size = bytes.size() - sizeof(Header);
  std::vector<uint8_t> dedup = index.save();
  bytes.insert(bytes.end(), dedup.begin(), dedup.end());
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.build = build;
  h.base = base;
  h.base_size = base_size;
  h.strings_size = strings_size;
  h.dedup_size = dedup.size();
  h.strings_digest = flat_digest(std::span(bytes).subspan(sizeof h, strings_size));
  h.dedup_digest = flat_digest(dedup);
  std::memcpy(bytes.data(), &h, sizeof h);
  try {
    write_file_atomic(path, bytes);
  } catch (const Error&) {
    return false;
  }
  return true;
}

}  // namespace

const char* base_cache_use_name(BaseCacheUse use) {
  switch (use) {
    case BaseCacheUse::Off: return "off";
    case BaseCacheUse::Hit: return "hit";
    case BaseCacheUse::Stored: return "stored";
    case BaseCacheUse::Missed: return "missed";
  }
  return "?";
}

BaseCacheUse read_base_cached(const std::string& path, const std::string& dir, Btf& out,
                              std::optional<DedupBase>& index) {
  auto read_in_full = [&] {
    read_file(path, nullptr, out, [&](const Btf& b) { index.emplace(b); });
  };
  const std::optional<Key>& build = build_key();
  if (dir.empty() || !build) {
    read_in_full();
    return BaseCacheUse::Off;
  }
  // The BTF bytes as read_file finds them; anything else (not BTF, no
  // .BTF, a distilled module, a file that cannot be read) goes to
  // read_file, which says what is wrong.
  std::optional<BtfFile> f;
  try {
    f.emplace(BtfFile::open(path));
  } catch (const Error&) {
    f.reset();
  }
  if (!f || f->distilled_base || f->bytes.empty()) {
    read_in_full();
    return BaseCacheUse::Off;
  }
  const Bytes bytes = f->bytes;

  const bool dir_ok = usable_dir(dir);
  const Key base = dir_ok ? key_of(bytes.data(), bytes.size()) : Key{};  // only a usable directory needs it
  const std::string entry = dir_ok ? entry_path(dir, *build, base) : std::string();
  if (dir_ok) {
    if (std::optional<Entry> e = open_entry(entry, *build, base, bytes.size())) {
      const Header& h = e->header;
      FlatReader strings(e->fd, sizeof h, h.strings_size), dedup(e->fd, sizeof h + h.strings_size, h.dedup_size);
      try {
        read_raw_checked_before(out, bytes, strings, [&](const Btf& b) { index.emplace(b, dedup); });
        if (strings.digest() == h.strings_digest && dedup.digest() == h.dedup_digest) {
          ::utimensat(AT_FDCWD, entry.c_str(), nullptr, 0);  // used now: kept by evict()
          return BaseCacheUse::Hit;
        }
      } catch (const Error&) {
      }
      index.reset();  // a damaged entry, or one that does not fit after all: read in full
    }
  }
  try {
    read_raw(out, bytes, [&](const Btf& b) { index.emplace(b); });
  } catch (Error& e) {
    throw e.with_file(path);
  }
  if (!dir_ok || !store(entry, *build, base, bytes.size(), out, *index)) return BaseCacheUse::Missed;
  evict(dir);
  return BaseCacheUse::Stored;
}

}  // namespace btfc::btf
