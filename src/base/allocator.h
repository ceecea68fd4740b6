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
#pragma once

namespace btfc {

// `threads`: how many threads will run work (jobs()).
void tune_allocator(unsigned threads);

}  // namespace btfc
