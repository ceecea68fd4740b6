// bench/scaling.py replays a BTFC_TRACE task graph on P simulated threads
// (issue 6, target 2). On hand-written graphs its answers are known; on a
// real run's trace its one-thread replay must give back the run's time,
// which it only does if the trace nests every loop in the item that ran it.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>
#include <regex>
#include <string>

#include "support/test_support.h"

namespace btfc::test {
namespace {

RunResult replay(const std::string& args) {
  return run("python3 " BTFC_SOURCE_DIR "/bench/scaling.py " + args);
}

std::string write(const std::string& name, const std::string& text) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// The replayed seconds scaling.py prints for P threads ("span": unbounded).
double replayed(const std::string& out, const std::string& p) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex("\n *" + p + " +([0-9.]+) +[0-9.]+x"))) {
    ADD_FAILURE() << "no line for " << p << " in:\n" << out;
    return -1;
  }
  return std::stod(m[1]);
}

// The run works 10 ms, runs a loop of four 100 ms items, works 10 ms.
TEST(Scaling, ReplaysALoopOnEveryThreadCount) {
  const std::string t = write("loop.trace",
                              "jobs 1\n"
                              "loop 1 0 4 0 10000 410000 0\n"
                              "item 2 1 0 10000 110000 0\n"
                              "item 3 1 1 110000 210000 0\n"
                              "item 4 1 2 210000 310000 0\n"
                              "item 5 1 3 310000 410000 0\n"
                              "phase convert 5000 415000\n"
                              "end 420000\n");
  RunResult r = replay("-p 1,2,3,4,8 " + t);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_DOUBLE_EQ(replayed(r.out, "1"), 0.420);
  EXPECT_DOUBLE_EQ(replayed(r.out, "2"), 0.220);
  EXPECT_DOUBLE_EQ(replayed(r.out, "3"), 0.220);  // 2 rounds of items, as at 2
  EXPECT_DOUBLE_EQ(replayed(r.out, "4"), 0.120);
  EXPECT_DOUBLE_EQ(replayed(r.out, "8"), 0.120);
  EXPECT_DOUBLE_EQ(replayed(r.out, "span"), 0.120);
  // The phase holds the loop and 10 of the 20 ms of the run's own work.
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nconvert +0.410 +0.210 +0.210 +0.110 +0.110\n"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nother +0.010 +0.010 "))) << r.out;

  // Runs at -j2 that took 230 and 250 ms are printed beside the replay at 2.
  const std::string c1 = write("loop-j2.trace", "jobs 2\nend 230000\n");
  const std::string c2 = write("loop-j2b.trace", "jobs 2\nend 250000\n");
  r = replay("-p 1 " + t + " --check " + c1 + " " + c2);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("measured at -j2: 0.240 s, 1.75x (replay -8.3%, 2 run(s))"), std::string::npos) << r.out;
}

// Two items each work 50 ms, then hold a lock for 50 ms: on two threads
// the second waits for the first's section, 150 ms in all.
TEST(Scaling, ExclusiveSectionsNeverOverlap) {
  const std::string t = write("exclusive.trace",
                              "jobs 1\n"
                              "loop 1 0 2 0 0 200000 0\n"
                              "item 2 1 0 0 100000 0\n"
                              "exclusive append 2 50000 100000 0\n"
                              "item 3 1 1 100000 200000 0\n"
                              "exclusive append 3 150000 200000 0\n"
                              "end 200000\n");
  RunResult r = replay("-p 1,2 " + t);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_DOUBLE_EQ(replayed(r.out, "1"), 0.200);
  EXPECT_DOUBLE_EQ(replayed(r.out, "2"), 0.150);
}

// A real run's trace, replayed: at -j1 the loops the run's own thread
// starts (parent item 0) come one after the other, and the replay on one
// thread takes the run's time. A loop inside another's time was started in
// an item the trace lost (dedup's loops, on run_with_stack's thread inside
// a group of units: vmlinux is grouped, a small file is not).
void expect_replays_in_its_own_time(const std::string& file) {
  const std::string dir = scratch_dir();
  RunResult e = run("BTFC_TRACE=" + dir + "/j1.trace " BTFC_BINARY " encode -j1 " + file +
                    " --btf_encode_detached=" + dir + "/out.btf");
  ASSERT_EQ(e.status, 0) << e.err;
  std::vector<std::pair<uint64_t, uint64_t>> top;
  std::istringstream lines(read_file(dir + "/j1.trace"));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream w(line);
    std::string kind;
    uint64_t id, parent, n, in_order, start, end;
    if (w >> kind >> id >> parent >> n >> in_order >> start >> end && kind == "loop" && parent == 0)
      top.emplace_back(start, end);
  }
  ASSERT_FALSE(top.empty());
  std::sort(top.begin(), top.end());
  for (size_t i = 1; i < top.size(); i++) EXPECT_LE(top[i - 1].second, top[i].first) << "top-level loop " << i;

  RunResult r = replay("-p 1,2 " + dir + "/j1.trace");
  ASSERT_EQ(r.status, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("run ([0-9.]+) s"))) << r.out;
  EXPECT_NEAR(replayed(r.out, "1"), std::stod(m[1]), 0.0015) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\\d+ loops, \\d+ items"))) << r.out;
}

TEST(Scaling, ReplaysARunOnOneThreadInItsOwnTime) {
  const std::string a = compile_c("scale_a", "struct s { int x; struct s *next; } a;\n", "gcc -g -c");
  const std::string b = compile_c("scale_b", "struct s { int x; struct s *next; } b; enum e { E1 } e;\n", "gcc -g -c");
  const std::string so = scratch_dir() + "/all.so";
  ASSERT_EQ(run("gcc -nostdlib -shared -o " + so + " " + a + " " + b).status, 0);
  expect_replays_in_its_own_time(so);
}

TEST(ScalingCorpus, ReplaysVmlinuxOnOneThreadInItsOwnTime) {
  const std::string dir = corpus_dir();
  ASSERT_FALSE(dir.empty()) << "corpus not unpacked (scripts/unpack-corpus.sh)";
  expect_replays_in_its_own_time(dir + "/vmlinux");
}

// A -j2 trace is no replay's input (its items waited for each other), nor
// a file cut short.
TEST(Scaling, RefusesWhatItCannotReplay) {
  RunResult bad = replay(write("j2.trace", "jobs 2\nend 1000\n"));
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("was taken at -j2: replay -j1 traces"), std::string::npos) << bad.err;
  bad = replay(write("cut.trace", "jobs 1\nloop 1 0 4 0 10000 410000 0\n"));
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("cut.trace: no 'end' line"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace btfc::test
