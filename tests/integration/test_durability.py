"""kill -9 while clients write: every acknowledged write survives the restart (issue 2, item 4)."""

import http.client
import os
import threading
import unittest

from tenure_testlib import (Deadline, ServerTestCase, kubectl_binary, lease_body, lease_path, parse_table,
                            rv_int, wait_until)

NS = "default"
WRITERS = 4
LEASES_PER_WRITER = 5
ACKS_BEFORE_KILL = 300  # per round: acknowledged writes seen before the kill
ROUNDS = 3


class Ledger:
    """What the writers were told (acknowledged) and what they had on the wire (pending)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acked: dict[str, dict] = {}  # name -> {"rv", "holder", "step", "uid"}
        self.pending: dict[str, dict] = {}  # name -> {"holder", "step"} sent, answer not received
        self.max_rv = 0
        self.count = 0
        self.problems: list[str] = []


class DurabilityTest(ServerTestCase):
    def run_writers(self, ledger: Ledger, round_no: int) -> None:
        """Start writers, kill -9 the server once ACKS_BEFORE_KILL more writes were acknowledged."""
        stop = threading.Event()
        start_count = ledger.count

        def writer(w: int) -> None:
            c = self.server.client(timeout=10)
            names = [f"dur-w{w}-{j}" for j in range(LEASES_PER_WRITER)]
            current: dict[str, dict] = {}
            try:
                # Resynchronise with what the (restarted) server holds.
                for name in names:
                    g = c.get(lease_path(NS, name))
                    if g.status == 200:
                        current[name] = g.body
                    elif g.status != 404:
                        raise AssertionError(f"GET {name}: {g.describe()}")
                step = 0
                while not stop.is_set():
                    step += 1
                    name = names[step % LEASES_PER_WRITER]
                    holder = f"w{w}-r{round_no}-s{step}"
                    with ledger.lock:
                        ledger.pending[name] = {"holder": holder, "step": step}
                    if name in current:
                        obj = current[name]
                        obj["spec"]["holderIdentity"] = holder
                        obj["spec"]["leaseTransitions"] = step
                        r = c.put(lease_path(NS, name), obj)
                        expected = 200
                    else:
                        r = c.post(lease_path(NS), lease_body(name, holder=holder, leaseTransitions=step))
                        expected = 201
                    if r.status != expected:
                        raise AssertionError(f"write {name}: expected {expected}: {r.describe()}")
                    body = r.body
                    if body["spec"].get("holderIdentity") != holder:
                        raise AssertionError(f"write {name}: answer holds another object: {r.describe()}")
                    current[name] = body
                    rv = rv_int(body)
                    with ledger.lock:
                        prev = ledger.acked.get(name)
                        if prev is not None and rv <= prev["rv"]:
                            raise AssertionError(f"write {name}: resourceVersion {rv} not above {prev['rv']}")
                        if prev is not None and body["metadata"]["uid"] != prev["uid"]:
                            raise AssertionError(f"write {name}: uid changed from {prev['uid']}: {r.describe()}")
                        ledger.acked[name] = {"rv": rv, "holder": holder, "step": step,
                                              "uid": body["metadata"]["uid"]}
                        del ledger.pending[name]
                        ledger.max_rv = max(ledger.max_rv, rv)
                        ledger.count += 1
            except (OSError, http.client.HTTPException):
                if not stop.is_set():
                    with ledger.lock:
                        ledger.problems.append(f"writer {w}: connection failed before the kill")
                    raise
            except BaseException as e:  # noqa: BLE001 - reported by the main thread
                with ledger.lock:
                    ledger.problems.append(f"writer {w}: {e!r}")
            finally:
                c.close()

        threads = [threading.Thread(target=writer, args=(w,), daemon=True) for w in range(WRITERS)]
        for t in threads:
            t.start()
        try:
            wait_until(lambda: ledger.count - start_count >= ACKS_BEFORE_KILL or ledger.problems, 60,
                       f"{ACKS_BEFORE_KILL} acknowledged writes")
        finally:
            stop.set()
            with ledger.lock:  # kill while writes are in flight (no writer can ack meanwhile)
                self.server.kill()
        d = Deadline(30)
        for t in threads:
            t.join(timeout=d.remaining())
        self.assertFalse(any(t.is_alive() for t in threads), "writers did not stop after the kill")
        self.assertEqual(ledger.problems, [], "\n".join(ledger.problems))

    def verify(self, ledger: Ledger) -> None:
        lost = []
        for name, ack in sorted(ledger.acked.items()):
            r = self.api.get(lease_path(NS, name))
            if r.status != 200:
                lost.append(f"{name}: acknowledged at rv {ack['rv']} but GET says {r.describe()}")
                continue
            rv = rv_int(r.body)
            spec = r.body["spec"]
            got = (spec.get("holderIdentity"), spec.get("leaseTransitions"))
            if r.body["metadata"]["uid"] != ack["uid"]:
                lost.append(f"{name}: uid {r.body['metadata']['uid']} != acknowledged {ack['uid']}")
            if rv < ack["rv"]:
                lost.append(f"{name}: stored rv {rv} older than acknowledged rv {ack['rv']} (content {got})")
            elif rv == ack["rv"]:
                if got != (ack["holder"], ack["step"]):
                    lost.append(f"{name}: rv {rv} holds {got}, acknowledged {(ack['holder'], ack['step'])}")
            else:
                # Only the write in flight at the kill may have landed after the acknowledged one.
                p = ledger.pending.get(name)
                if p is None or got != (p["holder"], p["step"]):
                    lost.append(f"{name}: rv {rv} > acknowledged {ack['rv']} holds {got}, which is neither the "
                                f"acknowledged {(ack['holder'], ack['step'])} nor the in-flight write {p}")
        # Creates that were in flight: absent, or exactly what was sent.
        for name, p in ledger.pending.items():
            if name in ledger.acked:
                continue
            r = self.api.get(lease_path(NS, name))
            if r.status == 200:
                spec = r.body["spec"]
                if (spec.get("holderIdentity"), spec.get("leaseTransitions")) != (p["holder"], p["step"]):
                    lost.append(f"{name}: unacknowledged create stored {spec}, sent {p}")
            elif r.status != 404:
                lost.append(f"{name}: {r.describe()}")
        self.assertEqual(lost, [], "acknowledged writes lost or changed after kill -9:\n" + "\n".join(lost[:30]))

    def test_kill9_keeps_acknowledged_writes(self):
        ledger = Ledger()
        for round_no in range(ROUNDS):
            self.run_writers(ledger, round_no)
            self.server.start()
            self.api.close()
            self.verify(ledger)
            # Resolve in-flight writes for the next round: the writers re-read the server's state.
            for name in list(ledger.pending):
                r = self.api.get(lease_path(NS, name))
                if r.status == 200 and rv_int(r.body) > ledger.acked.get(name, {"rv": 0})["rv"]:
                    spec = r.body["spec"]
                    ledger.acked[name] = {"rv": rv_int(r.body), "holder": spec["holderIdentity"],
                                          "step": spec["leaseTransitions"], "uid": r.body["metadata"]["uid"]}
                    ledger.max_rv = max(ledger.max_rv, rv_int(r.body))
                ledger.pending.pop(name)
        self.assertGreaterEqual(len(ledger.acked), WRITERS * LEASES_PER_WRITER)

        # Revisions keep increasing after the restart.
        created = self.create(lease_path(NS), lease_body("dur-after-restart"))
        self.assertGreater(rv_int(created), ledger.max_rv,
                           "a write after restart got a resourceVersion not above every acknowledged one")
        lst = self.api.get(lease_path(NS))
        self.assertEqual(lst.status, 200, lst.describe())
        self.assertGreaterEqual(rv_int(lst.body["metadata"]["resourceVersion"]), rv_int(created))
        name, ack = next(iter(sorted(ledger.acked.items())))
        cur = self.api.get(lease_path(NS, name)).body
        cur["spec"]["holderIdentity"] = "after-restart"
        r = self.api.put(lease_path(NS, name), cur)
        self.assertEqual(r.status, 200, r.describe())
        self.assertGreater(rv_int(r.body), rv_int(created))

    def test_restart_reuses_credentials(self):
        d = self.server.data_dir

        def read(f: str) -> bytes:
            with open(os.path.join(d, f), "rb") as fh:
                return fh.read()

        ca, token = read("ca.crt"), read("admin.token")
        created = self.create(lease_path(NS), lease_body("cred-check", holder="before-restart"))
        old_port = self.server.port
        code = self.server.stop()
        self.assertEqual(code, 0, "tenure serve did not exit cleanly (code 0) within 10s of SIGTERM")
        self.server.start()
        self.api.close()
        self.assertEqual(read("ca.crt"), ca, "the CA changed across restarts")
        self.assertEqual(read("admin.token"), token, "the admin token changed across restarts")
        kubeconfig = read("kubeconfig").decode()
        self.assertRegex(kubeconfig, rf"https://127\.0\.0\.1:{self.server.port}\b",
                         "kubeconfig does not name the new port")
        if old_port != self.server.port:
            self.assertNotRegex(kubeconfig, rf"https://127\.0\.0\.1:{old_port}\b", "kubeconfig names the old port")
        r = self.api.get(lease_path(NS, "cred-check"))
        self.assertEqual(r.status, 200, r.describe())
        self.assertEqual(r.body["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"])
        self.assertEqual(r.body["spec"]["holderIdentity"], "before-restart")
        try:
            kubectl_binary("1.33")
        except unittest.SkipTest:
            return
        out = self.server.kubectl("1.33").ok("get", "leases", "-n", NS)
        self.assertIn("cred-check", [row["NAME"] for row in parse_table(out)], out)


if __name__ == "__main__":
    unittest.main()
