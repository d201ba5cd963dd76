#!/usr/bin/env bash
# Memory of a real `tenure serve` process (the binary users run, with its allocator) holding
# 100,000 leases, plus the watch fan-out to 1,000 watchers against it. The server gets a fresh
# data folder; the figures are its own VmRSS / VmHWM, without the benchmark's clients.
# Usage: bench/run_server_memory.sh [BUILD] [server_bench flags...]
set -euo pipefail
build=${1:-build}
data_dir=$(mktemp -d /tmp/tenure-bench-serve-XXXXXX)
port=$((24000 + RANDOM % 1000))
"$build/src/cli/tenure" serve --data-dir "$data_dir" --listen "127.0.0.1:$port" ${TENURE_SERVE_FLAGS:-} \
  > "$data_dir.log" 2>&1 &
server_pid=$!
trap 'kill $server_pid 2>/dev/null; wait $server_pid 2>/dev/null; rm -rf "$data_dir" "$data_dir.log"' EXIT
for _ in $(seq 200); do
  grep -q "listening on" "$data_dir.log" 2>/dev/null && break
  kill -0 $server_pid 2>/dev/null || { cat "$data_dir.log"; exit 1; }
  sleep 0.05
done
"$build/bench/server_bench" --data-dir "$data_dir" --port "$port" --server-pid "$server_pid" \
  --clients 1 --seconds 1 --watchers 1000 --leases 100000 "${@:2}"
