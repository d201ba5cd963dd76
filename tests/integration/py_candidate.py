"""One leader-election candidate using the official Kubernetes Python client (Debian's
python3-kubernetes), with its ConfigMap lock. Run with /usr/bin/python3. Prints JSON lines on
stdout like tenure-elect: ready, started, stopped, exit.

  py_candidate.py --kubeconfig F --lock NS/NAME --identity ID --lease S --renew S --retry S
                  [--fence-port P]   (while leading, POST {"token":0,"identity":ID,"seq":K} to
                                      http://127.0.0.1:P/write every 50 ms, as tenure-elect does;
                                      the Python client has no fencing token, hence 0)

Behaviour of the client (kubernetes/leaderelection, 22.x) that the tests design around:
- Durations are whole seconds >= 1 (Config validates renew > 1.2 x retry, lease > renew); the
  lease duration is written into the record as a string (str(lease)), so pass integers.
- A follower judges expiry with its OWN configured lease duration, not the record's; all
  candidates on a lock must use the same lease duration.
- It polls (GET every retry period), never watches; the leader renews with GET + PUT.
- It never releases the lock: no stop, no release-on-cancel; SIGTERM just kills the process.
- run() returns after a held term ended (after onstopped_leading); it never campaigns again.
  The onstarted_leading thread is not a daemon. So: print "stopped", then os._exit.
- Its REST calls have no timeout: a hung server blocks the leader forever (not tested).
"""

import argparse
import http.client
import json
import os
import sys
import threading
import time

_out = threading.Lock()


def emit(**fields) -> None:
    with _out:
        sys.stdout.write(json.dumps(fields) + "\n")
        sys.stdout.flush()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kubeconfig", required=True)
    ap.add_argument("--lock", required=True)
    ap.add_argument("--identity", required=True)
    ap.add_argument("--lease", type=int, default=15)
    ap.add_argument("--renew", type=int, default=10)
    ap.add_argument("--retry", type=int, default=2)
    ap.add_argument("--fence-port", type=int, default=0)
    a = ap.parse_args()
    ns, name = a.lock.split("/", 1)

    from kubernetes import config
    from kubernetes.leaderelection import electionconfig, leaderelection
    from kubernetes.leaderelection.resourcelock.configmaplock import ConfigMapLock

    config.load_kube_config(config_file=a.kubeconfig)
    lock = ConfigMapLock(name, ns, a.identity)

    def write_while_leading() -> None:
        # The client gives no stop signal to the leader's work: it runs until the process exits
        # (os._exit right after onstopped_leading, below).
        conn = http.client.HTTPConnection("127.0.0.1", a.fence_port, timeout=2)
        seq = 0
        while True:
            body = json.dumps({"token": 0, "identity": a.identity, "seq": seq})
            try:
                conn.request("POST", "/write", body, {"Content-Type": "application/json"})
                conn.getresponse().read()
            except OSError:
                conn.close()
            seq += 1
            time.sleep(0.05)

    def started() -> None:
        emit(event="started", identity=a.identity)
        if a.fence_port:
            threading.Thread(target=write_while_leading, daemon=True).start()

    def stopped() -> None:
        emit(event="stopped", identity=a.identity)

    cfg = electionconfig.Config(lock, a.lease, a.renew, a.retry, started, stopped)
    emit(event="ready", identity=a.identity)
    leaderelection.LeaderElection(cfg).run()
    emit(event="exit", identity=a.identity)
    os._exit(0)


if __name__ == "__main__":
    main()
