// llvm-dwarfdump as the oracle for the DWARF reader: what `btfc stats FILE`
// must print, computed from `llvm-dwarfdump-14 --debug-info --debug-types`
// (one `0xOFFSET: DW_TAG_x` line per DIE, one `0xOFFSET: ... Unit:` line per
// unit; null entries print as NULL and are not counted).
#pragma once

#include <string>

namespace btfc::test {

// The expected `btfc stats` output for FILE, or "" if llvm-dwarfdump failed.
std::string llvm_dwarfdump_stats(const std::string& file);

}  // namespace btfc::test
