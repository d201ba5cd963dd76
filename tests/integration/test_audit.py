"""The audit log against the real `tenure serve`: "who released my lease" has an answer.

- With --audit-log-path and a policy recording lease writes at Request level, every write of a
  lease is in the log with its user (the impersonated one when kubectl --as is used), verb and
  body; `tenure describe lease --audit-log` lists the last writers and the holder each set.
- Reads that the policy leaves at None are not recorded; the log file is owner-only.
- A bad policy file stops the server at start with exit 2 naming the flag.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

from tenure_testlib import ServerTestCase, lease_body, lease_path, tenure_bin

POLICY = """\
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  verbs: [get, list, watch]
- level: Request
  resources:
  - group: coordination.k8s.io
    resources: [leases]
- level: Metadata
"""

FOLDER = tempfile.mkdtemp(prefix="tenure-audit-it-")
POLICY_FILE = os.path.join(FOLDER, "policy.yaml")
LOG_FILE = os.path.join(FOLDER, "audit.log")
with open(POLICY_FILE, "w") as fh:
    fh.write(POLICY)


def tearDownModule():
    shutil.rmtree(FOLDER, ignore_errors=True)


def events() -> list[dict]:
    with open(LOG_FILE) as fh:
        return [json.loads(line) for line in fh if line.strip()]


class AuditLogTest(ServerTestCase):
    SERVER_ARGS = ("--audit-log-path", LOG_FILE, "--audit-policy-file", POLICY_FILE)

    def test_who_released_my_lease(self):
        r = self.api.post(lease_path("default"), lease_body("orders", holder="worker-1"))
        self.assertEqual(r.status, 201, r.describe())
        k = self.server.kubectl("1.33")
        # An operator acting as someone else through impersonation releases the lease.
        k.ok("patch", "lease", "orders", "--type", "merge", "-p", '{"spec":{"holderIdentity":null}}',
             "--as", "ops-oncall", "--as-group", "system:masters")
        writes = [e for e in events() if e.get("objectRef", {}).get("name") == "orders"
                  and e["stage"] == "ResponseComplete"]
        self.assertEqual([e["verb"] for e in writes], ["create", "patch"], writes)
        create, release = writes
        self.assertEqual(create["user"]["username"], "tenure-admin")
        self.assertEqual(create["requestObject"]["spec"]["holderIdentity"], "worker-1")
        self.assertEqual(release["user"]["username"], "tenure-admin")
        self.assertEqual(release["impersonatedUser"]["username"], "ops-oncall")
        self.assertEqual(release["objectRef"]["resource"], "leases")
        self.assertEqual(release["objectRef"]["apiGroup"], "coordination.k8s.io")
        self.assertEqual(release["annotations"]["authorization.k8s.io/decision"], "allow")
        self.assertTrue(release["userAgent"].startswith("kubectl"), release["userAgent"])
        # Reads are not recorded (level None), and RequestReceived is omitted.
        self.assertFalse([e for e in events() if e["verb"] in ("get", "list", "watch")])
        self.assertFalse([e for e in events() if e["stage"] == "RequestReceived"])
        self.assertEqual(stat.S_IMODE(os.stat(LOG_FILE).st_mode), 0o600)
        p = subprocess.run([tenure_bin(), "describe", "lease", "default/orders", "--audit-log", LOG_FILE,
                            "--kubeconfig", self.server.kubeconfig], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        section = p.stdout[p.stdout.index("Last Writers:"):].splitlines()
        self.assertEqual(section[1].split(), ["TIME", "USER", "VERB", "HOLDER", "SET"])
        self.assertEqual(section[2].split()[1:], ["tenure-admin", "create", "worker-1"])
        self.assertEqual(section[3].split()[1:], ["ops-oncall", "patch", "<released>"])


class BadPolicyTest(unittest.TestCase):
    def test_a_bad_policy_file_exits_2_naming_the_flag(self):
        cases = {
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n": "loaded illegal policy with 0 rules",
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Loud}]\n": 'Unsupported value: "Loud"',
            "rules: [1, 2\n": "invalid YAML at line",
        }
        for text, message in cases.items():
            policy = os.path.join(FOLDER, "bad.yaml")
            with open(policy, "w") as fh:
                fh.write(text)
            data = tempfile.mkdtemp(prefix="data-", dir=FOLDER)
            p = subprocess.run([tenure_bin(), "serve", "--data-dir", data, "--listen", "127.0.0.1:0",
                                "--audit-log-path", os.path.join(FOLDER, "x.log"), "--audit-policy-file", policy],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("--audit-policy-file: ", p.stderr)
            self.assertIn(message, p.stderr)


if __name__ == "__main__":
    unittest.main()
