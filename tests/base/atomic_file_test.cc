// write_file_atomic / write_pieces_atomic: a complete file or none, the old
// file's mode kept, and targets that are not plain files (a symlink, a
// FIFO, a folder, a file of several hard links) handled as a user writing
// to them would expect.
#include "base/atomic_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "base/error.h"
#include "base/mapped_file.h"
#include "base/remove_on_signal.h"
#include "support/test_support.h"

namespace btfc {
namespace {

namespace fs = std::filesystem;

std::span<const uint8_t> bytes_of(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

// Nothing but `keep` in `dir`: no PATH.tmp.XXXXXX left behind.
void expect_only(const std::string& dir, std::vector<std::string> keep) {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  std::sort(keep.begin(), keep.end());
  EXPECT_EQ(names, keep);
}

TEST(AtomicFile, WritesAndReplaces) {
  std::string dir = test::scratch_dir() + "/replace";
  fs::create_directories(dir);
  std::string path = dir + "/out.btf";
  write_file_atomic(path, bytes_of("first"));
  EXPECT_EQ(test::read_file(path), "first");
  write_file_atomic(path, bytes_of("second, longer"));
  EXPECT_EQ(test::read_file(path), "second, longer");
  std::string a = "piece one|", b = "piece two";
  std::span<const uint8_t> pieces[] = {bytes_of(a), bytes_of(b)};
  write_file_atomic(path, pieces);
  EXPECT_EQ(test::read_file(path), a + b);
  expect_only(dir, {"out.btf"});
}

// Replacing a file, the temporary one has its blocks allocated before the
// pieces go in (ext4 would otherwise write its data out in the rename):
// exactly the pieces' total, or blocks past the end would stay taken.
TEST(AtomicFile, ReplacingTakesNoMoreBlocksThanTheBytesNeed) {
  std::string dir = test::scratch_dir() + "/blocks";
  fs::create_directories(dir);
  const std::string path = dir + "/out.ko";
  const std::string a(700 << 10, 'a'), b(324 << 10, 'b');  // 1 MB in two pieces
  write_file_atomic(path, bytes_of("old"));
  std::span<const uint8_t> pieces[] = {bytes_of(a), bytes_of(b)};
  write_pieces_atomic(path, pieces);
  EXPECT_EQ(test::read_file(path), a + b);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(static_cast<size_t>(st.st_size), a.size() + b.size());
  // 512-byte units; room for a file system's own rounding, far below the
  // megabyte a reservation of twice the size would leave.
  EXPECT_LE(static_cast<uint64_t>(st.st_blocks) * 512, a.size() + b.size() + (64 << 10));
  expect_only(dir, {"out.ko"});
}

TEST(AtomicFile, PiecesKeepTheOldMode) {
  std::string dir = test::scratch_dir() + "/mode";
  fs::create_directories(dir);
  std::string path = dir + "/vmlinux";
  write_file_atomic(path, bytes_of("old"));
  ASSERT_EQ(chmod(path.c_str(), 0751), 0);
  std::string body = "new";
  std::span<const uint8_t> pieces[] = {bytes_of(body)};
  write_pieces_atomic(path, pieces);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0751u);
  EXPECT_EQ(test::read_file(path), "new");
}

// Root rewriting a user's module in place (a build run with sudo) leaves
// it that user's, as an in-place update would; a new output is root's.
TEST(AtomicFile, PiecesKeepTheOldOwner) {
  if (geteuid() != 0) GTEST_SKIP() << "\n*** not root: giving a file to another user NOT TESTED (CI runs as root) ***\n";
  std::string dir = test::scratch_dir() + "/owner";
  fs::create_directories(dir);
  std::string path = dir + "/module.ko";
  write_file_atomic(path, bytes_of("old"));
  ASSERT_EQ(chown(path.c_str(), 4321, 8765), 0);
  ASSERT_EQ(chmod(path.c_str(), 02755), 0);  // set-group-ID: kept as well
  std::string body = "new";
  std::span<const uint8_t> pieces[] = {bytes_of(body)};
  write_pieces_atomic(path, pieces);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 4321u);
  EXPECT_EQ(st.st_gid, 8765u);
  EXPECT_EQ(st.st_mode & 07777, 02755u);
  EXPECT_EQ(test::read_file(path), "new");
  std::string fresh = dir + "/fresh.btf";
  write_pieces_atomic(fresh, pieces);
  ASSERT_EQ(stat(fresh.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  expect_only(dir, {"fresh.btf", "module.ko"});
}

// A signal that ends the process mid-write (here SIGXFSZ, from a file
// size limit the write runs into; Ctrl-C's SIGINT takes the same path)
// removes the temporary file first: only the previous output is left.
TEST(AtomicFile, FatalSignalLeavesNoTemporaryFile) {
  std::string dir = test::scratch_dir() + "/signal";
  fs::create_directories(dir);
  std::string path = dir + "/vmlinux";
  write_file_atomic(path, bytes_of("previous"));
  const std::string big(1 << 20, 'x');
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    struct rlimit limit{64 * 1024, 64 * 1024};
    setrlimit(RLIMIT_FSIZE, &limit);
    try {
      std::span<const uint8_t> pieces[] = {bytes_of(big)};
      write_pieces_atomic(path, pieces);
    } catch (...) {
    }
    _exit(0);  // not reached: the limit's signal ends the write
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child exited with status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGXFSZ);
  EXPECT_EQ(test::read_file(path), "previous");
  expect_only(dir, {"vmlinux"});
}

TEST(AtomicFile, FailureLeavesNothing) {
  std::string dir = test::scratch_dir() + "/fail";
  fs::create_directories(dir);
  try {
    write_file_atomic(dir + "/missing/out.btf", bytes_of("x"));
    FAIL() << "no error";
  } catch (Error& e) {
    // The output is the message's file: the caller naming its input (the
    // same file, in place) adds nothing, and the path shows once.
    e.with_file(dir + "/input.ko");
    EXPECT_EQ(std::string(e.what()),
              dir + "/missing/out.btf: cannot create a temporary file in its folder: No such file or directory");
  }
  try {
    write_file_atomic(dir, bytes_of("x"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is a folder"), std::string::npos) << e.what();
  }
  expect_only(dir, {});
}

// The link's target is replaced and the link stays; a dangling link is
// replaced by the file.
TEST(AtomicFile, SymlinkTargetIsWritten) {
  std::string dir = test::scratch_dir() + "/link";
  fs::create_directories(dir);
  write_file_atomic(dir + "/real.btf", bytes_of("old"));
  fs::create_symlink("real.btf", dir + "/link.btf");
  write_file_atomic(dir + "/link.btf", bytes_of("through the link"));
  EXPECT_TRUE(fs::is_symlink(dir + "/link.btf"));
  EXPECT_EQ(test::read_file(dir + "/real.btf"), "through the link");
  fs::create_symlink("nowhere.btf", dir + "/dangling.btf");
  write_file_atomic(dir + "/dangling.btf", bytes_of("here"));
  EXPECT_FALSE(fs::is_symlink(dir + "/dangling.btf"));
  EXPECT_EQ(test::read_file(dir + "/dangling.btf"), "here");
  expect_only(dir, {"dangling.btf", "link.btf", "real.btf"});
}

// A file of two names: both see the new bytes, shorter or longer than
// the old, the file keeps its inode, and no temporary file is left.
TEST(AtomicFile, HardLinkedFileIsRewrittenForEveryName) {
  std::string dir = test::scratch_dir() + "/hardlink";
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_file_atomic(dir + "/a.ko", bytes_of("the old contents, long ones"));
  fs::create_hard_link(dir + "/a.ko", dir + "/b.ko");
  struct stat before;
  ASSERT_EQ(stat((dir + "/a.ko").c_str(), &before), 0);
  for (std::string text : {std::string("short"), std::string(3 << 20, 'x')}) {
    const std::string head = text.substr(0, 2), rest = text.substr(2);
    std::span<const uint8_t> pieces[] = {bytes_of(head), bytes_of(rest)};
    write_pieces_atomic(dir + "/a.ko", pieces);
    EXPECT_EQ(test::read_file(dir + "/a.ko"), text);
    EXPECT_EQ(test::read_file(dir + "/b.ko"), text);
    struct stat after;
    ASSERT_EQ(stat((dir + "/a.ko").c_str(), &after), 0);
    EXPECT_EQ(after.st_ino, before.st_ino);
    EXPECT_EQ(after.st_nlink, 2u);
  }
  expect_only(dir, {"a.ko", "b.ko"});
  // One name left: replaced by rename again (a new inode).
  fs::remove(dir + "/b.ko");
  write_file_atomic(dir + "/a.ko", bytes_of("alone"));
  struct stat alone;
  ASSERT_EQ(stat((dir + "/a.ko").c_str(), &alone), 0);
  EXPECT_NE(alone.st_ino, before.st_ino);
  EXPECT_EQ(test::read_file(dir + "/a.ko"), "alone");
  expect_only(dir, {"a.ko"});
}

// A target of several hard links on a disk with room for the temporary
// file but not for the target's growth: the copy over it would stop
// halfway, so nothing is written to it; the temporary file is removed and
// the error says why. On a tmpfs of 1 MB, mounted in a mount namespace of
// a child's own (root only).
TEST(AtomicFile, HardLinkedFileIsUntouchedWhenTheDiskIsFull) {
  if (geteuid() != 0) GTEST_SKIP() << "\n*** not root: a full disk under a hard-linked file NOT TESTED (CI runs as root) ***\n";
  const std::string dir = test::scratch_dir() + "/full-disk";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string old_text(64 << 10, 'o'), new_text(256 << 10, 'n');
  enum : int { kNoMount = 100, kNoError = 1, kBadMessage = 2, kTargetChanged = 4, kLinkChanged = 8, kLeftovers = 16 };
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=1m") != 0)
      _exit(kNoMount);
    int broken = 0;
    const std::string a = dir + "/a.ko", b = dir + "/b.ko";
    write_file_atomic(a, bytes_of(old_text));
    link(a.c_str(), b.c_str());
    // Leave room for the new contents once and a half: the temporary
    // file fits, the target's growth (by 3/4 of that) does not.
    struct statvfs vfs;
    statvfs(dir.c_str(), &vfs);
    const uint64_t free_bytes = uint64_t{vfs.f_bavail} * vfs.f_bsize, room = new_text.size() * 3 / 2;
    if (free_bytes > room) write_file_atomic(dir + "/filler", bytes_of(std::string(free_bytes - room, 'f')));
    try {
      std::span<const uint8_t> pieces[] = {bytes_of(new_text)};
      write_pieces_atomic(a, pieces);
      broken |= kNoError;
    } catch (const Error& e) {
      const std::string what = e.what();
      if (what.find(a + ": cannot reserve space to rewrite it in place") == std::string::npos ||
          what.find("No space left on device") == std::string::npos)
        broken |= kBadMessage;
    }
    if (test::read_file(a) != old_text) broken |= kTargetChanged;
    if (test::read_file(b) != old_text) broken |= kLinkChanged;
    if (fs::exists(dir + "/filler")) fs::remove(dir + "/filler");
    if (std::distance(fs::directory_iterator(dir), fs::directory_iterator()) != 2) broken |= kLeftovers;
    _exit(broken);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  const int broken = WEXITSTATUS(status);
  if (broken == kNoMount) GTEST_SKIP() << "\n*** the kernel refused a private tmpfs mount: a full disk NOT TESTED ***\n";
  EXPECT_FALSE(broken & kNoError) << "the write succeeded on a full disk";
  EXPECT_FALSE(broken & kBadMessage) << "the error does not say there is no room";
  EXPECT_FALSE(broken & kTargetChanged) << "the target was changed";
  EXPECT_FALSE(broken & kLinkChanged) << "the target's other name reads other bytes";
  EXPECT_FALSE(broken & kLeftovers) << "a temporary file was left";
}

// A signal that comes while a DeferSignals lives (a copy over a
// hard-linked target) ends the process when it ends, not before, still
// removing the temporary files then; one released is left.
TEST(AtomicFile, SignalsWaitForTheEndOfADeferSignals) {
  const std::string dir = test::scratch_dir() + "/defer";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string tmp = dir + "/out.tmp.1", kept = dir + "/kept.tmp.2", after = dir + "/after";
  write_file_atomic(tmp, bytes_of("temporary"));
  write_file_atomic(kept, bytes_of("complete"));
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    RemoveOnSignal guard(tmp), released(kept);
    released.release();
    {
      DeferSignals defer;
      raise(SIGINT);
      raise(SIGTERM);  // a second one waits as well
      write_file_atomic(after, bytes_of("still running"));
    }
    _exit(0);  // not reached: the end of `defer` ends the process
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child exited with status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(test::read_file(after), "still running");
  EXPECT_FALSE(fs::exists(tmp));
  EXPECT_EQ(test::read_file(kept), "complete");
}

// A handler that ends the process from one thread (a fault on a mapped
// input) first waits for a copy over a hard-linked file in another to end;
// in the thread that copies (it would wait for itself) it does not wait.
TEST(AtomicFile, EndingTheProcessWaitsForACopyInAnotherThread) {
  std::atomic<bool> holding{false}, done{false};
  std::thread copier([&] {
    DeferSignals defer;
    holding = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    done = true;
  });
  while (!holding) std::this_thread::yield();
  wait_for_deferred_writes();
  EXPECT_TRUE(done) << "returned while another thread still copied";
  copier.join();
  DeferSignals mine;
  wait_for_deferred_writes();  // returns: only this thread holds one
}

// A thread that reads the FIFO at `path` to its end into `got` (a writer
// blocks opening a FIFO until a reader has it open).
std::thread read_fifo(const std::string& path, std::string& got) {
  return std::thread([&path, &got] {
    int fd = open(path.c_str(), O_RDONLY);
    char buf[4096];
    ssize_t n;
    while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
    if (fd >= 0) close(fd);
  });
}

// A copier (ElfFile::copy_to) may take all, part or none of a piece: the
// rest is written from memory, so the file holds every piece in order.
TEST(AtomicFile, WhatTheCopierLeavesIsWritten) {
  std::string dir = test::scratch_dir() + "/copier";
  fs::create_directories(dir);
  std::string path = dir + "/out.ko";
  std::string a = "first piece|", b = "second|", c = "third piece, the last";
  std::span<const uint8_t> pieces[] = {bytes_of(a), bytes_of(b), bytes_of(c)};
  for (size_t share : {0, 1, 2}) {  // none, half, all of each piece
    size_t asked = 0;
    write_pieces_atomic(path, pieces, [&](int fd, std::span<const uint8_t> piece) -> size_t {
      asked++;
      const size_t n = piece.size() * share / 2;
      return write(fd, piece.data(), n) == static_cast<ssize_t>(n) ? n : 0;
    });
    EXPECT_EQ(test::read_file(path), a + b + c) << share;
    EXPECT_EQ(asked, 3u);
  }
  expect_only(dir, {"out.ko"});
}

// Into a FIFO the kernel copies nothing (copy_file_range wants two regular
// files): MappedFile::copy_to gives up and the bytes are written.
TEST(AtomicFile, MappedBytesReachAFifoThroughWrite) {
  std::string dir = test::scratch_dir() + "/fifo-copier";
  fs::create_directories(dir);
  std::string src = dir + "/input";
  std::string content(70000, 'x');
  for (size_t i = 0; i < content.size(); i++) content[i] = static_cast<char>('a' + i % 26);
  write_file_atomic(src, bytes_of(content));
  MappedFile in = MappedFile::open(src);
  std::string path = dir + "/pipe";
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  std::string got;
  std::thread reader = read_fifo(path, got);
  const std::string head = "<", tail = ">";
  std::span<const uint8_t> pieces[] = {bytes_of(head), in.bytes().subspan(5, 60000), bytes_of(tail)};
  write_pieces_atomic(path, pieces, [&](int fd, std::span<const uint8_t> piece) { return in.copy_to(fd, piece); });
  reader.join();
  const std::string want = head + content.substr(5, 60000) + tail;
  EXPECT_TRUE(got == want) << got.size() << " bytes, " << want.size() << " wanted";
  EXPECT_TRUE(fs::is_fifo(path));
}

// A target that is not a regular file (/dev/null, a FIFO) is written to,
// never renamed over: as root, a rename would replace /dev/null itself.
TEST(AtomicFile, FifoIsWrittenNotReplaced) {
  std::string dir = test::scratch_dir() + "/fifo";
  fs::create_directories(dir);
  std::string path = dir + "/pipe";
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  std::string got;
  std::thread reader = read_fifo(path, got);
  write_file_atomic(path, bytes_of("through the pipe"));
  reader.join();
  EXPECT_EQ(got, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(path));
  expect_only(dir, {"pipe"});
}

}  // namespace
}  // namespace btfc
