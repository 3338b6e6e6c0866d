#!/usr/bin/env bash
# The test command: go vet (for Linux and for Windows), every unit and end-to-end test, the same
# tests again as Windows binaries under Wine (.ci/wine), then a short run of each fuzz target.
# It prints each command it runs, one line per package as it finishes (with the output of what
# failed), one line per reason something was skipped, and a final count. The whole output of go
# is kept in test.log.
#
# The end-to-end scripts that run the real az, gh, kubectl, gcloud and terraform skip themselves,
# one line per missing CLI, unless CI=true, which requires them (.ci/run sets it). So does the
# Wine phase, which needs wine64 and x86_64-w64-mingw32-gcc (Debian: wine64, gcc-mingw-w64-x86-64).
set -uo pipefail
cd "$(dirname "$0")"

log=test.log
: >"$log"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/tally" ./internal/cmd/tally || exit 1

# The real-client suite (the agent clients themselves, run headless) gets a phase of its own.
clients=internal/client
fuzz=$(grep -rhoE '^func (Fuzz[A-Za-z0-9_]+)' --include='*_test.go' . | sed 's/^func //' | sort)
steps=4
[ -d "$clients" ] && steps=5

ci=false
case ${CI:-} in
true | TRUE | True | 1) ci=true ;;
esac
if $ci; then
  echo "./test.sh (CI=true: every real CLI the tests use, and Wine, must be installed)"
else
  echo "./test.sh (a real CLI that is not installed is skipped, and so is Wine; CI=true requires them)"
fi

step=0
phase() {
  step=$((step + 1))
  printf '\n[%d/%d] %s\n' "$step" "$steps" "$1"
}
show() {
  printf '$ %s\n' "$*"
  printf '$ %s\n' "$*" >>"$log"
}

phase "go vet"
vet=ok
for goos in "" windows; do
  show ${goos:+GOOS=$goos} go vet ./...
  if GOOS=${goos:-$(go env GOHOSTOS)} go vet ./... >"$work/vet.txt" 2>&1; then
    echo "  ok"
  else
    vet=fail
    sed 's/^/      /' "$work/vet.txt"
  fi
  cat "$work/vet.txt" >>"$log"
done

phase "unit and end-to-end tests"
if [ -d "$clients" ]; then
  pkgs=$(go list ./... | grep -v "/$clients\$")
  show go test -count=1 -json "\$(go list ./... | grep -v /$clients)"
else
  pkgs=./...
  show go test -count=1 -json ./...
fi
# shellcheck disable=SC2086 # one word per package
go test -count=1 -json $pkgs 2>&1 | "$work/tally" -log "$log" -events "$work/tests.json"

if [ -d "$clients" ]; then
  phase "the real agent clients"
  # A few minutes on 2 cores; on a loaded machine more than go test's default 10 min. Each
  # client run has its own timeout, so nothing hangs.
  show go test -count=1 -timeout=30m -json "./$clients/..."
  go test -count=1 -timeout=30m -json "./$clients/..." 2>&1 | "$work/tally" -log "$log" -events "$work/clients.json"
fi

phase "the same tests as Windows binaries, under Wine"
# Windows path rules, environment and file system (.ci/wine: a few minutes, the first run makes
# its Wine prefix).
checks=("go vet=$vet")
if [ -x "${CTXGUARD_WINE:-/usr/lib/wine/wine64}" ] && command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
  show .ci/wine --json
  .ci/wine --json 2>>"$log" | "$work/tally" -log "$log" -events "$work/wine.json"
  if [ "${PIPESTATUS[0]}" = 0 ]; then checks+=("Wine=ok"); else checks+=("Wine=fail"); fi
  # A package run again because Wine could not start a process (.ci/wine says why) is shown.
  grep '^\.ci/wine: .*running it again$' "$log" | sed 's/^/  again /' || true
elif $ci; then
  echo "  FAIL  wine64 or x86_64-w64-mingw32-gcc is not installed, and CI=true requires them"
  checks+=("Wine=fail")
else
  echo "  skip  wine64 or x86_64-w64-mingw32-gcc is not installed (.ci/run installs them; CI=true requires them)"
fi

phase "fuzz, 3 s per target: $(echo $fuzz)"
# fuzzrun runs $target of $pkg for 3 s, its events in fuzz-$n.json.
fuzzrun() {
  show go test -run='^$' -fuzz="^${target}\$" -fuzztime=3s "$pkg"
  go test -json -run='^$' -fuzz="^${target}\$" -fuzztime=3s "$pkg" 2>&1 |
    "$work/tally" -log "$log" -events "$work/fuzz-$n.json"
}
n=0
for target in $fuzz; do
  n=$((n + 1))
  pkg=./$(grep -rlE "^func ${target}\(" --include='*_test.go' . | head -1 | xargs dirname | sed 's|^\./||')
  # Go 1.26's fuzz coordinator can fail a target at the -fuzztime deadline with "context deadline
  # exceeded" and no failing input, on a loaded machine (https://go.dev/issue/75804, fixed in
  # Go 1.27). Such a run is made once more; an input that really fails was written to the
  # target's corpus and fails the second run too.
  if ! fuzzrun && grep -q 'context deadline exceeded' "$work/fuzz-$n.json"; then
    echo "  (that was Go's fuzz deadline race, go.dev/issue/75804, not a failing input: once more)"
    fuzzrun
  fi
done

printf '\n[summary] the whole output of go is in %s\n' "$log"
"$work/tally" -summary "${checks[@]/#/-check=}" "$work"/*.json
