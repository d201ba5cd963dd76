"""Exec credential plugins (client.authentication.k8s.io), as EKS, GKE, AKS and OIDC logins use
them, against a real `tenure serve`: a small plugin script that counts its runs hands out a
ServiceAccount token. It authenticates the library (tenure-elect), `tenure run` and `tenure get`;
it runs again when its credential expires and when the server answers 401 (the account deleted
and created again), and the leader keeps its lease through both. A failing or missing plugin is
reported with its exit code, stderr and installHint. Also: a KUBECONFIG list is merged and picks
the right context.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import tempfile
import threading
import unittest

from tenure_testlib import ServerTestCase, elect_bin, lease_path, tenure_bin, wait_until

PLUGIN = r"""#!/bin/sh
# Counts its runs (one line each, with what it was given) and prints the token in ./token,
# valid for ./lifetime seconds when that file holds a number.
dir=$(dirname "$0")
token=$(cat "$dir/token")
life=$(cat "$dir/lifetime" 2>/dev/null)
printf '{"info":%s,"lifetime":"%s"}\n' "$KUBERNETES_EXEC_INFO" "$life" >> "$dir/runs"
expiry=""
if [ -n "$life" ]; then
  expiry=",\"expirationTimestamp\":\"$(date -u -d "+$life seconds" +%Y-%m-%dT%H:%M:%SZ)\""
fi
printf '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"%s"%s}}\n' "$token" "$expiry"
"""


class Lines:
    """A process's stdout lines, read on a thread."""

    def __init__(self, proc: subprocess.Popen):
        self.proc = proc
        self.queue: queue.Queue[str] = queue.Queue()
        self.all: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.queue.put(line.rstrip("\n"))

    def wait(self, pred, timeout: float, what: str) -> str:
        def found():
            while not self.queue.empty():
                line = self.queue.get()
                self.all.append(line)
                if pred(line):
                    return line
            return None
        return wait_until(found, timeout, what)


class ExecCredentialTest(ServerTestCase):
    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.k = cls.server.kubectl("1.33")
        cls.k.ok("create", "serviceaccount", "plugin-user")
        cls.k.ok("create", "clusterrolebinding", "plugin-user-admin", "--clusterrole=cluster-admin",
                 "--serviceaccount=default:plugin-user")

    def setUp(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="exec-", dir=self.server.workdir)
        self.plugin = os.path.join(self.folder, "plugin")
        with open(self.plugin, "w") as fh:
            fh.write(PLUGIN)
        os.chmod(self.plugin, 0o755)
        self.write("token", self.fresh_token())
        self.write("lifetime", "")

    def write(self, name: str, text: str) -> None:
        with open(os.path.join(self.folder, name), "w") as fh:
            fh.write(text)

    def runs(self) -> list[dict]:
        path = os.path.join(self.folder, "runs")
        if not os.path.exists(path):
            return []
        with open(path) as fh:
            return [json.loads(line) for line in fh if line.strip()]

    def fresh_token(self) -> str:
        return self.k.ok("create", "token", "plugin-user", "--duration", "1h").strip()

    def kubeconfig(self, exec_fields: dict | None = None) -> str:
        exec_section = {"apiVersion": "client.authentication.k8s.io/v1", "command": self.plugin,
                        "interactiveMode": "Never", "provideClusterInfo": True}
        exec_section.update(exec_fields or {})
        config = {"apiVersion": "v1", "kind": "Config",
                  "clusters": [{"name": "t", "cluster": {"server": f"https://127.0.0.1:{self.server.port}",
                                                         "certificate-authority": self.server.cafile}}],
                  "users": [{"name": "plugin", "user": {"exec": exec_section}}],
                  "contexts": [{"name": "t", "context": {"cluster": "t", "user": "plugin", "namespace": "default"}}],
                  "current-context": "t"}
        path = os.path.join(self.folder, "kubeconfig")
        with open(path, "w") as fh:
            json.dump(config, fh)
        return path

    def tenure(self, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([tenure_bin(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=60, env=env)

    def test_tenure_get_is_authenticated_by_the_plugin_with_cluster_info(self):
        got = self.tenure("get", "leases", "-A", "--kubeconfig", self.kubeconfig())
        self.assertEqual(got.returncode, 0, got.stderr)
        runs = self.runs()
        self.assertEqual(len(runs), 1)
        info = runs[0]["info"]
        self.assertEqual(info["kind"], "ExecCredential")
        self.assertEqual(info["apiVersion"], "client.authentication.k8s.io/v1")
        self.assertFalse(info["spec"]["interactive"])
        cluster = info["spec"]["cluster"]
        self.assertEqual(cluster["server"], f"https://127.0.0.1:{self.server.port}")
        self.assertIn("certificate-authority-data", cluster)

    def test_the_library_runs_the_plugin_again_after_expiry_and_after_a_401(self):
        self.write("lifetime", "2")
        proc = subprocess.Popen([elect_bin(), "--kubeconfig", self.kubeconfig(), "--lock", "default/exec-elect",
                                 "--identity", "e1", "--lease-duration", "4", "--renew-deadline", "3",
                                 "--retry-period", "0.5"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (proc.poll() is None and proc.kill(), proc.wait()))
        out = Lines(proc)
        log: list[str] = []
        threading.Thread(target=lambda: [log.append(line) for line in proc.stderr], daemon=True).start()
        out.wait(lambda line: '"event":"started"' in line, 20, "e1 leads")
        # Each credential is valid 2 s: renewals after that run the plugin again.
        wait_until(lambda: len(self.runs()) >= 3, 20, "the plugin runs again after its credential expired")
        self.assertTrue(any("exec plugin gave a credential" in line and "expires=" in line for line in log), log)
        # From the next run on, credentials do not expire: once the last one has none, the
        # plugin runs only when the server refuses its token.
        self.write("lifetime", "")
        settled = wait_until(lambda: (lambda runs: len(runs) if runs[-1]["lifetime"] == "" else None)(self.runs()),
                             20, "a credential without expiry")
        # The account is deleted and created again: its tokens are refused (401); the plugin now
        # hands out a token of the new account, and the next renewal gets it and succeeds.
        self.k.ok("delete", "serviceaccount", "plugin-user")
        self.k.ok("create", "serviceaccount", "plugin-user")
        self.write("token", self.fresh_token())
        wait_until(lambda: len(self.runs()) == settled + 1, 20, "the plugin runs again after a 401")
        wait_until(lambda: any("refused the exec plugin's credential (401)" in line for line in log), 10,
                   "the 401 is logged")
        # The leader kept its term through all of it.
        holder = self.api.get(lease_path("default", "exec-elect")).body["spec"]["holderIdentity"]
        self.assertEqual(holder, "e1")
        renew_before = self.api.get(lease_path("default", "exec-elect")).body["spec"]["renewTime"]
        wait_until(lambda: self.api.get(lease_path("default", "exec-elect")).body["spec"]["renewTime"] != renew_before,
                   10, "renewals go on with the new token")
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
        out.wait(lambda line: '"event":"exit"' in line, 10, "e1 exits")
        # One term from start to stop: no renewal failed on the way.
        self.assertEqual(sum('"event":"started"' in line for line in out.all), 1, out.all)
        self.assertEqual(sum('"event":"stopped"' in line for line in out.all), 1, out.all)

    def test_tenure_run_is_authenticated_by_the_plugin(self):
        proc = subprocess.Popen([tenure_bin(), "run", "--kubeconfig", self.kubeconfig(), "--lock", "default/exec-run",
                                 "--identity", "r1", "--", "sleep", "60"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (proc.poll() is None and proc.kill(), proc.wait()))
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [lines.put(l) for l in proc.stderr], daemon=True).start()
        seen: list[str] = []

        def leading():
            while not lines.empty():
                seen.append(lines.get())
            return any("leading (fencing token" in line for line in seen)
        wait_until(leading, 20, f"tenure run leads: {seen}")
        self.assertGreaterEqual(len(self.runs()), 1)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)

    def test_a_failing_or_missing_plugin_is_named_with_its_exit_code_stderr_and_install_hint(self):
        failing = os.path.join(self.folder, "failing")
        with open(failing, "w") as fh:
            fh.write("#!/bin/sh\necho 'your session expired: run corp-login' >&2\nexit 3\n")
        os.chmod(failing, 0o755)
        got = self.tenure("get", "leases", "--kubeconfig", self.kubeconfig({"command": failing}))
        self.assertNotEqual(got.returncode, 0)
        self.assertIn(f"getting credentials: exec: executable {failing} failed with exit code 3: "
                      "your session expired: run corp-login", got.stderr)
        missing = self.tenure("get", "leases", "--kubeconfig", self.kubeconfig(
            {"command": "tenure-test-no-such-plugin", "installHint": "Install it with: apt install corp-login"}))
        self.assertNotEqual(missing.returncode, 0)
        self.assertIn("exec: executable tenure-test-no-such-plugin not found", missing.stderr)
        self.assertIn("apt install corp-login", missing.stderr)

    def test_a_kubeconfig_list_is_merged_and_picks_the_right_context(self):
        # The first file sets current-context "plugin" and defines nothing else; the second holds
        # the cluster, the user and, under the same name, a context the first file's wins over.
        good = self.kubeconfig()
        with open(good) as fh:
            config = json.load(fh)
        first = os.path.join(self.folder, "first")
        with open(first, "w") as fh:
            json.dump({"apiVersion": "v1", "kind": "Config", "current-context": "via-plugin",
                       "contexts": [{"name": "via-plugin", "context": {"cluster": "t", "user": "plugin",
                                                                        "namespace": "merged-ns"}}]}, fh)
        second = os.path.join(self.folder, "second")
        config["contexts"].append({"name": "via-plugin", "context": {"cluster": "nowhere", "user": "nobody"}})
        with open(second, "w") as fh:
            json.dump(config, fh)
        env = dict(os.environ, KUBECONFIG=f"{first}:{self.folder}/missing:{second}")
        self.k.ok("create", "namespace", "merged-ns")
        self.addCleanup(self.k.run, "delete", "namespace", "merged-ns", "--wait=false")
        self.api.post(lease_path("merged-ns"), {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                                                "metadata": {"name": "only-here"}, "spec": {}})
        got = self.tenure("get", "leases", env=env)  # the namespace of the context: merged-ns
        self.assertEqual(got.returncode, 0, got.stderr)
        self.assertIn("only-here", got.stdout)
        self.assertEqual(len(self.runs()), 1)


if __name__ == "__main__":
    unittest.main()
