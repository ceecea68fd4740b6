#include "base/timer.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "base/trace.h"

namespace btfc {

namespace {
struct Record {
  const char* name;
  double seconds;
  double cpu;
  size_t peak_rss;
};
std::mutex g_mu;
std::vector<Record> g_records;
std::atomic<bool> g_recording{false};
}  // namespace

void record_phase_stats(bool on) { g_recording.store(on, std::memory_order_relaxed); }

PhaseTimer::PhaseTimer(const char* name)
    : name_(name), record_(g_recording.load(std::memory_order_relaxed)), trace_(trace::enabled()) {
  if (record_ || trace_) start_ = std::chrono::steady_clock::now();
  if (record_) start_cpu_ = process_cpu_seconds();
}

PhaseTimer::~PhaseTimer() {
  if (!record_ && !trace_) return;
  const auto end = std::chrono::steady_clock::now();
  if (trace_) trace::phase(name_, start_, end);
  if (!record_) return;
  double s = std::chrono::duration<double>(end - start_).count();
  double cpu = process_cpu_seconds() - start_cpu_;
  std::lock_guard lock(g_mu);
  g_records.push_back({name_, s, cpu, peak_rss_bytes()});
}

double process_cpu_seconds() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return sec(ru.ru_utime) + sec(ru.ru_stime);
}

size_t peak_rss_bytes() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<size_t>(ru.ru_maxrss) * 1024;
}

// Batch mode times every file's phases; records of one name are summed
// (and counted), so the list stays one line per phase in first-seen order.
void print_phase_stats(std::FILE* out) {
  std::lock_guard lock(g_mu);
  struct Sum {
    const char* name;
    double seconds, cpu;
    size_t peak_rss, count;
  };
  std::vector<Sum> sums;
  for (const Record& r : g_records) {
    auto it = std::find_if(sums.begin(), sums.end(), [&](const Sum& s) { return std::strcmp(s.name, r.name) == 0; });
    if (it == sums.end()) {
      sums.push_back({r.name, r.seconds, r.cpu, r.peak_rss, 1});
    } else {
      it->seconds += r.seconds;
      it->cpu += r.cpu;
      it->peak_rss = std::max(it->peak_rss, r.peak_rss);
      it->count++;
    }
  }
  for (const Sum& s : sums) {
    std::fprintf(out, "%-12s %8.3f s   cpu %7.3f s   peak RSS %7.1f MB", s.name, s.seconds, s.cpu,
                 s.peak_rss / 1e6);
    if (s.count > 1) std::fprintf(out, "   (summed over %zu runs)", s.count);
    std::fprintf(out, "\n");
  }
}

}  // namespace btfc
