// Writes a whole output file atomically: the bytes go to a temporary file in
// the same folder, which is renamed over the target only once complete, so a
// failed or interrupted run never leaves a truncated output behind (and a
// reader of the old file never sees a half-written one). A symlink's target
// is what gets replaced; a target that is not a regular file (/dev/null, a
// FIFO) is written to directly, never renamed over; a file of several hard
// links gets the complete temporary file's bytes copied over it, so that
// every name sees the new contents (as with binutils' objcopy and pahole).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace btfc {

// Throws btfc::Error naming `path` if any step fails; the temporary file is
// removed then.
void write_file_atomic(const std::string& path, std::span<const uint8_t> bytes);
// The same with the bytes in pieces, written in order.
void write_file_atomic(const std::string& path, std::span<const std::span<const uint8_t>> pieces);

// The same for an output made of several pieces, written in order (an ELF
// file rewritten around a new section: mostly spans of the mapped input).
// If `path` already exists, its permission bits carry over to the new file
// (rewriting vmlinux in place keeps it executable), and its owner and group
// where this process may set them (root rewriting a user's file); otherwise
// it gets 0644 less the umask. The temporary file is named PATH.tmp.XXXXXX.
// `copy`, if given, is asked first for each piece: it appends what it can
// of the piece to the file descriptor without this process reading the
// bytes (ElfFile::copy_to: copy_file_range from the input) and returns how
// many; the rest of the piece is written from memory.
using PieceCopier = std::function<size_t(int fd, std::span<const uint8_t> piece)>;
void write_pieces_atomic(const std::string& path, std::span<const std::span<const uint8_t>> pieces,
                         const PieceCopier& copy = {});

}  // namespace btfc
