"""Coordinated leader election against a real `tenure serve` (issue 4, "What must be shown").

Candidates are tenure-elect processes with --coordinated: each registers a LeaseCandidate
(CandidateRegistrar) and runs its elector in coordinated mode; the server's election controller
(started by `tenure serve`) picks the leader. Short timings keep it fast: candidates renew a 2 s
lease every 0.4 s, and the controller waits 2 s for ping answers (--coordination-election-duration).

- Rolling upgrade, every step checked: 1.33.0/1.33.0, 1.34.0/1.33.0 and 1.34.0/1.34.0 elect the
  1.33.0 one; 1.34.0/1.32.0 joins and takes over through preferredHolder (the old leader stops
  and releases first; a fencing checker and the processes' own lines show no two leaders at
  once); kill -9 of that leader: the next best leads, only after the killed leader's lease
  could expire; `kubectl get leasecandidates` and `kubectl describe lease` show the story.
- Invalid candidates (bad semver, emulation above binary, missing strategy) are rejected with
  Invalid, by kubectl (prints "is invalid"), over the API, and by tenure-elect before any request.
- A strategy conflict leaves the Lease untouched and posts a StrategyConflict Warning.
- With --feature-gates=CoordinatedLeaderElection=false the API is not served (404, not in
  api-resources), tenure-elect --coordinated says why, and a lease with candidates is not managed
  (after a restart with the gate off, nobody is assigned the expired lease).
"""

from __future__ import annotations

import re
import subprocess
import time
import unittest

from tenure_testlib import (COORDINATED_FLAGS, Candidate, CandidateGroup, Deadline, FenceChecker, Kubectl,
                            ObjectTracker, Server, ServerTestCase, candidate_path, core_path, elect_bin,
                            free_port, holder_is, kubectl_binary, lease_body, lease_path, micro_time_now, parse_k8s_time,
                            parse_table, wait_until)

LEASE, RENEW, RETRY = 2.0, 1.5, 0.4
ELECTION = 2.0  # the controller's ack window (--coordination-election-duration)
# A leader that must outlast a server restart (test_a_lease_with_candidates_is_not_managed).
RESTART_LEASE, RESTART_RENEW = 6.0, 5.0
SERVER_ARGS = (*COORDINATED_FLAGS, "--coordination-election-duration", str(ELECTION))
KUBECTL = "1.33"
# Registration, the controller's first reconcile and the assignment.
FIRST_LEADER_TIMEOUT = 20.0
# kill -9: the lease expires, the controller pings, waits ELECTION for the dead one, assigns.
TAKEOVER_TIMEOUT = LEASE + 2 * ELECTION + 10.0
EARLY_TOLERANCE = 0.1


def micro_time(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int((t % 1) * 1e6):06d}Z"


def candidate_object(name: str, **spec) -> dict:
    s = {"leaseName": "lease", "binaryVersion": "1.34.0", "emulationVersion": "1.33.0",
         "strategy": "OldestEmulationVersion", "renewTime": micro_time_now()}
    s.update(spec)
    return {"apiVersion": "coordination.k8s.io/v1beta1", "kind": "LeaseCandidate",
            "metadata": {"name": name}, "spec": {k: v for k, v in s.items() if v is not None}}


class CoordinatedMixin(CandidateGroup):
    server: Server

    def spawn(self, identity: str, ns: str, lease: str, binary: str, emulation: str,
              strategy: str | None = None, fence: FenceChecker | None = None,
              timing: tuple[float, float] = (LEASE, RENEW)) -> Candidate:
        """timing: (lease duration, renew deadline)."""
        argv = [elect_bin(), "--kubeconfig", self.server.kubeconfig, "--lock", f"{ns}/{lease}",
                "--identity", identity, "--lease-duration", str(timing[0]), "--renew-deadline", str(timing[1]),
                "--retry-period", str(RETRY), "--release-on-cancel",
                "--coordinated", "--binary-version", binary, "--emulation-version", emulation]
        if strategy is not None:
            argv += ["--strategy", strategy]
        if fence is not None:
            argv += ["--fence-port", str(fence.port)]
        c = self.add_candidate(Candidate(argv, identity, self.server.workdir))
        c.wait_event("candidate", 15)  # registered (CandidateRegistrar::Start returned)
        return c

    def spec_of(self, ns: str, lease: str) -> dict | None:
        r = self.api.get(lease_path(ns, lease))
        if r.status == 404:
            return None
        self.assertEqual(r.status, 200, r.describe())
        return r.body["spec"]

    def tracker(self, ns: str, name: str) -> ObjectTracker:
        t = ObjectTracker(self.server, lease_path(ns), name)
        self.addCleanup(t.close)
        return t


class CoordinatedElectionTest(CoordinatedMixin, ServerTestCase):
    SERVER_ARGS = SERVER_ARGS

    @classmethod
    def setUpClass(cls) -> None:
        elect_bin()
        kubectl_binary(KUBECTL)
        super().setUpClass()

    def kc(self, *args: str) -> str:
        return Kubectl(self.server, KUBECTL).ok(*args)

    def events(self, ns: str, lease: str) -> list[dict]:
        r = self.api.get(core_path("events", ns), params={"fieldSelector": f"involvedObject.name={lease}"})
        self.assertEqual(r.status, 200, r.describe())
        return r.body["items"]

    # ------------------------------------------------------------------------------------------
    def test_rolling_upgrade(self):
        ns, lease = "upgrade", "kcm"
        self.ensure_namespace(ns)
        fence = FenceChecker()
        self.addCleanup(fence.close)
        tracker = self.tracker(ns, lease)

        # 1. Three candidates: the lowest emulation version, then the lowest binary version.
        a = self.spawn("a-1.33", ns, lease, "1.33.0", "1.33.0", fence=fence)
        b = self.spawn("b-1.34-emu1.33", ns, lease, "1.34.0", "1.33.0", fence=fence)
        c = self.spawn("c-1.34", ns, lease, "1.34.0", "1.34.0", fence=fence)
        a.wait_event("started", FIRST_LEADER_TIMEOUT)
        for x in (a, b, c):
            x.wait_event("leader", 10, pred=lambda e: e.data.get("identity") == a.identity)
        self.check(not b.of("started") and not c.of("started"), "b or c started leading")
        spec = self.spec_of(ns, lease)
        self.assertEqual(spec.get("holderIdentity"), a.identity, spec)
        self.assertEqual(spec.get("strategy"), "OldestEmulationVersion", spec)
        self.assertNotIn("preferredHolder", spec)
        # The candidate side of the story in kubectl.
        rows = {r["NAME"]: r for r in parse_table(self.kc("get", "leasecandidates", "-n", ns))}
        self.assertEqual(set(rows), {a.identity, b.identity, c.identity}, rows)
        self.assertEqual((rows[b.identity]["LEASENAME"], rows[b.identity]["BINARYVERSION"],
                          rows[b.identity]["EMULATIONVERSION"]), (lease, "1.34.0", "1.33.0"), rows)

        # 2. A candidate with a lower emulation version joins: preferredHolder, a stops, d leads.
        d = self.spawn("d-1.34-emu1.32", ns, lease, "1.34.0", "1.32.0", fence=fence)
        d_started = d.wait_event("started", FIRST_LEADER_TIMEOUT)
        a.wait_event("stopped", 5)
        self.check(a.running(), "the preempted leader exited instead of staying a candidate")
        objs, first_d = tracker.objects_through(holder_is(d.identity), 5, "d's assignment")
        recs = [o["spec"] for o in objs]
        self.check(any(s.get("holderIdentity") == a.identity and s.get("preferredHolder") == d.identity
                       for s in recs[:first_d]),
                   f"no preferredHolder={d.identity} on a's lease before d was assigned: {recs[:first_d + 1]}")
        self.check(any(s.get("holderIdentity") in ("", None) for s in recs[:first_d]),
                   "a did not release the lease explicitly on preemption")
        self.assertNotIn("preferredHolder", self.spec_of(ns, lease))  # cleared with the assignment
        self.check(not b.of("started") and not c.of("started"), "b or c started leading")

        # 3. kill -9 of the leader: the next best (a, 1.33.0/1.33.0) leads once d's lease expired.
        wait_until(lambda: len([1 for _, _, o in tracker.snapshot()
                                if o["spec"].get("holderIdentity") == d.identity]) >= 3, 10, "d renewing")
        baseline = len(a.of("started"))
        n_before = len(tracker.snapshot())
        d.kill()
        a_again = a.wait_event("started", TAKEOVER_TIMEOUT, count=baseline + 1)
        self.check(not b.of("started") and not c.of("started"), "b or c started leading after the kill")
        recs = [o["spec"] for _, _, o in tracker.snapshot()]
        last_d = [s for s in recs[:n_before] if s.get("holderIdentity") == d.identity][-1]
        expiry = parse_k8s_time(last_d["renewTime"]) + last_d["leaseDurationSeconds"]
        self.check(a_again.wall >= expiry - EARLY_TOLERANCE,
                   f"a started {expiry - a_again.wall:.3f} s before d's lease could expire")
        print(f"\nkill -9 takeover: {a_again.wall - d.ended_wall:.3f} s after the kill "
              f"(lease {LEASE} s, controller ack window {ELECTION} s)")

        # 4. Never two leaders: no write of a deposed leader got through after a newer term's.
        self.check(not fence.writes(rejected=True),
                   f"stale fenced writes: {fence.writes(rejected=True)[:5]}")
        tokens = [int(x.data["token"]) for x in (a.of("started")[0], d_started, a_again)]
        self.check(tokens == sorted(tokens) and len(set(tokens)) == 3, f"tokens do not increase: {tokens}")
        for who in (a, d):
            self.check(fence.writes(identity=who.identity), f"{who.identity} never wrote while leading")

        # 5. kubectl describe lease: holder, strategy, and the controller's events.
        out = self.kc("describe", "lease", lease, "-n", ns)
        self.assertRegex(out, rf"Holder Identity:\s+{re.escape(a.identity)}\n", out)
        self.assertRegex(out, r"Strategy:\s+OldestEmulationVersion\n", out)
        for reason in ("LeaderElected", "Preempting"):
            self.assertIn(reason, out.split("Events:")[-1], out)
        reasons = [(e["reason"], e["message"]) for e in self.events(ns, lease)]
        self.check(any(r == "Preempting" and d.identity in m and a.identity in m for r, m in reasons),
                   f"no Preempting event naming {d.identity} and {a.identity}: {reasons}")
        self.check(any(r == "LeaderElected" and m.startswith(f"{d.identity} elected") for r, m in reasons),
                   f"no LeaderElected event for {d.identity}: {reasons}")

    # ------------------------------------------------------------------------------------------
    def test_invalid_candidates_are_rejected(self):
        ns = "invalid"
        self.ensure_namespace(ns)
        bad = {
            "bad-semver": candidate_object("bad-semver", binaryVersion="1.33", emulationVersion="1.33.0"),
            "emulation-above-binary": candidate_object("emulation-above-binary", binaryVersion="1.33.0",
                                                       emulationVersion="1.34.0"),
            "missing-strategy": candidate_object("missing-strategy", strategy=None),
        }
        fields = {"bad-semver": "spec.binaryVersion", "emulation-above-binary": "spec.binaryVersion",
                  "missing-strategy": "spec.strategy"}
        kubectl = Kubectl(self.server, KUBECTL)
        for name, obj in bad.items():
            with self.subTest(name):
                r = kubectl.fails("create", "-n", ns, "-f", kubectl.write_file(obj))
                self.assertIn(f'"{name}" is invalid', r.stderr, r.describe())
                self.assertIn(fields[name], r.stderr, r.describe())
                resp = self.api.post(candidate_path(ns), obj)
                status = self.assertStatus(resp, 422, "Invalid", name)
                self.assertIn(fields[name], [c.get("field") for c in status["details"]["causes"]], status)
                self.assertEqual(self.api.get(candidate_path(ns, name)).status, 404)
        # tenure-elect checks before any request, with the server's message.
        p = subprocess.run([elect_bin(), "--kubeconfig", self.server.kubeconfig, "--lock", f"{ns}/lease",
                            "--identity", "x", "--coordinated", "--binary-version", "1.33",
                            "--emulation-version", "1.33.0"], capture_output=True, text=True, timeout=15)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("must be a valid semantic version", p.stderr)
        self.assertEqual(self.api.get(candidate_path(ns, "x")).status, 404)

    # ------------------------------------------------------------------------------------------
    def test_strategy_conflict_leaves_the_lease_alone(self):
        # The test plays the two candidates (same binary version, different strategies) so that
        # both exist before the controller decides: registered with an old renewTime, so the
        # first one is pinged instead of elected at once; an unanswered ping that could change
        # the outcome keeps the controller waiting, so it never decides on one of them alone.
        ns, lease = "conflict", "split"
        self.ensure_namespace(ns)
        created = self.create(lease_path(ns), lease_body(lease, holder="manual", duration=3600,
                                                          renewTime=micro_time_now()))
        rv = created["metadata"]["resourceVersion"]
        stale = micro_time(time.time() - 60)  # live (not expired) but due for a ping
        strategies = {"e": "OldestEmulationVersion", "f": "example.com/other"}
        for name, strategy in strategies.items():
            self.create(candidate_path(ns), candidate_object(name, leaseName=lease, binaryVersion="1.35.0",
                                                             emulationVersion="1.35.0", strategy=strategy,
                                                             renewTime=stale))

        def answer_pings_and_find_conflict():
            # Whether the controller checks the strategies before or after pinging, answer as the
            # candidates would (renewTime = now when pingTime is newer).
            for name in strategies:
                obj = self.api.get(candidate_path(ns, name)).body
                spec = obj["spec"]
                if spec.get("pingTime") and parse_k8s_time(spec["pingTime"]) > parse_k8s_time(spec["renewTime"]):
                    spec["renewTime"] = micro_time_now()
                    self.api.put(candidate_path(ns, name), obj)  # a Conflict is retried next time
            return [ev for ev in self.events(ns, lease) if ev["reason"] == "StrategyConflict"]
        evs = self.wait(answer_pings_and_find_conflict, 10, "a StrategyConflict event on the lease")
        self.assertEqual(evs[0]["type"], "Warning", evs[0])
        self.assertEqual(evs[0]["involvedObject"]["kind"], "Lease", evs[0])
        self.check("OldestEmulationVersion" in evs[0]["message"] and "example.com/other" in evs[0]["message"],
                   f"the event does not name both strategies: {evs[0]['message']}")
        # Both keep answering for longer than the ack window: the lease stays as it was.
        d = Deadline(ELECTION + 1)
        while not d.expired():
            answer_pings_and_find_conflict()
            time.sleep(0.1)  # a "nothing happens during this window" check
        r = self.api.get(lease_path(ns, lease))
        self.assertEqual(r.body["metadata"]["resourceVersion"], rv, f"the lease was written: {r.body}")
        self.assertEqual(r.body["spec"].get("holderIdentity"), "manual")
        self.assertNotIn("strategy", r.body["spec"])
        out = self.kc("describe", "lease", lease, "-n", ns)
        self.assertIn("StrategyConflict", out.split("Events:")[-1], out)


class CoordinatedGateOffTest(CoordinatedMixin, unittest.TestCase):
    """Servers with the CoordinatedLeaderElection gate off (one per test)."""

    @classmethod
    def setUpClass(cls) -> None:
        elect_bin()
        kubectl_binary(KUBECTL)
        super().setUpClass()

    def start_server(self, args, listen: str = "127.0.0.1:0") -> Server:
        self.server = Server(args, listen=listen)
        self.addCleanup(self.server.cleanup)
        self.server.start()
        self.api = self.server.client()
        self.addCleanup(self.api.close)
        return self.server

    def test_the_api_is_not_served(self):
        self.start_server(("--feature-gates", "CoordinatedLeaderElection=false"))
        r = self.api.get(candidate_path("default"))
        self.assertEqual(r.status, 404, r.describe())
        self.assertEqual(self.api.post(candidate_path("default"), candidate_object("x")).status, 404)
        kubectl = Kubectl(self.server, KUBECTL)
        resources = kubectl.ok("api-resources", "--api-group=coordination.k8s.io")
        self.assertIn("leases", resources)
        self.assertNotIn("leasecandidates", resources)
        r = kubectl.fails("get", "leasecandidates", "-n", "default")
        self.assertIn("leasecandidates", r.stderr, r.describe())
        p = subprocess.run([elect_bin(), "--kubeconfig", self.server.kubeconfig, "--lock", "default/lease",
                            "--identity", "x", "--coordinated", "--binary-version", "1.33.0",
                            "--emulation-version", "1.33.0"], capture_output=True, text=True, timeout=15)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("CoordinatedLeaderElection", p.stderr)

    def test_a_lease_with_candidates_is_not_managed(self):
        # Managed while the gate is on...
        server = self.start_server(SERVER_ARGS, listen=f"127.0.0.1:{free_port()}")
        ns, lease = "default", "kcm"
        # a must keep leading across the restart, so its renew deadline outlasts a restart of a
        # sanitizer build on a busy machine (over 1.5 s in CI; RENEW is 1.5 s).
        timing = (RESTART_LEASE, RESTART_RENEW)
        a = self.spawn("a", ns, lease, "1.33.0", "1.33.0", timing=timing)
        b = self.spawn("b", ns, lease, "1.34.0", "1.33.0", timing=timing)
        a.wait_event("started", FIRST_LEADER_TIMEOUT)
        # ...then the same data with the gate off: the candidates are still stored, nobody manages
        # the lease. a keeps renewing it as an ordinary Lease until it is killed.
        server.extra_args = ["--feature-gates", "CoordinatedLeaderElection=false"]
        server.stop()
        t_restart = time.time()
        server.start()
        self.assertEqual(self.api.get(candidate_path(ns)).status, 404)
        self.wait(lambda: parse_k8s_time(self.spec_of(ns, lease)["renewTime"]) > t_restart, 10,
                  "a renewing the lease after the restart")
        a.kill()
        # With the gate on, b would lead within its lease + ELECTION (see test_rolling_upgrade).
        d = Deadline(RESTART_LEASE + 2 * ELECTION + 3)
        while not d.expired():
            spec = self.spec_of(ns, lease)
            self.check(spec.get("holderIdentity") == "a", f"the lease was reassigned: {spec}")
            self.check(not b.of("started"), "b started leading with the gate off")
            time.sleep(0.2)  # a "nothing happens during this window" check
        spec = self.spec_of(ns, lease)
        # Untouched since a died: a renewal it sent just before the kill may land after it, but
        # carries a renewTime from before.
        self.check(parse_k8s_time(spec["renewTime"]) <= a.ended_wall, f"the lease was renewed after a died: {spec}")
        self.check(b.running(), "b exited")


if __name__ == "__main__":
    unittest.main()
