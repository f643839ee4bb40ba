#!/usr/bin/env bash
# The front door as organisers deploy it: deploy/nginx/graphcost.conf (run by nginx_fixture.sh with
# only its addresses replaced) in front of `graphcost-eval serve --trusted-proxy 127.0.0.1`, over
# HTTPS with curl -k on a generated tree:
#   - what nginx hands the server (an echo server in its place): X-Forwarded-For replaced, never
#     appended; X-Forwarded-Proto; Content-Encoding passed; chunked bodies de-chunked; no Range;
#   - TLS 1.2 / 1.3 and HTTP/2, older TLS refused, HSTS, the HTTP -> HTTPS redirect, certbot's
#     challenge files on port 80;
#   - the board and an upload (202, then scored), the server's security headers kept, a gzip
#     upload refused by the server (415);
#   - limits: a 40 MB upload refused by nginx (413) without reaching the server; nginx's body
#     limits equal the server's (the limit reaches the server, one byte more does not); an upload
#     the server refuses before reading it (bad token) arrives as its 401, not nginx's 502; small
#     bodies elsewhere, long heads, one byte range, connections per address (429), 40 uploads
#     stalled mid-body that never reach the server while others are served;
#   - a client's X-Forwarded-For does not move the address the server rate-limits on, while
#     distinct clients behind nginx keep distinct allowances;
#   - `competition backup` while uploads continue: the copy opens, holds every upload answered
#     before it started, `serve` runs on it, and docs/deploy.md's restore recipe works after a
#     kill -9 left a -wal file;
#   - tests/hostile/serve_attacks.py through the front door; the systemd units (systemd-analyze
#     verify, when installed).
# Usage: test_front_door.sh GRAPHCOST GRAPHCOST_EVAL
set -u
graphcost=$1 eval_tool=$2
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
source "$here/check.sh"
source "$here/serve_fixture.sh"
source "$here/nginx_fixture.sh"
out=$(mktemp -d)
helper_pid=
stop_helper() { [ -n "$helper_pid" ] && kill "$helper_pid" 2>/dev/null && wait "$helper_pid" 2>/dev/null; helper_pid=; }
trap 'stop_helper; stop_server; nginx_stop; rm -rf "$out"' EXIT

"$graphcost" gen --out "$out/tree" --graphs 20 --seed 6 --layout-configs 60 --quiet
"$eval_tool" baseline --data "$out/tree" --split test --strategy fewest-changes --out "$out/valid.csv" >/dev/null
db="$out/comp.sqlite"
"$eval_tool" competition init --db "$db" --solution "$out/tree/solution_test.csv" --deadline 2099-12-31T23:59:59Z \
  --daily-cap 1000 --finals 1 --title 'Front door test' >/dev/null
token() { team_token "$db" "$1"; }
alpha=$(token alpha) beta=$(token beta) loader=$(token loader) attacker=$(token attacker)

# One backend port for the whole run: nginx keeps pointing at it while servers come and go.
backend_port=$(/usr/bin/python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")

# ---- what nginx hands the server: an echo server in its place ----
/usr/bin/python3 - "$backend_port" "$out/echo.ready" <<'PY' &
import http.server, json, sys
class Echo(http.server.BaseHTTPRequestHandler):
    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        reply = json.dumps({"headers": [[k.lower(), v] for k, v in self.headers.items()], "body_bytes": len(body)}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply))); self.end_headers(); self.wfile.write(reply)
    do_GET = do_POST = do_PUT = answer
    def log_message(self, *_): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Echo)
open(sys.argv[2], "w").close()
server.serve_forever()
PY
helper_pid=$!
for _ in $(seq 1 50); do [ -f "$out/echo.ready" ] && break; sleep 0.1; done
if ! nginx_start "$out/nginx" "$backend_port"; then
  check "nginx runs deploy/nginx/graphcost.conf" false
  finish; exit
fi
front=https://127.0.0.1:$nginx_https_port
# status code of a request; the body goes to $out/body
curl_options=-k  # the test's self-signed certificate
header() {  # name -> every value the backend received, one a line
  /usr/bin/python3 -c "import json; [print(v) for k, v in json.load(open('$out/body'))['headers'] if k == '$1']"
}
request -H "X-Forwarded-For: 6.6.6.6, 7.7.7.7" -H "X-Real-IP: 6.6.6.6" -H "Forwarded: for=6.6.6.6" "$front/api/competition" >/dev/null
check "X-Forwarded-For reaches the server once, as nginx saw the client (a client's own is dropped)" \
  test "$(header x-forwarded-for)" = 127.0.0.1
check "  ...X-Real-IP and Forwarded from the client are dropped" test -z "$(header x-real-ip)$(header forwarded)"
check "  ...X-Forwarded-Proto says https" test "$(header x-forwarded-proto)" = https
request --http1.1 -H "Range: bytes=0-1,5-6" "$front/" >/dev/null
check "Range never reaches the server" test -z "$(header range)"
printf 'ID,TopConfigs\n' | gzip >"$out/small.csv.gz"
request -H "Authorization: Bearer x" -H "Content-Encoding: gzip" --data-binary @"$out/small.csv.gz" "$front/api/submissions" >/dev/null
check "Content-Encoding of an upload reaches the server (which refuses it)" test "$(header content-encoding)" = gzip
request -H "Transfer-Encoding: chunked" --data-binary @"$out/valid.csv" "$front/api/submissions" >/dev/null
check "a chunked upload reaches the server whole, with a Content-Length" \
  test "$(header content-length) $(header transfer-encoding)" = "$(stat -c %s "$out/valid.csv") "
stop_helper

# ---- the real server behind it ----
start_server() {  # extra serve flags
  : >"$out/serve.log"  # emptied before, not by the background redirection (serve_fixture.sh's launch_server says why)
  "$eval_tool" serve --db "$db" --port "$backend_port" --trusted-proxy 127.0.0.1 "$@" >>"$out/serve.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do
    grep -q "http://127.0.0.1:$backend_port" "$out/serve.log" && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "serve did not start:"; cat "$out/serve.log"; server_pid=
  check "serve --trusted-proxy starts" false
  finish; exit
}
# The access log line of the last request whose URI is $1: "status upstream_address uri".
last_logged() { sleep 0.2; grep " $1\$" "$out/nginx/access.log" | tail -1; }
submissions_of() { request -H "Authorization: Bearer $1" "$front/api/submissions" >/dev/null; json "len(d['submissions'])"; }

start_server --rate-limit 6000

# ---- TLS, HTTP/2, the redirect ----
check "HTTPS answers over HTTP/2" test "$(curl -sk -o /dev/null -w '%{http_code} %{http_version}' "$front/api/competition")" = "200 2"
tls_handshake() { openssl s_client -connect "127.0.0.1:$nginx_https_port" -servername 127.0.0.1 "$@" </dev/null >"$out/tls.txt" 2>&1; }
check "TLS 1.3 works" tls_handshake -tls1_3
check "TLS 1.2 works" tls_handshake -tls1_2
check "TLS 1.1 is refused (even by a client that would accept it)" \
  /bin/bash -c "! openssl s_client -connect 127.0.0.1:$nginx_https_port -tls1_1 -cipher 'DEFAULT@SECLEVEL=0' </dev/null >/dev/null 2>&1"
tls_handshake -tls1_3
check "  ...the certificate served is the one configured" test \
  "$(openssl x509 -noout -fingerprint -sha256 <"$out/tls.txt" 2>/dev/null)" = "$(openssl x509 -noout -fingerprint -sha256 -in "$out/nginx/cert.pem")"
request -D "$out/headers" "$front/" >/dev/null
check "HSTS is sent" grep -qi "^strict-transport-security: max-age=63072000" "$out/headers"
check "  ...beside the server's Content-Security-Policy" grep -qi "^content-security-policy: default-src 'self'" "$out/headers"
check "  ...and no nginx version" /bin/bash -c "! grep -qi '^server: nginx/' '$out/headers'"
check "HTTP is redirected to HTTPS on the configured name, path and query kept" \
  test "$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "http://127.0.0.1:$nginx_http_port/submit.html?x=1")" \
  = "301 https://competition.example.org/submit.html?x=1"
check "  ...whatever Host the client claims" \
  test "$(curl -s -o /dev/null -w '%{redirect_url}' -H 'Host: evil.example' "http://127.0.0.1:$nginx_http_port/")" = "https://competition.example.org/"
mkdir -p "$out/nginx/acme/.well-known/acme-challenge" && echo challenge-answer >"$out/nginx/acme/.well-known/acme-challenge/t0ken"
check "certbot's HTTP challenge is answered on port 80, not redirected" \
  test "$(curl -s "http://127.0.0.1:$nginx_http_port/.well-known/acme-challenge/t0ken")" = challenge-answer

# ---- the competition through it ----
check "the leaderboard page is served" test "$(request "$front/")" = 200
check "  ...and the board JSON" test "$(request "$front/api/leaderboard")" = 200
code=$(request -H "Authorization: Bearer $alpha" --data-binary @"$out/valid.csv" "$front/api/submissions")
check "an upload through the front door is accepted (202)" test "$code" = 202
id=$(json "d.get('id')")
check "  ...and scored" test "$(wait_scored "$front" "$alpha" "$id")" = scored
code=$(request -H "Authorization: Bearer $alpha" -H "Transfer-Encoding: chunked" --data-binary @"$out/valid.csv" "$front/api/submissions")
check "a chunked upload is accepted too (nginx gives the server a Content-Length)" test "$code" = 202
check "an invalid upload gets the server's line/column errors through nginx (400)" \
  test "$(request -H "Authorization: Bearer $alpha" --data-binary 'ID,TopConfigs
nope,0' "$front/api/submissions")" = 400
check "  ...as JSON" test "$(json "d['errors'][0]['line']")" = 2
code=$(request -H "Authorization: Bearer $alpha" -H "Content-Encoding: gzip" --data-binary @"$out/small.csv.gz" "$front/api/submissions")
check "a gzip-encoded upload is refused by the server (415), not inflated" test "$code" = 415
check "  ...(the server's answer, not nginx's)" test "$(last_logged /api/submissions)" = "415 127.0.0.1:$backend_port /api/submissions"

# ---- limits ----
before=$(submissions_of "$beta")
head -c 40000000 /dev/zero | tr '\0' 'x' >"$out/40mb.csv"
started=$(date +%s%N)
code=$(request -H "Authorization: Bearer $beta" --data-binary @"$out/40mb.csv" "$front/api/submissions")
elapsed_ms=$(( ($(date +%s%N) - started) / 1000000 ))
check "a 40 MB upload is refused by nginx (413)" test "$code" = 413
check "  ...with a JSON reason" grep -q '"error": "request body too large' "$out/body"
check "  ...without reaching the server" test "$(last_logged /api/submissions)" = "413 - /api/submissions"
check "  ...from its Content-Length, before the body is sent (${elapsed_ms} ms < 2000)" test "$elapsed_ms" -lt 2000
code=$(request -H "Authorization: Bearer $beta" -H "Transfer-Encoding: chunked" --data-binary @"$out/40mb.csv" "$front/api/submissions")
check "  ...also sent chunked (no Content-Length)" test "$code" = 413
check "  ...again without reaching the server" test "$(last_logged /api/submissions)" = "413 - /api/submissions"
check "  ...and nothing was stored" test "$(submissions_of "$beta")" = "$before"
# nginx's limits equal the server's (32 MiB uploads, 4 KiB picks): one byte over is refused by
# nginx, the limit itself reaches the server (which reads it whole and answers for itself).
head -c $((32 << 20)) /dev/zero | tr '\0' 'x' >"$out/32mib.csv"
check "an upload of exactly 32 MiB reaches the server (its 400: not a submission)" \
  test "$(request -H "Authorization: Bearer $beta" --data-binary @"$out/32mib.csv" "$front/api/submissions")" = 400
check "  ...(answered by the server)" test "$(last_logged /api/submissions)" = "400 127.0.0.1:$backend_port /api/submissions"
echo x >>"$out/32mib.csv"
check "one more byte (2 with the newline): 413 from nginx" \
  test "$(request -H "Authorization: Bearer $beta" --data-binary @"$out/32mib.csv" "$front/api/submissions")" = 413
check "  ...(not reaching the server)" test "$(last_logged /api/submissions)" = "413 - /api/submissions"
rm -f "$out/40mb.csv" "$out/32mib.csv"
# An upload the server answers before reading its body (a bad token: 401) must reach the client as
# that answer, not as nginx's 502: if the server closes while nginx is still handing the body over,
# nginx's write fails and it never reads the answer (the server must read, or drain, the body).
head -c 20000000 /dev/zero | tr '\0' 'x' >"$out/20mb.csv"
for i in 1 2 3; do
  request -H "Authorization: Bearer gc_1_0123456789abcdef0123456789abcdef" --data-binary @"$out/20mb.csv" "$front/api/submissions"
  echo
done >"$out/bad-token-codes"
check "a 20 MB upload with a made-up token gets the server's 401 through nginx, not 502 ($(tr '\n' ' ' <"$out/bad-token-codes"| sed 's/ $//'))" \
  test "$(sort -u "$out/bad-token-codes")" = 401
rm -f "$out/20mb.csv"
picks() { /usr/bin/python3 -c "body = '{\"submissions\": [$id]}'; print(body[:-1] + ' ' * ($1 - len(body)) + '}', end='')"; }
picks 4096 >"$out/4k.json"
picks 4097 >"$out/4k1.json"
check "final picks of 4,096 bytes reach the server" \
  test "$(request -X PUT -H "Authorization: Bearer $alpha" --data-binary @"$out/4k.json" "$front/api/finals")" = 200
check "  ...(answered by the server)" test "$(last_logged /api/finals)" = "200 127.0.0.1:$backend_port /api/finals"
check "final picks of 4,097 bytes: 413 from nginx" \
  test "$(request -X PUT -H "Authorization: Bearer $alpha" --data-binary @"$out/4k1.json" "$front/api/finals")" = 413
check "  ...(not reaching the server)" test "$(last_logged /api/finals)" = "413 - /api/finals"
check "a 2 KB body on any other route: 413 from nginx" \
  test "$(request -X POST --data-binary @"$out/4k.json" "$front/api/leaderboard")" = 413
check "a 20 KB header is refused by nginx (HTTP/1.1: 400)" \
  test "$(request --http1.1 -H "X-Padding: $(head -c 20000 /dev/zero | tr '\0' a)" "$front/api/competition")" = 400
check "  ...(HTTP/2: refused too)" \
  /bin/bash -c "test \"\$(curl -sk -o /dev/null -w '%{http_code}' -H 'X-Padding: $(head -c 20000 /dev/zero | tr '\0' a)' '$front/api/competition')\" != 200"
check "a 7 KB header is passed (a long token or cookie still works)" \
  test "$(request -H "X-Padding: $(head -c 7000 /dev/zero | tr '\0' a)" "$front/api/competition")" = 200
curl -sk -D "$out/headers" -o "$out/body" -H "Range: bytes=0-9" "$front/" >/dev/null
check "one byte range is served (206, 10 bytes)" /bin/bash -c "grep -q '^HTTP/[0-9.]* 206' '$out/headers' && test \$(stat -c %s '$out/body') = 10"
curl -sk -D "$out/headers" -o "$out/body" -H "Range: bytes=0-0,2-2,4-4,6-6" "$front/" >/dev/null
check "several byte ranges get the whole page (200, not multipart)" \
  /bin/bash -c "grep -q '^HTTP/[0-9.]* 200' '$out/headers' && ! grep -qi 'multipart/byteranges' '$out/headers'"

# Connections per address: 20 stalled uploads from 127.0.0.20 fill its allowance (limit_conn
# counts a request once its head is read; these stall in their bodies).
/usr/bin/python3 "$here/hold_connections.py" --port "$nginx_https_port" --tls --mode slow-upload --count 20 \
  --first-source 127.0.0.20 --token "$beta" --ready "$out/held.ready" 2>"$out/held.log" &
helper_pid=$!
for _ in $(seq 1 100); do [ -f "$out/held.ready" ] && break; sleep 0.1; done
sleep 0.5
check "the 21st connection of one address is refused (429)" \
  test "$(request --interface 127.0.0.20 "$front/api/competition")" = 429
check "  ...with a JSON reason" grep -q "too many connections from your address" "$out/body"
check "  ...while another address is served" test "$(request --interface 127.0.0.21 "$front/api/competition")" = 200
stop_helper
# 40 uploads stalled mid-body from 4 addresses (more than the server's 32 request threads): nginx
# holds them; the server never sees them and keeps serving.
rm -f "$out/held.ready"
logged() { grep -c -- " $1 /api/submissions\$" "$out/nginx/access.log"; }  # upstream address -> count
reached_before=$(logged "127.0.0.1:$backend_port") unreached_before=$(logged -)
/usr/bin/python3 "$here/hold_connections.py" --port "$nginx_https_port" --tls --mode slow-upload --count 40 \
  --first-source 127.0.0.10 --per-source 10 --token "$beta" --ready "$out/held.ready" 2>"$out/held.log" &
helper_pid=$!
for _ in $(seq 1 100); do [ -f "$out/held.ready" ] && break; sleep 0.1; done
started=$(date +%s%N)
code=$(request --max-time 20 -H "Authorization: Bearer $alpha" --data-binary @"$out/valid.csv" "$front/api/submissions")
elapsed_ms=$(( ($(date +%s%N) - started) / 1000000 ))
check "with 40 uploads stalled mid-body, an upload is accepted (202)" test "$code" = 202
check "  ...at once (${elapsed_ms} ms < 3000)" test "$elapsed_ms" -lt 3000
stop_helper
sleep 0.3
check "  ...and the stalled ones never reached the server (logged without an upstream once they gave up)" \
  test "$(( $(logged "127.0.0.1:$backend_port") - reached_before )) $(( $(logged -) - unreached_before ))" = "1 40"
stop_server

# ---- the address the server rate-limits on ----
# --rate-limit 6: every address gets 60 API requests a minute (one a second), bursts of 15. So of
# 40 requests in S seconds at most 16 + S pass, whatever X-Forwarded-For each one claims.
start_server --rate-limit 6
started=$(date +%s)
for _ in $(seq 1 40); do
  curl -sk -o /dev/null -w '%{http_code}\n' --interface 127.0.0.30 -H "X-Forwarded-For: 10.0.$((RANDOM % 250)).$((RANDOM % 250))" "$front/api/competition"
done >"$out/spoofed"
allowed=$(( 16 + $(date +%s) - started + 1 ))
check "a client sending made-up X-Forwarded-For values is still rate-limited ($(grep -c 200 "$out/spoofed") of 40 passed, at most $allowed may)" \
  test "$(grep -c 200 "$out/spoofed")" -le "$allowed" -a "$(grep -c 429 "$out/spoofed")" -gt 0
check "  ...while another client behind the same nginx keeps its own allowance (200)" \
  test "$(request --interface 127.0.0.31 "$front/api/competition")" = 200
stop_server

# ---- competition backup while uploads continue ----
start_server --rate-limit 6000
/usr/bin/python3 - "$nginx_https_port" "$loader" "$out/valid.csv" "$out/acked" "$out/stop-uploads" <<'PY' &
import http.client, json, os, ssl, sys
port, token, submission, acked, stop = sys.argv[1:]
body = open(submission, "rb").read()
context = ssl._create_unverified_context()
with open(acked, "w") as log:
    while not os.path.exists(stop):
        connection = http.client.HTTPSConnection("127.0.0.1", int(port), context=context, timeout=30)
        connection.request("POST", "/api/submissions", body, {"Authorization": f"Bearer {token}"})
        answer = connection.getresponse()
        reply = answer.read()
        log.write(f"{answer.status} {json.loads(reply).get('id', '-') if answer.status == 202 else '-'}\n")
        log.flush()
        connection.close()
PY
helper_pid=$!
for _ in $(seq 1 100); do [ "$(grep -c '^202' "$out/acked" 2>/dev/null || true)" -ge 3 ] 2>/dev/null && break; sleep 0.1; done
awk '$1 == 202 {print $2}' "$out/acked" >"$out/acked-before-backup"
"$eval_tool" competition backup --db "$db" --out "$out/backup.sqlite" >"$out/backup.log" 2>&1
backup_status=$?
acked_at_backup_end=$(grep -c '^202' "$out/acked")
for _ in $(seq 1 100); do [ "$(grep -c '^202' "$out/acked")" -gt "$acked_at_backup_end" ] && break; sleep 0.1; done
touch "$out/stop-uploads"; wait "$helper_pid"; helper_pid=
echo "backup: $(wc -l <"$out/acked-before-backup") uploads answered before it, $(grep -c '^202' "$out/acked") in all"
check "competition backup while the server serves uploads (exit 0)" test "$backup_status" = 0 || cat "$out/backup.log"
check "  ...uploads went on being accepted around it, none refused" \
  /bin/bash -c "test \$(grep -c '^202' '$out/acked') -gt $acked_at_backup_end && ! grep -qv '^202' '$out/acked'"
check "  ...the copy opens with competition status" "$eval_tool" competition status --db "$out/backup.sqlite" >"$out/backup-status.txt" 2>&1
check "  ...and holds every upload answered before the backup started" /usr/bin/python3 -c "
import sqlite3
before = {int(line) for line in open('$out/acked-before-backup')}
stored = {r[0] for r in sqlite3.connect('file:$out/backup.sqlite?mode=ro', uri=True).execute('SELECT id FROM submissions')}
assert before and before <= stored, sorted(before - stored)"
# The worst case for a restore: the live server killed (its -wal file left beside the database).
kill -9 "$server_pid"; wait "$server_pid" 2>/dev/null; server_pid=
"$eval_tool" serve --db "$out/backup.sqlite" --port 0 >"$out/restored.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do restored=$(grep -o 'http://127.0.0.1:[0-9]*' "$out/restored.log" | head -1); [ -n "$restored" ] && break; sleep 0.1; done
check "serve runs on the backup" test "$(curl -s -o /dev/null -w '%{http_code}' "${restored:-http://127.0.0.1:1}/api/competition")" = 200
check "  ...with the uploads on its board" /bin/bash -c "curl -s '${restored:-http://127.0.0.1:1}/api/leaderboard' | grep -q loader"
stop_server
# docs/deploy.md's restore: the server stopped, the database moved aside WITH its -wal and -shm
# files (a stale -wal would be replayed into the copy), the copy put in its place, started again.
backed_up=$(/usr/bin/python3 -c "import sqlite3; print(sqlite3.connect('$out/backup.sqlite').execute(
  \"SELECT count(*) FROM submissions JOIN teams ON teams.id = team_id WHERE name = 'loader'\").fetchone()[0])")
mkdir "$out/replaced"
for file in "$db" "$db-wal" "$db-shm"; do [ -e "$file" ] && mv "$file" "$out/replaced/"; done
cp "$out/backup.sqlite" "$db"
start_server
check "the restore recipe: the server runs on the copy, behind nginx, with the $backed_up uploads it holds" \
  test "$(submissions_of "$loader")" = "$backed_up"
stop_server

# ---- hostile traffic through the front door (tests/hostile/serve_attacks.py) ----
start_server
/usr/bin/python3 "$repo/tests/hostile/serve_attacks.py" --url "$front" --pid "$server_pid" --token "$attacker" \
  --insecure --behind-proxy >"$out/attacks.log" 2>&1
attacks_status=$?
grep "^FAILED" "$out/attacks.log"
tail -5 "$out/attacks.log"
check "serve_attacks.py through nginx" test "$attacks_status" = 0
stop_server

# ---- the systemd units ----
if command -v systemd-analyze >/dev/null; then
  # verify checks that ExecStart's program exists: the units as installed, with this build's binary.
  mkdir -p "$out/units"
  for unit in graphcost-eval.service graphcost-backup.service graphcost-backup.timer; do
    sed "s|/usr/local/bin/graphcost-eval|$(readlink -f "$eval_tool")|" "$repo/deploy/$unit" >"$out/units/$unit"
  done
  systemd-analyze verify "$out/units/"* >"$out/verify.txt" 2>&1
  check "systemd-analyze verify accepts the units, without a warning" test "$?:$(cat "$out/verify.txt")" = "0:"
  cat "$out/verify.txt"
else
  echo "(no systemd-analyze: the unit files were not verified)"
fi
finish
