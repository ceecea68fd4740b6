#include "base/deep_stack.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>

#include "base/error.h"
#include "base/trace.h"

namespace btfc {

namespace {

// A thread with a stack of its own mapping, waiting for one job at a time
// from the thread that made it. A batch of modules runs a dedup per
// module: a thread started for each (a 100 MB stack mapped, its first
// pages faulted in, a TBB arena made for its loops, as base/parallel.cc
// keeps one per thread, all undone when it ends) cost 0.2 ms of a small
// module's 1 ms. Kept, the same thread, its touched pages and its arena
// serve the next module.
class Runner {
 public:
  // A runner with a stack of `bytes`; nullptr if no thread could be had.
  static Runner* start(size_t bytes) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    bytes = (bytes + page - 1) / page * page;
    // Reserved address space, a guard page at the bottom: pages come as
    // deep as the recursion goes.
    void* map = mmap(nullptr, bytes + page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (map == MAP_FAILED) return nullptr;
    if (mprotect(map, page, PROT_NONE) != 0) {
      munmap(map, bytes + page);
      return nullptr;
    }
    auto* r = new Runner(static_cast<char*>(map), bytes, page);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, r->map_ + page, bytes);
    const int err = pthread_create(&r->thread_, &attr, &Runner::main, r);
    pthread_attr_destroy(&attr);
    if (err != 0) {
      delete r;
      return nullptr;
    }
    return r;
  }

  size_t bytes() const { return bytes_; }

  // Runs fn on the runner's thread and waits; fn's exception is rethrown.
  void run(const std::function<void()>& fn) {
    std::exception_ptr error;
    {
      std::unique_lock lock(mu_);
      fn_ = &fn;
      item_ = trace::current_item();
      done_ = false;
      wake_.notify_one();
      finished_.wait(lock, [&] { return done_; });
      error = std::move(error_);
      error_ = nullptr;
    }
    // Pages a deep recursion touched go back: kept, a stranger's 100k
    // pointer chain would hold its stack's memory for the rest of a batch.
    // The top stays, where every run's shallow frames are.
    constexpr size_t kKeep = size_t{1} << 20;
    if (bytes_ > kKeep) madvise(map_ + page_, bytes_ - kKeep, MADV_DONTNEED);
    if (error) std::rethrow_exception(error);
  }

  // Ends the thread (after its job, if any) and frees the stack.
  void stop() {
    {
      std::lock_guard lock(mu_);
      quit_ = true;
      wake_.notify_one();
    }
    pthread_join(thread_, nullptr);
    delete this;
  }

 private:
  Runner(char* map, size_t bytes, size_t page) : map_(map), bytes_(bytes), page_(page) {}
  ~Runner() { munmap(map_, bytes_ + page_); }

  static void* main(void* arg) {
    static_cast<Runner*>(arg)->serve();
    return nullptr;
  }
  void serve() {
    std::unique_lock lock(mu_);
    for (;;) {
      wake_.wait(lock, [&] { return fn_ != nullptr || quit_; });
      if (!fn_) return;  // quit
      const std::function<void()>* fn = fn_;
      lock.unlock();
      std::exception_ptr error;
      try {
        trace::Inside inside(item_);
        (*fn)();
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      fn_ = nullptr;
      error_ = std::move(error);
      done_ = true;
      finished_.notify_one();
    }
  }

  char* const map_;  // the guard page, then the stack
  const size_t bytes_, page_;
  pthread_t thread_{};
  std::mutex mu_;
  std::condition_variable wake_, finished_;
  const std::function<void()>* fn_ = nullptr;  // the job, while one waits or runs
  uint32_t item_ = 0;                           // the caller's, for BTFC_TRACE
  std::exception_ptr error_;
  bool done_ = false, quit_ = false;
};

// This thread's runner. Never stopped at the thread's end: a thread ends
// at the process's exit, where stopping one would race exit's teardown
// (TBB's among it), and the OS takes the thread and its stack back then.
thread_local Runner* t_runner = nullptr;

// Above this, a runner is not kept: its stack is made for one big input
// (amdgpu.ko's dedup asks 1.8 GB of address space) and the next asks less.
constexpr size_t kKeptAtMost = size_t{512} << 20;

}  // namespace

void run_with_stack(size_t bytes, const std::function<void()>& fn) {
  bytes = std::max<size_t>(bytes, size_t{8} << 20);
  if (t_runner && t_runner->bytes() >= bytes) {
    t_runner->run(fn);
    return;
  }
  // Kept runners start at 128 MB, so that the next module's dedup (100 MB
  // on vmlinux, a little more for a bigger module) fits; where so much
  // address space is refused (ulimit -v), the size asked may still be had.
  const size_t first = bytes <= kKeptAtMost ? std::max(bytes, size_t{128} << 20) : bytes;
  Runner* r = Runner::start(first);
  if (!r && first != bytes) r = Runner::start(bytes);
  if (!r) {
    fn();  // no thread to be had: run here, on the stack we have
    return;
  }
  if (bytes > kKeptAtMost) {
    struct Stop {
      Runner* r;
      ~Stop() { r->stop(); }
    } stop{r};
    r->run(fn);
    return;
  }
  if (t_runner) t_runner->stop();
  t_runner = r;
  t_runner->run(fn);
}

}  // namespace btfc
