// Settings of glibc's malloc for an encoder run, made once before any
// worker thread starts. The btfc executable links jemalloc, set up in
// cli/malloc_conf.cc, and these calls then set a malloc nobody uses;
// they serve builds on glibc's malloc (the sanitizers', the tests').
//
// btfc's big tables are allocated, freed and allocated again phase after
// phase (unit tables, group tables, dedup's per-id arrays). With glibc's
// defaults every thread that allocates gets an arena of its own (up to 8
// per core: dedup runs each table on a fresh big-stack thread), blocks
// from 128 KB up are mappings returned to the kernel on free, and the heap
// top is trimmed: memory one phase frees is then seldom what the next one
// gets, and each fresh page costs a fault and a zeroing. On the corpus
// vmlinux at -j2 these settings cut page faults from ~55k to ~42k and
// peak RSS from ~188 MB to ~168 MB; output never depends on them.
//
// Page size, for any malloc: a small input's fresh memory comes in the
// huge pages jemalloc asks for; a large input's in whichever page size
// faults in faster on this machine at this moment (see tune_allocator).
#pragma once

namespace btfc {

// What fresh memory cost when tune_allocator measured it: milliseconds
// per MB for transparent huge pages and for 4 KB pages, each touched once.
struct PageProbe {
  double huge_ms_per_mb = 0, small_ms_per_mb = 0;
};

// Whether a run with large tables should take small pages, by a probe's
// figures: when huge pages fault in at half the speed of small ones or
// less. Huge pages keep the benefit of the doubt (fewer TLB misses later).
bool small_pages_pay(const PageProbe& probe);

// Touches a fresh huge page and 1 MB of fresh small pages and times each
// (about 1 ms; up to 5 ms where huge pages are slow). The probe's memory
// is unmapped before it returns.
PageProbe probe_fresh_pages();

// What tune_allocator chose, and what recheck_fresh_pages changed.
struct PageChoice {
  bool probed = false;       // a large input: the probe ran
  bool small_pages = false;  // huge pages were turned off for the process
  PageProbe probe;
  // Huge pages kept by the probe, turned off later by a recheck: how many
  // checks found them fast first, and the check's figure that did it.
  bool turned_off_later = false;
  unsigned checks_passed = 0;
  double late_huge_ms_per_mb = 0;
};

// `threads`: how many threads will run work (jobs()). `large_input`: the
// run will fill tens of megabytes or more of tables; their page size is
// then chosen by probe_fresh_pages(), and small pages, once chosen, hold
// for the rest of the process (PR_SET_THP_DISABLE).
//
// Why measure: on the virtual machines kernel builds run on, the host
// takes back free memory in large blocks (free page reporting), and a huge
// page is mostly carved from such a block. How much a fresh one costs then
// depends on the host. On session 45's (AMD EPYC, page_reporting_order
// 11) huge pages came at 0.46-0.70 GB/s when fresh from the host, one run
// in two or three and most runs right after pahole, and at 22 GB/s when
// warm, while 4 KB pages came at 3.2 GB/s every time (200 MB touched); the
// state holds for a while, so a probe at the start speaks for the run.
// On session 46's (Intel Xeon, order 9) huge pages came at 4-6 GB/s and
// small ones at 1.8-2.2 GB/s every time, after pahole or not, so turning
// huge pages off for large inputs, as session 45 had, made amdgpu.ko
// slower there (0.79 -> 0.95 s). A small module (a few MB of tables, a
// kernel build's case) keeps huge pages without a probe: one cold page
// costs little, and warm ones save faults.
PageChoice tune_allocator(unsigned threads, bool large_input);

// For a run whose probe kept huge pages: times the next fresh huge page
// and turns huge pages off (as the probe would have) when it comes at
// twice the cost per MB of the probe's small pages or more. Called
// between steps of the work (a module's batches of units, vmlinux's
// groups); does nothing once huge pages are off, without a probe, or
// when the process's peak RSS has not grown by 8 MB since the last check.
//
// Why again: the one huge page the probe touches may be warm when the
// rest are not. A host takes free memory back in blocks some time after
// it is freed, so right after another process (pahole) exits, the guest
// hands out the warm huge pages it freed first and cold ones after. On
// session 57's host (AMD EPYC, order 9) the pool after a pahole run on
// amdgpu.ko held 0 to 86 warm huge pages (0.1 ms/MB), the rest came at
// 4 to 6 ms/MB, and 4 KB pages at 0.5 ms/MB throughout; amdgpu.ko wants
// about 190 MB, so a run whose probe saw a warm page spent 0.5 s of
// system time instead of 0.2. The page a check touches stays mapped
// until the next check (2 MB; the last one until the process ends), so
// that each check takes a page the run has not met yet; then it goes back
// to the pool, warm, for the tables.
// The time is the thread's CPU time: a preempted check does not read as
// slow pages. Thread-safe; a call that finds another one running returns.
// Without `choice`, the process's (page_choice()): every module of a batch
// checks for the one process.
void recheck_fresh_pages(PageChoice& choice);
void recheck_fresh_pages();

// What the last tune_allocator chose, as checks changed it since.
PageChoice page_choice();

}  // namespace btfc
