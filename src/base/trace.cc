#include "base/trace.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <mutex>
#include <vector>

#include "base/atomic_file.h"
#include "base/error.h"
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
  std::string text = "jobs " + std::to_string(jobs()) + "\n";
  auto line = [&](const char* format, auto... values) {
    char buf[160];
    std::snprintf(buf, sizeof buf, format, values...);
    text += buf;
  };
  auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  for (const Event& e : g_events) {
    switch (e.kind) {
      case Kind::kLoop:
        line("loop %u %u %llu %llu %llu %llu %u\n", e.id, e.parent, u(e.a), u(e.b), u(e.start), u(e.end), e.thread);
        break;
      case Kind::kItem:
        line("item %u %u %llu %llu %llu %u\n", e.id, e.parent, u(e.a), u(e.start), u(e.end), e.thread);
        break;
      case Kind::kExclusive:
        text += "exclusive " + e.name;
        line(" %u %llu %llu %u\n", e.parent, u(e.start), u(e.end), e.thread);
        break;
      case Kind::kPhase:
        text += "phase " + e.name;
        line(" %llu %llu\n", u(e.start), u(e.end));
        break;
    }
  }
  line("end %llu\n", u(end));
  // As every output: whole or not at all (base/atomic_file.h).
  try {
    write_file_atomic(g_path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  } catch (const Error& e) {
    std::fprintf(stderr, "btfc: BTFC_TRACE: %s\n", e.what());
  }
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
