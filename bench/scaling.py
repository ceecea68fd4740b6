#!/usr/bin/env python3
"""Replays a btfc run's task graph on P simulated threads (issue 6, target 2).

Every machine here has 2 cores, so how btfc scales to 8 cannot be timed.
What can be measured is the run's own task graph: with BTFC_TRACE=FILE,
btfc records each parallel loop, each item of one (with its nesting), each
section that holds a lock (src/base/trace.h). In a -j1 trace the items run
one after the other, so each one's time is its own work, undisturbed.
This script rebuilds the graph from such a trace and replays it on P
threads, the way base/parallel.cc runs it on TBB:

  - an item that starts a loop waits for it, and meanwhile its thread
    takes only that loop's items (and theirs): TBB's isolation;
  - a thread with nothing to wait for takes the outermost item left,
    in index order (the next group of units before another group's
    units: parallel_for_in_order's pullers), else steals an inner one;
  - sections of one name (the encoder's append of a group under its
    mutex, dedup's in-order naming) never overlap: a thread that finds
    one busy waits for it.

It prints the replayed wall time at each P (the median over the -j1
traces given, runs of the same input), the speedup over P=1, the span
(P unbounded), and the replayed time of each phase the run's own thread
goes through. Given traces taken at -jN (--check, N > 1), it also prints
their real time (median) beside the replay at P=N: the check that the
replay models what the machine does. What the replay cannot see is the
memory bandwidth and caches that threads share: the check measures that
effect at N threads, and no more. bench/scaling.sh takes the traces.

  BTFC_TRACE=t1 btfc encode -j1 FILE --btf_encode_detached=/tmp/o
  BTFC_TRACE=t2 btfc encode -j2 FILE --btf_encode_detached=/tmp/o
  bench/scaling.py [-p 1,2,4,8,16] t1 [t1b ...] [--check t2 [t2b ...]]
"""

import argparse
import heapq
import statistics
import sys


class Trace:
    def __init__(self, path):
        self.path = path
        self.jobs = 1
        self.loops = {}  # id -> dict(parent, n, in_order, start, end)
        self.items = {}  # id -> dict(loop, index, start, end)
        self.exclusives = []  # (name, item, start, end)
        self.phases = []  # (name, start, end)
        self.end = None
        self.top_times = []  # the trace's (start, end) of each segment of the run's own: segments()
        with open(path) as f:
            for number, line in enumerate(f, 1):
                try:
                    self.read_line(line)
                except (ValueError, IndexError):
                    sys.exit(f"scaling.py: {path}:{number}: not a BTFC_TRACE line: {line.strip()[:80]}")
        if self.end is None:
            sys.exit(f"scaling.py: {path}: no 'end' line: not a whole BTFC_TRACE file")

    def read_line(self, line):
        w = line.split()
        if not w:
            return
        if w[0] == "jobs":
            self.jobs = int(w[1])
        elif w[0] == "loop":
            i, parent, n, in_order, start, end = map(int, w[1:7])
            self.loops[i] = dict(parent=parent, n=n, in_order=in_order, start=start, end=end)
        elif w[0] == "item":
            i, loop, index, start, end = map(int, w[1:6])
            self.items[i] = dict(loop=loop, index=index, start=start, end=end)
        elif w[0] == "exclusive":
            self.exclusives.append((w[1], int(w[2]), int(w[3]), int(w[4])))
        elif w[0] == "phase":
            name, start, end = line.split(" ", 1)[1].rsplit(" ", 2)  # a name may hold spaces
            self.phases.append((name, int(start), int(end)))
        elif w[0] == "end":
            self.end = int(w[1])
        else:
            raise ValueError(w[0])

    def segments(self):
        """Each item's (and the run's, item 0) list of segments in order:
        ("work", us), ("loop", id), ("excl", name, us). A loop's time
        between its items (handing them out: about a microsecond each) is
        work of the thread that waits for it, after the loop."""
        busy = dict.fromkeys(self.loops, 0)
        for it in self.items.values():
            if it["loop"] in busy:
                busy[it["loop"]] += it["end"] - it["start"]
        children = {0: []}
        for i in self.items:
            children[i] = []
        for i, l in self.loops.items():
            if l["parent"] not in children:
                sys.exit(f"scaling.py: {self.path}: loop {i} names item {l['parent']}, which is not in the trace")
            children[l["parent"]].append((l["start"], l["end"], ("loop", i)))
        for name, item, start, end in self.exclusives:
            if item not in children:
                sys.exit(f"scaling.py: {self.path}: exclusive {name} names item {item}, which is not in the trace")
            children[item].append((start, end, ("excl", name, end - start)))
        for i, it in self.items.items():
            if it["loop"] not in self.loops:
                sys.exit(f"scaling.py: {self.path}: item {i} names loop {it['loop']}, which is not in the trace")
        bounds = {0: (0, self.end)}
        for i, it in self.items.items():
            bounds[i] = (it["start"], it["end"])
        segs = {}
        for i, kids in children.items():
            kids.sort()
            t, end = bounds[i]
            out = []  # (segment, its (start, end) in the trace)
            for start, stop, seg in kids:
                if start > t:
                    out.append((("work", start - t), (t, start)))
                out.append((seg, (start, stop)))
                if seg[0] == "loop":
                    gap = (stop - start) - busy[seg[1]]
                    if gap > 0:
                        out.append((("work", gap), (stop - gap, stop)))
                t = max(t, stop)
            if end > t:
                out.append((("work", end - t), (t, end)))
            segs[i] = [seg for seg, _ in out]
            if i == 0:
                self.top_times = [span for _, span in out]
        return segs

    def top_phases(self):
        """The phases the run's own thread goes through (not those inside
        a loop's items, as the groups' dedup.*), in order."""
        return [(n, s, e) for n, s, e in self.phases if "." not in n]


class Replay:
    """Greedy replay of the task graph on p threads (see the module doc)."""

    def __init__(self, trace, segs, p):
        self.segs = segs
        self.p = p
        # Items of each loop in index order, and each loop's depth.
        self.loop_items = {i: [] for i in trace.loops}
        for i, it in trace.items.items():
            self.loop_items[it["loop"]].append((it["index"], i))
        for v in self.loop_items.values():
            v.sort()
        self.item_loop = {i: it["loop"] for i, it in trace.items.items()}
        self.loop_parent = {i: l["parent"] for i, l in trace.loops.items()}
        # Each loop and the loops it lies in, innermost first.
        self.ancestors = {i: self.ancestor_loops(i) for i in trace.loops}

    def ancestor_loops(self, loop):
        out = []
        while loop:
            out.append(loop)
            item = self.loop_parent[loop]
            loop = self.item_loop.get(item, 0)
        return out

    def run(self):
        """The replayed wall time; self.top_times: the replayed (start, end)
        of each of the run's own segments."""
        self.top_times = []
        now = 0
        events = []  # (time, seq, worker): a worker's segment ends
        seq = 0
        running = {}  # worker -> its task [item, next segment], while it runs one
        waiting_on = {}  # worker -> stack of (task, loop): tasks that wait for a loop
        idle_waiting = set()  # idle workers whose task waits for a loop
        free = list(range(self.p))  # idle workers with nothing to wait for (a heap)
        active = {}  # loop -> dict(next, left, depth, order)
        # Candidates for pick(): (depth, order, loop) of every loop started,
        # in one heap for all and one per loop for those inside it (itself
        # included); a loop with no item left is dropped when met on top.
        everywhere = []
        inside = {}
        order = 0
        holder = {}  # exclusive name -> the worker in it, or None
        queue = {}  # exclusive name -> [(worker, us), ...] waiting for it
        releases = {}  # worker -> the exclusive it is in

        def schedule(w, t):
            nonlocal seq
            heapq.heappush(events, (t, seq, w))
            seq += 1

        def go_idle(w):
            del running[w]
            if waiting_on.get(w):
                idle_waiting.add(w)
            else:
                heapq.heappush(free, w)

        def advance(w):
            """Runs worker w's task from its next segment until that takes
            time, waits or the task ends."""
            nonlocal order
            task = running[w]
            while True:
                item, pos = task
                s = self.segs[item]
                if item == 0:
                    if self.top_times:
                        self.top_times[-1][1] = now
                    if pos < len(s):
                        self.top_times.append([now, None])
                if pos == len(s):
                    if item != 0:
                        active[self.item_loop[item]]["left"] -= 1
                    go_idle(w)
                    return
                seg = s[pos]
                task[1] += 1
                if seg[0] == "work":
                    schedule(w, now + seg[1])
                    return
                if seg[0] == "loop":
                    loop = seg[1]
                    if not self.loop_items[loop]:
                        continue
                    up = self.ancestors[loop]
                    active[loop] = dict(next=0, left=len(self.loop_items[loop]), depth=len(up), order=order)
                    entry = (len(up), order, loop)
                    heapq.heappush(everywhere, entry)
                    for a in up:
                        heapq.heappush(inside.setdefault(a, []), entry)
                    order += 1
                    waiting_on.setdefault(w, []).append((task, loop))
                    go_idle(w)
                    return
                name, us = seg[1], seg[2]
                if holder.get(name) is None:
                    holder[name] = w
                    releases[w] = name
                    schedule(w, now + us)
                else:
                    queue.setdefault(name, []).append((w, us))
                return

        def pick(within):
            """The next item of the outermost, oldest loop with items left
            (only loops inside `within`, if given), taken; or None."""
            heap = everywhere if within is None else inside.get(within, [])
            while heap:
                loop = heap[0][2]
                a = active.get(loop)
                if a is not None and a["next"] < len(self.loop_items[loop]):
                    a["next"] += 1
                    return self.loop_items[loop][a["next"] - 1][1]
                heapq.heappop(heap)  # done taking (an order is never reused)
            return None

        def start(w, task):
            running[w] = task
            advance(w)

        def dispatch():
            progress = True
            while progress:
                progress = False
                for w in sorted(idle_waiting):
                    task, loop = waiting_on[w][-1]
                    if active[loop]["left"] == 0:  # its loop is done: resume
                        waiting_on[w].pop()
                        del active[loop]
                        idle_waiting.discard(w)
                        start(w, task)
                        progress = True
                    else:
                        item = pick(loop)  # TBB's isolation: only the loop's items
                        if item is not None:
                            idle_waiting.discard(w)
                            start(w, [item, 0])
                            progress = True
                while free:
                    item = pick(None)
                    if item is None:
                        break
                    start(heapq.heappop(free), [item, 0])
                    progress = True

        start(heapq.heappop(free), [0, 0])
        dispatch()
        while events:
            now, _, w = heapq.heappop(events)
            name = releases.pop(w, None)
            if name is not None:  # the end of an exclusive section: the next waiting goes in
                waiting = queue.get(name)
                if waiting:
                    nw, us = waiting.pop(0)
                    holder[name] = nw
                    releases[nw] = name
                    schedule(nw, now + us)
                else:
                    holder[name] = None
            advance(w)
            dispatch()
        return now


def phase_times(t, segs, replay):
    """Replayed seconds of each phase of the run's own thread: a stretch of
    its own work counts where it lay in the trace, a loop where it began."""
    phases = t.top_phases()
    out = dict.fromkeys([n for n, _, _ in phases] + ["other"], 0.0)
    for seg, (s0, e0), (rs, re) in zip(segs[0], t.top_times, replay.top_times):
        if seg[0] == "loop":
            owner = next((n for n, ps, pe in phases if ps <= s0 < pe), "other")
            out[owner] += (re - rs) / 1e6
            continue
        inside = 0
        for n, ps, pe in phases:
            o = max(0, min(e0, pe) - max(s0, ps))
            out[n] += o / 1e6
            inside += o
        out["other"] += (e0 - s0 - inside) / 1e6
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traces", nargs="+", help="BTFC_TRACE files of -j1 runs")
    ap.add_argument("--check", nargs="*", default=[], help="BTFC_TRACE files of the same input at -jN, N > 1")
    ap.add_argument("-p", default="1,2,4,8,16", help="thread counts to replay (default 1,2,4,8,16)")
    args = ap.parse_args()
    traces = [Trace(path) for path in args.traces]
    for path, t in zip(args.traces, traces):
        if t.jobs != 1:
            sys.exit(f"scaling.py: {path} was taken at -j{t.jobs}: replay -j1 traces (their items are undisturbed)")
    checks = [Trace(path) for path in args.check]
    check_jobs = sorted({c.jobs for c in checks})
    if len(check_jobs) > 1 or 1 in check_jobs:
        sys.exit("scaling.py: --check takes traces of one -jN, N > 1")
    counts = sorted({int(x) for x in args.p.split(",")} | set(check_jobs))
    median = statistics.median

    # Per trace: the replayed time at each P and unbounded, and by phase.
    walls = {p: [] for p in counts + [0]}
    phases = {p: [] for p in counts}
    for t in traces:
        segs = t.segments()
        for p in counts + [0]:
            r = Replay(t, segs, p or len(t.items) + 1)  # unbounded: a thread per item
            walls[p].append(r.run())
            if p:
                phases[p].append(phase_times(t, segs, r))
    one = median(walls[1])
    loops = median(len(t.loops) for t in traces)
    items = median(len(t.items) for t in traces)
    print(f"{len(traces)} trace(s) at -j1: {loops:.0f} loops, {items:.0f} items, "
          f"run {median(t.end for t in traces) / 1e6:.3f} s (median)")
    print(f"{'threads':>8} {'replayed (s)':>13} {'speedup':>8}")
    for p in counts:
        w = median(walls[p])
        line = f"{p:>8} {w / 1e6:>13.3f} {one / w:>7.2f}x"
        if checks and p == check_jobs[0]:
            real = median(c.end for c in checks)
            line += (f"   measured at -j{p}: {real / 1e6:.3f} s, {median(t.end for t in traces) / real:.2f}x "
                     f"(replay {(w - real) / real * 100:+.1f}%, {len(checks)} run(s))")
        print(line)
    span = median(walls[0])
    print(f"{'span':>8} {span / 1e6:>13.3f} {one / span:>7.2f}x   (threads unbounded)")
    print("\nreplayed seconds by phase (median):")
    names = list(phases[counts[0]][0])
    print(f"{'phase':<22}" + "".join(f"{'P=' + str(p):>8}" for p in counts))
    for n in names:
        print(f"{n:<22}" + "".join(f"{median(ph.get(n, 0.0) for ph in phases[p]):>8.3f}" for p in counts))


if __name__ == "__main__":
    main()
