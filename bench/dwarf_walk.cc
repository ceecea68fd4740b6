// Benchmark of the DWARF reader (a program, not a test): walks every DIE of
// a file and decodes every attribute (strings and references resolved, as
// `btfc stats` does), once on one thread and once on all cores, and prints
// the throughput in MB/s of .debug_info. The target is 300 MB/s per core.
//
//   build/bench/bench_dwarf_walk [FILE]    (default: the corpus vmlinux)
//
// Each configuration runs three times and the best time is kept. Besides
// wall-clock figures it prints MB per CPU-second (process CPU time), which
// stays meaningful when other processes share the machine.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <time.h>

#include "base/parallel.h"
#include "dwarf/dwarf_file.h"
#include "elf/elf_file.h"

using namespace btfc;

static double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  std::string path = argc > 1 ? argv[1] : "";
  if (path.empty()) {
    const char* dir = std::getenv("BTFC_CORPUS_DIR");
    path = std::string(dir && *dir ? dir : "/var/tmp/btfc-corpus") + "/vmlinux";
  }
  try {
    auto elf = elf::ElfFile::open(path);
    auto t0 = std::chrono::steady_clock::now();
    dwarf::DwarfFile dw(*elf);
    double open_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    uint64_t info_bytes = 0;
    for (const dwarf::Unit& u : dw.units()) info_bytes += u.end - u.offset;
    std::printf("%s: %zu units, %.1f MB of DIEs; headers+abbrevs+roots %.3f s\n", path.c_str(), dw.units().size(),
                info_bytes / 1e6, open_s);

    unsigned cores = std::thread::hardware_concurrency();
    for (unsigned threads : {1u, cores}) {
      set_jobs(threads);
      double best = 1e9, best_cpu = 1e9;
      uint64_t dies = 0;
      for (int round = 0; round < 3; round++) {
        // DIEs per unit, summed from decode_unit's counts by abbreviation
        // (which span the unit's abbreviation cache) in a buffer per thread.
        std::vector<uint64_t> unit_dies(dw.units().size());
        auto start = std::chrono::steady_clock::now();
        double cpu_start = cpu_seconds();
        parallel_for(dw.units().size(), [&](size_t i) {
          thread_local std::vector<uint64_t> counts;
          dwarf::decode_unit(dw, dw.units()[i], counts);
          for (uint64_t n : counts) unit_dies[i] += n;
        });
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        best = std::min(best, s);
        best_cpu = std::min(best_cpu, cpu_seconds() - cpu_start);
        dies = 0;
        for (uint64_t n : unit_dies) dies += n;
      }
      std::printf("%2u thread%s: %llu DIEs in %.3f s wall = %.0f MB/s (%.0f MB/s per thread); %.3f CPU-s = %.0f MB "
                  "per CPU-second\n",
                  threads, threads == 1 ? " " : "s", static_cast<unsigned long long>(dies), best,
                  info_bytes / 1e6 / best, info_bytes / 1e6 / best / threads, best_cpu, info_bytes / 1e6 / best_cpu);
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_dwarf_walk: %s\n", e.what());
    return 1;
  }
  return 0;
}
