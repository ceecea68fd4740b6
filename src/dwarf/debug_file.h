// A stripped file's separate debug file (objcopy --only-keep-debug, a
// distribution's -dbgsym or -dbg package), found where elfutils' libdwfl
// looks for it, so that btfc reads what pahole reads for the same file:
//
//   DEBUG_DIR/.build-id/xx/yyyy.debug      by the file's build ID
//   DIR/NAME, DIR/.debug/NAME, DEBUG_DIR/DIR/NAME
//                                          by the name .gnu_debuglink gives
//   the same with NAME = FILE.debug, and DEBUG_DIR/DIR/FILE
//                                          with no link, by the build ID
//
// (DIR is the file's folder, absolute; DEBUG_DIR is /usr/lib/debug; the
// last is where Debian's kernel -dbg package puts a module's DWARF.) A
// candidate counts when it is the file's: the same build ID where the
// file has one, else the CRC-32 that .gnu_debuglink records, so a debug
// file of another build is passed over (libdwfl takes a made-up name's
// file unchecked when there is no build ID; btfc makes none up then).
//
//   std::unique_ptr<elf::ElfFile> dbg = dwarf::open_debug_file(*elf);
//   const elf::ElfFile& source = dbg ? *dbg : *elf;   // DWARF, symbols
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "elf/elf_file.h"

namespace btfc::dwarf {

// The debug file of a file without DWARF (DwarfFile::present), or null:
// for a file with DWARF, or one that names none, or when none of the
// places holds one of its build.
std::unique_ptr<elf::ElfFile> open_debug_file(const elf::ElfFile& elf,
                                              const std::string& debug_dir = "/usr/lib/debug");

// `elf` itself, or the debug file of a stripped one (open_debug_file):
// the file its DWARF is read from, if anywhere. Errors finding the debug
// file name `elf`'s path.
std::unique_ptr<elf::ElfFile> dwarf_source(std::unique_ptr<elf::ElfFile> elf);

// DEBUG_DIR/.build-id/xx/yyyy.debug for a build ID (a file's note, or the
// one .gnu_debugaltlink gives a dwz file), or "" for one under 2 bytes.
std::string build_id_path(const std::string& debug_dir, Bytes build_id);

// The places open_debug_file looks at, in its order (for messages).
std::vector<std::string> debug_file_candidates(const elf::ElfFile& elf,
                                               const std::string& debug_dir = "/usr/lib/debug");

}  // namespace btfc::dwarf
