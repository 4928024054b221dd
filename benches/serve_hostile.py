#!/usr/bin/env python3
"""`clir serve` under hostile clients (issue 23), loopback only; numbers for benches/README.md.

    python3 benches/serve_hostile.py CLIR rss    # peak RSS: 40 parallel ~45 MB posts, --concurrency 1
    python3 benches/serve_hostile.py CLIR slow   # a real request's latency beside 200 slow connections

CLIR is the binary to measure (the one before a change and the one after, in turn). `rss` reads
the server's VmHWM (peak resident set) from /proc after every client has its answer or its
refusal. `slow` opens 200 connections that send a request head one byte a second, then times 20
single-case requests made one after another, and the time SIGTERM takes to end the server.
"""
import socket, statistics, subprocess, sys, threading, time

PKG = "fide.laws.chess"
GAMES = open("examples/fide/games.jsonl", "rb").read()


def start(clir, *flags):
    p = subprocess.Popen([clir, "serve", "--package", PKG, "--addr", "127.0.0.1:0", *flags],
                         stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    addr = line.strip().rsplit("http://", 1)[1]
    threading.Thread(target=lambda: [None for _ in p.stderr], daemon=True).start()
    host, port = addr.rsplit(":", 1)
    return p, (host, int(port)), addr


def post(where, addr, body):
    """Posts `body` (sent by a second thread, so a refusal can arrive mid-upload); the status."""
    s = socket.create_connection(where)
    head = (f"POST /v1/packages/{PKG}/rulings HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()

    def send():
        try:
            s.sendall(head)
            s.sendall(body)
        except OSError:
            pass
    t = threading.Thread(target=send, daemon=True)
    t.start()
    got = b""
    try:
        while len(got) < 12:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
        while s.recv(1 << 20):
            pass
    except OSError:
        pass
    s.close()
    return got[9:12].decode() or "closed"


def peak_rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024


def rss(clir):
    body = GAMES * (45_000_000 // len(GAMES))
    p, where, addr = start(clir, "--concurrency", "1")
    statuses = []
    threads = [threading.Thread(target=lambda: statuses.append(post(where, addr, body))) for _ in range(40)]
    began = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.time() - began
    peak = peak_rss_mb(p.pid)
    p.terminate()
    p.wait()
    counts = {s: statuses.count(s) for s in sorted(set(statuses))}
    print(f"40 x {len(body) / 1e6:.1f} MB, --concurrency 1: peak RSS {peak:.0f} MiB, statuses {counts}, {took:.1f} s")


def slow(clir):
    p, where, addr = start(clir)
    head = f"GET /healthz HTTP/1.1\r\nHost: {addr}\r\nX-Slow: {'a' * 100}\r\n\r\n".encode()
    stop = threading.Event()
    closed = [0]

    def slowloris():
        try:
            s = socket.create_connection(where)
            for b in head:
                if stop.is_set():
                    break
                s.send(bytes([b]))
                time.sleep(1)
        except OSError:
            closed[0] += 1
    for _ in range(200):
        threading.Thread(target=slowloris, daemon=True).start()
    time.sleep(3)
    case = GAMES.split(b"\n")[0] + b"\n"
    times, statuses = [], []
    for _ in range(20):
        began = time.time()
        statuses.append(post(where, addr, case))
        times.append((time.time() - began) * 1000)
        time.sleep(0.5)
    began = time.time()
    p.terminate()
    try:
        p.wait(timeout=60)
        term = f"{time.time() - began:.2f} s"
    except subprocess.TimeoutExpired:
        p.kill()
        term = "did not exit within 60 s"
    stop.set()
    counts = {s: statuses.count(s) for s in sorted(set(statuses))}
    print(f"200 slow heads: 20 requests {counts}, p50 {statistics.median(times):.1f} ms, "
          f"max {max(times):.1f} ms; slow connections closed by the server {closed[0]}; SIGTERM exit {term}")


if __name__ == "__main__":
    {"rss": rss, "slow": slow}[sys.argv[2]](sys.argv[1])
