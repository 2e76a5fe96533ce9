#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""TSV rows on stdin to ClickHouse RowBinary on stdout, for INSERT bodies in tests.

Usage: rowbinary.py TYPE,TYPE,... < rows.tsv > rows.bin
Types: UInt8/16/32/64, Int8/16/32/64, Float32/64, String, Date, DateTime, Array(T).
Fields are as ClickHouse's TabSeparated prints them: Date as YYYY-MM-DD (or a day
number), DateTime as YYYY-MM-DD hh:mm:ss in UTC (or Unix seconds), strings with
\\t \\n \\\\ escapes, arrays as ['a','b'] or [1,2].
RowBinary: integers and floats little endian, Date a UInt16 of days since 1970-01-01,
DateTime a UInt32 of seconds, String a LEB128 length and the bytes, Array a LEB128
count and the elements.
"""
import ast
import datetime
import struct
import sys

INTS = {"UInt8": "<B", "UInt16": "<H", "UInt32": "<I", "UInt64": "<Q",
        "Int8": "<b", "Int16": "<h", "Int32": "<i", "Int64": "<q",
        "Float32": "<f", "Float64": "<d"}
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def leb128(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def unescape(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            out.append({"t": "\t", "n": "\n", "0": "\0", "r": "\r"}.get(s[i + 1], s[i + 1]))
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def split_types(spec):
    types, depth, cur = [], 0, ""
    for c in spec:
        if c == "," and depth == 0:
            types.append(cur.strip())
            cur = ""
            continue
        depth += (c == "(") - (c == ")")
        cur += c
    if cur.strip():
        types.append(cur.strip())
    return types


def encode(t, v, raw):
    """v: the value (a Python object when raw is False, else the TSV field)"""
    if t in INTS:
        if raw:
            v = float(v) if t.startswith("Float") else int(v)
        return struct.pack(INTS[t], v)
    if t == "String":
        b = (unescape(v) if raw else v).encode()
        return leb128(len(b)) + b
    if t == "Date":
        if isinstance(v, str) and "-" in v:
            v = (datetime.date.fromisoformat(v) - datetime.date(1970, 1, 1)).days
        return struct.pack("<H", int(v))
    if t == "DateTime":
        if isinstance(v, str) and "-" in v:
            d = datetime.datetime.fromisoformat(v).replace(tzinfo=datetime.timezone.utc)
            v = int((d - EPOCH).total_seconds())
        return struct.pack("<I", int(v))
    if t.startswith("Array(") and t.endswith(")"):
        inner = t[6:-1]
        xs = ast.literal_eval(v) if raw else v
        return leb128(len(xs)) + b"".join(encode(inner, x, False) for x in xs)
    sys.exit("rowbinary.py: type %s not known" % t)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    types = split_types(sys.argv[1])
    out = sys.stdout.buffer
    for n, line in enumerate(sys.stdin, 1):
        line = line.rstrip("\n")
        fields = line.split("\t")
        if len(fields) != len(types):
            sys.exit("rowbinary.py: line %d has %d fields, not %d" % (n, len(fields), len(types)))
        out.write(b"".join(encode(t, f, True) for t, f in zip(types, fields)))


main()
