#!/usr/bin/env python3
"""Sorts `btfc diff BTFC PAHOLE` reports of many modules into kinds.

    bench/classify-diff.py DIFFS_DIR MODDIR

DIFFS_DIR holds NAME.txt, the report of `btfc diff btfc/NAME.btf
pahole/NAME.btf` (as bench/modules.sh leaves them); MODDIR is searched for
NAME.ko to look at the module's ELF symbols (nm). Each item of a report
(a type only one side has, or a type both have that changed) gets a class;
the script prints, per class, how many items and modules, and examples.
A class that is not explained by a known difference between pahole 1.24 and
1.31 is printed as "unexplained", so nothing is hidden.
"""
import collections
import os
import re
import subprocess
import sys

diffs, moddir = sys.argv[1], sys.argv[2]
kos = {}
for d, _, files in os.walk(moddir):
    for f in files:
        if f.endswith(".ko"):
            kos[f[:-3]] = os.path.join(d, f)


def symbols(name):
    out = subprocess.run(["nm", kos[name]], capture_output=True, text=True).stdout
    exact, suffixed = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        sym = parts[-1]
        if "." in sym:
            suffixed.add(sym.split(".")[0])
        else:
            exact.add(sym)
    return exact, suffixed


ITEM = re.compile(r"^  (\S+) (.*?)(:|$)")
classes = collections.defaultdict(lambda: [0, set(), []])
equivalent = 0
for fname in sorted(os.listdir(diffs)):
    name = fname[:-4]
    text = open(os.path.join(diffs, fname)).read()
    if not text.strip() or re.search(r"^(only in|changed)", text, re.M | re.I) is None:
        if "differ" not in text:
            equivalent += 1
            continue
    syms = None
    section = None
    for line in text.splitlines():
        low = line.lower()
        if low.startswith("only in "):
            section = "btfc" if "btfc" in line.split(":")[0] else "pahole"
            continue
        if low.startswith("changed"):
            section = "changed"
            continue
        if low.startswith("types whose whole graphs differ"):
            section = "deep"
            continue
        if not line.startswith("  ") or line.startswith("    "):
            if not line.startswith("  "):
                section = None if not line.startswith(" ") else section
            continue
        if section is None:
            continue
        m = ITEM.match(line)
        if not m:
            continue
        kind, ident = m.group(1), m.group(2).split(" ")[0]
        if section == "deep":
            cls = "graph-only difference (duplicated anonymous types or same-name references): " + kind
        elif section == "changed":
            cls = "changed " + kind + (" (per-CPU offset)" if kind == "VAR" else "")
        elif kind == "FUNC":
            if syms is None:
                syms = symbols(name)
            exact, suffixed = syms
            if section == "btfc" and ident not in exact and ident in suffixed:
                cls = "FUNC only in btfc/1.31: only suffixed (.isra/.constprop/.part) symbols [1.31 adds these]"
            elif section == "btfc":
                cls = "FUNC only in btfc/1.31 (exact symbol exists) [unexplained]"
            else:
                cls = "FUNC only in pahole 1.24 [unexplained]"
        else:
            cls = f"{kind} only in {'btfc/1.31' if section == 'btfc' else 'pahole 1.24'}"
        c = classes[cls]
        c[0] += 1
        c[1].add(name)
        if len(c[2]) < 4:
            c[2].append(f"{name}: {line.strip()[:110]}")

print(f"reports: {len(os.listdir(diffs))}, equivalent: {equivalent}")
for cls, (n, mods, ex) in sorted(classes.items(), key=lambda kv: -kv[1][0]):
    print(f"\n{n:6d} items in {len(mods):4d} modules: {cls}")
    for e in ex:
        print(f"         e.g. {e}")
