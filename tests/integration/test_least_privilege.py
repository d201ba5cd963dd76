"""Least privilege against the real `tenure serve`: an application with exactly the rights of
deploy/rbac/*.yaml campaigns, leads, releases and posts Events, with `tenure run` (Lease lock,
ConfigMap lock, coordinated mode with LeaseCandidates) and with the official Python client's
elector (ConfigMapLock); with any one required right removed, `tenure run` says in its log which
right is missing (the server's 403: `cannot <verb> resource "<resource>"`). The manifests are
applied as they are shipped, with kubectl, so the docs and this test cannot drift apart.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import tempfile
import unittest

import yaml

from tenure_testlib import HERE, REPO, ServerTestCase, core_path, tenure_bin

DEPLOY = os.path.join(REPO, "deploy", "rbac")
ACCOUNT = "tenure-elector"
RBAC = "/apis/rbac.authorization.k8s.io/v1"


def manifest(name: str) -> list[dict]:
    with open(os.path.join(DEPLOY, name)) as fh:
        return [d for d in yaml.safe_load_all(fh) if d]


def role_of(name: str) -> dict:
    return next(d for d in manifest(name) if d["kind"] == "Role")


class LeastPrivilegeTest(ServerTestCase):
    SERVER_ARGS = ("--coordination-election-duration", "0.3")

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.folder = tempfile.mkdtemp(prefix="tenure-least-", dir=cls.server.workdir)
        cls.kubectl_ = cls.server.kubectl("1.33")
        cls.seq = 0

    def app(self, manifest_name: str) -> tuple[str, str]:
        """A namespace with the manifest applied and a kubeconfig of its ServiceAccount."""
        LeastPrivilegeTest.seq += 1
        ns = f"app{self.seq}"
        k = self.kubectl_
        k.ok("create", "namespace", ns)
        k.ok("apply", "-n", ns, "-f", os.path.join(DEPLOY, manifest_name))
        token = k.ok("create", "token", ACCOUNT, "-n", ns, "--duration", "1h").strip()
        path = os.path.join(self.folder, ns + ".kubeconfig")
        with open(path, "w") as fh:
            fh.write(f"""apiVersion: v1
kind: Config
clusters:
- name: tenure
  cluster: {{server: "https://127.0.0.1:{self.server.port}", certificate-authority: "{self.server.cafile}"}}
users:
- name: {ACCOUNT}
  user: {{token: "{token}"}}
contexts:
- name: tenure
  context: {{cluster: tenure, user: {ACCOUNT}, namespace: {ns}}}
current-context: tenure
""")
        return ns, path

    def set_role(self, ns: str, role: dict) -> None:
        r = self.api.put(f"{RBAC}/namespaces/{ns}/roles/{role['metadata']['name']}",
                         {**role, "metadata": {**role["metadata"], "namespace": ns}})
        self.assertEqual(r.status, 200, r.describe())

    def run_tenure(self, kubeconfig: str, ns: str, *args: str, timeout: float = 20) -> subprocess.CompletedProcess:
        return subprocess.run([tenure_bin(), "run", "--kubeconfig", kubeconfig, "--lock", f"{ns}/job",
                               "--publish-events", "--lease-duration", "4s", "--renew-deadline", "3s",
                               "--retry-period", "500ms", "--grace-period", "1s", *args, "--",
                               "sh", "-c", "echo LEADING"],
                              capture_output=True, text=True, timeout=timeout, cwd=self.folder)

    def events_about(self, ns: str) -> list[dict]:
        r = self.api.get(core_path("events", ns))
        self.assertEqual(r.status, 200, r.describe())
        return r.body["items"]

    def check_leads_releases_and_posts_events(self, manifest_name: str, *args: str) -> None:
        ns, kubeconfig = self.app(manifest_name)
        p = self.run_tenure(kubeconfig, ns, *args)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("LEADING", p.stdout)
        self.assertNotIn("cannot", p.stderr)
        self.assertTrue(self.events_about(ns), "no Event was posted")

    def check_each_required_right_is_named_when_missing(self, manifest_name: str, required: dict,
                                                        *args: str) -> None:
        """`required`: resource -> verbs whose removal must be reported by name."""
        role = role_of(manifest_name)
        for resource, verbs in required.items():
            for verb in verbs:
                with self.subTest(resource=resource, verb=verb):
                    ns, kubeconfig = self.app(manifest_name)
                    reduced = copy.deepcopy(role)
                    for rule in reduced["rules"]:
                        if resource in rule["resources"]:
                            rule["verbs"] = [v for v in rule["verbs"] if v != verb]
                    reduced["rules"] = [r for r in reduced["rules"] if r["verbs"]]
                    self.set_role(ns, reduced)
                    try:
                        p = self.run_tenure(kubeconfig, ns, *args, timeout=6)
                        stderr = p.stderr
                    except subprocess.TimeoutExpired as e:  # campaigning without the right
                        stderr = (e.stderr or b"").decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
                    self.assertIn(f'cannot {verb} resource "{resource}"', stderr)
                    self.assertIn(f'User "system:serviceaccount:{ns}:{ACCOUNT}"', stderr)

    def test_lease_lock(self):
        self.check_leads_releases_and_posts_events("lease-elector.yaml")
        self.check_each_required_right_is_named_when_missing(
            "lease-elector.yaml", {"leases": ["get", "create", "update"], "events": ["create"]})

    def test_configmap_lock(self):
        self.check_leads_releases_and_posts_events("configmap-elector.yaml", "--lock-type", "configmap")
        self.check_each_required_right_is_named_when_missing(
            "configmap-elector.yaml", {"configmaps": ["get", "create", "update"], "events": ["create"]},
            "--lock-type", "configmap")

    def test_coordinated(self):
        args = ("--coordinated", "--binary-version", "1.33.0")
        self.check_leads_releases_and_posts_events("coordinated-elector.yaml", *args)
        self.check_each_required_right_is_named_when_missing(
            "coordinated-elector.yaml",
            # leasecandidates update answers the controller's pings and renews every 5 minutes:
            # a run this short never needs it.
            {"leases": ["get", "update"], "leasecandidates": ["create", "delete"]}, *args)

    def test_python_client_elector_with_the_configmap_rights(self):
        ns, kubeconfig = self.app("configmap-elector.yaml")
        p = subprocess.Popen(["/usr/bin/python3", os.path.join(HERE, "py_candidate.py"), "--kubeconfig", kubeconfig,
                              "--lock", f"{ns}/py-job", "--identity", "py-1", "--lease", "3", "--renew", "2",
                              "--retry", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            started = None
            for line in p.stdout:
                event = json.loads(line)
                if event.get("event") == "started":
                    started = event
                    break
            self.assertIsNotNone(started, p.stderr.read() if p.poll() is not None else "")
            r = self.api.get(core_path("configmaps", ns, "py-job"))
            self.assertEqual(r.status, 200, r.describe())
            record = json.loads(r.body["metadata"]["annotations"]["control-plane.alpha.kubernetes.io/leader"])
            self.assertEqual(record["holderIdentity"], "py-1")
        finally:
            p.kill()
            p.wait(timeout=10)
            p.stdout.close()
            p.stderr.close()


if __name__ == "__main__":
    unittest.main()
