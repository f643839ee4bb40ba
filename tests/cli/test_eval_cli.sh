#!/usr/bin/env bash
# `graphcost-eval` end to end on the shared data: make-solution, baseline, score (exit codes 0/2/1,
# JSON), and a leaderboard.
# Usage: test_eval_cli.sh GRAPHCOST_EVAL_BINARY
set -u
eval_tool=$1
source "$(dirname "$0")/../skip_unless.sh"
data=$(shared_data_dir)
skip_unless_data "$data"
tree="$data/tpugraphs"
source "$(dirname "$0")/check.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT

"$eval_tool" make-solution --data "$tree" --split train,valid --seed 1 --out "$out/solution.csv" >/dev/null; status=$?
check "make-solution exits 0" test $status -eq 0
check "solution has 6 rows and a header" test "$(wc -l <"$out/solution.csv")" -eq 7

"$eval_tool" make-solution --data "$tree" --split test --out "$out/hidden.csv" >"$out/hidden.txt" 2>&1; status=$?
check "a solution of hidden runtimes is refused (exit 1)" test $status -eq 1
check "  ...saying why" grep -q "hidden runtimes" "$out/hidden.txt"

for strategy in first random fewest-changes; do
  "$eval_tool" baseline --data "$tree" --split train,valid --strategy $strategy --seed 3 --out "$out/$strategy.csv" >/dev/null
  "$eval_tool" score --solution "$out/solution.csv" --submission "$out/$strategy.csv" --json "$out/$strategy.json" >"$out/$strategy.txt"; status=$?
  check "baseline $strategy scores (exit 0)" test $status -eq 0
  check "  ...with a JSON report" /usr/bin/python3 -c "import json,sys; d=json.load(open('$out/$strategy.json')); sys.exit(0 if d['status']=='scored' and 'overall' in d['public'] else 1)"
done
"$eval_tool" score --solution "$tree" --split train,valid --seed 1 --submission "$out/first.csv" >"$out/tree.txt"; status=$?
check "an npz tree works as the solution" test $status -eq 0
check "  ...and scores the same as the solution file" diff -q "$out/tree.txt" "$out/first.txt"

"$eval_tool" score --solution "$out/solution.csv" --submission "$tree/sample_submission.csv" --json "$out/sample.json" >/dev/null 2>"$out/sample.txt"; status=$?
check "the official sample submission is invalid here (exit 2)" test $status -eq 2
check "  ...with line/column messages about unknown IDs" grep -q "sample_submission.csv:2:1: unknown ID 'tile:xla:" "$out/sample.txt"
check "  ...and a count" grep -q "and 875 more errors" "$out/sample.txt"
check "  ...and JSON errors" /usr/bin/python3 -c "import json,sys; d=json.load(open('$out/sample.json')); sys.exit(0 if d['status']=='invalid' and d['error_count']==895 else 1)"

"$eval_tool" score --solution "$out/missing.csv" --submission "$out/first.csv" >/dev/null 2>&1; status=$?
check "a missing solution is exit 1" test $status -eq 1
printf 'ID,Usage,Runtimes,Normalizers\nlayout:xla:default:x,Sometimes,1;2,\n' >"$out/bad_solution.csv"
"$eval_tool" score --solution "$out/bad_solution.csv" --submission "$out/first.csv" >/dev/null 2>"$out/bad.txt"; status=$?
check "a malformed solution is exit 1 naming line and field" bash -c "test $status -eq 1 && grep -q 'line 2, Usage' '$out/bad.txt'"

mkdir -p "$out/subs/team one" "$out/subs/team two"
cp "$out/first.csv" "$out/subs/team one/2023-11-01T10-00-00Z.csv"
cp "$out/random.csv" "$out/subs/team two/2023-11-01T11-00-00Z.csv"
cp "$tree/sample_submission.csv" "$out/subs/team two/2023-11-01T12-00-00Z.csv"
"$eval_tool" leaderboard --solution "$out/solution.csv" --submissions "$out/subs" --out "$out/board" >/dev/null; status=$?
check "leaderboard exits 0" test $status -eq 0
check "  ...and writes leaderboard.json with both teams" /usr/bin/python3 -c "
import json,sys; d=json.load(open('$out/board/leaderboard.json'))
sys.exit(0 if sorted(t['team'] for t in d['teams'])==['team one','team two'] and len(d['submissions'])==3 else 1)"
check "  ...and a detail file per scored submission" test -f "$out/board/details/1.json" -a -f "$out/board/details/2.json" -a ! -f "$out/board/details/3.json"

# The live competition's admin commands on the same solution and submissions.
db="$out/comp.sqlite"
"$eval_tool" competition init --db "$db" --solution "$out/solution.csv" --deadline 2099-12-31T23:59:59Z --title "cli test" >/dev/null; status=$?
check "competition init exits 0" test $status -eq 0
"$eval_tool" competition init --db "$db" --solution "$out/solution.csv" --deadline 2099-12-31T23:59:59Z >/dev/null 2>"$out/again.txt"; status=$?
check "  ...and refuses a second competition (exit 1)" bash -c "test $status -eq 1 && grep -q 'one is set already' '$out/again.txt'"
token=$("$eval_tool" competition team add --db "$db" "team one" | tail -1 | awk '{print $NF}')
check "team add prints the token as the last word" bash -c "[[ '$token' =~ ^gc_[0-9]+_[0-9a-f]{32}$ ]]"
"$eval_tool" competition team add --db "$db" "team one" >/dev/null 2>&1; status=$?
check "  ...and refuses a duplicate name (exit 1)" test $status -eq 1
"$eval_tool" competition team revoke --db "$db" "team one" >"$out/revoke.txt"; status=$?
check "team revoke revokes the token" bash -c "test $status -eq 0 && grep -q '1 token revoked' '$out/revoke.txt'"
"$eval_tool" competition status --db "$db" >"$out/status.txt"; status=$?
check "status shows the rules and teams" bash -c "test $status -eq 0 && grep -q 'teams        1 (0 active tokens)' '$out/status.txt' && grep -q '5 submissions per team' '$out/status.txt'"
"$eval_tool" competition export --db "$db" --out "$out/live" >/dev/null; status=$?
check "export writes an (empty) public board" bash -c "test $status -eq 0 && grep -q '\"board\": \"public\"' '$out/live/leaderboard.json'"
# What the board measures, and a reference board beside it.
printf '{"title": "Real files", "measures": "tau-b", "columns": [{"name": "unet3d", "metric": "tau"}], "rows": [{"team": "team one", "scores": [0.5]}]}' >"$out/reference.json"
"$eval_tool" competition about --db "$db" --text "The test split is simulated." --reference "$out/reference.json" >/dev/null; status=$?
check "about sets the line and the reference board" test $status -eq 0
"$eval_tool" competition export --db "$db" --out "$out/live" >/dev/null
check "  ...which the exported board carries" /usr/bin/python3 -c "
import json, sys; b = json.load(open('$out/live/leaderboard.json'))
sys.exit(0 if b['about'] == 'The test split is simulated.' and b['reference']['rows'][0]['scores'] == [0.5] else 1)"
"$eval_tool" competition status --db "$db" >"$out/status2.txt"
check "  ...and status shows" bash -c "grep -q 'about        The test split is simulated.' '$out/status2.txt' && grep -q \"reference    'Real files': 1 rows x 1 columns\" '$out/status2.txt'"
printf '{"title": "Real files", "measures": "tau-b", "columns": [{"name": "unet3d", "metric": "tau"}], "rows": [{"team": "x", "scores": [0.5, 1]}]}' >"$out/bad-reference.json"
"$eval_tool" competition about --db "$db" --reference "$out/bad-reference.json" >/dev/null 2>"$out/bad-reference.txt"; status=$?
check "a bad reference board is refused (exit 1) naming the file and field" bash -c "test $status -eq 1 && grep -q 'bad-reference.json: rows\[0\].scores: expected an array of 1 scores' '$out/bad-reference.txt'"
check "  ...and the stored one stays" bash -c "'$eval_tool' competition status --db '$db' | grep -q \"'Real files': 1 rows\""
"$eval_tool" competition about --db "$db" --no-reference >/dev/null
"$eval_tool" competition export --db "$db" --out "$out/live" >/dev/null
check "--no-reference removes it" /usr/bin/python3 -c "
import json, sys; sys.exit(0 if 'reference' not in json.load(open('$out/live/leaderboard.json')) else 1)"
"$eval_tool" competition about --db "$db" --reference "$out/reference.json" --no-reference >/dev/null 2>&1; status=$?
check "--reference with --no-reference is a usage error" test $status -ne 0
"$eval_tool" competition status --db "$out/nope.sqlite" >/dev/null 2>"$out/nodb.txt"; status=$?
check "a missing database is exit 1, by name" bash -c "test $status -eq 1 && grep -q 'nope.sqlite' '$out/nodb.txt'"

finish
