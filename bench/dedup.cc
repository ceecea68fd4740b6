// Dedup speed, btfc against libbpf's btf__dedup, on the same input in the
// same run: the pahole 1.31 reference BTF of vmlinux concatenated with each
// of the nine module references, every module preceded by its own copy of
// vmlinux (so ~100k shared types appear ten times over, as they do when an
// encoder joins its per-unit tables), as one standalone table.
//
//   bench_dedup [REFERENCE_DIR] [REPETITIONS]
//
// Prints the median of each over the repetitions, the ratio, and checks
// that both produced the same number of types per kind. libbpf's time
// includes turning its parsed table into a modifiable one (part of its
// btf__dedup); ours starts from a table already in memory.
#include <bpf/btf.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/timer.h"
#include "btf/dedup.h"
#include "btf/merge.h"
#include "btf/reader.h"
#include "btf/writer.h"

using namespace btfc;
using namespace btfc::btf;

namespace {

const char* const kModules[] = {"ext4", "nf_tables", "kvm", "e1000e", "bluetooth",
                                "wireguard", "zstd_compress", "dm-crypt", "snd"};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::array<uint32_t, KIND_MAX + 1> counts(const Btf& b) {
  std::array<uint32_t, KIND_MAX + 1> c{};
  for (TypeId id = b.start_id(); id < b.end_id(); ++id) ++c[static_cast<unsigned>(b.kind(id))];
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : "/work/shared/reference/pahole-1.31";
  int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  record_phase_stats(std::getenv("BENCH_DEDUP_PHASES") != nullptr);
  try {
    Btf vmlinux = read_file(dir + "/vmlinux.legacy-flags.btf");
    Btf input;
    for (const char* m : kModules) {
      Btf mod = read_file(dir + "/" + m + ".legacy-flags.btf", &vmlinux);
      TypeId first = append(input, vmlinux);
      std::vector<TypeId> base_ids(vmlinux.end_id());
      for (TypeId id = 1; id < vmlinux.end_id(); ++id) base_ids[id] = first + id - 1;
      append(input, mod, base_ids);
    }
    std::vector<uint8_t> raw = write_raw(input);
    std::printf("input: %u types, %zu bytes\n", input.type_count(), raw.size());

    std::vector<double> ours, theirs;
    Btf ours_result, theirs_result;
    for (int r = 0; r < reps; ++r) {
      Btf copy = read_raw(raw);
      auto t = std::chrono::steady_clock::now();
      dedup(copy);
      ours.push_back(seconds_since(t));
      if (r == 0) ours_result = std::move(copy);

      if (std::getenv("BENCH_DEDUP_BTFC_ONLY")) {  // for profiling ours alone
        theirs.push_back(0);
        theirs_result = read_raw(raw);
        continue;
      }
      struct btf* lb = btf__new(raw.data(), static_cast<uint32_t>(raw.size()));
      if (!lb) throw Error("libbpf cannot parse the input");
      t = std::chrono::steady_clock::now();
      int err = btf__dedup(lb, nullptr);
      theirs.push_back(seconds_since(t));
      if (err) throw Error("btf__dedup failed: " + std::to_string(err));
      if (r == 0) {
        uint32_t size = 0;
        const uint8_t* p = static_cast<const uint8_t*>(btf__raw_data(lb, &size));
        theirs_result = read_raw(Bytes(p, size));
      }
      btf__free(lb);
    }
    double o = median(ours), l = median(theirs);
    std::printf("output: btfc %u types, libbpf %u types, per-kind counts %s\n", ours_result.type_count(),
                theirs_result.type_count(), counts(ours_result) == counts(theirs_result) ? "equal" : "DIFFER");
    std::printf("output bytes: %s\n", write_raw(ours_result) == write_raw(theirs_result) ? "identical" : "differ");
    std::printf("btfc dedup:   %.3f s (median of %d)\n", o, reps);
    std::printf("libbpf dedup: %.3f s (median of %d)\n", l, reps);
    std::printf("speedup:      %.2fx\n", l / o);
    if (std::getenv("BENCH_DEDUP_PHASES")) print_phase_stats(stdout);  // btfc's passes, every repetition
    return counts(ours_result) == counts(theirs_result) ? 0 : 1;
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_dedup: %s\n", e.what());
    return 1;
  }
}
