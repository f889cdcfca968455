#!/usr/bin/python3
"""serve-robust.py - what memprof-ctl serve must withstand (run by
serve-robust.sh): fuzzed request lines and query strings (seeded, so a
failure can be replayed), overlong headers, 200 connections at once, clients
that trickle a byte a second; through all of it, another client is answered
and the server's resident memory stays bounded (when BOUND_MEMORY is 1).

Usage: serve-robust.py PORT SERVER_PID PROFILED_PID SLOWDOWN BOUND_MEMORY
"""
import random
import socket
import sys
import threading
import time

# SLOWDOWN: how many times longer than on the real processor an answer
# may take (tests/emulation.sh).
PORT, SERVER, PROFILED, SLOWDOWN, BOUND_MEMORY = (int(a)
                                                  for a in sys.argv[1:6])
TIMEOUT = 10 * SLOWDOWN
PROMPT = 5 * SLOWDOWN
# Under an emulator every request costs the server and this client as
# many times more: the same checks run with as many times fewer requests
# (the crowd stays larger than the server's --max-connections).
WARM_UP_REQUESTS = max(2, 20 // SLOWDOWN)
FUZZED_REQUESTS = 1500 // SLOWDOWN
CROWD = 200
ROUTES = ["/", "/debug/pprof/", "/debug/pprof/heap", "/debug/pprof/allocs",
          "/metrics", "/debug/pprof/profile", "/../etc/passwd", "//", "/%00"]
KEYS = ["pid", "seconds", "debug", "gc", "x", "", "pid[]", "%70id"]
# The resident memory the server may gain over the whole test, and over a
# second round of the same requests: the pages of thread stacks the C
# library keeps for reuse and of its two malloc arenas (a few MiB, once),
# while a leak of a few KiB a request would grow every round by as much.
GROWTH_LIMIT_KIB = 16 * 1024
ROUND_GROWTH_LIMIT_KIB = 6 * 1024


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def resident_kib():
    with open(f"/proc/{SERVER}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    fail("the server is gone")


def connect(source="127.0.0.2", timeout=TIMEOUT):
    return socket.create_connection(("127.0.0.1", PORT), timeout=timeout,
                                    source_address=(source, 0))


def exchange(request, source="127.0.0.2", timeout=TIMEOUT, shut=True):
    """The status of the answer to request (bytes), or None when the
    server closed the connection without one.  With shut, the client shuts
    its side once the request is sent, which ends a fuzzed request the
    server still waits on; the server may then abandon the request, as
    it does any whose client hung up."""
    with connect(source, timeout) as s:
        try:
            s.sendall(request)
            if shut:
                s.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # it may close a connection it refuses at once
        answer = b""
        try:
            while chunk := s.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass
    if not answer:
        return None
    if not answer.startswith(b"HTTP/1.") or len(answer) < 12:
        fail(f"not an HTTP answer to {request[:200]!r}: {answer[:200]!r}")
    return int(answer[9:12])


def get(path, source="127.0.0.2", timeout=TIMEOUT):
    return exchange(f"GET {path} HTTP/1.1\r\nHost: x\r\n"
                    "Connection: close\r\n\r\n".encode(),
                    source, timeout, shut=False)


def answered(what):
    """Another client is answered, promptly."""
    start = time.monotonic()
    status = get("/", source="127.0.0.9", timeout=PROMPT)
    if status != 200 or time.monotonic() - start > PROMPT:
        fail(f"the index was not answered {what} (status {status})")


def fuzzed_value(rng):
    return rng.choice([
        str(rng.randrange(-5, 1 << 33)), "", "%", "%zz", "%00", "1e3",
        "0x10", " 1", "+1", "9" * rng.randrange(1, 400),
        "".join(chr(rng.randrange(33, 127)) for _ in range(rng.randrange(30))),
        "%" + "%02x" % rng.randrange(256)])


def fuzzed_request(rng):
    if rng.random() < 0.1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 600)))
    method = rng.choice(["GET", "GET", "HEAD", "POST", "PUT", "DELETE",
                         "G\0T", "get", "GET GET", ""])
    query = "&".join(f"{rng.choice(KEYS)}={fuzzed_value(rng)}"
                     for _ in range(rng.randrange(4)))
    target = rng.choice(ROUTES) + ("?" + query if query else "")
    version = rng.choice(["HTTP/1.1", "HTTP/1.0", "HTTP/9.9", "HTTP/1.1",
                          "", "http/1.1"])
    return f"{method} {target} {version}\r\nHost: x\r\n\r\n".encode(
        "latin-1", "replace")


def fuzz(seed, count):
    rng = random.Random(seed)
    for i in range(count):
        request = fuzzed_request(rng)
        status = exchange(request)
        # 501 and 505: a method or a version libmicrohttpd does not know.
        if status is not None and status >= 500 and status not in (501, 505):
            fail(f"seed {seed}, request {i}: {status} for {request!r}")


def overlong():
    for request in (b"GET /?" + b"a" * 200000 + b" HTTP/1.1\r\n\r\n",
                    b"GET / HTTP/1.1\r\n" + b"X-Long: " + b"b" * 200000 +
                    b"\r\n\r\n",
                    b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 20000 + b"\r\n"):
        status = exchange(request)
        if status is not None and not 400 <= status < 500:
            fail(f"{status} for an overlong request")


def crowd(count):
    """count connections at once from one address, each with half a
    request; the server keeps answering another address."""
    held = []
    for _ in range(count):
        try:
            s = connect(source="127.0.0.1")
            s.sendall(b"GET / HTTP/1.1\r\n")
            held.append(s)
        except OSError:
            pass  # refused beyond its limits: so much the better
    answered(f"with {count} connections open")
    for s in held:
        s.close()


def trickle_request():
    """A client that sends its request one byte a second."""
    with connect(source="127.0.0.3") as s:
        for byte in b"GET /metrics":
            try:
                s.send(bytes([byte]))
            except OSError:
                return  # closed after its timeout
            time.sleep(1)


def trickle_answer():
    """A client that reads its answer one byte a second."""
    with connect(source="127.0.0.4") as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        s.sendall(f"GET /debug/pprof/heap?pid={PROFILED} HTTP/1.1\r\n"
                  "Host: x\r\n\r\n".encode())
        for _ in range(8):
            if not s.recv(1):
                return
            time.sleep(1)


def slow_clients():
    threads = [threading.Thread(target=t)
               for t in (trickle_request, trickle_answer)]
    for t in threads:
        t.start()
    time.sleep(1)
    for _ in range(5):
        answered("beside slow clients")
        if get(f"/debug/pprof/heap?pid={PROFILED}", source="127.0.0.9") != 200:
            fail("no profile beside slow clients")
        time.sleep(1)
    for t in threads:
        t.join()


def round_of_abuse(seed):
    fuzz(seed, FUZZED_REQUESTS)
    overlong()
    crowd(CROWD)
    answered("after the abuse")


def main():
    for _ in range(WARM_UP_REQUESTS):
        get("/metrics")
        get(f"/debug/pprof/heap?pid={PROFILED}")
    start = resident_kib()
    slow_clients()
    round_of_abuse(2600)
    first = resident_kib()
    round_of_abuse(2601)
    time.sleep(1)
    second = resident_kib()
    print(f"server resident memory: {start} KiB at the start, {first} KiB "
          f"after one round, {second} KiB after two")
    if not BOUND_MEMORY:
        return
    if second - start > GROWTH_LIMIT_KIB:
        fail(f"the server grew by {second - start} KiB")
    if second - first > ROUND_GROWTH_LIMIT_KIB:
        fail(f"the server grew by {second - first} KiB in the second round")


main()
