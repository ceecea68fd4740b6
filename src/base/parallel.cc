#include "base/parallel.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace btfc {

namespace {
unsigned g_jobs = 0;
}

void set_jobs(unsigned n) { g_jobs = n; }

unsigned jobs() {
  if (g_jobs) return g_jobs;
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? hw : 1;
}

void parallel_for(size_t n, const std::function<void(size_t)>& body) {
  if (n == 0) return;
  std::mutex mu;
  size_t failed_index = n;
  std::exception_ptr failed;
  auto run = [&](size_t i) {
    try {
      body(i);
    } catch (...) {
      std::lock_guard lock(mu);
      if (i < failed_index) {
        failed_index = i;
        failed = std::current_exception();
      }
    }
  };
  unsigned threads = jobs();
  if (threads <= 1 || n == 1) {
    for (size_t i = 0; i < n; i++) run(i);
  } else {
    tbb::task_arena arena(static_cast<int>(threads));
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 1), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i != r.end(); i++) run(i);
      });
    });
  }
  if (failed) std::rethrow_exception(failed);
}

}  // namespace btfc
