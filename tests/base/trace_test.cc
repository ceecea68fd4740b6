// BTFC_TRACE's file is what bench/scaling.py rebuilds a run's task graph
// from: every loop must name the item it was started in (also from the
// thread run_with_stack starts, which its caller waits for), every item
// its loop and index, every exclusive section its item; and an item lies
// within its loop's time, a loop within its item's.
#include "base/trace.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/deep_stack.h"
#include "base/parallel.h"
#include "base/timer.h"
#include "support/test_support.h"

namespace btfc {
namespace {

struct Span {
  uint64_t start = 0, end = 0;
};
struct Loop : Span {
  uint32_t parent = 0;
  uint64_t n = 0, in_order = 0;
};
struct Item : Span {
  uint32_t loop = 0;
  uint64_t index = 0;
};
struct Exclusive : Span {
  std::string name;
  uint32_t item = 0;
};
struct TraceFile {
  unsigned jobs = 0;
  std::map<uint32_t, Loop> loops;
  std::map<uint32_t, Item> items;
  std::vector<Exclusive> exclusives;
  std::map<std::string, Span> phases;
  uint64_t end = 0;
  bool has_end = false;
};

TraceFile parse(const std::string& path) {
  TraceFile t;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::istringstream w(line);
    std::string kind;
    w >> kind;
    if (kind == "jobs") {
      w >> t.jobs;
    } else if (kind == "loop") {
      uint32_t id;
      Loop l;
      unsigned thread;
      w >> id >> l.parent >> l.n >> l.in_order >> l.start >> l.end >> thread;
      t.loops[id] = l;
    } else if (kind == "item") {
      uint32_t id;
      Item i;
      unsigned thread;
      w >> id >> i.loop >> i.index >> i.start >> i.end >> thread;
      t.items[id] = i;
    } else if (kind == "exclusive") {
      Exclusive e;
      unsigned thread;
      w >> e.name >> e.item >> e.start >> e.end >> thread;
      t.exclusives.push_back(e);
    } else if (kind == "phase") {
      std::string name;
      Span s;
      w >> name >> s.start >> s.end;
      t.phases[name] = s;
    } else if (kind == "end") {
      w >> t.end;
      t.has_end = true;
    } else {
      ADD_FAILURE() << "unknown line: " << line;
    }
    EXPECT_FALSE(w.fail()) << line;
  }
  return t;
}

// Outer loop of 3 (in order); item 0 runs a loop of 4, item 1 a loop of 2
// on run_with_stack's thread, item 2 an exclusive section. At -j1 and -j2.
TEST(Trace, RecordsTheTaskGraph) {
  for (unsigned j : {1u, 2u}) {
    SCOPED_TRACE("-j" + std::to_string(j));
    set_jobs(j);
    const std::string path = test::scratch_dir() + "/trace";
    trace::start(path);
    {
      PhaseTimer phase("outer");
      parallel_for_in_order(3, [&](size_t i) {
        if (i == 0) parallel_for(4, [](size_t) {});
        if (i == 1) run_with_stack(0, [] { parallel_for(2, [](size_t) {}); });
        if (i == 2) trace::Exclusive section("append");
      });
    }
    trace::finish();
    set_jobs(0);
    parallel_for(2, [](size_t) {});  // not recorded: the trace is finished

    const TraceFile t = parse(path);
    EXPECT_EQ(t.jobs, j);
    ASSERT_TRUE(t.has_end);
    ASSERT_EQ(t.loops.size(), 3u);
    ASSERT_EQ(t.items.size(), 3u + 4 + 2);
    std::map<uint64_t, uint32_t> outer_item;  // index -> id
    uint32_t outer = 0;
    for (const auto& [id, l] : t.loops)
      if (l.parent == 0) outer = id;
    ASSERT_NE(outer, 0u);
    EXPECT_EQ(t.loops.at(outer).n, 3u);
    EXPECT_EQ(t.loops.at(outer).in_order, 1u);
    for (const auto& [id, i] : t.items) {
      ASSERT_TRUE(t.loops.count(i.loop)) << "item " << id;
      const Loop& l = t.loops.at(i.loop);
      EXPECT_LT(i.index, l.n);
      EXPECT_LE(l.start, i.start);
      EXPECT_LE(i.end, l.end);
      EXPECT_LE(i.start, i.end);
      if (i.loop == outer) outer_item[i.index] = id;
    }
    ASSERT_EQ(outer_item.size(), 3u);
    // Each inner loop names the outer item that started it.
    std::map<uint64_t, uint64_t> inner_n;  // outer index -> inner loop's n
    for (const auto& [id, l] : t.loops) {
      if (id == outer) continue;
      ASSERT_TRUE(t.items.count(l.parent)) << "loop " << id << " has no item";
      const Item& parent = t.items.at(l.parent);
      EXPECT_EQ(parent.loop, outer);
      EXPECT_LE(parent.start, l.start);
      EXPECT_LE(l.end, parent.end);
      inner_n[parent.index] = l.n;
    }
    EXPECT_EQ(inner_n, (std::map<uint64_t, uint64_t>{{0, 4}, {1, 2}}));
    ASSERT_EQ(t.exclusives.size(), 1u);
    EXPECT_EQ(t.exclusives[0].name, "append");
    EXPECT_EQ(t.exclusives[0].item, outer_item[2]);
    ASSERT_TRUE(t.phases.count("outer"));
    EXPECT_LE(t.phases.at("outer").start, t.loops.at(outer).start);
    EXPECT_GE(t.phases.at("outer").end, t.loops.at(outer).end);
    EXPECT_GE(t.end, t.phases.at("outer").end);
  }
}

TEST(Trace, OffUnlessStarted) {
  EXPECT_FALSE(trace::enabled());
  trace::finish();  // nothing to write, no error
}

}  // namespace
}  // namespace btfc
