// Per-phase wall-clock timers and peak memory for `--stats`.
//
//   record_phase_stats(true);       // --stats asked for them
//   { PhaseTimer t("read"); ... }   // recorded when t goes out of scope
//   print_phase_stats(stderr);
//
// Unless asked (or a BTFC_TRACE trace is on), a timer measures nothing: a
// batch of modules runs about fifteen phases per module, and each
// measured one asks the kernel for the process's CPU time and peak RSS
// (three getrusage calls) and keeps a record.
#pragma once

#include <chrono>
#include <cstdio>

namespace btfc {

// Whether finished timers are kept for print_phase_stats (off at start).
void record_phase_stats(bool on);

class PhaseTimer {
 public:
  // `name` is a string literal (kept, not copied).
  explicit PhaseTimer(const char* name);
  ~PhaseTimer();
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  const char* name_;
  bool record_;  // for print_phase_stats (record_phase_stats(true) when made)
  bool trace_;   // for a BTFC_TRACE trace
  std::chrono::steady_clock::time_point start_;
  double start_cpu_ = 0;
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
