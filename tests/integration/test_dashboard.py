"""The web dashboard in a real browser: Debian's chromium, headless, driven by Playwright
(dashboard_browser/driver.mjs; playwright-core from the npm registry, pinned by its
package-lock.json and installed into $TENURE_DASHBOARD_BROWSER_DIR with `npm ci`; no browser is
downloaded).

Against `tenure serve` (the dashboard under /dashboard, behind the server's authentication):
- the page loads and stays without console errors; a lease created by the test appears;
- a holder change made by an elector (tenure-elect, released on SIGTERM) shows on the overview
  within 1 s of the new holder's acquireTime, and as a new term on the lease's timeline;
- a kill -9 of the leader shows as an expiry, then a takeover with its measured duration;
- a coordinated election shows its candidates and the one the controller chose;
- the page reconnects across a restart of the server, says so while disconnected, and the terms
  seen before the restart are still there (the term history in the data folder);
- a request without credentials, or with a wrong token, is refused (401), and the sign-in page
  takes a token; a user without the viewer role gets 403.
Against `tenure dashboard --listen` (the same page through a kubeconfig): a lease shows, and
only the printed access token opens it.

Screenshots of the overview and of one lease are taken from the live run into the build folder,
and into docs/images when TENURE_UPDATE_SCREENSHOTS=1 (docs/dashboard.md shows them).
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import threading
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

from tenure_testlib import (COORDINATED_FLAGS, REPO, Candidate, CandidateGroup, Server, core_path, elect_bin,
                            free_port, lease_body, lease_path, npm_installed, parse_k8s_time, tenure_bin,
                            wait_until, write_token_file, _die_with_parent)

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "dashboard_browser")
CHROMIUM = os.environ.get("TENURE_CHROMIUM", "/usr/bin/chromium")
NS = "dash"
LEASE, RENEW, RETRY = 3.0, 2.0, 0.3
SERVER_ARGS = (*COORDINATED_FLAGS, "--coordination-election-duration", "1")
# How soon a change must show on the page, from the time the new holder wrote it.
LIVE_WITHIN = 1.0


def installed_driver() -> str:
    """The folder holding driver.mjs and its node_modules (installed when the lock file changed)."""
    if not os.path.exists(CHROMIUM):
        raise unittest.SkipTest(f"{CHROMIUM} is not installed; run scripts/bootstrap.sh")
    target = os.environ.get("TENURE_DASHBOARD_BROWSER_DIR") or os.path.join(REPO, "build", "dashboard-browser")
    return npm_installed(SOURCE, target, ("driver.mjs",))


class Browser:
    """driver.mjs in a child process: one JSON command per line, one JSON answer per line."""

    def __init__(self, driver_dir: str):
        self.proc = subprocess.Popen(["node", "driver.mjs"], cwd=driver_dir, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     preexec_fn=_die_with_parent)
        self.answers: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.stderr: list[str] = []
        threading.Thread(target=self._pump_stderr, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.answers.put(line)
        self.answers.put(None)

    def _pump_stderr(self) -> None:
        for line in self.proc.stderr:
            self.stderr.append(line.rstrip("\n"))

    def call(self, op: str, timeout: float = 30.0, **args) -> dict:
        self.proc.stdin.write(json.dumps({"op": op, **args}) + "\n")
        self.proc.stdin.flush()
        try:
            line = self.answers.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"the browser did not answer {op} within {timeout}s") from None
        if line is None:
            raise AssertionError(f"the browser driver exited: {' '.join(self.stderr[-20:])}")
        answer = json.loads(line)
        if not answer.get("ok"):
            raise AssertionError(f"browser {op} {args}: {answer.get('error')}")
        return answer

    def wait_for(self, selector: str, text: str | None = None, timeout: float = 10.0,
                 attribute: str | None = None) -> dict:
        return self.call("waitFor", timeout=timeout + 10, selector=selector, text=text,
                         attribute=attribute, timeoutMs=int(timeout * 1000))

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.call("close", timeout=20)
            except AssertionError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            pipe.close()


def row(ns: str, name: str) -> str:
    return f'tr[data-key="{ns}/{name}"]'


def screenshot_paths(name: str) -> list[str]:
    out = [os.path.join(REPO, "build", "dashboard-screenshots", name)]
    if os.environ.get("TENURE_UPDATE_SCREENSHOTS") == "1":
        out.append(os.path.join(REPO, "docs", "images", name))
    for p in out:
        os.makedirs(os.path.dirname(p), exist_ok=True)
    return out


class DashboardTest(CandidateGroup, unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.driver_dir = installed_driver()
        elect_bin()

    def setUp(self) -> None:
        super().setUp()
        self.tokens = write_token_file("stranger-token,stranger,u-stranger\n")
        self.addCleanup(os.unlink, self.tokens)
        self.server = Server((*SERVER_ARGS, "--token-auth-file", self.tokens), listen=f"127.0.0.1:{free_port()}")
        self.addCleanup(self.server.cleanup)
        self.server.start()
        self.api = self.server.client(timeout=10)
        self.addCleanup(self.api.close)
        r = self.api.post(core_path("namespaces"), {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
        self.assertEqual(r.status, 201, r.describe())
        self.browser = Browser(self.driver_dir)
        self.addCleanup(self.browser.close)
        self.base = f"https://127.0.0.1:{self.server.port}/dashboard/"

    def spawn(self, identity: str, lease: str, *extra: str) -> Candidate:
        argv = [elect_bin(), "--kubeconfig", self.server.kubeconfig, "--lock", f"{NS}/{lease}",
                "--identity", identity, "--lease-duration", str(LEASE), "--renew-deadline", str(RENEW),
                "--retry-period", str(RETRY), "--release-on-cancel", *extra]
        return self.add_candidate(Candidate(argv, identity, self.server.workdir))

    def holder(self, lease: str) -> tuple[str, float]:
        """The lease's holder now and its acquireTime (seconds since the epoch)."""
        r = self.api.get(lease_path(NS, lease))
        self.assertEqual(r.status, 200, r.describe())
        spec = r.body["spec"]
        return spec.get("holderIdentity", ""), parse_k8s_time(spec["acquireTime"]) if spec.get("acquireTime") else 0.0

    def errors(self) -> list[str]:
        return self.browser.call("errors")["errors"]

    def test_the_live_dashboard(self) -> None:
        b = self.browser
        b.call("open", url=self.base)
        self.fill_and_submit(self.server.token)
        b.wait_for("#connection", "live")
        b.wait_for("#server [data-key=store] dd", "sqlite")
        b.wait_for("#server [data-key=replicas] dd", "1")  # this server's identity Lease

        # A lease created by the test appears (it was written before the page asked: within a second).
        r = self.api.post(lease_path(NS), lease_body("made-by-test", NS, holder="someone"))
        self.assertEqual(r.status, 201, r.describe())
        made = time.time()
        b.wait_for(row(NS, "made-by-test") + " .holder", "someone", timeout=LIVE_WITHIN)
        self.assertLessEqual(time.time() - made, LIVE_WITHIN + 0.5)

        # Electors: the first leader shows, then a graceful handover within a second.
        cands = [self.spawn(f"elector-{i}", "elected") for i in range(3)]
        first = self.wait(lambda: next((c for c in cands if c.of("started")), None), 20, "a first leader")
        b.wait_for(row(NS, "elected") + " .holder", first.identity)
        b.wait_for(row(NS, "elected") + " [data-state]", "held")
        first.terminate()
        second_id = self.wait(lambda: (lambda h: h if h[0] not in ("", first.identity) else None)(self.holder("elected")),
                              10, "a second holder")[0]
        seen = b.wait_for(row(NS, "elected") + " .holder", second_id, timeout=LIVE_WITHIN + 1)
        shown_at = time.time()
        _, acquired = self.holder("elected")
        self.assertLessEqual(shown_at - acquired, LIVE_WITHIN,
                             f"the overview showed the new holder {shown_at - acquired:.3f}s after it acquired the lease")
        print(f"holder change shown {1000 * (shown_at - acquired):.0f} ms after acquireTime "
              f"(waited {seen['elapsedMs']} ms in the browser)")

        # The lease's timeline: the released term, then the new one.
        b.call("goto", hash=f"#/lease/{NS}/elected")
        b.wait_for(f'#terms tr[data-holder="{first.identity}"][data-end="released"]')
        b.wait_for(f'#terms tr[data-holder="{second_id}"][data-end="current"]')
        b.wait_for("#timeline svg rect")
        b.wait_for("#cadence svg rect")

        # kill -9 of the leader: an expiry, then a takeover with its duration.
        second = next(c for c in cands if c.identity == second_id)
        second.kill()
        b.wait_for(f'#terms tr[data-holder="{second_id}"][data-end="expired"]', timeout=LEASE + 10)
        third_id = self.wait(lambda: (lambda h: h if h[0] not in ("", first.identity, second_id) else None)(self.holder("elected")),
                             LEASE + 10, "a third holder")[0]
        takeover = b.wait_for(f'#terms tr[data-holder="{third_id}"][data-end="current"] .handover', "takeover after")
        m = re.search(r"takeover after ([0-9.]+) s", takeover["text"])
        self.assertIsNotNone(m, takeover["text"])
        self.assertGreaterEqual(float(m.group(1)), LEASE - RETRY, takeover["text"])
        self.assertLess(float(m.group(1)), LEASE + 5, takeover["text"])
        shot_lease = screenshot_paths("dashboard-lease.png")

        # A coordinated election: the candidates and the one the controller chose.
        coord = ["--coordinated", "--emulation-version", "1.33.0"]
        self.spawn("new-1.34", "coordinated", *coord, "--binary-version", "1.34.0")
        self.spawn("old-1.33", "coordinated", *coord, "--binary-version", "1.33.0")
        b.call("goto", hash=f"#/lease/{NS}/coordinated")
        b.wait_for('#candidates tr[data-candidate="old-1.33"] .role', "holder", timeout=30)
        b.wait_for('#candidates tr[data-candidate="new-1.34"]')
        b.wait_for("#decision-text", "ranks old-1.33 first")

        # Screenshots from this run: one lease (the elected one, with its three terms) and the
        # overview, light and dark, on a laptop and on a phone.
        b.call("goto", hash=f"#/lease/{NS}/elected")
        b.wait_for(f'#terms tr[data-holder="{third_id}"]')
        b.wait_for("#events table, #events p.none")
        for p in shot_lease:
            b.call("screenshot", path=p, width=1280, height=1100, fullPage=True)
        b.call("goto", hash="#/")
        b.wait_for(row(NS, "coordinated") + " .holder", "old-1.33")
        for name, kw in (("dashboard-overview.png", {"width": 1280, "height": 640}),
                         ("dashboard-overview-dark.png", {"width": 1280, "height": 640, "colorScheme": "dark"}),
                         ("dashboard-phone.png", {"width": 390, "height": 844, "colorScheme": "dark"})):
            for p in screenshot_paths(name):
                b.call("screenshot", path=p, **kw)

        # Keyboard: "/" focuses the search; typing narrows the rows.
        b.call("press", key="/")
        self.assertEqual(b.call("focused")["focused"], "input#search")
        self.assertEqual(self.errors(), [], "console errors before the restart")

        # A restart of the server: the page says it is disconnected, reconnects, and the terms
        # seen before are still there.
        b.call("goto", hash=f"#/lease/{NS}/elected")
        b.wait_for(f'#terms tr[data-holder="{first.identity}"][data-end="released"]')
        before = len(self.errors())
        self.server.stop()
        b.wait_for("#connection", "disconnected", timeout=10)
        self.server.start()
        b.wait_for("#connection", "live", timeout=20)
        b.wait_for(f'#terms tr[data-holder="{first.identity}"][data-end="released"]')
        b.wait_for(f'#terms tr[data-holder="{second_id}"][data-end="expired"]')
        # The term that went on through the restart is one term, still current (not an expiry
        # and a new term).
        b.wait_for(f'#terms tr[data-holder="{third_id}"][data-end="current"]')
        self.assertEqual(len(b.call("texts", selector=f'#terms tr[data-holder="{third_id}"]')["texts"]), 1)
        later = self.errors()[before:]
        # While the server was down the browser logged each refused connection (the stream's
        # reconnections, the page's check of its sign-in); nothing else.
        self.assertEqual([e for e in later if "ERR_CONNECTION_REFUSED" not in e], [], later)

    def test_credentials_are_required(self) -> None:
        anonymous = self.server.client(timeout=10)
        anonymous.token = None
        self.addCleanup(anonymous.close)
        page = anonymous.get("/dashboard/", headers={"Accept": "text/html"})
        self.assertEqual(page.status, 200, page.describe())  # the sign-in page, and nothing else
        self.assertIn(b'id="login"', page.raw)
        self.assertNotIn(b"app.js", page.raw)
        for path in ("/dashboard/api/overview", "/dashboard/api/stream", "/dashboard/assets/app.js"):
            r = anonymous.get(path)
            self.assertEqual(r.status, 401, path)
        wrong = anonymous.get("/dashboard/api/overview", headers={"Authorization": "Bearer wrong"})
        self.assertEqual(wrong.status, 401)
        stranger = anonymous.get("/dashboard/api/overview", headers={"Authorization": "Bearer stranger-token"})
        self.assertEqual(stranger.status, 403, stranger.describe())

        # A link carrying a token does not sign anyone in (tenure serve's tokens are the API
        # server's); the token leaves the address.
        b = self.browser
        opened = b.call("open", url=self.base + "?token=" + urllib.parse.quote(self.server.token))
        b.wait_for("#login")
        self.assertNotIn("token=", b.call("location")["href"], opened)
        # The sign-in page: a wrong token is refused and said so, the right one opens the page.
        b.call("open", url=self.base)
        b.wait_for("#login")
        self.fill_and_submit("not-the-token")
        b.wait_for("#refused:not([hidden])")
        self.fill_and_submit(self.server.token)
        b.wait_for("#connection", "live")
        self.assertEqual(self.errors(), [])

    def fill_and_submit(self, token: str) -> None:
        self.browser.call("fill", selector="#token", text=token)
        self.browser.call("press", key="Enter")

    def test_the_standalone_dashboard(self) -> None:
        r = self.api.post(lease_path(NS), lease_body("through-kubeconfig", NS, holder="remote"))
        self.assertEqual(r.status, 201, r.describe())
        history = os.path.join(self.server.workdir, "standalone-terms.jsonl")
        proc = subprocess.Popen([tenure_bin(), "dashboard", "--kubeconfig", self.server.kubeconfig,
                                 "--listen", "127.0.0.1:0", "--history-file", history],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, preexec_fn=_die_with_parent)
        def stop() -> None:
            if proc.poll() is None:
                proc.terminate()
            proc.wait(timeout=10)
            proc.stdout.close()
        self.addCleanup(stop)
        lines: list[str] = []
        def opened():
            line = proc.stdout.readline()
            if not line:
                raise AssertionError("tenure dashboard exited:\n" + "\n".join(lines))
            lines.append(line.rstrip("\n"))
            m = re.search(r"open:\s+(\S+)", line)
            return m.group(1) if m else None
        url = wait_until(opened, 20, "the dashboard's address")
        plain = url.split("?")[0]

        try:
            urllib.request.urlopen(plain + "api/overview", timeout=10)
            self.fail("the standalone dashboard answered without its token")
        except urllib.error.HTTPError as e:
            self.assertEqual(e.code, 401)
        b = self.browser
        b.call("open", url=url)
        b.wait_for("#connection", "live")
        b.wait_for(row(NS, "through-kubeconfig") + " .holder", "remote")
        b.wait_for("#server [data-key=source] dd", "https://127.0.0.1")
        self.assertEqual(self.errors(), [])
        proc.terminate()
        self.assertEqual(proc.wait(timeout=10), 0)
        self.assertTrue(os.path.exists(history))


if __name__ == "__main__":
    unittest.main()
