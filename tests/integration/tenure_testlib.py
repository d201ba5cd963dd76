"""Helpers for integration tests that start the real `tenure serve` process.

Standard library only (Python 3.11). Everything here waits on a condition
with a deadline; nothing relies on a fixed sleep.

- Server: start `tenure serve` on 127.0.0.1:0 in a fresh temporary data
  folder, wait until it prints its listening line and /readyz answers,
  stop it (SIGTERM then SIGKILL), kill -9 it, restart it on the same folder.
- Client: an HTTPS JSON client over one keep-alive connection, trusting the
  server's CA and sending its admin bearer token.
- Watch: a streaming watch read by a background thread, one event per line.
- Kubectl: the real versioned kubectl (1.32, 1.33, ...) with the server's
  kubeconfig and a private HOME, plus a background `kubectl ... -w` runner.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import queue
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse
import urllib.request
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
LISTEN_RE = re.compile(r"tenure serve: listening on (https?)://127\.0\.0\.1:(\d+)")

LEASES = "/apis/coordination.k8s.io/v1"
CANDIDATES = "/apis/coordination.k8s.io/v1beta1"
CORE = "/api/v1"

COORDINATED_FLAGS = (
    "--feature-gates", "CoordinatedLeaderElection=true",
    "--runtime-config", "coordination.k8s.io/v1beta1=true",
)

START_TIMEOUT = float(os.environ.get("TENURE_TEST_START_TIMEOUT", "30"))

try:
    import ctypes

    _libc = ctypes.CDLL(None, use_errno=True)
    _prctl = _libc.prctl
except (OSError, AttributeError):  # pragma: no cover - not Linux
    _prctl = None


def _die_with_parent() -> None:
    """preexec_fn: the child gets SIGKILL when the thread that started it dies (PR_SET_PDEATHSIG),
    so a test runner killed on timeout leaves no server behind. Start processes from the main thread."""
    if _prctl is not None:
        _prctl(1, signal.SIGKILL)


def tenure_bin() -> str:
    """Path of the tenure binary: $TENURE_BIN (set by CTest) or the default build folder."""
    path = os.environ.get("TENURE_BIN") or os.path.join(REPO, "build", "src", "cli", "tenure")
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise unittest.SkipTest(f"tenure binary not found at {path} (set TENURE_BIN)")
    return path


def elect_bin() -> str:
    """Path of the tenure-elect example: $TENURE_ELECT (set by CTest) or the default build folder."""
    path = os.environ.get("TENURE_ELECT") or os.path.join(REPO, "build", "examples", "tenure-elect")
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise unittest.SkipTest(f"tenure-elect binary not found at {path} (set TENURE_ELECT)")
    return path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (for a server restarted on the same URL)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Deadline:
    """A point in time; remaining() is never negative."""

    def __init__(self, seconds: float):
        self.end = time.monotonic() + seconds
        self.seconds = seconds

    def remaining(self) -> float:
        return max(0.0, self.end - time.monotonic())

    def expired(self) -> bool:
        return time.monotonic() >= self.end


def write_token_file(text: str, prefix: str = "tenure-tokens-") -> str:
    """A static token file (kube's --token-auth-file CSV) with `text`; the caller removes it."""
    fd, path = tempfile.mkstemp(prefix=prefix, suffix=".csv")
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    return path


def npm_installed(source: str, target: str, files: Iterable[str]) -> str:
    """`target` holding `files` copied from `source` and the packages its package-lock.json pins,
    installed with `npm ci` when the lock file changed since the last install (npm itself is a
    Debian package: scripts/bootstrap.sh). Skips the test when npm is missing."""
    npm = shutil.which("npm")
    if npm is None:
        raise unittest.SkipTest("npm is not installed; run scripts/bootstrap.sh")
    os.makedirs(target, exist_ok=True)
    with open(os.path.join(source, "package-lock.json"), "rb") as fh:
        stamp = hashlib.sha256(fh.read()).hexdigest()
    stamp_file = os.path.join(target, ".installed")
    for name in ("package.json", "package-lock.json", *files):
        shutil.copyfile(os.path.join(source, name), os.path.join(target, name))
    installed = ""
    if os.path.exists(stamp_file):
        with open(stamp_file) as fh:
            installed = fh.read()
    if installed != stamp:
        r = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=target,
                           capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            raise AssertionError(f"npm ci failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
        with open(stamp_file, "w") as fh:
            fh.write(stamp)
    return target


def wait_until(cond: Callable[[], Any], timeout: float, what: str, interval: float = 0.02) -> Any:
    """Poll cond() until it returns a truthy value; raise AssertionError after timeout."""
    d = Deadline(timeout)
    last_exc: BaseException | None = None
    while True:
        try:
            v = cond()
            if v:
                return v
        except Exception as e:  # noqa: BLE001 - keep polling, report the last error
            last_exc = e
        if d.expired():
            extra = f" (last error: {last_exc!r})" if last_exc else ""
            raise AssertionError(f"timed out after {timeout}s waiting for {what}{extra}")
        time.sleep(min(interval, d.remaining()))


# --------------------------------------------------------------------------------------------
# HTTP client
# --------------------------------------------------------------------------------------------


@dataclass
class Response:
    status: int
    headers: dict[str, str]  # lower-cased names
    body: Any  # parsed JSON, or None when the body is not JSON
    raw: bytes = b""

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def describe(self) -> str:
        text = self.raw[:600].decode("utf-8", "replace")
        return f"HTTP {self.status} content-type={self.header('content-type')!r} body={text!r}"


def _quote_params(params: dict[str, Any] | None) -> str:
    if not params:
        return ""
    return "?" + urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})


class Client:
    """An HTTPS JSON client on one keep-alive connection (not thread safe: one per thread)."""

    def __init__(self, host: str, port: int, cafile: str, token: str | None, timeout: float = 30.0,
                 server: "Server | None" = None):
        self.host = host
        self.port = port
        self.server = server  # when set, new connections go to the server's current port (restarts)
        self.token = token
        self.timeout = timeout
        self.ctx = ssl.create_default_context(cafile=cafile)
        self.conn: http.client.HTTPSConnection | None = None
        self.connects = 0  # how many TCP+TLS connections were opened

    def _connection(self) -> http.client.HTTPSConnection:
        if self.conn is None or self.conn.sock is None:
            if self.conn is not None:
                self.conn.close()
            if self.server is not None:
                self.port = self.server.port
            self.conn = http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=self.timeout)
            self.conn.connect()
            self.connects += 1
        return self.conn

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        params: dict[str, Any] | None = None,
        content_type: str | None = None,
        headers: dict[str, str] | None = None,
        token: bool | str = True,
        retry_idle_close: bool | None = None,
    ) -> Response:
        """Send one request. body: dict/list (sent as JSON), bytes or str (sent as is).

        A GET whose keep-alive connection was closed by the server while idle is retried once
        on a new connection; other methods are never retried (retry_idle_close=True forces it).
        """
        if isinstance(body, (dict, list)):
            data = json.dumps(body).encode()
            content_type = content_type or "application/json"
        elif isinstance(body, str):
            data = body.encode()
        else:
            data = body
        hdrs = {"Accept": "application/json"}
        if content_type:
            hdrs["Content-Type"] = content_type
        if token is True and self.token:
            hdrs["Authorization"] = f"Bearer {self.token}"
        elif isinstance(token, str):
            hdrs["Authorization"] = f"Bearer {token}"
        if headers:
            hdrs.update(headers)
        url = path + _quote_params(params)
        retry = (method == "GET") if retry_idle_close is None else retry_idle_close
        reused = self.conn is not None and self.conn.sock is not None
        try:
            return self._do(method, url, data, hdrs)
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as e:
            self.close()
            if retry and reused:
                return self._do(method, url, data, hdrs)
            raise ConnectionError(f"{method} {url}: connection failed: {e!r}") from e

    def _do(self, method: str, url: str, data: bytes | None, hdrs: dict[str, str]) -> Response:
        conn = self._connection()
        send_error: OSError | None = None
        try:
            conn.request(method, url, body=data, headers=hdrs)
        except OSError as e:  # includes ssl.SSLError, BrokenPipeError, ConnectionResetError
            # The server may answer (e.g. 413) and close before reading the whole body:
            # its answer may still be readable.
            send_error = e
        try:
            resp = conn.getresponse()
            raw = resp.read()
        except BaseException as e:
            self.close()
            if send_error is not None:
                raise ConnectionResetError(f"sending the request failed ({send_error!r}) and no response "
                                           f"could be read ({e!r})") from e
            raise
        headers = {k.lower(): v for k, v in resp.getheaders()}
        if resp.will_close:
            self.close()
        parsed = None
        if raw:
            try:
                parsed = json.loads(raw)
            except ValueError:
                parsed = None
        return Response(resp.status, headers, parsed, raw)

    # Convenience verbs ----------------------------------------------------------------------
    def get(self, path: str, **kw) -> Response:
        return self.request("GET", path, **kw)

    def post(self, path: str, body: Any, **kw) -> Response:
        return self.request("POST", path, body, **kw)

    def put(self, path: str, body: Any, **kw) -> Response:
        return self.request("PUT", path, body, **kw)

    def patch(self, path: str, body: Any, patch_type: str = "application/merge-patch+json", **kw) -> Response:
        return self.request("PATCH", path, body, content_type=patch_type, **kw)

    def delete(self, path: str, body: Any = None, **kw) -> Response:
        return self.request("DELETE", path, body, **kw)


def holder_is(identity: str) -> Callable[[dict], bool]:
    """A predicate on Lease objects: held by `identity`."""
    return lambda o: (o.get("spec") or {}).get("holderIdentity") == identity


def lease_path(ns: str, name: str | None = None) -> str:
    p = f"{LEASES}/namespaces/{ns}/leases"
    return f"{p}/{name}" if name else p


def candidate_path(ns: str, name: str | None = None) -> str:
    p = f"{CANDIDATES}/namespaces/{ns}/leasecandidates"
    return f"{p}/{name}" if name else p


def core_path(resource: str, ns: str | None = None, name: str | None = None) -> str:
    p = f"{CORE}/namespaces/{ns}/{resource}" if ns else f"{CORE}/{resource}"
    return f"{p}/{name}" if name else p


def lease_body(name: str, ns: str | None = None, holder: str | None = "holder-a", duration: int | None = 15,
               **spec: Any) -> dict:
    meta: dict[str, Any] = {"name": name}
    if ns:
        meta["namespace"] = ns
    s: dict[str, Any] = {}
    if holder is not None:
        s["holderIdentity"] = holder
    if duration is not None:
        s["leaseDurationSeconds"] = duration
    s.update(spec)
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta, "spec": s}


def micro_time_now() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int((t % 1) * 1e6):06d}Z"


def time_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def rv_int(obj_or_rv: Any) -> int:
    """resourceVersion as an integer (the server promises decimal strings of one global revision)."""
    rv = obj_or_rv if isinstance(obj_or_rv, str) else obj_or_rv["metadata"]["resourceVersion"]
    if not isinstance(rv, str) or not rv.isdigit():
        raise AssertionError(f"resourceVersion {rv!r} is not a decimal string")
    return int(rv)


# --------------------------------------------------------------------------------------------
# Watch
# --------------------------------------------------------------------------------------------

_EOF = object()


class Watch:
    """A watch stream on its own connection; a thread splits the chunked body into events.

    next(timeout) returns the next event dict, or None at end of stream; it raises
    AssertionError when nothing arrives before the timeout.
    """

    def __init__(self, server: "Server", path: str, params: dict[str, Any] | None = None,
                 headers: dict[str, str] | None = None, timeout: float = 30.0):
        p = dict(params or {})
        p.setdefault("watch", "true")
        self.url = path + _quote_params(p)
        self.conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=server.ssl_context(),
                                                timeout=timeout)
        hdrs = {"Accept": "application/json", "Authorization": f"Bearer {server.token}"}
        if headers:
            hdrs.update(headers)
        self.conn.request("GET", self.url, headers=hdrs)
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.headers = {k.lower(): v for k, v in self.resp.getheaders()}
        self.q: queue.Queue = queue.Queue()
        self.lines: list[bytes] = []
        self.ended = False
        self.error: BaseException | None = None
        self.closed = False
        if self.status != 200:
            raw = self.resp.read()
            self.body_raw = raw
            try:
                self.body = json.loads(raw) if raw else None
            except ValueError:
                self.body = None
            self.ended = True
            self.conn.close()
            self.thread = None
            return
        self.body = None
        self.body_raw = b""
        self.thread = threading.Thread(target=self._reader, daemon=True, name=f"watch {self.url}")
        self.thread.start()

    def _reader(self) -> None:
        buf = b""
        try:
            while True:
                chunk = self.resp.read1(65536)
                if not chunk:
                    break
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if line.strip():
                        self.lines.append(line)
                        self.q.put(line)
            if buf.strip():
                self.lines.append(buf)
                self.q.put(buf)
        except BaseException as e:  # noqa: BLE001 - report to the reader side
            if not self.closed:
                self.error = e
        finally:
            self.q.put(_EOF)

    def next(self, timeout: float = 10.0) -> dict | None:
        if self.thread is None:
            return None
        try:
            item = self.q.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"watch {self.url}: no event within {timeout}s") from None
        if item is _EOF:
            self.q.put(_EOF)  # keep answering None
            self.ended = True
            if self.error is not None and not self.closed:
                raise AssertionError(f"watch {self.url}: stream failed: {self.error!r}")
            return None
        try:
            ev = json.loads(item)
        except ValueError:
            raise AssertionError(f"watch {self.url}: line is not JSON: {item[:300]!r}") from None
        if not isinstance(ev, dict) or "type" not in ev or "object" not in ev:
            raise AssertionError(f"watch {self.url}: not a watch event: {item[:300]!r}")
        return ev

    def collect(self, count: int, timeout: float = 10.0, skip_bookmarks: bool = True) -> list[dict]:
        """The next `count` events (bookmarks skipped) within one overall deadline."""
        d = Deadline(timeout)
        out: list[dict] = []
        while len(out) < count:
            if d.expired():
                raise AssertionError(f"watch {self.url}: got {len(out)} of {count} events within {timeout}s: "
                                     f"{summarize(out)}")
            ev = self.next(d.remaining())
            if ev is None:
                raise AssertionError(f"watch {self.url}: stream ended after {len(out)} of {count} events: "
                                     f"{summarize(out)}")
            if skip_bookmarks and ev["type"] == "BOOKMARK":
                continue
            out.append(ev)
        return out

    def expect_quiet(self, timeout: float = 0.3) -> None:
        """Assert no non-bookmark event is already queued or arrives within a short window."""
        d = Deadline(timeout)
        while not d.expired():
            try:
                item = self.q.get(timeout=d.remaining())
            except queue.Empty:
                return
            if item is _EOF:
                self.q.put(_EOF)
                return
            ev = json.loads(item)
            if ev.get("type") != "BOOKMARK":
                raise AssertionError(f"watch {self.url}: unexpected event {summarize([ev])}")

    def wait_end(self, timeout: float) -> list[dict]:
        """Wait for the server to end the stream; return the events seen meanwhile."""
        d = Deadline(timeout)
        seen: list[dict] = []
        while True:
            if d.expired():
                raise AssertionError(f"watch {self.url}: stream still open after {timeout}s")
            ev = self.next(d.remaining())
            if ev is None:
                return seen
            seen.append(ev)

    def close(self) -> None:
        self.closed = True
        try:
            sock = self.conn.sock
            if sock is not None:
                sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.conn.close()
        if self.thread is not None:
            self.thread.join(timeout=5)


def summarize(events: Iterable[dict]) -> list[tuple]:
    out = []
    for ev in events:
        obj = ev.get("object") or {}
        meta = obj.get("metadata") or {}
        out.append((ev.get("type"), meta.get("name"), meta.get("resourceVersion")))
    return out


# --------------------------------------------------------------------------------------------
# Server process
# --------------------------------------------------------------------------------------------


class Server:
    """One `tenure serve` process on a temporary data folder (kept across restarts)."""

    def __init__(self, extra_args: Iterable[str] = (), data_dir: str | None = None, listen: str = "127.0.0.1:0"):
        self.bin = tenure_bin()
        self.extra_args = list(extra_args)
        self.listen = listen  # a fixed port (see free_port) keeps the URL, and so the kubeconfig, across restarts
        self.own_dir = data_dir is None
        self.workdir = tempfile.mkdtemp(prefix="tenure-it-")
        self.data_dir = data_dir or os.path.join(self.workdir, "data")
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.scheme = "https"
        self.token = ""
        self.starts = 0
        self.stdout_lines: list[str] = []
        self._ready = threading.Event()
        self._lock = threading.Lock()
        self._ctx: ssl.SSLContext | None = None
        self.log_path = ""

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self, timeout: float = START_TIMEOUT) -> "Server":
        assert self.proc is None or self.proc.poll() is not None, "server already running"
        self.starts += 1
        self.log_path = os.path.join(self.workdir, f"server-{self.starts}.log")
        log = open(self.log_path, "wb")
        args = [self.bin, "serve", "--data-dir", self.data_dir, "--listen", self.listen, *self.extra_args]
        self._ready.clear()
        self.stdout_lines = []
        self.port = 0
        self._ctx = None
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
                                     preexec_fn=_die_with_parent)
        log.close()
        self._reader = threading.Thread(target=self._read_stdout, args=(self.proc,), daemon=True)
        self._reader.start()
        d = Deadline(timeout)
        while not self._ready.wait(timeout=min(0.05, d.remaining()) or 0.001):
            if self.proc.poll() is not None:
                raise AssertionError(f"tenure serve exited with {self.proc.returncode} before it was ready\n"
                                     f"command: {args}\n{self.output_tail()}")
            if d.expired():
                self.kill()
                raise AssertionError(f"tenure serve did not print its listening line within {timeout}s\n"
                                     f"{self.output_tail()}")
        for f in ("ca.crt", "admin.token", "kubeconfig"):
            if not os.path.isfile(os.path.join(self.data_dir, f)):
                raise AssertionError(f"tenure serve is listening but {self.data_dir}/{f} does not exist")
        with open(os.path.join(self.data_dir, "admin.token")) as fh:
            self.token = fh.read().strip()
        c = self.client()
        try:
            wait_until(lambda: c.get("/readyz").status == 200, d.remaining() + 0.1, "/readyz to return 200")
        except AssertionError as e:
            raise AssertionError(f"{e}\n{self.output_tail()}") from None
        finally:
            c.close()
        return self

    def _read_stdout(self, proc: subprocess.Popen) -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self._lock:
                if proc is self.proc:
                    self.stdout_lines.append(line)
            m = LISTEN_RE.search(line)
            if m and proc is self.proc and not self._ready.is_set():
                self.scheme = m.group(1)
                self.port = int(m.group(2))
                self._ready.set()

    def _reap(self) -> None:
        """After the process exited: finish reading its stdout and close the pipe."""
        if self.proc is not None and self.proc.stdout is not None:
            self._reader.join(timeout=5)
            self.proc.stdout.close()

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM, then SIGKILL if it has not exited within timeout. Returns the exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._reap()
        return self.proc.returncode

    def pause(self) -> None:
        """SIGSTOP: the server stays bound to its port and keeps its connections open, but answers
        nothing (a hung server, or one behind a partition that drops packets)."""
        assert self.running(), "server not running"
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT after pause()."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        """kill -9: no chance to flush or clean up."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._reap()

    def restart(self, kill: bool = False, timeout: float = START_TIMEOUT) -> "Server":
        if kill:
            self.kill()
        else:
            self.stop()
        return self.start(timeout)

    def cleanup(self) -> None:
        try:
            self.resume()  # a paused server would ignore SIGTERM until SIGCONT
            self.stop(timeout=5)
        finally:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def output_tail(self, lines: int = 40) -> str:
        out = "\n".join(self.stdout_lines[-lines:])
        err = ""
        if self.log_path and os.path.exists(self.log_path):
            with open(self.log_path, "rb") as fh:
                err = "\n".join(fh.read().decode("utf-8", "replace").splitlines()[-lines:])
        return f"--- server stdout ---\n{out}\n--- server stderr ({self.log_path}) ---\n{err}"

    # -- clients ----------------------------------------------------------------------------------
    @property
    def cafile(self) -> str:
        return os.path.join(self.data_dir, "ca.crt")

    @property
    def kubeconfig(self) -> str:
        return os.path.join(self.data_dir, "kubeconfig")

    def ssl_context(self) -> ssl.SSLContext:
        if self._ctx is None:
            self._ctx = ssl.create_default_context(cafile=self.cafile)
        return self._ctx

    def client(self, token: str | None = None, timeout: float = 30.0) -> Client:
        assert self.scheme == "https", "the server must serve HTTPS by default"
        return Client("127.0.0.1", self.port, self.cafile, self.token if token is None else token, timeout,
                      server=self)

    def watch(self, path: str, params: dict[str, Any] | None = None, **kw) -> Watch:
        return Watch(self, path, params, **kw)

    def kubectl(self, version: str) -> "Kubectl":
        return Kubectl(self, version)


def close_api_client(api_client) -> None:
    """The official Python client's ApiClient.close() stops its thread pool; its connections stay
    open unless cleared."""
    api_client.close()
    api_client.rest_client.pool_manager.clear()


class ServerTestCase(unittest.TestCase):
    """Starts one server per test class (SERVER_ARGS), always cleaned up, and a keep-alive client."""

    SERVER_ARGS: tuple[str, ...] = ()
    server: Server
    api: Client

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.server = Server(cls.SERVER_ARGS)
        cls.addClassCleanup(cls.server.cleanup)
        cls.server.start()
        cls.api = cls.server.client()
        cls.addClassCleanup(cls.api.close)

    def ensure_namespace(self, ns: str) -> None:
        r = self.api.post(core_path("namespaces"), {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        if r.status not in (201, 409):
            self.fail(f"creating namespace {ns}: {r.describe()}")

    def create(self, path: str, body: dict) -> dict:
        r = self.api.post(path, body)
        self.assertEqual(r.status, 201, f"POST {path}: {r.describe()}")
        return r.body

    def assertStatus(self, r: Response, code: int, reason: str | None = None, what: str = "") -> dict:
        """r is a Kubernetes Status failure with this code (and reason)."""
        prefix = f"{what}: " if what else ""
        self.assertEqual(r.status, code, f"{prefix}expected HTTP {code}, got {r.describe()}")
        self.assertIsInstance(r.body, dict, f"{prefix}body is not a JSON object: {r.describe()}")
        b = r.body
        self.assertEqual(b.get("kind"), "Status", f"{prefix}{r.describe()}")
        self.assertEqual(b.get("apiVersion"), "v1", f"{prefix}{r.describe()}")
        self.assertEqual(b.get("status"), "Failure", f"{prefix}{r.describe()}")
        self.assertEqual(b.get("code"), code, f"{prefix}{r.describe()}")
        if reason is not None:
            self.assertEqual(b.get("reason"), reason, f"{prefix}{r.describe()}")
        ct = r.header("content-type") or ""
        self.assertTrue(ct.startswith("application/json"), f"{prefix}Status content-type {ct!r}")
        return b


# --------------------------------------------------------------------------------------------
# kubectl
# --------------------------------------------------------------------------------------------


def kubectl_dir() -> str | None:
    k = shutil.which("kubectl")
    if not k:
        return None
    return os.path.dirname(os.path.realpath(k))


def kubectl_binary(version: str) -> str:
    """The versioned kubectl (e.g. "1.32"); raises SkipTest when it is not installed."""
    d = kubectl_dir()
    if d is None:
        raise unittest.SkipTest("kubectl is not on PATH")
    path = os.path.join(d, f"kubectl.{version}")
    if not os.access(path, os.X_OK):
        raise unittest.SkipTest(f"kubectl {version} not installed ({path} missing)")
    return path


def oldest_kubectl_version() -> str | None:
    """The lowest kubectl.X.Y version installed beside kubectl ("1.27"), or None."""
    d = kubectl_dir()
    if d is None:
        return None
    versions = []
    for name in os.listdir(d):
        m = re.fullmatch(r"kubectl\.(\d+)\.(\d+)", name)
        if m and os.access(os.path.join(d, name), os.X_OK):
            versions.append((int(m.group(1)), int(m.group(2))))
    return f"{min(versions)[0]}.{min(versions)[1]}" if versions else None


@dataclass
class Run:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    def describe(self) -> str:
        return (f"$ kubectl {' '.join(self.args)}\nexit {self.returncode}\n"
                f"--- stdout ---\n{self.stdout}\n--- stderr ---\n{self.stderr}")


class Kubectl:
    """Runs one kubectl version with the server's kubeconfig and a private HOME."""

    def __init__(self, server: Server, version: str):
        self.server = server
        self.version = version
        self.bin = kubectl_binary(version)
        self.home = tempfile.mkdtemp(prefix=f"tenure-kubectl-{version}-", dir=server.workdir)
        self.files = tempfile.mkdtemp(prefix="files-", dir=server.workdir)
        self._n = 0

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("KUBECTL_")}
        env["KUBECONFIG"] = self.server.kubeconfig
        env["HOME"] = self.home
        env.pop("KUBERNETES_SERVICE_HOST", None)
        env["NO_COLOR"] = "1"
        return env

    def run(self, *args: str, input: str | None = None, timeout: float = 60.0) -> Run:
        try:
            p = subprocess.run([self.bin, *args], input=input, capture_output=True, text=True, env=self.env(),
                               timeout=timeout, cwd=self.files)
        except subprocess.TimeoutExpired as e:
            raise AssertionError(f"kubectl {' '.join(args)} did not finish within {timeout}s; "
                                 f"stdout={e.stdout!r} stderr={e.stderr!r}") from None
        return Run(list(args), p.returncode, p.stdout, p.stderr)

    def ok(self, *args: str, **kw) -> str:
        r = self.run(*args, **kw)
        if r.returncode != 0:
            raise AssertionError(f"kubectl {self.version} failed:\n{r.describe()}")
        return r.stdout

    def fails(self, *args: str, **kw) -> Run:
        r = self.run(*args, **kw)
        if r.returncode == 0:
            raise AssertionError(f"kubectl {self.version} was expected to fail:\n{r.describe()}")
        return r

    def write_file(self, text: str | dict, name: str | None = None) -> str:
        """Write a file into kubectl's working folder; returns its name relative to that folder."""
        self._n += 1
        name = name or f"obj-{self._n}.json"
        path = os.path.join(self.files, name)
        with open(path, "w") as fh:
            fh.write(text if isinstance(text, str) else json.dumps(text, indent=2))
        return name

    def background(self, *args: str) -> "Background":
        return Background([self.bin, *args], self.env(), self.files)


class Background:
    """A long-running process (e.g. `kubectl get leases -w`) whose stdout lines are collected."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str):
        self.argv = argv
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, cwd=cwd, text=True,
                                     preexec_fn=_die_with_parent)
        self.lines: list[str] = []
        self.err_lines: list[str] = []
        self.cond = threading.Condition()
        self.t_out = threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines), daemon=True)
        self.t_err = threading.Thread(target=self._pump, args=(self.proc.stderr, self.err_lines), daemon=True)
        self.t_out.start()
        self.t_err.start()

    def _pump(self, stream, sink: list[str]) -> None:
        for line in stream:
            with self.cond:
                sink.append(line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def wait_for(self, pred: Callable[[list[str]], Any], timeout: float, what: str) -> Any:
        d = Deadline(timeout)
        with self.cond:
            while True:
                v = pred(list(self.lines))
                if v:
                    return v
                if self.proc.poll() is not None and not self.t_out.is_alive():
                    raise AssertionError(f"{what}: process exited with {self.proc.returncode}\n{self.describe()}")
                if d.expired():
                    raise AssertionError(f"{what}: not seen within {timeout}s\n{self.describe()}")
                self.cond.wait(timeout=min(0.2, d.remaining()))

    def wait_line(self, regex: str, timeout: float = 15.0, start: int = 0) -> int:
        """Index of the first stdout line at or after `start` matching regex."""
        rx = re.compile(regex)

        def pred(lines: list[str]):
            for i in range(start, len(lines)):
                if rx.search(lines[i]):
                    return i + 1  # truthy even for index 0
            return None

        return self.wait_for(pred, timeout, f"line matching {regex!r}") - 1

    def describe(self) -> str:
        with self.cond:
            return (f"$ {' '.join(self.argv)}\n--- stdout ---\n" + "\n".join(self.lines) +
                    "\n--- stderr ---\n" + "\n".join(self.err_lines))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.t_out.join(timeout=5)
        self.t_err.join(timeout=5)


def parse_table(text: str) -> list[dict[str, str]]:
    """Parse kubectl's column output (header offsets decide the columns, so empty cells work)."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return []
    header = lines[0]
    starts = [m.start() for m in re.finditer(r"\S+(?: \S+)*", header)]
    names = [m.group(0) for m in re.finditer(r"\S+(?: \S+)*", header)]
    rows = []
    for ln in lines[1:]:
        row = {}
        for i, (s, n) in enumerate(zip(starts, names)):
            e = starts[i + 1] if i + 1 < len(starts) else None
            row[n] = (ln[s:e] if e is not None else ln[s:]).strip()
        rows.append(row)
    return rows


# --------------------------------------------------------------------------------------------
# Leader election candidates (tenure-elect, py_candidate.py)
# --------------------------------------------------------------------------------------------


def parse_k8s_time(text: str) -> float:
    """Epoch seconds of an RFC 3339 UTC time ("...Z", with or without fraction) as in a Lease."""
    import datetime
    t = text[:-1] if text.endswith("Z") else text
    fmt = "%Y-%m-%dT%H:%M:%S.%f" if "." in t else "%Y-%m-%dT%H:%M:%S"
    return datetime.datetime.strptime(t, fmt).replace(tzinfo=datetime.timezone.utc).timestamp()


@dataclass
class Event:
    wall: float  # time.time() when the test read the line
    mono: float  # time.monotonic() when the test read the line
    data: dict

    @property
    def name(self) -> str:
        return self.data.get("event", "")


class Candidate:
    """One election candidate process that prints JSON lines ({"event": ...}) on stdout.

    A reader thread stamps every line with the wall and monotonic time it arrived, so waiting
    on the list (by polling) does not blur the measured times. Start candidates from the main
    thread (PR_SET_PDEATHSIG is tied to the starting thread).
    """

    def __init__(self, argv: list[str], identity: str, log_dir: str, kind: str = "tenure"):
        self.argv = argv
        self.identity = identity
        self.kind = kind
        self.events: list[Event] = []
        self.raw: list[str] = []
        self.cond = threading.Condition()
        self.started_mono = time.monotonic()
        self.ended_wall: float | None = None  # set when the test killed/stopped it and it exited
        self.ended_mono: float | None = None
        self.log_path = tempfile.mkstemp(prefix=f"cand-{identity}-", suffix=".log", dir=log_dir)[1]
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
                                         preexec_fn=_die_with_parent)
        self.thread = threading.Thread(target=self._pump, daemon=True, name=f"candidate {identity}")
        self.thread.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            wall, mono = time.time(), time.monotonic()
            line = raw.decode("utf-8", "replace").rstrip("\n")
            try:
                data = json.loads(line)
            except ValueError:
                data = None
            with self.cond:
                self.raw.append(line)
                if isinstance(data, dict):
                    self.events.append(Event(wall, mono, data))
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    # -- queries --------------------------------------------------------------------------------
    def of(self, name: str) -> list[Event]:
        with self.cond:
            return [e for e in self.events if e.name == name]

    def last(self, name: str) -> Event | None:
        evs = self.of(name)
        return evs[-1] if evs else None

    def wait_event(self, name: str, timeout: float, count: int = 1,
                   pred: Callable[[Event], bool] | None = None) -> Event:
        """The count-th event called `name` (matching pred), waiting up to timeout seconds."""
        d = Deadline(timeout)
        with self.cond:
            while True:
                evs = [e for e in self.events if e.name == name and (pred is None or pred(e))]
                if len(evs) >= count:
                    return evs[count - 1]
                if self.proc.poll() is not None and not self.thread.is_alive():
                    raise AssertionError(f"{self.identity}: exited ({self.proc.returncode}) before event "
                                         f"{name!r} #{count}\n{self.describe()}")
                if d.expired():
                    raise AssertionError(f"{self.identity}: no event {name!r} #{count} within {timeout}s\n"
                                         f"{self.describe()}")
                self.cond.wait(timeout=min(0.1, d.remaining()))

    def running(self) -> bool:
        return self.proc.poll() is None

    # -- signals --------------------------------------------------------------------------------
    def _ended(self) -> None:
        self.proc.wait(timeout=30)
        if self.ended_wall is None:
            self.ended_wall, self.ended_mono = time.time(), time.monotonic()
        self.thread.join(timeout=5)
        if self.proc.stdout is not None and not self.thread.is_alive():
            self.proc.stdout.close()

    def kill(self) -> None:
        """kill -9; returns once the process is gone (ended_* is then an upper bound of its last act)."""
        if self.proc.poll() is None:
            self.proc.kill()
        self._ended()

    def terminate(self, timeout: float = 10.0) -> None:
        """SIGTERM and wait (tenure-elect stops its elector, releasing with --release-on-cancel)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self._ended()

    def pause(self) -> None:
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.proc.send_signal(signal.SIGCONT)

    def describe(self, lines: int = 30) -> str:
        with self.cond:
            out = "\n".join(self.raw[-lines:])
        err = ""
        if os.path.exists(self.log_path):
            with open(self.log_path, "rb") as fh:
                err = "\n".join(fh.read().decode("utf-8", "replace").splitlines()[-lines:])
        return (f"--- candidate {self.identity} ({self.kind}): {' '.join(self.argv)}\n"
                f"--- stdout ---\n{out}\n--- stderr ({self.log_path}) ---\n{err}")


class ObjectTracker:
    """Watches one named object (e.g. a Lease) and records each event with the wall time it arrived.

    The watch runs on its own connection and thread; a watch that ends (server killed) stays
    ended: start a new tracker after a restart.
    """

    def __init__(self, server: "Server", collection_path: str, name: str):
        self.name = name
        self.watch = Watch(server, collection_path, timeout=600)
        if self.watch.status != 200:
            raise AssertionError(f"watch {collection_path}: HTTP {self.watch.status} {self.watch.body_raw[:300]!r}")
        self.events: list[tuple[float, str, dict]] = []  # (wall time received, type, object)
        self.error: BaseException | None = None
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, daemon=True, name=f"tracker {name}")
        self.thread.start()

    def _run(self) -> None:
        try:
            while True:
                ev = self.watch.next(timeout=600)
                if ev is None:
                    return
                obj = ev.get("object") or {}
                if ev.get("type") == "BOOKMARK" or (obj.get("metadata") or {}).get("name") != self.name:
                    continue
                with self._lock:
                    self.events.append((time.time(), ev["type"], obj))
        except BaseException as e:  # noqa: BLE001 - stream ended by a killed server, or closed
            self.error = e

    def snapshot(self) -> list[tuple[float, str, dict]]:
        with self._lock:
            return list(self.events)

    def objects_through(self, pred: Callable[[dict], bool], timeout: float, what: str,
                        start: int = 0) -> tuple[list[dict], int]:
        """The objects seen so far and the index of the first one from `start` on matching pred,
        once one arrived.

        A candidate's own answer can reach it before the same write reaches this watch, so a test
        that looks for a write it was told about waits here instead of reading snapshot() at once.
        """
        def arrived():
            objs = [o for _, _, o in self.snapshot()]
            first = next((i for i in range(start, len(objs)) if pred(objs[i])), None)
            return None if first is None else (objs, first)
        return wait_until(arrived, timeout, f"the watch on {self.name} delivering {what}")

    def close(self) -> None:
        self.watch.close()


class FenceChecker:
    """A downstream resource guarded by fencing tokens (POST /write {token, identity, seq}), as
    tenure-elect --fence-port and py_candidate.py --fence-port write it while leading.

    Accepts a write whose token is >= the highest token accepted so far, answers 409 otherwise,
    and records every write with the wall time it arrived. enforce=False accepts every write
    (a plain log of who wrote when, for candidates without tokens).
    """

    def __init__(self, enforce: bool = True) -> None:
        self.enforce = enforce
        self.lock = threading.Lock()
        self.highest = -1
        self.accepted: list[tuple[float, int, str, int]] = []  # (wall, token, identity, seq)
        self.rejected: list[tuple[float, int, str, int]] = []
        checker = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                now = time.time()
                try:
                    w = json.loads(body)
                    token, ident, seq = int(w["token"]), str(w["identity"]), int(w["seq"])
                except (ValueError, KeyError, TypeError):
                    self._reply(400, b'{"error":"bad write"}')
                    return
                with checker.lock:
                    ok = self.path == "/write" and (token >= checker.highest or not checker.enforce)
                    if ok:
                        checker.highest = max(checker.highest, token)
                        checker.accepted.append((now, token, ident, seq))
                    else:
                        checker.rejected.append((now, token, ident, seq))
                self._reply(200 if ok else 409, b'{"ok":true}' if ok else b'{"error":"stale token"}')

            def _reply(self, code: int, data: bytes) -> None:
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the writer was killed (kill -9) before reading the answer
                    self.close_connection = True

            def log_message(self, *args) -> None:  # quiet
                pass

        class Quiet(ThreadingHTTPServer):
            def handle_error(self, request, client_address) -> None:
                if not isinstance(sys.exc_info()[1], ConnectionError):  # writers are killed with -9
                    super().handle_error(request, client_address)

        self.httpd = Quiet(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True, name="fence checker")
        self.thread.start()

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    def writes(self, token: int | None = None, identity: str | None = None,
               rejected: bool = False) -> list[tuple[float, int, str, int]]:
        with self.lock:
            src = self.rejected if rejected else self.accepted
            return [w for w in src if (token is None or w[1] == token) and (identity is None or w[2] == identity)]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class CandidateGroup:
    """Mixin for test cases that start candidate processes: they are terminated at cleanup, and a
    failed check or wait prints every candidate's timestamped lines."""

    def setUp(self) -> None:
        super().setUp()
        self.cands: list[Candidate] = []

    def add_candidate(self, c: Candidate) -> Candidate:
        self.cands.append(c)
        self.addCleanup(c.terminate)
        return c

    def dump(self) -> str:
        return "\n".join(c.describe() for c in self.cands)

    def check(self, cond: object, msg: str) -> None:
        if not cond:
            self.fail(f"{msg}\n{self.dump()}")

    def wait(self, cond, timeout: float, what: str):
        try:
            return wait_until(cond, timeout, what, interval=0.01)
        except AssertionError as e:
            self.fail(f"{e}\n{self.dump()}")

    @staticmethod
    def starts(cands: list[Candidate]) -> dict[int, int]:
        """How many terms each candidate has started so far (by object id)."""
        return {id(c): len(c.of("started")) for c in cands}


# --------------------------------------------------------------------------------------------
# etcd (Debian's etcd-server) and several `tenure serve --store etcd` replicas
# --------------------------------------------------------------------------------------------

ETCD = os.environ.get("TENURE_ETCD", "/usr/bin/etcd")


class EtcdCluster:
    """etcd members on loopback in a temporary folder; kill(i) is kill -9."""

    def __init__(self, members: int = 3):
        if not os.access(ETCD, os.X_OK):
            raise AssertionError(f"etcd not found at {ETCD}: install Debian's etcd-server (scripts/bootstrap.sh)")
        self.dir = tempfile.mkdtemp(prefix="tenure-etcd-it-")
        self.token = f"tenure-it-{os.getpid()}-{time.time_ns()}"
        self.names = [f"m{i + 1}" for i in range(members)]
        self.client_ports = [free_port() for _ in self.names]
        self.peer_ports = [free_port() for _ in self.names]
        self.procs: list[subprocess.Popen | None] = [None] * members
        self.initial = ",".join(f"{n}=http://127.0.0.1:{p}" for n, p in zip(self.names, self.peer_ports))

    @property
    def urls(self) -> list[str]:
        return [f"http://127.0.0.1:{p}" for p in self.client_ports]

    def start(self, timeout: float = 30.0) -> "EtcdCluster":
        for i, name in enumerate(self.names):
            with open(os.path.join(self.dir, f"{name}.log"), "wb") as log:
                self.procs[i] = subprocess.Popen(
                    [ETCD, f"--name={name}", f"--data-dir={self.dir}/{name}",
                     f"--listen-client-urls={self.urls[i]}", f"--advertise-client-urls={self.urls[i]}",
                     f"--listen-peer-urls=http://127.0.0.1:{self.peer_ports[i]}",
                     f"--initial-advertise-peer-urls=http://127.0.0.1:{self.peer_ports[i]}",
                     f"--initial-cluster={self.initial}", f"--initial-cluster-token={self.token}",
                     "--initial-cluster-state=new", "--logger=zap", "--log-outputs=stderr", "--log-level=warn"],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=log, preexec_fn=_die_with_parent)
        for i in range(len(self.names)):
            try:
                wait_until(lambda i=i: self.healthy(i), timeout, f"etcd member {self.names[i]} healthy")
            except AssertionError as e:
                raise AssertionError(f"{e}\n{self.log_tail(i)}") from None
        return self

    def healthy(self, i: int) -> bool:
        with urllib.request.urlopen(self.urls[i] + "/health", timeout=1) as r:
            return b'"health":"true"' in r.read()

    def kill(self, i: int) -> None:
        p = self.procs[i]
        if p is not None and p.poll() is None:
            p.send_signal(signal.SIGKILL)
            p.wait(timeout=10)

    def log_tail(self, i: int) -> str:
        path = os.path.join(self.dir, f"{self.names[i]}.log")
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8", "replace")[-3000:]

    def cleanup(self) -> None:
        for i in range(len(self.procs)):
            self.kill(i)
        shutil.rmtree(self.dir, ignore_errors=True)


def replica_kubeconfig(server: Server) -> str:
    """The shared data folder's kubeconfig (same CA and token), pointed at this replica."""
    with open(server.kubeconfig) as fh:
        text = fh.read()
    text = re.sub(r"server: https://127\.0\.0\.1:\d+", f"server: https://127.0.0.1:{server.port}", text)
    path = os.path.join(server.workdir, "kubeconfig")
    with open(path, "w") as fh:
        fh.write(text)
    return path


def start_etcd_replicas(test: unittest.TestCase, members: int) -> tuple[EtcdCluster, Server, Server]:
    """An etcd cluster of `members` and two `tenure serve --store etcd` replicas on it, stopped and
    removed at the test's cleanup. The first replica creates the credentials in a shared data
    folder, the second reuses them: one service (same CA and token)."""
    etcd = EtcdCluster(members)
    test.addCleanup(etcd.cleanup)
    etcd.start()
    shared = tempfile.mkdtemp(prefix="tenure-replicas-")
    test.addCleanup(shutil.rmtree, shared, True)
    args = ["--store", "etcd", "--etcd-endpoints", ",".join(etcd.urls), "--etcd-prefix", "/registry"]
    replicas = []
    for _ in range(2):
        server = Server(args, data_dir=os.path.join(shared, "data"))
        test.addCleanup(server.cleanup)
        server.start()
        replicas.append(server)
    return etcd, replicas[0], replicas[1]
