#!/usr/bin/env bash
# The house rules of docs/architecture.md, checked in seconds (scripts/test.sh runs this first):
#   format   every C/C++ file the project writes is as clang-format (Debian's 14, .clang-format) has it
#   sizes    no file over 600 lines, no function over 120 (scripts/check_sizes.py)
#   layers   each src/ module includes only earlier ones in architecture.md's order (check_layers.py)
#   history  no numbered session in the tree: docs and comments say what graphcost does now, and name
#            a commit, a date and a machine for a figure (the app's and server's sessions are not that)
#   defaults no command-line help writes a default by hand ("(default 10)"): the help shows the
#            options struct's value (CLI11's capture_default_str, add_named_option), so it cannot drift
# Usage: bash scripts/check_rules.sh [TREE]   (TREE defaults to this checkout; tests/cli/test_rules.sh
# runs it on a copy with one rule broken at a time and expects each failure)
set -uo pipefail
tree=$(cd "${1:-$(dirname "$0")/..}" && pwd)
scripts=$(cd "$(dirname "$0")" && pwd)
cd "$tree"
failed=()
# The files the project writes: tracked ones when TREE is a checkout, else every file under it.
project_files() {
  if git -C "$tree" rev-parse --is-inside-work-tree >/dev/null 2>&1 && [ "$(git -C "$tree" rev-parse --show-toplevel)" = "$tree" ]; then
    git -C "$tree" ls-files --cached --others --exclude-standard
  else
    find . -type f -not -path './third_party/*' -not -path './build/*' -not -path './node_modules/*' -not -path './.git/*' | sed 's|^\./||'
  fi
}
files=$(project_files | grep -v -E '^(third_party|build|node_modules)/' | while read -r f; do [ -f "$f" ] && echo "$f"; done)

if ! command -v clang-format >/dev/null; then
  echo "rules: clang-format is not installed (scripts/setup.sh installs Debian's clang-format)" >&2
  exit 2
fi
cxx=$(printf '%s\n' "$files" | grep -E '\.(cpp|h|cc|c|hpp)$' || true)
unformatted=$(printf '%s\n' "$cxx" | xargs -r -P2 -n 40 clang-format --dry-run 2>&1 | grep -oE '^[^:]+:[0-9]+:[0-9]+: warning' | cut -d: -f1 | sort | uniq -c)
if [ -n "$unformatted" ]; then
  echo "rules: files clang-format would change (run clang-format -i on them):"
  printf '%s\n' "$unformatted" | awk '{printf "  %s (%s places)\n", $2, $1}'
  failed+=(format)
else
  echo "rules: format ok ($(printf '%s\n' "$cxx" | wc -l) C/C++ files as clang-format $(clang-format --version | grep -oE '[0-9]+\.[0-9.]+' | head -1) has them)"
fi

if sizes=$(GRAPHCOST_TREE="$tree" python3 "$scripts/check_sizes.py" --top 0 2>&1); then
  echo "rules: sizes ok (no file over 600 lines, no function over 120)"
else
  printf '%s\n' "$sizes" | grep "over the limit" | sed 's/^/  /'
  failed+=(sizes)
fi

if layers=$(GRAPHCOST_TREE="$tree" python3 "$scripts/check_layers.py" 2>&1); then
  echo "rules: layers ok ($(printf '%s\n' "$layers" | head -1 | sed 's/^layers: //'))"
else
  printf '%s\n' "$layers" | grep -v "^layers:" | sed 's/^/  /'
  failed+=(layers)
fi

# The word "session" followed by a number is the project's history, not the project (the app's and
# the server's sessions are never numbered). The pattern below does not match itself.
history=$(printf '%s\n' "$files" | grep -v -E '\.(npz|png|jpg|wasm|gz|xz|ico)$' |
  xargs -r grep -n -i -E '\bsessions? [0-9]+' 2>/dev/null | cut -c1-160)
if [ -n "$history" ]; then
  echo "rules: \"session N\" names the project's history; say what it does now, or the commit and date:"
  printf '%s\n' "$history" | sed 's/^/  /'
  failed+=(history)
else
  echo "rules: history ok (no \"session N\")"
fi

# Option help in the two executables' command files: a number or word written as the default.
written=$(printf '%s\n' "$files" | grep -E '^(src/cli|evaluation)/.*\.cpp$' |
  xargs -r grep -n -E '\((default|defaults to) [-0-9A-Za-z.,]+[;)]' 2>/dev/null | cut -c1-160)
if [ -n "$written" ]; then
  echo "rules: option help that writes its default by hand (use ->capture_default_str(): the help then shows the struct's value):"
  printf '%s\n' "$written" | sed 's/^/  /'
  failed+=(defaults)
else
  echo "rules: defaults ok (option help shows the options structs' values)"
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "rules broken: ${failed[*]}"
  exit 1
fi
echo "rules: all kept"
