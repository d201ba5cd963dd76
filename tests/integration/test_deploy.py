"""The deployment files in deploy/, each used as shipped where this machine can run it:

- deploy/systemd: systemd-analyze verifies both units; the command line of tenure-serve.service
  starts a server, and that of tenure-serve-etcd.service, with the settings of
  tenure-serve-etcd.env pointed at a local three-member etcd, starts three replicas that are one
  service (the data folder copied from the first, as the unit's notes say).
- deploy/kubernetes/tenure-run.yaml: its ServiceAccount, Role and RoleBinding are applied with
  kubectl to a server with an audit log; two candidates run the Deployment's own command line
  with the ServiceAccount's token and the downward API's values, hand over, and the rights the
  audit log shows they used are exactly the Role's (pods/get aside: waitForPodReady reads the
  pod, and tenure serve has no pods).

The container image (deploy/container/Containerfile) cannot be built here: no container engine.
Its steps are the ones test_packages runs (CPack's packages, installed with apt).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import unittest
import urllib.request
from pathlib import Path

import yaml

from tenure_testlib import REPO, EtcdCluster, Server, replica_kubeconfig, tenure_bin, wait_until

DEPLOY = Path(REPO) / "deploy"


def read_env_file(path: Path) -> dict[str, str]:
    values = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            values[name] = value
    return values


def exec_start(unit: Path, env: dict[str, str]) -> list[str]:
    """The unit's ExecStart as systemd runs it: ${VAR} is one word, $VAR splits at spaces."""
    line = next(l for l in unit.read_text().splitlines() if l.startswith("ExecStart="))[len("ExecStart="):]
    words = []
    for word in shlex.split(line):
        if m := re.fullmatch(r"\$\{(\w+)\}", word):
            words.append(env.get(m.group(1), ""))
        elif m := re.fullmatch(r"\$(\w+)", word):
            words.extend(env.get(m.group(1), "").split())
        else:
            words.append(word)
    return words


def serve_args(words: list[str]) -> list[str]:
    """The flags after `tenure serve`, without --data-dir and --listen (the test's Server sets them)."""
    assert words[:2] == ["/usr/bin/tenure", "serve"], words
    rest, out = words[2:], []
    i = 0
    while i < len(rest):
        if rest[i] in ("--data-dir", "--listen"):
            i += 2
            continue
        out.append(rest[i])
        i += 1
    return out


class SystemdUnitTest(unittest.TestCase):
    def test_both_units_verify_without_a_warning(self):
        if shutil.which("systemd-analyze") is None:
            self.skipTest("systemd-analyze is not installed")
        tmp = tempfile.mkdtemp(prefix="tenure-units-")
        self.addCleanup(shutil.rmtree, tmp, True)
        for unit in ("tenure-serve.service", "tenure-serve-etcd.service"):
            text = (DEPLOY / "systemd" / unit).read_text().replace("/usr/bin/tenure", tenure_bin())
            text = text.replace("/etc/default/tenure-serve-etcd", str(DEPLOY / "systemd" / "tenure-serve-etcd.env"))
            path = os.path.join(tmp, unit)
            with open(path, "w") as fh:
                fh.write(text)
            r = subprocess.run(["systemd-analyze", "verify", "--man=no", path], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=60)
            self.assertEqual((r.returncode, r.stdout.strip()), (0, ""), f"{unit}: {r.stdout}")

    def test_the_single_server_unit_starts_a_server(self):
        words = exec_start(DEPLOY / "systemd" / "tenure-serve.service", {"TENURE_SERVE_ARGS": "--tls-san tenure.example.com"})
        self.assertIn("--log-format", words)
        server = Server(serve_args(words))
        self.addCleanup(server.cleanup)
        server.start()
        self.assertEqual(server.client().get("/version").status, 200)

    def test_the_etcd_unit_runs_three_replicas_that_are_one_service(self):
        etcd = EtcdCluster(3)
        self.addCleanup(etcd.cleanup)
        etcd.start()
        env = read_env_file(DEPLOY / "systemd" / "tenure-serve-etcd.env")
        self.assertIn("TENURE_ETCD_ENDPOINTS", env)
        env["TENURE_ETCD_ENDPOINTS"] = ",".join(etcd.urls)
        words = exec_start(DEPLOY / "systemd" / "tenure-serve-etcd.service", env)
        args = serve_args(words)
        shared = tempfile.mkdtemp(prefix="tenure-unit-replicas-")
        self.addCleanup(shutil.rmtree, shared, True)
        first = Server(args, data_dir=os.path.join(shared, "replica-1"))
        self.addCleanup(first.cleanup)
        first.start()
        replicas = [first]
        for i in (2, 3):
            folder = os.path.join(shared, f"replica-{i}")
            shutil.copytree(first.data_dir, folder)
            replica = Server(args, data_dir=folder)
            self.addCleanup(replica.cleanup)
            replica.start()
            replicas.append(replica)
        lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "unit"},
                 "spec": {"holderIdentity": "via-replica-1"}}
        self.assertEqual(replicas[0].client().post("/apis/coordination.k8s.io/v1/namespaces/default/leases", lease).status, 201)
        for r in replicas[1:]:
            got = r.client().get("/apis/coordination.k8s.io/v1/namespaces/default/leases/unit")
            self.assertEqual(got.status, 200, got.describe())
            self.assertEqual(got.body["spec"]["holderIdentity"], "via-replica-1")
        # The copied credentials are the same service's: the shared certificate names the SANs.
        kubeconfig = replica_kubeconfig(replicas[2])
        r = subprocess.run([tenure_bin(), "get", "leases", "--kubeconfig", kubeconfig], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("via-replica-1", r.stdout)


class KubernetesManifestTest(unittest.TestCase):
    NAMESPACE = "deploy-test"

    def setUp(self) -> None:
        self.docs = [d for d in yaml.safe_load_all((DEPLOY / "kubernetes" / "tenure-run.yaml").read_text()) if d]
        self.kinds = {d["kind"]: d for d in self.docs}
        self.tmp = tempfile.mkdtemp(prefix="tenure-manifest-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.audit = os.path.join(self.tmp, "audit.log")
        self.server = Server(("--audit-log-path", self.audit))
        self.addCleanup(self.server.cleanup)
        self.server.start()
        self.k = self.server.kubectl("1.33")

    def run_candidate(self, identity: str, kubeconfig: str) -> tuple[subprocess.Popen, list[str]]:
        container = self.kinds["Deployment"]["spec"]["template"]["spec"]["containers"][0]
        command = list(container["command"])
        self.assertEqual(command[:2], ["tenure", "run"])
        split = command.index("--")
        args = [tenure_bin(), "run", *command[2:split]]
        # One machine, two "pods": each listens on a port of its own; the program is a sleep.
        args[args.index("--listen") + 1] = "127.0.0.1:0"
        args += ["--kubeconfig", kubeconfig, "--lease-duration", "4s", "--renew-deadline", "3s",
                 "--retry-period", "500ms", "--", "sleep", "300"]
        env = dict(os.environ)
        for var in container["env"]:
            path = var.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
            value = {"metadata.name": identity, "metadata.namespace": self.NAMESPACE}[path]
            if var["name"] in ("POD_NAME", "POD_NAMESPACE"):
                continue  # waitForPodReady: tenure serve has no pods to read
            env[var["name"]] = value
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
        self.addCleanup(lambda: (proc.poll() is None and proc.kill(), proc.wait()))
        lines: list[str] = []
        threading.Thread(target=lambda: [lines.append(l) for l in proc.stderr], daemon=True).start()
        return proc, lines

    def test_the_role_holds_exactly_the_rights_tenure_run_uses(self):
        self.k.ok("create", "namespace", self.NAMESPACE)
        rbac = [d for d in self.docs if d["kind"] != "Deployment"]
        manifest = os.path.join(self.tmp, "rbac.yaml")
        with open(manifest, "w") as fh:
            yaml.safe_dump_all(rbac, fh)
        self.k.ok("apply", "-n", self.NAMESPACE, "-f", manifest)
        account = self.kinds["ServiceAccount"]["metadata"]["name"]
        token = self.k.ok("create", "token", account, "-n", self.NAMESPACE).strip()
        with open(self.server.kubeconfig) as fh:
            config = yaml.safe_load(fh)
        config["users"] = [{"name": "account", "user": {"token": token}}]
        for context in config["contexts"]:
            context["context"]["user"] = "account"
            context["context"]["namespace"] = self.NAMESPACE
        kubeconfig = os.path.join(self.tmp, "account.kubeconfig")
        with open(kubeconfig, "w") as fh:
            yaml.safe_dump(config, fh)

        lock = self.kinds["Deployment"]["spec"]["template"]["spec"]["containers"][0]["command"]
        lock = lock[lock.index("--lock") + 1]
        first, first_log = self.run_candidate("report-job-a", kubeconfig)
        wait_until(lambda: any("leading (fencing token" in l for l in first_log), 20, f"a leads: {first_log}")
        second, second_log = self.run_candidate("report-job-b", kubeconfig)
        wait_until(lambda: any("report-job-a" in l and "leader" in l for l in second_log), 20,
                   f"b sees a lead: {second_log}")
        first.send_signal(signal.SIGTERM)  # the pod is deleted: release, and b takes over at once
        first.wait(timeout=30)
        wait_until(lambda: any("leading (fencing token" in l for l in second_log), 10, f"b leads: {second_log}")
        # Its endpoints answer as the probes expect.
        port = next(int(m.group(1)) for l in second_log if (m := re.search(r"endpoints on http://127\.0\.0\.1:(\d+)", l)))
        for path in ("/healthz", "/readyz"):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as reply:
                self.assertEqual(reply.status, 200, path)
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=30)

        user = f"system:serviceaccount:{self.NAMESPACE}:{account}"
        used = set()
        with open(self.audit) as fh:
            for line in fh:
                event = json.loads(line)
                if event.get("user", {}).get("username") != user or "objectRef" not in event:
                    continue
                ref = event["objectRef"]
                used.add((ref.get("apiGroup", ""), ref["resource"], event["verb"]))
                self.assertNotEqual(event.get("responseStatus", {}).get("code"), 403, f"refused: {event}")
        granted = set()
        for rule in self.kinds["Role"]["rules"]:
            for group in rule["apiGroups"]:
                for resource in rule["resources"]:
                    for verb in rule["verbs"]:
                        granted.add((group, resource, verb))
        self.assertIn(("coordination.k8s.io", "leases", "update"), used)
        self.assertEqual(used, granted - {("", "pods", "get")},
                         f"used {sorted(used)}; granted {sorted(granted)}; lock {lock}")


if __name__ == "__main__":
    unittest.main()
