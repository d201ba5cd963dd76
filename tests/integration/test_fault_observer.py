"""The fault suite's checker on synthetic candidates: every rule it applies, including the cases
it must flag (so a checker that never reports anything fails here). No process is started.
"""

from __future__ import annotations

import unittest
from dataclasses import dataclass, field

import fault_observer as fo
from tenure_testlib import Event


@dataclass
class FakeCandidate:
    """Stands in for tenure_testlib.Candidate: identity, kind, events (arrival times), end."""

    identity: str
    kind: str = "lease"
    events: list = field(default_factory=list)
    ended_mono: float | None = None

    def at(self, mono: float, event: str, **data) -> "FakeCandidate":
        self.events.append(Event(wall=1000.0 + mono, mono=mono, data={"event": event, **data}))
        return self


def beats(c: FakeCandidate, start: float, end: float, every: float = 0.02) -> None:
    t = start
    while t <= end + 1e-9:
        c.at(round(t, 6), "beat", identity=c.identity)
        t += every


def check(cands, inject=2.0, window=(0.0, 100.0), **kw) -> fo.RoundResult:
    return fo.check_round(fault="test", store="sqlite", kind="lease", config={"lease": 2}, index=0,
                          candidates=cands, pauses=kw.pop("pauses", ()), window=window, inject=inject, **kw)


class IntervalTest(unittest.TestCase):
    def test_overlap_of_two_identities_is_detected(self):
        a = FakeCandidate("a").at(1.0, "started", token=5).at(5.0, "stopped")
        b = FakeCandidate("b").at(4.0, "started", token=7)
        r = check([a, b])
        self.assertEqual(len(r.overlaps), 1, r.describe())
        o = r.overlaps[0]
        self.assertEqual({o.a.identity, o.b.identity}, {"a", "b"})
        self.assertAlmostEqual(o.start, 4.0)
        self.assertAlmostEqual(o.end, 5.0)
        self.assertTrue(r.failed)
        self.assertIn("OVERLAP", r.describe())
        self.assertIn("+2000.0", r.describe())  # b's start, relative to the injection at 2.0

    def test_back_to_back_is_not_flagged(self):
        a = FakeCandidate("a").at(1.0, "started", token=5).at(3.0, "stopped").at(3.5, "work-ended")
        b = FakeCandidate("b").at(3.5, "started", token=7)  # starts exactly when a's work ended
        c = FakeCandidate("c").at(9.0, "started", token=9)
        b.at(8.0, "work-ended")
        r = check([a, b, c])
        self.assertEqual(r.overlaps, [], r.describe())
        self.assertFalse(r.failed)

    def test_work_ended_beats_stopped(self):
        # "stopped" came before b started, but the work only ended after: two leaders working.
        a = FakeCandidate("a").at(1.0, "started", token=5).at(3.0, "stopped").at(3.4, "work-ended")
        b = FakeCandidate("b").at(3.2, "started", token=7)
        r = check([a, b])
        self.assertEqual(len(r.overlaps), 1, r.describe())
        self.assertAlmostEqual(r.overlaps[0].ms, 200.0, places=3)
        self.assertEqual(r.overlaps[0].a.end_by, "work-ended")

    def test_last_beat_closes_a_wrapped_command_and_an_open_one_overlaps(self):
        a = FakeCandidate("a", kind="run").at(1.0, "started", token=5)
        beats(a, 1.02, 3.0)
        b = FakeCandidate("b", kind="run").at(3.01, "started", token=7)
        self.assertEqual(check([a, b]).overlaps, [])
        [iv] = fo.candidate_intervals(a)
        self.assertEqual((iv.end_by, iv.end), ("beat", 3.0))
        # The same beats seen as still going on (the check runs 0.1 s after the last one).
        [live] = fo.candidate_intervals(a, now=3.1)
        self.assertTrue(live.open)
        c = FakeCandidate("c", kind="run").at(2.5, "started", token=9)
        self.assertEqual(len(check([a, c]).overlaps), 1)

    def test_kill_closes_the_interval_at_the_process_end(self):
        a = FakeCandidate("a").at(1.0, "started", token=5)
        a.ended_mono = 3.0  # kill -9: no line after started
        b = FakeCandidate("b").at(5.0, "started", token=7)
        r = check([a, b])
        self.assertEqual(r.overlaps, [])
        self.assertEqual(fo.candidate_intervals(a)[0].end_by, "exit")
        self.assertAlmostEqual(r.takeover_ms, 3000.0)
        early = FakeCandidate("early").at(2.5, "started", token=7)
        self.assertEqual(len(check([a, early]).overlaps), 1)

    def test_open_interval_overlaps_any_later_start(self):
        a = FakeCandidate("a").at(1.0, "started", token=5)
        b = FakeCandidate("b").at(50.0, "started", token=7)
        r = check([a, b])
        self.assertEqual(len(r.overlaps), 1)
        self.assertEqual(r.overlaps[0].end, fo.INF)
        self.assertIn("open", r.describe())

    def test_same_identity_restarted_is_not_an_overlap(self):
        a1 = FakeCandidate("a").at(1.0, "started", token=5)
        a2 = FakeCandidate("a").at(2.0, "started", token=7)
        self.assertEqual(check([a1, a2]).overlaps, [])

    def test_terms_of_one_candidate_are_split(self):
        a = FakeCandidate("a").at(1.0, "started", token=5).at(2.0, "stopped").at(2.1, "work-ended")
        a.at(6.0, "started", token=9)
        b = FakeCandidate("b").at(3.0, "started", token=7).at(5.0, "stopped").at(5.2, "work-ended")
        ivs = fo.all_intervals([a, b])
        self.assertEqual([(iv.identity, iv.term, iv.token) for iv in ivs], [("a", 0, 5), ("b", 0, 7), ("a", 1, 9)])
        self.assertEqual(fo.find_overlaps(ivs), [])
        c = FakeCandidate("c").at(1.0, "started", token=5).at(2.0, "stopped").at(4.0, "started", token=8)
        overlaps = fo.find_overlaps(fo.all_intervals([c, b]))  # c's second term starts inside b's
        self.assertEqual([(o.a.identity, o.b.identity, o.b.term) for o in overlaps], [("b", "c", 1)])

    def test_overlap_within_the_observers_own_stall_is_unproven(self):
        a = FakeCandidate("a").at(1.0, "started", token=5).at(5.010, "work-ended")
        b = FakeCandidate("b").at(5.0, "started", token=7)
        r = check([a, b])
        self.assertEqual(len(r.overlaps), 1, "10 ms with no stall is proven")
        # The observer was stalled from 4.90 to 5.008: a's line may have been written at 4.90.
        r = check([a, b], stalls=[(4.90, 5.008)])
        self.assertEqual(r.overlaps, [])
        self.assertEqual(len(r.unproven), 1)
        self.assertAlmostEqual(r.unproven[0][1], 0.110, places=6)
        self.assertFalse(r.failed)
        self.assertIn("unproven overlap", r.describe())
        # A stall long before does not excuse it; nor does anything excuse a sub-BASE_DELAY one.
        self.assertEqual(len(check([a, b], stalls=[(3.0, 3.5)]).overlaps), 1)
        c = FakeCandidate("c").at(1.0, "started", token=5).at(5.001, "work-ended")
        self.assertEqual(check([c, b]).overlaps, [])
        self.assertEqual(len(check([c, b]).unproven), 1)

    def test_window_attributes_an_overlap_to_one_round(self):
        a = FakeCandidate("a").at(1.0, "started").at(5.0, "stopped")
        b = FakeCandidate("b").at(4.0, "started").at(6.0, "stopped")
        ivs = fo.all_intervals([a, b])
        self.assertEqual(len(fo.find_overlaps(ivs, (0.0, 4.5))), 1)
        self.assertEqual(fo.find_overlaps(ivs, (4.5, 10.0)), [])


class PauseAndFencingTest(unittest.TestCase):
    def setUp(self):
        self.a = FakeCandidate("a").at(1.0, "started", token=5)
        # Paused at 2.0, resumed at 6.0; it notices the lost term after the resume.
        self.a.at(6.1, "stopped").at(6.2, "work-ended")
        self.b = FakeCandidate("b").at(4.5, "started", token=7)
        self.pause = fo.Pause(self.a, paused_mono=2.0, paused_wall=1002.0, resumed_mono=6.0, resumed_wall=1006.0)

    def test_paused_leader_is_excluded_from_the_overlap_check(self):
        r = check([self.a, self.b], pauses=[self.pause], inject=2.0)
        self.assertEqual(r.overlaps, [], r.describe())
        [iv] = fo.candidate_intervals(self.a, [self.pause])
        self.assertEqual((iv.end_by, iv.end), ("paused", 2.0))
        # Without the note the same lines are two leaders.
        self.assertEqual(len(check([self.a, self.b]).overlaps), 1)

    def test_late_accepted_write_of_the_paused_term_is_a_failure(self):
        accepted = [(1001.5, 5, "a", 10), (1004.6, 7, "b", 0), (1006.05, 5, "a", 11)]
        r = check([self.a, self.b], pauses=[self.pause], fence_accepted=accepted)
        self.assertEqual(len(r.late_writes), 1, r.describe())
        w = r.late_writes[0]
        self.assertEqual((w.identity, w.token, w.seq, w.newer_token), ("a", 5, 11, 7))
        self.assertTrue(r.failed)
        self.assertIn("ACCEPTED LATE WRITE", r.describe())

    def test_rejected_late_writes_are_counted_not_failed(self):
        accepted = [(1001.5, 5, "a", 10), (1004.6, 7, "b", 0)]
        rejected = [(1006.05, 5, "a", 11), (1006.08, 5, "a", 12)]
        r = check([self.a, self.b], pauses=[self.pause], fence_accepted=accepted, fence_rejected=rejected)
        self.assertEqual(r.late_writes, [])
        self.assertEqual(r.rejected_after_resume, 2)
        self.assertFalse(r.failed, r.describe())

    def test_refused_write_of_a_term_that_was_not_paused_is_two_leaders(self):
        # No pause: a's write refused after b's token was accepted means a still worked.
        a = FakeCandidate("a").at(1.0, "started", token=5).at(4.0, "work-ended")
        b = FakeCandidate("b").at(4.1, "started", token=7)
        r = check([a, b], fence_accepted=[(1004.2, 7, "b", 0)], fence_rejected=[(1004.25, 5, "a", 30)])
        self.assertEqual(r.overlaps, [])
        self.assertEqual(r.refused, [(1004.25, 5, "a", 30)])
        self.assertTrue(r.failed)
        self.assertIn("TWO LEADERS (fencing)", r.describe())
        self.assertFalse(check([a, b], fence_rejected=[(1004.25, 5, "a", 30)], measure_only=True).failed)

    def test_write_after_resume_before_any_newer_term_is_fine(self):
        # The pause was shorter than the lease: nobody else wrote, the term simply went on.
        accepted = [(1006.05, 5, "a", 11), (1007.0, 7, "b", 0)]
        r = check([self.a, self.b], pauses=[self.pause], fence_accepted=accepted)
        self.assertEqual(r.late_writes, [])


class LivenessTest(unittest.TestCase):
    def test_takeover_handover_and_gap(self):
        a = FakeCandidate("a").at(1.0, "started", token=5).at(2.05, "stopped").at(2.35, "work-ended")
        b = FakeCandidate("b").at(2.36, "started", token=7)
        r = check([a, b], inject=2.0, graceful=True)
        self.assertAlmostEqual(r.takeover_ms, 360.0, places=3)
        self.assertAlmostEqual(r.handover_ms, 10.0, places=3)
        self.assertEqual(r.handover_end_by, "work-ended")
        self.assertEqual(r.leader_changes, 1)
        self.assertFalse(check([a, b], inject=2.0).handover_ms)  # only for graceful rounds

    def test_continuation_counts_when_no_new_term_starts(self):
        a = FakeCandidate("a").at(1.0, "started", token=5)
        r = check([a], inject=2.0, continued_at=2.4)
        self.assertTrue(r.continued)
        self.assertAlmostEqual(r.takeover_ms, 400.0, places=3)
        self.assertEqual(r.leader_changes, 0)

    def test_measured_overlap_is_reported_not_failed(self):
        a = FakeCandidate("a").at(1.0, "started", token=5).at(4.2, "work-ended")
        b = FakeCandidate("b").at(4.0, "started", token=7)
        r = check([a, b], measure_only=True)
        self.assertFalse(r.failed)
        self.assertAlmostEqual(r.overlap_ms(), 200.0, places=3)
        self.assertAlmostEqual(r.gap_ms, -200.0, places=3)
        self.assertIn("measured overlap", r.describe())

    def test_percentiles_and_summary_table(self):
        self.assertEqual(fo.percentile([5, 1, 3, 2, 4], 50), 3)
        self.assertEqual(fo.percentile(list(range(1, 101)), 99), 99)
        self.assertIsNone(fo.percentile([], 50))
        results = []
        for i, t in enumerate((2.5, 2.7, 2.6)):
            a = FakeCandidate("a").at(1.0, "started", token=1)
            a.ended_mono = 2.0
            b = FakeCandidate("b").at(2.0 + t, "started", token=2)
            results.append(check([a, b], inject=2.0))
        rows = fo.summarize(results)
        self.assertEqual(len(rows), 1)
        row = rows[0]
        self.assertEqual((row["rounds"], row["leader_changes"], row["overlaps"]), (3, 3, 0))
        self.assertAlmostEqual(row["takeover_p50_ms"], 2600.0, places=3)
        self.assertAlmostEqual(row["takeover_max_ms"], 2700.0, places=3)
        table = fo.format_table(rows)
        self.assertIn("test", table)
        self.assertIn("2600", table)
        self.assertEqual(results[0].to_json()["overlaps"], [])


if __name__ == "__main__":
    unittest.main()
