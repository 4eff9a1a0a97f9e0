#!/usr/bin/env bash
# Runs the whole suite N times (default 20), each run shuffled with a fresh seed, in a copy of
# the checkout made as CI makes it (scripts/copy-checkout.sh: a fresh `mktemp -d`, nothing
# beside it). One line per run: its seed, passed/failed counts, wall time and the load average;
# the failed tests' names and the run's full log are kept under the log directory. Replay a
# failed run with `TEST_SEED=<seed> npm test`.
#
#   scripts/test-loop.sh [runs] [log directory]
set -uo pipefail

# The whole script is one function, read before it runs: bash reads a script as it goes, so
# editing this file during a two-hour loop would otherwise change what the loop does next.
main() {
  local runs=${1:-20}
  cd "$(dirname "$0")/.."
  logs=$(realpath -m "${2:-.test-loop}")
  mkdir -p "$logs"
  commit=$(git rev-parse --short HEAD)
  # shellcheck source=copy-checkout.sh
  source scripts/copy-checkout.sh
  copy_checkout || { echo "could not copy the checkout to $work"; exit 1; }
  cd "$work" || exit 1
  npm ci --no-audit --no-fund >"$logs/npm-ci.log" 2>&1 || { echo "npm ci failed (see $logs/npm-ci.log)"; exit 1; }

  summary="$logs/summary.txt"
  echo "commit $commit, $runs shuffled runs, started $(date -u +%FT%TZ) in $work" | tee "$summary"
  ok=0
  start_all=$(date +%s)
  for i in $(seq 1 "$runs"); do
    seed=$(( (RANDOM << 15 | RANDOM) ))
    t0=$(date +%s)
    rm -f .vitest-results.json
    TEST_SEED=$seed CI=true npm test -- --reporter=default --reporter=json --outputFile=.vitest-results.json \
      >"$logs/run-$i.log" 2>&1
    line=$(node scripts/ci-summary.mjs .vitest-results.json)
    status=$?
    t1=$(date +%s)
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    printf 'run %2d  TEST_SEED=%-10s  %-22s  %4d s  load %s\n' "$i" "$seed" "$line" $((t1 - t0)) "$load" | tee -a "$summary"
    if [ $status -eq 0 ]; then
      ok=$((ok + 1))
    else
      node -e '
        const r = JSON.parse(require("fs").readFileSync(".vitest-results.json", "utf8"));
        for (const f of r.testResults) {
          if (f.status !== "passed" && !f.assertionResults.length) console.log("  file failed:", f.name, (f.message || "").slice(0, 300));
          for (const a of f.assertionResults) if (a.status === "failed") console.log("  failed:", f.name.replace(/.*\/test\//, "test/"), "›", a.fullName, "\n   ", (a.failureMessages[0] || "").split("\n")[0].slice(0, 300));
        }' 2>/dev/null | tee -a "$summary"
      cp .vitest-results.json "$logs/run-$i.json" 2>/dev/null
    fi
  done
  echo "$ok of $runs runs passed in $(( ($(date +%s) - start_all) / 60 )) min ($commit)" | tee -a "$summary"
  [ "$ok" -eq "$runs" ]
}
main "$@"
exit $?
