"""Authentication and the data folder's files against the real `tenure serve`: users of a static
token file (kube-apiserver's --token-auth-file format) with kubectl and over HTTPS, the scheme in
any case, 401 for unknown tokens, anonymous requests refused by RBAC, a bad token file refused at
start, and the data folder 0700
with every file 0600 under umask 000 and 022.
"""

import os
import stat
import subprocess
import tempfile
import unittest

from tenure_testlib import (Server, ServerTestCase, core_path, kubectl_binary, lease_body, lease_path, tenure_bin,
                            write_token_file)

TOKENS = 'alice-token,alice,1001,"team-a,team-b"\nbob-token,bob,1002\n'


TOKEN_FILE = write_token_file(TOKENS)


def tearDownModule():
    os.unlink(TOKEN_FILE)


def cluster_role_binding(name: str, role: str, kind: str, subject: str) -> dict:
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": subject}]}


class TokenFileTest(ServerTestCase):
    SERVER_ARGS = ("--token-auth-file", TOKEN_FILE)

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        # What the users may do comes from RBAC: team-a (alice) edits, bob views.
        for binding in (cluster_role_binding("team-a-edit", "edit", "Group", "team-a"),
                        cluster_role_binding("bob-view", "view", "User", "bob")):
            r = cls.api.post("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding)
            assert r.status == 201, r.describe()

    def test_token_file_users_are_served(self):
        for token in ("alice-token", "bob-token", self.server.token):
            r = self.api.get(core_path("namespaces"), token=token)
            self.assertEqual(r.status, 200, r.describe())
        r = self.api.post(lease_path("default"), lease_body("by-alice", holder="alice"), token="alice-token")
        self.assertEqual(r.status, 201, r.describe())

    def test_the_scheme_is_matched_in_any_case(self):
        for scheme in ("bearer", "BEARER", "Bearer"):
            r = self.api.get(core_path("namespaces"), token=False, headers={"Authorization": f"{scheme} bob-token"})
            self.assertEqual(r.status, 200, f"{scheme}: {r.describe()}")

    def test_unknown_tokens_are_unauthorized_and_no_credentials_anonymous(self):
        r = self.api.get(core_path("namespaces"), token=False, headers={"Authorization": "Bearer carol-token"})
        body = self.assertStatus(r, 401, "Unauthorized")
        self.assertEqual(body.get("message"), "Unauthorized")
        # No bearer token (two spaces, another scheme, no header): anonymous, which RBAC refuses.
        for headers in ({"Authorization": "Bearer  alice-token"}, {"Authorization": "Basic YWxpY2U6cHc="}, {}):
            r = self.api.get(core_path("namespaces"), token=False, headers=headers)
            body = self.assertStatus(r, 403, "Forbidden", what=str(headers))
            self.assertEqual(body.get("message"), 'namespaces is forbidden: User "system:anonymous" cannot list '
                             'resource "namespaces" in API group "" at the cluster scope')
        # The probes and /version are everyone's (system:public-info-viewer).
        self.assertEqual(self.api.get("/readyz", token=False).status, 200)
        self.assertEqual(self.api.get("/version", token=False).status, 200)

    def test_rights_come_from_rbac(self):
        r = self.api.post(lease_path("default"), lease_body("by-bob", holder="bob"), token="bob-token")
        body = self.assertStatus(r, 403, "Forbidden")
        self.assertEqual(body.get("message"), 'leases.coordination.k8s.io is forbidden: User "bob" cannot create '
                         'resource "leases" in API group "coordination.k8s.io" in the namespace "default"')

    def test_kubectl_with_a_token_file_user(self):
        try:
            k = self.server.kubectl("1.33")
        except unittest.SkipTest:
            k = self.server.kubectl("1.32")
        out = k.ok("--token", "alice-token", "get", "namespaces", "-o", "name")
        self.assertIn("namespace/default", out)
        r = k.fails("--token", "nobody", "get", "leases")
        self.assertIn("Unauthorized", r.stderr, r.describe())


class BadTokenFileTest(unittest.TestCase):
    def start_with(self, text: str) -> subprocess.CompletedProcess:
        fd, path = tempfile.mkstemp(prefix="tenure-tokens-bad-")
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        data = tempfile.mkdtemp(prefix="tenure-it-data-")
        try:
            return subprocess.run([tenure_bin(), "serve", "--data-dir", data, "--listen", "127.0.0.1:0",
                                   "--token-auth-file", path], capture_output=True, text=True, timeout=60)
        finally:
            os.unlink(path)
            subprocess.run(["rm", "-rf", data], check=False)

    def test_a_bad_token_file_stops_the_server_naming_the_flag(self):
        short = self.start_with("t1,alice\n")
        self.assertEqual(short.returncode, 2, short.stderr)
        self.assertIn("--token-auth-file: token file '", short.stderr)
        self.assertIn("must have at least 3 columns (token, user name, user uid), found 2", short.stderr)
        quote = self.start_with('t1,al"ice,1\n')
        self.assertEqual(quote.returncode, 2, quote.stderr)
        self.assertIn('bare " in non-quoted field', quote.stderr)


class FileModesTest(unittest.TestCase):
    """The data folder and every file in it are owner-only whatever the umask."""

    def check(self, umask: int) -> None:
        old = os.umask(umask)
        try:
            server = Server()
            self.addCleanup(server.cleanup)
            server.start()
        finally:
            os.umask(old)
        c = server.client()
        self.addCleanup(c.close)
        r = c.post(lease_path("default"), lease_body(f"modes-{umask:o}", holder="x"))
        self.assertEqual(r.status, 201, r.describe())
        data = server.data_dir
        self.assertEqual(stat.S_IMODE(os.stat(data).st_mode), 0o700, f"umask {umask:o}: {data}")
        names = sorted(os.listdir(data))
        for required in ("admin.token", "ca.crt", "ca.key", "kubeconfig", "server.crt", "server.key",
                         "tenure.db", "tenure.db-wal"):
            self.assertIn(required, names)
        for name in names:
            mode = stat.S_IMODE(os.stat(os.path.join(data, name)).st_mode)
            self.assertEqual(mode, 0o600, f"umask {umask:o}: {name} has mode {mode:o}")

    def test_umask_000(self):
        self.check(0o000)

    def test_umask_022(self):
        self.check(0o022)


if __name__ == "__main__":
    unittest.main()
