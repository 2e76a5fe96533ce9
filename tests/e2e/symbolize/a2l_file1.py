#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Undo one binutils 2.40 bug in addr2line's output, and only where it hits:
# in a DWARF 5 line table it names file 1 by file 0 (the compile unit's own
# name), so rows of a "#line 1 other.c" file come out as the unit's file.
# A file:line of addr2line's is rewritten only where llvm-symbolizer's
# answer for the same address and frame has the same line in a file of
# another name (what eu-addr2line says too).
# Usage: a2l_file1.py STYLE CU_FILE LLVM_OUT < addr2line-output
#   STYLE: gnu (-a -f [-i]), pretty (-a -f -i -p), base (-a -f -s)
import os, re, sys

style, cu, llvm_path = sys.argv[1], sys.argv[2], sys.argv[3]
blocks = []
for blk in open(llvm_path).read().split("\n\n"):
    lines = [l for l in blk.split("\n") if l]
    if not lines:
        continue
    frames = []
    for i in range(1, len(lines) - 1, 2):  # line 0: the address
        m = re.match(r"^(.*):(\d+):\d+$", lines[i + 1])
        frames.append((m.group(1), m.group(2)) if m else (None, None))
    blocks.append(frames)

def fix(path, line, b, k):
    if b < 0 or b >= len(blocks) or k >= len(blocks[b]):
        return path
    lpath, lline = blocks[b][k]
    if lpath is None or lline != line:
        return path
    if style == "base":
        if path == os.path.basename(cu) and os.path.basename(lpath) != path:
            return os.path.basename(lpath)
    elif path == cu and lpath != cu:
        return lpath
    return path

b, k = -1, 0
for raw in sys.stdin:
    l = raw.rstrip("\n")
    if style == "pretty":
        m = re.match(r"^(0x[0-9a-f]+: |  \(inlined by\) )(.* at )(.*?):(\d+)(.*)$", l)
        if l.startswith("0x"):
            b, k = b + 1, 0
        if m:
            l = m.group(1) + m.group(2) + fix(m.group(3), m.group(4), b, k) + ":" + m.group(4) + m.group(5)
        k += 1
    elif re.match(r"^0x[0-9a-f]+$", l):
        b, k, odd = b + 1, 0, True
    else:
        m = re.match(r"^(.*?):(\d+)( \(discriminator \d+\))?$", l)
        if m and not odd:
            l = fix(m.group(1), m.group(2), b, k) + ":" + m.group(2) + (m.group(3) or "")
            k += 1
        odd = not odd
    print(l)
