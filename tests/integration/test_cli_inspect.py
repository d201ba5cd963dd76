"""The inspection commands (`tenure get`, `describe`, `watch`, `release`) against a live
`tenure serve` with real candidates (tenure-elect processes), through the server's kubeconfig
exactly as a user runs them.

What is shown (issue 5, "Inspection"):
- `get leases -A` and `-n`, `-o wide|json|yaml`: the holder, expiry and columns are right and
  json/yaml carry the server's objects; `get candidates` lists LeaseCandidates with versions;
- `describe lease`: holder, transitions, lease duration, candidates for the lease, the
  LeaderElection events;
- `watch lease` prints one timeline line per holder change, with the durations;
- `release` refuses without --force; with --force it clears the holder of a stuck (SIGSTOPped)
  leader and a waiting candidate takes over, although the lease (30 s) is far from expiring;
- errors: an unknown lease, a malformed reference, an unreachable server, a bad resource name:
  a clear message and a non-zero exit; `--help` of every command has examples.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
import unittest

from tenure_testlib import (Background, Candidate, CandidateGroup, Server, ServerTestCase, candidate_path,
                            elect_bin, lease_path, parse_table, tenure_bin)

NS = "inspect"
# A long lease: any change of holder within a test comes from the test's action, never from expiry.
LEASE, RENEW, RETRY = 30.0, 20.0, 0.5
FIRST_LEADER_TIMEOUT = 15.0
TIMELINE_TIME = r"\d\d:\d\d:\d\d\.\d\d\d"


class InspectTest(CandidateGroup, ServerTestCase):
    @classmethod
    def setUpClass(cls) -> None:
        elect_bin()
        super().setUpClass()

    def setUp(self) -> None:
        super().setUp()
        self.ensure_namespace(NS)

    # -- helpers ---------------------------------------------------------------------------------
    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST")}
        env["NO_COLOR"] = "1"
        return env

    def tenure(self, *args: str, kubeconfig: str | None = None, timeout: float = 30.0) -> subprocess.CompletedProcess:
        argv = [tenure_bin(), *args, "--kubeconfig", kubeconfig or self.server.kubeconfig]
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=self.env())

    def ok(self, *args: str) -> str:
        r = self.tenure(*args)
        self.assertEqual(r.returncode, 0, f"tenure {' '.join(args)}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}")
        return r.stdout

    def spawn(self, identity: str, lock: str) -> Candidate:
        argv = [elect_bin(), "--kubeconfig", self.server.kubeconfig, "--lock", f"{NS}/{lock}", "--identity", identity,
                "--lease-duration", str(LEASE), "--renew-deadline", str(RENEW), "--retry-period", str(RETRY),
                "--release-on-cancel"]
        return self.add_candidate(Candidate(argv, identity, self.server.workdir))

    def elect(self, lock: str) -> tuple[Candidate, Candidate]:
        """Two candidates on `lock`; returns (leader, follower) once the follower has seen the leader."""
        cands = [self.spawn(f"{lock}-a", lock), self.spawn(f"{lock}-b", lock)]
        leader = self.wait(lambda: next((c for c in cands if c.of("started")), None), FIRST_LEADER_TIMEOUT,
                           f"a leader of {lock}")
        follower = next(c for c in cands if c is not leader)
        follower.wait_event("leader", 10, pred=lambda e: e.data.get("identity") == leader.identity)
        return leader, follower

    def holder(self, lock: str) -> str:
        r = self.api.get(lease_path(NS, lock))
        self.assertEqual(r.status, 200, r.describe())
        return r.body["spec"].get("holderIdentity", "")

    def create_candidate(self, name: str, lease: str, binary: str, emulation: str) -> None:
        """A LeaseCandidate nobody answers for, renewed 20 minutes ago: not expired (30 min), but
        too old to count as acknowledged, so a coordinated election controller in the server
        never assigns it a lease and leaves the test's leases alone."""
        renewed = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime(time.time() - 20 * 60))
        body = {"apiVersion": "coordination.k8s.io/v1beta1", "kind": "LeaseCandidate",
                "metadata": {"name": name, "namespace": NS},
                "spec": {"leaseName": lease, "binaryVersion": binary, "emulationVersion": emulation,
                         "strategy": "OldestEmulationVersion", "renewTime": renewed}}
        self.create(candidate_path(NS), body)

    # -- get -------------------------------------------------------------------------------------
    def test_get_leases_all_namespaces_and_one_namespace(self):
        leader, _ = self.elect("get")
        rows = parse_table(self.ok("get", "leases", "-A"))
        row = next((r for r in rows if r["NAMESPACE"] == NS and r["NAME"] == "get"), None)
        self.assertIsNotNone(row, rows)
        self.assertEqual(row["HOLDER"], leader.identity, rows)
        self.assertRegex(row["EXPIRES"], r"^in \d+s$", row)  # 30 s lease renewed every 0.5 s
        self.assertRegex(row["RENEWED"], r"^\d+s$", row)
        self.assertRegex(row["AGE"], r"^\d+s$", row)
        rows = parse_table(self.ok("get", "leases", "-n", NS))
        self.assertNotIn("NAMESPACE", rows[0])
        self.assertIn("get", [r["NAME"] for r in rows])
        # Empty namespace: kubectl's message on stderr, exit 0.
        self.ensure_namespace("inspect-empty")
        r = self.tenure("get", "leases", "-n", "inspect-empty")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertIn("No resources found in inspect-empty namespace.", r.stderr)

    def test_get_leases_wide_json_yaml(self):
        leader, _ = self.elect("formats")
        rows = parse_table(self.ok("get", "leases", "-n", NS, "-o", "wide"))
        row = next(r for r in rows if r["NAME"] == "formats")
        self.assertEqual(row["HOLDER"], leader.identity)
        self.assertEqual(row["DURATION"], "30s")
        self.assertEqual(row["TRANSITIONS"], "0")
        self.assertEqual(row["STRATEGY"], "<none>")
        self.assertEqual(row["PREFERRED HOLDER"], "<none>")

        listed = json.loads(self.ok("get", "leases", "-n", NS, "-o", "json"))
        self.assertEqual(listed["kind"], "LeaseList")
        item = next(i for i in listed["items"] if i["metadata"]["name"] == "formats")
        self.assertEqual(item["spec"]["holderIdentity"], leader.identity)
        self.assertEqual(item["spec"]["leaseDurationSeconds"], 30)

        text = self.ok("get", "leases", "-n", NS, "-o", "yaml")
        self.assertTrue(text.startswith("apiVersion: coordination.k8s.io/v1\nitems:\n- "), text[:200])
        self.assertIn(f"\n    holderIdentity: {leader.identity}\n", text)
        self.assertIn("\n    leaseDurationSeconds: 30\n", text)
        self.assertRegex(text, r'\n    resourceVersion: "\d+"\n')  # a string stays a string
        self.assertIn("\nkind: LeaseList\n", text)

    def test_get_candidates(self):
        self.create_candidate("node-old", "versions", "1.32.0", "1.31.0")
        self.create_candidate("node-new", "versions", "1.33.0", "1.32.0")
        rows = parse_table(self.ok("get", "candidates", "-n", NS))
        by_name = {r["NAME"]: r for r in rows}
        self.assertEqual(by_name["node-old"]["LEASE"], "versions", rows)
        self.assertEqual(by_name["node-old"]["BINARY VERSION"], "1.32.0")
        self.assertEqual(by_name["node-old"]["EMULATION VERSION"], "1.31.0")
        self.assertEqual(by_name["node-new"]["BINARY VERSION"], "1.33.0")
        rows = parse_table(self.ok("get", "candidates", "-A", "-o", "wide"))
        row = next(r for r in rows if r["NAME"] == "node-new")
        self.assertEqual((row["NAMESPACE"], row["STRATEGY"]), (NS, "OldestEmulationVersion"))
        listed = json.loads(self.ok("get", "leasecandidates", "-n", NS, "-o", "json"))
        self.assertEqual(listed["kind"], "LeaseCandidateList")
        self.assertEqual(sorted(i["metadata"]["name"] for i in listed["items"]
                                if i["spec"]["leaseName"] == "versions"), ["node-new", "node-old"])

    # -- describe --------------------------------------------------------------------------------
    def test_describe_lease(self):
        leader, follower = self.elect("described")
        # Terminate the leader (it releases): one transition, and events from both candidates.
        leader.terminate()
        follower.wait_event("started", 10)
        self.create_candidate("described-cand", "described", "1.33.0", "1.33.0")
        # The follower's "became leader" Event is posted by its event recorder after "started".
        became = rf"Normal\s+LeaderElection\s+\d+s\s+.*{follower.identity} became leader"
        def described():
            o = self.ok("describe", "lease", f"{NS}/described")
            return o if re.search(became, o) else None
        out = self.wait(described, 10, f"{follower.identity}'s event in describe")
        fields = dict(re.findall(r"^([A-Z][A-Za-z ]+):[ ]+(\S.*)$", out, re.M))
        self.assertEqual(fields["Name"], "described", out)
        self.assertEqual(fields["Namespace"], NS, out)
        self.assertEqual(fields["Holder"], follower.identity, out)
        self.assertEqual(fields["Transitions"], "1", out)
        self.assertEqual(fields["Lease Duration"], "30s", out)
        self.assertRegex(fields["Expires"], r"^in \d+s$", out)
        self.assertRegex(fields["Acquired"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z \(\d+s ago\)$", out)
        self.assertRegex(fields["Renewed"], r"\(\d+s ago\)$", out)
        self.assertTrue(fields["Strategy"].startswith("<none>"), out)
        # The candidates section lists the LeaseCandidate of this lease with its versions.
        self.assertRegex(out, r"\n  described-cand\s+1\.33\.0\s+1\.33\.0\s+OldestEmulationVersion\s", out)
        # Events: who became leader and who stopped, as the lease lock recorded them.
        events = out.split("\nEvents:\n", 1)[1]
        self.assertRegex(events, rf"Normal\s+LeaderElection\s+\d+s\s+\S+.*{leader.identity} became leader")
        self.assertRegex(events, became)
        self.assertRegex(events, rf"{leader.identity} stopped leading")
        # NAME alone with -n works too.
        self.assertIn("Holder:", self.ok("describe", "lease", "described", "-n", NS))

    def test_describe_coordinated_lease(self):
        """Two tenure-elect candidates of different versions: the server's controller assigns the
        lease to the older one; describe shows the strategy, both candidates with their versions
        and renew/ping times, and the controller's LeaderElected event."""
        cands = []
        for ident, version in (("coord-133", "1.33.0"), ("coord-132", "1.32.0")):
            argv = [elect_bin(), "--kubeconfig", self.server.kubeconfig, "--lock", f"{NS}/coord", "--identity", ident,
                    "--release-on-cancel", "--coordinated", "--binary-version", version,
                    "--emulation-version", version]
            cands.append(self.add_candidate(Candidate(argv, ident, self.server.workdir)))
        cands[1].wait_event("started", FIRST_LEADER_TIMEOUT)
        out = self.ok("describe", "lease", f"{NS}/coord")
        fields = dict(re.findall(r"^([A-Z][A-Za-z ]+):[ ]+(\S.*)$", out, re.M))
        self.assertEqual(fields["Holder"], "coord-132", out)
        self.assertEqual(fields["Strategy"], "OldestEmulationVersion", out)
        self.assertEqual(fields["Preferred Holder"], "<none>", out)
        candidates = out.split("\nCandidates:\n", 1)[1].split("\nEvents:", 1)[0]
        for ident, version in (("coord-133", "1.33.0"), ("coord-132", "1.32.0")):
            self.assertRegex(candidates, rf"(?m)^  {ident}\s+{re.escape(version)}\s+{re.escape(version)}\s+"
                                         r"OldestEmulationVersion\s+\d+s ago\s+(\d+s ago|<never>)$", out)
        self.assertRegex(out, r"LeaderElected\s+\d+s\s+.*coord-132 elected", out)
        rows = parse_table(self.ok("get", "leases", "-n", NS, "-o", "wide"))
        row = next(r for r in rows if r["NAME"] == "coord")
        self.assertEqual((row["HOLDER"], row["STRATEGY"]), ("coord-132", "OldestEmulationVersion"), rows)

    # -- watch and release -----------------------------------------------------------------------
    def test_release_force_hands_a_stuck_leaders_lease_to_a_waiting_candidate(self):
        leader, follower = self.elect("stuck")
        watch = Background([tenure_bin(), "watch", "lease", f"{NS}/stuck", "--kubeconfig", self.server.kubeconfig],
                           self.env(), self.server.workdir)
        self.addCleanup(lambda: (watch.proc.stdout.close(), watch.proc.stderr.close()))
        self.addCleanup(watch.stop)
        watch.wait_line(rf"^{TIMELINE_TIME}  holder {re.escape(leader.identity)} \(holding for ", 15)

        # Without --force: refused, explained, nothing written.
        r = self.tenure("release", f"{NS}/stuck")
        self.assertEqual(r.returncode, 2, r)
        self.assertIn(f"is held by {leader.identity}", r.stderr)
        self.assertIn("--force", r.stderr)
        self.assertEqual(self.holder("stuck"), leader.identity)

        # A stuck leader (SIGSTOP): only the release can move the 30 s lease now.
        leader.pause()
        self.addCleanup(leader.resume)
        out = self.ok("release", f"{NS}/stuck", "--force")
        self.assertRegex(out, rf"^lease {NS}/stuck: released holder {re.escape(leader.identity)} "
                              r"\(resourceVersion \d+ -> \d+\)")
        follower.wait_event("started", 10)
        self.assertEqual(self.holder("stuck"), follower.identity)
        # The timeline: the release, then the new holder with the gap.
        watch.wait_line(rf"^{TIMELINE_TIME}  {re.escape(leader.identity)} -> <none>   "
                        rf"{re.escape(leader.identity)} held it [\d.]+m?s; released$", 10)
        watch.wait_line(rf"^{TIMELINE_TIME}  <none> -> {re.escape(follower.identity)}   after [\d.]+(us|ms|s) "
                        r"without a holder$", 10)

        # Releasing a lease without a holder is a no-op that says so.
        follower.terminate()
        self.wait(lambda: self.holder("stuck") == "", 10, "the follower's release")
        out = self.ok("release", f"{NS}/stuck", "--force")
        self.assertIn("has no holder; nothing to release", out)

    def test_release_only_the_named_holder(self):
        leader, _ = self.elect("named")
        r = self.tenure("release", f"{NS}/named", "--force", "--holder", "somebody-else")
        self.assertEqual(r.returncode, 1, r)
        self.assertIn(f"is held by {leader.identity}, not somebody-else", r.stderr)
        self.assertEqual(self.holder("named"), leader.identity)

    # -- errors ----------------------------------------------------------------------------------
    def test_unknown_lease_is_a_clear_error(self):
        for args in (("describe", "lease", f"{NS}/missing"), ("release", f"{NS}/missing", "--force")):
            r = self.tenure(*args)
            self.assertEqual(r.returncode, 1, r)
            self.assertIn('Error from server (NotFound): leases.coordination.k8s.io "missing" not found', r.stderr)
        r = self.tenure("describe", "lease", "a/b/c")
        self.assertEqual(r.returncode, 2, r)
        self.assertIn('"a/b/c" is not NAMESPACE/NAME', r.stderr)
        r = self.tenure("get", "pods")
        self.assertNotEqual(r.returncode, 0, r)
        self.assertIn("pods", r.stderr)

    def test_server_down_is_a_clear_error(self):
        down = Server()
        self.addCleanup(down.cleanup)
        down.start()
        down.stop()
        for args in (("get", "leases", "-A"), ("describe", "lease", f"{NS}/x"), ("watch", "lease", f"{NS}/x"),
                     ("get", "candidates")):
            r = self.tenure(*args, kubeconfig=down.kubeconfig)
            self.assertEqual(r.returncode, 1, r)
            self.assertIn(f"cannot reach the API server at https://127.0.0.1:{down.port}", r.stderr)
            self.assertIn("Connection refused", r.stderr)
        r = self.tenure("get", "leases", kubeconfig=os.path.join(self.server.workdir, "no-such-kubeconfig"))
        self.assertEqual(r.returncode, 1, r)
        self.assertIn("no-such-kubeconfig", r.stderr)

    def test_leasecandidates_not_served(self):
        """A server without the LeaseCandidate API (like kube-apiserver without the feature gate):
        `get candidates` explains, `describe` still works and says so in its Candidates line."""
        plain = Server(["--feature-gates", "CoordinatedLeaderElection=false"])
        self.addCleanup(plain.cleanup)
        plain.start()
        c = plain.client()
        self.addCleanup(c.close)
        r = c.post(lease_path("default"), {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                                           "metadata": {"name": "plain"}, "spec": {"holderIdentity": "x"}})
        self.assertEqual(r.status, 201, r.describe())
        r = self.tenure("get", "candidates", "-A", kubeconfig=plain.kubeconfig)
        self.assertEqual(r.returncode, 1, r)
        self.assertIn("does not serve LeaseCandidates", r.stderr)
        self.assertIn("--feature-gates=CoordinatedLeaderElection=true", r.stderr)
        r = self.tenure("describe", "lease", "default/plain", kubeconfig=plain.kubeconfig)
        self.assertEqual(r.returncode, 0, r)
        self.assertRegex(r.stdout, r"(?m)^Candidates:\s+<LeaseCandidate API not served>$")
        self.assertRegex(r.stdout, r"(?m)^Holder:\s+x$")

    def test_every_command_has_help_with_examples(self):
        for command in ("get", "describe", "watch", "release", "demo"):
            r = subprocess.run([tenure_bin(), command, "--help"], capture_output=True, text=True, timeout=10)
            self.assertEqual(r.returncode, 0, r)
            self.assertIn("Example", r.stdout, f"tenure {command} --help:\n{r.stdout}")
        r = subprocess.run([tenure_bin(), "--help"], capture_output=True, text=True, timeout=10)
        self.assertNotIn("demo-candidate", r.stdout)  # internal


if __name__ == "__main__":
    unittest.main()
