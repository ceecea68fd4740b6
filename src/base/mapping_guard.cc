// Faults in a mapped input that shrank (see mapping_guard.h).
//
// As for RemoveOnSignal, the handler reads fixed slots only, each marked
// in use by a lock-free atomic once its fields are complete, and calls
// only async-signal-safe functions (write, unlink, _exit, sigaction).
// The path is a heap copy made when the guard is: a MappedFile moves, and
// its std::string's characters with it.
#include "base/mapping_guard.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <iterator>
#include <mutex>
#include <utility>

#include "base/remove_on_signal.h"

namespace btfc {

namespace {

enum : int { kFree, kFilling, kInUse };
struct Slot {
  std::atomic<int> state{kFree};
  uintptr_t begin = 0;
  size_t size = 0;
  char* path = nullptr;
};
static_assert(std::atomic<int>::is_always_lock_free);
// A batch of modules maps each module and its debug file while it is
// encoded, and the base once: a few dozen at most at any time.
constinit Slot slots[1024];
const char* program = "btfc";
struct sigaction previous{};

// The line the handler writes, built on its stack and written at once.
class Line {
 public:
  Line& operator<<(const char* text) {
    while (*text && used_ < sizeof text_) text_[used_++] = *text++;
    return *this;
  }
  // In hex, "0x1c", as messages show offsets (btfc::hex).
  Line& operator<<(uint64_t value) {
    *this << "0x";
    char digits[16];
    int n = 0;
    do digits[n++] = "0123456789abcdef"[value % 16];
    while ((value /= 16) != 0);
    while (n > 0 && used_ < sizeof text_) text_[used_++] = digits[--n];
    return *this;
  }
  void write_out() const {
    for (size_t done = 0; done < used_;) {
      ssize_t n = write(STDERR_FILENO, text_ + done, used_ - done);
      if (n <= 0) return;
      done += static_cast<size_t>(n);
    }
  }

 private:
  char text_[4608];
  size_t used_ = 0;
};

std::atomic<bool> reporting{false};

extern "C" void on_bus_error(int sig, siginfo_t* info, void* context) {
  // si_code > 0: a fault the kernel raised, whose si_addr is the address
  // read (not a SIGBUS some process sent).
  if (info && info->si_code > 0) {
    const uintptr_t at = reinterpret_cast<uintptr_t>(info->si_addr);
    for (const Slot& s : slots) {
      if (s.state.load(std::memory_order_acquire) != kInUse || at - s.begin >= s.size) continue;
      // Threads reading the same file fault together: one line, one exit.
      if (reporting.exchange(true)) for (;;) pause();
      Line line;
      line << program << ": " << s.path << ": cannot read offset " << uint64_t{at - s.begin}
           << ": the file shrank (or its storage failed) while being read\n";
      line.write_out();
      wait_for_deferred_writes();  // a copy over a hard-linked output, in another thread
      remove_temp_files_now();
      _exit(1);
    }
  }
  // Not ours: the handler that was there before.
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction) {
      previous.sa_sigaction(sig, info, context);
      return;
    }
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
    return;
  }
  // The default action: a fault happens again when this handler returns;
  // a sent signal is raised again (blocked until then).
  struct sigaction dfl{};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  if (!info || info->si_code <= 0) raise(sig);
}

void install_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa{};
    sa.sa_sigaction = on_bus_error;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGBUS, &sa, &previous);
  });
}

}  // namespace

void MappingGuard::set_program(const char* name) { program = name; }

MappingGuard::MappingGuard(const uint8_t* data, size_t size, const std::string& path) {
  if (!data || size == 0) return;
  install_once();
  for (int i = 0; i < static_cast<int>(std::size(slots)); ++i) {
    int expected = kFree;
    if (!slots[i].state.compare_exchange_strong(expected, kFilling, std::memory_order_acquire)) continue;
    Slot& s = slots[i];
    s.begin = reinterpret_cast<uintptr_t>(data);
    s.size = size;
    s.path = new char[path.size() + 1];
    std::memcpy(s.path, path.c_str(), path.size() + 1);
    s.state.store(kInUse, std::memory_order_release);
    slot_ = i;
    return;
  }
}

MappingGuard& MappingGuard::operator=(MappingGuard&& other) noexcept {
  if (this != &other) {
    release();
    slot_ = std::exchange(other.slot_, -1);
  }
  return *this;
}

void MappingGuard::release() {
  if (slot_ < 0) return;
  Slot& s = slots[slot_];
  char* path = s.path;  // the handler may read it until the slot is free
  s.state.store(kFree, std::memory_order_release);
  delete[] path;
  slot_ = -1;
}

}  // namespace btfc
