#!/usr/bin/env bash
# `graphcost-eval serve` over HTTP with curl, on a generated tree (no shared data needed):
#   the API (upload -> 202 -> scored, equal to `graphcost-eval score`; errors with line/column;
#   own submissions only; final picks), the daily cap (also under 10 concurrent uploads), hostile
#   traffic (no/bad/revoked tokens, oversized and slow uploads, rate limits, paths out of /app/, the
#   solution never served, security headers), and kill -9: every answered upload survives, nothing
#   stays "scoring", each is scored once after the restart.
# Usage: test_serve.sh GRAPHCOST GRAPHCOST_EVAL
set -u
graphcost=$1 eval_tool=$2
source "$(dirname "$0")/check.sh"
source "$(dirname "$0")/serve_fixture.sh"
out=$(mktemp -d)
trap 'stop_server; rm -rf "$out"' EXIT

"$graphcost" gen --out "$out/tree" --graphs 20 --seed 6 --layout-configs 60 --quiet
"$eval_tool" baseline --data "$out/tree" --split test --strategy fewest-changes --out "$out/valid.csv" >/dev/null
printf 'ID,TopConfigs\nlayout:xla:random:nope,0\n' >"$out/invalid.csv"
db="$out/comp.sqlite"
"$eval_tool" competition init --db "$db" --solution "$out/tree/solution_test.csv" --deadline 2099-12-31T23:59:59Z \
  --daily-cap 3 --finals 1 --title 'Serve <script>alert(1)</script> test' >/dev/null
token() { team_token "$db" "$1"; }
alpha=$(token alpha) beta=$(token beta) gone=$(token gone) hostile=$(token '<img src=x onerror=alert(1)>')
"$eval_tool" competition team revoke --db "$db" gone >/dev/null
mkdir -p "$out/app" && echo "app file" >"$out/app/hello.txt"

start_server() { launch_server --db "$db" --app "$out/app" "$@"; }  # extra serve flags; sets $url

start_server --max-upload-mib 1 --timeout 2 --rate-limit 6000

# ---- the API ----
code=$(request -H "Authorization: Bearer $alpha" --data-binary @"$out/valid.csv" "$url/api/submissions")
check "a valid upload is accepted (202)" test "$code" = 202
id=$(json "d['id']")
check "  ...queued, with its row count" test "$(json "d['status'], d['rows']")" = "queued 5"
check "  ...and scored within 10 s" test "$(wait_scored "$url" "$alpha" "$id")" = scored
"$eval_tool" score --solution "$out/tree/solution_test.csv" --submission "$out/valid.csv" --json "$out/offline.json" >/dev/null
request -H "Authorization: Bearer $alpha" "$url/api/submissions/$id" >/dev/null
check "  ...to the public score that graphcost-eval score gives" /usr/bin/python3 -c "
import json; live = json.load(open('$out/body')); offline = json.load(open('$out/offline.json'))
assert abs(live['public'] - offline['public']['overall']) < 1e-12, (live, offline['public'])
assert 'private' not in live, 'private score before the deadline'"
code=$(request -H "Authorization: Bearer $alpha" --data-binary @"$out/invalid.csv" "$url/api/submissions")
check "an invalid upload is refused (400)" test "$code" = 400
check "  ...with line and column" test "$(json "d['errors'][0]['line'], d['errors'][0]['column']")" = "2 1"
check "  ...and the reason" grep -q "unknown ID 'layout:xla:random:nope'" "$out/body"
for _ in 1 2; do request -H "Authorization: Bearer $alpha" --data-binary @"$out/valid.csv" "$url/api/submissions" >/dev/null; done
code=$(request -H "Authorization: Bearer $alpha" --data-binary @"$out/valid.csv" "$url/api/submissions")
check "the 4th valid upload of a day is over the cap of 3 (429; the invalid one did not count)" test "$code" = 429
check "  ...saying so" grep -q "daily cap reached" "$out/body"
for i in $(seq 1 10); do
  curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $beta" --data-binary @"$out/valid.csv" "$url/api/submissions" >"$out/race.$i" &
done
wait_pids=$(jobs -p | grep -v "^$server_pid$"); wait $wait_pids
check "10 concurrent uploads against a cap of 3: exactly 3 accepted" test "$(cat "$out"/race.* | grep -c 202)" = 3
check "  ...and 7 refused by the cap" test "$(cat "$out"/race.* | grep -c 429)" = 7
request -H "Authorization: Bearer $beta" "$url/api/submissions" >/dev/null
beta_id=$(json "d['submissions'][0]['id']")
check "a team sees its own submissions only" test "$(json "len(d['submissions']), d['team']")" = "3 beta"
check "another team's submission is not found (404)" test "$(request -H "Authorization: Bearer $alpha" "$url/api/submissions/$beta_id")" = 404
check "a final pick of the team's own scored submission is saved" \
  test "$(request -X PUT -H "Authorization: Bearer $alpha" --data '{"submissions": ['"$id"']}' "$url/api/finals")" = 200
check "more picks than allowed are refused (400)" \
  test "$(request -X PUT -H "Authorization: Bearer $alpha" --data '{"submissions": ['"$id"', 2]}' "$url/api/finals")" = 400
check "another team's submission cannot be picked (400)" \
  test "$(request -X PUT -H "Authorization: Bearer $alpha" --data '{"submissions": ['"$beta_id"']}' "$url/api/finals")" = 400
check "a malformed picks body is refused (400)" test "$(request -X PUT -H "Authorization: Bearer $alpha" --data 'nope' "$url/api/finals")" = 400
/usr/bin/python3 -c "print('{\"submissions\": [' + '[' * 100000)" >"$out/deep.json"
check "a deeply nested picks body is refused (413)" test "$(request -X PUT -H "Authorization: Bearer $alpha" -H "Content-Type: application/json" --data-binary @"$out/deep.json" "$url/api/finals")" = 413
/usr/bin/python3 -c "print('{\"submissions\": [' + '[' * 2000 + ']' * 2000 + ']}')" >"$out/nested.json"
check "  ...and a nested one under the size limit (400)" test "$(request -X PUT -H "Authorization: Bearer $alpha" -H "Content-Type: application/json" --data-binary @"$out/nested.json" "$url/api/finals")" = 400
check "  ...(named by type, not echoed)" grep -q "got a JSON array" "$out/body"
check "the server is still up" test "$(request "$url/api/competition")" = 200
request "$url/api/leaderboard" >/dev/null
check "the live board ranks both teams, public scores only" /usr/bin/python3 -c "
import json; d = json.load(open('$out/body'))
assert d['board'] == 'public' and sorted(t['team'] for t in d['teams']) == ['alpha', 'beta'], d['teams']
assert all('private' not in s for s in d['submissions'])"
check "the per-graph details hold public graphs only" test "$(request "$url/data/details/$id.json")" = 200
check "  ...(no private board, no private graph)" /usr/bin/python3 -c "
import json; d = json.load(open('$out/body')); assert 'private' not in d and all(g['usage'] == 'Public' for g in d['graphs'])"

# ---- hostile traffic ----
check "no token: 401" test "$(request --data-binary @"$out/valid.csv" "$url/api/submissions")" = 401
check "a made-up token: 401" test "$(request -H "Authorization: Bearer gc_1_0123456789abcdef0123456789abcdef" --data-binary @"$out/valid.csv" "$url/api/submissions")" = 401
check "a revoked token: 401" test "$(request -H "Authorization: Bearer $gone" "$url/api/submissions")" = 401
head -c 3000000 /dev/zero | tr '\0' 'x' >"$out/big.csv"
check "an upload over --max-upload-mib: 413" test "$(request -H "Authorization: Bearer $hostile" --data-binary @"$out/big.csv" "$url/api/submissions")" = 413
check "  ...and one without a Content-Length (chunked) is refused before its body is read (411)" \
  test "$(request -H "Authorization: Bearer $hostile" -H "Transfer-Encoding: chunked" --data-binary @"$out/big.csv" "$url/api/submissions")" = 411
# An upload that waits for "100 Continue" and then takes longer than --timeout (2 s) in all, in
# pieces that each arrive within it: answered (here 400, an invalid file: nothing stored). The
# response's clock starts after the body, not at the interim "100 Continue".
check "an upload sent after '100 Continue', slower than --timeout in all, is answered" /usr/bin/python3 - "${url##*:}" "$hostile" <<'PY'
import socket, sys, time
port, token = int(sys.argv[1]), sys.argv[2]
body = b"ID,TopConfigs\n" + b"x" * 120000
connection = socket.create_connection(("127.0.0.1", port), timeout=10)
connection.sendall(f"POST /api/submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                   f"Expect: 100-continue\r\nContent-Length: {len(body)}\r\n\r\n".encode())
assert connection.recv(64).startswith(b"HTTP/1.1 100"), "no 100 Continue"
for start in range(0, len(body), 40000):
    connection.sendall(body[start:start + 40000])
    time.sleep(1.2)
answer = connection.recv(200)
assert answer.startswith(b"HTTP/1.1 400"), answer
PY
check "a path out of /app/ is not served" test "$(request --path-as-is "$url/app/../comp.sqlite")" = 404
check "  ...nor an encoded one" test "$(request --path-as-is "$url/app/%2e%2e/comp.sqlite")" = 404
check "/app/ serves its folder" test "$(request "$url/app/hello.txt")" = 200
for path in /comp.sqlite /solution_test.csv /data/solution.csv /api/solution; do
  check "nothing at $path" test "$(request "$url$path")" = 404
done
request "$url/api/ids" >/dev/null
check "the public ID list holds IDs and config counts, no usage, no runtime" /usr/bin/python3 -c "
rows = open('$out/body').read().split(); assert rows[0] == 'ID,Configs' and len(rows) == 6, rows
assert all(len(r.split(',')) == 2 for r in rows) and 'Public' not in ''.join(rows)"
request -D "$out/headers" "$url/" >/dev/null
check "pages carry a Content-Security-Policy" grep -qi "^content-security-policy: default-src 'self'" "$out/headers"
check "  ...and nosniff" grep -qi "^x-content-type-options: nosniff" "$out/headers"
request -D "$out/headers" -H "Authorization: Bearer $alpha" "$url/api/submissions" >/dev/null
check "API answers are application/json" grep -qi "^content-type: application/json" "$out/headers"
check "the title is served as JSON text, not markup" test "$(request "$url/api/competition")" = 200
check "  ...(a string in JSON)" grep -q '"title":"Serve <script>alert(1)</script> test"' "$out/body"
# A slow client: sends half its headers and stalls. --timeout 2 closes it; others are served meanwhile.
exec 3<>"/dev/tcp/127.0.0.1/${url##*:}"
printf 'POST /api/submissions HTTP/1.1\r\nHost: x\r\n' >&3
started=$(date +%s)
check "while a client stalls, others are served" test "$(request "$url/api/competition")" = 200
timeout 10 cat <&3 >/dev/null
check "the stalled connection is closed within the timeout (2 s, < 8 s measured)" test $(( $(date +%s) - started )) -lt 8
exec 3>&-
kill -TERM "$server_pid"; wait "$server_pid"; status=$?; server_pid=
check "SIGTERM stops the server cleanly (exit 0)" test "$status" = 0
check "  ...saying so" grep -q "SIGTERM received, stopping" "$out/serve.log"

start_server --rate-limit 60
check "a second server on the same database is refused" /bin/bash -c "! '$eval_tool' serve --db '$db' --port 0 >'$out/second.txt' 2>&1"
check "  ...saying why" grep -q "no other graphcost-eval serve is running on" "$out/second.txt"
for i in $(seq 1 40); do curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer ${alpha%_*}_00000000000000000000000000000000" "$url/api/submissions"; done >"$out/forged"
refused=$(grep -c 401 "$out/forged") limited=$(grep -c 429 "$out/forged")
check "forged tokens with alpha's token id are refused (401, then 429 past 15 at once per address: $refused, $limited)" \
  test $((refused + limited)) = 40 -a "$refused" -ge 15 -a "$refused" -le 22
check "  ...and do not use up alpha's rate limit" test "$(request -H "Authorization: Bearer $alpha" "$url/api/submissions")" = 200
for i in $(seq 1 40); do curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $alpha" "$url/api/submissions"; done >"$out/rate"
check "a token over --rate-limit 60 a minute gets 429 (15 allowed at once)" test "$(grep -c 429 "$out/rate")" -ge 20
check "  ...while another token is served" test "$(request -H "Authorization: Bearer $beta" "$url/api/submissions")" = 200
stop_server

# ---- after the deadline ----
"$eval_tool" competition init --db "$out/closed.sqlite" --solution "$out/tree/solution_test.csv" --deadline 2099-01-01T00:00:00Z >/dev/null
db="$out/closed.sqlite"
delta=$(token delta)
"$eval_tool" competition submit --db "$db" --team delta --file "$out/valid.csv" >/dev/null
# The deadline passes (the clock cannot be moved: the database's deadline is).
/usr/bin/python3 -c "import sqlite3; c = sqlite3.connect('$db'); c.execute(\"UPDATE competition SET deadline = '2020-01-01T00:00:00Z'\"); c.commit()"
"$eval_tool" competition submit --db "$db" --team delta --file "$out/valid.csv" >"$out/late.txt" 2>&1; status=$?
check "competition submit after the deadline is refused (exit 2)" test "$status" = 2
check "  ...saying when it closed" grep -q "closed at 2020-01-01T00:00:00Z" "$out/late.txt"
start_server
check "after the deadline an upload is refused (403)" test "$(request -H "Authorization: Bearer $delta" --data-binary @"$out/valid.csv" "$url/api/submissions")" = 403
check "  ...saying when it closed" grep -q "closed at 2020-01-01T00:00:00Z" "$out/body"
for _ in $(seq 1 50); do request "$url/api/leaderboard" >/dev/null; grep -q '"status":"scored"' "$out/body" && break; sleep 0.1; done
check "the board is the private one, with private scores" /usr/bin/python3 -c "
import json; d = json.load(open('$out/body')); assert d['board'] == 'private' and 'private' in d['submissions'][0], d"
check "a team sees its private score" test "$(request -H "Authorization: Bearer $delta" "$url/api/submissions")" = 200
check "  ...(in its list)" /usr/bin/python3 -c "import json; d = json.load(open('$out/body')); assert 'private' in d['submissions'][0], d"
check "final picks are fixed (403)" test "$(request -X PUT -H "Authorization: Bearer $delta" --data '{"submissions": [1]}' "$url/api/finals")" = 403
stop_server

# ---- kill -9 ----
# A solution big enough that the worker is still busy when the server is killed (80 layout graphs
# of 4,000 configs: ~0.1 s to score each upload), written directly (runtimes need no simulator).
/usr/bin/python3 - "$out" <<'PY'
import random, sys
out = sys.argv[1]; rng = random.Random(3)
with open(f"{out}/big_solution.csv", "w") as solution, open(f"{out}/big.csv", "w") as submission:
    solution.write("ID,Usage,Runtimes,Normalizers\n"); submission.write("ID,TopConfigs\n")
    for g in range(80):
        graph = f"layout:xla:random:{g:032x}"
        solution.write(f"{graph},{'Public' if g % 2 else 'Private'},{';'.join(str(rng.randrange(1, 10**9)) for _ in range(4000))},\n")
        order = list(range(4000)); rng.shuffle(order)
        submission.write(f"{graph},{';'.join(map(str, order))}\n")
PY
"$eval_tool" competition init --db "$out/kill.sqlite" --solution "$out/big_solution.csv" --deadline 2099-12-31T23:59:59Z \
  --daily-cap 1000 >/dev/null
db="$out/kill.sqlite"
gamma=$(token gamma)
start_server --rate-limit 100000
for i in $(seq 1 30); do
  curl -s -o "$out/kill.$i" -w '%{http_code}\n' -H "Authorization: Bearer $gamma" --data-binary @"$out/big.csv" "$url/api/submissions" >"$out/kill.$i.code" &
done
# The kill comes once 5 uploads were answered, while the others are still being sent or checked
# (how long that takes depends on the build: the sanitizer build is several times slower).
for _ in $(seq 1 600); do
  [ "$(cat "$out"/kill.*.code 2>/dev/null | grep -c 202)" -ge 5 ] && break
  sleep 0.05
done
kill -9 "$server_pid"
wait 2>/dev/null
server_pid=
accepted=$(cat "$out"/kill.*.code | grep -c 202)
"$eval_tool" competition status --db "$db" >"$out/status.killed"
echo "after kill -9: $accepted uploads answered 202; $(grep submissions "$out/status.killed")"
check "the kill came while submissions waited or were being scored" /usr/bin/python3 -c "
import sqlite3; c = sqlite3.connect('$db')
assert c.execute(\"SELECT count(*) FROM submissions WHERE status IN ('queued', 'scoring')\").fetchone()[0] > 0"
# An answer is a 202 with its JSON body: a kill between the status line and the body leaves curl a
# 202 and no body file (no id to look up; the row was committed before the answer began either way).
check "every upload answered 202 before the kill is stored" /usr/bin/python3 -c "
import glob, json, os, sqlite3
def answer(code_file):
    body = code_file[:-5]
    try:
        return json.load(open(body))['id'] if open(code_file).read().strip() == '202' and os.path.exists(body) else None
    except ValueError:
        return None
ids = [i for i in map(answer, glob.glob('$out/kill.*.code')) if i is not None]
stored = {r[0] for r in sqlite3.connect('$db').execute('SELECT id FROM submissions')}
missing = [i for i in ids if i not in stored]; assert not missing, missing"
# Kill again the moment the worker has claimed a submission (a watcher polls the database every
# millisecond; scoring one takes ~30 ms), until a kill leaves one "scoring" (up to 6 tries).
# Every attempt has at least 3 submissions to score: once the first restarts had scored all that
# was queued, later attempts found nothing to catch (a flake on a loaded machine).
caught=0
for attempt in 1 2 3 4 5 6; do
  queued=$(/usr/bin/python3 -c "import sqlite3; print(sqlite3.connect('$db').execute(\"SELECT count(*) FROM submissions WHERE status = 'queued'\").fetchone()[0])")
  for _ in $(seq "$queued" 2); do "$eval_tool" competition submit --db "$db" --team gamma --file "$out/big.csv" >/dev/null; done
  start_server --rate-limit 100000
  /usr/bin/python3 - "$db" "$server_pid" <<'PY'
import os, signal, sqlite3, sys, time
db, pid = sys.argv[1], int(sys.argv[2])
connection = sqlite3.connect(db)
deadline = time.time() + 10
while time.time() < deadline:
    if connection.execute("SELECT count(*) FROM submissions WHERE status = 'scoring'").fetchone()[0]:
        break
    time.sleep(0.001)
os.kill(pid, signal.SIGKILL)
PY
  wait "$server_pid" 2>/dev/null; server_pid=
  [ "$(/usr/bin/python3 -c "import sqlite3; print(sqlite3.connect('$db').execute(\"SELECT count(*) FROM submissions WHERE status = 'scoring'\").fetchone()[0])")" = 1 ] && { caught=$attempt; break; }
done
echo "kill -9 number $caught after the first left a submission being scored"
check "a kill -9 caught a submission mid-scoring" test "$caught" -gt 0
start_server --rate-limit 100000
# The worker's first step says so (within a second or two under the sanitizers).
for _ in $(seq 1 100); do grep -q "queued again" "$out/serve.log" && break; sleep 0.1; done
check "the restarted server put it back in the queue" grep -q "1 submission left in scoring (a stopped server, or a failed store): queued again" "$out/serve.log"
for _ in $(seq 1 300); do
  "$eval_tool" competition status --db "$db" >"$out/status" 2>/dev/null
  grep -q "submissions  0 queued, 0 scoring" "$out/status" && break
  sleep 0.1
done
check "after the restart nothing is queued or stuck scoring" grep -q "submissions  0 queued, 0 scoring" "$out/status"
check "  ...every stored submission is scored once" /usr/bin/python3 -c "
import sqlite3; c = sqlite3.connect('$db')
subs = c.execute(\"SELECT count(*), sum(status = 'scored') FROM submissions\").fetchone()
scores = c.execute('SELECT count(*), count(DISTINCT submission_id) FROM scores').fetchone()
assert subs[0] == subs[1] == scores[0] == scores[1] and subs[0] >= $accepted, (subs, scores)"
stop_server
finish
