"""Interop with a leader election nobody here wrote: the official Kubernetes Python client
(Debian's python3-kubernetes, kubernetes.leaderelection with its ConfigMapLock) against
`tenure serve`, alone and mixed with tenure-elect --configmap on the same ConfigMap.

The Python candidates run py_candidate.py (see its docstring for the client's quirks this test
designs around): whole-second timings (lease 3 s, renew deadline 2 s, retry 1 s, the smallest
its validation allows with margin), all candidates with the same lease duration (the Python
client judges expiry with its own configured duration), no release by Python candidates (the
client cannot), and a Python leader ends only by being killed (it never loses on a healthy
server; if it did, its run() would return and the process exits after "stopped").

What is shown (issue 3, "Interop with a real client nobody here wrote"):
- three Python candidates elect one leader through tenure serve and fail over after kill -9,
  not before the lease expired;
- in a mixed group (2 Python, 2 tenure-elect), across several kills and releases, with
  handovers in both directions, leadership intervals of different candidates never overlap,
  and nobody takes over before the previous holder's lease expired (each side reads the
  other's record: tenure reads the Python client's string duration and naive timestamps).
"""

from __future__ import annotations

import datetime
import importlib
import json
import os
import sys
import time
import unittest

from tenure_testlib import (HERE, Candidate, CandidateGroup, FenceChecker, ObjectTracker, ServerTestCase, core_path, elect_bin,
                            wait_until)

LEASE, RENEW, RETRY = 3, 2, 1
NS = "interop"
LEADER_ANNOTATION = "control-plane.alpha.kubernetes.io/leader"
PY_START_TIMEOUT = 30.0  # importing the kubernetes package takes seconds on a loaded 2-core machine
EARLY_TOLERANCE = 0.1


def record_of(obj: dict) -> dict | None:
    ann = (obj.get("metadata") or {}).get("annotations") or {}
    text = ann.get(LEADER_ANNOTATION)
    if not text:
        return None
    return json.loads(text)


def record_time(text: str) -> float:
    """Epoch seconds of a record timestamp: RFC 3339 UTC (tenure, client-go) or the Python
    client's naive local "YYYY-MM-DD HH:MM:SS[.ffffff]" (str(datetime.fromtimestamp(...)))."""
    if text.endswith("Z"):
        t = datetime.datetime.fromisoformat(text[:-1]).replace(tzinfo=datetime.timezone.utc)
        return t.timestamp()
    return datetime.datetime.fromisoformat(text).timestamp()  # naive: local time


class PythonInteropTest(CandidateGroup, ServerTestCase):

    @classmethod
    def setUpClass(cls) -> None:
        try:
            importlib.import_module("kubernetes.leaderelection.leaderelection")
        except ImportError as e:
            raise unittest.SkipTest(f"python3-kubernetes is not installed ({e}); run scripts/bootstrap.sh")
        super().setUpClass()

    def setUp(self) -> None:
        super().setUp()
        self.ensure_namespace(NS)

    # -- candidates -----------------------------------------------------------------------------
    def spawn_py(self, identity: str, lock: str, log: FenceChecker | None = None) -> Candidate:
        argv = [sys.executable, os.path.join(HERE, "py_candidate.py"), "--kubeconfig", self.server.kubeconfig,
                "--lock", f"{NS}/{lock}", "--identity", identity, "--lease", str(LEASE), "--renew", str(RENEW),
                "--retry", str(RETRY)]
        if log is not None:
            argv += ["--fence-port", str(log.port)]
        return self.add_candidate(Candidate(argv, identity, self.server.workdir, kind="python"))

    def spawn_tenure(self, identity: str, lock: str, log: FenceChecker | None = None) -> Candidate:
        argv = [elect_bin(), "--kubeconfig", self.server.kubeconfig, "--lock", f"{NS}/{lock}", "--identity",
                identity, "--configmap", "--release-on-cancel", "--lease-duration", str(LEASE),
                "--renew-deadline", str(RENEW), "--retry-period", "0.5"]
        if log is not None:
            argv += ["--fence-port", str(log.port)]
        return self.add_candidate(Candidate(argv, identity, self.server.workdir, kind="tenure"))

    def wait_new_leader(self, cands: list[Candidate], timeout: float,
                        base: dict[int, int] | None = None) -> tuple[Candidate, float]:
        """The one candidate that printed a "started" line beyond `base` (default: none yet),
        and when the test read it. Take `base` before the action that causes the handover."""
        base = base or {}
        base = {id(c): base.get(id(c), 0) for c in cands}
        got = self.wait(lambda: [c for c in cands if len(c.of("started")) > base[id(c)]], timeout,
                        "a new leader among " + ", ".join(c.identity for c in cands))
        self.check(len(got) == 1, f"two candidates started at once: {[c.identity for c in got]}")
        return got[0], got[0].last("started").wall

    def cm_holder(self, lock: str) -> str | None:
        r = self.api.get(core_path("configmaps", NS, lock))
        self.assertEqual(r.status, 200, r.describe())
        rec = record_of(r.body)
        return rec.get("holderIdentity") if rec else None

    def tracker(self, lock: str) -> ObjectTracker:
        t = ObjectTracker(self.server, core_path("configmaps", NS), lock)
        self.addCleanup(t.close)
        return t

    def last_renewal_by(self, tracker: ObjectTracker, identity: str) -> float:
        """renewTime of the last record `identity` wrote, as the watch saw it."""
        recs = [record_of(o) for _, _, o in tracker.snapshot()]
        mine = [r for r in recs if r and r.get("holderIdentity") == identity]
        self.check(mine, f"no record written by {identity} seen")
        return record_time(mine[-1]["renewTime"])

    def nobody_else_starts(self, cands: list[Candidate], leader: Candidate, window: float, lock: str) -> None:
        base = {id(c): len(c.of("started")) for c in cands}
        end = time.monotonic() + window
        while time.monotonic() < end:
            for c in cands:
                self.check(len(c.of("started")) == base[id(c)], f"{c.identity} started while {leader.identity} leads")
            self.check(not leader.of("stopped") or leader.last("stopped").wall < leader.last("started").wall,
                       f"{leader.identity} stopped leading on a healthy server")
            h = self.cm_holder(lock)
            self.check(h == leader.identity, f"ConfigMap holder {h!r}, expected {leader.identity}")
            time.sleep(0.2)

    # -- tests ----------------------------------------------------------------------------------
    def test_three_python_candidates_elect_one_and_fail_over(self):
        lock = "py-only"
        tracker = self.tracker(lock)
        cands = [self.spawn_py(f"py{i}", lock) for i in range(3)]
        for c in cands:
            c.wait_event("ready", PY_START_TIMEOUT)
        leader, _ = self.wait_new_leader(cands, PY_START_TIMEOUT, )
        # The followers poll every retry period: a lease and more without a second leader.
        self.nobody_else_starts([c for c in cands if c is not leader], leader, LEASE + RETRY, lock)
        rec = record_of(self.api.get(core_path("configmaps", NS, lock)).body)
        self.assertEqual(rec["leaseDurationSeconds"], str(LEASE), rec)  # the client's non-standard record
        rest = [c for c in cands if c is not leader]
        base = self.starts(rest)
        leader.kill()
        new, started = self.wait_new_leader(rest, LEASE + 2 * RETRY + 5, base)
        renewed = self.last_renewal_by(tracker, leader.identity)
        takeover = started - renewed
        print(f"\nPython-only kill -9 takeover: {takeover:.3f} s after the last renewal "
              f"({started - leader.ended_wall:.3f} s after the kill; lease {LEASE} s, polling every {RETRY} s)")
        self.check(takeover >= LEASE - EARLY_TOLERANCE, f"took over {takeover:.3f} s after the last renewal")
        self.check(takeover <= LEASE + 3 * RETRY + 2.5, f"takeover {takeover:.3f} s")
        self.wait(lambda: self.cm_holder(lock) == new.identity, 5, f"holder {new.identity}")
        self.nobody_else_starts([c for c in rest if c is not new], new, LEASE, lock)

    def test_mixed_python_and_tenure_never_two_leaders(self):
        lock = "mixed"
        tracker = self.tracker(lock)
        # Every leader writes to this log every 50 ms while leading (its "work").
        log = FenceChecker(enforce=False)
        self.addCleanup(log.close)
        py = {f"py{i}": self.spawn_py(f"py{i}", lock, log) for i in range(2)}
        for c in py.values():
            c.wait_event("ready", PY_START_TIMEOUT)
        leader, _ = self.wait_new_leader(list(py.values()), PY_START_TIMEOUT, )
        # tenure candidates join a lock held by a Python leader: they must read its record
        # (string duration, naive timestamps) and wait.
        tn = {f"tn{i}": self.spawn_tenure(f"tn{i}", lock, log) for i in range(2)}
        for c in tn.values():
            c.wait_event("leader", 10, pred=lambda e: e.data.get("identity") == leader.identity)
        members = {**py, **tn}
        self.nobody_else_starts([c for c in members.values() if c is not leader], leader, LEASE + RETRY, lock)

        def respawn(identity: str) -> Candidate:
            c = self.spawn_py(identity, lock, log) if identity.startswith("py") else self.spawn_tenure(identity, lock, log)
            members[identity] = c
            return c

        handovers: list[tuple[str, str, str, float]] = []  # (how, from, to, seconds)
        released: set[tuple[str, int]] = set()  # (identity, token) of tenure terms ended by SIGTERM + release
        rounds = 0
        mark = 0  # tracker index just after the current term's first record
        while rounds < 4 or not ({("python", "tenure"), ("tenure", "python")} <=
                                 {(members_kind(f), members_kind(t)) for _, f, t, _ in handovers}):
            self.check(rounds < 8, f"no handover in both directions after {rounds} rounds: {handovers}")
            rounds += 1
            # The leader has renewed twice since its term began (the Python client renews once right
            # after acquiring, then every retry period), so the takeover reads a renewed record
            # written by the other client.
            self.wait(lambda: sum(1 for _, _, o in tracker.snapshot()[mark:]
                                  if (record_of(o) or {}).get("holderIdentity") == leader.identity) >= 2,
                      2 * LEASE, f"renewals by {leader.identity}")
            want_python = leader.kind == "tenure" and not any(
                members_kind(f) == "tenure" and members_kind(t) == "python" for _, f, t, _ in handovers)
            stopped_followers: list[str] = []
            if want_python:
                # Force a tenure -> Python handover: the other tenure candidates (followers) leave.
                for ident, c in tn_items(members):
                    if c is not leader:
                        c.terminate()
                        stopped_followers.append(ident)
            # Alternate crash and graceful release for tenure leaders; Python leaders can only crash.
            graceful = leader.kind == "tenure" and rounds % 2 == 0
            others = [c for c in members.values() if c is not leader and c.running()]
            base = self.starts(others)
            pre = len(tracker.snapshot())
            t0 = time.time()
            if graceful:
                released.add((leader.identity, int(leader.last("started").data["token"])))
                leader.terminate()
            else:
                leader.kill()
            new, started = self.wait_new_leader(others, LEASE + 2 * RETRY + 5, base)
            # The next round counts renewals after the new leader's first record (identities come
            # back after a respawn, so look only at records written since this handover began).
            _, acquired = tracker.objects_through(
                lambda o: (record_of(o) or {}).get("holderIdentity") == new.identity, 5,
                f"{new.identity}'s first record", start=pre)
            mark = acquired + 1
            if not graceful:
                # Killed: whoever takes over must have waited for the lease to expire.
                renewed = self.last_renewal_by(tracker, leader.identity)
                self.check(started - renewed >= LEASE - EARLY_TOLERANCE,
                           f"{new.identity} ({new.kind}) took over {started - renewed:.3f} s after the last "
                           f"renewal by {leader.identity} ({leader.kind}); lease {LEASE} s")
                how, secs = "kill -9", started - renewed
            else:
                how, secs = "release", started - t0
            handovers.append((how, leader.identity, new.identity, secs))
            print(f"\nround {rounds}: {how} {leader.identity} ({leader.kind}) -> {new.identity} ({new.kind}) "
                  f"in {secs:.3f} s" + (" after the last renewal" if how == "kill -9" else " after SIGTERM"))
            old = leader.identity
            leader = new
            self.wait(lambda: self.cm_holder(lock) == leader.identity, 5, f"holder {leader.identity}")
            for ident in [old, *stopped_followers]:
                respawn(ident)
            for c in members.values():
                if c.kind == "tenure" and c is not leader:
                    c.wait_event("leader", 10, pred=lambda e: e.data.get("identity") == leader.identity)
                elif c.kind == "python":
                    c.wait_event("ready", PY_START_TIMEOUT)
        # Everyone stops at once (kill -9: no release, so no takeover during the teardown).
        for c in self.cands:
            if c.running():
                c.proc.kill()
        for c in self.cands:
            c.kill()
        self.check_no_two_leaders(log, released, rounds)

    def check_no_two_leaders(self, log: FenceChecker, released: set[tuple[str, int]], rounds: int) -> None:
        """Leadership intervals of different terms never overlap, and neither do their writes.

        A term starts at its "started" line and ends at its "stopped" line, or when its process was
        killed. Exception: a tenure term ended by SIGTERM with release prints "stopped" from
        on_stopped_leading, which (as client-go's OnStoppedLeading) runs after the release was
        written, so the next leader may start before that line; the term's work ended at its stop
        token, before the release: its end is its last write as the log received it.
        """
        writes = sorted(log.writes())
        terms = []  # (start, end, identity, kind, key) with key (identity, token) as in the writes
        for c in self.cands:
            stops = c.of("stopped")
            for s in c.of("started"):
                token = int(s.data.get("token", 0))
                key = (c.identity, token)
                later = [e.wall for e in stops if e.wall >= s.wall]
                end = later[0] if later else c.ended_wall
                if c.kind == "tenure" and key in released:
                    mine = [w for w, t, i, _ in writes if (i, t) == key]
                    self.check(mine, f"no write of the released term {key}")
                    end = mine[-1]
                terms.append((s.wall, end, c.identity, c.kind, key))
        terms.sort()
        t0 = terms[0][0]
        timeline = "\n".join(f"  {s - t0:8.3f} .. {e - t0:8.3f}  {i} ({k}) {key[1] or ''}"
                             for s, e, i, k, key in terms)
        print(f"leadership timeline (s):\n{timeline}")
        for a in range(len(terms)):
            for b in range(a + 1, len(terms)):
                sa, ea, ia, _, _ = terms[a]
                sb, _, ib, _, _ = terms[b]
                self.check(ea <= sb, f"two leaders at once: {ia} until {ea - t0:.3f} and {ib} from "
                                     f"{sb - t0:.3f}\n{timeline}")
        self.assertGreaterEqual(len(terms), rounds + 1)
        # The writes: consecutive runs by one term (a new run when the writer or its token changes,
        # or its sequence number restarts: a new process). Interleaved leaders would give more
        # runs than terms, in another order.
        runs: list[list] = []  # [key, first wall, last wall, last seq, count]
        for wall, token, ident, seq in writes:
            key = (ident, token)
            if runs and runs[-1][0] == key and seq > runs[-1][3]:
                runs[-1][2:5] = [wall, seq, runs[-1][4] + 1]
            else:
                runs.append([key, wall, wall, seq, 1])
        summary = ", ".join(f"{k[0]}{'/' + str(k[1]) if k[1] else ''} x{n}" for k, _, _, _, n in runs)
        print(f"writes by leader, in arrival order: {summary}")
        term_keys = [key for *_, key in terms]
        it = iter(term_keys)
        self.check(all(any(r[0] == k for k in it) for r in runs),
                   f"the writes of different leaders interleave: runs {summary}; terms {term_keys}")
        # Each run lies within its term (writes and lines reach the test by different channels,
        # so allow for scheduling skew on a loaded machine: 300 ms; overlapping terms are caught above).
        for key, first, last, _, _ in runs:
            inside = [t for t in terms if t[4] == key and t[0] - 0.3 <= first and last <= t[1] + 0.3]
            self.check(inside, f"writes of {key} from {first - t0:.3f} to {last - t0:.3f} s outside its term"
                               f"\n{timeline}")


def members_kind(identity: str) -> str:
    return "python" if identity.startswith("py") else "tenure"


def tn_items(members: dict[str, Candidate]):
    return [(i, c) for i, c in members.items() if c.kind == "tenure" and c.running()]


if __name__ == "__main__":
    unittest.main()
