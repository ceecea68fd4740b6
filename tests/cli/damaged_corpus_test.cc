// Real modules with random damage, through the command line as a user runs
// it: every run ends with exit status 0 or 1, never a signal; a failure is
// one line, "btfc: FILE: ...", naming the file; an in-place encode (-J)
// that fails leaves the file's bytes as they were. The fuzz targets take
// inputs of a few KB; these are whole modules, which reach the parallel
// paths, the per-unit relocation and the dedup of thousands of types.
// The damage is drawn from a fixed seed, so a failure reproduces: bits
// flipped, bytes set to extremes, 32-bit words set to edge values, or the
// file cut short, in one of the sections an encode reads, the ELF header,
// the section headers or anywhere in the file.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "elf/elf_file.h"
#include "support/test_support.h"

namespace btfc::test {
namespace {

struct Region {
  std::string name;
  uint64_t offset, size;
};

// Where damage goes: the sections an encode reads, the headers, the file.
std::vector<Region> regions_of(const std::string& path, const std::string& bytes) {
  std::unique_ptr<elf::ElfFile> elf = elf::ElfFile::open(path);
  std::vector<Region> out;
  for (const elf::Section& s : elf->sections()) {
    const std::string_view n = s.name;
    if (n == ".debug_info" || n == ".debug_abbrev" || n == ".debug_str" || n == ".debug_line_str" ||
        n == ".rela.debug_info" || n == ".debug_loclists" || n == ".rela.debug_loclists" || n == ".symtab" ||
        n == ".strtab" || n == ".BTF")
      if (s.size > 0) out.push_back({std::string(n), s.offset, s.size});
  }
  uint64_t shoff = 0;  // e_shoff of ELF64 little-endian, as every corpus module is
  std::memcpy(&shoff, bytes.data() + 0x28, 8);
  out.push_back({"ELF header", 0, 64});
  out.push_back({"section headers", shoff, bytes.size() - shoff});
  out.push_back({"file", 0, bytes.size()});
  return out;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void sweep(const std::string& module, int trials, uint32_t seed) {
  const std::string dir = corpus_dir();
  if (dir.empty()) GTEST_SKIP() << "LOUD SKIP: corpus not unpacked (scripts/unpack-corpus.sh)";
  const std::string path = dir + "/mods/" + module;
  const std::string good = read_file(path);
  ASSERT_GT(good.size(), 64u);
  const std::vector<Region> regions = regions_of(path, good);
  ASSERT_GE(regions.size(), 8u) << "the module lacks the sections to damage";
  const std::string base = shared_dir() + "/reference/pahole-1.31/vmlinux.legacy-flags.btf";
  const std::string base_flag = std::filesystem::exists(base) ? " --btf_base=" + base : "";
  const std::string scratch = scratch_dir();
  const std::string in = scratch + "/" + module, out = scratch + "/out.btf";
  std::mt19937 rng(seed);
  auto below = [&](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
  int failures = 0;
  for (int t = 0; t < trials; t++) {
    std::string bytes = good;
    const Region& r = regions[below(regions.size())];
    std::string what = r.name;
    const int kind = static_cast<int>(below(4));
    if (kind == 3) {
      const uint64_t cut = r.offset + below(r.size);
      bytes.resize(cut);
      what += " cut at " + std::to_string(cut);
    } else {
      const int count = 1 << below(5);  // 1 to 16 places
      for (int i = 0; i < count; i++) {
        const uint64_t at = r.offset + below(r.size);
        if (kind == 0) {
          bytes[at] = static_cast<char>(bytes[at] ^ (1 << below(8)));
        } else if (kind == 1) {
          constexpr uint8_t kBytes[] = {0, 0xff, 0x80, 0x7f};
          bytes[at] = static_cast<char>(kBytes[below(4)]);
        } else {
          const uint32_t kWords[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, static_cast<uint32_t>(good.size())};
          const uint32_t w = kWords[below(6)];
          for (int k = 0; k < 4 && at + k < bytes.size(); k++) bytes[at + k] = static_cast<char>(w >> (8 * k));
        }
      }
      what += std::string(kind == 0 ? " bits flipped" : kind == 1 ? " bytes set" : " words set") + " at " +
              std::to_string(count) + " places";
    }
    write_file(in, bytes);
    const int command = static_cast<int>(below(3));
    const std::string args = command == 0   ? "encode -J -j2" + base_flag + " " + in
                             : command == 1 ? "encode -j2" + base_flag + " " + in + " --btf_encode_detached=" + out
                                            : "layout " + in;
    const RunResult run = run_btfc(args);
    const std::string context = "trial " + std::to_string(t) + " (seed " + std::to_string(seed) + "): " + what +
                                ": btfc " + args + "\n" + run.err;
    ASSERT_TRUE(run.status == 0 || run.status == 1) << "exit status " << run.status << ", " << context;
    if (run.status == 1) {
      failures++;
      EXPECT_EQ(run.err.rfind("btfc: " + in + ": ", 0), 0u) << "the message does not name the file: " << context;
      EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "not one line: " << context;
      if (command == 0) {
        EXPECT_TRUE(read_file(in) == bytes) << "a failed in-place encode changed its input: " << context;
      }
    }
  }
  // The damage is real: most runs fail (some damage hits bytes that no
  // reader looks at, or a string's text).
  EXPECT_GT(failures, trials / 4) << failures << " of " << trials << " damaged files were taken as good";
}

TEST(DamagedCorpus, DmCryptEndsInAnExitStatusAndOneLine) { sweep("dm-crypt.ko", 80, 1); }
TEST(DamagedCorpus, SndEndsInAnExitStatusAndOneLine) { sweep("snd.ko", 40, 2); }

}  // namespace
}  // namespace btfc::test
