#!/usr/bin/env python3
"""Random C for the encoder's differential test against pahole.

    tests/support/random_c.py SEED [int128] [tags]

Prints a C file of type definitions as headers hold them: structs and
unions (bitfields of integer and enum types, zero-width ones, arrays of
one and two dimensions and of length 0, a flexible array, function
pointers, anonymous and named nested structs and unions, packed and
aligned ones, pointers to themselves), enums (negative, 32-bit edge and
64-bit values), typedefs, structs only declared, every C base type with
its qualifiers (`int128`: __int128 too, for 64-bit targets), a pointer
variable to each type (which keeps it in the DWARF) and a few functions
(static, variadic, with restrict);
`tags`: clang's btf_type_tag on pointers and btf_decl_tag on members and
functions. The same SEED gives the same file.
tests/convert/encode_test.cc compiles it with gcc and clang for several
targets and compares btfc's BTF with pahole's.
"""
import random
import re
import sys

r = random.Random(int(sys.argv[1]))
out = []
names = []     # complete types usable by value, as spelled
fwd_only = []  # struct tags declared only
base = ["int", "unsigned int", "char", "signed char", "unsigned char", "short", "unsigned short", "long",
        "unsigned long", "long long", "unsigned long long", "_Bool", "float", "double", "long double",
        "_Complex double"]
if "int128" in sys.argv[2:]:
    base += ["__int128", "unsigned __int128"]
tags = "tags" in sys.argv[2:]
TT = ' __attribute__((btf_type_tag("user")))' if tags else ""
DT = ' __attribute__((btf_decl_tag("dk")))' if tags else ""
intish = ["int", "unsigned int", "char", "unsigned char", "short", "unsigned short", "long", "unsigned long",
          "long long", "unsigned long long", "_Bool"]
serial = 0


def fresh(prefix):
    global serial
    serial += 1
    return "%s%d" % (prefix, serial)


def qual():
    return r.choice(["", "", "", "const ", "volatile ", "const volatile "])


def some_type():
    k = r.random()
    if k < 0.35 or not names:
        return qual() + r.choice(base)
    if k < 0.7:
        return qual() + r.choice(names)
    if k < 0.8 and fwd_only:
        return "struct " + r.choice(fwd_only) + (TT if tags and r.random() < 0.5 else "") + " *"
    if k < 0.9:
        return some_type() + (TT if tags and r.random() < 0.5 else "") + " *"
    return r.choice(names + base) + (TT if tags and r.random() < 0.5 else "") + " *"


def member(i, in_union=False):
    k = r.random()
    m = "m%d" % i
    if k < 0.15:
        t = r.choice(intish + [e for e in names if e.startswith("enum ")])
        width = 1 if t == "_Bool" else r.randint(0, 8)
        if width == 0 and not in_union:
            return "\t%s :0;" % r.choice(intish[:2])
        return "\t%s %s : %d;" % (t, m, max(width, 1))
    if k < 0.25:
        return "\t%s %s[%d];" % (some_type(), m, r.randint(0, 4))
    if k < 0.3:
        return "\t%s %s[%d][%d];" % (r.choice(base), m, r.randint(1, 3), r.randint(1, 3))
    if k < 0.38:
        params = ", ".join(some_type() for _ in range(r.randint(0, 3))) or "void"
        return "\t%s (*%s)(%s);" % (some_type(), m, params)
    if k < 0.48:
        kw = r.choice(["struct", "union"])
        inner = "\n".join(member(1000 + i * 10 + j, kw == "union") for j in range(r.randint(1, 3)))
        return "\t%s {\n%s\n\t}%s;" % (kw, inner, "" if r.random() < 0.5 else " " + m)
    return "\t%s %s%s;" % (some_type(), m, DT if tags and r.random() < 0.3 else "")


for _ in range(r.randint(3, 12)):
    k = r.random()
    if k < 0.15:
        tag = fresh("f")
        fwd_only.append(tag)
        out.append("struct %s;" % tag)
    elif k < 0.3:
        tag = fresh("e")
        values = []
        for j in range(r.randint(1, 4)):
            v = r.choice([0, 1, -1, 2147483647, -2147483648, 4294967295, 1 << 40, -(1 << 40)])
            values.append("\t%s_%d = %d%s," % (tag.upper(), j, v, "LL" if abs(v) >= 1 << 31 else ""))
        out.append("enum %s {\n%s\n};" % (tag, "\n".join(values)))
        names.append("enum " + tag)
    elif k < 0.45:
        t = fresh("t")
        out.append("typedef %s %s;" % (some_type(), t))
        names.append(t)
    else:
        kw = r.choice(["struct", "struct", "union"])
        tag = fresh("s")
        attr = r.choice(["", "", "", " __attribute__((packed))", " __attribute__((aligned(16)))"])
        ms = [member(i, kw == "union") for i in range(r.randint(1, 6))]
        named = any(re.search(r"\bm\d+\b", m) for m in ms)  # C wants one before a flexible array
        if kw == "struct" and named and r.random() < 0.15:
            ms.append("\tint flex[];")
        if kw == "struct" and r.random() < 0.3:
            ms.insert(0, "\tstruct %s *self;" % tag)
        out.append("%s %s {\n%s\n}%s;" % (kw, tag, "\n".join(ms), attr))
        names.append("%s %s" % (kw, tag))
# A pointer variable to each type, and a few functions.
for i, t in enumerate(names):
    out.append("%s *use%d;" % (t, i))
for i in range(r.randint(0, 3)):
    params = [some_type() + " p%d" % j for j in range(r.randint(0, 3))]
    if params and r.random() < 0.2:
        params.append("...")
    if params and r.random() < 0.2:
        params[0] = "int * restrict p0"
    static = "static " if r.random() < 0.3 else ""
    tag = DT if tags and r.random() < 0.5 else ""
    out.append("%sint%s fn%d(%s) { return %d; }" % (static, tag, i, ", ".join(params) or "void", i))
    if static:
        out.append("int (*keep%d)() = (int (*)())fn%d;" % (i, i))
if r.random() < 0.3:
    out.append("typedef int fnt%d(int, char *);" % serial)
    out.append("fnt%d *fp%d;" % (serial, serial))
if r.random() < 0.3:
    out.append("typedef int arr%d[3];" % serial)
    out.append("arr%d grid%d[2];" % (serial, serial))
print("\n".join(out))
