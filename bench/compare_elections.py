#!/usr/bin/python3
"""tenure side by side with what a user would pick for the same job, in one run on one machine:
  - etcd's own election (`etcdctl elect`, concurrency.Election over gRPC: Campaign, Resign on
    SIGINT, a session lease of 60 s) against a one-member etcd started here;
  - the official Python client's leader election (python3-kubernetes, ConfigMap lock, polling
    like client-go; tests/integration/py_candidate.py) against `tenure serve`;
  - tenure (examples/tenure-elect, release on cancel) against `tenure serve` (SQLite).
All at their defaults where they have them, tenure and the Python client at 15 s / 10 s / 2 s.

Graceful handover: from the signal that stops the leader (SIGINT for etcdctl, which resigns;
SIGTERM for the others) to the other candidate saying it leads. Crash takeover: from SIGKILL of
the leader to the other candidate leading. Every candidate is a process of its own.
  bench/compare_elections.py [--build build] [--handovers 20] [--python-handovers 2] [--crashes 1]
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "integration"))

from tenure_testlib import EtcdCluster, Server  # noqa: E402


class Candidate:
    """A candidate process; `leading_at` is when it first said it leads (monotonic seconds)."""

    def __init__(self, args: list[str], leads, env: dict | None = None, follows=None):
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        self.leads = leads  # line -> bool
        self.follows = follows  # line -> bool: it has seen the leader (None: it never says)
        self._following = threading.Event()
        self.leading_at: float | None = None
        self.lines: queue.Queue = queue.Queue()
        self._leading = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").strip()
            if self.follows is not None and self.follows(line):
                self._following.set()
            if self.leading_at is None and self.leads(line):
                self.leading_at = time.monotonic()
                self._leading.set()

    def wait_leading(self, timeout: float) -> float:
        if not self._leading.wait(timeout):
            raise RuntimeError(f"{self.proc.args[0]} did not lead within {timeout} s")
        assert self.leading_at is not None
        return self.leading_at

    def wait_following(self, settle: float) -> None:
        """Until it says it has seen the leader, or `settle` seconds for one that never says."""
        if self.follows is None:
            time.sleep(settle)
        elif not self._following.wait(60):
            raise RuntimeError(f"{self.proc.args[0]} did not see the leader within 60 s")

    def stop(self, sig: int) -> float:
        at = time.monotonic()
        self.proc.send_signal(sig)
        return at

    def reap(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def json_event(name: str):
    def leads(line: str) -> bool:
        try:
            return json.loads(line).get("event") == name
        except ValueError:
            return False
    return leads


def percentile(values: list[float], p: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]


def rounds(start, count: int, stop_signal: int, settle: float = 0.0) -> list[float]:
    """Hands over `count` times between two candidates made by start(identity); seconds each.
    Each round starts once the follower has seen the leader (tenure-elect says so; the others
    get `settle` seconds: etcdctl to start its Campaign, the Python client its first poll)."""
    delays = []
    leader, leader_id = start("a"), "a"
    leader.wait_leading(60)
    follower, follower_id = start("b"), "b"
    follower.wait_following(settle)
    for _ in range(count):
        stopped_at = leader.stop(stop_signal)
        delays.append(follower.wait_leading(120) - stopped_at)
        leader.reap()
        # The stopped candidate comes back as the follower.
        leader, leader_id, follower_id = follower, follower_id, leader_id
        follower = start(follower_id)
        follower.wait_following(settle)
    leader.reap()
    follower.reap()
    return delays


def report(name: str, delays: list[float]) -> dict:
    if not delays:
        return {"what": name, "runs": 0, "p50_ms": float("nan")}
    r = {"what": name, "runs": len(delays), "p50_ms": round(1000 * percentile(delays, 0.5), 1),
         "p99_ms": round(1000 * percentile(delays, 0.99), 1), "max_ms": round(1000 * max(delays), 1)}
    print(f"{name:44} {r['runs']:3} runs  p50 {r['p50_ms']:9.1f} ms  p99 {r['p99_ms']:9.1f} ms  "
          f"max {r['max_ms']:9.1f} ms", flush=True)
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--handovers", type=int, default=20)
    ap.add_argument("--python-handovers", type=int, default=2)
    ap.add_argument("--crashes", type=int, default=1)
    args = ap.parse_args()
    os.environ.setdefault("TENURE_BIN", os.path.join(args.build, "src", "cli", "tenure"))
    elect = os.path.join(args.build, "examples", "tenure-elect")
    py_candidate = os.path.join(REPO, "tests", "integration", "py_candidate.py")

    etcd = EtcdCluster(1).start()
    server = Server().start()
    results = []
    try:
        n = [0]

        def tenure(identity: str) -> Candidate:
            def follows(line: str) -> bool:
                try:
                    event = json.loads(line)
                except ValueError:
                    return False
                return event.get("event") == "leader" and event.get("identity") not in ("", identity)

            return Candidate([elect, "--kubeconfig", server.kubeconfig, "--lock", f"default/cmp-{n[0]}",
                              "--identity", identity, "--release-on-cancel"], json_event("started"),
                             follows=follows)

        def etcdctl(identity: str) -> Candidate:
            return Candidate(["etcdctl", f"--endpoints={etcd.urls[0]}", "elect", f"cmp-{n[0]}", identity],
                             lambda line, identity=identity: line == identity,
                             env={**os.environ, "ETCDCTL_API": "3"})

        def python(identity: str) -> Candidate:
            return Candidate(["/usr/bin/python3", py_candidate, "--kubeconfig", server.kubeconfig,
                              "--lock", f"default/cmp-{n[0]}", "--identity", identity],
                             json_event("started"))

        n[0] += 1
        results.append(report("tenure, graceful handover", rounds(tenure, args.handovers, signal.SIGTERM)))
        n[0] += 1
        results.append(report("etcdctl elect, graceful handover (resign)",
                              rounds(etcdctl, args.handovers, signal.SIGINT, 1.0)))
        n[0] += 1
        results.append(report("Python client, handover (SIGTERM; it never releases)",
                              rounds(python, args.python_handovers, signal.SIGTERM, 3.0)))
        n[0] += 1
        results.append(report("tenure, crash takeover (SIGKILL)", rounds(tenure, args.crashes, signal.SIGKILL)))
        n[0] += 1
        results.append(report("etcdctl elect, crash takeover (SIGKILL)",
                              rounds(etcdctl, args.crashes, signal.SIGKILL, 1.0)))
    finally:
        server.cleanup()
        etcd.cleanup()
    by = {r["what"]: r for r in results}
    t, e, p = (by["tenure, graceful handover"], by["etcdctl elect, graceful handover (resign)"],
               by["Python client, handover (SIGTERM; it never releases)"])
    print(f"graceful handover p50: etcd / tenure = {e['p50_ms'] / t['p50_ms']:.2f}, "
          f"Python client / tenure = {p['p50_ms'] / t['p50_ms']:.0f}")
    tc, ec = by["tenure, crash takeover (SIGKILL)"], by["etcdctl elect, crash takeover (SIGKILL)"]
    print(f"crash takeover p50: etcd / tenure = {ec['p50_ms'] / tc['p50_ms']:.2f}")


if __name__ == "__main__":
    main()
