"""A client with several API server endpoints keeps its leadership when one replica dies (issue 6).

One etcd member and two `tenure serve --store etcd` replicas A and B (one service: shared
credentials). A tenure-elect leader and a follower are given both replicas (--servers A,B) and
talk to A; the test kill -9s A while the lease is valid. Shown:
- the leader's renewals move to B within its renew deadline: it keeps leading past the moment
  its lease would have expired, with the same fencing token (its term never ended: no
  "stopped" line, one "started" line), and the Lease shows no transition;
- the follower, on the same two endpoints, still sees the leader and never takes over;
- a fencing checker accepts only the leader's token, before and after the kill;
- `tenure get leases --server A,B` and `tenure describe` with TENURE_SERVERS=A,B answer while A
  is dead (and the kubeconfig's own server, A, alone fails).
"""

from __future__ import annotations

import os
import subprocess
import time
import unittest

from tenure_testlib import (Candidate, CandidateGroup, FenceChecker, core_path, elect_bin, lease_path,
                            parse_k8s_time, replica_kubeconfig, start_etcd_replicas, tenure_bin)

NS = "failover"
LEASE, RENEW, RETRY = 15, 10, 2


class FailoverTest(CandidateGroup, unittest.TestCase):
    def setUp(self) -> None:
        super().setUp()
        elect_bin()
        tenure_bin()
        self.etcd, self.a, self.b = start_etcd_replicas(self, 1)
        self.kubeconfig = replica_kubeconfig(self.a)  # names A only; --servers adds B
        self.servers = f"https://127.0.0.1:{self.a.port},https://127.0.0.1:{self.b.port}"
        self.api_b = self.b.client(timeout=10)
        self.addCleanup(self.api_b.close)

    def spawn(self, identity: str, fence: FenceChecker) -> Candidate:
        argv = [elect_bin(), "--kubeconfig", self.kubeconfig, "--servers", self.servers, "--lock", f"{NS}/lock",
                "--identity", identity, "--lease-duration", str(LEASE), "--renew-deadline", str(RENEW),
                "--retry-period", str(RETRY), "--fence-port", str(fence.port)]
        return self.add_candidate(Candidate(argv, identity, self.a.workdir))

    def tenure(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        base = {k: v for k, v in os.environ.items()
                if k not in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "TENURE_SERVERS")}
        return subprocess.run([tenure_bin(), *args, "--kubeconfig", self.kubeconfig], capture_output=True,
                              text=True, timeout=30, env={**base, **(env or {})})

    def lease(self) -> dict:
        r = self.api_b.get(lease_path(NS, "lock"))
        self.assertEqual(r.status, 200, r.describe())
        return r.body["spec"]

    def test_leader_keeps_its_term_when_its_replica_dies(self) -> None:
        r = self.api_b.post(core_path("namespaces"), {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
        self.assertEqual(r.status, 201, r.describe())
        fence = FenceChecker()
        self.addCleanup(fence.close)
        leader = self.spawn("leader", fence)
        started = leader.wait_event("started", 20)
        token = started.data["token"]
        follower = self.spawn("follower", fence)
        follower.wait_event("leader", 20, pred=lambda e: e.data.get("identity") == "leader")
        self.wait(lambda: fence.writes(token=token), 10, "the leader's first fenced write")
        before = self.lease()
        self.check(before.get("holderIdentity") == "leader", f"lease: {before}")

        # kill -9 the replica both talk to (the first of --servers) while the lease is valid.
        self.a.kill()
        killed = time.time()
        last_renewal = parse_k8s_time(before["renewTime"])

        # The next renewal goes through B within the renew deadline.
        self.wait(lambda: parse_k8s_time(self.lease()["renewTime"]) > killed, RENEW,
                  "a renewal through replica B after A died")
        # And leadership lasts past the moment the lease held at the kill would have expired.
        self.wait(lambda: parse_k8s_time(self.lease()["renewTime"]) > last_renewal + LEASE, LEASE + RENEW,
                  "renewals past the lease duration")
        after = self.lease()
        self.check(after.get("holderIdentity") == "leader", f"lease after the kill: {after}")
        self.check(after.get("leaseTransitions") == before.get("leaseTransitions"),
                   f"the lease changed hands: {before} -> {after}")
        self.check(leader.running() and not leader.of("stopped"), "the leader's term ended")
        self.check(len(leader.of("started")) == 1, "the leader started a second term")
        self.check(not follower.of("started"), "the follower took over from a live leader")
        self.check(follower.running(), "the follower exited")
        self.check(follower.last("leader").data.get("identity") == "leader", "the follower lost sight of the leader")
        self.check(not fence.writes(rejected=True), f"rejected writes: {fence.writes(rejected=True)}")
        self.check({w[1] for w in fence.writes()} == {token}, "a second fencing token wrote")
        self.wait(lambda: [w for w in fence.writes(token=token) if w[0] > killed + RENEW], 5,
                  "the leader still writing with its token after the failover")

        # The CLI with both replicas answers while A is dead; A alone does not.
        got = self.tenure("get", "leases", "-n", NS, "--server", self.servers)
        self.assertEqual(got.returncode, 0, got.stderr)
        self.assertIn("lock", got.stdout)
        self.assertIn("leader", got.stdout)
        described = self.tenure("describe", "lease", f"{NS}/lock", env={"TENURE_SERVERS": self.servers})
        self.assertEqual(described.returncode, 0, described.stderr)
        self.assertIn("leader", described.stdout)
        alone = self.tenure("get", "leases", "-n", NS)
        self.assertNotEqual(alone.returncode, 0, alone.stdout)
        bad = self.tenure("get", "leases", "-n", NS, "--server", f"{self.servers},")
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("empty entry", bad.stderr)


if __name__ == "__main__":
    unittest.main()
