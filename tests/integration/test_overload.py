"""`tenure serve` under abuse while leaders renew (robustness).

Heavy and abusive clients hit one server for ABUSE_SECONDS: deep nesting, 1 MiB ConfigMaps,
copy bombs, strategic merges of 40,000 finalizers, slowloris connections, thousands of idle
connections, watchers that never read, and floods of lists and reads. Meanwhile `tenure-elect`
leaders renew at default timings (15 s / 10 s / 2 s) and at short ones (2 s / 1.5 s / 0.25 s),
two candidates per lock, and a probe renews its own Lease every 100 ms like a leader and times
each renewal. The server must stay up and bounded in memory, no leader may lose its term, and
the probe's renewal latency p99 must stay under 100 ms. The figures are printed (and are in
docs/reliability.md).
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import socket
import ssl
import time
import unittest

from tenure_testlib import Candidate, CandidateGroup, Server, core_path, elect_bin, lease_path, micro_time_now

NS = "overload"
ABUSE_SECONDS = float(os.environ.get("TENURE_OVERLOAD_SECONDS", "40"))
IDLE_CONNECTIONS = 2000
SLOWLORIS = 200
SILENT_WATCHERS = 16
MEMORY_BOUND_MB = 1536
TIMINGS = {"default": (15, 10, 2), "short": (2, 1.5, 0.25)}


def _client(server_info: dict):
    from tenure_testlib import Client
    return Client("127.0.0.1", server_info["port"], server_info["ca"], server_info["token"], timeout=60)


def abuser(kind: str, server_info: dict, stop_at: float, out: multiprocessing.Queue) -> None:
    """One abusive client process: loops on its kind of request until stop_at."""
    c = _client(server_info)
    sent = 0
    codes: dict[int, int] = {}
    lease = lease_path(NS, f"victim-{kind}-{os.getpid()}")
    if kind in ("deep", "lists"):
        c.post(lease_path(NS), {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                                    "metadata": {"name": lease.rsplit("/", 1)[1]}, "spec": {}})
    big = "x" * (1024 * 1024 - 64)
    finalizers = [f"example.com/f{i}" for i in range(40000)]
    bomb = [{"op": "copy", "from": "", "path": f"/c{i}"} for i in range(21)]
    deep = '{"metadata":{"finalizers":' + "[" * 10001 + "]" * 10001 + "}}"
    while time.monotonic() < stop_at:
        try:
            if kind == "deep":
                r = c.request("PATCH", lease, deep, content_type="application/strategic-merge-patch+json")
            elif kind == "big":
                name = f"big-{os.getpid()}-{sent % 4}"
                r = c.put(core_path("configmaps", NS, name),
                          {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": big}})
                if r.status == 404:
                    r = c.post(core_path("configmaps", NS),
                               {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": big}})
            elif kind == "bomb":
                r = c.patch(lease_path(NS, "probe"), bomb, patch_type="application/json-patch+json")
            elif kind == "lists":
                r = c.patch(lease, {"metadata": {"finalizers": finalizers}},
                            patch_type="application/strategic-merge-patch+json")
            else:  # flood
                r = c.get(core_path("configmaps", NS)) if sent % 2 else c.get(lease_path(NS))
            codes[r.status] = codes.get(r.status, 0) + 1
        except OSError:
            codes[-1] = codes.get(-1, 0) + 1
            c = _client(server_info)
        sent += 1
    out.put((kind, sent, codes))


def probe(server_info: dict, stop_at: float, out: multiprocessing.Queue) -> None:
    """Renews the Lease `probe` every 100 ms with its resourceVersion and times each renewal."""
    c = _client(server_info)
    r = c.post(lease_path(NS), {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                                "metadata": {"name": "probe-lease"},
                                "spec": {"holderIdentity": "probe", "leaseDurationSeconds": 2}})
    lease = r.body
    latencies, failures = [], 0
    next_at = time.monotonic()
    while time.monotonic() < stop_at:
        lease["spec"]["renewTime"] = micro_time_now()
        started = time.monotonic()
        try:
            r = c.put(lease_path(NS, "probe-lease"), lease)
        except OSError:
            failures += 1
            c = _client(server_info)
            continue
        latencies.append(time.monotonic() - started)
        if r.status == 200:
            lease = r.body
        else:
            failures += 1
            lease = c.get(lease_path(NS, "probe-lease")).body
        next_at += 0.1
        time.sleep(max(0.0, next_at - time.monotonic()))  # the renewal period, not a wait for a state
    out.put(("probe", latencies, failures))


class OverloadTest(CandidateGroup, unittest.TestCase):
    def setUp(self) -> None:
        super().setUp()
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        self.server = Server()
        self.addCleanup(self.server.cleanup)
        self.server.start()
        self.api = self.server.client()
        self.addCleanup(self.api.close)
        r = self.api.post(core_path("namespaces"), {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
        self.assertIn(r.status, (201, 409), r.describe())
        self.api.post(lease_path(NS), {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                                       "metadata": {"name": "probe"}, "spec": {"holderIdentity": "x"}})

    def spawn(self, identity: str, lock: str, timings: tuple[float, float, float]) -> Candidate:
        lease, renew, retry = timings
        argv = [elect_bin(), "--kubeconfig", self.server.kubeconfig, "--lock", f"{NS}/{lock}",
                "--identity", identity, "--lease-duration", str(lease), "--renew-deadline", str(renew),
                "--retry-period", str(retry)]
        return self.add_candidate(Candidate(argv, identity, self.server.workdir))

    def test_leaders_keep_their_terms_while_abusive_clients_hit_the_server(self) -> None:
        groups = {}
        for name, timings in TIMINGS.items():
            for n in range(2):
                lock = f"{name}-{n}"
                groups[lock] = [self.spawn(f"{lock}-a", lock, timings), self.spawn(f"{lock}-b", lock, timings)]
        leaders = {}
        for lock, cands in groups.items():
            leaders[lock] = self.wait(lambda: next((c for c in cands if c.of("started")), None), 30,
                                      f"a leader of {lock}")
        starts_before = self.starts([c for cands in groups.values() for c in cands])

        info = {"port": self.server.port, "ca": os.path.join(self.server.data_dir, "ca.crt"),
                "token": self.server.token}
        stop_at = time.monotonic() + ABUSE_SECONDS
        ctx = multiprocessing.get_context("fork")
        out = ctx.Queue()
        procs = [ctx.Process(target=probe, args=(info, stop_at, out))]
        for kind in ("deep", "big", "bomb", "lists", "flood", "flood", "flood"):
            procs.append(ctx.Process(target=abuser, args=(kind, info, stop_at, out)))
        for p in procs:
            p.start()
        self.addCleanup(lambda: [p.kill() for p in procs if p.is_alive()])
        idle, slow, watchers = self._open_abusive_connections()
        held = idle + slow + watchers
        self.addCleanup(lambda: [s.close() for s in held])
        peak_rss = 0
        while time.monotonic() < stop_at:
            peak_rss = max(peak_rss, self._rss_mb())
            for s in slow:
                try:
                    s.send(b"a")  # one more header byte: the head never ends
                except OSError:
                    pass
            time.sleep(0.5)  # slowloris's pace; the test's outcome is read from the results below
        results = [out.get(timeout=120) for _ in procs]
        for p in procs:
            p.join(timeout=30)
        for s in held:
            s.close()
        peak_rss = max(peak_rss, self._peak_rss_mb())

        self.assertIsNone(self.server.proc.poll(), "the server died")
        self.assertEqual(self.api.get("/healthz").status, 200)
        latencies, failures = next((r[1], r[2]) for r in results if r[0] == "probe")
        latencies.sort()
        p50 = latencies[len(latencies) // 2] * 1000
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
        print(f"\noverload: {ABUSE_SECONDS:.0f} s, probe renewals {len(latencies)} (failed {failures}), "
              f"latency p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {latencies[-1] * 1000:.1f} ms; "
              f"server peak RSS {peak_rss:.0f} MB (bound {MEMORY_BOUND_MB} MB)")
        for kind, sent, codes in (r for r in results if r[0] != "probe"):
            print(f"  {kind}: {sent} requests, status codes {codes}")
        starts_after = self.starts([c for cands in groups.values() for c in cands])
        for lock, cands in groups.items():
            for c in cands:
                self.check(not c.of("stopped"), f"{c.identity} ({lock}) lost its term under abuse")
        self.check(starts_after == starts_before, "a leader changed under abuse")
        self.assertEqual(failures, 0, "probe renewals failed")
        self.assertLess(p99, 100.0, "renewal latency p99")
        self.assertLess(peak_rss, MEMORY_BOUND_MB)

    def _open_abusive_connections(self) -> tuple[list[socket.socket], list[socket.socket], list[socket.socket]]:
        """Idle connections, slowloris heads and watchers that never read, each kind from a loopback
        address of its own (one abusive client each: the idle one exceeds its connection cap)."""
        idle, slow, watchers = [], [], []
        for i in range(IDLE_CONNECTIONS + SLOWLORIS):
            source = "127.0.1.1" if i < IDLE_CONNECTIONS else "127.0.1.2"
            try:
                s = socket.create_connection(("127.0.0.1", self.server.port), timeout=5, source_address=(source, 0))
            except OSError:
                break
            if i >= IDLE_CONNECTIONS:
                s.setblocking(False)
                slow.append(s)
            else:
                idle.append(s)
        tls = ssl.create_default_context(cafile=os.path.join(self.server.data_dir, "ca.crt"))
        for _ in range(SILENT_WATCHERS):
            raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            raw.bind(("127.0.1.3", 0))
            raw.connect(("127.0.0.1", self.server.port))
            w = tls.wrap_socket(raw, server_hostname="127.0.0.1")
            w.sendall((f"GET {core_path('configmaps', NS)}?watch=1 HTTP/1.1\r\nHost: x\r\n"
                       f"Authorization: Bearer {self.server.token}\r\n\r\n").encode())
            watchers.append(w)
        return idle, slow, watchers

    def _rss_mb(self) -> float:
        return self._status_kb("VmRSS") / 1024

    def _peak_rss_mb(self) -> float:
        return self._status_kb("VmHWM") / 1024

    def _status_kb(self, field: str) -> float:
        try:
            with open(f"/proc/{self.server.proc.pid}/status") as fh:
                for line in fh:
                    if line.startswith(field + ":"):
                        return float(line.split()[1])
        except OSError:
            pass
        return 0.0


if __name__ == "__main__":
    unittest.main()
