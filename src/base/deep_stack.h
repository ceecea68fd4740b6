// Runs a function on a thread with a large stack, for graph algorithms
// whose natural form is a depth-first recursion (BTF dedup's type-graph
// comparison, as in libbpf). On real input the depth stays small, but a
// stranger's BTF can chain 100k pointer types; a stack sized from the
// input makes that a slow success instead of a crash. The stack is only
// reserved address space: pages are touched as deep as the recursion goes.
#pragma once

#include <cstddef>
#include <functional>

namespace btfc {

// Calls fn() on a thread whose stack holds `bytes` (at least 8 MiB) and
// waits; an exception from fn is rethrown here. The thread is kept for
// the calling thread's next call (a batch runs one dedup per module),
// unless its stack is over 512 MiB; pages below the stack's top 1 MiB are
// given back after each call.
void run_with_stack(size_t bytes, const std::function<void()>& fn);

}  // namespace btfc
