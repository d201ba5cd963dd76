"""Watch: resume from an older resourceVersion gets every missed event in order; one older than the
kept history gets 410 Expired (issue 2, item 5)."""

import unittest

from tenure_testlib import (LEASES, Deadline, ServerTestCase, lease_body, lease_path, rv_int, summarize)

HISTORY = 10


class WatchCase(ServerTestCase):
    def list_rv(self, path: str) -> str:
        r = self.api.get(path)
        self.assertEqual(r.status, 200, r.describe())
        rv = r.body["metadata"]["resourceVersion"]
        rv_int(rv)
        return rv

    def put_holder(self, ns: str, name: str, holder: str) -> dict:
        g = self.api.get(lease_path(ns, name))
        self.assertEqual(g.status, 200, g.describe())
        obj = g.body
        obj["spec"]["holderIdentity"] = holder
        r = self.api.put(lease_path(ns, name), obj)
        self.assertEqual(r.status, 200, r.describe())
        return r.body

    def delete(self, ns: str, name: str) -> None:
        r = self.api.delete(lease_path(ns, name))
        self.assertEqual(r.status, 200, r.describe())

    def until(self, w, name: str, holder: str, timeout: float = 10.0, allow_bookmarks: bool = False) -> list[dict]:
        """Events up to and including the one that shows lease `name` with this holder."""
        d = Deadline(timeout)
        out: list[dict] = []
        while True:
            if d.expired():
                raise AssertionError(f"sentinel {name}/{holder} not seen within {timeout}s; got {summarize(out)}")
            ev = w.next(d.remaining())
            if ev is None:
                raise AssertionError(f"watch ended before sentinel {name}/{holder}; got {summarize(out)}")
            if ev["type"] == "BOOKMARK":
                self.assertTrue(allow_bookmarks, f"BOOKMARK without allowWatchBookmarks: {ev}")
                self.assertEqual(ev["object"].get("kind"), "Lease", ev)
                rv_int(ev["object"]["metadata"]["resourceVersion"])
                continue
            self.assertIn(ev["type"], ("ADDED", "MODIFIED", "DELETED"), ev)
            self.assertEqual(ev["object"].get("kind"), "Lease", ev)
            self.assertEqual(ev["object"].get("apiVersion"), "coordination.k8s.io/v1", ev)
            out.append(ev)
            o = ev["object"]
            if o["metadata"]["name"] == name and (o.get("spec") or {}).get("holderIdentity") == holder:
                return out

    def assertOk(self, w):
        self.assertEqual(w.status, 200, f"watch {w.url}: HTTP {w.status} {w.body_raw[:500]!r}")
        self.addCleanup(w.close)


class WatchResumeTest(WatchCase):
    def test_resume_receives_every_missed_event_in_order(self):
        ns = "watch-resume"
        self.ensure_namespace(ns)
        rv0 = self.list_rv(lease_path(ns))
        live = self.server.watch(lease_path(ns), {"resourceVersion": rv0})
        self.assertOk(live)

        expected: list[tuple[str, str, int | None]] = []  # (type, name, rv or None for deletes)
        for name in ("a", "b", "c"):
            expected.append(("ADDED", name, rv_int(self.create(lease_path(ns), lease_body(name, holder=f"{name}-0")))))
        for i in range(1, 4):
            for name in ("a", "b"):
                expected.append(("MODIFIED", name, rv_int(self.put_holder(ns, name, f"{name}-{i}"))))
        self.delete(ns, "c")
        expected.append(("DELETED", "c", None))
        r = self.api.patch(lease_path(ns, "b"), {"spec": {"leaseTransitions": 7}})
        self.assertEqual(r.status, 200, r.describe())
        expected.append(("MODIFIED", "b", rv_int(r.body)))
        self.delete(ns, "a")
        expected.append(("DELETED", "a", None))
        expected.append(("ADDED", "sentinel", rv_int(self.create(lease_path(ns), lease_body("sentinel", holder="end")))))

        seen_live = self.until(live, "sentinel", "end")
        live.close()
        self.check_events(seen_live, expected, "live watch")

        # Resume from the same older resourceVersion: the same events, in the same order.
        resumed = self.server.watch(lease_path(ns), {"resourceVersion": rv0, "allowWatchBookmarks": "true"})
        self.assertOk(resumed)
        seen_resumed = self.until(resumed, "sentinel", "end", allow_bookmarks=True)
        self.check_events(seen_resumed, expected, "resumed watch")
        self.assertEqual([e["object"] for e in seen_resumed], [e["object"] for e in seen_live],
                         "a resumed watch delivered different objects than the live watch")
        resumed.close()

        # Resume from the middle: exactly the events after that resourceVersion.
        mid = 5
        middle = self.server.watch(lease_path(ns), {"resourceVersion": str(expected[mid][2])})
        self.assertOk(middle)
        self.check_events(self.until(middle, "sentinel", "end"), expected[mid + 1:], "watch resumed mid-stream")

    def check_events(self, events: list[dict], expected: list[tuple], what: str) -> None:
        got = [(e["type"], e["object"]["metadata"]["name"]) for e in events]
        self.assertEqual(got, [(t, n) for t, n, _ in expected], f"{what}: events {summarize(events)}")
        prev = 0
        for ev, (_, _, rv) in zip(events, expected):
            erv = rv_int(ev["object"])
            if rv is not None:
                self.assertEqual(erv, rv, f"{what}: event {summarize([ev])} resourceVersion != write's {rv}")
            self.assertGreater(erv, prev, f"{what}: resourceVersions not increasing: {summarize(events)}")
            prev = erv

    def test_timeout_seconds_ends_stream(self):
        ns = "watch-timeout"
        self.ensure_namespace(ns)
        rv = self.list_rv(lease_path(ns))
        w = self.server.watch(lease_path(ns), {"resourceVersion": rv, "timeoutSeconds": "2"})
        self.assertOk(w)
        self.create(lease_path(ns), lease_body("t1", holder="live"))
        self.assertEqual(summarize(self.until(w, "t1", "live"))[0][:2], ("ADDED", "t1"))
        rest = w.wait_end(timeout=20)
        self.assertEqual([e for e in rest if e["type"] != "BOOKMARK"], [], "unexpected events before the end")

    def test_field_selector(self):
        ns = "watch-fieldsel"
        self.ensure_namespace(ns)
        rv = self.list_rv(lease_path(ns))
        w = self.server.watch(lease_path(ns), {"resourceVersion": rv, "fieldSelector": "metadata.name=fs-a"})
        self.assertOk(w)
        self.create(lease_path(ns), lease_body("fs-b", holder="b0"))
        self.create(lease_path(ns), lease_body("fs-a", holder="a0"))
        self.put_holder(ns, "fs-b", "b1")
        self.put_holder(ns, "fs-a", "a1")
        events = self.until(w, "fs-a", "a1")
        self.assertEqual([(e["type"], e["object"]["metadata"]["name"]) for e in events],
                         [("ADDED", "fs-a"), ("MODIFIED", "fs-a")], summarize(events))

    def test_watch_all_namespaces(self):
        for ns in ("watch-all-1", "watch-all-2"):
            self.ensure_namespace(ns)
        rv = self.list_rv(f"{LEASES}/leases")
        w = self.server.watch(f"{LEASES}/leases", {"resourceVersion": rv})
        self.assertOk(w)
        self.create(lease_path("watch-all-1"), lease_body("x1", holder="h1"))
        self.create(lease_path("watch-all-2"), lease_body("x2", holder="h2"))
        events = [e for e in self.until(w, "x2", "h2") if e["object"]["metadata"]["namespace"].startswith("watch-all")]
        self.assertEqual([(e["object"]["metadata"]["namespace"], e["object"]["metadata"]["name"]) for e in events],
                         [("watch-all-1", "x1"), ("watch-all-2", "x2")], summarize(events))

    def test_watch_without_resource_version_starts_with_existing(self):
        ns = "watch-norv"
        self.ensure_namespace(ns)
        self.create(lease_path(ns), lease_body("e1", holder="h1"))
        self.create(lease_path(ns), lease_body("e2", holder="h2"))
        w = self.server.watch(lease_path(ns))
        self.assertOk(w)
        first = w.collect(2, timeout=10)
        self.assertEqual(sorted((e["type"], e["object"]["metadata"]["name"]) for e in first),
                         [("ADDED", "e1"), ("ADDED", "e2")], summarize(first))
        self.put_holder(ns, "e1", "h1b")
        ev = self.until(w, "e1", "h1b")
        self.assertEqual([(e["type"], e["object"]["metadata"]["name"]) for e in ev], [("MODIFIED", "e1")])


class WatchExpiredTest(WatchCase):
    SERVER_ARGS = ("--watch-history", str(HISTORY))

    def test_resource_version_older_than_history_is_expired(self):
        ns = "watch-expired"
        self.ensure_namespace(ns)
        created = self.create(lease_path(ns), lease_body("hist", holder="h-0"))
        rv0 = rv_int(created)
        rvs = [rv0]
        for i in range(1, 3 * HISTORY + 1):
            rvs.append(rv_int(self.put_holder(ns, "hist", f"h-{i}")))

        w = self.server.watch(lease_path(ns), {"resourceVersion": str(rv0)})
        if w.status == 200:
            self.addCleanup(w.close)
            ev = w.next(timeout=10)
            self.assertIsNotNone(ev, "watch from a too old resourceVersion ended without an ERROR event")
            self.assertEqual(ev["type"], "ERROR", f"expected an ERROR event, got {summarize([ev])}")
            status = ev["object"]
            rest = w.wait_end(timeout=10)
            self.assertEqual(rest, [], f"events after the ERROR: {summarize(rest)}")
        else:
            self.assertEqual(w.status, 410, f"watch from a too old resourceVersion: HTTP {w.status} {w.body_raw!r}")
            status = w.body
        self.assertIsInstance(status, dict)
        self.assertEqual((status.get("kind"), status.get("apiVersion"), status.get("status")),
                         ("Status", "v1", "Failure"), status)
        self.assertEqual((status.get("code"), status.get("reason")), (410, "Expired"), status)
        self.assertIn("too old resource version", status.get("message", ""), status)

        # A resourceVersion still inside the history resumes normally.
        recent = rvs[-4]
        w2 = self.server.watch(lease_path(ns), {"resourceVersion": str(recent)})
        self.assertOk(w2)
        events = w2.collect(3, timeout=10)
        self.assertEqual([(e["type"], rv_int(e["object"]), e["object"]["spec"]["holderIdentity"]) for e in events],
                         [("MODIFIED", rvs[-3 + i], f"h-{3 * HISTORY - 2 + i}") for i in range(3)],
                         summarize(events))


if __name__ == "__main__":
    unittest.main()
