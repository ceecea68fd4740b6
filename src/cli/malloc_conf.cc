// How jemalloc, the btfc executable's malloc, is set up: read by jemalloc
// at its start from this symbol (MALLOC_CONF in the environment still
// overrides it). Builds without jemalloc (the sanitizers') use glibc's
// malloc as base/allocator.h sets it.
//
// An encode allocates its tables, frees them and allocates again phase
// after phase (unit tables, group tables, dedup's per-id arrays), 150 MB
// at its peak on vmlinux. On the virtual machines kernel builds run on a
// page fault is an exit to the host, and 4 KB pages cost one per page
// touched: with glibc's malloc, however set, 37k faults and a fifth of the
// CPU time went to the kernel on vmlinux. So:
// - thp:always: jemalloc asks for transparent huge pages (MADV_HUGEPAGE)
//   on its mappings, one fault per 2 MB: 37k -> 6k faults on vmlinux.
//   A run with large tables turns them off again when a probe, or a
//   check as its tables grow, finds them slower to fault in than small
//   pages (base/allocator.h): on one host,
//   huge pages fresh from the host came 7x slower than small pages, and
//   vmlinux, amdgpu.ko and module trees ran faster without.
// - narenas:1: one arena for all threads, so memory a thread frees serves
//   the next thread (dedup runs each table on a fresh big-stack thread,
//   which would otherwise start on an empty arena of its own). Small
//   blocks still come from per-thread caches.
// - dirty_decay_ms/muzzy_decay_ms -1: freed pages stay in the process for
//   the next phase instead of going back to the kernel and faulting in
//   again; peak RSS is what counts, not what is held between phases.
// Measured against the same code on glibc's malloc, in alternating runs
// (bench/compare.sh -B) on a 2-vCPU AMD EPYC virtual machine: vmlinux -j2
// 1.01 -> 0.88 s in one run and 1.09 -> 1.03 s in another (the host's
// speed drifts), peak RSS 146 -> 160 MB; amdgpu.ko 1.07 -> 0.80 s; 50
// small modules, one process each, 3.9 -> 2.8 s. Each setting alone gains
// little: huge pages without the single arena fault as much as glibc's
// malloc, and without huge pages jemalloc is no faster than glibc (1.03
// s against 0.79 s with them, in one run).
#ifdef BTFC_JEMALLOC
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "thp:always,narenas:1,dirty_decay_ms:-1,muzzy_decay_ms:-1";
}
#endif
