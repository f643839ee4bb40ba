#!/usr/bin/env bash
# `graphcost-eval serve` under hostile traffic and careless set-ups, on a generated tree (no shared
# data needed): tests/hostile/serve_attacks.py against a live server (ranges, compressed and
# announced bodies, header floods, /app/ paths, pipelining, forged tokens, slow and crowding
# clients, peak RSS), and from the command line: team names that are invalid or look like another
# (D7), serve on an empty file, a second server on a hard link or symlink of the database (D5), and
# the database on a full file system (D4, D9; the worker's own recovery is tested in
# tests/test_competition_store.cpp, where a lock held by another process makes it fail on purpose).
# Usage: test_serve_attacks.sh GRAPHCOST GRAPHCOST_EVAL
set -u
graphcost=$1 eval_tool=$2
here=$(cd "$(dirname "$0")" && pwd)
source "$here/check.sh"
source "$here/serve_fixture.sh"
out=$(mktemp -d)
trap 'stop_server; umount "$out/small-disk" 2>/dev/null; rm -rf "$out"' EXIT

"$graphcost" gen --out "$out/tree" --graphs 20 --seed 6 --layout-configs 60 --quiet
new_competition() {  # database
  "$eval_tool" competition init --db "$1" --solution "$out/tree/solution_test.csv" --deadline 2099-12-31T23:59:59Z \
    --daily-cap 3 --finals 2 --title 'Serve attacks test' >/dev/null
}
db="$out/comp.sqlite"
new_competition "$db"
token() { team_token "$db" "$1"; }
attacker=$(token attacker)  # no submissions: serve_attacks.py never uploads
token alpha >/dev/null

start_server() {  # database, extra serve flags; sets $server_pid and $url
  local database=$1; shift
  launch_server --db "$database" "$@"
}

# ---- D7: team names ----
# Each name is tried once; the check's line shows the exit code and the start of the message.
team_add() {  # name; sets $added_status and $added_message
  "$eval_tool" competition team add --db "$db" "$1" >"$out/name.txt" 2>&1; added_status=$?
  # iconv -c drops invalid UTF-8 (the \xff name) so the log stays text
  added_message=$(head -c 150 "$out/name.txt" | tr '\n' ' ' | iconv -c -f UTF-8 -t UTF-8 2>/dev/null)
}
refused_naming_team_name() { [ "$added_status" -ne 0 ] && grep -qi "team name" "$out/name.txt"; }
expect_name_refused() {  # description name
  team_add "$2"
  check "$1 is refused, naming the team name (exit $added_status: $added_message)" refused_naming_team_name
}
expect_name_accepted() {  # description name
  team_add "$2"
  check "$1 is accepted (exit $added_status: $added_message)" test "$added_status" = 0
}
# Invisible and look-alike characters as bytes, so the test does not depend on the locale.
right_to_left_override=$(printf '\xe2\x80\xae') zero_width_space=$(printf '\xe2\x80\x8b')
fullwidth_alpha=$(printf '\xef\xbd\x81\xef\xbd\x8c\xef\xbd\x90\xef\xbd\x88\xef\xbd\x81')  # ａｌｐｈａ
expect_name_refused "a team name with invalid UTF-8 (\\xff)" "$(printf 'bad\xffname')"
expect_name_refused "a team name with U+202E (right-to-left override)" "evil${right_to_left_override}gpj.exe"
expect_name_refused "a team name with U+200B (zero-width space)" "al${zero_width_space}pha"
expect_name_refused "a team name with a trailing space" "beta "
expect_name_refused "a team name with a leading space" " beta"
expect_name_refused "a team name equal to 'alpha' after case folding (ALPHA)" "ALPHA"
expect_name_refused "a team name equal to 'alpha' after NFKC (fullwidth ａｌｐｈａ)" "$fullwidth_alpha"
expect_name_accepted "the team name 'Équipe 7'" "$(printf '\xc3\x89quipe 7')"
expect_name_accepted "the team name 'チーム'" "$(printf '\xe3\x83\x81\xe3\x83\xbc\xe3\x83\xa0')"

# ---- serve on an empty file: refused, and the file is not turned into a database ----
: >"$out/empty.sqlite"
timeout 10 "$eval_tool" serve --db "$out/empty.sqlite" --port 0 >"$out/empty.txt" 2>&1; status=$?
check "serve --db on a 0-byte file exits non-zero (exit $status; 124: still serving after 10 s)" \
  test "$status" -ne 0 -a "$status" -ne 124
check "  ...and leaves it 0 bytes ($(stat -c %s "$out/empty.sqlite") bytes)" test "$(stat -c %s "$out/empty.sqlite")" = 0

# ---- D5: one server per database, whatever path names it ----
locked="$out/locked.sqlite"
new_competition "$locked"
start_server "$locked"
# The links appear while it serves (a database with two names may be refused at open already).
ln "$locked" "$out/hard-link.sqlite"
ln -s "$locked" "$out/symlink.sqlite"
for link in hard-link symlink; do
  timeout 5 "$eval_tool" serve --db "$out/$link.sqlite" --port 0 >"$out/second.txt" 2>&1; status=$?
  check "a second serve on a $link of a served database is refused (exit $status; 124: still serving after 5 s)" \
    test "$status" -ne 0 -a "$status" -ne 124
done
stop_server

# ---- hostile traffic against a live server ----
mkdir -p "$out/app"
echo '<!doctype html><title>app</title><p>graph viewer stand-in' >"$out/app/index.html"
echo 'console.log("graph viewer stand-in");' >"$out/app/graphcost_app.js"
head -c 3000000 /dev/urandom >"$out/app/graphcost_app.data"  # the largest /app/ file: ranges over 3 MB
# ---- D4 and D9: the database on a full file system ----
# A 3 MiB tmpfs (mounting needs root: skipped, and said, without). Full: an upload is answered 503
# with an incident number and nothing else (no SQL, no path), the server keeps running, nothing is
# stored half; freed: uploads are accepted and scored again, nothing left in scoring.
"$eval_tool" baseline --data "$out/tree" --split test --strategy fewest-changes --out "$out/valid.csv" >/dev/null
disk="$out/small-disk"
mkdir -p "$disk"
if mount -t tmpfs -o size=3m tmpfs "$disk" 2>/dev/null; then
  new_competition "$disk/comp.sqlite"
  full_token=$(team_token "$disk/comp.sqlite" full)
  start_server "$disk/comp.sqlite"
  dd if=/dev/zero of="$disk/filler" bs=4k 2>/dev/null  # until the file system is full
  code=$(curl -s -o "$out/full.json" -w '%{http_code}' -H "Authorization: Bearer $full_token" --data-binary @"$out/valid.csv" "$url/api/submissions")
  check "an upload onto a full disk is answered 503 (got $code: $(head -c 160 "$out/full.json"))" test "$code" = 503
  check "  ...quoting an incident number, not SQL or the database's path" \
    /bin/bash -c "grep -q 'incident [0-9]' '$out/full.json' && ! grep -qiE 'sqlite|insert|select|$disk' '$out/full.json'"
  check "  ...which the server's log explains" grep -q "incident 1: POST /api/submissions: .*$disk" "$out/serve.log"
  check "  ...and the server keeps answering" test "$(curl -s -o /dev/null -w '%{http_code}' "$url/api/competition")" = 200
  rm -f "$disk/filler"
  code=$(curl -s -o "$out/freed.json" -w '%{http_code}' -H "Authorization: Bearer $full_token" --data-binary @"$out/valid.csv" "$url/api/submissions")
  check "once space is free again, an upload is accepted (got $code)" test "$code" = 202
  for _ in $(seq 1 100); do
    "$eval_tool" competition status --db "$disk/comp.sqlite" >"$out/full-status.txt" 2>&1
    grep -q "submissions  0 queued, 0 scoring, 1 scored" "$out/full-status.txt" && break
    sleep 0.1
  done
  check "  ...and scored, with nothing stored of the refused one ($(grep submissions "$out/full-status.txt"))" \
    grep -q "submissions  0 queued, 0 scoring, 1 scored, 0 failed" "$out/full-status.txt"
  stop_server
  umount "$disk"
else
  echo "skipped: the full-disk checks (mounting a small tmpfs needs root)"
fi

start_server "$db" --app "$out/app" --rate-limit 600
check "serve_attacks.py: the server withstands every attack (lines above)" \
  timeout 150 /usr/bin/python3 "$here/../hostile/serve_attacks.py" --url "$url" --pid "$server_pid" --token "$attacker"
stop_server
finish
