// --stats prints, for every phase, its wall time, the CPU time the whole
// process spent meanwhile and the peak RSS: a phase that computes shows
// its CPU, one that waits shows next to none.
#include "base/timer.h"

#include <gtest/gtest.h>

#include <time.h>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <thread>

namespace btfc {
namespace {

double thread_cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

struct Line {
  double wall = -1, cpu = -1;
};

// The line `name` got in print_phase_stats' output.
Line phase_line(const std::string& name) {
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buf, &size);
  print_phase_stats(out);
  std::fclose(out);
  std::istringstream text(std::string(buf, size));
  std::free(buf);
  for (std::string line; std::getline(text, line);) {
    std::istringstream words(line);
    std::string got, s, cpu_word, s2;
    Line l;
    if (words >> got >> l.wall >> s >> cpu_word >> l.cpu >> s2 && got == name) {
      EXPECT_EQ(s, "s");
      EXPECT_EQ(cpu_word, "cpu");
      return l;
    }
  }
  ADD_FAILURE() << "no line for " << name;
  return {};
}

TEST(PhaseTimer, TellsComputingFromWaiting) {
  record_phase_stats(true);
  {
    PhaseTimer t("test.computing");
    // Until this thread has had 0.2 s of CPU, however busy the machine.
    volatile uint64_t sink = 0;
    for (double start = thread_cpu_seconds(); thread_cpu_seconds() - start < 0.2;)
      for (int i = 0; i < 10000; i++) sink = sink + i;
  }
  {
    PhaseTimer t("test.waiting");
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  }
  Line computing = phase_line("test.computing");
  EXPECT_GE(computing.cpu, 0.19);
  EXPECT_GE(computing.wall, 0.19);
  Line waiting = phase_line("test.waiting");
  EXPECT_GE(waiting.wall, 0.39);
  EXPECT_LT(waiting.cpu, 0.2);
  EXPECT_GE(waiting.cpu, 0.0);
  record_phase_stats(false);
}

// Unasked (no --stats), a finished timer leaves no line.
TEST(PhaseTimer, KeepsNothingUnlessAsked) {
  record_phase_stats(false);
  { PhaseTimer t("test.unasked"); }
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buf, &size);
  print_phase_stats(out);
  std::fclose(out);
  const std::string text(buf, size);
  std::free(buf);
  EXPECT_EQ(text.find("test.unasked"), std::string::npos) << text;
}

}  // namespace
}  // namespace btfc
