// The kernel as the judge of a module tree's BTF (a program, not a test):
// each split BTF FILE, glued onto BASE as one standalone table, goes to
// BPF_BTF_LOAD through libbpf, as root (tests/support/kernel_btf.h, which
// the kernel-load tests use too).
//
//   build/bench/bench_kernel_load [-p] BASE FILE...
//
// -p only has libbpf read each FILE on BASE (btf__parse_split): a 64-bit
// kernel refuses a 32-bit target's BTF (i386, armhf), taking its pointers
// as 8 bytes.
//
// Every file is first parsed by libbpf (btf__parse, btf__parse_split on
// BASE), which is all -p checks. BTF of the other byte order (a big-endian
// target's: s390x) is then rewritten in the host's (btf__set_endianness:
// only the byte order changes), as libbpf does itself before it loads it.
//
// Prints each refused FILE with libbpf's error, then how many loaded and
// the wall time. Exit status: 0 all loaded, 1 some refused or unreadable,
// 77 the kernel lets this process load no BTF (not root, BPF disabled).
#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "support/kernel_btf.h"

using btfc::btf::testing::LoadResult;

namespace {

constexpr size_t kHeader = 24;  // every btfc output and libbpf's: no longer header

uint32_t u32(const std::vector<uint8_t>& v, size_t at) {
  uint32_t w;
  std::memcpy(&w, v.data() + at, 4);
  return w;
}

// A raw little-endian BTF file with the 24-byte header and the types
// before the strings, as btfc and pahole write it: what glue_split takes.
bool plain_layout(const std::vector<uint8_t>& v) {
  if (v.size() < kHeader || u32(v, 0) != 0x0001eb9f || u32(v, 4) != kHeader || u32(v, 8) != 0) return false;
  uint64_t types = u32(v, 12), str_off = u32(v, 16), strs = u32(v, 20);
  return str_off == types && kHeader + types + strs == v.size();
}

int quiet(enum libbpf_print_level, const char*, va_list) { return 0; }

// `b`'s bytes in the host's byte order (libbpf swaps them when the file
// had the other), as plain_layout BTF; empty if libbpf gives another layout.
std::vector<uint8_t> host_order_bytes(struct btf* b) {
  btf__set_endianness(b, BTF_LITTLE_ENDIAN);
  uint32_t size = 0;
  const auto* raw = static_cast<const uint8_t*>(btf__raw_data(b, &size));
  std::vector<uint8_t> out(raw, raw + size);
  return plain_layout(out) ? out : std::vector<uint8_t>{};
}

}  // namespace

int main(int argc, char** argv) {
  // -p: libbpf reads each file on the base, nothing is loaded: for 32-bit
  // targets, whose BTF a 64-bit kernel refuses (it takes pointers as 8 bytes).
  const bool parse_only = argc > 1 && std::strcmp(argv[1], "-p") == 0;
  if (parse_only) {
    argv++;
    argc--;
  }
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s [-p] BASE FILE...\n", argv[0]);
    return 2;
  }
  libbpf_set_print(quiet);  // a refusal's verifier log is the whole table
  // Every file goes through libbpf once: -p's check, and the byte order.
  struct btf* base_btf = btf__parse(argv[1], nullptr);
  std::vector<uint8_t> base = base_btf ? host_order_bytes(base_btf) : std::vector<uint8_t>{};
  if (base.empty()) {
    std::fprintf(stderr, "%s: not raw BTF that libbpf reads\n", argv[1]);
    return 1;
  }
  const auto start = std::chrono::steady_clock::now();
  int loaded = 0, refused = 0;
  for (int i = 2; i < argc; i++) {
    struct btf* b = btf__parse_split(argv[i], base_btf);
    std::vector<uint8_t> split = b ? host_order_bytes(b) : std::vector<uint8_t>{};
    btf__free(b);
    if (split.empty()) {
      std::printf("%s: not raw split BTF that libbpf reads on the base\n", argv[i]);
      refused++;
      continue;
    }
    if (parse_only) {
      loaded++;
      continue;
    }
    std::string why;
    switch (btfc::btf::testing::load_into_kernel(btfc::btf::testing::glue_split(base, split), &why)) {
      case LoadResult::NotAllowed:
        std::printf("*** the kernel lets this process load no BTF (EPERM/ENOSYS): NOTHING CHECKED ***\n");
        return 77;
      case LoadResult::Refused:
        std::printf("%s: %s\n", argv[i], why.c_str());
        refused++;
        break;
      case LoadResult::Loaded:
        loaded++;
        break;
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s %d of %d split BTF files on %s (%d refused), %.1f s\n", parse_only ? "libbpf read" : "kernel loaded",
              loaded, loaded + refused, argv[1], refused, secs);
  btf__free(base_btf);
  return refused ? 1 : 0;
}
