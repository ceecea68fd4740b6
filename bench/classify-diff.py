#!/usr/bin/env python3
"""Sorts `btfc diff BTFC PAHOLE` reports of many modules into kinds.

    bench/classify-diff.py DIFFS_DIR MODDIR

DIFFS_DIR holds NAME.txt, the report of `btfc diff btfc/NAME.btf
pahole/NAME.btf` (as bench/modules.sh and scripts/build-kernel.sh leave
them: the side whose folder's name starts with "btfc" is btfc's); MODDIR is
searched for NAME.ko (or a file named vmlinux, for vmlinux.txt) to look at
the module's ELF symbols (nm). Each item of a report
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
for d, _, files in os.walk(moddir):  # top-down: MODDIR's own vmlinux first
    for f in files:
        if f.endswith(".ko"):
            kos.setdefault(f[:-3], os.path.join(d, f))
        elif f == "vmlinux":
            kos.setdefault(f, os.path.join(d, f))


def symbols(name):
    """Names with an exact symbol, names with only suffixed ones, and names
    of text symbols at more than one address."""
    out = subprocess.run(["nm", kos[name]], capture_output=True, text=True).stdout
    exact, suffixed = set(), set()
    addresses = collections.defaultdict(set)
    for line in out.splitlines():
        parts = line.split()
        # Defined code symbols only: a variable or an undefined symbol of
        # the name (arm64's vmlinux has a `b clock` beside clock.constprop.0)
        # says nothing of how the function is named.
        if len(parts) != 3 or parts[1] not in "tTwWi":
            continue
        sym = parts[-1]
        if "." in sym:
            # .cold and .part pieces are not functions: they name none
            # (docs/pahole-rules.md 3.1); .isra, .constprop and ThinLTO's
            # .llvm.<hash> do.
            base, _, suffix = sym.partition(".")
            if ".cold" not in "." + suffix and ".part" not in "." + suffix:
                suffixed.add(base)
        else:
            exact.add(sym)
            if parts[1] in "tT":
                addresses[sym].add(parts[0])
    return exact, suffixed, {n for n, a in addresses.items() if len(a) > 1}


def is_btfc_side(path):
    """Whether a file the report names is btfc's: its folder's name starts
    with "btfc" (btfc/, btfc-sample/)."""
    return os.path.basename(os.path.dirname(path)).startswith("btfc")


ITEM = re.compile(r"^  (\S+) (.*?)(:|$)")
# btfc diff's note on an item whose name a side has more than once.
COUNTS = re.compile(r"\(of that name: (\d+) in (.+?), (\d+) in (.+)\)$")


def btfc_count(line):
    """How many types of the item's kind and name btfc's side has, if the
    report says (None where neither side has the name twice)."""
    m = COUNTS.search(line)
    if not m:
        return None
    for count, path in ((m.group(1), m.group(2)), (m.group(3), m.group(4))):
        if is_btfc_side(path):
            return int(count)
    return None


def report_items(text):
    """The items of a `btfc diff` report: (section, line, kind, name), the
    section being "btfc" or "pahole" (a type only that side has),
    "changed", or "deep" (a difference only the whole graphs show)."""
    section = None
    for line in text.splitlines():
        low = line.lower()
        if low.startswith("only in "):
            path = line[len("only in "):].rstrip().rstrip(":")
            section = "btfc" if is_btfc_side(path) else "pahole"
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
        if m:
            yield section, line, m.group(1), m.group(2).split(" ")[0]


def base_funcs():
    """From vmlinux.txt (the base's report, if DIFFS_DIR has it): the FUNC
    items only btfc's base has, as printed, and the names of FUNCs that
    1.24's base has more of (one per unit that defines one)."""
    path = os.path.join(diffs, "vmlinux.txt")
    if not os.path.exists(path):
        return set(), set()
    only_btfc, more_in_124 = set(), set()
    for section, line, kind, ident in report_items(open(path).read()):
        if kind != "FUNC":
            continue
        if section == "btfc":
            only_btfc.add(line.strip())
        elif section == "pahole" and (btfc_count(line) or 0) >= 1:
            more_in_124.add(ident)
    return only_btfc, more_in_124


# Split dedup maps a module's FUNC onto an identical one of its base, and
# the two bases differ in FUNCs: a module FUNC that only btfc's base has
# (a 1.31 FUNC there) is left out of btfc's module, and one of a name that
# 1.24's base has several of (one per unit) is more often left out of
# 1.24's (arm64: type_show).
in_btfc_base, several_in_124_base = base_funcs()
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
    for section, line, kind, ident in report_items(text):
        if section == "deep":
            cls = "graph-only difference (duplicated anonymous types or same-name references): " + kind
        elif section == "changed":
            cls = "changed " + kind + (" (per-CPU offset)" if kind == "VAR" else "")
        elif kind == "FUNC":
            if syms is None:
                syms = symbols(name)
            exact, suffixed, several = syms
            if section == "btfc" and ident not in exact and ident in suffixed:
                cls = "FUNC only in btfc/1.31: only suffixed symbols (.isra, .constprop, .llvm.<hash>) [1.31 adds these]"
            elif section == "btfc" and name != "vmlinux" and ident in several_in_124_base:
                cls = ("FUNC only in btfc/1.31: pahole 1.24's base has several FUNCs of the name, "
                       "and split dedup maps 1.24's module FUNC onto one")
            elif section == "btfc":
                cls = "FUNC only in btfc/1.31 (exact symbol exists) [unexplained]"
            elif (btfc_count(line) or 0) >= 1:
                cls = ("FUNC only in pahole 1.24: another FUNC of a name btfc has too "
                       "[1.24 encodes a function once per unit that defines it, 1.31 once per name]")
            elif name != "vmlinux" and line.strip() in in_btfc_base:
                cls = ("FUNC only in pahole 1.24: btfc's base has it (a FUNC of 1.31's there), "
                       "and split dedup maps the module's onto it")
            elif ident in several:
                cls = ("FUNC only in pahole 1.24: the name is at several addresses "
                       "[1.31 skips these with --skip_encoding_btf_inconsistent_proto]")
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
