// Helpers shared by all tests: running commands, compiling C fixtures with
// gcc or clang into a scratch folder, finding the unpacked corpus, and
// asking which of a file's pages the page cache holds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace btfc::test {

struct RunResult {
  int status = -1;  // exit status, or -1 if the command did not exit normally
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `command` through /bin/sh and captures stdout and stderr.
RunResult run(const std::string& command);

// Runs btfc with the given argument string (already shell-quoted).
RunResult run_btfc(const std::string& args);

// A fresh scratch folder under the build tree, removed at exit.
std::string scratch_dir();

// Writes `source` to NAME.c in a scratch folder, compiles it with `command`
// (for example "gcc -g -c" or "clang --target=aarch64-linux-gnu -g -c") and
// returns the output path. Fails the calling test if compilation fails.
std::string compile_c(const std::string& name, const std::string& source, const std::string& command);

// Folder holding vmlinux and mods/*.ko unpacked from ../shared/corpus
// (BTFC_CORPUS_DIR, default /var/tmp/btfc-corpus). Empty if not unpacked.
std::string corpus_dir();

// The nine corpus module names (ext4, nf_tables, ...).
const std::vector<std::string>& corpus_modules();

std::string shared_dir();
std::string read_file(const std::string& path);
bool tool_exists(const std::string& name);

// Pages of [offset, offset + size) of the open file `fd` that are not in
// the page cache (mincore on a mapping: nothing is read); -1 if it cannot
// be asked. The kernel answers only to the file's owner (or root) or a
// writer; to others every page reads as not cached: check with a page
// just read before trusting a count.
long uncached_pages(int fd, uint64_t offset, uint64_t size);

}  // namespace btfc::test
