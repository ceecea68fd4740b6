// The kernel as the judge of a module tree's BTF (a program, not a test):
// each split BTF FILE, glued onto BASE as one standalone table (base types
// and then the module's, base strings and then the module's: split ids and
// string offsets already continue the base's), goes to BPF_BTF_LOAD
// through libbpf, as root.
//
//   build/bench/bench_kernel_load BASE FILE...
//
// Prints each refused FILE with libbpf's error, then how many loaded and
// the wall time. Exit status: 0 all loaded, 1 some refused or unreadable,
// 77 the kernel lets this process load no BTF (not root, BPF disabled).
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

constexpr size_t kHeader = 24;  // every btfc output and libbpf's: no longer header

std::vector<uint8_t> read_all(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

uint32_t u32(const std::vector<uint8_t>& v, size_t at) {
  uint32_t w;
  std::memcpy(&w, v.data() + at, 4);
  return w;
}

// A raw little-endian BTF file with the 24-byte header and the types
// before the strings, as btfc and pahole write it; empty otherwise.
bool plain_layout(const std::vector<uint8_t>& v) {
  if (v.size() < kHeader || u32(v, 0) != 0x0001eb9f || u32(v, 4) != kHeader || u32(v, 8) != 0) return false;
  uint64_t types = u32(v, 12), str_off = u32(v, 16), strs = u32(v, 20);
  return str_off == types && kHeader + types + strs == v.size();
}

std::vector<uint8_t> glue(const std::vector<uint8_t>& base, const std::vector<uint8_t>& split) {
  const uint32_t btl = u32(base, 12), bsl = u32(base, 20), stl = u32(split, 12), ssl = u32(split, 20);
  std::vector<uint8_t> out(base.begin(), base.begin() + kHeader + btl);
  out.insert(out.end(), split.begin() + kHeader, split.begin() + kHeader + stl);
  out.insert(out.end(), base.begin() + kHeader + btl, base.end());
  out.insert(out.end(), split.begin() + kHeader + stl, split.end());
  const uint32_t types = btl + stl, strings = bsl + ssl;
  std::memcpy(out.data() + 12, &types, 4);
  std::memcpy(out.data() + 16, &types, 4);
  std::memcpy(out.data() + 20, &strings, 4);
  return out;
}

int quiet(enum libbpf_print_level, const char*, va_list) { return 0; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s BASE FILE...\n", argv[0]);
    return 2;
  }
  std::vector<uint8_t> base = read_all(argv[1]);
  if (!plain_layout(base)) {
    std::fprintf(stderr, "%s: not raw little-endian BTF with types before strings\n", argv[1]);
    return 1;
  }
  libbpf_set_print(quiet);  // a refusal's verifier log is the whole table
  const auto start = std::chrono::steady_clock::now();
  int loaded = 0, refused = 0;
  for (int i = 2; i < argc; i++) {
    std::vector<uint8_t> split = read_all(argv[i]);
    if (!plain_layout(split)) {
      std::printf("%s: not raw little-endian BTF with types before strings\n", argv[i]);
      refused++;
      continue;
    }
    std::vector<uint8_t> bytes = glue(base, split);
    btf* b = btf__new(bytes.data(), bytes.size());
    int err = b ? btf__load_into_kernel(b) : -errno;
    btf__free(b);
    if (err == -EPERM || err == -EACCES || err == -ENOSYS) {
      std::printf("*** the kernel lets this process load no BTF (%s): NOTHING CHECKED ***\n", std::strerror(-err));
      return 77;
    }
    if (err) {
      std::printf("%s: refused (%s)\n", argv[i], std::strerror(-err));
      refused++;
    } else {
      loaded++;
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("kernel loaded %d of %d split BTF files on %s (%d refused), %.1f s\n", loaded, loaded + refused, argv[1],
              refused, secs);
  return refused ? 1 : 0;
}
