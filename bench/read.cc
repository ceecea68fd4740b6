// Benchmark of the encoder's "read" phase (a program, not a test): for each
// FILE, what `btfc encode` does before converting any unit: open and map
// the ELF file, DwarfFile (debug sections decompressed and relocated, unit
// headers, abbreviations, root DIEs), FunctionIndex and VariableIndex; then
// everything is freed, as a batch run frees each module. Files are spread
// over the threads as batch mode does, biggest first.
//
//   build/bench/bench_read [-jN] [-rR] FILE...     (default -j2 -r5)
//
// Prints, per repetition and as the best and the median of R: wall time,
// process CPU time (user and system) and minor page faults. On a shared
// machine the best CPU figures and the fault counts are the ones to trust.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "convert/functions.h"
#include "convert/variables.h"
#include "dwarf/dwarf_file.h"
#include "elf/elf_file.h"

using namespace btfc;

namespace {

struct Sample {
  double wall, user, sys;
  long minflt;
};

Sample now() {
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  return {wall, ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6, ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
          ru.ru_minflt};
}

}  // namespace

int main(int argc, char** argv) {
  unsigned jobs = 2, reps = 5;
  std::vector<std::string> files;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a.rfind("-j", 0) == 0) jobs = static_cast<unsigned>(std::atoi(a.c_str() + 2));
    else if (a.rfind("-r", 0) == 0) reps = static_cast<unsigned>(std::atoi(a.c_str() + 2));
    else files.push_back(a);
  }
  if (files.empty() || reps == 0) {
    std::fprintf(stderr, "usage: bench_read [-jN] [-rR] FILE...\n");
    return 2;
  }
  set_jobs(jobs);
  std::vector<uintmax_t> size(files.size());
  for (size_t i = 0; i < files.size(); i++) size[i] = std::filesystem::file_size(files[i]);
  std::vector<size_t> order(files.size());
  for (size_t i = 0; i < order.size(); i++) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return size[a] > size[b]; });
  std::vector<Sample> runs;
  try {
    for (unsigned r = 0; r < reps; r++) {
      Sample a = now();
      parallel_for(files.size(), [&](size_t k) {
        auto elf = elf::ElfFile::open(files[order[k]]);
        dwarf::DwarfFile dw(*elf);
        convert::FunctionIndex functions(*elf, convert::FunctionIndex::Options{});
        convert::VariableIndex variables(*elf, convert::VariableOptions{});
      });
      Sample b = now();
      runs.push_back({b.wall - a.wall, b.user - a.user, b.sys - a.sys, b.minflt - a.minflt});
      std::printf("run %u: %.3f s wall, %.3f s user, %.3f s sys, %ld minor faults\n", r + 1, runs.back().wall,
                  runs.back().user, runs.back().sys, runs.back().minflt);
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_read: %s\n", e.what());
    return 1;
  }
  auto stat = [&](const char* name, auto field) {
    std::vector<double> v;
    for (const Sample& s : runs) v.push_back(field(s));
    std::sort(v.begin(), v.end());
    std::printf("%-6s best %.3f  median %.3f\n", name, v.front(), v[v.size() / 2]);
  };
  std::printf("%zu files, -j%u, %u runs\n", files.size(), jobs, reps);
  stat("wall", [](const Sample& s) { return s.wall; });
  stat("user", [](const Sample& s) { return s.user; });
  stat("sys", [](const Sample& s) { return s.sys; });
  stat("cpu", [](const Sample& s) { return s.user + s.sys; });
  stat("faults", [](const Sample& s) { return double(s.minflt); });
  return 0;
}
