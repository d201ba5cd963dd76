"""Fault-injection suite: "never two leaders" with real candidate processes and real faults.

  python3 fault_suite.py --profile ci|long [--rounds N] [--report FILE.json]

A WORLD is a store and a candidate kind: one `tenure serve` on SQLite (a fixed port, so kill -9
and a restart on the same data keep the URL), or an etcd cluster of 3 members behind one
FaultProxy per replica and member, with 2 `tenure serve --store etcd` replicas sharing one data
folder (same CA and token). Replica i lists the proxy of member i first in --etcd-endpoints,
then the others (the etcd store uses the first endpoint until it fails). Worlds are kept across
rounds of the same store and kind; a world not in use is parked (its candidates stopped).

Every candidate talks to the server through its OWN FaultProxy per replica: a copy of the
kubeconfig whose server: is its proxy (the certificate is for 127.0.0.1, so TLS still verifies)
and, with etcd, --servers with both proxied replicas, its own first. Candidate kinds:
- lease / configmap: tenure-elect (lease 2 s, renew deadline 1.5 s, retry 0.25 s, fencing
  writes to a FenceChecker, --release-on-cancel; --stop-delay for the graceful scenarios);
- coordinated: tenure-elect --coordinated against a server with COORDINATED_FLAGS; the
  controller picks the leader (OldestEmulationVersion: a candidate with a lower emulation
  version joining makes it set preferredHolder and preempt);
- run: `tenure run ... -- python3 fault_worker.py` (the worker prints started/beat/work-ended);
- python: the official Kubernetes Python client (py_candidate.py, ConfigMap lock, lease 3 s,
  renew 2 s, retry 1 s: the smallest whole seconds its validation allows) mixed with tenure-elect
  --configmap on the same ConfigMap with the same lease duration. Only kill -9 of the leader
  and kill -9/restart of the server: its REST calls have no timeout, so a black-holed or hung
  server blocks its leader forever (it cannot survive a partition, by design of that client).

Each round: wait for one steady leader, wait for the injection phase (late in the lock record's
period: a ConfigMap record keeps whole seconds, so a leader's renewals within one second leave
it unchanged and followers count the lease from the last change), inject the fault, wait for the
next leader (or, for faults a leader may ride out, for the old leader's renewals), heal or
restore, wait until one leader is steady again. The observer (fault_observer.py) then checks the
round from the candidates' lines as they arrived and from the FenceChecker's order of writes: no
two identities leading at once, no write of a deposed leader after a newer term's, no accepted
fenced write of a paused leader behind a newer term; it measures takeover and handover times. A
StallMonitor notes when this process itself was stalled, so that an overlap within its own
reading delay is reported as unproven instead of failed.

Clock faults run the would-be leader with a skewed clock: under the project's clock-skew
preload library when $TENURE_CLOCK_SKEW_LIB names it (every clock, monotonic included, runs at
TENURE_CLOCK_RATE from the process start, the wall clock TENURE_CLOCK_OFFSET seconds off, timed
waits translated back), else under libfaketime. What libfaketime 0.9.10 (Debian's faketime
package) does, found by running it here:
- it fakes CLOCK_REALTIME and, unless FAKETIME_DONT_FAKE_MONOTONIC=1, CLOCK_MONOTONIC too. But
  a faked CLOCK_MONOTONIC is based on the wall clock's epoch (about 1.8e9 s, not seconds since
  boot), with the offset or rate applied;
- it interposes nanosleep, clock_nanosleep, poll, select, epoll_wait, timerfd_settime,
  timer_settime, sem_timedwait and pthread_cond_timedwait, but NOT pthread_cond_clockwait
  (glibc >= 2.30), which libstdc++ uses for every steady_clock condition-variable wait. So with
  CLOCK_MONOTONIC faked, an absolute monotonic deadline computed from the faked clock is waited
  for on the real one: about 56 years. The library's Clock::Real().SleepUntil is such a wait; a
  tenure-elect under "+0 x0.995" stopped renewing and writing shortly after it started, and
  after losing the lease never printed "stopped" (a libfaketime artefact, not a drift);
- with FAKETIME_DONT_FAKE_MONOTONIC=1, clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) fails
  with EINVAL (Python's time.sleep raises); tenure's binaries sleep with relative waits only.
- `tenure` (linked with jemalloc) does not start under it: "Unexpected recursive calls to
  clock_gettime() without proper initialization", then it hangs. So the clock scenarios run on
  tenure-elect candidates only (lease, configmap), not on `tenure run`.
Hence with libfaketime every clock scenario fakes only the wall clock
(FAKETIME_DONT_FAKE_MONOTONIC=1; FAULT_FAKE_MONOTONIC=1 tries a libfaketime that can do more):
an offset of minutes, a wall clock 0.5 % slow (within the 1 % the library assumes) and 10 % slow
(beyond it: measured, not failed). The elector measures lease time on the monotonic clock, so
then the rate scenarios only show that the wall clock's rate does not matter. With the
clock-skew library the same scenarios slow every clock of the leader, and also run `tenure run`.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import importlib
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
import urllib.request
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

import fault_observer as fo
from fault_proxy import FaultProxy
from tenure_testlib import (COORDINATED_FLAGS, ETCD, HERE, Candidate, Client, Deadline, EtcdCluster, FenceChecker,
                            Server, _die_with_parent, core_path, elect_bin, free_port, lease_path, tenure_bin)

NS = "faults"
LEASE, RENEW, RETRY = 2.0, 1.5, 0.25
PY_LEASE, PY_RENEW, PY_RETRY = 3.0, 2.0, 1.0  # the Python client's smallest valid whole seconds
PY_TENURE_RETRY = 0.5  # tenure-elect beside Python candidates: same lease, its own retry period
STOP_DELAY = 0.3
GRACE = 1.0  # tenure run --grace-period
ELECTION = 2.0  # the coordinated controller's ack window (--coordination-election-duration)
PAUSE_EXTRA = 1.5  # pause-leader: SIGSTOP for lease + this
OUTAGE_EXTRA = 1.0  # server/replica/member outages: lease + this
STEADY_WRITES = 3  # a leader is steady once this many of its fenced writes were accepted
# Injection phase: a fault comes once the lock record has not changed for PHASE_QUIET (the leader
# renewed meanwhile without changing it: a ConfigMap record keeps whole seconds, so renewals
# within one second write the same bytes), or after PHASE_MAX (a Lease changes at every renewal).
PHASE_QUIET, PHASE_MAX = 0.8, 1.5
LEADER_ANNOTATION = "control-plane.alpha.kubernetes.io/leader"
WORKER = os.path.join(HERE, "fault_worker.py")
PY_CANDIDATE = os.path.join(HERE, "py_candidate.py")
FAKETIME_LIB = os.environ.get("TENURE_FAKETIME_LIB", "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1")
FAKE_MONOTONIC = os.environ.get("FAULT_FAKE_MONOTONIC") == "1"
CLOCK_SKEW_LIB = os.environ.get("TENURE_CLOCK_SKEW_LIB", "")
CLOCK_RATE_WITHIN, CLOCK_RATE_BEYOND, CLOCK_OFFSET = 0.995, 0.9, 300.0


def clock_skew_lib() -> str | None:
    """The project's clock-skew preload library, when built and named by TENURE_CLOCK_SKEW_LIB."""
    return CLOCK_SKEW_LIB if CLOCK_SKEW_LIB and os.path.exists(CLOCK_SKEW_LIB) else None


def clock_env(rate: float, offset: float) -> list[str]:
    """Environment assignments that run a process with its clock at `rate`, its wall clock
    `offset` seconds off."""
    lib = clock_skew_lib()
    if lib:
        return [f"LD_PRELOAD={lib}", f"TENURE_CLOCK_RATE={rate:g}", f"TENURE_CLOCK_OFFSET={offset:g}"]
    ft = f"{offset:+g}" if rate == 1.0 else f"{offset:+g} x{rate:g}"
    env = [f"LD_PRELOAD={FAKETIME_LIB}", f"FAKETIME={ft}"]
    if not (FAKE_MONOTONIC and rate != 1.0):
        env.append("FAKETIME_DONT_FAKE_MONOTONIC=1")
    return env


def clock_injector() -> str:
    lib = clock_skew_lib()
    if lib:
        return "clock-skew library (every clock)"
    return "libfaketime (wall clock only)" if not FAKE_MONOTONIC else "libfaketime (monotonic faked too)"
BASE_VERSION = (1, 200)  # coordinated candidates: binary and emulation 1.200.0 unless preempting

PYTHON_NOTE = ("python: the official Kubernetes Python client's REST calls have no timeout, so a black-holed "
               "or hung (SIGSTOP) server blocks its leader forever; it only runs kill-leader and kill-server. "
               "It also never releases and exits after losing a term; its followers exit on a refused connection.")
LIBFAKETIME_NOTE = ("clock: libfaketime fakes only the wall clock here (FAKETIME_DONT_FAKE_MONOTONIC=1); faking "
              "CLOCK_MONOTONIC moves it to the wall clock's epoch and pthread_cond_clockwait is not interposed, so "
              "timed waits of the binaries would never end. The rate scenarios therefore slow the wall clock only. "
              "Only tenure-elect runs under it: `tenure` (jemalloc) hangs at start under libfaketime.")


def client_python() -> str:
    """An interpreter that has the official Kubernetes Python client (Debian's python3-kubernetes
    is installed for /usr/bin/python3, which may not be the one running this)."""
    try:
        importlib.import_module("kubernetes.leaderelection.leaderelection")
        return sys.executable
    except ImportError:
        return "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable


class RoundError(Exception):
    """A round could not go on (no leader in time, a process failed to start): the round fails
    with this message, and the world is restored before the next one."""


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def fmt_s(x: float) -> str:
    return f"{x:g}"


def fmt_ms(x: float) -> str:
    return f"{int(round(x * 1000))}ms"


class StallMonitor:
    """When this process could not run its threads: a thread wakes every TICK seconds and notes
    each gap longer than STALL between two wake-ups as (start, end), on the monotonic clock.
    The reader threads that stamp the candidates' lines were stalled then too (see
    fault_observer.delay_bound)."""

    TICK, STALL = 0.002, 0.006

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stalls: collections.deque[tuple[float, float]] = collections.deque(maxlen=200_000)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="stall monitor")
        self._thread.start()

    def _run(self) -> None:
        last = time.monotonic()
        while not self._stop.wait(self.TICK):
            now = time.monotonic()
            if now - last > self.STALL:
                with self._lock:
                    self._stalls.append((last, now))
            last = now

    def between(self, lo: float, hi: float) -> list[tuple[float, float]]:
        with self._lock:
            return [(a, b) for a, b in self._stalls if b >= lo and a <= hi]

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


# --------------------------------------------------------------------------------------------
# Candidates
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """How a candidate is started (see the module docstring for the kinds)."""

    kind: str  # lease | configmap | coordinated | run | python
    lease: float = LEASE
    renew: float = RENEW
    retry: float = RETRY
    release: bool = True
    stop_delay: float = 0.0
    clock: tuple[float, float] | None = None  # (rate, wall offset s): the process runs with a skewed clock
    emulation_minor: int = BASE_VERSION[1]  # coordinated: emulation version 1.<minor>.0

    def timings(self) -> dict:
        d = {"lease_s": self.lease, "renew_s": self.renew, "retry_s": self.retry, "release_on_cancel": self.release,
             "stop_delay_s": self.stop_delay}
        if self.clock:
            d["clock_rate"], d["clock_offset_s"] = self.clock
            d["clock_injector"] = clock_injector()
        return d


def _exit_stamp(c: Candidate) -> None:
    """Records when the process ended, also when it exits by itself (Candidate only does it when
    the test kills or stops it). An upper bound of its last act, as Candidate.ended_mono."""
    c.proc.wait()
    if c.ended_mono is None:
        c.ended_wall, c.ended_mono = time.time(), time.monotonic()


@dataclass
class Member:
    """A candidate of a world with its own proxies (one per server replica, by replica index)."""

    cand: Candidate
    spec: Spec
    slot: int
    proxies: list[FaultProxy]
    own: int  # the replica it talks to first
    special: bool = False  # started for one scenario (clock, preemption): replaced afterwards

    @property
    def identity(self) -> str:
        return self.cand.identity

    def blackhole(self) -> None:
        for p in self.proxies:
            p.blackhole()

    def reset(self) -> None:
        for p in self.proxies:
            p.reset()

    def heal(self, deliver_held: bool) -> None:
        for p in self.proxies:
            p.heal(deliver_held)

    def held_bytes(self) -> int:
        return sum(p.held_bytes() for p in self.proxies)

    def talks_to(self) -> int:
        """The replica whose proxy carried this candidate's latest request."""
        best = max(range(len(self.proxies)), key=lambda i: self.proxies[i].last_read[0])
        return best if self.proxies[best].last_read[0] > 0 else self.own

    def pids(self) -> list[int]:
        """The process and, for `tenure run`, the command it runs (its own process group)."""
        pid = self.cand.proc.pid
        out = [pid]
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as fh:
                out += [int(x) for x in fh.read().split()]
        except OSError:
            pass
        return out

    def close(self) -> None:
        for p in self.proxies:
            p.close()


# --------------------------------------------------------------------------------------------
# etcd with restartable, pausable members
# --------------------------------------------------------------------------------------------


class FaultyEtcd(EtcdCluster):
    """EtcdCluster whose members can be restarted (same data folder) and paused (SIGSTOP)."""

    def _argv(self, i: int) -> list[str]:
        name = self.names[i]
        return [ETCD, f"--name={name}", f"--data-dir={self.dir}/{name}",
                f"--listen-client-urls={self.urls[i]}", f"--advertise-client-urls={self.urls[i]}",
                f"--listen-peer-urls=http://127.0.0.1:{self.peer_ports[i]}",
                f"--initial-advertise-peer-urls=http://127.0.0.1:{self.peer_ports[i]}",
                f"--initial-cluster={self.initial}", f"--initial-cluster-token={self.token}",
                "--initial-cluster-state=new", "--logger=zap", "--log-outputs=stderr", "--log-level=warn"]

    def _spawn(self, i: int) -> None:
        with open(os.path.join(self.dir, f"{self.names[i]}.log"), "ab") as out:
            self.procs[i] = subprocess.Popen(self._argv(i), stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                             preexec_fn=_die_with_parent)

    def start(self, timeout: float = 30.0) -> "FaultyEtcd":
        if not os.access(ETCD, os.X_OK):
            raise AssertionError(f"etcd not found at {ETCD}: install Debian's etcd-server (scripts/bootstrap.sh)")
        for i in range(len(self.names)):
            self._spawn(i)
        for i in range(len(self.names)):
            self.wait_healthy(i, timeout)
        return self

    def wait_healthy(self, i: int, timeout: float = 30.0) -> None:
        d = Deadline(timeout)
        while True:
            try:
                if self.healthy(i):
                    return
            except OSError:
                pass
            if self.procs[i] is not None and self.procs[i].poll() is not None:
                raise AssertionError(f"etcd member {self.names[i]} exited\n{self.log_tail(i)}")
            if d.expired():
                raise AssertionError(f"etcd member {self.names[i]} not healthy within {timeout}s\n{self.log_tail(i)}")
            time.sleep(0.05)

    def running(self, i: int) -> bool:
        p = self.procs[i]
        return p is not None and p.poll() is None

    def restart(self, i: int) -> None:
        self.kill(i)
        self._spawn(i)
        self.wait_healthy(i)

    def pause(self, i: int) -> None:
        self.procs[i].send_signal(signal.SIGSTOP)

    def is_leader(self, i: int) -> bool:
        """Whether member i leads the etcd cluster now (its status through the JSON gateway)."""
        try:
            req = urllib.request.Request(self.urls[i] + "/v3/maintenance/status", data=b"{}", method="POST")
            with urllib.request.urlopen(req, timeout=1) as r:
                status = json.loads(r.read())
            return status["header"]["member_id"] == status["leader"]
        except (OSError, ValueError, KeyError):
            return False

    def describe(self, i: int) -> str:
        return f"etcd member {i}{' (the etcd leader)' if self.is_leader(i) else ''}"

    def resume(self, i: int) -> None:
        if self.running(i):
            self.procs[i].send_signal(signal.SIGCONT)


# --------------------------------------------------------------------------------------------
# Worlds
# --------------------------------------------------------------------------------------------


WORLD_KINDS = ("lease", "configmap", "coordinated", "run", "python")


class World:
    """One store and one candidate kind: servers, fencing checkers, candidates and their proxies.

    Start candidates from the main thread only (PR_SET_PDEATHSIG is tied to the starting thread).
    """

    def __init__(self, store: str, kind: str) -> None:
        assert store in ("sqlite", "etcd") and kind in WORLD_KINDS, (store, kind)
        self.store, self.kind = store, kind
        self.dir = tempfile.mkdtemp(prefix=f"tenure-faults-{store}-{kind}-")
        self.lock = f"lock-{kind}"
        self.lock_is_configmap = kind in ("configmap", "python")
        self.servers: list[Server] = []
        self.etcd: FaultyEtcd | None = None
        self.etcd_proxies: list[list[FaultProxy]] = []  # [replica][member]
        self.clients: list[Client] = []
        self.fence = FenceChecker()
        self.log_fence = FenceChecker(enforce=False)  # Python candidates write token 0: a log only
        self.members: list[Member] = []  # live ones and those whose intervals may still matter
        self.pauses: list[fo.Pause] = []
        self.serial = 0
        self.preemptions = 0
        self.prefer = 0  # the replica the lock reader asks first
        self.started = False
        # Accepted writes per (checker, token, identity), read incrementally (the lists only grow).
        self._seen = {id(self.fence): 0, id(self.log_fence): 0}
        self._walls: dict[tuple[int, int, str], list[float]] = {}
        self.max_token = -1

    # -- lifecycle ----------------------------------------------------------------------------
    @property
    def server_args(self) -> list[str]:
        if self.kind == "coordinated":
            return [*COORDINATED_FLAGS, "--coordination-election-duration", fmt_s(ELECTION)]
        return []

    @property
    def takeover_timeout(self) -> float:
        t = 15.0
        if self.kind == "coordinated":
            t += 2 * ELECTION + 5
        if self.kind == "python":
            t += 10
        if self.store == "etcd":
            t += 15
        return t

    def start(self) -> "World":
        log(f"starting world {self.store}/{self.kind}")
        if self.store == "sqlite":
            s = Server(self.server_args, listen=f"127.0.0.1:{free_port()}")
            self.servers.append(s)
            s.start()
        else:
            self.etcd = FaultyEtcd(3)
            self.etcd.start()
            data = os.path.join(self.dir, "replicas-data")
            for r in range(2):
                proxies = [FaultProxy("127.0.0.1", port, name=f"replica{r}->etcd{m}")
                           for m, port in enumerate(self.etcd.client_ports)]
                self.etcd_proxies.append(proxies)
                order = [r] + [m for m in range(3) if m != r]
                eps = ",".join(f"http://127.0.0.1:{proxies[m].port}" for m in order)
                s = Server(["--store", "etcd", "--etcd-endpoints", eps, "--etcd-prefix", "/registry",
                            *self.server_args], data_dir=data, listen=f"127.0.0.1:{free_port()}")
                self.servers.append(s)
                s.start()
        self.clients = [s.client(timeout=2.0) for s in self.servers]
        d = Deadline(20)
        while True:
            try:
                r = self.clients[0].post(core_path("namespaces"),
                                         {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
                if r.status in (201, 409):
                    break
            except OSError:
                pass
            if d.expired():
                raise AssertionError(f"could not create namespace {NS}")
            time.sleep(0.1)
        self.started = True
        return self

    def close(self) -> None:
        self.park()
        for c in self.clients:
            c.close()
        for s in self.servers:
            s.cleanup()
        for row in self.etcd_proxies:
            for p in row:
                p.close()
        if self.etcd is not None:
            for i in range(3):
                self.etcd.resume(i)
            self.etcd.cleanup()
        self.fence.close()
        self.log_fence.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def config(self) -> dict:
        spec = self.base_spec(0)
        return {"store": self.store, "kind": self.kind, "replicas": len(self.servers),
                "etcd_members": 3 if self.etcd else 0, **spec.timings()}

    # -- candidates ---------------------------------------------------------------------------
    def base_spec(self, slot: int) -> Spec:
        if self.kind == "python":
            if slot % 3 == 1:
                return Spec("configmap", PY_LEASE, PY_RENEW, PY_TENURE_RETRY)
            return Spec("python", PY_LEASE, PY_RENEW, PY_RETRY, release=False)
        return Spec(self.kind)

    def kubeconfig_for(self, identity: str, port: int) -> str:
        with open(self.servers[0].kubeconfig) as fh:
            text = fh.read()
        text = re.sub(r"server: https://127\.0\.0\.1:\d+", f"server: https://127.0.0.1:{port}", text)
        path = os.path.join(self.dir, f"kubeconfig-{identity}")
        with open(path, "w") as fh:
            fh.write(text)
        return path

    def direct_kubeconfig(self) -> str:
        return self.kubeconfig_for("direct", self.servers[self.prefer].port)

    def spawn(self, spec: Spec, slot: int, special: bool = False, fence: FenceChecker | None = None) -> Member:
        """Start a candidate (fence: another checker for its fenced writes than the world's)."""
        self.serial += 1
        prefix = {"lease": "lease", "configmap": "cm", "coordinated": "coord", "run": "run", "python": "py"}[spec.kind]
        identity = f"{'clock' if spec.clock else prefix}-{self.serial}"
        own = slot % len(self.servers)
        proxies = [FaultProxy("127.0.0.1", s.port, name=f"{identity}->replica{i}") for i, s in enumerate(self.servers)]
        kc = self.kubeconfig_for(identity, proxies[own].port)
        order = [own] + [i for i in range(len(self.servers)) if i != own]
        servers = [f"https://127.0.0.1:{proxies[i].port}" for i in order]
        argv = self.argv(spec, identity, kc, servers, fence or self.fence)
        cand = Candidate(argv, identity, self.dir, kind=spec.kind)
        threading.Thread(target=_exit_stamp, args=(cand,), daemon=True, name=f"exit {identity}").start()
        m = Member(cand, spec, slot, proxies, own, special)
        self.members.append(m)
        return m

    def argv(self, spec: Spec, identity: str, kubeconfig: str, servers: list[str], fence: FenceChecker) -> list[str]:
        lock = f"{NS}/{self.lock}"
        if spec.kind in ("lease", "configmap", "coordinated"):
            a = [elect_bin(), "--kubeconfig", kubeconfig, "--lock", lock, "--identity", identity,
                 "--lease-duration", fmt_s(spec.lease), "--renew-deadline", fmt_s(spec.renew),
                 "--retry-period", fmt_s(spec.retry), "--fence-port", str(fence.port)]
            if spec.kind == "configmap":
                a.append("--configmap")
            if spec.release:
                a.append("--release-on-cancel")
            if spec.stop_delay:
                a += ["--stop-delay", fmt_s(spec.stop_delay)]
            if len(servers) > 1:
                a += ["--servers", ",".join(servers)]
            if spec.kind == "coordinated":
                a += ["--coordinated", "--binary-version", f"{BASE_VERSION[0]}.{BASE_VERSION[1]}.0",
                      "--emulation-version", f"{BASE_VERSION[0]}.{spec.emulation_minor}.0"]
        elif spec.kind == "run":
            a = [tenure_bin(), "run", "--kubeconfig", kubeconfig, "--lock", lock, "--identity", identity,
                 "--lease-duration", fmt_ms(spec.lease), "--renew-deadline", fmt_ms(spec.renew),
                 "--retry-period", fmt_ms(spec.retry), "--grace-period", fmt_ms(GRACE)]
            if spec.release:
                a.append("--release-on-cancel")
            if len(servers) > 1:
                a += ["--servers", ",".join(servers)]
            a += ["--", sys.executable, WORKER, "--fence-port", str(fence.port)]
            if spec.stop_delay:
                a += ["--stop-delay", fmt_s(spec.stop_delay)]
        else:
            a = [client_python(), PY_CANDIDATE, "--kubeconfig", kubeconfig, "--lock", lock, "--identity", identity,
                 "--lease", str(int(spec.lease)), "--renew", str(int(spec.renew)), "--retry", str(int(spec.retry)),
                 "--fence-port", str(self.log_fence.port)]
        # `tenure run` reads its settings from TENURE_* variables too: none leaks in from here.
        env = ["env"] + [x for k in sorted(os.environ) if k.startswith("TENURE_") for x in ("-u", k)]
        if spec.clock:
            env += clock_env(*spec.clock)
        return env + a if len(env) > 1 else a

    def live(self) -> list[Member]:
        return [m for m in self.members if m.cand.running()]

    def member_of(self, iv: fo.Interval) -> Member:
        return next(m for m in self.members if m.cand is iv.candidate)

    def intervals(self, now: float | None = None) -> list[fo.Interval]:
        return fo.all_intervals([m.cand for m in self.members], self.pauses,
                                time.monotonic() if now is None else now)

    def used(self, m: Member) -> bool:
        """Had a term that ended (tenure-elect does not campaign again), or has exited."""
        if not m.cand.running():
            return True
        return any(not iv.open for iv in fo.candidate_intervals(m.cand, self.pauses, time.monotonic()))

    def retire(self, members: Iterable[Member]) -> None:
        """Stop these candidates: followers first, a leader last (it releases on SIGTERM)."""
        members = list(members)
        leading = {id(iv.candidate) for iv in self.intervals() if iv.open}
        for m in sorted(members, key=lambda m: id(m.cand) in leading):
            for pid in m.pids()[1:]:
                try:
                    os.kill(pid, signal.SIGCONT)
                except OSError:
                    pass
            m.cand.terminate(timeout=GRACE + 5)
            m.special = True  # never chosen again

    def park(self) -> None:
        """Stop every candidate (the world stays up for later rounds)."""
        self.retire(self.live())
        self.prune(time.monotonic())

    def prune(self, now: float) -> None:
        """Forget ended candidates whose terms all ended before `now` (they cannot overlap later)."""
        keep = []
        for m in self.members:
            ivs = fo.candidate_intervals(m.cand, self.pauses, now)
            if not m.cand.running() and all(iv.effective_end < now for iv in ivs):
                m.close()
                continue
            keep.append(m)
        self.members = keep
        self.pauses = [p for p in self.pauses if any(m.cand is p.candidate for m in keep)]

    def wait_ready(self, members: Iterable[Member], timeout: float = 40.0) -> None:
        for m in members:
            try:
                if m.spec.kind == "coordinated":
                    m.cand.wait_event("candidate", timeout)
                elif m.spec.kind == "run":
                    _wait_file(m.cand.log_path, "candidate ", timeout, m.cand)
                else:
                    m.cand.wait_event("ready", timeout)
            except AssertionError as e:
                raise RoundError(f"candidate {m.identity} did not get ready: {e}") from None

    def ensure(self, overrides: dict | None = None, n: int = 3) -> None:
        """n live candidates of the wanted specs: used, special or differently configured ones are
        replaced by fresh identities."""
        overrides = overrides or {}
        wanted = {slot: replace(self.base_spec(slot), **overrides) for slot in range(n)}
        live = self.live()
        stale = [m for m in live if m.special or self.used(m) or m.slot not in wanted or m.spec != wanted[m.slot]]
        taken: set[int] = set()
        for m in live:
            if m not in stale and m.slot not in taken:
                taken.add(m.slot)
            elif m not in stale:
                stale.append(m)
        if stale:
            self.retire(stale)
        fresh = [self.spawn(wanted[slot], slot) for slot in range(n) if slot not in taken]
        self.wait_ready(fresh)

    def spawn_like(self, m: Member, special: bool = False) -> Member:
        spec = self.base_spec(m.slot) if m.special else m.spec
        return self.spawn(replace(spec, clock=None), m.slot, special)

    # -- the lock and the leader --------------------------------------------------------------
    def read_lock(self) -> tuple[str | None, str] | None:
        """(holder, resourceVersion) through a server directly (not through any proxy), or None."""
        path = core_path("configmaps", NS, self.lock) if self.lock_is_configmap else lease_path(NS, self.lock)
        order = [self.prefer] + [i for i in range(len(self.clients)) if i != self.prefer]
        for i in order:
            try:
                r = self.clients[i].get(path)
            except (OSError, ConnectionError):
                continue
            if r.status != 200 or not isinstance(r.body, dict):
                continue
            rv = r.body["metadata"]["resourceVersion"]
            if self.lock_is_configmap:
                ann = (r.body["metadata"].get("annotations") or {}).get(LEADER_ANNOTATION)
                holder = json.loads(ann).get("holderIdentity") if ann else None
            else:
                holder = (r.body.get("spec") or {}).get("holderIdentity")
            return holder, rv
        return None

    def sync_writes(self) -> None:
        """Index the writes the checkers accepted since the last call."""
        for checker in (self.fence, self.log_fence):
            with checker.lock:
                new = checker.accepted[self._seen[id(checker)]:]
                self._seen[id(checker)] = len(checker.accepted)
            for wall, token, ident, _ in new:
                self._walls.setdefault((id(checker), token, ident), []).append(wall)
                if checker is self.fence:
                    self.max_token = max(self.max_token, token)

    def writes_of(self, token: int | None, identity: str, python: bool = False) -> list[float]:
        """Wall times of the accepted writes of (token, identity) (Python candidates: logged)."""
        self.sync_writes()
        checker = self.log_fence if python else self.fence
        return self._walls.get((id(checker), 0 if python else token, identity), [])

    def steady(self, iv: fo.Interval, since_wall: float | None = None) -> bool:
        """The leader of iv works: STEADY_WRITES of its fenced writes were accepted (after
        since_wall), or logged for a Python candidate (token 0)."""
        walls = self.writes_of(iv.token, iv.identity, python=iv.kind == "python")
        if since_wall is not None:
            return len(walls) - bisect.bisect_right(walls, since_wall) >= STEADY_WRITES
        return len(walls) >= STEADY_WRITES

    def one_steady_leader(self, since_wall: float | None = None) -> Member | None:
        ivs = [iv for iv in self.intervals() if iv.open]
        if len(ivs) != 1 or any(p.resumed_mono is None for p in self.pauses):
            return None
        m = self.member_of(ivs[0])
        if not m.cand.running() or not self.steady(ivs[0], since_wall):
            return None
        return m

    def wait_leader(self, timeout: float | None = None, what: str = "one steady leader") -> Member:
        timeout = timeout or self.takeover_timeout + 10
        d = Deadline(timeout)
        while True:
            m = self.one_steady_leader()
            if m is not None:
                return m
            if d.expired():
                raise RoundError(f"no {what} within {timeout:.0f}s: open intervals "
                                 f"{[iv.rel(0) for iv in self.intervals() if iv.open]}\n{self.describe()}")
            time.sleep(0.02)

    def pause(self, m: Member) -> fo.Pause:
        for pid in m.pids():
            os.kill(pid, signal.SIGSTOP)
        p = fo.Pause(m.cand, time.monotonic(), time.time())
        self.pauses.append(p)
        return p

    def resume(self, p: fo.Pause) -> None:
        if p.resumed_mono is not None:
            return
        p.resumed_mono, p.resumed_wall = time.monotonic(), time.time()
        m = next((m for m in self.members if m.cand is p.candidate), None)
        pids = m.pids() if m is not None else [p.candidate.proc.pid]
        for pid in pids:
            try:
                os.kill(pid, signal.SIGCONT)
            except OSError:
                pass

    def recover(self) -> None:
        """After a failed round: everything resumed, healed and running again, candidates replaced."""
        for p in self.pauses:
            self.resume(p)
        for m in self.members:
            for px in m.proxies:
                px.heal(False)
        for row in self.etcd_proxies:
            for px in row:
                px.heal(False)
        if self.etcd is not None:
            for i in range(3):
                self.etcd.resume(i)
                if not self.etcd.running(i):
                    self.etcd.restart(i)
        for s in self.servers:
            s.resume()
            if not s.running():
                s.start()
        self.retire(self.live())

    def describe(self, lines: int = 12) -> str:
        out = [m.cand.describe(lines) for m in self.members[-6:]]
        for s in self.servers:
            out.append(s.output_tail(lines))
        return "\n".join(out)


def _poll(cond: Callable[[], object], timeout: float, what: str) -> object:
    """cond()'s first value that is not None, polled until timeout (then RoundError)."""
    d = Deadline(timeout)
    while True:
        v = cond()
        if v is not None:
            return v
        if d.expired():
            raise RoundError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.02)


def _wait_file(path: str, needle: str, timeout: float, cand: Candidate) -> None:
    d = Deadline(timeout)
    while True:
        try:
            with open(path, "rb") as fh:
                if needle.encode() in fh.read():
                    return
        except OSError:
            pass
        if not cand.running():
            raise AssertionError(f"{cand.identity} exited ({cand.proc.returncode})\n{cand.describe()}")
        if d.expired():
            raise AssertionError(f"{cand.identity}: no {needle!r} in its log within {timeout}s\n{cand.describe()}")
        time.sleep(0.02)


# --------------------------------------------------------------------------------------------
# Rounds and faults
# --------------------------------------------------------------------------------------------


class Round:
    """One round's state, handed to the fault function."""

    def __init__(self, world: World, fault: "Fault", index: int) -> None:
        self.world = world
        self.fault = fault
        self.index = index
        self.leader: Member | None = None
        self.inject_mono: float | None = None
        self.inject_wall: float | None = None
        self.rv0: str | None = None
        self.continued_at: float | None = None
        self.next: fo.Interval | None = None
        self.notes: list[str] = []
        self.errors: list[str] = []

    def leader_token(self) -> int | None:
        ivs = [iv for iv in self.world.intervals() if iv.open and iv.candidate is self.leader.cand]
        return ivs[0].token if ivs else None

    def inject(self, action: Callable[[], object] | None = None) -> None:
        """The fault takes effect now (the time is taken before `action`)."""
        lock = self.world.read_lock()
        self.rv0 = lock[1] if lock else None
        self.inject_wall, self.inject_mono = time.time(), time.monotonic()
        if action is not None:
            action()

    def wait_next(self, expect: str | None = None, timeout: float | None = None) -> None:
        """Until a term starts after the injection; with expect="any" also until the old leader
        is seen renewing twice after it (the first renewal might have been sent before)."""
        expect = expect or self.fault.expect
        timeout = timeout or self.world.takeover_timeout
        d = Deadline(timeout)
        seen: list[str] = [self.rv0] if self.rv0 else []
        while True:
            nxt = fo.next_start(self.world.intervals(), self.inject_mono)
            if nxt is not None:
                self.next = nxt
                return
            if expect == "any" and self.continued_at is None:
                lock = self.world.read_lock()
                if lock and lock[0] == self.leader.identity and seen and lock[1] != seen[-1]:
                    seen.append(lock[1])
                    if len(seen) >= 3:
                        self.continued_at = time.monotonic()
                        self.notes.append(f"{self.leader.identity} kept the lease (renewals seen after the fault)")
                        return
                elif lock and not seen:
                    seen.append(lock[1])
            if d.expired():
                raise RoundError(f"{self.fault.name}: no new leader{' and no renewal by the old one' if expect == 'any' else ''} "
                                 f"within {timeout:.0f}s of the fault\n{self.world.describe()}")
            time.sleep(0.02)

    def wait_phase(self) -> None:
        """Wait for the injection phase (see PHASE_QUIET): late in the record's period, when the
        leader's last renewals left the record unchanged; followers count the lease from the
        last CHANGE they saw, the leader from its last renewal."""
        d = Deadline(PHASE_MAX)
        last, changed = None, time.monotonic()
        while not d.expired():
            lock = self.world.read_lock()
            if lock is not None and lock != last:
                last, changed = lock, time.monotonic()
            if time.monotonic() - changed >= PHASE_QUIET:
                return
            time.sleep(0.01)

    def hold_until(self, t_mono: float) -> None:
        """Keep the fault in place until t_mono (the fault's duration, not a wait for a result)."""
        while time.monotonic() < t_mono:
            time.sleep(min(0.05, max(0.0, t_mono - time.monotonic())))


@dataclass(frozen=True)
class Fault:
    name: str
    family: str  # partition | process | server | etcd | clock | graceful
    run: Callable[[Round], None]
    kinds: tuple[str, ...]
    stores: tuple[str, ...] = ("sqlite", "etcd")
    expect: str = "takeover"  # takeover: a new term must start; any: the leader may ride it out
    graceful: bool = False
    measure_only: bool = False
    prepare: Callable[[Round], None] | None = None
    overrides: dict = field(default_factory=dict)
    note: str = ""
    phase: bool = True  # inject late in the lock record's period (Round.wait_phase)


TENURE_KINDS = ("lease", "configmap", "coordinated", "run")
ELECT_KINDS = ("lease", "configmap")
CLOCK_KINDS = ("lease", "configmap", "run") if clock_skew_lib() else ELECT_KINDS


def clock_available() -> bool:
    return bool(clock_skew_lib()) or os.path.exists(FAKETIME_LIB)


def f_partition_blackhole(r: Round) -> None:
    r.inject(r.leader.blackhole)
    r.wait_next()
    r.leader.heal(deliver_held=False)


def f_partition_reset(r: Round) -> None:
    r.inject(r.leader.reset)
    r.wait_next()
    r.leader.heal(deliver_held=False)


def f_partition_heal_late(r: Round) -> None:
    r.inject(r.leader.blackhole)
    r.wait_next()
    held = r.leader.held_bytes()
    r.leader.heal(deliver_held=True)
    r.notes.append(f"{held} held bytes delivered late after {r.next.identity} started")


def f_kill_leader(r: Round) -> None:
    r.inject(r.leader.cand.kill)
    r.world.spawn_like(r.leader)
    r.wait_next()


def f_pause_leader(r: Round) -> None:
    """SIGSTOP for longer than the lease, until the next term's first fenced write was accepted;
    then SIGCONT. The paused term is checked by fencing (see fault_observer)."""
    old = r.leader_token()
    c = r.leader.cand
    holder: list[fo.Pause] = []

    def newer_term_wrote() -> bool | None:
        r.world.sync_writes()
        return True if old is None or r.world.max_token > old else None

    def noticed() -> list | None:
        evs = [e for e in c.events if e.mono >= holder[0].resumed_mono and e.name in ("stopped", "work-ended")]
        return evs if evs or not c.running() else None

    r.inject(lambda: holder.append(r.world.pause(r.leader)))
    try:
        r.wait_next()
        r.hold_until(r.inject_mono + r.world.base_spec(0).lease + PAUSE_EXTRA)
        _poll(newer_term_wrote, 15, f"a fenced write of a newer term than token {old}")
    finally:
        r.world.resume(holder[0])
    try:
        evs = _poll(noticed, 5, "the resumed leader to notice")
        what = ", ".join(f"{e.name} +{1000 * (e.mono - holder[0].resumed_mono):.0f} ms" for e in evs) or "exited"
    except RoundError:
        what = "no stopped/work-ended within 5 s"
    r.notes.append(f"{r.leader.identity} resumed {1000 * (holder[0].resumed_mono - r.inject_mono):.0f} ms after "
                   f"SIGSTOP; after SIGCONT: {what}")


def f_pause_server(r: Round) -> None:
    s = r.world.servers[0]
    r.inject(s.pause)
    try:
        r.hold_until(r.inject_mono + r.world.base_spec(0).lease + OUTAGE_EXTRA)
    finally:
        s.resume()
    r.wait_next()


def f_kill_server(r: Round) -> None:
    s = r.world.servers[0]
    r.inject(s.kill)
    s.start()
    r.wait_next()


def _leader_replica(r: Round) -> int:
    rep = r.leader.talks_to()
    r.world.prefer = 1 - rep  # read the lock through the other replica
    return rep


def _etcd_member_of(r: Round, rep: int) -> int:
    """The etcd member that replica `rep` talks to now (its proxy with the latest request)."""
    row = r.world.etcd_proxies[rep]
    best = max(range(len(row)), key=lambda m: row[m].last_read[0])
    return best if row[best].last_read[0] > 0 else rep


def f_etcd_kill_member(r: Round) -> None:
    m = _etcd_member_of(r, _leader_replica(r))
    r.notes.append(f"killed {r.world.etcd.describe(m)}")
    r.inject(lambda: r.world.etcd.kill(m))
    try:
        r.wait_next()
    finally:
        r.world.etcd.restart(m)


def f_etcd_pause_member(r: Round) -> None:
    m = _etcd_member_of(r, _leader_replica(r))
    r.notes.append(f"paused {r.world.etcd.describe(m)}")
    r.inject(lambda: r.world.etcd.pause(m))
    try:
        r.wait_next()
        r.hold_until(r.inject_mono + LEASE + OUTAGE_EXTRA)
    finally:
        r.world.etcd.resume(m)


def _black_hole_for_an_outage(r: Round, proxies: list[FaultProxy], note: str) -> None:
    """Black-holes `proxies` for lease + OUTAGE_EXTRA (or until the next leader, if later)."""
    r.notes.append(note)
    r.inject(lambda: [p.blackhole() for p in proxies])
    try:
        r.wait_next()
        r.hold_until(r.inject_mono + LEASE + OUTAGE_EXTRA)
    finally:
        for p in proxies:
            p.heal(deliver_held=False)


def f_etcd_partition_member(r: Round) -> None:
    m = _etcd_member_of(r, _leader_replica(r))
    _black_hole_for_an_outage(r, [row[m] for row in r.world.etcd_proxies],
                              f"black-holed {r.world.etcd.describe(m)} from both replicas")


def f_replica_kill(r: Round) -> None:
    rep = _leader_replica(r)
    s = r.world.servers[rep]
    r.notes.append(f"killed replica {rep}")
    r.inject(s.kill)
    try:
        r.wait_next()
    finally:
        s.start()


def f_replica_pause(r: Round) -> None:
    rep = _leader_replica(r)
    s = r.world.servers[rep]
    r.notes.append(f"paused replica {rep}")
    r.inject(s.pause)
    try:
        r.wait_next()
        r.hold_until(r.inject_mono + LEASE + OUTAGE_EXTRA)
    finally:
        s.resume()


def f_replica_partition(r: Round) -> None:
    """The replica the leader talks to loses its etcd members (clients still reach it)."""
    rep = _leader_replica(r)
    _black_hole_for_an_outage(r, list(r.world.etcd_proxies[rep]),
                              f"black-holed replica {rep} from every etcd member")


def _clock_prepare(clock: Callable[[Round], tuple[float, float]]) -> Callable[[Round], None]:
    """The candidate with the skewed clock leads first (alone), then two others join."""
    def prepare(r: Round) -> None:
        w = r.world
        if not clock_available():
            raise RoundError(f"no clock injector: neither TENURE_CLOCK_SKEW_LIB nor libfaketime ({FAKETIME_LIB})")
        if w.kind == "run" and not clock_skew_lib():
            raise RoundError("`tenure run` does not start under libfaketime (jemalloc); needs TENURE_CLOCK_SKEW_LIB")
        w.retire(w.live())
        rate, offset = clock(r)
        ft = " ".join(clock_env(rate, offset)[1:])
        spec = replace(w.base_spec(0), clock=(rate, offset))
        f = w.spawn(spec, 0, special=True)
        w.wait_ready([f])
        try:
            f.cand.wait_event("started", w.takeover_timeout + 10)
        except AssertionError as e:
            raise RoundError(f"the candidate under {ft} did not lead: {e}") from None
        others = [w.spawn(w.base_spec(slot), slot) for slot in (1, 2)]
        w.wait_ready(others)
        r.leader = w.wait_leader()
        if r.leader is not f:
            raise RoundError(f"{r.leader.identity} leads, not the candidate with the skewed clock {f.identity}")
        r.notes.append(f"{f.identity} under {ft}: {clock_injector()}")
    return prepare


def f_clock(r: Round) -> None:
    r.inject(r.leader.blackhole)
    r.wait_next()
    r.leader.heal(deliver_held=False)


def f_release_on_cancel(r: Round) -> None:
    r.inject(lambda: r.leader.cand.proc.send_signal(signal.SIGTERM))
    r.wait_next()
    r.leader.cand.terminate(timeout=GRACE + 5)
    if r.leader.cand.proc.returncode not in (0, None):
        r.errors.append(f"{r.leader.identity} exited with {r.leader.cand.proc.returncode} after SIGTERM")


def f_yield(r: Round) -> None:
    r.inject(lambda: r.leader.cand.proc.send_signal(signal.SIGUSR1))
    r.wait_next()
    rc = r.leader.cand.proc.poll()
    if rc == -signal.SIGUSR1:
        r.errors.append(f"{r.leader.identity} was killed by SIGUSR1: this tenure-elect has no Yield on SIGUSR1")


def f_preemption(r: Round) -> None:
    w = r.world
    low = BASE_VERSION[1] - 1 - w.preemptions
    if low < 1:
        raise RoundError("out of emulation versions for preemption in this world")
    w.preemptions += 1
    spec = replace(w.base_spec(0), emulation_minor=low, stop_delay=r.fault.overrides.get("stop_delay", 0.0))
    holder: list[Member] = []
    r.inject(lambda: holder.append(w.spawn(spec, 0, special=True)))
    r.wait_next()
    if r.next.candidate is not holder[0].cand:
        r.errors.append(f"{r.next.identity} started after the preemption, not the preferred {holder[0].identity}")


def f_release_force(r: Round) -> None:
    w = r.world
    argv = [tenure_bin(), "release", f"{NS}/{w.lock}", "--force", "--kubeconfig", w.direct_kubeconfig()]
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENURE_")}
    out: list[subprocess.CompletedProcess] = []
    r.inject(lambda: out.append(subprocess.run(argv, capture_output=True, text=True, timeout=30, env=env)))
    if out[0].returncode != 0:
        raise RoundError(f"tenure release failed ({out[0].returncode}): {out[0].stdout}{out[0].stderr}")
    r.wait_next()


FAULTS: dict[str, Fault] = {f.name: f for f in [
    Fault("partition-blackhole", "partition", f_partition_blackhole, TENURE_KINDS),
    Fault("partition-reset", "partition", f_partition_reset, TENURE_KINDS),
    Fault("partition-heal-late", "partition", f_partition_heal_late, TENURE_KINDS),
    Fault("kill-leader", "process", f_kill_leader, (*TENURE_KINDS, "python"), phase=False),
    Fault("pause-leader", "process", f_pause_leader, TENURE_KINDS),
    Fault("pause-server", "server", f_pause_server, TENURE_KINDS, stores=("sqlite",)),
    Fault("kill-server", "server", f_kill_server, (*TENURE_KINDS, "python"), stores=("sqlite",), expect="any"),
    Fault("etcd-kill-member", "etcd", f_etcd_kill_member, ("lease", "configmap", "run"), ("etcd",), "any"),
    Fault("etcd-pause-member", "etcd", f_etcd_pause_member, ("lease", "configmap", "run"), ("etcd",), "any"),
    Fault("etcd-partition-member", "etcd", f_etcd_partition_member, ("lease", "configmap", "run"), ("etcd",), "any"),
    Fault("replica-kill", "etcd", f_replica_kill, ("lease", "configmap", "run"), ("etcd",), "any"),
    Fault("replica-pause", "etcd", f_replica_pause, ("lease", "configmap", "run"), ("etcd",), "any"),
    Fault("replica-partition", "etcd", f_replica_partition, ("lease", "configmap", "run"), ("etcd",), "any"),
    # `tenure run` only with the clock-skew library: it hangs at start under libfaketime.
    Fault("clock-offset", "clock", f_clock, CLOCK_KINDS,
          prepare=_clock_prepare(lambda r: (1.0, CLOCK_OFFSET if r.index % 2 == 0 else -CLOCK_OFFSET))),
    Fault("clock-rate-within", "clock", f_clock, CLOCK_KINDS,
          prepare=_clock_prepare(lambda r: (CLOCK_RATE_WITHIN, 0.0))),
    Fault("clock-rate-beyond", "clock", f_clock, CLOCK_KINDS, measure_only=True,
          prepare=_clock_prepare(lambda r: (CLOCK_RATE_BEYOND, 0.0)),
          note="beyond the drift the library assumes: overlaps are measured, not failures"),
    # An operator's override: the holder's write is replaced at once and waiting candidates take
    # the lease at once; the old leader ends its term when its watch (or next renewal) shows it,
    # so the two race by one acquire round trip. Measured, not asserted (docs/reliability.md).
    Fault("release-force", "graceful", f_release_force, ("lease", "run"), graceful=True, phase=False,
          measure_only=True, note="a forced release does not wait for the leader: the gap is measured"),
    Fault("release-on-cancel", "graceful", f_release_on_cancel, TENURE_KINDS, graceful=True,
          overrides={"stop_delay": STOP_DELAY}, phase=False),
    Fault("yield", "graceful", f_yield, ELECT_KINDS, graceful=True, overrides={"stop_delay": STOP_DELAY},
          phase=False),
    Fault("preemption", "graceful", f_preemption, ("coordinated",), graceful=True,
          overrides={"stop_delay": STOP_DELAY}, phase=False),
]}


def applies(fault: Fault, store: str, kind: str) -> bool:
    return store in fault.stores and kind in fault.kinds


def run_round(world: World, fault: Fault, index: int, monitor: StallMonitor | None = None) -> fo.RoundResult:
    """One round of `fault` in `world`; never raises for a failed scenario (the result says)."""
    r = Round(world, fault, index)
    start, start_wall = time.monotonic(), time.time()
    try:
        if fault.prepare is not None:
            fault.prepare(r)
        else:
            world.ensure(fault.overrides)
            r.leader = world.wait_leader()
        if fault.phase:
            r.wait_phase()
        fault.run(r)
        settle_wall = time.time()
        d = Deadline(world.takeover_timeout + 15)
        while world.one_steady_leader(since_wall=settle_wall) is None:
            if d.expired():
                raise RoundError(f"no steady leader within {d.seconds:.0f}s after the fault was healed\n"
                                 f"{world.describe()}")
            time.sleep(0.02)
    except (RoundError, AssertionError, OSError, subprocess.SubprocessError) as e:
        r.errors.append(f"{type(e).__name__}: {e}")
        try:
            world.recover()
        except Exception as e2:  # noqa: BLE001 - report, the next round will find out
            r.errors.append(f"recovering the world failed: {e2!r}")
    end = time.monotonic()
    stalls = monitor.between(start - 1, end + 1) if monitor is not None else []
    worst = max((b - a for a, b in stalls), default=0.0)
    if worst > 0.05:
        r.notes.append(f"the observer itself stalled for up to {worst * 1000:.0f} ms in this round")
    spec = r.leader.spec if r.leader is not None else world.base_spec(0)
    config = {**world.config(), **spec.timings()}
    if fault.note:
        r.notes.append(fault.note)
    result = fo.check_round(
        fault=fault.name, store=world.store, kind=world.kind, config=config, index=index,
        candidates=[m.cand for m in world.members], pauses=world.pauses, window=(start, end),
        inject=r.inject_mono,
        # This round's writes only: a late write is reported in the round of its pause, once.
        fence_accepted=[w for w in world.fence.writes() if w[0] >= start_wall],
        fence_rejected=[w for w in world.fence.writes(rejected=True) if w[0] >= start_wall],
        continued_at=r.continued_at, graceful=fault.graceful, measure_only=fault.measure_only, now=end,
        stalls=stalls, errors=r.errors, notes=r.notes, inject_wall=r.inject_wall)
    world.prune(end)
    return result


# --------------------------------------------------------------------------------------------
# Plans and the suite
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanItem:
    fault: str
    store: str
    kind: str
    rounds: int


@dataclass(frozen=True)
class Only:
    """Filters of a run (None: all): a fault family, a store, a candidate kind, one fault."""
    family: str | None = None
    store: str | None = None
    kind: str | None = None
    fault: str | None = None

    def admits(self, fault: str, store: str, kind: str) -> bool:
        return (self.family in (None, FAULTS[fault].family) and self.store in (None, store)
                and self.kind in (None, kind) and self.fault in (None, fault))


def ci_plan(only: Only = Only()) -> list[PlanItem]:
    """Every fault for at least 3 rounds on SQLite (most on the lease kind, the others' kinds on a
    subset) and 2 rounds of the etcd faults and a few others on etcd; grouped by world."""
    s3 = lambda kind, *faults: [PlanItem(f, "sqlite", kind, 3) for f in faults]  # noqa: E731
    e2 = lambda kind, *faults: [PlanItem(f, "etcd", kind, 2) for f in faults]  # noqa: E731
    plan = [
        *s3("lease", "partition-blackhole", "partition-reset", "partition-heal-late", "kill-leader", "pause-leader",
            "pause-server", "kill-server", "clock-offset", "clock-rate-within", "clock-rate-beyond", "release-force",
            "release-on-cancel", "yield"),
        *s3("configmap", "partition-reset", "release-on-cancel"),
        *s3("run", "kill-leader", "partition-blackhole", "pause-leader", "release-on-cancel"),
        *s3("coordinated", "kill-leader", "preemption"),
        *s3("python", "kill-leader", "kill-server"),
        *e2("lease", "partition-blackhole", "kill-leader", "pause-leader", "etcd-kill-member", "etcd-pause-member",
            "etcd-partition-member", "replica-kill", "replica-pause", "replica-partition"),
    ]
    return [p for p in plan if only.admits(p.fault, p.store, p.kind)]


def long_cycle(only: Only = Only()) -> list[tuple[str, str, str]]:
    """Every applicable (fault, store, kind) that `only` admits, grouped by world, candidates'
    configuration changes last within a world (graceful scenarios use a stop delay)."""
    out = []
    for store in ("sqlite", "etcd"):
        for kind in WORLD_KINDS:
            faults = [f for f in FAULTS.values() if applies(f, store, kind) and only.admits(f.name, store, kind)]
            faults.sort(key=lambda f: (bool(f.overrides), f.family == "clock"))
            out += [(f.name, store, kind) for f in faults]
    return out


class Suite:
    """Runs plans, keeping one world per (store, kind) alive (parked while another runs)."""

    def __init__(self) -> None:
        self.worlds: dict[tuple[str, str], World] = {}
        self.current: World | None = None
        self.results: list[fo.RoundResult] = []
        self.started_wall = time.time()
        self.started_mono = time.monotonic()
        self.rounds_by_fault: dict[tuple[str, str, str], int] = {}
        # Reader threads get the interpreter sooner after a line arrives (default: 5 ms).
        sys.setswitchinterval(0.0005)
        self.monitor = StallMonitor()

    def world(self, store: str, kind: str) -> World:
        w = self.worlds.get((store, kind))
        if self.current is not None and self.current is not w:
            self.current.park()
        if w is None:
            w = World(store, kind)
            self.worlds[(store, kind)] = w
            w.start()
        self.current = w
        return w

    def run(self, fault_name: str, store: str, kind: str, rounds: int = 1) -> list[fo.RoundResult]:
        fault = FAULTS[fault_name]
        if not applies(fault, store, kind):
            raise ValueError(f"{fault_name} does not apply to {store}/{kind}")
        out = []
        try:
            w = self.world(store, kind)
        except (AssertionError, OSError) as e:
            r = fo.check_round(fault=fault_name, store=store, kind=kind, config={"store": store, "kind": kind},
                               index=0, candidates=[], pauses=[], window=(0.0, 0.0), inject=None,
                               errors=[f"the world did not start: {e}"])
            self.results.append(r)
            return [r]
        for _ in range(rounds):
            key = (fault_name, store, kind)
            index = self.rounds_by_fault.get(key, 0)
            self.rounds_by_fault[key] = index + 1
            t0 = time.monotonic()
            r = run_round(w, fault, index, self.monitor)
            log(f"{fault_name} {store}/{kind} #{index}: {'FAILED' if r.failed else 'ok'} in {time.monotonic() - t0:.1f}s, "
                f"takeover {_ms(r.takeover_ms)}{', handover ' + _ms(r.handover_ms) if r.handover_ms is not None else ''}"
                f"{', overlap %.1f ms' % r.overlap_ms() if r.overlaps else ''}"
                f"{', %d unproven overlap(s)' % len(r.unproven) if r.unproven else ''}"
                f"{', %d refused write(s) of a deposed leader' % len(r.refused) if r.refused else ''}")
            if r.failed:
                log(r.describe())
            self.results.append(r)
            out.append(r)
        return out

    def run_plan(self, plan: Iterable[PlanItem]) -> list[fo.RoundResult]:
        out = []
        for item in plan:
            out += self.run(item.fault, item.store, item.kind, item.rounds)
        return out

    def run_long(self, leader_changes: int, batch: int = 3, max_seconds: float | None = None,
                 only: Only = Only()) -> list[fo.RoundResult]:
        """Cycles through every fault, store and kind, `batch` rounds each, until at least
        `leader_changes` leader changes were observed (or max_seconds passed)."""
        out: list[fo.RoundResult] = []
        changes = 0
        while changes < leader_changes:
            cycle = long_cycle(only)
            if not cycle:
                raise ValueError(f"no fault applies to {only}")
            for fault, store, kind in cycle:
                for r in self.run(fault, store, kind, batch):
                    out.append(r)
                    changes += r.leader_changes
                log(f"long profile: {changes}/{leader_changes} leader changes")
                if changes >= leader_changes or (max_seconds and time.monotonic() - self.started_mono > max_seconds):
                    return out
        return out

    def close(self) -> None:
        for w in self.worlds.values():
            try:
                w.close()
            except Exception as e:  # noqa: BLE001 - close the others anyway
                log(f"closing world {w.store}/{w.kind}: {e!r}")
        self.worlds.clear()
        self.current = None
        self.monitor.close()

    def report(self, profile: str, results: list[fo.RoundResult] | None = None) -> dict:
        results = self.results if results is None else results
        return {
            "profile": profile,
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started_wall)),
            "duration_s": round(time.monotonic() - self.started_mono, 1),
            "binaries": {"tenure": os.environ.get("TENURE_BIN") or "build/src/cli/tenure",
                         "tenure-elect": os.environ.get("TENURE_ELECT") or "build/examples/tenure-elect"},
            "timings": {"lease_s": LEASE, "renew_s": RENEW, "retry_s": RETRY, "stop_delay_s": STOP_DELAY,
                        "python": {"lease_s": PY_LEASE, "renew_s": PY_RENEW, "retry_s": PY_RETRY}},
            "notes": [PYTHON_NOTE, f"clock: {clock_injector()}" if clock_skew_lib() else LIBFAKETIME_NOTE],
            "leader_changes": sum(r.leader_changes for r in results),
            "rounds": len(results),
            "failed_rounds": sum(1 for r in results if r.failed),
            "summary": fo.summarize(results),
            "failures": [r.describe() for r in results if r.failed],
            "measured": [r.describe() for r in results if r.measure_only and r.overlaps],
            "results": [r.to_json() for r in results],
        }


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{x:.0f} ms"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", choices=("ci", "long"), default="ci")
    ap.add_argument("--rounds", type=int, default=1000, help="long: run until at least this many leader changes")
    ap.add_argument("--batch", type=int, default=3, help="long: rounds of one fault before the next")
    ap.add_argument("--max-seconds", type=float, default=None, help="long: stop after this long anyway")
    ap.add_argument("--family", default=None, help="only this fault family")
    ap.add_argument("--store", choices=("sqlite", "etcd"), default=None, help="only this store")
    ap.add_argument("--kind", choices=WORLD_KINDS, default=None, help="only this candidate kind")
    ap.add_argument("--fault", choices=sorted(FAULTS), default=None, help="only this fault")
    ap.add_argument("--report", default=None, help="write the JSON report here")
    a = ap.parse_args(argv)
    only = Only(a.family, a.store, a.kind, a.fault)
    tenure_bin()
    elect_bin()
    suite = Suite()
    try:
        if a.profile == "ci":
            results = suite.run_plan(ci_plan(only))
        else:
            results = suite.run_long(a.rounds, a.batch, a.max_seconds, only)
    finally:
        suite.close()
    report = suite.report(a.profile, results)
    if a.report:
        with open(a.report, "w") as fh:
            json.dump(report, fh, indent=2)
    print(fo.format_table(report["summary"]))
    print(f"\n{report['rounds']} rounds, {report['leader_changes']} leader changes, "
          f"{report['failed_rounds']} failed, {report['duration_s']} s")
    for n in report["notes"]:
        print(f"note: {n}")
    for text in report["measured"]:
        print("\n" + text)
    for text in report["failures"]:
        print("\n" + text)
    return 1 if report["failed_rounds"] else 0


if __name__ == "__main__":
    sys.exit(main())
