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
#include <time.h>
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

// DeferSignals alive, and the signal one of them holds back (0: none).
// Sequentially consistent: the handler stores `pending` and then reads
// `deferring`, the last DeferSignals to go decrements `deferring` and then
// reads `pending`, so at least one of the two sees the other's write.
std::atomic<int> deferring{0};
std::atomic<int> pending{0};
// This thread's DeferSignals (read by handlers: static TLS, as btfc is one
// executable, needs no allocation there).
thread_local int deferring_here = 0;

void set_handler(int sig, void (*handler)(int)) {
  struct sigaction sa{};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  sigaction(sig, &sa, nullptr);
}

// Outside a handler: removes the temporary files and ends the process
// with `sig`, as its default action would.
[[noreturn]] void die(int sig) {
  struct sigaction sa{};
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, nullptr);
  remove_temp_files_now();
  raise(sig);
  // Still here: the signal is blocked in this thread (not by btfc; an
  // embedding program's mask). The exit status a shell gives it.
  _exit(128 + sig);
}

extern "C" void remove_and_die(int sig) {
  const int saved = errno;
  pending.store(sig);
  if (deferring.load() > 0) {
    // Held back: the handler again for the next one (SA_RESETHAND has
    // put the default back), and the last DeferSignals ends the process.
    set_handler(sig, remove_and_die);
    errno = saved;
    return;
  }
  // SA_RESETHAND made the action the default again; the signal stays
  // blocked until this handler returns, and then ends the process.
  remove_temp_files_now();
  errno = saved;  // (restored for form's sake: the process ends)
  raise(sig);
}

void install_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kSignals) {
      struct sigaction old{};
      if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
      set_handler(sig, remove_and_die);
    }
  });
}

}  // namespace

void wait_for_deferred_writes() {
  if (deferring_here) return;
  while (deferring.load() > 0) {
    struct timespec ms{0, 1000000};
    nanosleep(&ms, nullptr);
  }
}

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

RemoveOnSignal::~RemoveOnSignal() { release(); }

void RemoveOnSignal::release() {
  if (slot_ >= 0) slots[slot_].state.store(kFree, std::memory_order_release);
  slot_ = -1;
}

DeferSignals::DeferSignals() {
  install_once();
  ++deferring_here;
  deferring.fetch_add(1);
}

DeferSignals::~DeferSignals() {
  --deferring_here;
  if (deferring.fetch_sub(1) != 1) return;
  if (const int sig = pending.load()) die(sig);
}

}  // namespace btfc
