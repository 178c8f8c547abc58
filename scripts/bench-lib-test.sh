#!/usr/bin/env bash
# Checks bench-lib.sh's helpers that read other tools' output (no server,
# no root): run scripts/bench-lib-test.sh; it prints "ok" or what failed
# and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
check() { # check WHAT GOT WANT
  if [[ $2 != "$3" ]]; then
    echo "$1: got '$2', want '$3'"
    fail=1
  fi
}

# GNU time -o writes a line before its format when the command exits
# non-zero: the figures are on the last line either way.
printf '1.50 0.25 3.00\n' > "$dir/ok.time"
printf 'Command exited with non-zero status 1\n1.50 0.25 3.00\n' > "$dir/failed.time"
check "time_figures, exit 0" "$(time_figures "$dir/ok.time")" "1.50 0.25 3.00"
check "time_figures, exit 1" "$(time_figures "$dir/failed.time")" "1.50 0.25 3.00"
# The same through /usr/bin/time itself, when installed.
if [[ -x /usr/bin/time ]]; then
  /usr/bin/time -f "%e" -o "$dir/real.time" sh -c 'exit 3' || true
  got=$(time_figures "$dir/real.time")
  [[ $got =~ ^[0-9]+\.[0-9]+$ ]] || { echo "time_figures of a real exit 3: got '$got', want seconds"; fail=1; }
fi

((fail == 0)) && echo ok
exit "$fail"
