#include "support/test_support.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace btfc::test {

namespace fs = std::filesystem;

RunResult run(const std::string& command) {
  std::string dir = scratch_dir();
  static int counter = 0;
  std::string out = dir + "/run" + std::to_string(counter) + ".out";
  std::string err = dir + "/run" + std::to_string(counter++) + ".err";
  int rc = std::system(("(" + command + ") >" + out + " 2>" + err + " </dev/null").c_str());
  RunResult r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

RunResult run_btfc(const std::string& args) { return run(std::string(BTFC_BINARY) + " " + args); }

std::string scratch_dir() {
  static std::string dir = [] {
    std::string tmpl = (fs::temp_directory_path() / "btfc-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    return tmpl;
  }();
  static struct Cleanup {
    ~Cleanup() {
      std::error_code ec;
      if (!std::getenv("BTFC_KEEP_SCRATCH")) fs::remove_all(dir, ec);
    }
  } cleanup;
  return dir;
}

std::string compile_c(const std::string& name, const std::string& source, const std::string& command) {
  std::string dir = scratch_dir();
  std::string src = dir + "/" + name + ".c";
  std::ofstream(src) << source;
  bool link = command.find(" -c") == std::string::npos;
  std::string out = dir + "/" + name + (link ? "" : ".o");
  RunResult r = run(command + " " + src + " -o " + out);
  EXPECT_EQ(r.status, 0) << command << " failed:\n" << r.err;
  return out;
}

std::string corpus_dir() {
  const char* env = std::getenv("BTFC_CORPUS_DIR");
  std::string dir = env && *env ? env : "/var/tmp/btfc-corpus";
  return fs::exists(dir + "/vmlinux") ? dir : "";
}

const std::vector<std::string>& corpus_modules() {
  static const std::vector<std::string> mods = {"ext4",      "nf_tables",     "kvm",      "e1000e", "bluetooth",
                                                "wireguard", "zstd_compress", "dm-crypt", "snd"};
  return mods;
}

// A clone elsewhere than beside shared/ (a helper's worktree, /tmp/x)
// falls back to the workplace's.
std::string shared_dir() {
  if (std::filesystem::exists(BTFC_SHARED_DIR)) return BTFC_SHARED_DIR;
  return "/work/shared";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool tool_exists(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

long uncached_pages(int fd, uint64_t offset, uint64_t size) {
  // mincore() on a mapping of the file: it reads nothing (a probing read,
  // even one that may not wait, starts the kernel's read-ahead).
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size == 0) return -1;
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  void* p = mmap(nullptr, file_size, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return -1;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((file_size + page - 1) / page);
  long n = -1;
  if (mincore(p, file_size, resident.data()) == 0) {
    n = 0;
    const uint64_t end = std::min(file_size, offset + size);
    for (uint64_t at = offset / page * page; at < end; at += page) n += !(resident[at / page] & 1);
  }
  munmap(p, file_size);
  return n;
}

}  // namespace btfc::test
