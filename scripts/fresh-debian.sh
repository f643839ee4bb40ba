#!/usr/bin/env bash
# Runs a command in a clean Debian bookworm root, the way a newcomer meets the project:
#   scripts/fresh-debian.sh [--keep] 'COMMAND'
# 1. A minbase root made by debootstrap (ca-certificates, git and sudo added: what a newcomer needs
#    to clone), cached as a tarball, with only the machine's own Debian apt sources copied in.
# 2. A git clone of this checkout's HEAD (commit first: uncommitted changes are not carried) at
#    /work/<name> in the root, with ../shared bind-mounted read-only beside it, as on a developer's
#    machine.
# 3. /proc, /sys and /dev mounted for the chroot; apt's downloaded archives bind-mounted from the
#    cache so a second run does not download them again.
# 4. COMMAND run by bash in the clone, as root, with a clean environment (only CI and TERM kept).
# Every mount is taken down and every process left in the root is ended on exit, also on failure or
# Ctrl-C; the root is then deleted (--keep leaves it, unmounted, and prints its path).
#
# Carried in from this machine, because without them nothing reaches the registries here: the apt
# "Acquire" settings (proxies, date checks of a snapshot mirror's Release files) and the npm
# client's settings (its system and user npmrc, with the CA file they name).
#
# Environment: GRAPHCOST_FRESH_CACHE (default /var/cache/graphcost-fresh-debian) holds the root
# tarball and apt's archives; GRAPHCOST_FRESH_TMP (default /var/tmp) is where roots are made.
# Exit status: COMMAND's; 2 for a usage error; 1 when the root cannot be made.
set -euo pipefail

usage() { echo "usage: scripts/fresh-debian.sh [--keep] 'COMMAND'" >&2; exit 2; }
keep=0
command_text=
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=1 ;;
    -h|--help) usage ;;
    -*) echo "fresh-debian: unknown option $1" >&2; usage ;;
    *) [ -z "$command_text" ] || usage; command_text=$1 ;;
  esac
  shift
done
[ -n "$command_text" ] || usage
if [ "$(id -u)" != 0 ]; then
  exec sudo --preserve-env=CI,TERM,GRAPHCOST_FRESH_CACHE,GRAPHCOST_FRESH_TMP "$0" "$@" \
    $([ "$keep" = 1 ] && echo --keep) "$command_text"
fi

repo=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "$repo/.." && pwd)/shared
cache=${GRAPHCOST_FRESH_CACHE:-/var/cache/graphcost-fresh-debian}
suite=bookworm
include=ca-certificates,git,sudo
started=$(date +%s)
say() { echo "[fresh-debian $(( $(date +%s) - started ))s] $*"; }
die() { echo "fresh-debian: $*" >&2; exit 1; }

[ -d "$shared" ] || die "no $shared beside the checkout: the tests read ../shared/data"
git -C "$repo" rev-parse --verify -q HEAD >/dev/null || die "$repo has no commit to clone"
if ! command -v debootstrap >/dev/null; then
  say "installing debootstrap on this machine"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

# --- The machine's Debian sources: the stock entries only (no third-party repositories). ---
stock_sources=()
[ -f /etc/apt/sources.list.d/debian.sources ] && stock_sources+=(/etc/apt/sources.list.d/debian.sources)
[ -f /etc/apt/sources.list ] && grep -Eq '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list && stock_sources+=(/etc/apt/sources.list)
[ ${#stock_sources[@]} -gt 0 ] || die "no Debian apt sources found (/etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list)"
# debootstrap's mirror: the first URI of an entry that carries the suite itself.
mirror=$(awk -v suite="$suite" '
  FNR == 1 { uris = ""; suites = "" }
  /^[[:space:]]*$/ { if (uris != "" && (" " suites " ") ~ (" " suite " ")) { print uris; exit } uris = ""; suites = ""; next }
  /^URIs:/ { uris = $2 } /^Suites:/ { $1 = ""; suites = $0 }
  /^[[:space:]]*deb[[:space:]]/ { n = 2; if ($2 ~ /^\[/) { while ($n !~ /\]$/) n++; n++ } if ($(n + 1) == suite) { print $n; exit } }
  END { if (uris != "" && (" " suites " ") ~ (" " suite " ")) print uris }' "${stock_sources[@]}" | head -1)
[ -n "$mirror" ] || die "no apt source carries the suite $suite"

# --- The root tarball, made once per mirror, suite and package list. ---
mkdir -p "$cache/apt-archives/partial"
key=$(printf '%s %s %s' "$mirror" "$suite" "$include" | sha256sum | cut -c1-12)
tarball="$cache/$suite-minbase-$key.tar.gz"
if [ ! -f "$tarball" ]; then
  say "making a $suite minbase root with debootstrap from $mirror (cached as $tarball)"
  build=$(mktemp -d "${GRAPHCOST_FRESH_TMP:-/var/tmp}/graphcost-debootstrap.XXXXXX")
  if ! debootstrap --variant=minbase --include="$include" --cache-dir="$cache/apt-archives" \
      "$suite" "$build" "$mirror" > "$build.log" 2>&1; then
    tail -20 "$build.log" >&2; rm -rf --one-file-system "$build"; die "debootstrap failed (log above)"
  fi
  rm -f "$build.log"
  tar -C "$build" -czf "$tarball.partial" . && mv "$tarball.partial" "$tarball"
  rm -rf --one-file-system "$build"
fi

root=$(mktemp -d "${GRAPHCOST_FRESH_TMP:-/var/tmp}/graphcost-fresh.XXXXXX")
mounted=()   # mount points inside the root, in mount order
mount_in() {  # mount ARGS... TARGET: mounts and records TARGET for the cleanup
  local target=${*: -1}
  mount "$@"
  mounted+=("$target")
}
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  # End every process whose root is this root (servers, browsers, Xvfb left by COMMAND).
  local pid round
  for round in TERM TERM KILL; do
    local found=0
    for pid in $(ls /proc | grep -E '^[0-9]+$'); do
      [ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$root" ] || continue
      kill -s "$round" "$pid" 2>/dev/null && found=1
    done
    [ "$found" = 1 ] || break
    sleep 1
  done
  local i
  for (( i = ${#mounted[@]} - 1; i >= 0; i-- )); do
    umount -R "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}" 2>/dev/null || true
  done
  if grep -q " $root/" /proc/self/mountinfo; then
    echo "fresh-debian: mounts remain under $root; not deleting it:" >&2
    grep " $root/" /proc/self/mountinfo | awk '{print "  " $5}' >&2
  elif [ "$keep" = 1 ]; then
    echo "fresh-debian: kept the root at $root (unmounted)"
  else
    rm -rf --one-file-system "$root"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

say "unpacking the root into $root"
tar -C "$root" -xzf "$tarball"
chmod 755 "$root"   # mktemp's 0700 (also in the tarball's ".") would keep apt's _apt user out

# Apt: the stock sources, this machine's Acquire settings, the archive cache.
rm -f "$root"/etc/apt/sources.list "$root"/etc/apt/sources.list.d/*
for file in "${stock_sources[@]}"; do cp "$file" "$root$file"; done
apt-config dump | grep -E '^Acquire::(https?|ftp|socks|Check-Valid-Until|Check-Date|Retries)' \
  > "$root/etc/apt/apt.conf.d/90host-acquire" || true
# The root is thrown away after the run, so dpkg need not fsync every file it unpacks (a newcomer's
# dpkg does; this only changes how long the install takes, not what it installs).
echo force-unsafe-io > "$root/etc/dpkg/dpkg.cfg.d/90graphcost-fresh-unsafe-io"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp /etc/hosts "$root/etc/hosts"
mount_in --bind "$cache/apt-archives" "$root/var/cache/apt/archives"

# Npm: this machine's system and user settings, with any CA file they name copied in.
carry_npmrc() {  # source file, destination inside the root
  local source=$1 destination=$2
  [ -f "$source" ] || return 0
  mkdir -p "$(dirname "$root$destination")" "$root/etc/graphcost-host"
  local line name value
  while IFS= read -r line || [ -n "$line" ]; do
    name=${line%%=*}; name=${name//[[:space:]]/}; value=${line#*=}; value=${value#"${value%%[![:space:]]*}"}
    if [ "$name" = cafile ] && [ -f "$value" ]; then
      cp "$value" "$root/etc/graphcost-host/npm-ca.crt"
      line="cafile=/etc/graphcost-host/npm-ca.crt"
    fi
    printf '%s\n' "$line"
  done < "$source" > "$root$destination"
}
if command -v npm >/dev/null; then
  carry_npmrc "$(npm config get globalconfig 2>/dev/null)" /etc/npmrc
  carry_npmrc "$(npm config get userconfig 2>/dev/null)" /root/.npmrc
fi

# The checkout (a clone of HEAD) and shared/ beside it.
name=$(basename "$repo")
mkdir -p "$root/work/shared"
git clone -q "$repo" "$root/work/$name"
say "cloned $(git -C "$root/work/$name" log -1 --format='%h %s' | cut -c1-80)"
mount_in --bind "$shared" "$root/work/shared"
mount -o remount,bind,ro "$root/work/shared"

mount_in -t proc proc "$root/proc"
mount_in --rbind /sys "$root/sys"; mount --make-rslave "$root/sys"
mount_in --rbind /dev "$root/dev"; mount --make-rslave "$root/dev"

say "running in the root: $command_text"
set +e
chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" CI="${CI:-}" \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  bash -c 'cd "$1" && eval "$2"' fresh-debian "/work/$name" "$command_text"
status=$?
set -e
say "command exited with $status"
exit "$status"
