#!/usr/bin/env bash
# Runs the server benchmark side by side with etcd (Debian's etcd-server, fsync on, data in a
# temporary folder on the same disk): tenure's lease updates and raw etcd compare-and-swap over
# gRPC. Usage: bench/run_server_bench.sh [BUILD] [server_bench flags...]; with `--store etcd`
# the benchmark's servers use this etcd too (server_bench --store etcd alone starts its own).
set -euo pipefail
build=${1:-build}
etcd_dir=$(mktemp -d /tmp/tenure-bench-etcd-XXXXXX)
port=$((23000 + RANDOM % 1000))
etcd --name bench --data-dir "$etcd_dir" \
  --listen-client-urls "http://127.0.0.1:$port" --advertise-client-urls "http://127.0.0.1:$port" \
  --listen-peer-urls "http://127.0.0.1:$((port + 1))" \
  --initial-advertise-peer-urls "http://127.0.0.1:$((port + 1))" \
  --initial-cluster "bench=http://127.0.0.1:$((port + 1))" \
  --initial-cluster-token "bench-$$-$RANDOM" > "$etcd_dir.log" 2>&1 &
etcd_pid=$!
trap 'kill $etcd_pid 2>/dev/null; wait $etcd_pid 2>/dev/null; rm -rf "$etcd_dir" "$etcd_dir.log"' EXIT
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/health" > /dev/null && break
  sleep 0.1
done
"$build/bench/server_bench" --etcd-port "$port" "${@:2}"
