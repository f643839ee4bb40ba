# Sourced by the tests of `graphcost-eval serve` (test_serve.sh, test_serve_attacks.sh,
# test_front_door.sh): the server's process and the requests they all make. Expects $eval_tool
# and $out (the test's scratch folder).
#   launch_server SERVE_ARGS... `serve --port 0 SERVE_ARGS` in the background, logging to $out/serve.log;
#                               sets $server_pid and $url (exits the test when it does not start in 10 s)
#   stop_server                 SIGTERM, then SIGKILL after 10 s: a server left busy must not hang a test
#   team_token DB NAME          a new team's token (the last word `competition team add` prints)
#   request CURL_ARGS...        prints the status code; the body goes to $out/body ($curl_options too, e.g. -k)
#   json EXPR                   prints EXPR of the JSON body as d (python3)
#   wait_scored BASE TOKEN ID   prints the submission's final status (scored, failed), or "still <status>" after 10 s
server_pid=
curl_options=
launch_server() {
  # Emptied here, not by the background job's redirection (which may run after the loop below has
  # read the previous server's address from the old log: requests then went to a dead port)
  : >"$out/serve.log"
  "$eval_tool" serve --port 0 "$@" >>"$out/serve.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do
    url=$(grep -o 'http://127.0.0.1:[0-9]*' "$out/serve.log" | head -1)
    [ -n "$url" ] && return 0
    sleep 0.1
  done
  echo "serve did not start:"; cat "$out/serve.log"; exit 1
}
stop_server() {
  [ -n "$server_pid" ] || return 0
  kill "$server_pid" 2>/dev/null
  for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$server_pid" 2>/dev/null
  wait "$server_pid" 2>/dev/null
  server_pid=
}
team_token() { "$eval_tool" competition team add --db "$1" "$2" | awk '{print $NF}'; }
request() { curl -s $curl_options -o "$out/body" -w '%{http_code}' "$@"; }
json() { /usr/bin/python3 -c "import json,sys; d=json.load(open('$out/body')); print($1)"; }
wait_scored() {
  local base=$1 token=$2 id=$3 status=
  for _ in $(seq 1 100); do
    request -H "Authorization: Bearer $token" "$base/api/submissions/$id" >/dev/null
    status=$(json "d['status']")
    case $status in scored|failed) echo "$status"; return;; esac
    sleep 0.1
  done
  echo "still $status"
}
