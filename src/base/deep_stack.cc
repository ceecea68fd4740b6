#include "base/deep_stack.h"

#include <pthread.h>

#include <algorithm>
#include <exception>

#include "base/error.h"
#include "base/trace.h"

namespace btfc {

namespace {
struct Job {
  const std::function<void()>* fn;
  std::exception_ptr error;
  uint32_t traced_item;  // the caller's, for BTFC_TRACE
};

void* trampoline(void* arg) {
  Job* job = static_cast<Job*>(arg);
  try {
    trace::Inside inside(job->traced_item);
    (*job->fn)();
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}
}  // namespace

void run_with_stack(size_t bytes, const std::function<void()>& fn) {
  Job job{&fn, nullptr, trace::current_item()};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, std::max<size_t>(bytes, size_t{8} << 20));
  pthread_t thread;
  int err = pthread_create(&thread, &attr, trampoline, &job);
  pthread_attr_destroy(&attr);
  if (err != 0) {
    fn();  // no thread to be had: run here, on the stack we have
    return;
  }
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace btfc
