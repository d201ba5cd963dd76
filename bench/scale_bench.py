#!/usr/bin/python3
"""Scale benchmark: N elections with 2 candidates each against one `tenure serve`, and the mass
failover of a process that leads many leases. Figures go to docs/performance.md ("Scale").

For each N in --elections, on each store in --stores (a fresh server each time):
  - side a: --processes candidate processes (bench/scale_candidates), splitting the N Leases
    between them; they all lead; then side b: as many processes on the same Leases, following;
  - after --warmup seconds, a --seconds long window: the server's CPU and RSS, memory per lease
    (RSS growth from the empty server), renewal latency p50/p99/max (every process's window
    histogram merged), terms lost (must be 0), requests/s, watch events/s the server sent, and the
    candidates' CPU and RSS per elector.
Then, with --failover M: one process leads M Leases, another follows; the leader is killed with
SIGKILL; each Lease's delay from its last renewal (its renewTime, read after the kill) to the
follower leading, and the server's CPU during the surge.

Every run appends one JSON object per line to --out; bench/plot_scale.py draws them.
  bench/scale_bench.py [--build build] [--stores sqlite,etcd] [--elections 1000,5000,20000]
                       [--processes 2] [--warmup 20] [--seconds 60] [--failover 5000]
                       [--watch-scope namespace|group] [--out scale-results.jsonl]
With --watch-scope group, the Leases of each range carry a label of their own and the two
processes of that range watch only them (KubeLockOptions::labels).
Run it with the build lock held (no build on the machine meanwhile). A run of N electors per
side needs about 2.2 N threads in all: kernel.pid_max must allow it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "integration"))

from tenure_testlib import EtcdCluster, Server, lease_path  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")
NAMESPACE = "default"
GROUP_LABEL = "tenure-scale/group"
PREFIX = "scale"
JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime


def rss_kib(pid: int, field: str = "VmRSS:") -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith(field):
                return int(line.split()[1])
    return 0


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


class Candidates:
    """One scale_candidates process and what it printed."""

    def __init__(self, binary: str, kubeconfig: str, identity: str, first: int, count: int,
                 args, group: str = ""):
        self.identity, self.first, self.count = identity, first, count
        # 0 leaves the library's default (and works with binaries older than the flag)
        extra = ["--connections", str(args.connections)] if args.connections else []
        if args.pool_threads:
            extra += ["--pool-threads", str(args.pool_threads)]
        malloc = args.candidate_malloc
        if group:
            # The Leases of this range carry the label, and the process watches only those.
            extra += ["--label", f"{GROUP_LABEL}={group}"]
        env = dict(os.environ)
        if malloc == "jemalloc":
            # The library never picks its users' allocator; a process with thousands of electors
            # may (docs/performance.md, "Round 6").
            env["LD_PRELOAD"] = JEMALLOC
        self.proc = subprocess.Popen(
            [binary, "--kubeconfig", kubeconfig, "--namespace", NAMESPACE, "--prefix", PREFIX,
             "--first", str(first), "--count", str(count), "--identity", identity] + extra,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=sys.stderr, env=env)
        self.report: dict = {}
        self.last: dict | None = None
        self.terms: dict[int, int] = {}  # lease -> unix ms of this process's latest term start
        self.lost: list[tuple[int, int]] = []
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            msg = json.loads(raw)
            with self._lock:
                if msg["type"] == "report":
                    self.report = msg
                    if msg["last"]:
                        self.last = msg
                elif msg["type"] == "term":
                    self.terms[msg["lease"]] = msg["unix_ms"]
                elif msg["type"] == "lost":
                    self.lost.append((msg["lease"], msg["unix_ms"]))

    def get(self, key: str, default=0):
        with self._lock:
            return self.report.get(key, default)

    def snapshot(self) -> dict:
        with self._lock:
            return dict(self.report)

    def open_window(self) -> None:
        self.proc.send_signal(signal.SIGUSR1)

    def finish(self, timeout: float = 30) -> dict:
        """SIGTERM; the last report (with the window's histogram)."""
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=timeout)
        self._reader.join(timeout=timeout)
        return self.last or {}

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def wait_for(cond, timeout: float, what: str, progress=None, interval: float = 0.2) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            got = f" ({progress()})" if progress else ""
            raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}{got}")
        time.sleep(interval)


def bucket_upper_ms(b: int) -> float:
    # scale_candidates' LatencyHistogram: bucket b holds 10 us * 1.02^b .. 10 us * 1.02^(b+1).
    return 10.0 * 1.02 ** (b + 1) / 1000.0


def merged_quantiles(reports: list[dict]) -> tuple[int, float, float]:
    counts: dict[int, int] = {}
    for r in reports:
        for b, c in r.get("window", []):
            counts[b] = counts.get(b, 0) + c
    n = sum(counts.values())

    def q(p: float) -> float:
        rank, seen = math.ceil(p * n), 0
        for b in sorted(counts):
            seen += counts[b]
            if seen >= rank:
                return bucket_upper_ms(b)
        return 0.0

    return n, q(0.5), q(0.99)


def metric(text: str, name: str) -> float:
    """The sum of a metric family's samples in a /metrics text (0 when absent)."""
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name) and (len(line) > len(name) and line[len(name)] in " {"):
            total += float(line.rsplit(" ", 1)[1])
    return total


class Store:
    """A fresh `tenure serve` on SQLite, or on a one-member etcd started here."""

    def __init__(self, kind: str, extra_flags: list[str] | None = None):
        self.kind = kind
        self.etcd: EtcdCluster | None = None
        args: list[str] = []
        if kind == "etcd":
            self.etcd = EtcdCluster(1).start()
            args = ["--store", "etcd", "--etcd-endpoints", self.etcd.urls[0], "--etcd-prefix", "/registry"]
        self.server = Server(args + (extra_flags or [])).start()
        self.pid = self.server.proc.pid
        self.api = self.server.client()

    def metrics(self) -> str:
        r = self.api.get("/metrics")
        return r.raw.decode() if r.status == 200 else ""

    def cpu(self) -> float:
        """CPU seconds of tenure serve (etcd's are etcd_cpu's)."""
        return cpu_seconds(self.pid)

    def etcd_cpu(self) -> float:
        return cpu_seconds(self.etcd.procs[0].pid) if self.etcd is not None else 0.0

    def rss(self) -> int:
        return rss_kib(self.pid)

    def close(self) -> None:
        self.api.close()
        self.server.cleanup()
        if self.etcd is not None:
            self.etcd.cleanup()


def split(n: int, parts: int) -> list[tuple[int, int]]:
    out, first = [], 0
    for i in range(parts):
        count = n // parts + (1 if i < n % parts else 0)
        if count:
            out.append((first, count))
        first += count
    return out


def check_threads(electors: int) -> None:
    need = int(electors * 1.1) + 2000
    with open("/proc/sys/kernel/pid_max") as fh:
        pid_max = int(fh.read())
    if pid_max < need:
        raise SystemExit(f"{electors} electors need about {need} threads; kernel.pid_max is {pid_max}: "
                         f"raise it first (sysctl -w kernel.pid_max=4194304)")


def group_of(args, i: int) -> str:
    """The label value of the i-th range's Leases with --watch-scope group ("" : no labels)."""
    return str(i) if args.watch_scope == "group" else ""


def steady_run(args, store_kind: str, n: int) -> dict:
    binary = os.path.join(args.build, "bench", "scale_candidates")
    check_threads(2 * n)
    store = Store(store_kind, args.server_flag)
    procs: list[Candidates] = []
    try:
        time.sleep(2)
        rss_empty = store.rss()
        ranges = split(n, args.processes)
        started = time.monotonic()
        for i, (first, count) in enumerate(ranges):
            procs.append(Candidates(binary, store.server.kubeconfig, f"a{i}", first, count, args,
                                    group_of(args, i)))
        wait_for(lambda: sum(p.get("leading") for p in procs) == n, 120 + n / 50,
                 f"side a to lead {n} leases", lambda: f"{sum(p.get('leading') for p in procs)} lead")
        log(f"{store_kind} N={n}: side a leads all in {time.monotonic() - started:.1f} s")
        side_b = [Candidates(binary, store.server.kubeconfig, f"b{i}", first, count, args,
                             group_of(args, i))
                  for i, (first, count) in enumerate(ranges)]
        procs += side_b
        wait_for(lambda: sum(p.get("following") for p in side_b) == n, 120 + n / 50,
                 f"side b to follow {n} leases", lambda: f"{sum(p.get('following') for p in side_b)} follow")
        log(f"{store_kind} N={n}: side b follows; warming up {args.warmup} s")
        time.sleep(args.warmup)

        m0, cpu0, etcd0, t0 = store.metrics(), store.cpu(), store.etcd_cpu(), time.monotonic()
        before = [p.snapshot() for p in procs]
        for p in procs:
            p.open_window()
        rss_peak = 0
        while time.monotonic() - t0 < args.seconds:
            time.sleep(1)
            rss_peak = max(rss_peak, store.rss())
        elapsed = time.monotonic() - t0
        cpu1, etcd1, m1, rss_end = store.cpu(), store.etcd_cpu(), store.metrics(), store.rss()
        lasts = [p.finish() for p in procs]
        elapsed_c = elapsed  # the processes' figures cover the same window, give or take a report
        renewals, p50, p99 = merged_quantiles(lasts)
        max_ms = max(r.get("window_max_ms", 0.0) for r in lasts)
        lost = sum(r["lost"] for r in lasts)
        takeovers = sum(r["terms"] for r in lasts) - n
        requests = sum(a["requests"] - b.get("requests", 0) for a, b in zip(lasts, before))
        cand_cpu = sum(a["cpu_s"] - b.get("cpu_s", 0) for a, b in zip(lasts, before))
        cand_rss = sum(r["rss_kib"] for r in lasts)
        watch_events = metric(m1, "apiserver_watch_events_total") - metric(m0, "apiserver_watch_events_total")
        server_requests = metric(m1, "apiserver_request_total") - metric(m0, "apiserver_request_total")
        result = {
            "kind": "steady", "store": store_kind, "elections": n, "electors": 2 * n,
            "connections": args.connections or "default",
            "candidate_malloc": args.candidate_malloc, "watch_scope": args.watch_scope,
            "pool_threads": args.pool_threads, "server_flags": args.server_flag,
            "processes": len(procs), "seconds": round(elapsed, 1),
            "server_cpu_pct": round(100 * (cpu1 - cpu0) / elapsed, 1),
            "server_rss_mib": round(rss_end / 1024, 1), "server_rss_peak_mib": round(rss_peak / 1024, 1),
            "server_rss_empty_mib": round(rss_empty / 1024, 1),
            "server_kib_per_lease": round((rss_end - rss_empty) / n, 2),
            "renewals_per_s": round(renewals / elapsed_c, 1),
            "renew_p50_ms": round(p50, 2), "renew_p99_ms": round(p99, 2), "renew_max_ms": round(max_ms, 2),
            "terms_lost": lost, "takeovers": takeovers,
            "update_failures": sum(r["update_failures"] for r in lasts),
            "client_requests_per_s": round(requests / elapsed_c, 1),
            "server_requests_per_s": round(server_requests / elapsed, 1),
            "watch_events_per_s": round(watch_events / elapsed, 1),
            "candidate_cpu_pct": round(100 * cand_cpu / elapsed_c, 1),
            "candidate_cpu_us_per_elector_s": round(1e6 * cand_cpu / elapsed_c / (2 * n), 2),
            "candidate_rss_mib": round(cand_rss / 1024, 1),
            "candidate_kib_per_elector": round(cand_rss / (2 * n), 2),
            "candidate_threads": sum(r["threads"] for r in lasts),
        }
        if store_kind == "etcd":
            result["etcd_cpu_pct"] = round(100 * (etcd1 - etcd0) / elapsed, 1)
            result["etcd_rss_mib"] = round(rss_kib(store.etcd.procs[0].pid) / 1024, 1)
        return result
    finally:
        for p in procs:
            p.kill()
        store.close()


def failover_run(args, store_kind: str, m: int) -> dict:
    binary = os.path.join(args.build, "bench", "scale_candidates")
    check_threads(2 * m)
    store = Store(store_kind, args.server_flag)
    leader = follower = None
    try:
        leader = Candidates(binary, store.server.kubeconfig, "a0", 0, m, args, group_of(args, 0))
        wait_for(lambda: leader.get("leading") == m, 120 + m / 50, f"one process to lead {m} leases")
        follower = Candidates(binary, store.server.kubeconfig, "b0", 0, m, args, group_of(args, 0))
        wait_for(lambda: follower.get("following") == m, 120 + m / 50, f"a second process to follow {m} leases")
        time.sleep(args.warmup)
        follower_terms_before = follower.get("terms")
        leader.proc.send_signal(signal.SIGKILL)
        leader.proc.wait()
        killed_ms = int(time.time() * 1000)
        cpu_samples: list[tuple[float, float]] = [(time.monotonic(), store.cpu())]
        time.sleep(0.5)  # requests the dead process had sent are answered by now
        listing = store.api.get(lease_path(NAMESPACE))
        if listing.status != 200:
            raise RuntimeError(f"listing leases: {listing.describe()}")
        last_renewal: dict[int, int] = {}
        for item in listing.body["items"]:
            name, spec = item["metadata"]["name"], item["spec"]
            if not name.startswith(PREFIX + "-") or spec.get("holderIdentity") != "a0":
                continue
            stamp = spec["renewTime"]  # 2026-12-03T17:00:00.123456Z
            secs = time.mktime(time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone
            frac = float("0" + stamp[19:-1]) if len(stamp) > 20 else 0.0
            last_renewal[int(name[len(PREFIX) + 1:])] = int((secs + frac) * 1000)
        if len(last_renewal) != m:
            raise RuntimeError(f"{len(last_renewal)} of {m} leases held by the killed process")

        def all_taken() -> bool:
            cpu_samples.append((time.monotonic(), store.cpu()))
            with follower._lock:
                return all(follower.terms.get(i, 0) > killed_ms - 1000 for i in last_renewal)

        wait_for(all_taken, 60, f"the follower to take all {m} leases", interval=0.25)
        with follower._lock:
            delays = sorted((follower.terms[i] - last_renewal[i]) / 1000 for i in last_renewal)
            taken = sorted(follower.terms[i] for i in last_renewal)
        surge = [(t1 - t0, c1 - c0) for (t0, c0), (t1, c1) in zip(cpu_samples, cpu_samples[1:])]
        # The server's CPU while the leases changed hands: from the first to the last takeover.
        first_take, last_take = (taken[0] - killed_ms) / 1000, (taken[-1] - killed_ms) / 1000
        busy = [c / t for t, c in surge if t > 0]
        fin = follower.finish()
        return {
            "kind": "failover", "store": store_kind, "leases": m,
            "connections": args.connections or "default",
            "candidate_malloc": args.candidate_malloc, "pool_threads": args.pool_threads,
            "takeover_min_s": round(delays[0], 3),
            "takeover_p50_s": round(delays[len(delays) // 2], 3),
            "takeover_p99_s": round(delays[int(0.99 * (len(delays) - 1))], 3),
            "takeover_max_s": round(delays[-1], 3),
            "within_lease_plus_1s": all(d <= 16.0 for d in delays),
            "first_takeover_after_kill_s": round(first_take, 3),
            "last_takeover_after_kill_s": round(last_take, 3),
            "server_cpu_peak_pct": round(100 * max(busy or [0]), 1),
            "new_terms": fin["terms"] - follower_terms_before, "terms_lost": fin["lost"],
        }
    finally:
        for p in (leader, follower):
            if p is not None:
                p.kill()
        store.close()


def print_steady(r: dict) -> None:
    print(f"{r['store']:6} N={r['elections']:6}  server cpu {r['server_cpu_pct']:5.1f}%  rss {r['server_rss_mib']:7.1f} MiB "
          f"({r['server_kib_per_lease']:.2f} KiB/lease)  renew p50 {r['renew_p50_ms']:.2f} p99 {r['renew_p99_ms']:.2f} "
          f"max {r['renew_max_ms']:.1f} ms  lost {r['terms_lost']}  {r['renewals_per_s']:.0f} renewals/s  "
          f"{r['server_requests_per_s']:.0f} req/s  {r['watch_events_per_s']:.0f} watch events/s  "
          f"candidates cpu {r['candidate_cpu_pct']:.1f}% rss {r['candidate_kib_per_elector']:.1f} KiB/elector",
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--stores", default="sqlite,etcd")
    ap.add_argument("--elections", default="1000,5000,20000",
                    help="comma-separated N, each at least 1; empty: only the failover run")
    ap.add_argument("--processes", type=int, default=2, help="candidate processes per side")
    ap.add_argument("--warmup", type=float, default=20)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--failover", type=int, default=5000, help="leases of the killed process (0: none)")
    ap.add_argument("--connections", type=int, default=0,
                    help="each candidate process's ClusterOptions::max_connections (0: the library's default)")
    ap.add_argument("--candidate-malloc", choices=["system", "jemalloc"], default="system",
                    help="the candidate processes' allocator: glibc's, or Debian's libjemalloc preloaded")
    ap.add_argument("--server-flag", action="append", default=[],
                    help="a flag for tenure serve, e.g. --server-flag=--watch-history-min-age=2s (repeatable)")
    ap.add_argument("--pool-threads", type=int, default=0,
                    help="run each candidate process's electors on an ElectionPool of this many "
                         "threads (0: a thread per elector)")
    ap.add_argument("--watch-scope", choices=["namespace", "group"], default="namespace",
                    help="what each candidate process watches: every Lease of the namespace, or only "
                         "the Leases of its range, which then carry a label of their own")
    ap.add_argument("--out", default="scale-results.jsonl")
    args = ap.parse_args()
    try:
        args.elections = [int(x) for x in args.elections.split(",") if x.strip()]
    except ValueError:
        raise SystemExit(f"--elections must be comma-separated integers, not '{args.elections}'")
    if any(n < 1 for n in args.elections):
        raise SystemExit("--elections: each N must be at least 1 (an empty list runs only the failover)")
    if args.candidate_malloc == "jemalloc" and not os.path.exists(JEMALLOC):
        raise SystemExit(f"--candidate-malloc jemalloc needs {JEMALLOC} (Debian's libjemalloc2)")
    os.environ.setdefault("TENURE_BIN", os.path.join(args.build, "src", "cli", "tenure"))
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with open(args.out, "a") as out:
        for store_kind in args.stores.split(","):
            for n in args.elections:
                try:
                    r = steady_run(args, store_kind, n)
                    print_steady(r)
                except RuntimeError as e:  # the machine could not carry N: recorded as such
                    r = {"kind": "steady", "store": store_kind, "elections": n, "error": str(e)}
                    print(f"{store_kind:6} N={n:6}  not carried: {e}", flush=True)
                r["run"] = stamp
                out.write(json.dumps(r) + "\n")
                out.flush()
            if args.failover > 0:
                try:
                    r = failover_run(args, store_kind, args.failover)
                except RuntimeError as e:
                    r = {"kind": "failover", "store": store_kind, "leases": args.failover, "error": str(e)}
                    print(f"{store_kind:6} failover of {args.failover} leases not carried: {e}", flush=True)
                    r["run"] = stamp
                    out.write(json.dumps(r) + "\n")
                    continue
                r["run"] = stamp
                print(f"{store_kind:6} failover of {r['leases']} leases: takeover after last renewal p50 "
                      f"{r['takeover_p50_s']:.3f} s p99 {r['takeover_p99_s']:.3f} s max {r['takeover_max_s']:.3f} s, "
                      f"all within lease + 1 s: {r['within_lease_plus_1s']}; last takeover "
                      f"{r['last_takeover_after_kill_s']:.2f} s after the kill; server cpu peak "
                      f"{r['server_cpu_peak_pct']:.0f}%", flush=True)
                out.write(json.dumps(r) + "\n")
                out.flush()


if __name__ == "__main__":
    main()
