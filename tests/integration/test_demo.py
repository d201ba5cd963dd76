"""`tenure demo` end to end: it exits 0 within about a minute, prints the measured takeover
(kill -9), graceful handover and coordinated election times, says its timings are shorter than
the defaults, and leaves no process and no temporary folder behind.

The figures are checked for what they must show, with wide margins (this is not a benchmark):
the takeover waited for the 3 s lease to expire, the graceful handover did not.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
import unittest

from tenure_testlib import tenure_bin

DEMO_TIMEOUT = 90.0
LEASE = 3.0  # the demo's lease duration
CONTROLLER_LEASE = 5.0  # leaseDurationSeconds the coordinated election controller writes


def seconds(text: str) -> float:
    """'850us', '12.3ms', '345ms', '3.21s' -> seconds."""
    m = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
    if not m:
        raise AssertionError(f"not a duration: {text!r}")
    return float(m.group(1)) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[m.group(2)]


def processes_mentioning(text: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmdline = fh.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if text in cmdline:
            found.append(f"{pid}: {cmdline}")
    return found


class DemoTest(unittest.TestCase):
    def test_demo_runs_measures_and_cleans_up(self):
        env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST")}
        env["NO_COLOR"] = "1"
        start = time.monotonic()
        try:
            r = subprocess.run([tenure_bin(), "demo"], capture_output=True, text=True, timeout=DEMO_TIMEOUT, env=env)
        except subprocess.TimeoutExpired as e:
            self.fail(f"tenure demo did not finish within {DEMO_TIMEOUT}s\n{e.stdout}\n{e.stderr}")
        took = time.monotonic() - start
        out = r.stdout
        report = f"exit {r.returncode} after {took:.1f}s\n--- stdout ---\n{out}\n--- stderr ---\n{r.stderr}"
        print(f"\n{out}")
        self.assertEqual(r.returncode, 0, report)
        self.assertLess(took, 75, report)  # "about a minute"
        self.assertIn("shorter than the defaults", out, report)

        summary = out.split("== Summary (measured)\n", 1)
        self.assertEqual(len(summary), 2, report)
        figures = dict(re.findall(r"^  (\S.*?\S)\s{2,}(\d[\d.]*(?:us|ms|s))\s", summary[1], re.M))
        self.assertIn("takeover after kill -9", figures, report)
        self.assertIn("graceful handover", figures, report)
        takeover, handover = seconds(figures["takeover after kill -9"]), seconds(figures["graceful handover"])
        print(f"demo figures: takeover {takeover:.3f} s, handover {handover * 1000:.1f} ms")
        # kill -9: the followers must wait for the lease to expire (normally one renewal period of
        # it at most had passed at the kill; half the lease leaves room for a slow renewal on a
        # loaded machine) and take it soon after.
        self.assertGreaterEqual(takeover, LEASE / 2, report)
        self.assertLess(takeover, LEASE + 3.0, report)
        # Graceful: released on the way out, so no wait for expiry.
        self.assertLess(handover, LEASE / 2, report)
        # The same figures were announced live, where they happened.
        self.assertIn(f"takeover: {figures['takeover after kill -9']} from the kill", out, report)
        self.assertIn(f"handover: {figures['graceful handover']} from SIGTERM", out, report)
        # The coordinated round: a lone candidate is elected, an older version preempts it, and
        # when that one leaves the other is elected again. The controller writes 5 s leases, so a
        # preemption or handover well under that did not wait for an expiry.
        for what in ("coordinated election", "coordinated preemption", "coordinated handover"):
            self.assertIn(what, figures, report)
        self.assertLess(seconds(figures["coordinated preemption"]), CONTROLLER_LEASE - 1.0, report)
        self.assertLess(seconds(figures["coordinated handover"]), CONTROLLER_LEASE - 1.0, report)
        self.assertIn("preferredHolder v1.32 replaces v1.33", out, report)

        # Clean up: the temporary folder is gone and nothing runs from it.
        m = re.search(r"Cleaned up: .*, (/\S+tenure-demo-\w+) removed\.", out)
        self.assertIsNotNone(m, report)
        folder = m.group(1)
        self.assertFalse(os.path.exists(folder), report)
        self.assertEqual(processes_mentioning(folder), [], report)


if __name__ == "__main__":
    unittest.main()
