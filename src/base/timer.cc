#include "base/timer.h"

#include <sys/resource.h>

#include <mutex>
#include <vector>

namespace btfc {

namespace {
struct Record {
  std::string name;
  double seconds;
  size_t peak_rss;
};
std::mutex g_mu;
std::vector<Record> g_records;
}  // namespace

PhaseTimer::PhaseTimer(std::string name) : name_(std::move(name)), start_(std::chrono::steady_clock::now()) {}

PhaseTimer::~PhaseTimer() {
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::lock_guard lock(g_mu);
  g_records.push_back({name_, s, peak_rss_bytes()});
}

size_t peak_rss_bytes() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<size_t>(ru.ru_maxrss) * 1024;
}

void print_phase_stats(std::FILE* out) {
  std::lock_guard lock(g_mu);
  for (const Record& r : g_records)
    std::fprintf(out, "%-12s %8.3f s   peak RSS %7.1f MB\n", r.name.c_str(), r.seconds, r.peak_rss / 1e6);
}

}  // namespace btfc
