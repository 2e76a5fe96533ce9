# SPDX-License-Identifier: GPL-2.0-or-later
# A Python program with a known call tree and known shares, for zt record's
# Python frames (tests/e2e/t_python.sh): main calls py_half, py_third and
# py_fifth for 50%, 30% and 20% of its CPU time (each measured with
# time.thread_time(), so a slow or busy machine keeps the shares), py_fifth
# through hashlib (a C extension: its native frames stand above it).
#   pyshares.py SECONDS [threads|fork|wait]
# threads: the same in a second thread too; fork: in a child process too;
# wait: first wait for a line on stdin (zt record -p attaches meanwhile).
import hashlib
import os
import sys
import threading
import time

SLICE = 0.01  # seconds of CPU per round, split 50/30/20


def py_half(budget):
    end = time.thread_time() + budget
    x = 0
    while time.thread_time() < end:
        for i in range(2000):
            x = (x * 31 + i) & 0xFFFF
    return x


def py_third(budget):
    end = time.thread_time() + budget
    s = ""
    while time.thread_time() < end:
        for i in range(500):
            s = str(i) + s[:20]
    return s


def py_fifth(budget):
    end = time.thread_time() + budget
    data = b"zt" * 8192
    while time.thread_time() < end:
        hashlib.sha256(data).digest()
    return data


def rounds(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        py_half(SLICE * 0.5)
        py_third(SLICE * 0.3)
        list(map(py_fifth, (SLICE * 0.2,)))  # called back from C (builtin map)


def main():
    seconds = float(sys.argv[1])
    mode = sys.argv[2] if len(sys.argv) > 2 else ""
    if mode == "wait":
        print("ready", flush=True)
        sys.stdin.readline()
    if mode == "threads":
        t = threading.Thread(target=rounds, args=(seconds,), name="pyworker")
        t.start()
        rounds(seconds)
        t.join()
    elif mode == "fork":
        pid = os.fork()
        rounds(seconds)
        if pid:
            os.waitpid(pid, 0)
        else:
            os._exit(0)
    else:
        rounds(seconds)


if __name__ == "__main__":
    main()
