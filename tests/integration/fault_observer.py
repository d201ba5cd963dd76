"""The fault suite's independent checker: pure functions over candidates' JSON lines.

It never reads a candidate's clock. Every time it uses is the ARRIVAL time of a line on the
test's own monotonic clock (tenure_testlib.Event.mono, stamped by the reader thread of that
candidate), the time the test saw a process end (Candidate.ended_mono), or a note the scenario
took on the same clock (when it paused and resumed a process), plus the wall time at which the
FenceChecker received each write (time.time() of the test process, a clock no candidate sets).

Leadership intervals, one per candidate and term:
- open at the arrival of {"event":"started", ...} (every candidate kind prints it when its
  leader work starts; it may carry "token");
- close at the arrival of {"event":"work-ended"} (the term's work has really stopped), else at
  the last {"event":"beat"} of the term (a wrapped command's heartbeat), else at
  {"event":"stopped"}, else when the test saw the process end, else at the next term's start
  (a candidate that started again without saying the last term ended), else the interval is
  still open;
- for a candidate that the scenario paused (SIGSTOP) while leading, the interval closes at the
  pause: a stopped process cannot act. What it does after it resumes is checked by fencing:
  every write the FenceChecker ACCEPTED from that identity and token after the resume, when a
  term with a higher token had already had an accepted write, is a failure.

Arrival times are late by the pipe and the reader thread, and by any stall of the observing
process itself (all reader threads share it: after a stall, lines written far apart arrive a
fraction of a millisecond apart). The suite measures its own stalls (a thread that notes when
it wakes late). An overlap of two intervals of DIFFERENT identities is PROVEN when it is longer
than the most the earlier end's line can have been delayed (its arrival minus the start of a
stall that ended just before it, at least BASE_DELAY); a proven overlap is a failure, reported
with the fault, the configuration and both intervals in milliseconds relative to the fault
injection. A shorter one is reported as unproven, not failed.

A second check does not depend on any time: the FenceChecker serializes every write. A write of
a term that was not paused, refused (409) because a newer token had already been accepted, means
that term's work still acted after the next term's work began: two leaders, as the downstream
saw them. That is a failure too. (A paused leader's refused writes are the expected fencing.)

Scenarios that only measure (a clock beyond the drift the library assumes) report both instead
of failing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Protocol, Sequence

INF = math.inf
# The least delay assumed for a line's arrival (pipe, wake-up of its reader thread).
BASE_DELAY = 0.002
# A term without work-ended, stopped or exit whose last heartbeat is more recent than this (at
# the time of the check) is still going on: its wrapped command is beating.
BEAT_STALE = 0.5


class EventLike(Protocol):
    mono: float
    data: dict

    @property
    def name(self) -> str: ...


class CandidateLike(Protocol):
    """What the observer reads from tenure_testlib.Candidate (or a synthetic stand-in)."""

    identity: str
    kind: str
    events: list
    ended_mono: float | None


@dataclass
class Pause:
    """The scenario stopped `candidate` (SIGSTOP) at paused_* and resumed it (SIGCONT) at
    resumed_* (None: still stopped). mono: time.monotonic(), wall: time.time() of the test."""

    candidate: Any
    paused_mono: float
    paused_wall: float
    resumed_mono: float | None = None
    resumed_wall: float | None = None


@dataclass
class Interval:
    identity: str
    kind: str
    term: int  # index of the term among the candidate's "started" lines
    token: int | None
    start: float  # monotonic arrival of "started"
    end: float | None  # monotonic end (see end_by); None: open
    end_by: str  # work-ended | beat | stopped | exit | next-term | paused | open
    pause: Pause | None = None
    candidate: Any = field(default=None, repr=False, compare=False)

    @property
    def open(self) -> bool:
        return self.end is None

    @property
    def effective_end(self) -> float:
        return INF if self.end is None else self.end

    def rel(self, t0: float) -> str:
        """"[start, end] ms" relative to t0, with how the end is known."""
        end = "open" if self.end is None else f"{(self.end - t0) * 1000:+.1f}"
        return (f"{self.identity} ({self.kind}, term {self.term}, token {self.token}): "
                f"[{(self.start - t0) * 1000:+.1f}, {end}] ms, end by {self.end_by}")


@dataclass
class Overlap:
    a: Interval
    b: Interval
    start: float
    end: float  # INF when both are still open

    @property
    def ms(self) -> float:
        return (self.end - self.start) * 1000


def _snapshot(c: CandidateLike) -> list:
    cond = getattr(c, "cond", None)
    if cond is not None:
        with cond:
            return list(c.events)
    return list(c.events)


def _token(data: dict) -> int | None:
    try:
        return int(data["token"])
    except (KeyError, TypeError, ValueError):
        return None


def candidate_intervals(c: CandidateLike, pauses: Iterable[Pause] = (), now: float | None = None) -> list[Interval]:
    """The candidate's leadership intervals, in term order (see the module docstring).

    now: the time of the check (monotonic); a term closed only by heartbeats whose last beat is
    within BEAT_STALE of it, of a process still running, is open. Without it, the last beat
    closes the term.
    """
    events = _snapshot(c)
    starts = [i for i, e in enumerate(events) if e.name == "started"]
    mine = [p for p in pauses if p.candidate is c]
    out: list[Interval] = []
    for k, i in enumerate(starts):
        j = starts[k + 1] if k + 1 < len(starts) else len(events)
        term = events[i + 1:j]
        start = events[i].mono
        ended = next((e for e in term if e.name == "work-ended"), None)
        beats = [e for e in term if e.name == "beat"]
        stopped = next((e for e in term if e.name == "stopped"), None)
        end: float | None
        if ended is not None:
            end, by = ended.mono, "work-ended"
        elif beats and not (now is not None and c.ended_mono is None and k + 1 == len(starts)
                            and now - beats[-1].mono < BEAT_STALE):
            end, by = beats[-1].mono, "beat"
        elif stopped is not None:
            end, by = stopped.mono, "stopped"
        elif k + 1 < len(starts):
            end, by = events[j].mono, "next-term"
        elif c.ended_mono is not None:
            end, by = max(c.ended_mono, start), "exit"
        else:
            end, by = None, "open"
        iv = Interval(c.identity, getattr(c, "kind", ""), k, _token(events[i].data), start, end, by, candidate=c)
        for p in mine:
            if iv.start < p.paused_mono < iv.effective_end:
                iv.end, iv.end_by, iv.pause = p.paused_mono, "paused", p
                break
        out.append(iv)
    return out


def all_intervals(cands: Iterable[CandidateLike], pauses: Iterable[Pause] = (),
                  now: float | None = None) -> list[Interval]:
    pauses = list(pauses)
    out = [iv for c in cands for iv in candidate_intervals(c, pauses, now)]
    return sorted(out, key=lambda iv: iv.start)


def open_intervals(intervals: Iterable[Interval]) -> list[Interval]:
    return [iv for iv in intervals if iv.open]


def find_overlaps(intervals: Sequence[Interval], window: tuple[float, float] | None = None) -> list[Overlap]:
    """Pairs of intervals of different identities that overlap (strictly: an interval that
    starts exactly when another ends does not). With a window, only overlaps that begin in
    [window[0], window[1]) are returned, so consecutive windows never report one twice."""
    out = []
    ivs = sorted(intervals, key=lambda iv: iv.start)
    for x in range(len(ivs)):
        for y in range(x + 1, len(ivs)):
            a, b = ivs[x], ivs[y]
            if b.start >= a.effective_end:
                continue
            if a.identity == b.identity:
                continue
            s, e = max(a.start, b.start), min(a.effective_end, b.effective_end)
            if s < e and (window is None or window[0] <= s < window[1]):
                out.append(Overlap(a, b, s, e))
    return out


def delay_bound(t: float, stalls: Sequence[tuple[float, float]] = ()) -> float:
    """The most a line that arrived at t can have been delayed by the observing process: back to
    the start of a stall (a, b) that ended at most BASE_DELAY before t (or contains t)."""
    bound = BASE_DELAY
    for a, b in stalls:
        if a < t <= b + BASE_DELAY:
            bound = max(bound, t - a)
    return bound


def proven(o: Overlap, stalls: Sequence[tuple[float, float]] = ()) -> bool:
    """The overlap cannot be explained by the late arrival of the earlier end's line."""
    return o.end == INF or (o.end - o.start) > delay_bound(o.end, stalls)


@dataclass
class LateWrite:
    """An accepted write of a paused term after its resume, behind a newer term's accepted write."""

    identity: str
    token: int
    wall: float
    seq: int
    newer_token: int
    newer_wall: float


def late_fenced_writes(intervals: Iterable[Interval], accepted: Sequence[tuple[float, int, str, int]],
                       rejected: Sequence[tuple[float, int, str, int]] = ()) -> tuple[list[LateWrite], int]:
    """Fencing check of the paused terms: (failures, rejected writes of those terms after their
    resume). accepted/rejected: FenceChecker.writes() tuples (wall, token, identity, seq)."""
    failures: list[LateWrite] = []
    rejected_late = 0
    for iv in intervals:
        p = iv.pause
        if p is None or iv.token is None or p.resumed_wall is None:
            continue
        for wall, token, ident, seq in accepted:
            if ident != iv.identity or token != iv.token or wall <= p.resumed_wall:
                continue
            newer = [w for w in accepted if w[1] > iv.token and w[0] <= wall]
            if newer:
                failures.append(LateWrite(ident, token, wall, seq, newer[0][1], newer[0][0]))
        rejected_late += sum(1 for wall, token, ident, _ in rejected
                             if ident == iv.identity and token == iv.token and wall > p.resumed_wall)
    return failures, rejected_late


def refused_after_newer(intervals: Iterable[Interval], rejected: Sequence[tuple[float, int, str, int]]
                        ) -> list[tuple[float, int, str, int]]:
    """Refused writes of terms that were NOT paused: that term still wrote after a newer token's
    write was accepted (the FenceChecker refuses nothing else)."""
    paused = {(iv.identity, iv.token) for iv in intervals if iv.pause is not None}
    return [w for w in rejected if (w[2], w[1]) not in paused]


def leaders_at(intervals: Iterable[Interval], t: float) -> list[Interval]:
    """Intervals that contain t (start <= t < end)."""
    return [iv for iv in intervals if iv.start <= t < iv.effective_end]


def next_start(intervals: Iterable[Interval], after: float) -> Interval | None:
    """The first interval that started strictly after `after`."""
    later = [iv for iv in intervals if iv.start > after]
    return min(later, key=lambda iv: iv.start) if later else None


# --------------------------------------------------------------------------------------------
# One round
# --------------------------------------------------------------------------------------------


@dataclass
class RoundResult:
    fault: str
    store: str
    kind: str
    config: dict
    index: int
    window: tuple[float, float]
    inject: float | None  # monotonic time of the fault injection
    intervals: list[Interval]
    overlaps: list[Overlap]  # proven
    late_writes: list[LateWrite]
    rejected_after_resume: int
    leader_changes: int  # terms started after the injection, within the round
    takeover_ms: float | None  # injection -> next start (or confirmed continuation)
    continued: bool  # liveness came from the old leader keeping its lease, not a new term
    handover_ms: float | None  # graceful: next start - the old leader's work end
    handover_end_by: str | None
    measure_only: bool  # overlaps are measured and reported, not failures
    gap_ms: float | None  # old leader's end -> next start (negative: they overlapped)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    inject_wall: float | None = None  # time.time() of the injection (to place fenced writes)
    unproven: list[tuple[Overlap, float]] = field(default_factory=list)  # (overlap, delay bound s)
    refused: list[tuple[float, int, str, int]] = field(default_factory=list)  # non-paused terms' 409s

    @property
    def failed(self) -> bool:
        return bool(self.errors or self.late_writes or
                    ((self.overlaps or self.refused) and not self.measure_only))

    def overlap_ms(self) -> float:
        return max((o.ms for o in self.overlaps), default=0.0)

    def describe(self) -> str:
        t0 = self.inject if self.inject is not None else self.window[0]
        head = (f"round {self.index} of {self.fault} on {self.store}/{self.kind} "
                f"(config {self.config}); times in ms relative to the fault injection")
        lines = [head]
        for o in self.overlaps:
            what = "measured overlap" if self.measure_only else "OVERLAP (two leaders)"
            lines.append(f"  {what} of {('open' if o.end == INF else f'{o.ms:.1f} ms')} from "
                         f"{(o.start - t0) * 1000:+.1f} ms:\n    {o.a.rel(t0)}\n    {o.b.rel(t0)}")
        for o, bound in self.unproven:
            lines.append(f"  unproven overlap of {o.ms:.1f} ms from {(o.start - t0) * 1000:+.1f} ms (not failed: the "
                         f"observer itself may have read the earlier end up to {bound * 1000:.1f} ms late):\n"
                         f"    {o.a.rel(t0)}\n    {o.b.rel(t0)}")
        for wall, token, ident, seq in self.refused:
            what = "measured" if self.measure_only else "TWO LEADERS (fencing)"
            at = f"{(wall - self.inject_wall) * 1000:+.1f} ms" if self.inject_wall else f"wall {wall:.3f}"
            lines.append(f"  {what}: write seq {seq} of {ident} with token {token} refused at {at}: "
                         f"a newer term had already written")
        for w in self.late_writes:
            lines.append(f"  ACCEPTED LATE WRITE: {w.identity} token {w.token} seq {w.seq} at wall "
                         f"{w.wall:.3f}, after token {w.newer_token} was accepted at {w.newer_wall:.3f}")
        for e in self.errors:
            lines.append(f"  ERROR: {e}")
        for n in self.notes:
            lines.append(f"  note: {n}")
        lines.append("  intervals in the round:")
        lo, hi = self.window
        for iv in self.intervals:
            if iv.effective_end >= lo and iv.start < hi:
                lines.append(f"    {iv.rel(t0)}")
        return "\n".join(lines)

    def to_json(self) -> dict:
        t0 = self.inject if self.inject is not None else self.window[0]

        def ms(t: float | None) -> float | None:
            return None if t is None or t == INF else round((t - t0) * 1000, 3)
        lo, hi = self.window
        return {
            "fault": self.fault, "store": self.store, "kind": self.kind, "config": self.config,
            "round": self.index, "failed": self.failed, "measure_only": self.measure_only,
            "leader_changes": self.leader_changes, "takeover_ms": _r(self.takeover_ms),
            "continued": self.continued, "handover_ms": _r(self.handover_ms),
            "handover_end_by": self.handover_end_by, "gap_ms": _r(self.gap_ms),
            "rejected_after_resume": self.rejected_after_resume,
            "overlaps": [{"a": o.a.identity, "b": o.b.identity, "from_ms": ms(o.start),
                          "to_ms": ms(o.end), "ms": None if o.end == INF else round(o.ms, 3)}
                         for o in self.overlaps],
            "late_writes": [vars(w) for w in self.late_writes],
            "unproven_overlaps": [{"a": o.a.identity, "b": o.b.identity, "from_ms": ms(o.start), "ms": round(o.ms, 3),
                                   "delay_bound_ms": round(b * 1000, 3)} for o, b in self.unproven],
            "refused_writes": [{"wall": w[0], "token": w[1], "identity": w[2], "seq": w[3]} for w in self.refused],
            "errors": self.errors, "notes": self.notes,
            "intervals": [{"identity": iv.identity, "kind": iv.kind, "term": iv.term, "token": iv.token,
                           "start_ms": ms(iv.start), "end_ms": ms(iv.end), "end_by": iv.end_by}
                          for iv in self.intervals if iv.effective_end >= lo and iv.start < hi],
        }


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def check_round(*, fault: str, store: str, kind: str, config: dict, index: int,
                candidates: Iterable[CandidateLike], pauses: Iterable[Pause], window: tuple[float, float],
                inject: float | None, fence_accepted: Sequence[tuple[float, int, str, int]] = (),
                fence_rejected: Sequence[tuple[float, int, str, int]] = (), continued_at: float | None = None,
                graceful: bool = False, measure_only: bool = False, now: float | None = None,
                stalls: Sequence[tuple[float, float]] = (), errors: Iterable[str] = (),
                notes: Iterable[str] = (), inject_wall: float | None = None) -> RoundResult:
    """Everything the suite asserts and reports about one round.

    window: [start, end) of the round (monotonic); overlaps are attributed to the round in which
    they begin. inject: the fault injection. continued_at: when the scenario confirmed that the
    old leader kept its lease (a renewal seen after the injection), for faults that need not
    cause a new term. graceful: also measure the handover (next start - old leader's end).
    stalls: (start, end) of the observing process's own stalls (see delay_bound).
    fence_accepted/fence_rejected: the round's FenceChecker writes.
    """
    ivs = all_intervals(candidates, pauses, now)
    found = find_overlaps(ivs, window)
    overlaps = [o for o in found if proven(o, stalls)]
    unproven = [(o, delay_bound(o.end, stalls)) for o in found if not proven(o, stalls)]
    in_round = [iv for iv in ivs if iv.start < window[1]]
    late, rejected_late = late_fenced_writes(in_round, fence_accepted, fence_rejected)
    refused = refused_after_newer(in_round, fence_rejected)
    changes = sum(1 for iv in ivs if inject is not None and inject < iv.start < window[1])
    takeover = handover = gap = None
    handover_by = None
    continued = False
    if inject is not None:
        nxt = next_start(ivs, inject)
        t_next = nxt.start if nxt is not None and nxt.start < window[1] else None
        if continued_at is not None and (t_next is None or continued_at < t_next):
            takeover, continued = (continued_at - inject) * 1000, True
        elif t_next is not None:
            takeover = (t_next - inject) * 1000
        # The leader at the injection: the term that started last before it (a killed wrapped
        # command's term may already be closed at its last heartbeat).
        old = [iv for iv in ivs if iv.start <= inject and iv is not nxt]
        if nxt is not None and old:
            prev = max(old, key=lambda iv: iv.start)
            if prev.end is not None:
                gap = (nxt.start - prev.end) * 1000
                if graceful:
                    handover, handover_by = gap, prev.end_by
    return RoundResult(fault, store, kind, dict(config), index, window, inject, ivs, overlaps, late, rejected_late,
                       changes, takeover, continued, handover, handover_by, measure_only, gap,
                       list(errors), list(notes), inject_wall, unproven, refused)


# --------------------------------------------------------------------------------------------
# Summary
# --------------------------------------------------------------------------------------------


def percentile(values: Sequence[float], p: float) -> float | None:
    """Nearest-rank percentile (p in 0..100) of the values, None when there are none."""
    xs = sorted(values)
    if not xs:
        return None
    rank = max(1, math.ceil(p / 100 * len(xs)))
    return xs[rank - 1]


def summarize(results: Iterable[RoundResult]) -> list[dict]:
    """One row per fault x store x kind, in first-seen order."""
    rows: dict[tuple[str, str, str], dict] = {}
    for r in results:
        key = (r.fault, r.store, r.kind)
        row = rows.setdefault(key, {"fault": r.fault, "store": r.store, "kind": r.kind, "rounds": 0,
                                    "failed_rounds": 0, "leader_changes": 0, "overlaps": 0,
                                    "unproven_overlaps": 0, "refused_writes": 0,
                                    "measure_only": r.measure_only, "late_accepted": 0,
                                    "rejected_after_pause": 0, "errors": 0, "_takeover": [],
                                    "_handover": [], "continued": 0, "max_overlap_ms": 0.0,
                                    "_gap": []})
        row["rounds"] += 1
        row["failed_rounds"] += int(r.failed)
        row["leader_changes"] += r.leader_changes
        row["overlaps"] += len(r.overlaps)
        row["unproven_overlaps"] += len(r.unproven)
        row["refused_writes"] += len(r.refused)
        row["late_accepted"] += len(r.late_writes)
        row["rejected_after_pause"] += r.rejected_after_resume
        row["errors"] += len(r.errors)
        row["continued"] += int(r.continued)
        if r.overlaps:
            row["max_overlap_ms"] = max(row["max_overlap_ms"], r.overlap_ms())
        if r.takeover_ms is not None:
            row["_takeover"].append(r.takeover_ms)
        if r.handover_ms is not None:
            row["_handover"].append(r.handover_ms)
        if r.gap_ms is not None:
            row["_gap"].append(r.gap_ms)
    out = []
    for row in rows.values():
        t, h, g = row.pop("_takeover"), row.pop("_handover"), row.pop("_gap")
        row.update({"takeover_p50_ms": _r(percentile(t, 50)), "takeover_p99_ms": _r(percentile(t, 99)),
                    "takeover_max_ms": _r(max(t) if t else None),
                    "handover_p50_ms": _r(percentile(h, 50)), "handover_max_ms": _r(max(h) if h else None),
                    "min_gap_ms": _r(min(g) if g else None)})
        out.append(row)
    return out


COLUMNS = [("fault", "fault", 22), ("store", "store", 6), ("kind", "kind", 11), ("rounds", "rounds", 6),
           ("leader_changes", "changes", 7), ("overlaps", "overlap", 7), ("unproven_overlaps", "unprov", 6),
           ("refused_writes", "2-write", 7), ("late_accepted", "late-ok", 7),
           ("rejected_after_pause", "fenced", 6), ("errors", "errors", 6), ("takeover_p50_ms", "take p50", 8),
           ("takeover_p99_ms", "p99", 8), ("takeover_max_ms", "max", 8), ("handover_p50_ms", "hand p50", 8),
           ("handover_max_ms", "hand max", 8), ("max_overlap_ms", "ovl ms", 7), ("min_gap_ms", "min gap", 8)]


def format_table(rows: Sequence[dict]) -> str:
    """The human summary: one line per fault x store x kind (times in ms). overlap: proven
    overlaps; unprov: overlaps within the observer's own delay; 2-write: writes of a deposed,
    not paused leader refused after a newer term wrote; fenced: writes of paused leaders refused
    after they resumed; late-ok: such writes accepted."""
    def cell(v: Any, width: int) -> str:
        if v is None:
            text = "-"
        elif isinstance(v, float):
            text = f"{v:.0f}" if abs(v) >= 100 else f"{v:.1f}"
        else:
            text = str(v)
        return text.rjust(width) if not isinstance(v, str) else text.ljust(width)
    head = " ".join(h.ljust(w) if k in ("fault", "store", "kind") else h.rjust(w) for k, h, w in COLUMNS)
    lines = [head, "-" * len(head)]
    for row in rows:
        vals = dict(row)
        if not row.get("overlaps") and not row.get("measure_only"):
            vals["max_overlap_ms"] = None
        lines.append(" ".join(cell(vals.get(k), w) for k, _, w in COLUMNS))
    return "\n".join(lines)
