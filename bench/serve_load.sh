#!/usr/bin/env bash
# Benchmark: `graphcost-eval serve` under 50 clients for 60 s (bench_serve_load: each uploads a full
# submission of the generated test split, polls until it is scored, reads the board, again), beside
# its peer measured in the same run: `graphcost-eval score` on the same file, the offline scoring of
# one submission (median of 5). The ratio says what the queue, the transactions (fsync'd: a 202
# means the file is on disk) and HTTP add to scoring itself.
# Then the front door: p50 / p99 latency of GET /api/competition (a new connection each, 300 in a
# row) while IDLE connections (200) are held open from as many 127.0.0.x addresses (connected,
# nothing sent; reopened when closed), straight to the server and through nginx with TLS
# (deploy/nginx/graphcost.conf as tests/cli/nginx_fixture.sh runs it), each beside the same probe
# with no idle connection.
# Usage: bench/serve_load.sh [BUILD_DIR=build/native-release] [CLIENTS=50] [SECONDS=60] [IDLE=200]
#   SECONDS=0 skips the load part: the front door figures only.
set -euo pipefail
build=${1:-build/native-release} clients=${2:-50} seconds=${3:-60} idle=${4:-200}
eval_tool=$build/evaluation/graphcost-eval
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
server= holder=
source "$repo/tests/cli/nginx_fixture.sh"
stop() { [ -n "$1" ] && kill "$1" 2>/dev/null && wait "$1" 2>/dev/null || true; }
trap 'stop "$holder"; stop "$server"; nginx_stop; rm -rf "$work"' EXIT
"$build/src/graphcost" gen --out "$work/tree" --graphs 60 --seed 1 --quiet
"$eval_tool" baseline --data "$work/tree" --split test --strategy random --out "$work/submission.csv" >/dev/null
db=$work/load.sqlite
"$eval_tool" competition init --db "$db" --solution "$work/tree/solution_test.csv" --deadline 2099-12-31T23:59:59Z \
  --daily-cap 100000 >/dev/null
for c in $(seq 1 "$clients"); do "$eval_tool" competition team add --db "$db" "team $c" | awk '{print $NF}'; done >"$work/tokens"

# The load, and its offline peer.
if [ "$seconds" -gt 0 ]; then
  times=()
  for run in 1 2 3 4 5; do
    start=$(date +%s%N)
    "$eval_tool" score --solution "$work/tree/solution_test.csv" --submission "$work/submission.csv" >/dev/null
    times+=("$(( ($(date +%s%N) - start) / 1000 ))")
  done
  offline_us=$(printf '%s\n' "${times[@]}" | sort -g | sed -n 3p)

  # 50 clients on one address stand for 50 teams: the per-address connection cap is raised to match.
  "$eval_tool" serve --db "$db" --port 0 --rate-limit 1000000 --threads 64 --connections-per-address 1000 >"$work/serve.log" 2>&1 &
  server=$!
  for _ in $(seq 1 100); do url=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/serve.log" || true); [ -n "$url" ] && break; sleep 0.1; done
  "$build/bench/bench_serve_load" --url "$url" --tokens "$work/tokens" --submission "$work/submission.csv" \
    --clients "$clients" --seconds "$seconds" --json "$work/load.json" || echo "(some requests failed: see the errors above)"
  /usr/bin/python3 - "$work/load.json" "$offline_us" <<'PY'
import json, sys
load, offline_ms = json.load(open(sys.argv[1])), int(sys.argv[2]) / 1000
print(f"peer: graphcost-eval score on the same file (whole process, offline): median {offline_ms:.1f} ms")
print(f"upload -> scored median / offline score: {load['scored_median_ms'] / offline_ms:.2f}x "
      f"(with {load['clients']} clients queueing on one scoring worker)")
print(f"goal: every upload scored in a second at this load: p95 {load['scored_p95_ms']:.0f} ms")
PY
  stop "$server"; server=
fi

# ---- the front door: latency while idle connections are held open ----
[ "$seconds" -gt 0 ] || "$build/bench/bench_machine" || true
"$eval_tool" competition init --db "$work/idle.sqlite" --solution "$work/tree/solution_test.csv" \
  --deadline 2099-12-31T23:59:59Z >/dev/null
port=$(/usr/bin/python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
# As deployed (default threads, connection caps and timeouts), with a rate limit no probe reaches.
"$eval_tool" serve --db "$work/idle.sqlite" --port "$port" --trusted-proxy 127.0.0.1 --rate-limit 1000000 \
  >"$work/idle-serve.log" 2>&1 &
server=$!
for _ in $(seq 1 100); do grep -q "http://127.0.0.1:$port" "$work/idle-serve.log" && break; sleep 0.1; done
NGINX_WORKER_PROCESSES=auto nginx_start "$work/nginx" "$port"
probe() {  # URL -> "p50 p99 answered"
  /usr/bin/python3 - "$1" <<'PY'
import http.client, ssl, statistics, sys, time, urllib.parse
url = urllib.parse.urlsplit(sys.argv[1])
context = ssl._create_unverified_context()
times, failed, deadline = [], 0, time.monotonic() + 60
for _ in range(300):
    if time.monotonic() > deadline:
        break
    start = time.perf_counter()
    try:
        if url.scheme == "https":
            connection = http.client.HTTPSConnection(url.hostname, url.port, context=context, timeout=30)
        else:
            connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        connection.request("GET", "/api/competition")
        answer = connection.getresponse()
        answer.read()
        connection.close()
        if answer.status != 200:
            raise RuntimeError(answer.status)
        times.append((time.perf_counter() - start) * 1000)
    except Exception:
        failed += 1
times.sort()
p50 = statistics.median(times) if times else float("nan")
p99 = times[min(len(times) - 1, int(len(times) * 0.99))] if times else float("nan")
print(f"p50 {p50:.1f} ms, p99 {p99:.1f} ms" + (f" ({len(times)} answered, {failed} failed)" if failed else ""))
PY
}
measure() {  # label URL [--tls]
  local label=$1 url=$2 unloaded loaded
  shift 2
  unloaded=$(probe "$url")
  rm -f "$work/held"
  /usr/bin/python3 "$repo/tests/cli/hold_connections.py" --port "${url##*:}" --count "$idle" --first-source 127.0.0.2 \
    --per-source 1 --ready "$work/held" "$@" 2>"$work/holder.log" &
  holder=$!
  for _ in $(seq 1 300); do [ -f "$work/held" ] && break; sleep 0.1; done
  sleep 1
  loaded=$(probe "$url")
  stop "$holder"; holder=
  printf '  %-22s %s   (none idle: %s; %s)\n' "$label:" "$loaded" "$unloaded" "$(cat "$work/holder.log")"
}
echo "front door: GET /api/competition, a new connection each, while $idle idle connections from as many addresses are open"
measure "straight to serve" "http://127.0.0.1:$port"
measure "through nginx + TLS" "https://127.0.0.1:$nginx_https_port" --tls
