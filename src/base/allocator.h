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

// What tune_allocator chose.
struct PageChoice {
  bool probed = false;       // a large input: the probe ran
  bool small_pages = false;  // huge pages were turned off for the process
  PageProbe probe;
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

}  // namespace btfc
