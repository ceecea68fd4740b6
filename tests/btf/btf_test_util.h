// Helpers shared by the BTF tests: where the pahole reference files are,
// reading whole files, and loading BTF into the running kernel via libbpf.
#pragma once

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace btfc::btf::testing {

// ../shared/reference/pahole-1.31 of the checkout; a helper's worktree
// (/work/wt/NAME) has no ../shared next to it, so fall back to /work/shared.
inline std::string reference_dir() {
  std::string d = test::shared_dir() + "/reference/pahole-1.31";
  if (std::filesystem::exists(d)) return d;
  return "/work/shared/reference/pahole-1.31";
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::string s = test::read_file(path);
  return std::vector<uint8_t>(s.begin(), s.end());
}

inline const std::vector<std::string>& reference_modules() { return test::corpus_modules(); }

enum class LoadResult { Loaded, Refused, NotAllowed };

// The kernel takes split BTF only from a module's .BTF at insmod time; a
// BPF_BTF_LOAD blob has no base. Split BTF continues its base's ids and
// string offsets, so base + split glued together (types after types,
// strings after strings) is the standalone BTF the kernel would check the
// module against: that is what gets loaded. Both little-endian.
inline std::vector<uint8_t> glue_split(const std::vector<uint8_t>& base, const std::vector<uint8_t>& split) {
  auto u32 = [](const std::vector<uint8_t>& v, size_t at) {
    uint32_t w;
    std::memcpy(&w, v.data() + at, 4);
    return w;
  };
  auto put = [](std::vector<uint8_t>& v, size_t at, uint32_t w) { std::memcpy(v.data() + at, &w, 4); };
  uint32_t btl = u32(base, 12), bsl = u32(base, 20), stl = u32(split, 12), ssl = u32(split, 20);
  std::vector<uint8_t> out(base.begin(), base.begin() + 24 + btl);
  out.insert(out.end(), split.begin() + 24, split.begin() + 24 + stl);
  out.insert(out.end(), base.begin() + 24 + btl, base.begin() + 24 + btl + bsl);
  out.insert(out.end(), split.begin() + 24 + stl, split.begin() + 24 + stl + ssl);
  put(out, 12, btl + stl);
  put(out, 16, btl + stl);
  put(out, 20, bsl + ssl);
  return out;
}

// Hands raw standalone BTF to the kernel (BPF_BTF_LOAD) through libbpf.
// NotAllowed: no permission (not root, or BPF disabled) - callers skip
// loudly then.
inline LoadResult load_into_kernel(const std::vector<uint8_t>& bytes, std::string* why = nullptr) {
  struct btf* b = btf__new(bytes.data(), bytes.size());
  if (!b) {
    if (why) *why = std::string("libbpf cannot parse it: ") + std::strerror(errno);
    return LoadResult::Refused;
  }
  int err = btf__load_into_kernel(b);
  btf__free(b);
  if (err == -EPERM || err == -EACCES || err == -ENOSYS) return LoadResult::NotAllowed;
  if (err) {
    if (why) *why = std::string("kernel refused it: ") + std::strerror(-err) + " (libbpf printed the log above)";
    return LoadResult::Refused;
  }
  return LoadResult::Loaded;
}

#define BTFC_EXPECT_LOADS(bytes)                                                                         \
  do {                                                                                                   \
    std::string why_;                                                                                    \
    auto r_ = ::btfc::btf::testing::load_into_kernel((bytes), &why_);                                    \
    if (r_ == ::btfc::btf::testing::LoadResult::NotAllowed)                                              \
      GTEST_SKIP() << "\n*** THE KERNEL DOES NOT LET THIS PROCESS LOAD BTF (EPERM/ENOSYS): the kernel " \
                      "acceptance check did NOT run ***\n";                                              \
    EXPECT_EQ(r_, ::btfc::btf::testing::LoadResult::Loaded) << why_;                                     \
  } while (0)

}  // namespace btfc::btf::testing
