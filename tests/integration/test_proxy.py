"""API servers behind an HTTP proxy, as client-go reaches them: HTTPS_PROXY and the kubeconfig's
proxy-url take `tenure get` and the library (tenure-elect) through a CONNECT tunnel (the TLS
handshake, server name and CA check happen end to end, inside it); NO_PROXY and proxy
refusals are honoured and named. The server is known by a name only the proxy can resolve
(tenure.test), so a request that skipped the proxy could not reach it at all.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import tempfile
import threading
import unittest

from tenure_testlib import Server, elect_bin, tenure_bin, wait_until


class ConnectProxy:
    """A CONNECT-only HTTP proxy on loopback that maps every host to 127.0.0.1 and records the
    targets it was asked for; `refuse` answers 403 instead."""

    def __init__(self, refuse: bool = False):
        self.refuse = refuse
        self.targets: list[str] = []
        self.auth: list[str] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        with client:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(4096)
                if not chunk:
                    return
                head += chunk
            lines = head.decode().split("\r\n")
            method, target, _ = lines[0].split(" ")
            self.targets.append(target)
            self.auth += [l.split(":", 1)[1].strip() for l in lines if l.lower().startswith("proxy-authorization:")]
            if method != "CONNECT" or self.refuse:
                client.sendall(b"HTTP/1.1 403 Forbidden\r\n\r\n")
                return
            port = int(target.rsplit(":", 1)[1])
            with socket.create_connection(("127.0.0.1", port)) as upstream:
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                pair = {client: upstream, upstream: client}
                while True:
                    ready, _, _ = select.select(list(pair), [], [], 30)
                    if not ready:
                        return
                    for s in ready:
                        data = s.recv(65536)
                        if not data:
                            return
                        pair[s].sendall(data)

    def close(self) -> None:
        self.sock.close()


class ProxyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.server = Server(("--tls-san", "tenure.test"))
        cls.addClassCleanup(cls.server.cleanup)
        cls.server.start()

    def setUp(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="proxy-", dir=self.server.workdir)

    def kubeconfig(self, proxy_url: str | None = None) -> str:
        cluster = {"server": f"https://tenure.test:{self.server.port}", "certificate-authority": self.server.cafile}
        if proxy_url:
            cluster["proxy-url"] = proxy_url
        config = {"apiVersion": "v1", "kind": "Config", "current-context": "t",
                  "clusters": [{"name": "t", "cluster": cluster}],
                  "users": [{"name": "u", "user": {"token": self.server.token}}],
                  "contexts": [{"name": "t", "context": {"cluster": "t", "user": "u"}}]}
        path = os.path.join(self.folder, "kubeconfig")
        with open(path, "w") as fh:
            json.dump(config, fh)
        return path

    def proxy(self, **kw) -> ConnectProxy:
        p = ConnectProxy(**kw)
        self.addCleanup(p.close)
        return p

    def get(self, kubeconfig: str, **env: str) -> subprocess.CompletedProcess:
        environment = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
        environment.update(env)
        return subprocess.run([tenure_bin(), "get", "leases", "-A", "--kubeconfig", kubeconfig],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60, env=environment)

    def test_https_proxy_from_the_environment(self):
        p = self.proxy()
        got = self.get(self.kubeconfig(), HTTPS_PROXY=f"http://127.0.0.1:{p.port}")
        self.assertEqual(got.returncode, 0, got.stderr)
        self.assertEqual(set(p.targets), {f"tenure.test:{self.server.port}"})

    def test_no_proxy_sends_the_request_directly(self):
        p = self.proxy()
        got = self.get(self.kubeconfig(), https_proxy=f"http://127.0.0.1:{p.port}", NO_PROXY=".example.org,test")
        self.assertNotEqual(got.returncode, 0)  # tenure.test is only known to the proxy
        self.assertIn("resolving tenure.test", got.stderr)
        self.assertEqual(p.targets, [])

    def test_the_kubeconfigs_proxy_url_with_credentials(self):
        p = self.proxy()
        got = self.get(self.kubeconfig(f"http://alice:s3cret@127.0.0.1:{p.port}"))
        self.assertEqual(got.returncode, 0, got.stderr)
        self.assertIn("Basic YWxpY2U6czNjcmV0", p.auth)

    def test_a_refusing_proxy_is_named(self):
        p = self.proxy(refuse=True)
        got = self.get(self.kubeconfig(f"http://127.0.0.1:{p.port}"))
        self.assertNotEqual(got.returncode, 0)
        self.assertIn(f"the proxy 127.0.0.1:{p.port} refused to connect to tenure.test:{self.server.port}: "
                      "HTTP/1.1 403 Forbidden", got.stderr)

    def test_the_library_elects_through_the_proxy(self):
        p = self.proxy()
        env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
        env["HTTPS_PROXY"] = f"http://127.0.0.1:{p.port}"
        proc = subprocess.Popen([elect_bin(), "--kubeconfig", self.kubeconfig(), "--lock", "default/proxied",
                                 "--identity", "p1"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                env=env)
        self.addCleanup(lambda: (proc.poll() is None and proc.kill(), proc.wait()))
        lines: list[str] = []
        threading.Thread(target=lambda: [lines.append(l) for l in proc.stdout], daemon=True).start()
        wait_until(lambda: any('"event":"started"' in l for l in lines), 20, f"p1 leads through the proxy: {lines}")
        self.assertIn(f"tenure.test:{self.server.port}", p.targets)


if __name__ == "__main__":
    unittest.main()
