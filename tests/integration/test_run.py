"""`tenure run` against a real `tenure serve`: the command runs only while leading, is stopped
before anyone else can take over, carries identity and fencing token, propagates its exit status,
gets the signals, and the endpoints answer as documented (docs/run.md). Also the configuration by
YAML and environment, and waitForPodReady plus the ConfigMap fallback against a tiny fake API.

Every wait is on a condition with a deadline. Timings are short (lease 2-4 s) so the whole file
stays well under a minute and a half.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tenure_testlib import COORDINATED_FLAGS, Deadline, ServerTestCase, _die_with_parent, lease_path, tenure_bin, wait_until

# The command `tenure run` supervises in these tests. It appends "start", "tick" (every 20 ms)
# and "stop" lines to a shared file, with wall-clock times, its own run id and its environment.
WORKER = r'''
import json, os, signal, sys, time, uuid
log, exit_code = sys.argv[1], int(sys.argv[2])
run_id = uuid.uuid4().hex[:8]
def write(kind, **extra):
    rec = {"kind": kind, "run": run_id, "t": time.time(), "identity": os.environ.get("TENURE_IDENTITY"), **extra}
    with open(log, "a") as fh:
        fh.write(json.dumps(rec) + "\n")
def on_signal(sig, frame):
    write("stop", signal=signal.Signals(sig).name)
    sys.exit(exit_code)
signal.signal(signal.SIGTERM, on_signal)
signal.signal(signal.SIGINT, on_signal)
write("start", token=os.environ.get("TENURE_FENCING_TOKEN"), lock_ns=os.environ.get("TENURE_LOCK_NAMESPACE"),
      lock_name=os.environ.get("TENURE_LOCK_NAME"), role=os.environ.get("TENURE_ROLE"))
while True:
    write("tick")
    time.sleep(0.02)
'''

FAST = ("--lease-duration", "3s", "--renew-deadline", "2s", "--retry-period", "250ms",
        "--grace-period", "1s", "--wait-after-renewal-failure", "500ms")


def read_text(path: str) -> str:
    if not os.path.exists(path):
        return ""
    with open(path) as fh:
        return fh.read()


def read_records(path: str) -> list[dict]:
    if not os.path.exists(path):
        return []
    out = []
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    pass  # a line being written right now
    return out


def intervals(records: list[dict]) -> list[tuple[float, float, str, str]]:
    """(first record, last record, run id, identity) per worker run, in start order."""
    spans: dict[str, list] = {}
    for r in records:
        s = spans.setdefault(r["run"], [r["t"], r["t"], r["run"], r["identity"]])
        s[0] = min(s[0], r["t"])
        s[1] = max(s[1], r["t"])
    return sorted((tuple(s) for s in spans.values()), key=lambda s: s[0])


def http_get(port: int, path: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode()


class RunProcess:
    """One `tenure run` process; its stderr lines are collected."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None, cwd: str | None = None):
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("TENURE_") or k in ("TENURE_BIN",)}
        full_env.pop("KUBERNETES_SERVICE_HOST", None)
        full_env.update(env or {})
        self.args = [tenure_bin(), "run", *args]
        self.proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, env=full_env, cwd=cwd,
                                     preexec_fn=_die_with_parent)
        self.lines: list[str] = []
        self.cond = threading.Condition()
        self.reader = threading.Thread(target=self._pump, daemon=True)
        self.reader.start()

    def _pump(self) -> None:
        for line in self.proc.stderr:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()

    def wait_line(self, regex: str, timeout: float = 15.0) -> re.Match:
        rx = re.compile(regex)
        d = Deadline(timeout)
        with self.cond:
            while True:
                for line in self.lines:
                    m = rx.search(line)
                    if m:
                        return m
                if d.expired() or (self.proc.poll() is not None and not self.reader.is_alive()):
                    raise AssertionError(f"tenure run: no line matching {regex!r}\n{self.describe()}")
                self.cond.wait(timeout=min(0.2, d.remaining()))

    def endpoint_port(self) -> int:
        return int(self.wait_line(r"endpoints on http://127\.0\.0\.1:(\d+)").group(1))

    def wait_exit(self, timeout: float = 15.0) -> int:
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"tenure run did not exit within {timeout}s\n{self.describe()}") from None
        self._close()
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._close()

    def _close(self) -> None:
        self.reader.join(timeout=5)
        if not self.reader.is_alive():
            self.proc.stderr.close()

    def describe(self) -> str:
        with self.cond:
            return f"$ {' '.join(self.args)}\n" + "\n".join(self.lines[-40:])


class RunTest(ServerTestCase):
    SERVER_ARGS = COORDINATED_FLAGS

    def setUp(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="tenure-run-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.worker = os.path.join(self.dir, "worker.py")
        with open(self.worker, "w") as fh:
            fh.write(WORKER)
        self.procs: list[RunProcess] = []
        self.addCleanup(self._kill_all)

    def _kill_all(self) -> None:
        for p in self.procs:
            p.kill()

    def run_proc(self, lock: str, identity: str | None, *extra: str, exit_code: int = 0, log: str | None = None,
                 command: list[str] | None = None, env: dict[str, str] | None = None,
                 use_flags: bool = True) -> RunProcess:
        args = []
        if use_flags:
            args += ["--kubeconfig", self.server.kubeconfig, "--lock", lock, *FAST]
            if identity:
                args += ["--identity", identity]
        args += [*extra, "--"]
        args += command or [sys.executable, self.worker, log or self.log_file(lock), str(exit_code)]
        p = RunProcess(args, env=env, cwd=self.dir)
        self.procs.append(p)
        return p

    def log_file(self, lock: str) -> str:
        return os.path.join(self.dir, lock.replace("/", "_") + ".log")

    def lease(self, lock: str) -> dict:
        ns, name = lock.split("/")
        r = self.api.get(lease_path(ns, name))
        self.assertEqual(r.status, 200, r.describe())
        return r.body

    def starts(self, lock: str) -> list[dict]:
        return [r for r in read_records(self.log_file(lock)) if r["kind"] == "start"]

    # ------------------------------------------------------------------------------------------
    def test_command_runs_only_on_the_leader_with_identity_and_fencing_token(self):
        lock = "default/run-leader"
        a = self.run_proc(lock, "run-a", "--listen", "127.0.0.1:0", "--ready-only-while-leader", "--role", "billing")
        wait_until(lambda: self.starts(lock), 15, "the first candidate's command to start")
        b = self.run_proc(lock, "run-b", "--listen", "127.0.0.1:0", "--ready-only-while-leader", "--role", "billing")
        b.wait_line(r"leader is now run-a")
        start = self.starts(lock)[0]
        self.assertEqual(start["identity"], "run-a")
        self.assertEqual((start["lock_ns"], start["lock_name"], start["role"]), ("default", "run-leader", "billing"))
        lease = self.lease(lock)
        self.assertEqual(lease["spec"]["holderIdentity"], "run-a")
        token = int(start["token"])
        self.assertGreater(token, 0)
        self.assertLessEqual(token, int(lease["metadata"]["resourceVersion"]))
        # b stays a follower: its command never starts while a leads (checked after a renewed
        # twice more, a window in which a wrongly started command would show up).
        rv = int(lease["metadata"]["resourceVersion"])
        wait_until(lambda: int(self.lease(lock)["metadata"]["resourceVersion"]) >= rv + 2, 10, "two renewals")
        self.assertEqual([s["identity"] for s in self.starts(lock)], ["run-a"])

        # publishEvents is on by default: the LeaderElection Event about the lease.
        wait_until(lambda: [ev for ev in self.api.get("/api/v1/namespaces/default/events").body["items"]
                            if ev["involvedObject"].get("name") == "run-leader"
                            and ev["reason"] == "LeaderElection" and ev["message"] == "run-a became leader"],
                   10, "the LeaderElection event")

        pa, pb = a.endpoint_port(), b.endpoint_port()
        code, ctype, body = http_get(pa, "/info")
        self.assertEqual((code, ctype), (200, "application/json"))
        self.assertEqual(json.loads(body), {"leaderElection": {"leaderId": "run-a", "role": "billing", "isLeader": True}})
        self.assertEqual(json.loads(http_get(pb, "/info")[2]),
                         {"leaderElection": {"leaderId": "run-a", "role": "billing", "isLeader": False}})
        self.assertEqual(http_get(pa, "/healthz")[:1], (200,))
        self.assertEqual(http_get(pb, "/healthz")[:1], (200,))
        self.assertEqual(http_get(pa, "/readyz")[0], 200)  # --ready-only-while-leader
        code, _, body = http_get(pb, "/readyz")
        self.assertEqual(code, 503)
        self.assertIn("not leading", body)
        self.assertEqual(http_get(pa, "/nothing")[0], 404)
        code, ctype, metrics = http_get(pa, "/metrics")
        self.assertEqual(code, 200)
        self.assertTrue(ctype.startswith("text/plain; version=0.0.4"), ctype)
        self.assertIn('leader_election_master_status{name="default/run-leader"} 1', metrics)
        self.assertIn('tenure_run_command_running{name="default/run-leader"} 1', metrics)
        self.assertIn('tenure_run_command_starts_total{name="default/run-leader"} 1', metrics)
        self.assertIn('leader_election_master_status{name="default/run-leader"} 0', http_get(pb, "/metrics")[2])
        promtool = shutil.which("promtool")
        if promtool is None:
            print("SKIPPED assertion: promtool not installed (Debian package prometheus); "
                  "/metrics was not checked with promtool", file=sys.stderr)
        else:
            for text in (metrics, http_get(pb, "/metrics")[2]):
                r = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, f"promtool check metrics:\n{r.stdout}{r.stderr}\n{text}")

    def test_exit_status_propagates_and_the_lease_is_released(self):
        lock = "default/run-exit"
        p = self.run_proc(lock, "run-exit", command=["sh", "-c", "exit 7"])
        self.assertEqual(p.wait_exit(), 7, p.describe())
        self.assertEqual(self.lease(lock)["spec"]["holderIdentity"], "")
        # A command killed by a signal reports 128 + signal, as a shell does.
        p = self.run_proc(lock, "run-exit", command=["sh", "-c", "kill -9 $$"])
        self.assertEqual(p.wait_exit(), 137, p.describe())
        # A command that cannot run: 127, and the lease is released too.
        p = self.run_proc(lock, "run-exit", command=["/nonexistent/command"])
        self.assertEqual(p.wait_exit(), 127, p.describe())
        p.wait_line("cannot run /nonexistent/command: No such file or directory")
        self.assertEqual(self.lease(lock)["spec"]["holderIdentity"], "")

    def test_campaign_again_restarts_the_command_on_the_next_term(self):
        lock = "default/run-again"
        marker = os.path.join(self.dir, "again.count")
        p = self.run_proc(lock, "run-again", "--campaign-again",
                          command=["sh", "-c", f'echo "$TENURE_FENCING_TOKEN" >> {marker}; exit 3'])
        wait_until(lambda: len(read_text(marker).split()) >= 3, 20,
                   "the command to run three times")
        tokens = [int(t) for t in read_text(marker).split()]
        self.assertEqual(tokens, sorted(set(tokens)), "each run has a new, larger fencing token")
        self.assertIsNone(p.proc.poll())

    def test_signals_are_forwarded_and_the_status_returned(self):
        lock = "default/run-signal"
        for sig, code in ((signal.SIGTERM, 3), (signal.SIGINT, 4)):
            log = os.path.join(self.dir, f"signal-{sig.name}.log")
            p = self.run_proc(lock, "run-signal", "--release-on-cancel", log=log, exit_code=code)
            wait_until(lambda: [r for r in read_records(log) if r["kind"] == "start"], 15, "the command to start")
            p.proc.send_signal(sig)
            self.assertEqual(p.wait_exit(), code, p.describe())
            self.assertEqual([r["signal"] for r in read_records(log) if r["kind"] == "stop"], [sig.name])
            self.assertEqual(self.lease(lock)["spec"]["holderIdentity"], "")  # --release-on-cancel
        # Without --release-on-cancel the lease stays held until it expires.
        log = os.path.join(self.dir, "signal-keep.log")
        p = self.run_proc(lock, "run-keep", log=log)
        wait_until(lambda: read_records(log), 15, "the command to start")
        p.proc.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait_exit(), 0)
        self.assertEqual(self.lease(lock)["spec"]["holderIdentity"], "run-keep")

    def test_operator_taking_the_lease_stops_the_command_and_it_comes_back(self):
        lock = "default/run-operator"
        p = self.run_proc(lock, "run-op")
        wait_until(lambda: self.starts(lock), 15, "the command to start")
        first_token = int(self.starts(lock)[0]["token"])
        # An operator hands the lease to someone else for an hour, with kubectl.
        kubectl = self.server.kubectl("1.33")
        kubectl.ok("patch", "lease", "run-operator", "-n", "default", "--type", "merge",
                   "-p", '{"spec":{"holderIdentity":"operator","leaseDurationSeconds":3600}}')
        changed_at = time.time()
        wait_until(lambda: [x for x in read_records(self.log_file(lock)) if x["kind"] == "stop"], 10,
                   "the command to be stopped")
        stop = [x for x in read_records(self.log_file(lock)) if x["kind"] == "stop"][0]
        self.assertEqual(stop["signal"], "SIGTERM")
        self.assertLess(stop["t"] - changed_at, 3.0, "stopped within the renew deadline (2 s) and a retry")
        p.wait_line(r"leadership ended: SIGTERM")
        self.assertIsNone(p.proc.poll(), "tenure run stays a candidate")
        self.assertEqual(len(self.starts(lock)), 1)
        # The operator clears the holder: the candidate takes it again and restarts the command.
        kubectl.ok("patch", "lease", "run-operator", "-n", "default", "--type", "merge",
                   "-p", '{"spec":{"holderIdentity":"","leaseDurationSeconds":1}}')
        wait_until(lambda: len(self.starts(lock)) == 2, 10, "the command to start again")
        self.assertGreater(int(self.starts(lock)[1]["token"]), first_token)

    def test_two_runs_never_overlap_across_repeated_kills(self):
        lock = "default/run-overlap"
        fast = ["--lease-duration", "2s", "--renew-deadline", "1500ms", "--retry-period", "200ms",
                "--grace-period", "500ms"]
        n = [0]

        def start() -> RunProcess:
            n[0] += 1
            args = ["--kubeconfig", self.server.kubeconfig, "--lock", lock, "--identity", f"ov-{n[0]}", *fast,
                    "--", sys.executable, self.worker, self.log_file(lock), "0"]
            p = RunProcess(args, cwd=self.dir)
            self.procs.append(p)
            return p

        running = {}
        for _ in range(2):
            p = start()
            running[f"ov-{n[0]}"] = p
        kills = 4
        for k in range(kills):
            wait_until(lambda: len(self.starts(lock)) == k + 1, 15, f"command start #{k + 1}")
            leader_run = self.starts(lock)[-1]["run"]
            leader = self.starts(lock)[-1]["identity"]
            wait_until(lambda: sum(1 for r in read_records(self.log_file(lock))
                                   if r["run"] == leader_run and r["kind"] == "tick") >= 5, 10,
                       "the leader's command to tick a few times")
            running.pop(leader).kill()  # SIGKILL: no release, the kernel kills its command
            p = start()
            running[f"ov-{n[0]}"] = p
        wait_until(lambda: len(self.starts(lock)) == kills + 1, 15, "the last takeover")
        spans = intervals(read_records(self.log_file(lock)))
        self.assertEqual(len(spans), kills + 1)
        for (s1, e1, r1, id1), (s2, e2, r2, id2) in zip(spans, spans[1:]):
            self.assertLess(e1, s2, f"commands overlapped: {id1} ran until {e1}, {id2} started at {s2}")
            self.assertNotEqual(id1, id2)
            # The next leader waited for the killed one's lease to expire (2 s after its last renewal).
            self.assertGreater(s2 - e1, 1.0)

    def test_lost_connection_stops_the_command_before_the_lease_can_expire(self):
        lock = "default/run-partition"
        p = self.run_proc(lock, "run-part")
        wait_until(lambda: self.starts(lock), 15, "the command to start")
        self.server.pause()  # SIGSTOP: requests hang, nothing is renewed from now on
        try:
            paused_at = time.time()
            wait_until(lambda: [x for x in read_records(self.log_file(lock)) if x["kind"] == "stop"], 10,
                       "the command to be stopped")
            stop = [x for x in read_records(self.log_file(lock)) if x["kind"] == "stop"][0]
            # The last renewal was sent before the pause; another candidate could take over only
            # after 3 s (the lease) counted from its own later observation.
            self.assertLess(stop["t"], paused_at + 3.0)
            self.assertIsNone(p.proc.poll())
        finally:
            self.server.resume()

    def test_yaml_and_environment_configure_like_flags(self):
        yaml_lock, env_lock = "default/run-yaml", "default/run-env"
        config = os.path.join(self.dir, "application.yaml")
        with open(config, "w") as fh:
            fh.write(f"""
spring:
  cloud:
    kubernetes:
      leader:
        election:
          lockName: run-yaml
          lockNamespace: default
          leaseDuration: PT3S
          renewDeadline: 2s
          retryPeriod: 250ms
          wait-after-renewal-failure: 1
          publishEvents: false
          identity: from-yaml
          gracePeriod: 1s
          kubeconfig: {self.server.kubeconfig}
""")
        y = self.run_proc(yaml_lock, None, "--config", config, use_flags=False)
        env = {"TENURE_LOCK": env_lock, "TENURE_IDENTITY": "from-env", "TENURE_KUBECONFIG": self.server.kubeconfig,
               "TENURE_LEASE_DURATION": "3s", "TENURE_RENEW_DEADLINE": "2s", "TENURE_RETRY_PERIOD": "250ms",
               "TENURE_GRACE_PERIOD": "1s", "TENURE_USE_CONFIG_MAP_AS_LOCK": "true"}
        e = self.run_proc(env_lock, None, env=env, use_flags=False)
        wait_until(lambda: self.starts(yaml_lock) and self.starts(env_lock), 15, "both commands to start")
        self.assertEqual(self.starts(yaml_lock)[0]["identity"], "from-yaml")
        self.assertEqual(self.starts(env_lock)[0]["identity"], "from-env")
        lease = self.lease(yaml_lock)
        self.assertEqual((lease["spec"]["holderIdentity"], lease["spec"]["leaseDurationSeconds"]), ("from-yaml", 3))
        # publishEvents: false -> no events about this lease
        events = self.api.get("/api/v1/namespaces/default/events").body["items"]
        self.assertFalse([ev for ev in events if ev["involvedObject"].get("name") == "run-yaml"])
        # useConfigMapAsLock from the environment: the record is in a ConfigMap
        cm = self.api.get("/api/v1/namespaces/default/configmaps/run-env")
        self.assertEqual(cm.status, 200, cm.describe())
        record = json.loads(cm.body["metadata"]["annotations"]["control-plane.alpha.kubernetes.io/leader"])
        self.assertEqual(record["holderIdentity"], "from-env")
        # Flags beat the environment.
        f = self.run_proc("default/run-env-flag", None, "--identity", "from-flag", env={**env, "TENURE_LOCK": "default/run-env-flag"},
                          use_flags=False)
        wait_until(lambda: self.starts("default/run-env-flag"), 15, "the command to start")
        self.assertEqual(self.starts("default/run-env-flag")[0]["identity"], "from-flag")
        for p in (y, e, f):
            p.proc.send_signal(signal.SIGTERM)
            self.assertEqual(p.wait_exit(), 0)

    def test_coordinated_mode_lets_the_server_pick_the_oldest_version(self):
        lock = "default/run-coordinated"
        coordinated = ["--coordinated", "--lease-duration", "4s", "--renew-deadline", "3s",
                       "--retry-period", "250ms", "--grace-period", "1s"]
        new = RunProcess(["--kubeconfig", self.server.kubeconfig, "--lock", lock, "--identity", "v134",
                          *coordinated, "--binary-version", "1.34.0", "--",
                          sys.executable, self.worker, self.log_file(lock), "0"], cwd=self.dir)
        self.procs.append(new)
        wait_until(lambda: self.starts(lock), 20, "the only candidate's command to start")
        self.assertEqual(self.starts(lock)[0]["identity"], "v134")
        candidates = self.api.get("/apis/coordination.k8s.io/v1beta1/namespaces/default/leasecandidates").body
        self.assertEqual({c["metadata"]["name"]: c["spec"]["binaryVersion"] for c in candidates["items"]},
                         {"v134": "1.34.0"})
        old = RunProcess(["--kubeconfig", self.server.kubeconfig, "--lock", lock, "--identity", "v133",
                          *coordinated, "--binary-version", "1.33.0", "--emulation-version", "1.33.0", "--",
                          sys.executable, self.worker, self.log_file(lock), "0"], cwd=self.dir)
        self.procs.append(old)
        # The controller prefers the older version: v134's command is stopped, v133's started.
        wait_until(lambda: len(self.starts(lock)) == 2, 30, "the older version to take over")
        self.assertEqual(self.starts(lock)[1]["identity"], "v133")
        stops = [r for r in read_records(self.log_file(lock)) if r["kind"] == "stop"]
        self.assertEqual([(r["identity"], r["signal"]) for r in stops], [("v134", "SIGTERM")])
        self.assertEqual(self.lease(lock)["spec"]["holderIdentity"], "v133")
        self.assertGreater(int(self.starts(lock)[1]["token"]), int(self.starts(lock)[0]["token"]))
        self.assertIsNone(new.proc.poll(), "the preempted candidate stays a candidate")
        # Stopping removes the LeaseCandidates.
        for p in (new, old):
            p.proc.send_signal(signal.SIGTERM)
            p.wait_exit()
        left = self.api.get("/apis/coordination.k8s.io/v1beta1/namespaces/default/leasecandidates").body["items"]
        self.assertEqual(left, [])

    def test_bad_configuration_is_reported(self):
        p = RunProcess(["--kubeconfig", self.server.kubeconfig, "--lock", "default/x", "--lease-duration", "soon",
                        "--", "true"])
        self.procs.append(p)
        self.assertEqual(p.wait_exit(), 2)
        p.wait_line(r'leaseDuration \(from --lease-duration\): invalid duration "soon"')
        p = RunProcess(["--kubeconfig", self.server.kubeconfig, "--", "true"])
        self.procs.append(p)
        self.assertEqual(p.wait_exit(), 2)
        p.wait_line("a lock name is required")


# --------------------------------------------------------------------------------------------
# A tiny fake API server: serves one pod (Ready on demand), ConfigMaps, and no Leases.
# --------------------------------------------------------------------------------------------


class FakeApi:
    def __init__(self):
        self.pod_ready = False
        self.objects: dict[str, dict] = {}
        self.rv = 0
        self.requests: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, code: int, obj: dict):
                body = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def status(self, code: int, reason: str):
                self.reply(code, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": reason,
                                  "code": code, "message": reason})

            def body(self) -> dict:
                return json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")

            def handle_any(self, method: str):
                path = self.path.split("?")[0]
                with api.lock:
                    api.requests.append((method, self.path))
                if "watch=" in self.path:
                    return self.status(403, "Forbidden")
                if path == "/api/v1/namespaces/apps/pods/pod-1" and method == "GET":
                    ready = "True" if api.pod_ready else "False"
                    return self.reply(200, {"kind": "Pod", "apiVersion": "v1",
                                            "metadata": {"name": "pod-1", "namespace": "apps"},
                                            "status": {"conditions": [{"type": "Ready", "status": ready}]}})
                if path.startswith("/api/v1/namespaces/apps/events"):
                    return self.reply(201, self.body())
                m = re.fullmatch(r"/api/v1/namespaces/apps/configmaps(?:/([^/]+))?", path)
                if not m:
                    return self.status(404, "NotFound")
                with api.lock:
                    if method == "GET" and m.group(1):
                        obj = api.objects.get(m.group(1))
                        return self.reply(200, obj) if obj else self.status(404, "NotFound")
                    if method == "POST":
                        obj = self.body()
                        name = obj["metadata"]["name"]
                        if name in api.objects:
                            return self.status(409, "AlreadyExists")
                        api.rv += 1
                        obj["metadata"]["resourceVersion"] = str(api.rv)
                        api.objects[name] = obj
                        return self.reply(201, obj)
                    if method == "PUT" and m.group(1):
                        obj = self.body()
                        old = api.objects.get(m.group(1))
                        if old is None or old["metadata"]["resourceVersion"] != obj["metadata"].get("resourceVersion"):
                            return self.status(409, "Conflict")
                        api.rv += 1
                        obj["metadata"]["resourceVersion"] = str(api.rv)
                        api.objects[m.group(1)] = obj
                        return self.reply(200, obj)
                return self.status(405, "MethodNotAllowed")

            def do_GET(self):
                self.handle_any("GET")

            def do_POST(self):
                self.handle_any("POST")

            def do_PUT(self):
                self.handle_any("PUT")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def write_kubeconfig(self, path: str) -> None:
        with open(path, "w") as fh:
            fh.write(f"""apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster:
    server: http://127.0.0.1:{self.httpd.server_address[1]}
users:
- name: nobody
  user: {{}}
contexts:
- name: fake
  context: {{cluster: fake, user: nobody, namespace: apps}}
current-context: fake
""")

    def lock_requests(self) -> list[tuple[str, str]]:
        with self.lock:
            return [r for r in self.requests if "/configmaps" in r[1] or "/leases" in r[1]]

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class WaitForPodReadyTest(unittest.TestCase):
    def test_campaigns_only_once_the_pod_is_ready_and_falls_back_to_a_configmap(self):
        d = tempfile.mkdtemp(prefix="tenure-run-pod-")
        self.addCleanup(shutil.rmtree, d, True)
        api = FakeApi()
        self.addCleanup(api.close)
        kubeconfig = os.path.join(d, "kubeconfig")
        api.write_kubeconfig(kubeconfig)
        marker = os.path.join(d, "started")
        p = RunProcess(["--kubeconfig", kubeconfig, "--lock", "pod-lock", "--identity", "pod-1", *FAST, "--",
                        "sh", "-c", f'echo "$TENURE_LOCK_NAMESPACE $TENURE_IDENTITY" > {marker}; sleep 60'],
                       env={"POD_NAME": "pod-1"})
        self.addCleanup(p.kill)
        p.wait_line(r"does not serve coordination.k8s.io/v1 leases: using a ConfigMap lock")
        p.wait_line(r"waiting for pod apps/pod-1 to be Ready")
        # While the pod is not Ready: the pod is polled, the lock is never touched.
        wait_until(lambda: sum(1 for m, path in api.requests if "/pods/pod-1" in path) >= 3, 10,
                   "the pod to be read repeatedly")
        self.assertEqual(api.lock_requests(), [])
        self.assertFalse(os.path.exists(marker))
        api.pod_ready = True
        p.wait_line(r"pod apps/pod-1 is Ready: campaigning")
        wait_until(lambda: read_text(marker).strip(), 10, "the command to start")
        self.assertEqual(read_text(marker).strip(), "apps pod-1")
        record = json.loads(api.objects["pod-lock"]["metadata"]["annotations"]["control-plane.alpha.kubernetes.io/leader"])
        self.assertEqual(record["holderIdentity"], "pod-1")
        p.proc.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait_exit(), 128 + signal.SIGTERM)  # sh dies of the forwarded SIGTERM


if __name__ == "__main__":
    unittest.main()
