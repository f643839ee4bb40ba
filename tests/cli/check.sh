# Shared by the CLI test scripts: `check DESCRIPTION COMMAND...` counts a pass when COMMAND
# succeeds and prints FAILED otherwise; `finish` prints the closing "N passed, N failed" line and
# returns non-zero on any failure.
passed=0 failed=0
check() {
  local description=$1; shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $description"; fi
}
finish() {
  echo "$passed passed, $failed failed"
  test "$failed" -eq 0
}
