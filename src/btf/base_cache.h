// The base cache: what a module's run builds from its base before it can
// deduplicate, kept on disk for the next run on the same base.
//
// A kernel build runs pahole once per module (scripts/Makefile.modfinal:
// `pahole -J --btf_base vmlinux MODULE.ko`), thousands of processes on
// one vmlinux. Each btfc process used to check vmlinux's 100k types, hash
// its 100k strings and build dedup's candidate index of it: 26 ms of a
// small module's 39. With a cache directory (BTFC_BASE_CACHE=DIR, or
// EncodeOptions::base_cache_dir), the first run stores the string index
// and the DedupBase as one file, and every later run on the same base
// bytes, by the same btfc binary, reads it back instead of redoing the
// work.
//
//   btf::Btf base;
//   std::optional<btf::DedupBase> index;
//   btf::read_base_cached("vmlinux", "/home/me/.cache/btfc", base, index);
//
// The output never depends on the cache: a restored index equals a built
// one. An entry is found by a hash of the base's BTF bytes and of the
// running binary's build ID, and used only if its header says the same and
// its checksum holds, in a directory owned by this user that nobody else
// can write to; a run that finds no usable entry reads the base in full
// (every check, so a bad base gets its usual error) and stores one. Any
// trouble with the cache (no build ID, a directory it cannot use or
// write, a bad entry) only means the base is read in full; it is never an
// error. The directory keeps the 8 entries used last.
#pragma once

#include <optional>
#include <string>

#include "btf/btf.h"
#include "btf/dedup.h"

namespace btfc::btf {

enum class BaseCacheUse {
  Off,     // no directory given, or no build ID
  Hit,     // read from the cache
  Stored,  // read in full, and a cache entry written
  Missed,  // read in full; the directory could not be used or written
};
const char* base_cache_use_name(BaseCacheUse use);

// Reads the base at `path` (raw BTF or an ELF's .BTF) into `out` and builds
// `index` for it, as read_file(path, nullptr, out, ...) and DedupBase(out)
// do, through the cache directory `dir` (empty: no cache). A file with
// .BTF.base (a distilled module) is never a base here: read_file's error.
// Throws btfc::Error naming the file, as read_file.
BaseCacheUse read_base_cached(const std::string& path, const std::string& dir, Btf& out,
                              std::optional<DedupBase>& index);

}  // namespace btfc::btf
