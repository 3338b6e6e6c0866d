#!/usr/bin/env bash
# Whole-process timing of `ctxguard hook` against the floor (a Go binary that only reads stdin),
# on the same Claude Code payload, in one hyperfine run. The machine is internal/guard's
# testdata: a policy for all six built-in providers and each one's state.
#
#   internal/bench/hook.sh            # needs hyperfine (apt-get install hyperfine)
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/ctxguard" ./cmd/ctxguard
go build -o "$tmp/floor" ./internal/bench/floor
machine=$PWD/internal/guard/testdata/machine
payload() {
  printf '{"session_id":"bench","cwd":"%s/repo","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"%s","description":"bench","timeout":120000}}' "$machine" "$1"
}
payload 'az group list -o table' >"$tmp/one.json"
payload 'go test ./...' >"$tmp/none.json"
payload "$(for i in $(seq 1 999); do printf 'kubectl get pods -n team-a && '; done; printf 'kubectl get pods')" >"$tmp/thousand.json"
export HOME=$machine/home XDG_CONFIG_HOME=$machine/home/.config XDG_STATE_HOME=$tmp/state CTXGUARD_MANAGED_POLICY=$tmp/none.yaml
unset KUBECONFIG AZURE_CONFIG_DIR CLOUDSDK_CONFIG GH_CONFIG_DIR TF_WORKSPACE
hyperfine -N --warmup 20 --runs "${RUNS:-300}" --export-markdown "$tmp/table.md" \
  -n floor "$tmp/floor < $tmp/one.json" \
  -n 'hook: az call (policy, six providers)' "$tmp/ctxguard hook --harness claude < $tmp/one.json" \
  -n 'hook: no guarded call' "$tmp/ctxguard hook --harness claude < $tmp/none.json" \
  -n 'hook: 1000 kubectl calls' "$tmp/ctxguard hook --harness claude < $tmp/thousand.json" 2>&1 | sed 's/^/  /'
cat "$tmp/table.md"
