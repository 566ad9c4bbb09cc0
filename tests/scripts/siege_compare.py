"""Issue 31's siege cases against a SPARQL server on 127.0.0.1 (kld serve or
Oxigraph's server, both started with a 3 s query timeout by the caller), for
the table in docs/serving.md: prints one JSON object per case with what the
server did and when (seconds), and its RSS after. Every wait is bounded.

usage: python3 siege_compare.py PORT PID [CASE...]
"""
import json
import socket
import sys
import threading
import time
import urllib.parse

PORT = int(sys.argv[1])
PID = int(sys.argv[2])
ONLY = set(sys.argv[3:])
RUNAWAY = "SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
q = urllib.parse.quote


def rss_mb():
    with open(f"/proc/{PID}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024)
    return None


def connect():
    return socket.create_connection(("127.0.0.1", PORT), timeout=5)


def read_reply(s, limit):
    """Reads until the peer closes or `limit` seconds pass: (status, closed)."""
    start = time.time()
    s.settimeout(0.2)
    got = b""
    while time.time() - start < limit:
        try:
            b = s.recv(1 << 16)
        except socket.timeout:
            continue
        except OSError:
            break
        if not b:
            break
        if len(got) < 64:
            got += b
    else:
        return status(got), False
    return status(got), True


def status(got):
    if got.startswith(b"HTTP/1.1 ") and len(got) >= 12:
        return int(got[9:12])
    return None


def ask(limit=30):
    t = time.time()
    try:
        s = connect()
        s.sendall(b"GET /query?query=ASK%7B%7D HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        st, _ = read_reply(s, limit)
        s.close()
    except OSError as e:
        return f"ASK failed ({e.__class__.__name__}) after {time.time() - t:.1f}"
    return f"ASK {st} in {time.time() - t:.2f}"


def closed_now(s):
    s.setblocking(False)
    try:
        return s.recv(1 << 16) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def case_silent():
    socks = [socket.create_connection(("127.0.0.1", PORT)) for _ in range(256)]
    time.sleep(3.5)
    a = ask(20)
    time.sleep(max(0, 12 - 3.5))
    closed = sum(closed_now(s) for s in socks)
    for s in socks:
        s.close()
    return f"{a} s; {closed}/256 closed by 12 s"


def case_trickle():
    body = "query=" + q("ASK {}")
    s = connect()
    s.sendall(
        f"POST /query HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body) + 100}\r\n\r\n".encode()
    )
    t = time.time()
    s.settimeout(1)
    for ch in (body + "x" * 100)[:30]:
        try:
            s.send(ch.encode())
            b = s.recv(64)
            return f"{status(b)} after {time.time() - t:.1f} s"
        except socket.timeout:
            continue
        except OSError as e:
            return f"closed ({e.__class__.__name__}) after {time.time() - t:.1f} s"
    return "still open after 30 s"


def case_big_length():
    s = connect()
    t = time.time()
    s.sendall(
        b"POST /query HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/sparql-query\r\nContent-Length: 999999999999\r\n\r\nASK {}"
    )
    st, closed = read_reply(s, 15)
    return f"{st} after {time.time() - t:.2f} s" + ("" if closed else ", still open at 15 s")


def case_slow_readers():
    socks = []
    for _ in range(4):
        s = connect()
        s.sendall(
            f"GET /query?query={q('SELECT * WHERE { ?s ?p ?o }')} HTTP/1.1\r\nHost: localhost\r\nAccept: text/tab-separated-values\r\n\r\n".encode()
        )
        socks.append(s)
    t0 = time.time()
    time.sleep(0.5)
    a = ask(30)
    time.sleep(max(0, 8 - (time.time() - t0)))
    closed = 0
    for s in socks:
        # Drain what was sent; closed if the end comes within 5 s.
        _, c = read_reply(s, 5)
        closed += c
        s.close()
    return f"{a} s; {closed}/4 readers' connections closed by ~8 s"


def case_cross_site():
    s = connect()
    t = time.time()
    s.sendall(
        f"GET /query?query={q(RUNAWAY)} HTTP/1.1\r\nHost: localhost\r\nSec-Fetch-Site: cross-site\r\nConnection: close\r\n\r\n".encode()
    )
    st, _ = read_reply(s, 30)
    return f"{st} after {time.time() - t:.2f} s"


def case_host_ff():
    s = connect()
    s.sendall(b"GET /query?query=ASK%7B%7D HTTP/1.1\r\nHost: localhost\xff\r\nConnection: close\r\n\r\n")
    st, _ = read_reply(s, 10)
    return f"{st}"


def case_runaways():
    body = "query=" + q(RUNAWAY)
    results = []

    def one():
        t = time.time()
        try:
            s = socket.create_connection(("127.0.0.1", PORT), timeout=30)
            s.sendall(
                f"POST /query HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n{body}".encode()
            )
            st, closed = read_reply(s, 20)
            s.close()
        except OSError:
            st, closed = "error", True
        results.append((st, time.time() - t, closed))

    threads = [threading.Thread(target=one) for _ in range(500)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    ended = [r for r in results if r[2]]
    counts = {}
    for st, _, _ in results:
        counts[str(st)] = counts.get(str(st), 0) + 1
    slowest = max((r[1] for r in ended), default=0)
    return f"{counts}; {len(ended)}/500 ended, slowest after {slowest:.1f} s (clients wait 20 s)"


CASES = [
    ("256 silent connections, then ASK", case_silent),
    ("body trickled at 1 byte/s", case_trickle),
    ("Content-Length: 999999999999", case_big_length),
    ("4 clients never read SELECT * (?s ?p ?o), then ASK", case_slow_readers),
    ("cross-site GET of a runaway (Sec-Fetch-Site: cross-site)", case_cross_site),
    ("Host with byte 0xFF", case_host_ff),
    ("500 concurrent runaways (3 s limit)", case_runaways),
]

for name, fn in CASES:
    if ONLY and fn.__name__[5:] not in ONLY:
        continue
    out = fn()
    time.sleep(1)
    print(json.dumps({"case": name, "result": out, "after": ask(30), "rss_mb": rss_mb()}), flush=True)
