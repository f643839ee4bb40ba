"""What serve_attacks.py's checks share: one line per sub-check with the figure measured and the
closing counts, a watchdog over the whole run, the target server (where to connect, TLS or not,
which loopback addresses to send from) and its resident memory from /proc, and a raw HTTP client
over sockets (TLS-wrapped for https://) in which every operation is bounded in time."""
import os
import re
import socket
import ssl
import threading
import time
import urllib.parse

MIB = 1 << 20
SCRIPT_SECONDS = 85  # the whole run; CTest's own timeout is far above
passed = failed = 0
current_check = "start"


# ---- reporting ------------------------------------------------------------------------------------

def expect(condition, description, measured):
    """One line per sub-check, always with the figure measured."""
    global passed, failed
    if condition:
        passed += 1
        print(f"ok   {description} ({measured})", flush=True)
    else:
        failed += 1
        print(f"FAILED: {description} ({measured})", flush=True)


def summary_and_exit():
    print(f"{passed} passed, {failed} failed", flush=True)
    os._exit(1 if failed else 0)  # os._exit: threads of slow senders may still sleep


def start_watchdog():
    """A check that hangs despite the timeouts must not hang the test: report it and stop."""
    def overrun():
        global failed
        failed += 1
        print(f"FAILED: the script ran over {SCRIPT_SECONDS} s (stopped during: {current_check})", flush=True)
        summary_and_exit()
    watchdog = threading.Timer(SCRIPT_SECONDS, overrun)
    watchdog.daemon = True
    watchdog.start()


def run_check(name, check, memory, *args):
    """Runs one check; an exception or the server's death is a failure, never the end of the run."""
    global current_check
    current_check = name
    if not memory.alive():
        expect(False, name, f"not run: the server (pid {memory.pid}) is gone")
        return
    try:
        check(*args)
    except Exception as error:  # noqa: BLE001 - any surprise is one failed check, and the run goes on
        expect(False, f"{name}: the check ran to its end", f"{type(error).__name__}: {error}")
    if not memory.alive():
        expect(False, f"the server (pid {memory.pid}) survives {name}", "it is gone")


# ---- the target and its memory --------------------------------------------------------------------

class Target:
    """Where to connect, how (TLS or not), and which addresses this client may send from."""

    def __init__(self, args):
        url = urllib.parse.urlsplit(args.url)
        self.host = url.hostname
        self.tls = url.scheme == "https"
        self.port = url.port or (443 if self.tls else 80)
        self.pid = args.pid
        self.token = args.token
        self.tls_context = None
        if self.tls:
            self.tls_context = ssl.create_default_context()
            if args.insecure:
                self.tls_context.check_hostname = False
                self.tls_context.verify_mode = ssl.CERT_NONE
        # Linux loopback answers for all of 127/8: a client can look like many addresses, so a
        # per-address connection cap cannot refuse what is meant to be many clients.
        # Behind a proxy on 127.0.0.1 too: the proxy sees (and caps) the clients' own addresses.
        self.many_addresses = self.host == "127.0.0.1"
        self.behind_proxy = args.behind_proxy

    def source(self, last_byte):
        """A distinct loopback source address (127.0.0.last_byte), or None: the default one."""
        return f"127.0.0.{last_byte}" if self.many_addresses else None


class Memory:
    """The server's resident memory from /proc/PID/status. Peaks are measured per attack by
    resetting VmHWM (writing 5 to /proc/PID/clear_refs) when allowed; the overall peak is kept."""

    def __init__(self, pid):
        self.pid = pid
        self.overall_peak_mib = 0.0
        self.can_reset = os.access(f"/proc/{pid}/clear_refs", os.W_OK)

    def field_mib(self, name):
        try:
            with open(f"/proc/{self.pid}/status") as status:
                for line in status:
                    if line.startswith(name + ":"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return None

    def alive(self):
        try:
            with open(f"/proc/{self.pid}/status") as status:
                state = next(line for line in status if line.startswith("State:"))
            return "zombie" not in state and "dead" not in state
        except (OSError, StopIteration):
            return False

    def peak_mib(self):
        peak = self.field_mib("VmHWM")
        if peak is not None:
            self.overall_peak_mib = max(self.overall_peak_mib, peak)
        return peak

    def start_measure(self):
        """Returns the baseline that growth_mib() measures from."""
        self.peak_mib()  # kept before a reset forgets it
        if self.can_reset:
            try:
                with open(f"/proc/{self.pid}/clear_refs", "w") as clear_refs:
                    clear_refs.write("5")
                return self.field_mib("VmRSS") or 0.0
            except OSError:
                self.can_reset = False
        return self.field_mib("VmHWM") or 0.0

    def growth_mib(self, baseline):
        peak = self.peak_mib()
        return None if peak is None else peak - baseline


def expect_small_growth(reached, growth, limit_mib, description):
    """RSS growth counts only when the attack reached the server (it was sent, answered or not)."""
    if not reached:
        measured = "nothing measured: the attack was not sent"
    else:
        measured = "the server is gone" if growth is None else f"peak RSS grew {growth:.1f} MB"
    expect(reached and growth is not None and growth < limit_mib, f"{description} (peak RSS growth < {limit_mib} MB)", measured)


# ---- raw HTTP -------------------------------------------------------------------------------------

class Response:
    def __init__(self):
        self.status = None
        self.headers = {}
        self.body = b""
        self.declared_length = None  # Content-Length, when the server sent one
        self.seconds = 0.0
        self.problem = ""  # why there is no (whole) answer
        self.sent = False  # the request left this client whole

    def header(self, name):
        return self.headers.get(name.lower(), "")

    def length(self):
        return self.declared_length if self.declared_length is not None else len(self.body)

    def __str__(self):
        if self.status is None:
            return f"{self.problem} after {self.seconds:.2f} s"
        return f"status {self.status} in {self.seconds:.2f} s"


class Connection:
    """One client connection, TLS-wrapped for https://. Every operation is bounded in time."""

    def __init__(self, target, source=None, timeout=3.0):
        self.buffer = b""
        self.sock = socket.create_connection((target.host, target.port), timeout=timeout,
                                             source_address=(source, 0) if source else None)
        if target.tls:
            self.sock = target.tls_context.wrap_socket(self.sock, server_hostname=target.host)

    def send(self, data, timeout=3.0):
        self.sock.settimeout(timeout)
        self.sock.sendall(data)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def _receive(self, deadline):
        """More bytes into the buffer; False when the peer closed. Raises socket.timeout."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise socket.timeout()
        self.sock.settimeout(remaining)
        data = self.sock.recv(65536)
        self.buffer += data
        return bool(data)

    def read_response(self, seconds, body_limit=16 * MIB, head=False):
        """The next response, its body read up to body_limit bytes; status None when none came."""
        response, started = Response(), time.monotonic()
        deadline = started + seconds
        try:
            self._read_head(response, deadline)
            if response.status is not None and not head:
                self._read_body(response, deadline, body_limit)
        except socket.timeout:
            response.problem = response.problem or f"no answer within {seconds:.1f} s"
        except (ConnectionError, ssl.SSLError, OSError) as error:
            response.problem = response.problem or f"connection error without an answer: {error!r}"
        response.seconds = time.monotonic() - started
        return response

    def _read_head(self, response, deadline):
        while b"\r\n\r\n" not in self.buffer:
            if len(self.buffer) > MIB:
                response.problem = "a response head over 1 MB"
                return
            if not self._receive(deadline):
                response.problem = "connection closed without an answer"
                return
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        match = re.match(r"HTTP/\d\.\d (\d{3})", lines[0])
        if not match:
            response.problem = f"not an HTTP status line: {lines[0][:80]!r}"
            return
        response.status = int(match.group(1))
        for line in lines[1:]:
            name, _, value = line.partition(":")
            response.headers[name.strip().lower()] = value.strip()
        if response.header("Content-Length").isdigit():
            response.declared_length = int(response.header("Content-Length"))

    def _read_body(self, response, deadline, body_limit):
        if response.status in (204, 304) or 100 <= response.status < 200:
            return
        if "chunked" in response.header("Transfer-Encoding").lower():
            self._read_chunked(response, deadline, body_limit)
            return
        wanted = body_limit if response.declared_length is None else min(response.declared_length, body_limit)
        while len(self.buffer) < wanted and self._receive(deadline):
            pass
        response.body, self.buffer = self.buffer[:wanted], self.buffer[wanted:]

    def _read_chunked(self, response, deadline, body_limit):
        while len(response.body) < body_limit:
            while b"\r\n" not in self.buffer:
                if not self._receive(deadline):
                    return
            size_line, self.buffer = self.buffer.split(b"\r\n", 1)
            size = int(size_line.split(b";")[0] or b"0", 16)
            while len(self.buffer) < size + 2:
                if not self._receive(deadline):
                    return
            if size == 0:
                self.buffer = self.buffer[2:]
                return
            response.body += self.buffer[:size]
            self.buffer = self.buffer[size + 2:]

    def closed_within(self, seconds):
        """Whether the server closes the connection (EOF or reset) within `seconds`."""
        deadline = time.monotonic() + seconds
        try:
            while self._receive(deadline):
                pass
            return True
        except socket.timeout:
            return False
        except (ConnectionError, OSError):
            return True


def request_bytes(target, method, path, headers=None, body=b""):
    lines = [f"{method} {path} HTTP/1.1", f"Host: {target.host}:{target.port}", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    if body or method in ("POST", "PUT"):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def request(target, method, path, headers=None, body=b"", seconds=5.0, body_limit=16 * MIB, source=None):
    """One request on a new connection; connection failures come back as a Response with a problem."""
    started = time.monotonic()
    try:
        connection = Connection(target, source=source, timeout=seconds)
    except (OSError, ssl.SSLError) as error:
        response = Response()
        response.problem, response.seconds = f"could not connect: {error!r}", time.monotonic() - started
        return response
    try:
        connection.send(request_bytes(target, method, path, headers, body), timeout=seconds)
        response = connection.read_response(seconds, body_limit, head=(method == "HEAD"))
        response.sent = True
    except (OSError, ssl.SSLError) as error:
        response = Response()
        response.problem = f"could not send: {error!r}"
    finally:
        connection.close()
    response.seconds = time.monotonic() - started
    return response


def bearer(target, token=None):
    return {"Authorization": f"Bearer {token or target.token}"}


def headers_only(target, head_lines, seconds, after_head=b""):
    """Sends a request head (and `after_head`, not the body it announces) and reads the answer:
    returns (connection, response); the caller closes the connection."""
    connection = Connection(target, timeout=seconds)
    head = [head_lines[0], f"Host: {target.host}:{target.port}"] + head_lines[1:]
    connection.send(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + after_head)
    return connection, connection.read_response(seconds)
