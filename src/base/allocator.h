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
// Page size, for any malloc: a large input's fresh memory comes in small
// pages (see tune_allocator), a small one's in the huge pages jemalloc asks for.
#pragma once

namespace btfc {

// `threads`: how many threads will run work (jobs()). `large_input`: the
// run will fill tens of megabytes or more of tables, which then come in
// 4 KB pages, not transparent huge pages (PR_SET_THP_DISABLE, for the rest
// of the process). On the virtual machines kernel builds run on, the host
// takes back free memory in large blocks (free page reporting), and a huge
// page is mostly carved from such a block: fresh from the host, a fault
// in the host and 2 MB zeroed, 0.46-0.70 GB/s where 4 KB pages, taken from
// what other processes freed lately, come at 3.2 GB/s whatever the
// machine did before (200 MB touched, AMD EPYC host, session 45). When the
// huge pages come warm (a run right after another btfc), they come at
// 22 GB/s. A small module (a few MB of tables, a kernel build's case) gains
// from huge pages: fewer faults, and one cold page costs little. A large
// one's cost is the sum over many pages, cold ones among them.
void tune_allocator(unsigned threads, bool large_input);

}  // namespace btfc
