#!/usr/bin/env python3
"""Holds many connections open to a server until SIGTERM, the way idle visitors and slow senders
do, each from its own loopback source address if asked (127.0.0.x: per-address caps then see
distinct clients). A connection the server closes is opened again, so the count stays up for as
long as this runs. Used by tests/cli/test_front_door.sh and bench/serve_load.sh.

  --mode idle         connect (and finish the TLS handshake with --tls), then send nothing
  --mode slow-upload  send an upload's head with Content-Length 1,000,000 and 100 bytes of body,
                      then nothing more (a sender that stalls mid-body)

Writes --ready FILE once every connection is open (and its bytes sent); prints "held N, reopened
M" on stderr when stopped.
"""
import argparse
import ipaddress
import selectors
import signal
import socket
import ssl
import sys
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True, help="on 127.0.0.1")
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--mode", choices=["idle", "slow-upload"], default="idle")
    parser.add_argument("--tls", action="store_true", help="TLS without certificate checks")
    parser.add_argument("--first-source", default="127.0.0.1", help="source address of the first connections")
    parser.add_argument("--per-source", type=int, default=0, help="connections per source address (0: all from the first)")
    parser.add_argument("--token", default="", help="bearer token of the slow uploads")
    parser.add_argument("--ready", help="file written once all are open")
    args = parser.parse_args()

    context = None
    if args.tls:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    first = ipaddress.IPv4Address(args.first_source)

    def source_of(index):
        return str(first + (index // args.per_source if args.per_source else 0))

    def open_connection(index):
        raw = socket.create_connection(("127.0.0.1", args.port), timeout=10, source_address=(source_of(index), 0))
        connection = context.wrap_socket(raw, server_hostname="127.0.0.1") if context else raw
        if args.mode == "slow-upload":
            connection.sendall(
                (f"POST /api/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {args.token}\r\n"
                 "Content-Type: text/csv\r\nContent-Length: 1000000\r\n\r\n").encode() + b"ID,TopConfigs\n" + b"x" * 86)
        connection.setblocking(False)
        opened_at[index] = time.monotonic()
        return connection

    opened_at = {}
    selector = selectors.DefaultSelector()
    reopened = 0
    for index in range(args.count):
        selector.register(open_connection(index), selectors.EVENT_READ, index)
    if args.ready:
        with open(args.ready, "w") as ready:
            ready.write(f"{args.count}\n")

    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    signal.signal(signal.SIGINT, lambda *_: stopping.append(1))
    while not stopping:
        for key, _ in selector.select(timeout=0.2):
            connection, index = key.fileobj, key.data
            try:
                if connection.recv(65536):
                    continue  # an answer (a timeout's 408, say): the close follows
            except (ssl.SSLWantReadError, BlockingIOError):
                continue
            except OSError:
                pass
            selector.unregister(connection)
            connection.close()
            if time.monotonic() - opened_at[index] < 1:
                time.sleep(0.05)  # closed at once (over a cap): no busy loop of reconnects
            while not stopping:
                try:
                    selector.register(open_connection(index), selectors.EVENT_READ, index)
                    reopened += 1
                    break
                except OSError:
                    time.sleep(0.1)  # refused over a cap: try again shortly
    print(f"held {args.count}, reopened {reopened}", file=sys.stderr)


if __name__ == "__main__":
    main()
