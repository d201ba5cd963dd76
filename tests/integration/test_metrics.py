"""GET /metrics on `tenure serve` (Prometheus text format, as kube-apiserver serves it).

- Only for users RBAC lets get /metrics (403 anonymous, 401 with an unknown token).
- The coordination controller's families (ControllerMetrics) and the server's own gauges; the
  counters move: after a LeaseCandidate appears the controller's candidates gauge and elections
  counter show it, and the store revision follows writes.
- `promtool check metrics` accepts the text when promtool is installed (Debian: prometheus).
- With CoordinatedLeaderElection=false there is no controller, so only the server's families.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import unittest

from tenure_testlib import (COORDINATED_FLAGS, Server, ServerTestCase, candidate_path, lease_path,
                            micro_time_now, wait_until)

CONTROLLER_FAMILIES = (
    "tenure_coordination_leading", "tenure_coordination_candidates",
    "tenure_coordination_reconciles_total", "tenure_coordination_pings_total",
    "tenure_coordination_elections_total", "tenure_coordination_preemptions_total",
    "tenure_coordination_preferred_holder_cleared_total", "tenure_coordination_strategy_conflicts_total",
    "tenure_coordination_candidates_collected_total", "tenure_coordination_errors_total",
)
SERVER_FAMILIES = ("tenure_server_start_time_seconds", "tenure_store_revision")


def samples(text: str) -> dict[str, float]:
    """Unlabelled samples: name -> value."""
    out = {}
    for line in text.splitlines():
        m = re.fullmatch(r"([a-zA-Z_:][a-zA-Z0-9_:]*) (\S+)", line)
        if m:
            out[m.group(1)] = float(m.group(2))
    return out


def families(text: str) -> dict[str, str]:
    """# TYPE lines: name -> type."""
    return dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M))


class MetricsTest(ServerTestCase):
    SERVER_ARGS = (*COORDINATED_FLAGS, "--coordination-election-duration", "1")

    def scrape(self) -> str:
        r = self.api.get("/metrics")
        self.assertEqual(r.status, 200, r.describe())
        self.assertEqual(r.header("content-type"), "text/plain; version=0.0.4; charset=utf-8")
        return r.raw.decode()

    def test_requires_the_token(self) -> None:
        r = self.api.get("/metrics", token=False)
        self.assertEqual(r.status, 403, r.describe())  # anonymous: RBAC grants /metrics to no one
        r = self.api.get("/metrics", token="wrong")
        self.assertEqual(r.status, 401, r.describe())

    def test_controller_and_server_families_and_they_move(self) -> None:
        text = self.scrape()
        types = families(text)
        for name in CONTROLLER_FAMILIES + SERVER_FAMILIES:
            self.assertIn(name, types, text)
            self.assertIn(name, samples(text), text)
        self.assertEqual(types["tenure_coordination_elections_total"], "counter")
        self.assertEqual(types["tenure_coordination_leading"], "gauge")
        # Admission: in-flight requests and 429s by priority level (the scrape itself is one).
        self.assertEqual(types.get("tenure_server_inflight_requests"), "gauge", text)
        self.assertEqual(types.get("tenure_server_rejected_requests_total"), "counter", text)
        for level in ("leader-election", "read-only", "mutating"):
            self.assertIn(f'tenure_server_rejected_requests_total{{priority_level="{level}"}} ', text)
        wait_until(lambda: samples(self.scrape())["tenure_coordination_leading"] == 1, 20,
                   "the controller to lead its own election")
        before = samples(self.scrape())

        candidate = {"apiVersion": "coordination.k8s.io/v1beta1", "kind": "LeaseCandidate",
                     "metadata": {"name": "metrics-a"},
                     "spec": {"leaseName": "metrics-lease", "binaryVersion": "1.34.0",
                              "emulationVersion": "1.34.0", "strategy": "OldestEmulationVersion",
                              "renewTime": micro_time_now()}}
        self.create(candidate_path("default"), candidate)
        wait_until(lambda: self.api.get(lease_path("default", "metrics-lease")).status == 200, 20,
                   "the controller to create the lease")
        # An election is counted while its reconcile is still under way, the reconcile once it is
        # complete: wait for both, since a scrape may fall in between.
        def counted() -> dict[str, float] | None:
            s = samples(self.scrape())
            moved = all(s[name] > before[name] for name in ("tenure_coordination_elections_total",
                                                           "tenure_coordination_reconciles_total"))
            return s if moved else None

        after = wait_until(counted, 20, "the elections and reconciles totals to count the election")
        self.assertGreaterEqual(after["tenure_coordination_candidates"], 1)
        self.assertGreater(after["tenure_coordination_reconciles_total"],
                           before["tenure_coordination_reconciles_total"])
        self.assertGreater(after["tenure_store_revision"], before["tenure_store_revision"])

    def test_promtool_accepts_the_text(self) -> None:
        promtool = shutil.which("promtool")
        if promtool is None:
            raise unittest.SkipTest("promtool is not installed (Debian package prometheus)")
        text = self.scrape()
        check = subprocess.run([promtool, "check", "metrics"], input=text.encode(), capture_output=True,
                               timeout=30)
        self.assertEqual(check.returncode, 0,
                         f"promtool check metrics:\n{check.stdout.decode()}{check.stderr.decode()}\n{text}")


class MetricsWithoutCoordinationTest(ServerTestCase):
    SERVER_ARGS = ("--feature-gates", "CoordinatedLeaderElection=false")

    def test_only_the_server_families(self) -> None:
        r = self.api.get("/metrics")
        self.assertEqual(r.status, 200, r.describe())
        types = families(r.raw.decode())
        for name in SERVER_FAMILIES:
            self.assertIn(name, types)
        self.assertFalse([n for n in types if n.startswith("tenure_coordination_")], types)


if __name__ == "__main__":
    unittest.main()
