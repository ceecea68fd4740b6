// How many threads `btfc encode` runs on (`--stats` says): no -j is one, as
// in pahole; on a single file -jN is N and -j alone the cores, but neither
// more than the file has megabytes of .debug_info (a kernel build runs
// `pahole -j` or `-j$(JOBS)` on every module, many at once, and a small
// module's run gains no time from a second thread, only spends CPU on
// it); batch mode runs -jN threads for all its files. The bytes are the
// same whatever the count.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>

#include "support/test_support.h"

namespace btfc::test {
namespace {

unsigned threads_of(const std::string& args) {
  RunResult r = run_btfc("encode --stats " + args);
  EXPECT_EQ(r.status, 0) << r.err;
  size_t at = r.err.find("threads      ");
  if (at == std::string::npos) {
    ADD_FAILURE() << "no threads line in --stats:\n" << r.err;
    return 0;
  }
  return static_cast<unsigned>(std::stoul(r.err.substr(at + 13)));
}

TEST(Threads, CountFollowsJAndTheFileSize) {
  std::string obj = compile_c("threads_small", "struct s { int a; long b; } v; int f(struct s *p) { return p->a; }",
                              "gcc -g -O2 -c");
  std::string dir = scratch_dir();
  EXPECT_EQ(threads_of("-J --btf_encode_detached=" + dir + "/t0.btf " + obj), 1u);
  EXPECT_EQ(threads_of("-J -j3 --btf_encode_detached=" + dir + "/t3.btf " + obj), 1u) << "a few KB of DWARF";
  EXPECT_EQ(threads_of("-J -j --btf_encode_detached=" + dir + "/tj.btf " + obj), 1u) << "a few KB of DWARF";
  EXPECT_EQ(threads_of("-J --jobs --btf_encode_detached=" + dir + "/tjobs.btf " + obj), 1u);
  std::string one = read_file(dir + "/t0.btf");
  EXPECT_GT(one.size(), 24u);
  EXPECT_TRUE(read_file(dir + "/t3.btf") == one);
  EXPECT_TRUE(read_file(dir + "/tj.btf") == one);
  // Batch mode, even of one file: the threads asked for.
  EXPECT_EQ(threads_of("-J -j3 --output-dir=" + dir + "/batch " + obj), 3u);
  EXPECT_TRUE(read_file(dir + "/batch/threads_small.o.btf") == one);
}

// ext4.ko has 4.6 MB of .debug_info: -j alone gives it up to 4 threads,
// -jN up to N and 4.
TEST(ThreadsCorpus, BigModuleGetsTheCores) {
  std::string corpus = corpus_dir();
  ASSERT_FALSE(corpus.empty()) << "corpus not unpacked (scripts/unpack-corpus.sh)";
  std::string base = shared_dir() + "/reference/pahole-1.31/vmlinux.legacy-flags.btf";
  std::string dir = scratch_dir();
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(threads_of("-J -j --btf_base=" + base + " --btf_encode_detached=" + dir + "/ext4.btf " + corpus +
                       "/mods/ext4.ko"),
            std::min(cores, 4u));
  EXPECT_EQ(threads_of("-J -j2 --btf_base=" + base + " --btf_encode_detached=" + dir + "/ext4-j2.btf " + corpus +
                       "/mods/ext4.ko"),
            2u);
  EXPECT_EQ(threads_of("-J -j8 --btf_base=" + base + " --btf_encode_detached=" + dir + "/ext4-j8.btf " + corpus +
                       "/mods/ext4.ko"),
            4u);
  EXPECT_TRUE(read_file(dir + "/ext4-j8.btf") == read_file(dir + "/ext4-j2.btf"));
}

}  // namespace
}  // namespace btfc::test
