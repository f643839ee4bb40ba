#!/usr/bin/python3
"""Hostile HTTP traffic against a running `graphcost-eval serve`: range amplification (D1), compressed
and announced-but-unsent bodies (D2), header floods (D3), /app/ paths and their headers (D6),
pipelining (D8), small API nits, a bad-token flood, and slow or crowding clients. Each check states
what a hardened server does and prints the figure it measured; malformed traffic goes over raw
sockets (TLS-wrapped for https://), every socket operation has a timeout, and a watchdog ends the
run after 85 s whatever happens. The script never uploads a submission.

Usage: serve_attacks.py --url URL --pid PID --token TOKEN [--insecure] [--behind-proxy]
  PID    the serve process: its /proc/PID/status gives VmRSS and VmHWM (peak RSS, must stay < 200 MB)
  TOKEN  a valid team token (gc_<id>_<secret>) whose team has no scored submission
  --insecure      accept the server's self-signed certificate (https:// only)
  --behind-proxy  the URL is a reverse proxy: the server sees one address, so no source-address tricks
Prints `ok   ...` or `FAILED: ...` per check and "N passed, N failed"; exit 1 on any failure.
"""
import argparse
import gzip
import os
import random
import re
import socket
import ssl
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_attack_support import (MIB, Connection, Memory, Target, bearer, expect,  # noqa: E402
                                  expect_small_growth, headers_only, request, run_check, start_watchdog,
                                  summary_and_exit)

PEAK_RSS_LIMIT_MIB = 200


# ---- D1: ranges -----------------------------------------------------------------------------------

def many_ranges(count, one_range="0-"):
    return "bytes=" + ",".join([one_range] * count)


def check_ranges(target):
    whole = request(target, "GET", "/leaderboard.js")
    size = len(whole.body)
    expect(whole.status == 200 and size > 0, "/leaderboard.js is served whole", f"{whole}, {size} bytes")
    single = request(target, "GET", "/leaderboard.js", {"Range": "bytes=0-9"})
    expect(single.status == 206 and len(single.body) == 10, "a single range bytes=0-9 gets 206 with 10 bytes",
           f"{single}, {len(single.body)} bytes")
    for count in (100, 2700):
        # Reading stops past the file's size: an amplified answer is never read whole.
        answer = request(target, "GET", "/leaderboard.js", {"Range": many_ranges(count)}, seconds=10, body_limit=size + 1)
        expect(answer.status is not None and answer.length() <= size,
               f"{count} ranges 0- on /leaderboard.js: a body of at most the file's {size} bytes",
               f"{answer}, {answer.length()} bytes, {answer.header('Content-Type') or 'no type'}")
    still_up = request(target, "GET", "/api/competition")
    expect(still_up.status == 200, "the server still answers after the range requests", str(still_up))


APP_FILE_CANDIDATES = ["graphcost_app.data", "graphcost_app.wasm", "graphcost_app.js", "graphcost_validate.wasm",
                       "graphcost_validate.js", "index.html"]


def app_file_size(target, name):
    """Size of /app/NAME from a one-byte range (Content-Range total), or None when not served."""
    probe = request(target, "GET", f"/app/{name}", {"Range": "bytes=0-0"}, body_limit=1)
    if probe.status == 206:
        total = probe.header("Content-Range").rpartition("/")[2]
        return int(total) if total.isdigit() else None
    return probe.declared_length if probe.status == 200 else None


def check_app_ranges(target):
    sizes = {name: app_file_size(target, name) for name in APP_FILE_CANDIDATES}
    served = {name: size for name, size in sizes.items() if size}
    if not served:
        print("skip /app/ ranges: no /app/ file served (tried " + ", ".join(APP_FILE_CANDIDATES) + ")", flush=True)
        return
    name = max(served, key=served.get)
    size = served[name]
    # 100 one-byte ranges first: cheap even if honoured. A server that answers them as 100 parts
    # would build 2,700 copies of the whole file for 2,700 ranges "0-" (gigabytes for a few MB, held
    # in memory before the first byte is sent): that request is not sent then.
    probe = request(target, "GET", f"/app/{name}", {"Range": many_ranges(100, "0-0")}, body_limit=MIB)
    honoured = probe.status == 206 and "multipart/byteranges" in probe.header("Content-Type") and probe.length() > 100 * 50
    if honoured:
        expect(False, f"2700 ranges on /app/{name} ({size} bytes) are not served as 2700 parts",
               f"100 one-byte ranges: {probe}, multipart, {probe.length()} bytes; 2700 ranges 0- would make "
               f"{2700 * size / 1e9:.1f} GB: not sent")
        return
    answer = request(target, "GET", f"/app/{name}", {"Range": many_ranges(2700)}, seconds=10, body_limit=size + 1)
    expect(answer.status is not None and answer.length() <= size,
           f"2700 ranges 0- on /app/{name}: a body of at most the file's {size} bytes", f"{answer}, {answer.length()} bytes")


# ---- D2: bodies -----------------------------------------------------------------------------------

def check_compressed_bodies(target, memory):
    # 50 MB of zeros in ~50 KB: a server that inflates request bodies holds all of it.
    bomb = gzip.compress(bytes(50 * MIB), 9)
    gzip_headers = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
    baseline = memory.start_measure()
    answer = request(target, "PUT", "/api/finals", {**bearer(target), **gzip_headers}, bomb, seconds=10)
    growth = memory.growth_mib(baseline)
    # Behind the proxy its 4 KiB limit on final picks may answer first (413): refused either way.
    refusals = (413, 415) if target.behind_proxy else (415,)
    expect(answer.status in refusals, f"PUT /api/finals with a gzip body ({len(bomb)} bytes -> 50 MB) is refused {refusals}",
           str(answer))
    expect_small_growth(answer.sent, growth, 50, "  ...without inflating it")
    baseline = memory.start_measure()
    answer = request(target, "POST", "/", gzip_headers, bomb, seconds=10)
    growth = memory.growth_mib(baseline)
    expect(answer.status is not None and 400 <= answer.status < 500, "POST / with the same gzip body gets a 4xx", str(answer))
    expect_small_growth(answer.sent, growth, 10, "  ...without inflating it")


# Bodies announced but not sent: a hardened server answers from the head alone, at once, rather
# than hold a thread waiting for a body it will refuse anyway.

def skipped_behind_proxy(target, what):
    """The proxy reads whole bodies before it passes them on (nginx's proxy_request_buffering), so
    a body announced but not sent never reaches the server: its limits and timeouts are the proxy's
    (tests/cli/test_front_door.sh checks them)."""
    if target.behind_proxy:
        print(f"skip {what}: behind the proxy, which buffers bodies (its limits are tested in test_front_door.sh)")
    return target.behind_proxy


def check_chunked_without_token(target):
    if skipped_behind_proxy(target, "a chunked upload without a token, answered before its body"):
        return
    first_chunk = b"ID,TopConfigs\r\n"
    connection, answer = headers_only(target, ["POST /api/submissions HTTP/1.1", "Transfer-Encoding: chunked"], 2,
                                      after_head=b"%x\r\n%s\r\n" % (len(first_chunk), first_chunk))
    connection.close()
    expect(answer.status in (401, 411), "a chunked upload without a token is answered 411 or 401 before its body",
           str(answer))


def check_announced_finals(target):
    connection, answer = headers_only(target, ["PUT /api/finals HTTP/1.1", f"Authorization: Bearer {target.token}",
                                               "Content-Type: application/json", "Content-Length: 10000000"], 2)
    connection.close()
    expect(answer.status == 413, "PUT /api/finals announcing 10,000,000 bytes is answered 413 before its body", str(answer))


def check_announced_upload_without_token(target):
    if skipped_behind_proxy(target, "an announced 30 MB upload without a token, answered at once"):
        return
    connection, answer = headers_only(target, ["POST /api/submissions HTTP/1.1", "Content-Length: 30000000"], 2)
    closed = answer.status is not None and connection.closed_within(2)
    connection.close()
    expect(answer.status == 401, "an upload of 30,000,000 announced bytes without a token is answered 401 at once",
           str(answer))
    expect(closed, "  ...and its connection closed (not left waiting for 30 MB)",
           "closed within 2 s" if closed else "no answer" if answer.status is None else "still open after 2 s")


def check_announced_get_body(target):
    connection, answer = headers_only(target, ["GET /api/competition HTTP/1.1", "Content-Length: 100000"], 2)
    connection.close()
    expect(answer.status == 413, "GET /api/competition announcing a 100,000-byte body is answered 413 at once", str(answer))


# ---- D3: headers ----------------------------------------------------------------------------------

class HeaderFlood(threading.Thread):
    """Sends `lines` header lines of `line_bytes` each on a connection until stopped or refused."""

    def __init__(self, connection, lines, line_bytes, seconds):
        super().__init__(daemon=True)
        self.connection, self.lines, self.line_bytes = connection, lines, line_bytes
        self.deadline = time.monotonic() + seconds
        self.sent = 0
        self.stop = threading.Event()

    def run(self):
        lines_per_send = 64
        try:
            for first in range(0, self.lines, lines_per_send):
                if self.stop.is_set() or time.monotonic() > self.deadline:
                    return
                batch = b"".join(self.header_line(i) for i in range(first, min(first + lines_per_send, self.lines)))
                self.connection.send(batch, timeout=max(0.1, self.deadline - time.monotonic()))
                self.sent += len(batch)
        except (OSError, ssl.SSLError):
            return  # refused or closed by the server: what a hardened one does

    def header_line(self, index):
        name = b"X-Flood-%05d: " % index
        return name + b"a" * (self.line_bytes - len(name) - 2) + b"\r\n"


def check_header_flood(target, memory):
    lines, line_bytes = 50000, 4000
    total_mb = lines * line_bytes / 1e6
    baseline = memory.start_measure()
    connection = Connection(target)
    connection.send(b"GET /index.html HTTP/1.1\r\nHost: x\r\n")
    flood = HeaderFlood(connection, lines, line_bytes, seconds=8)
    flood.start()
    answer = connection.read_response(8)
    sent_at_answer = flood.sent / 1e6
    flood.stop.set()
    closed = answer.status is not None and connection.closed_within(2)
    flood.join(3)
    connection.close()
    growth = memory.growth_mib(baseline)
    expect(answer.status in (431, 400) and sent_at_answer < total_mb / 10 and closed,
           f"{lines} header lines of {line_bytes} bytes ({total_mb:.0f} MB) are refused 431/400 early, the connection closed",
           f"{answer}, {sent_at_answer:.1f} MB sent by then, {'closed' if closed else 'not closed'} within 2 s")
    expect_small_growth(True, growth, 50, "  ...and not held")  # its head went out above


def check_long_header_line(target):
    connection = Connection(target)
    try:
        connection.send(b"GET /index.html HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 100000 + b"\r\n\r\n")
    except (OSError, ssl.SSLError):
        pass  # the server may stop reading and close before all is sent
    answer = connection.read_response(5)
    connection.close()
    expect(answer.status in (431, 400, 414), "a single 100 KB header line is refused 431/400/414", str(answer))


# ---- D6: /app/ paths and headers ------------------------------------------------------------------

def first_served(target, names):
    for name in names:
        if request(target, "GET", f"/app/{name}", body_limit=0).status == 200:
            return name
    return None


def check_nul_in_app_path(target):
    script = first_served(target, ["graphcost_app.js", "graphcost_validate.js", "x.js"]) or "x.js"
    answer = request(target, "GET", f"/app/{script}%00.html", body_limit=4096)
    content_type = answer.header("Content-Type") or "no type"
    # A 400/404 may be an HTML error page (the proxy's): what must not happen is the file served as HTML.
    expect(answer.status in (400, 404),
           f"/app/{script}%00.html is refused (400/404), never served as text/html", f"{answer}, {content_type}")


def check_app_policy(target):
    page = first_served(target, ["index.html", "validate.html"])
    if page is None:
        print("skip /app/ Content-Security-Policy: no /app/index.html or /app/validate.html served", flush=True)
        return
    answer = request(target, "GET", f"/app/{page}", body_limit=0)
    policy = answer.header("Content-Security-Policy")
    expect(bool(policy), f"/app/{page} carries a Content-Security-Policy", f"{answer}, policy {policy[:60]!r}")


# ---- D8: pipelining -------------------------------------------------------------------------------

def check_pipelining(target):
    one = f"GET /api/competition HTTP/1.1\r\nHost: {target.host}\r\n\r\n".encode()
    connection = Connection(target)
    try:
        connection.send(one + one)
        answers = [connection.read_response(3) for _ in range(2)]
    finally:
        connection.close()
    whole = [a for a in answers if a.status == 200 and a.declared_length == len(a.body)]
    expect(len(whole) == 2, "two pipelined GET /api/competition in one send get two whole answers",
           "; ".join(f"{a}, {len(a.body)} of {a.declared_length} bytes" for a in answers))


def check_slow_reader(target):
    """A large response to a client that reads nothing for 6 s (longer than the kernel's 5 s send
    timeout the library sets, shorter than the server's 10 s): it must arrive whole. A server that
    takes a timed-out partial send for done cuts the body short and keeps the connection open."""
    name = next((n for n in APP_FILE_CANDIDATES if (app_file_size(target, n) or 0) > MIB), None)
    if name is None:
        print("skip a slow reader of a large /app/ file: none served")
        return
    size = app_file_size(target, name)
    # A small receive window, set before connecting (TCP agrees its window scale then), so that the
    # server's sends block while the client does not read.
    plain = socket.socket()
    plain.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    plain.settimeout(5)
    plain.connect((target.host, target.port))
    connection = Connection.__new__(Connection)
    connection.buffer = b""
    connection.sock = target.tls_context.wrap_socket(plain, server_hostname=target.host) if target.tls else plain
    try:
        connection.send(f"GET /app/{name} HTTP/1.1\r\nHost: {target.host}\r\n\r\n".encode())
        time.sleep(6)
        answer = connection.read_response(20, body_limit=size + 1)
    finally:
        connection.close()
    expect(answer.status == 200 and len(answer.body) == size,
           f"/app/{name} ({size} bytes) to a client that reads nothing for 6 s arrives whole",
           f"{answer}, {len(answer.body)} bytes")


# ---- small API nits -------------------------------------------------------------------------------

def put_finals(target, body):
    return request(target, "PUT", "/api/finals", {**bearer(target), "Content-Type": "application/json"}, body.encode())


def check_nits(target):
    mine = request(target, "GET", "/api/submissions", bearer(target))
    scored = mine.body.count(b'"status":"scored"')
    expect(mine.status == 200 and scored == 0, "the given token is accepted and its team has no scored submission",
           f"{mine}, {scored} scored")
    answer = put_finals(target, '{"submissions":[5,5]}')
    expect(answer.status == 400, "final picks [5,5] (a repeated id) are refused 400", f"{answer}, {answer.body[:120]!r}")
    answer = put_finals(target, '{"submissions":[18446744073709551615]}')
    expect(answer.status == 400 and b"18446744073709551615" in answer.body,
           "final pick 18446744073709551615 is refused 400 naming that number (not -1)", f"{answer}, {answer.body[:160]!r}")
    match = re.fullmatch(r"gc_(\d+)_(\w+)", target.token)
    if not match:
        expect(False, "the token has the form gc_<id>_<secret>", target.token[:12] + "...")
        return
    padded = f"gc_0{match.group(1)}_{match.group(2)}"
    answer = request(target, "GET", "/api/submissions", bearer(target, padded))
    expect(answer.status == 401, "the token with a leading zero in its id (gc_0<id>_...) is refused 401", str(answer))


# ---- a bad-token flood ----------------------------------------------------------------------------

def check_bad_token_flood(target):
    """Forged tokens from one address must not lock out a valid token from that address. At least
    300 forgeries, more until the server starts answering them 429 (so a generous per-address
    allowance is used up too), at most 2,000."""
    source = target.source(251)  # its own address: the other checks keep theirs
    rng = random.Random(7)
    statuses, deadline = {}, time.monotonic() + 15
    for sent in range(2000):
        forged = f"gc_{rng.randrange(10**6, 10**7)}_{rng.getrandbits(128):032x}"
        answer = request(target, "GET", "/api/submissions", bearer(target, forged), seconds=2, source=source, body_limit=0)
        statuses[answer.status] = statuses.get(answer.status, 0) + 1
        if (sent >= 299 and answer.status == 429) or time.monotonic() > deadline:
            break
    forged_text = ", ".join(f"{count}x {status}" for status, count in sorted(statuses.items(), key=str))
    valid = [request(target, "GET", "/api/submissions", bearer(target), seconds=2, source=source).status for _ in range(20)]
    expect(valid.count(200) == 20, "after a flood of forged tokens, 20 requests with the valid token from the same address get 200",
           f"forged: {forged_text}; valid: {valid.count(200)} of 20 got 200, others {sorted(set(valid) - {200}, key=str)}")


# ---- slow and crowding clients --------------------------------------------------------------------

def time_normal_requests(target, count=30, seconds=2.0, give_up_after=3):
    """Seconds of `count` sequential GET /api/competition on new connections from 127.0.0.1 (the
    default address); stops after `give_up_after` failures so a stuck server costs seconds, not minutes."""
    times, failures = [], []
    for _ in range(count):
        answer = request(target, "GET", "/api/competition", seconds=seconds)
        if answer.status == 200:
            times.append(answer.seconds)
        else:
            failures.append(str(answer))
            if len(failures) >= give_up_after:
                break
    return times, failures


def expect_responsive(target, description, baseline_ms):
    times, failures = time_normal_requests(target)
    if times:
        figures = f"{len(times)} of 30 answered 200, median {statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms"
    else:
        figures = "none of 30 answered"
    figures += f"; unloaded median {baseline_ms:.1f} ms"
    if failures:
        figures += f"; gave up after: {failures[-1]}"
    expect(not failures and len(times) == 30 and max(times) < 0.1, description, figures)


def open_idle(target, count, source_for):
    """Connects `count` sockets that send nothing; returns (open sockets, connect failures)."""
    sockets, refused = [], 0
    for index in range(count):
        source = source_for(index)
        try:
            sockets.append(socket.create_connection((target.host, target.port), timeout=1,
                                                    source_address=(source, 0) if source else None))
        except OSError:
            refused += 1
    return sockets, refused


class SlowSender(threading.Thread):
    """A slow-loris client: a request line, then one header byte a second until stopped."""

    def __init__(self, target, source, stop):
        super().__init__(daemon=True)
        self.target, self.source, self.stop = target, source, stop
        self.connection = None

    def run(self):
        try:
            self.connection = Connection(self.target, source=self.source, timeout=2)
            self.connection.send(b"GET / HTTP/1.1\r\n", timeout=2)
            for byte in b"X-Slow: " + b"a" * 600:
                if self.stop.wait(1):
                    return
                self.connection.send(bytes([byte]), timeout=2)
        except (OSError, ssl.SSLError):
            return  # closed by the server: allowed

    def close(self):
        if self.connection:
            self.connection.close()


def close_all(sockets):
    for sock in sockets:
        try:
            sock.close()
        except OSError:
            pass


def check_slow_clients(target, baseline_ms):
    idle, refused = open_idle(target, 200, lambda index: target.source(2 + index))
    stop = threading.Event()
    senders = [SlowSender(target, target.source(202 + index), stop) for index in range(40)]
    for sender in senders:
        sender.start()
    time.sleep(1.5)  # the slow senders are connected and have started their heads
    try:
        expect_responsive(target, f"with 200 idle connections ({refused} refused) and 40 slow-loris senders open, "
                                  "30 normal requests are each answered in < 100 ms", baseline_ms)
    finally:
        stop.set()
        close_all(idle)
        for sender in senders:
            sender.close()
        for sender in senders:
            sender.join(3)


def check_one_address_crowd(target, baseline_ms):
    crowd, refused = open_idle(target, 300, lambda index: target.source(250))
    time.sleep(0.5)
    try:
        expect_responsive(target, f"with 300 connections open from one address ({refused} refused), "
                                  "30 normal requests from another are each answered in < 100 ms", baseline_ms)
    finally:
        close_all(crowd)


def unloaded_median_ms(target):
    times, _ = time_normal_requests(target, count=10)
    return statistics.median(times) * 1000 if times else float("nan")


# ---- the run --------------------------------------------------------------------------------------

def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--pid", required=True, type=int)
    parser.add_argument("--token", required=True)
    parser.add_argument("--insecure", action="store_true")
    parser.add_argument("--behind-proxy", action="store_true")
    return parser.parse_args()


def main():
    start_watchdog()
    target = Target(parse_arguments())
    memory = Memory(target.pid)
    started = time.monotonic()
    if not memory.can_reset:
        print(f"note: /proc/{target.pid}/clear_refs is not writable: RSS growth is measured against the peak so far")
    reachable = request(target, "GET", "/api/competition")
    if reachable.status != 200:
        expect(False, f"the server answers GET /api/competition at {target.host}:{target.port}", str(reachable))
        summary_and_exit()
    baseline_ms = unloaded_median_ms(target)
    run_check("nits", check_nits, memory, target)
    run_check("D1 ranges", check_ranges, memory, target)
    run_check("D1 ranges on /app/", check_app_ranges, memory, target)
    run_check("D2 compressed bodies", check_compressed_bodies, memory, target, memory)
    run_check("D2 chunked upload without a token", check_chunked_without_token, memory, target)
    run_check("D2 announced final picks", check_announced_finals, memory, target)
    run_check("D2 announced upload without a token", check_announced_upload_without_token, memory, target)
    run_check("D2 announced GET body", check_announced_get_body, memory, target)
    run_check("D3 header flood", check_header_flood, memory, target, memory)
    run_check("D3 long header line", check_long_header_line, memory, target)
    run_check("D6 NUL in an /app/ path", check_nul_in_app_path, memory, target)
    run_check("D6 /app/ security policy", check_app_policy, memory, target)
    run_check("D8 pipelining", check_pipelining, memory, target)
    run_check("a slow reader", check_slow_reader, memory, target)
    run_check("bad-token flood", check_bad_token_flood, memory, target)
    run_check("slow clients", check_slow_clients, memory, target, baseline_ms)
    run_check("one-address crowd", check_one_address_crowd, memory, target, baseline_ms)
    peak = memory.peak_mib()
    if peak is None:
        expect(False, f"peak RSS of the server under {PEAK_RSS_LIMIT_MIB} MB",
               f"the server is gone; {memory.overall_peak_mib:.1f} MB was the last peak seen")
    else:
        expect(memory.overall_peak_mib < PEAK_RSS_LIMIT_MIB, f"peak RSS of the server under {PEAK_RSS_LIMIT_MIB} MB",
               f"VmHWM {memory.overall_peak_mib:.1f} MB over the run")
    print(f"(ran {time.monotonic() - started:.1f} s)")
    summary_and_exit()


if __name__ == "__main__":
    main()
