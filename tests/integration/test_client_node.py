"""The official JavaScript client, @kubernetes/client-node, unchanged against the real `tenure
serve`: client_node/compat.mjs (CRUD with a 409 on a stale resourceVersion, merge and JSON patch,
a Watch resumed from a resourceVersion, makeInformer with its handlers and its relist after a
server restart, LeaseCandidates).

The client needs Node.js 22 or newer: both it and Node.js 22 come from the npm registry, pinned by
client_node/package-lock.json, installed once into $TENURE_CLIENT_NODE_DIR (the build folder) with
`npm ci`. npm itself is a Debian package (scripts/bootstrap.sh).
"""

from __future__ import annotations

import os
import subprocess
import threading
import unittest

from tenure_testlib import Server, core_path, free_port, npm_installed

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "client_node")


def installed_client() -> str:
    """The folder holding compat.mjs and its node_modules (installed when the lock file changed)."""
    target = os.environ.get("TENURE_CLIENT_NODE_DIR") or os.path.join(HERE, "..", "..", "build", "client-node")
    return npm_installed(SOURCE, target, ("compat.mjs",))


class ClientNodeTest(unittest.TestCase):
    server: Server

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.client_dir = installed_client()
        # A fixed port keeps the kubeconfig's URL across the restart; a short watch history lets
        # the informer's watch fall out of it while the server is restarted.
        cls.server = Server(("--watch-history", "50"), listen=f"127.0.0.1:{free_port()}")
        cls.addClassCleanup(cls.server.cleanup)
        cls.server.start()

    def test_the_javascript_client_works_unchanged(self):
        node = os.path.join(self.client_dir, "node_modules", ".bin", "node")
        env = dict(os.environ, KUBECONFIG=self.server.kubeconfig, NO_COLOR="1")
        output = []
        with subprocess.Popen([node, "compat.mjs"], cwd=self.client_dir, env=env, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as proc:
            timer = threading.Timer(180, proc.kill)
            timer.start()
            try:
                for line in proc.stdout:
                    output.append(line.rstrip("\n"))
                    print(line, end="")
                    if line.strip() == "RESTART":
                        self.restart_and_change()
                        proc.stdin.write("RESTARTED\n")
                        proc.stdin.flush()
                code = proc.wait()
            finally:
                timer.cancel()
        log = "\n".join(output)
        self.assertEqual(code, 0, f"compat.mjs failed (exit {code}):\n{log}")
        self.assertIn("PASS", output, log)
        self.assertFalse([l for l in output if l.startswith("not ok")], log)

    def restart_and_change(self) -> None:
        """Restarts the server on the same data and port, then changes the informer's namespace and
        writes past the 50 writes of watch history, so that its watch must relist."""
        self.server.restart()
        api = self.server.client()
        try:
            ns = "client-node"
            r = api.post(core_path("configmaps", ns), {"apiVersion": "v1", "kind": "ConfigMap",
                                                       "metadata": {"name": "during-restart"}})
            self.assertEqual(r.status, 201, r.describe())
            self.assertEqual(api.delete(core_path("configmaps", ns, "doomed")).status, 200)
            r = api.post(core_path("configmaps", ns), {"apiVersion": "v1", "kind": "ConfigMap",
                                                       "metadata": {"name": "churn"}})
            self.assertEqual(r.status, 201, r.describe())
            for i in range(60):
                r = api.patch(core_path("configmaps", ns, "churn"), {"data": {"i": str(i)}})
                self.assertEqual(r.status, 200, r.describe())
            self.assertEqual(api.delete(core_path("configmaps", ns, "churn")).status, 200)
        finally:
            api.close()


if __name__ == "__main__":
    unittest.main()
