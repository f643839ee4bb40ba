# Sourced by tests/cli/test_front_door.sh and bench/serve_load.sh: runs the deployment's nginx site
# (deploy/nginx/graphcost.conf, unchanged but for its addresses) as a throwaway foreground nginx in a
# folder of its own, in front of a `graphcost-eval serve` on a loopback port.
#   nginx_start DIR BACKEND_PORT   a self-signed certificate (openssl) for 127.0.0.1, two free ports
#                                  (HTTP and HTTPS, on 127.0.0.1), DIR/nginx.conf = a minimal http
#                                  block that includes DIR/graphcost.conf; sets nginx_http_port,
#                                  nginx_https_port, nginx_pid; returns 1 (error log shown) on failure
#   nginx_stop                     stops it (fast shutdown) and waits for it
# The access log (DIR/access.log) has one line per request: "status upstream_address uri", where
# upstream_address is "-" when nginx answered without reaching the server.
# NGINX_WORKER_PROCESSES (default 1) sets worker_processes.

nginx_pid=
nginx_http_port=
nginx_https_port=
nginx_binary=$(command -v nginx || echo /usr/sbin/nginx)
nginx_site=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../deploy/nginx" && pwd)/graphcost.conf

nginx_start() {
  local dir=$1 backend_port=$2 ports
  if [ ! -x "$nginx_binary" ]; then
    echo "nginx_start: no nginx (apt-get install nginx; scripts/setup.sh installs it)"
    return 1
  fi
  mkdir -p "$dir/temp" "$dir/acme"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj /CN=127.0.0.1 -addext "subjectAltName=IP:127.0.0.1,DNS:competition.example.org" \
    -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>"$dir/openssl.log" || { cat "$dir/openssl.log"; return 1; }
  ports=$(/usr/bin/python3 -c "
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets: s.bind(('127.0.0.1', 0))
print(*(s.getsockname()[1] for s in sockets))")
  read -r nginx_http_port nginx_https_port <<<"$ports"
  # The site file as deployed, with its addresses replaced; each replacement must match exactly
  # once, so a changed deploy file fails here instead of being tested half-replaced.
  /usr/bin/python3 - "$nginx_site" "$dir/graphcost.conf" "$dir" "$nginx_http_port" "$nginx_https_port" "$backend_port" <<'PY' || return 1
import sys
site, out, folder, http_port, https_port, backend_port = sys.argv[1:]
text = open(site).read()
for old, new in [
    ("    listen [::]:80;\n", ""),
    ("    listen [::]:443 ssl http2;\n", ""),
    ("listen 80;", f"listen 127.0.0.1:{http_port};"),
    ("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;"),
    ("/etc/letsencrypt/live/competition.example.org/fullchain.pem", f"{folder}/cert.pem"),
    ("/etc/letsencrypt/live/competition.example.org/privkey.pem", f"{folder}/key.pem"),
    ("server 127.0.0.1:8000;", f"server 127.0.0.1:{backend_port};"),
    ("root /var/www/html;", f"root {folder}/acme;"),
]:
    if text.count(old) != 1:
        sys.exit(f"nginx_fixture: {site}: expected {old.strip()!r} once, found it {text.count(old)} times")
    text = text.replace(old, new)
open(out, "w").write(text)
PY
  local user_line=
  [ "$(id -u)" = 0 ] && user_line="user $(id -un) $(id -gn);"  # as root, workers would be nobody
  cat >"$dir/nginx.conf" <<EOF
# Written by tests/cli/nginx_fixture.sh: the part of /etc/nginx/nginx.conf the site needs.
$user_line
worker_processes ${NGINX_WORKER_PROCESSES:-1};
error_log $dir/error.log warn;
pid $dir/nginx.pid;
events { worker_connections 2048; }
http {
    log_format front_door '\$status \$upstream_addr \$request_uri';
    access_log $dir/access.log front_door;
    client_body_temp_path $dir/temp/body;
    proxy_temp_path $dir/temp/proxy;
    fastcgi_temp_path $dir/temp/fastcgi;
    uwsgi_temp_path $dir/temp/uwsgi;
    scgi_temp_path $dir/temp/scgi;
    include $dir/graphcost.conf;
}
EOF
  if ! "$nginx_binary" -t -q -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" 2>"$dir/nginx-t.log"; then
    echo "nginx_start: nginx -t refused the configuration:"; cat "$dir/nginx-t.log"; return 1
  fi
  "$nginx_binary" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" -g 'daemon off;' 2>"$dir/stderr.log" &
  nginx_pid=$!
  for _ in $(seq 1 100); do
    if ! kill -0 "$nginx_pid" 2>/dev/null; then
      echo "nginx_start: nginx stopped:"; cat "$dir/stderr.log" "$dir/error.log"; nginx_pid=; return 1
    fi
    [ "$(curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$nginx_https_port/")" != 000 ] && return 0
    sleep 0.1
  done
  echo "nginx_start: nginx did not answer on $nginx_https_port:"; cat "$dir/error.log"; nginx_stop; return 1
}

nginx_stop() {
  [ -n "$nginx_pid" ] && kill -TERM "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
  nginx_pid=
}
