// Per-phase wall-clock timers and peak memory for `--stats`.
//
//   { PhaseTimer t("read"); ... }   // recorded when t goes out of scope
//   print_phase_stats(stderr);
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace btfc {

class PhaseTimer {
 public:
  explicit PhaseTimer(std::string name);
  ~PhaseTimer();
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  std::string name_;
  std::chrono::steady_clock::time_point start_;
  double start_cpu_;
};

// CPU time of this process so far (all threads, user and system), in seconds.
double process_cpu_seconds();

// Peak resident set size of this process so far, in bytes.
size_t peak_rss_bytes();

// Prints "phase  seconds  cpu  peak-RSS" lines for every finished timer, in
// order. The CPU time is the whole process's during the phase: against the
// wall time, how many threads the phase kept busy.
void print_phase_stats(std::FILE* out);

}  // namespace btfc
