// The one place btfc runs work in parallel: a for-loop over independent
// items (units, modules, hash shards) on a TBB arena of `jobs` threads,
// and run_beside (a serial chain on this thread, helpers beside it).
//
//   parallel_for(units.size(), [&](size_t i) { convert_unit(units[i]); });
//
// Results must be written to slot i of a pre-sized vector so that output
// never depends on scheduling. If several items throw, the error of the
// lowest index is rethrown, so the message a user sees is the same whatever
// the thread count. A loop inside another loop's item runs on the outer
// loop's threads, and the thread that waits for it meanwhile takes only
// its items (so an item never starts inside another item on the same
// thread, and one holding a lock can always finish the loop).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>

namespace btfc {

// The error of the lowest-numbered piece of work that failed, whichever
// thread met it first: what the loops below rethrow, so that the message
// a user sees never depends on the thread count. Safe to use from any
// thread; rethrow() once they are done.
class FirstError {
 public:
  // Runs fn(), keeping its error under `index`; true if it threw.
  template <typename Fn>
  bool run(size_t index, Fn&& fn) {
    try {
      fn();
      return false;
    } catch (...) {
      keep(index, std::current_exception());
      return true;
    }
  }
  void keep(size_t index, std::exception_ptr error) {
    std::lock_guard lock(mu_);
    if (index < index_) {
      index_ = index;
      error_ = std::move(error);
    }
  }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mu_;
  size_t index_ = SIZE_MAX;
  std::exception_ptr error_;
};

// Number of worker threads used by parallel_for; 0 means all cores.
void set_jobs(unsigned jobs);
unsigned jobs();

void parallel_for(size_t n, const std::function<void(size_t)>& body);

// parallel_for over [begin, end) cut into consecutive ranges of `chunk`
// indexes (the last may be shorter): body(lo, hi) for each, so that a
// loop over millions of ids costs a task per range, not per id.
template <typename Body>
void parallel_for_ranges(size_t begin, size_t end, size_t chunk, Body&& body) {
  if (end <= begin) return;
  parallel_for((end - begin + chunk - 1) / chunk, [&](size_t c) {
    const size_t lo = begin + c * chunk;
    body(lo, end - lo < chunk ? end : lo + chunk);
  });
}

// As parallel_for, but items start in index order: each thread takes the
// lowest item not yet started. For loops whose results are consumed in
// order while the loop runs, and whose last items should start last.
void parallel_for_in_order(size_t n, const std::function<void(size_t)>& body);

// Runs main() on the calling thread and item(0) ... item(n-1) beside it,
// each on a thread of its own (one after the other after main() at -j1).
// For a serial chain of work that must stay on this thread (one with a
// large stack) overlapped with items that share its work (n = jobs() - 1:
// as many threads as -j says). Rethrows main()'s error, else that of the
// lowest failing item.
void run_beside(const std::function<void()>& main, size_t n, const std::function<void(size_t)>& item);

}  // namespace btfc
