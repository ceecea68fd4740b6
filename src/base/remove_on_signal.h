// Temporary files removed when a signal ends the process. A kernel build
// interrupted with Ctrl-C, or make killing its other jobs after one
// failed, would otherwise leave btfc's PATH.tmp.XXXXXX (a copy of vmlinux,
// hundreds of megabytes) in the build folder, where no `make clean` knows
// to look. While a RemoveOnSignal lives, SIGINT, SIGTERM, SIGHUP, SIGQUIT
// and SIGXFSZ (a file size limit) unlink its path, then end the process as
// the signal would have. A signal the process ignores or handles already
// (nohup, an embedding program) is left alone.
//
//   RemoveOnSignal guard(tmp);   // after creating tmp
//   ... write tmp, rename it over the target ...
//   // guard's end: tmp is no longer ours to remove
#pragma once

#include <string>

namespace btfc {

class RemoveOnSignal {
 public:
  explicit RemoveOnSignal(const std::string& path);
  ~RemoveOnSignal();
  RemoveOnSignal(const RemoveOnSignal&) = delete;
  RemoveOnSignal& operator=(const RemoveOnSignal&) = delete;

  // From now on a signal leaves the file where it is (it has become the
  // only complete copy of something).
  void release();

 private:
  int slot_ = -1;  // -1: every slot was in use (the file is then only left behind)
};

// While one lives (in any thread), those signals wait: one that comes
// meanwhile ends the process, as above, when the last DeferSignals ends.
// For a write that must not stop halfway: a complete temporary file copied
// over a target of several hard links, which a Ctrl-C would otherwise
// leave half-written, with the complete copy removed.
//
//   { DeferSignals defer;  ... rewrite the target ... }
class DeferSignals {
 public:
  DeferSignals();
  ~DeferSignals();
  DeferSignals(const DeferSignals&) = delete;
  DeferSignals& operator=(const DeferSignals&) = delete;
};

// Unlinks every path a RemoveOnSignal holds now. Async-signal-safe: for
// other fatal-signal handlers (MappingGuard's) that end the process.
void remove_temp_files_now();

// Returns once no other thread holds a DeferSignals (at once if this one
// does: it would wait for itself). Async-signal-safe: a handler that must
// end the process from one thread (MappingGuard's, on a fault) lets a copy
// over a hard-linked file in another finish first.
void wait_for_deferred_writes();

}  // namespace btfc
