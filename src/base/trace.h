// A scheduling trace of one run, for bench/scaling.py: with the
// environment variable BTFC_TRACE=FILE, every parallel loop (base/parallel.h),
// every item of one, every `Exclusive` section and every `PhaseTimer`
// phase is recorded with its thread and its start and end, and written to
// FILE when the command ends. The script rebuilds the run's task graph
// from a -j1 trace (where each item's time is its own work) and replays
// it on P simulated threads: how the run would scale on more cores than
// this machine has, with the load imbalance and the serial stretches the
// graph really has, not an Amdahl formula's guess.
//
//   BTFC_TRACE=/tmp/t btfc encode -j1 vmlinux --btf_encode_detached=out
//
// Off (one relaxed load per loop and item) unless the variable is set.
// The file, one event per line, times in microseconds from start():
//   jobs J
//   loop ID PARENT_ITEM N IN_ORDER START END THREAD   (PARENT_ITEM 0: none)
//   item ID LOOP INDEX START END THREAD
//   exclusive NAME ITEM START END THREAD
//   phase NAME START END
//   end END
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace btfc::trace {

// Starts recording if BTFC_TRACE names a file (start: into `path`);
// finish() writes it (an error writing it is reported on stderr, the
// command's status stands) and stops.
void start_from_env();
void start(const std::string& path);
void finish();
bool enabled();

// What base/parallel.cc reports: a loop of n items, started by this thread
// (inside the item it runs, if any), and each item run.
class Loop {
 public:
  Loop(size_t n, bool in_order);
  ~Loop();
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;
  uint32_t id() const { return id_; }

 private:
  uint32_t id_ = 0, parent_ = 0;
  size_t n_;
  bool in_order_;
  uint64_t start_ = 0;
};

class Item {
 public:
  Item(const Loop& loop, size_t index);
  ~Item();
  Item(const Item&) = delete;
  Item& operator=(const Item&) = delete;

 private:
  uint32_t id_ = 0, loop_ = 0, outer_ = 0;
  size_t index_;
  uint64_t start_ = 0;
};

// The item this thread runs (0: none), and a scope in which another
// thread's work counts as inside it: run_with_stack's thread, which its
// caller waits for.
uint32_t current_item();
class Inside {
 public:
  explicit Inside(uint32_t item);
  ~Inside();
  Inside(const Inside&) = delete;
  Inside& operator=(const Inside&) = delete;

 private:
  uint32_t outer_;
};

// Work that holds a lock other threads may wait for (the encoder's append
// of a group): the replay runs no two sections of one name at once.
// Construct it once the lock is held.
class Exclusive {
 public:
  explicit Exclusive(const char* name);
  ~Exclusive();
  Exclusive(const Exclusive&) = delete;
  Exclusive& operator=(const Exclusive&) = delete;

 private:
  const char* name_;
  uint64_t start_ = 0;
};

// A finished PhaseTimer's phase.
void phase(const std::string& name, std::chrono::steady_clock::time_point start,
           std::chrono::steady_clock::time_point end);

}  // namespace btfc::trace
