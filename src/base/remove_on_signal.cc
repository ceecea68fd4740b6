// Temporary files removed on a fatal signal (see remove_on_signal.h).
//
// A signal handler may only call async-signal-safe functions and read
// what it cannot see half-written: the paths live in fixed slots, each
// marked in use by a lock-free atomic once its path is complete (a batch
// writes several outputs at once, one slot each). The handler unlinks
// every path in use, puts the default action back and raises the signal
// again, so the process ends as it would have (the exit status make and
// shells read).
#include "base/remove_on_signal.h"

#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <mutex>

namespace btfc {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ};

enum : int { kFree, kFilling, kInUse };
struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX] = {};  // (zero: constinit, and clang 14 wants it said)
};
static_assert(std::atomic<int>::is_always_lock_free);
constinit Slot slots[64];  // constant-initialised: no start-up code touching its 256 KB

extern "C" void remove_and_die(int sig) {
  const int saved = errno;  // (restored for form's sake: the process ends)
  remove_temp_files_now();
  errno = saved;
  // SA_RESETHAND made the action the default again; the signal stays
  // blocked until this handler returns, and then ends the process.
  raise(sig);
}

void install_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kSignals) {
      struct sigaction old{};
      if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction sa{};
      sa.sa_handler = remove_and_die;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_RESETHAND;
      sigaction(sig, &sa, nullptr);
    }
  });
}

}  // namespace

void remove_temp_files_now() {
  for (Slot& s : slots)
    if (s.state.load(std::memory_order_acquire) == kInUse) unlink(s.path);
}

RemoveOnSignal::RemoveOnSignal(const std::string& path) {
  install_once();
  if (path.size() >= PATH_MAX) return;
  for (int i = 0; i < static_cast<int>(std::size(slots)); ++i) {
    int expected = kFree;
    if (!slots[i].state.compare_exchange_strong(expected, kFilling, std::memory_order_acquire)) continue;
    std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].state.store(kInUse, std::memory_order_release);
    slot_ = i;
    return;
  }
}

RemoveOnSignal::~RemoveOnSignal() {
  if (slot_ >= 0) slots[slot_].state.store(kFree, std::memory_order_release);
}

}  // namespace btfc
