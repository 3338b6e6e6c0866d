#!/usr/bin/env bash
# The test command: every unit and end-to-end test, then a short run of each fuzz target.
set -euo pipefail
cd "$(dirname "$0")"
go test -count=1 ./...
for target in $(grep -rhoE '^func (Fuzz[A-Za-z0-9_]+)' --include='*_test.go' . | sed 's/^func //'); do
  pkg=$(grep -rlE "^func ${target}\(" --include='*_test.go' . | head -1 | xargs dirname)
  go test -run='^$' -fuzz="^${target}\$" -fuzztime=3s "$pkg"
done
