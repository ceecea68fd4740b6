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
import functools
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


@functools.lru_cache(maxsize=1)  # a file's items are classified together
def symbols(name):
    """From one `nm` of the file: names with an exact symbol, names with
    only suffixed ones, names of text symbols at more than one address, and
    names of data symbols at address 0 of their section (vmlinux's
    .data..percpu starts at 0: fixed_percpu_data)."""
    out = subprocess.run(["nm", kos[name]], capture_output=True, text=True).stdout
    exact, suffixed, at_zero = set(), set(), set()
    addresses = collections.defaultdict(set)
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "dDbB" and int(parts[0], 16) == 0:
            at_zero.add(parts[2])
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
    return exact, suffixed, {n for n, a in addresses.items() if len(a) > 1}, at_zero


DATASEC_VAR = re.compile(r"^    variable '([^']+)' only in (.+)$")


def datasec_changes(text, ident):
    """The changes a report lists under DATASEC IDENT: (side, variable)."""
    changes, inside = set(), False
    for line in text.splitlines():
        if line.startswith("  ") and not line.startswith("    "):
            inside = line.strip().startswith(f"DATASEC {ident}:")
        elif inside and line.startswith("    "):
            m = DATASEC_VAR.match(line)
            changes.add(("btfc" if is_btfc_side(m.group(2)) else "pahole", m.group(1)) if m else ("other", line))
        elif inside:
            inside = False
    return changes


def is_btfc_side(path):
    """Whether a file the report names is btfc's: its folder's name starts
    with "btfc" (btfc/, btfc-sample/)."""
    return os.path.basename(os.path.dirname(path)).startswith("btfc")


ITEM = re.compile(r"^  (\S+) (.*?)(:|$)")
# A graph-only item: "  1 more in btfc/nvme-tcp.btf: FUNC_PROTO (anon) SIGNATURE".
DEEP = re.compile(r"^  \d+ more in (.+?): (\S+) (\S+) ?(.*)$")
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
        if section == "deep":
            m = DEEP.match(line)
            if m:
                yield section, line, m.group(2), m.group(3)
                continue
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
    items only btfc's base has, as printed, the names of FUNCs that 1.24's
    base has more of (one per unit that defines one), and the prototypes
    ("RET (PARAMS)", as printed) of those extra FUNCs."""
    path = os.path.join(diffs, "vmlinux.txt")
    if not os.path.exists(path):
        return set(), set(), set()
    only_btfc, more_in_124, protos_more_in_124 = set(), set(), set()
    for section, line, kind, ident in report_items(open(path).read()):
        if kind != "FUNC":
            continue
        if section == "btfc":
            only_btfc.add(line.strip())
        elif section == "pahole" and (btfc_count(line) or 0) >= 1:
            more_in_124.add(ident)
            protos_more_in_124.add(prototype(line))
    return only_btfc, more_in_124, protos_more_in_124


def prototype(line):
    """The prototype of a FUNC item, or of a graph-only FUNC_PROTO item:
    "RET (PARAMS)" without parameter names, as btfc diff prints both."""
    m = DEEP.match(line)
    if m:
        return m.group(4).strip()
    return COUNTS.sub("", line.strip().partition(": ")[2]).strip()


# Split dedup maps a module's FUNC onto an identical one of its base, and
# the two bases differ in FUNCs: a module FUNC that only btfc's base has
# (a 1.31 FUNC there) is left out of btfc's module, and one of a name that
# 1.24's base has several of (one per unit) is more often left out of
# 1.24's (arm64: type_show).
in_btfc_base, several_in_124_base, protos_several_in_124_base = base_funcs()
protos_in_btfc_base = {prototype(f) for f in in_btfc_base}
classes = collections.defaultdict(lambda: [0, set(), []])
equivalent = 0


def count(cls, name, example):
    c = classes[cls]
    c[0] += 1
    c[1].add(name)
    if len(c[2]) < 4:
        c[2].append(f"{name}: {example[:110]}")

for fname in sorted(os.listdir(diffs)):
    name = fname[:-4]
    text = open(os.path.join(diffs, fname)).read()
    if re.search(r"^equivalent: \d+ types$", text, re.M):
        equivalent += 1
        continue
    if re.search(r"^(only in|changed|types whose whole graphs differ)", text, re.M | re.I) is None:
        # No verdict: btfc diff could not compare (an unreadable file), so
        # nothing is known of the two outputs.
        count("no comparison: btfc diff did not compare the two files [unexplained]", name,
              (text.strip().splitlines() or ["(empty report)"])[0])
        continue
    for section, line, kind, ident in report_items(text):
        kept_by_btfc = section == "deep" and is_btfc_side(DEEP.match(line).group(1))
        if (section == "deep" and kind == "FUNC_PROTO" and name != "vmlinux" and prototype(line) in
                (protos_several_in_124_base if kept_by_btfc else protos_in_btfc_base)):
            # The prototype of a module FUNC, its parameter names and all,
            # is also that of a base FUNC only the other tool's base has, and
            # split dedup maps that tool's module prototype onto it: 1.24's
            # extra FUNC (6.12 nvme-tcp's nvme_tcp_timeout and bsg-lib's
            # bsg_timeout), or one of 1.31's in btfc's base (arm64
            # imx-interconnect and aggregate_requests). Prototypes compare
            # as btfc diff prints them, without the parameter names that
            # split dedup also matches.
            cls = ("FUNC_PROTO kept only in btfc/1.31's module: 1.24's base has another FUNC "
                   "of that prototype, and split dedup maps 1.24's module prototype onto it" if kept_by_btfc else
                   "FUNC_PROTO kept only in pahole 1.24's module: btfc/1.31's base has a FUNC "
                   "of that prototype (one of 1.31's), and split dedup maps btfc's module prototype onto it")
        elif section == "deep":
            cls = ("graph-only difference (duplicated anonymous types or same-name references): " + kind +
                   " [unexplained]")
        elif section == "changed" and kind == "DATASEC" and datasec_changes(text, ident) <= {
                ("btfc", v) for v in symbols(name)[3]}:
            cls = "changed DATASEC: only its variables at offset 0, which btfc/1.31 has and 1.24 leaves out"
        elif section == "changed":
            cls = "changed " + kind + " [unexplained]"
        elif kind == "FUNC":
            exact, suffixed, several, _ = symbols(name)
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
        elif kind == "VAR" and section == "btfc" and ident in symbols(name)[3]:
            # docs/pahole-rules.md 4.2 rule 5; pahole 1.31's reference of
            # the corpus vmlinux has fixed_percpu_data, 1.24 leaves it out.
            cls = ("VAR only in btfc/1.31: at offset 0 of its section [1.24 leaves it out, "
                   "1.31 keeps it when a symbol of the name is there]")
        else:
            cls = f"{kind} only in {'btfc/1.31' if section == 'btfc' else 'pahole 1.24'} [unexplained]"
        count(cls, name, line.strip())

print(f"reports: {len(os.listdir(diffs))}, equivalent: {equivalent}")
for cls, (n, mods, ex) in sorted(classes.items(), key=lambda kv: -kv[1][0]):
    print(f"\n{n:6d} items in {len(mods):4d} modules: {cls}")
    for e in ex:
        print(f"         e.g. {e}")
