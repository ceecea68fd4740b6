// Loading BTF into the running kernel through libbpf, for the tests and
// for bench_kernel_load (which checks a whole module tree): only libbpf
// and the standard library, no test framework.
#pragma once

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace btfc::btf::testing {

enum class LoadResult { Loaded, Refused, NotAllowed };

// The kernel takes split BTF only from a module's .BTF at insmod time; a
// BPF_BTF_LOAD blob has no base. Split BTF continues its base's ids and
// string offsets, so base + split glued together (types after types,
// strings after strings) is the standalone BTF the kernel would check the
// module against: that is what gets loaded. Both little-endian, each with
// the 24-byte header and its types before its strings.
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
// loudly then. `why` gets the reason of a refusal; libbpf prints the
// kernel's log through whatever print function it was given.
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
    if (why) *why = std::string("kernel refused it: ") + std::strerror(-err);
    return LoadResult::Refused;
  }
  return LoadResult::Loaded;
}

// load_into_kernel() with libbpf's printing off: for BTF meant to be
// refused, whose log would repeat the whole table.
inline LoadResult load_into_kernel_quietly(const std::vector<uint8_t>& bytes, std::string* why = nullptr) {
  libbpf_print_fn_t old = libbpf_set_print(nullptr);
  const LoadResult r = load_into_kernel(bytes, why);
  libbpf_set_print(old);
  return r;
}

}  // namespace btfc::btf::testing
