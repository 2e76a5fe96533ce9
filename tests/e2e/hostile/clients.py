# SPDX-License-Identifier: GPL-2.0-or-later
"""Hostile HTTP clients against zt serve, for t_serve_slow.sh (127.0.0.1 only).

Each mode prints key=value lines; the shell script checks them.
  trickle PORT CONNS SECONDS   CONNS connections from 127.0.0.2 that send a
                               request head one line a second (reconnecting
                               when closed), while /healthz is asked from
                               127.0.0.1 four times a second
  slowbody PORT TOKEN          a profile upload at 100 bytes a second
  heavy PORT TOKEN N SECONDS PATH   N clients that fetch PATH in a loop,
                               while /healthz is asked
  noread PORT TOKEN N PID PATH N clients that ask for PATH and never read;
                               the server's resident memory before and at
                               its peak
"""
import socket
import sys
import threading
import time


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Prober(threading.Thread):
    """Asks /healthz from 127.0.0.1 every 0.25 s, each with a 5 s limit."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.stop, self.lat, self.failed = port, False, [], 0

    def run(self):
        while not self.stop:
            t0 = time.monotonic()
            try:
                s = socket.create_connection(("127.0.0.1", self.port), timeout=5)
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                data = b""
                while True:
                    b = s.recv(4096)
                    if not b:
                        break
                    data += b
                s.close()
                if b" 200 " in data.split(b"\r\n", 1)[0] and data.endswith(b"ok\n"):
                    self.lat.append(time.monotonic() - t0)
                else:
                    self.failed += 1
            except OSError:
                self.failed += 1
            time.sleep(max(0, 0.25 - (time.monotonic() - t0)))

    def report(self):
        print("probes=%d" % (len(self.lat) + self.failed))
        print("probes_failed=%d" % self.failed)
        print("probe_max_ms=%d" % int(1000 * max(self.lat, default=99)))
        print("probes_over_1s=%d" % sum(1 for x in self.lat if x > 1.0))


def trickle(port, conns, seconds):
    p = Prober(port)
    p.start()
    socks = {}  # socket -> (opened, lines sent)
    lifetimes = []
    refused = 0

    def opened():
        s = socket.socket()
        s.bind(("127.0.0.2", 0))
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", port))
            s.sendall(b"GET /api/v1/profiles HTTP/1.1\r\n")
        except OSError:
            s.close()
            return None
        s.setblocking(False)
        return s

    end = time.monotonic() + seconds
    last = 0
    while time.monotonic() < end:
        while len(socks) < conns:
            s = opened()
            if s is None:
                refused += 1
                break
            socks[s] = time.monotonic()
        now = time.monotonic()
        send = now - last >= 1.0
        if send:
            last = now
        for s in list(socks):
            closed = False
            try:
                if s.recv(4096) == b"":
                    closed = True
            except BlockingIOError:
                pass
            except OSError:
                closed = True
            if not closed and send:
                try:
                    s.send(b"X-Trickle: %d\r\n" % int(now))
                except BlockingIOError:
                    pass
                except OSError:
                    closed = True
            if closed:
                lifetimes.append(now - socks.pop(s))
                s.close()
        time.sleep(0.05)
    now = time.monotonic()
    alive = [now - t for t in socks.values()]
    for s in socks:
        s.close()
    p.stop = True
    p.join()
    p.report()
    print("closed_by_server=%d" % len(lifetimes))
    print("cut_lifetimes_max_ms=%d" % int(1000 * max([x for x in lifetimes if x > 0.5], default=0)))
    print("longest_open_ms=%d" % int(1000 * max(alive + lifetimes, default=0)))
    print("connect_failures=%d" % refused)


def slowbody(port, token):
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    s.sendall(("POST /api/v1/profiles HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
               "Content-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n"
               % token).encode())
    t0 = time.monotonic()
    s.setblocking(False)
    closed = False
    while time.monotonic() - t0 < 20 and not closed:
        try:
            if s.recv(4096) == b"":
                closed = True
                break
        except BlockingIOError:
            pass
        except OSError:
            closed = True
            break
        try:
            s.send(b"z" * 100)
        except BlockingIOError:
            pass
        except OSError:
            closed = True
            break
        time.sleep(1)
    print("slowbody_closed=%d" % closed)
    print("slowbody_ms=%d" % int(1000 * (time.monotonic() - t0)))


def fetch(port, token, path):
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
               "Connection: close\r\n\r\n" % (path, token)).encode())
    n = 0
    while True:
        b = s.recv(1 << 16)
        if not b:
            break
        n += len(b)
    s.close()
    return n


def heavy(port, token, n, seconds, path):
    p = Prober(port)
    p.start()
    end = time.monotonic() + seconds
    sizes = []

    def loop():
        while time.monotonic() < end:
            try:
                sizes.append(fetch(port, token, path))
            except OSError:
                sizes.append(-1)

    ts = [threading.Thread(target=loop) for _ in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    p.stop = True
    p.join()
    p.report()
    print("fetches=%d" % len(sizes))
    print("largest=%d" % max(sizes, default=0))


def noread(port, token, n, pid, path):
    base = rss_kib(pid)
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n"
                   % (path, token)).encode())
        socks.append(s)
    peak = base
    end = time.monotonic() + 8
    # until every answer is under way (the last one computed), and a bit more
    while time.monotonic() < end:
        peak = max(peak, rss_kib(pid))
        time.sleep(0.2)
    p = Prober(port)
    p.start()
    time.sleep(2)
    p.stop = True
    p.join()
    p.report()
    for s in socks:
        s.close()
    time.sleep(1)
    print("rss_base_kib=%d" % base)
    print("rss_peak_kib=%d" % peak)
    print("rss_after_kib=%d" % rss_kib(pid))


if __name__ == "__main__":
    m, a = sys.argv[1], sys.argv[2:]
    if m == "trickle":
        trickle(int(a[0]), int(a[1]), float(a[2]))
    elif m == "slowbody":
        slowbody(int(a[0]), a[1])
    elif m == "heavy":
        heavy(int(a[0]), a[1], int(a[2]), float(a[3]), a[4])
    elif m == "noread":
        noread(int(a[0]), a[1], int(a[2]), int(a[3]), a[4])
    sys.stdout.flush()
