#include "base/parallel.h"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "base/trace.h"

namespace btfc {

namespace {
unsigned g_jobs = 0;
}

void set_jobs(unsigned n) {
  g_jobs = n;
  // More threads than the machine has cores (pahole's -jN means N threads
  // whatever the machine): TBB's worker limit defaults to the cores, and
  // an arena asking for more would get fewer, with a warning on stderr.
  static std::unique_ptr<tbb::global_control> limit;
  unsigned hw = std::thread::hardware_concurrency();
  if (n > hw) limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, n);
  else limit.reset();
}

unsigned jobs() {
  if (g_jobs) return g_jobs;
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? hw : 1;
}

namespace {

// > 0 while this thread runs an item of a loop on an arena (loops inside
// it are nested).
thread_local int t_item_depth = 0;

// This thread's arena of `threads` threads, made at its first loop of that
// many and kept until the thread ends. oneTBB (2021.8, Debian 12's) keeps
// about 7 KB of every arena made and destroyed, and makes each new one
// more slowly than the last: 20,000 loops with an arena each took 148 MB
// and 10 s, with one kept 4 MB and 0.02 s. A fuzz target, which reads an
// input per run, grew by 150 MB a minute and ran slower and slower.
tbb::task_arena& arena_of(unsigned threads) {
  thread_local std::vector<std::unique_ptr<tbb::task_arena>> arenas;  // by thread count
  if (arenas.size() <= threads) arenas.resize(threads + 1);
  if (!arenas[threads]) arenas[threads] = std::make_unique<tbb::task_arena>(static_cast<int>(threads));
  return *arenas[threads];
}

// Runs body(i) for every i; `loop` decides how the items are spread over
// the threads. Keeps the error of the lowest failing index.
template <typename Loop>
void run_items(size_t n, bool in_order, const std::function<void(size_t)>& body, Loop&& loop) {
  if (n == 0) return;
  FirstError errors;
  trace::Loop traced(n, in_order);
  auto run = [&](size_t i) {
    trace::Item item(traced, i);
    errors.run(i, [&] { body(i); });
  };
  unsigned threads = jobs();
  auto run_item = [&](size_t i) {
    ++t_item_depth;
    run(i);
    --t_item_depth;
  };
  if (threads <= 1 || n == 1) {
    for (size_t i = 0; i < n; i++) run(i);
  } else if (t_item_depth > 0) {
    // Inside another loop's arena: this one's items join it. An arena of
    // their own waits for a thread to leave the outer one (which it does
    // only after spinning there): a single small module's base, read in
    // one of the read phase's four items, was checked on one thread. The
    // waiting thread takes only this loop's items meanwhile (isolate), so
    // an outer item never starts on top of an unfinished one.
    tbb::this_task_arena::isolate([&] { loop(threads, run_item); });
  } else {
    // No more threads than items: a loop of 4 items at -j16 wakes 3
    // workers, not 15 that would find nothing to do and spin before they
    // sleep (a single small module's run at -j16 spent twice the CPU
    // time of -j1, for the same wall time).
    const unsigned used = static_cast<unsigned>(std::min<size_t>(threads, n));
    arena_of(used).execute([&] { loop(used, run_item); });
  }
  errors.rethrow();
}

}  // namespace

void parallel_for(size_t n, const std::function<void(size_t)>& body) {
  run_items(n, false, body, [n](unsigned, auto& run) {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 1), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t i = r.begin(); i != r.end(); i++) run(i);
    });
  });
}

void parallel_for_in_order(size_t n, const std::function<void(size_t)>& body) {
  run_items(n, true, body, [n](unsigned threads, auto& run) {
    // One task per thread, each taking the next item until none is left
    // (a task that starts late finds the items already taken).
    std::atomic<size_t> next{0};
    tbb::parallel_for(tbb::blocked_range<unsigned>(0, threads, 1), [&](const tbb::blocked_range<unsigned>&) {
      for (size_t i; (i = next.fetch_add(1)) < n;) run(i);
    });
  });
}

void run_beside(const std::function<void()>& main, size_t n, const std::function<void(size_t)>& item) {
  // main() is number 0, item(i) number i + 1.
  FirstError errors;
  trace::Loop traced(n + 1, false);
  auto run_main = [&] {
    trace::Item traced_main(traced, 0);
    errors.run(0, main);
  };
  auto run_item = [&](size_t i) {
    trace::Item traced_item(traced, i + 1);
    errors.run(i + 1, [&] { item(i); });
  };
  if (jobs() <= 1) {
    run_main();
    for (size_t i = 0; i < n; i++) run_item(i);
  } else {
    // Threads of their own, started now: the pool's, asleep, took up to
    // 0.13 s to join an arena whose only task was spawned beside a main()
    // that never waits (amdgpu.ko's dedup). Loops inside main() or an
    // item run on the pool as any loop outside a loop does.
    std::vector<std::thread> threads;
    for (size_t i = 0; i < n; ++i) threads.emplace_back([&run_item, i] { run_item(i); });
    run_main();
    for (std::thread& t : threads) t.join();
  }
  errors.rethrow();
}

}  // namespace btfc
