#include "base/trace.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "base/parallel.h"

namespace btfc::trace {

namespace {

enum class Kind : uint8_t { kLoop, kItem, kExclusive, kPhase };

struct Event {
  Kind kind;
  uint32_t id, parent;  // loop: its parent item; item: its loop; exclusive: its item
  uint64_t a, b;  // loop: n, in order; item: index
  uint64_t start, end;
  uint32_t thread;
  std::string name;
};

std::atomic<bool> g_on{false};
std::string g_path;
std::chrono::steady_clock::time_point g_start;
std::mutex g_mu;
std::vector<Event> g_events;
std::atomic<uint32_t> g_next_id{1};
std::atomic<uint32_t> g_next_thread{0};

thread_local uint32_t t_item = 0;  // the item this thread runs, 0: none

uint32_t this_thread() {
  thread_local uint32_t id = g_next_thread.fetch_add(1);
  return id;
}

void record(Event e) {
  e.thread = this_thread();
  std::lock_guard lock(g_mu);
  g_events.push_back(std::move(e));
}

uint64_t since_start(std::chrono::steady_clock::time_point t) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(t - g_start).count());
}

uint64_t now() { return since_start(std::chrono::steady_clock::now()); }

}  // namespace

void start_from_env() {
  const char* path = std::getenv("BTFC_TRACE");
  if (path && *path) start(path);
}

void start(const std::string& path) {
  std::lock_guard lock(g_mu);
  g_path = path;
  g_events.clear();
  g_start = std::chrono::steady_clock::now();
  this_thread();  // the main thread is thread 0
  g_on.store(true, std::memory_order_relaxed);
}

bool enabled() { return g_on.load(std::memory_order_relaxed); }

void finish() {
  if (!enabled()) return;
  const uint64_t end = now();
  g_on.store(false);
  std::lock_guard lock(g_mu);
  std::FILE* f = std::fopen(g_path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "btfc: BTFC_TRACE: %s: %s\n", g_path.c_str(), std::strerror(errno));
    return;
  }
  std::fprintf(f, "jobs %u\n", jobs());
  for (const Event& e : g_events) {
    switch (e.kind) {
      case Kind::kLoop:
        std::fprintf(f, "loop %u %u %llu %llu %llu %llu %u\n", e.id, e.parent, (unsigned long long)e.a,
                     (unsigned long long)e.b, (unsigned long long)e.start, (unsigned long long)e.end, e.thread);
        break;
      case Kind::kItem:
        std::fprintf(f, "item %u %u %llu %llu %llu %u\n", e.id, e.parent, (unsigned long long)e.a,
                     (unsigned long long)e.start, (unsigned long long)e.end, e.thread);
        break;
      case Kind::kExclusive:
        std::fprintf(f, "exclusive %s %u %llu %llu %u\n", e.name.c_str(), e.parent, (unsigned long long)e.start,
                     (unsigned long long)e.end, e.thread);
        break;
      case Kind::kPhase:
        std::fprintf(f, "phase %s %llu %llu\n", e.name.c_str(), (unsigned long long)e.start,
                     (unsigned long long)e.end);
        break;
    }
  }
  std::fprintf(f, "end %llu\n", (unsigned long long)end);
  if (std::fclose(f) != 0) std::fprintf(stderr, "btfc: BTFC_TRACE: %s: %s\n", g_path.c_str(), std::strerror(errno));
}

Loop::Loop(size_t n, bool in_order) : n_(n), in_order_(in_order) {
  if (!enabled()) return;
  id_ = g_next_id.fetch_add(1);
  parent_ = t_item;
  start_ = now();
}

Loop::~Loop() {
  if (!id_ || !enabled()) return;
  record({Kind::kLoop, id_, parent_, n_, in_order_, start_, now(), 0, {}});
}

Item::Item(const Loop& loop, size_t index) : index_(index) {
  if (!loop.id() || !enabled()) return;
  id_ = g_next_id.fetch_add(1);
  loop_ = loop.id();
  outer_ = t_item;
  t_item = id_;
  start_ = now();
}

Item::~Item() {
  if (!id_) return;
  t_item = outer_;
  if (enabled()) record({Kind::kItem, id_, loop_, index_, 0, start_, now(), 0, {}});
}

uint32_t current_item() { return t_item; }

Inside::Inside(uint32_t item) : outer_(t_item) { t_item = item; }
Inside::~Inside() { t_item = outer_; }

Exclusive::Exclusive(const char* name) : name_(name) {
  if (enabled()) start_ = now();
}

Exclusive::~Exclusive() {
  if (enabled()) record({Kind::kExclusive, 0, t_item, 0, 0, start_, now(), 0, name_});
}

void phase(const std::string& name, std::chrono::steady_clock::time_point start,
           std::chrono::steady_clock::time_point end) {
  if (enabled()) record({Kind::kPhase, 0, 0, 0, 0, since_start(start), since_start(end), 0, name});
}

}  // namespace btfc::trace
