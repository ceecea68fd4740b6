// run_with_stack runs a recursion as deep as the stack asked for holds,
// on a thread it keeps for the caller's next call; an exception reaches
// the caller, and a deep run's pages do not stay resident.
#include "base/deep_stack.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "base/error.h"
#include "base/parallel.h"

namespace btfc {
namespace {

constexpr size_t kMB = size_t{1} << 20;

// Recurses until `bytes` of stack below `top` are in use; returns the depth.
[[gnu::noinline]] size_t recurse(const char* top, size_t bytes) {
  volatile char frame[512];
  frame[0] = 1;
  if (static_cast<size_t>(top - const_cast<const char*>(&frame[0])) >= bytes) return 1;
  const size_t depth = recurse(top, bytes) + 1;
  frame[1] = static_cast<char>(depth);  // no tail call: the frame stays
  return depth;
}

// Runs a recursion using `used` bytes of stack on a stack of `asked`.
size_t deep_run(size_t asked, size_t used) {
  size_t depth = 0;
  run_with_stack(asked, [&] { depth = recurse(static_cast<const char*>(__builtin_frame_address(0)), used); });
  return depth;
}

TEST(RunWithStack, HoldsARecursionAsDeepAsAsked) {
  // Far past the 8 MB of a default thread, small call first: the kept
  // thread's stack must grow for the bigger one.
  EXPECT_GT(deep_run(16 * kMB, 12 * kMB), 1000u);
  EXPECT_GT(deep_run(320 * kMB, 200 * kMB), 1000u);
  EXPECT_GT(deep_run(16 * kMB, 12 * kMB), 1000u);
}

// Calls run on the thread of the call before (a thread id can be reused
// by a new thread; a thread-local count cannot).
thread_local int t_calls = 0;

TEST(RunWithStack, KeepsItsThreadForTheNextCall) {
  int first = 0, second = 0;
  run_with_stack(0, [&] { first = ++t_calls; });
  run_with_stack(0, [&] { second = ++t_calls; });
  EXPECT_EQ(t_calls, 0) << "ran on the caller's thread";
  EXPECT_EQ(second, first + 1);
}

TEST(RunWithStack, RethrowsTheErrorInTheCaller) {
  try {
    run_with_stack(0, [] { throw Error("deep", 0x10, "broken"); });
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("broken"), std::string::npos) << e.what();
  }
  // The thread serves the next call after an error.
  int ran = 0;
  run_with_stack(0, [&] { ran = 1; });
  EXPECT_EQ(ran, 1);
}

// Each caller gets a thread of its own, never its own thread (whose stack
// is a worker's, too small for these runs).
TEST(RunWithStack, ServesSeveralCallersAtOnce) {
  set_jobs(4);
  std::vector<size_t> depth(8);
  std::vector<std::thread::id> caller(depth.size()), runner(depth.size());
  parallel_for(depth.size(), [&](size_t i) {
    caller[i] = std::this_thread::get_id();
    run_with_stack(64 * kMB, [&] {
      runner[i] = std::this_thread::get_id();
      depth[i] = recurse(static_cast<const char*>(__builtin_frame_address(0)), 24 * kMB);
    });
  });
  set_jobs(0);
  for (size_t i = 0; i < depth.size(); ++i) {
    EXPECT_GT(depth[i], 1000u) << i;
    EXPECT_NE(runner[i], caller[i]) << i;
    // A runner serves only the thread that made it.
    for (size_t j = 0; j < depth.size(); ++j) {
      if (runner[j] == runner[i]) {
        EXPECT_EQ(caller[j], caller[i]) << i << " " << j;
      }
    }
  }
}

// Once a run is over, the pages of its deep frames are not resident (the
// thread is kept: they would stay for the rest of a batch).
TEST(RunWithStack, GivesADeepRunsPagesBack) {
  const char* deepest = nullptr;
  run_with_stack(256 * kMB, [&] {
    const char* top = static_cast<const char*>(__builtin_frame_address(0));
    recurse(top, 160 * kMB);
    deepest = top - 160 * kMB;
  });
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t lo = (reinterpret_cast<uintptr_t>(deepest) + page - 1) / page * page;
  const size_t span = 128 * kMB;  // deep frames only: the top of the stack stays
  std::vector<unsigned char> in_core(span / page);
  ASSERT_EQ(mincore(reinterpret_cast<void*>(lo), span, in_core.data()), 0) << std::strerror(errno);
  size_t resident = 0;
  for (unsigned char c : in_core) resident += c & 1;
  EXPECT_LT(resident, in_core.size() / 16) << resident << " of " << in_core.size() << " pages resident";
}

}  // namespace
}  // namespace btfc
