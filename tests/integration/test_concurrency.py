"""16 clients doing compare-and-swap on one lease: no lost update, distinct resourceVersions (issue 2, item 3)."""

import threading
import unittest

from tenure_testlib import Deadline, ServerTestCase, lease_body, lease_path, rv_int

NS = "default"
THREADS = 16
SUCCESSES_PER_THREAD = 25  # 400 acknowledged updates in all
DEADLINE_SECONDS = 120.0


class CompareAndSwapTest(ServerTestCase):
    def test_concurrent_compare_and_swap(self):
        name = "cas-counter"
        created = self.create(lease_path(NS), lease_body(name, holder="writer-init", leaseTransitions=0))
        base_rv = rv_int(created)

        acks: list[tuple[int, int, str, int]] = []  # (counter written, resourceVersion, writer, base rv)
        problems: list[str] = []
        conflicts = [0] * THREADS
        connects = [0] * THREADS
        lock = threading.Lock()
        deadline = Deadline(DEADLINE_SECONDS)
        start = threading.Barrier(THREADS)

        def writer(i: int) -> None:
            me = f"writer-{i}"
            c = self.server.client()
            try:
                start.wait(timeout=30)
                done = 0
                while done < SUCCESSES_PER_THREAD and not deadline.expired():
                    g = c.get(lease_path(NS, name))
                    if g.status != 200:
                        raise AssertionError(f"{me}: GET: {g.describe()}")
                    obj = g.body
                    n = obj["spec"].get("leaseTransitions", 0) + 1
                    obj["spec"]["leaseTransitions"] = n
                    obj["spec"]["holderIdentity"] = me
                    p = c.put(lease_path(NS, name), obj)
                    if p.status == 200:
                        if p.body["spec"].get("leaseTransitions") != n or p.body["spec"].get("holderIdentity") != me:
                            raise AssertionError(f"{me}: PUT 200 answered another object: {p.describe()}")
                        with lock:
                            acks.append((n, rv_int(p.body), me, rv_int(obj)))
                        done += 1
                    elif p.status == 409:
                        b = p.body or {}
                        if b.get("kind") != "Status" or b.get("reason") != "Conflict":
                            raise AssertionError(f"{me}: 409 is not a Conflict Status: {p.describe()}")
                        conflicts[i] += 1
                    else:
                        raise AssertionError(f"{me}: PUT: {p.describe()}")
                if done < SUCCESSES_PER_THREAD:
                    raise AssertionError(f"{me}: only {done} successes before the {DEADLINE_SECONDS}s deadline")
            except BaseException as e:  # noqa: BLE001 - reported by the main thread
                with lock:
                    problems.append(f"{me}: {e!r}")
                start.abort()
            finally:
                connects[i] = c.connects
                c.close()

        threads = [threading.Thread(target=writer, args=(i,), name=f"writer-{i}") for i in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=deadline.remaining() + 30)
        self.assertFalse(any(t.is_alive() for t in threads), "writer threads did not finish")
        self.assertEqual(problems, [], "\n".join(problems[:20]))

        total = THREADS * SUCCESSES_PER_THREAD
        self.assertEqual(len(acks), total)

        # Every acknowledged update has its own resourceVersion.
        rvs = [a[1] for a in acks]
        self.assertEqual(len(set(rvs)), total, "two acknowledged updates share a resourceVersion")
        # Each success read the previous success: the counters written are exactly 1..total
        # (two writers acknowledged for the same counter means one update was lost).
        counters = sorted(a[0] for a in acks)
        dup = sorted({c for c in counters if counters.count(c) > 1})
        self.assertEqual(dup, [], f"lost updates: counter values acknowledged more than once: {dup[:10]}")
        self.assertEqual(counters, list(range(1, total + 1)))
        # In counter order, resourceVersions strictly increase, each above the version it replaced.
        by_counter = sorted(acks)
        prev = base_rv
        for n, rv, who, based_on in by_counter:
            self.assertGreater(rv, based_on, f"update {n} by {who}: resourceVersion {rv} not above {based_on}")
            self.assertGreater(rv, prev, f"update {n} by {who}: resourceVersion {rv} not above update {n - 1}'s {prev}")
            self.assertEqual(based_on, prev, f"update {n} by {who} was based on {based_on}, not on update {n - 1}")
            prev = rv

        final = self.api.get(lease_path(NS, name))
        self.assertEqual(final.status, 200, final.describe())
        self.assertEqual(final.body["spec"]["leaseTransitions"], total, "final counter != acknowledged updates")
        self.assertEqual(rv_int(final.body), by_counter[-1][1], "final resourceVersion is not the last update's")
        self.assertEqual(final.body["spec"]["holderIdentity"], by_counter[-1][2])
        self.assertGreater(sum(conflicts), 0, "16 concurrent writers never conflicted: the test did not race")
        # Keep-alive: each writer used one connection for all its requests.
        self.assertEqual(connects, [1] * THREADS, "connections opened per writer (keep-alive not honoured)")


if __name__ == "__main__":
    unittest.main()
