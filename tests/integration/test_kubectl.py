"""The real kubectl (1.32 and 1.33) against a freshly started `tenure serve` (issue 2, item 1).

Each kubectl version gets its own server and a private HOME (no cached discovery). Output text is
checked, not only exit codes.
"""

import json
import re
import unittest

import yaml

from tenure_testlib import (COORDINATED_FLAGS, ServerTestCase, candidate_path, core_path, kubectl_binary,
                            oldest_kubectl_version,
                            lease_body, lease_path, micro_time_now, parse_table, rv_int, time_now)

UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
TIME_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
MICRO_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
# kubectl lines that mean discovery or the connection went wrong even when the command succeeded.
BAD_STDERR = re.compile(r"^E\d{4} |couldn't get|memcache|unable to|Unhandled Error|the server could not find",
                        re.M)


def lease_yaml(name: str, holder: str = "holder-a", duration: int = 30, ns: str | None = None) -> str:
    meta_ns = f"\n  namespace: {ns}" if ns else ""
    return (f"apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: {name}{meta_ns}\n"
            f"spec:\n  holderIdentity: {holder}\n  leaseDurationSeconds: {duration}\n")


class KubectlCases:
    """Test methods shared by every kubectl version (mixed into a ServerTestCase per version)."""

    VERSION = ""
    SERVER_ARGS = COORDINATED_FLAGS

    @classmethod
    def setUpClass(cls):
        kubectl_binary(cls.VERSION)  # skips the class cleanly when this kubectl is missing
        super().setUpClass()
        cls.k = cls.server.kubectl(cls.VERSION)

    # helpers -------------------------------------------------------------------------------
    def ns(self) -> str:
        """A fresh namespace named after the test method (created through the API)."""
        name = "k" + self.VERSION.replace(".", "") + "-" + self._testMethodName.removeprefix("test_").replace("_", "-")
        name = name[:63].rstrip("-")
        self.ensure_namespace(name)
        return name

    def kc(self, *args: str, **kw) -> str:
        """kubectl that must succeed without discovery/transport errors on stderr; returns stdout."""
        r = self.k.run(*args, **kw)
        self.assertEqual(r.returncode, 0, f"kubectl {self.VERSION} failed:\n{r.describe()}")
        self.assertIsNone(BAD_STDERR.search(r.stderr), f"kubectl {self.VERSION} reported errors:\n{r.describe()}")
        return r.stdout

    def kc_fails(self, *args: str, **kw):
        r = self.k.run(*args, **kw)
        self.assertNotEqual(r.returncode, 0, f"kubectl {self.VERSION} should have failed:\n{r.describe()}")
        return r

    def get_lease(self, ns: str, name: str) -> dict:
        r = self.api.get(lease_path(ns, name))
        self.assertEqual(r.status, 200, f"GET lease {ns}/{name}: {r.describe()}")
        return r.body

    def create_lease(self, ns: str, name: str, holder: str = "holder-a", **spec) -> dict:
        return self.create(lease_path(ns), lease_body(name, holder=holder, **spec))

    def assertOneLine(self, out: str, expected: str):
        self.assertEqual(out.strip(), expected, f"kubectl {self.VERSION} output")

    # discovery -----------------------------------------------------------------------------
    def test_api_resources(self):
        out = self.kc("api-resources")
        rows = parse_table(out)
        by = {}
        for row in rows:
            by.setdefault(row.get("NAME"), []).append(row)

        def row_for(name: str, apiversion: str) -> dict:
            candidates = [r for r in by.get(name, []) if r.get("APIVERSION") == apiversion]
            self.assertTrue(candidates, f"api-resources has no {name} in {apiversion}:\n{out}")
            return candidates[0]

        expect = [
            ("leases", "coordination.k8s.io/v1", "true", "Lease"),
            ("leasecandidates", "coordination.k8s.io/v1beta1", "true", "LeaseCandidate"),
            ("configmaps", "v1", "true", "ConfigMap"),
            ("namespaces", "v1", "false", "Namespace"),
            ("events", "v1", "true", "Event"),
        ]
        for name, apiversion, namespaced, kind in expect:
            row = row_for(name, apiversion)
            self.assertEqual(row.get("NAMESPACED"), namespaced, f"{name} NAMESPACED in:\n{out}")
            self.assertEqual(row.get("KIND"), kind, f"{name} KIND in:\n{out}")
        self.assertIn("cm", row_for("configmaps", "v1").get("SHORTNAMES", "").split(","), out)

        wide = parse_table(self.kc("api-resources", "--api-group=coordination.k8s.io", "-o", "wide"))
        names = sorted(r["NAME"] for r in wide)
        self.assertEqual(names, ["leasecandidates", "leases"], f"--api-group=coordination.k8s.io: {wide}")
        for r in wide:
            verbs = set(re.split(r"[\s,\[\]]+", r.get("VERBS", "")))
            self.assertTrue({"create", "delete", "deletecollection", "get", "list", "patch", "update",
                             "watch"} <= verbs, f"{r['NAME']} verbs: {r.get('VERBS')}")

    # get -------------------------------------------------------------------------------------
    def test_get_leases_all_namespaces(self):
        ns = self.ns()
        self.create_lease(ns, "all-a", holder="holder-all-a")
        self.create_lease(ns, "all-b", holder="holder-all-b")
        out = self.kc("get", "leases", "-A")
        rows = parse_table(out)
        self.assertEqual(list(rows[0].keys()), ["NAMESPACE", "NAME", "HOLDER", "AGE"], out)
        mine = {r["NAME"]: r for r in rows if r["NAMESPACE"] == ns}
        self.assertEqual(set(mine), {"all-a", "all-b"}, out)
        self.assertEqual(mine["all-a"]["HOLDER"], "holder-all-a", out)
        self.assertEqual(mine["all-b"]["HOLDER"], "holder-all-b", out)
        self.assertRegex(mine["all-a"]["AGE"], r"^\d+(s|m)", out)

        one_ns = parse_table(self.kc("get", "leases", "-n", ns))
        self.assertEqual([(r["NAME"], r["HOLDER"]) for r in one_ns],
                         [("all-a", "holder-all-a"), ("all-b", "holder-all-b")])

        r = self.kc_fails("get", "lease", "nope", "-n", ns)
        self.assertIn('Error from server (NotFound): leases.coordination.k8s.io "nope" not found', r.stderr,
                      r.describe())

    def test_get_with_label_selector(self):
        ns = self.ns()
        for name, app in (("lab-a", "alpha"), ("lab-b", "beta"), ("lab-c", "alpha")):
            body = lease_body(name)
            body["metadata"]["labels"] = {"app": app}
            self.create(lease_path(ns), body)
        rows = parse_table(self.kc("get", "leases", "-n", ns, "-l", "app=alpha"))
        self.assertEqual([r["NAME"] for r in rows], ["lab-a", "lab-c"])
        rows = parse_table(self.kc("get", "leases", "-n", ns, "-l", "app!=alpha", "--show-labels"))
        self.assertEqual([(r["NAME"], r["LABELS"]) for r in rows], [("lab-b", "app=beta")])

    def test_get_lease_yaml_and_json(self):
        ns = self.ns()
        renew = micro_time_now()
        created = self.create_lease(ns, "fmt", holder="holder-fmt", duration=17, renewTime=renew,
                                    acquireTime=renew, leaseTransitions=3)
        rv = created["metadata"]["resourceVersion"]

        obj = json.loads(self.kc("get", "lease", "fmt", "-n", ns, "-o", "json"))
        self.assertEqual(obj["apiVersion"], "coordination.k8s.io/v1")
        self.assertEqual(obj["kind"], "Lease")
        meta = obj["metadata"]
        self.assertEqual(meta["name"], "fmt")
        self.assertEqual(meta["namespace"], ns)
        self.assertEqual(meta["resourceVersion"], rv)
        self.assertRegex(meta["uid"], UUID_RE)
        self.assertEqual(meta["uid"], created["metadata"]["uid"])
        self.assertRegex(meta["creationTimestamp"], TIME_RE)
        spec = obj["spec"]
        self.assertEqual(spec["holderIdentity"], "holder-fmt")
        self.assertEqual(spec["leaseDurationSeconds"], 17)
        self.assertEqual(spec["leaseTransitions"], 3)
        self.assertEqual(spec["renewTime"], renew)
        self.assertRegex(spec["acquireTime"], MICRO_RE)

        out = self.kc("get", "lease", "fmt", "-n", ns, "-o", "yaml")
        for pattern in (r"(?m)^apiVersion: coordination\.k8s\.io/v1$", r"(?m)^kind: Lease$",
                        r"(?m)^  name: fmt$", rf"(?m)^  namespace: {re.escape(ns)}$",
                        rf"(?m)^  resourceVersion: \"?{rv}\"?$", rf"(?m)^  uid: {meta['uid']}$",
                        r"(?m)^  holderIdentity: holder-fmt$", r"(?m)^  leaseDurationSeconds: 17$",
                        r"(?m)^  leaseTransitions: 3$", rf"(?m)^  renewTime: \"?{re.escape(renew)}\"?$"):
            self.assertRegex(out, pattern)

    # describe ------------------------------------------------------------------------------
    def test_describe_lease_with_events(self):
        ns = self.ns()
        lease = self.create_lease(ns, "desc", holder="holder-desc")
        other = self.create_lease(ns, "desc-other", holder="holder-other")

        def event(name: str, target: dict, reason: str, message: str) -> dict:
            now = time_now()
            return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": ns},
                    "involvedObject": {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                                       "name": target["metadata"]["name"], "namespace": ns,
                                       "uid": target["metadata"]["uid"]},
                    "reason": reason, "message": message, "type": "Normal",
                    "source": {"component": "tenure-it"}, "reportingComponent": "tenure-it",
                    "firstTimestamp": now, "lastTimestamp": now, "count": 1}

        self.create(core_path("events", ns), event("desc.1", lease, "LeaderElection", "holder-desc became leader"))
        self.create(core_path("events", ns), event("desc.2", other, "OtherLeaseReason", "not about desc"))

        out = self.kc("describe", "lease", "desc", "-n", ns)
        self.assertRegex(out, r"(?m)^Name:\s+desc$")
        self.assertRegex(out, rf"(?m)^Namespace:\s+{re.escape(ns)}$")
        self.assertRegex(out, r"(?m)^Kind:\s+Lease$")
        self.assertRegex(out, r"(?m)^API Version:\s+coordination\.k8s\.io/v1$")
        self.assertRegex(out, r"(?m)^\s+Holder Identity:\s+holder-desc$")
        self.assertIn("Events:", out)
        events = out[out.index("Events:"):]
        self.assertRegex(events, r"(?m)^\s+Normal\s+LeaderElection\s+\S+\s+tenure-it\s+holder-desc became leader$",
                         f"describe did not show the event posted for the lease:\n{out}")
        self.assertNotIn("OtherLeaseReason", events, f"describe shows another lease's event:\n{out}")

        # kubectl events lists both, oldest first, with the object each is about.
        out = self.kc("events", "-n", ns)
        self.assertRegex(out, r"(?m)^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$", out)
        self.assertRegex(out, r"(?m)^\S+\s+Normal\s+LeaderElection\s+(?i:lease)/desc\s+holder-desc became leader$",
                         out)
        self.assertRegex(out, r"(?m)^\S+\s+Normal\s+OtherLeaseReason\s+(?i:lease)/desc-other\s+not about desc$",
                         out)

    # create / apply --------------------------------------------------------------------------
    def test_create_twice(self):
        ns = self.ns()
        path = self.k.write_file(lease_yaml("twice", holder="holder-create"), "twice.yaml")
        out = self.kc("create", "-f", path, "-n", ns)
        self.assertOneLine(out, "lease.coordination.k8s.io/twice created")
        lease = self.get_lease(ns, "twice")
        self.assertEqual(lease["spec"]["holderIdentity"], "holder-create")
        self.assertEqual(lease["spec"]["leaseDurationSeconds"], 30)

        r = self.kc_fails("create", "-f", path, "-n", ns)
        self.assertIn('Error from server (AlreadyExists): error when creating "twice.yaml": '
                      'leases.coordination.k8s.io "twice" already exists', r.stderr, r.describe())
        self.assertEqual(self.get_lease(ns, "twice")["metadata"]["resourceVersion"],
                         lease["metadata"]["resourceVersion"], "a failed create changed the lease")

    def test_apply_twice(self):
        ns = self.ns()
        path = self.k.write_file(lease_yaml("applied", holder="holder-1"), "applied.yaml")
        self.assertOneLine(self.kc("apply", "-f", path, "-n", ns), "lease.coordination.k8s.io/applied created")
        first = self.get_lease(ns, "applied")
        self.assertEqual(first["spec"]["holderIdentity"], "holder-1")
        self.assertIn("kubectl.kubernetes.io/last-applied-configuration",
                      first["metadata"].get("annotations", {}), "client-side apply annotation missing")

        self.assertOneLine(self.kc("apply", "-f", path, "-n", ns), "lease.coordination.k8s.io/applied unchanged")
        self.assertEqual(self.get_lease(ns, "applied")["metadata"]["resourceVersion"],
                         first["metadata"]["resourceVersion"], "an unchanged apply changed resourceVersion")

        path = self.k.write_file(lease_yaml("applied", holder="holder-2"), "applied.yaml")
        self.assertOneLine(self.kc("apply", "-f", path, "-n", ns), "lease.coordination.k8s.io/applied configured")
        second = self.get_lease(ns, "applied")
        self.assertEqual(second["spec"]["holderIdentity"], "holder-2")
        self.assertGreater(rv_int(second), rv_int(first))

    def test_apply_server_side(self):
        ns = self.ns()
        path = self.k.write_file(lease_yaml("ssa", holder="holder-ssa-1"), "ssa.yaml")
        self.assertOneLine(self.kc("apply", "--server-side", "-f", path, "-n", ns),
                           "lease.coordination.k8s.io/ssa serverside-applied")
        first = self.get_lease(ns, "ssa")
        self.assertEqual(first["spec"]["holderIdentity"], "holder-ssa-1")
        self.assertEqual(first["spec"]["leaseDurationSeconds"], 30)

        path = self.k.write_file(lease_yaml("ssa", holder="holder-ssa-2"), "ssa.yaml")
        self.assertOneLine(self.kc("apply", "--server-side", "-f", path, "-n", ns),
                           "lease.coordination.k8s.io/ssa serverside-applied")
        second = self.get_lease(ns, "ssa")
        self.assertEqual(second["spec"]["holderIdentity"], "holder-ssa-2")
        self.assertGreater(rv_int(second), rv_int(first))
        self.assertEqual(self.managed_fields(second),
                         {("kubectl", "Apply"): {"f:spec": {"f:holderIdentity": {}, "f:leaseDurationSeconds": {}}}})

        # Another manager changing a field kubectl owns: kube-apiserver's 409, as kubectl prints it.
        other = self.k.write_file("apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: ssa\n"
                                  "spec:\n  holderIdentity: holder-other\n", "other.yaml")
        r = self.kc_fails("apply", "--server-side", "--field-manager=other", "-f", other, "-n", ns)
        self.assertIn('Apply failed with 1 conflict: conflict with "kubectl": .spec.holderIdentity', r.stderr,
                      r.describe())
        self.assertIn("--force-conflicts", r.stderr, r.describe())
        self.assertEqual(self.get_lease(ns, "ssa")["spec"]["holderIdentity"], "holder-ssa-2")

        self.assertOneLine(self.kc("apply", "--server-side", "--field-manager=other", "--force-conflicts",
                                   "-f", other, "-n", ns),
                           "lease.coordination.k8s.io/ssa serverside-applied")
        forced = self.get_lease(ns, "ssa")
        self.assertEqual(forced["spec"]["holderIdentity"], "holder-other")
        self.assertEqual(self.managed_fields(forced),
                         {("kubectl", "Apply"): {"f:spec": {"f:leaseDurationSeconds": {}}},
                          ("other", "Apply"): {"f:spec": {"f:holderIdentity": {}}}})

        # -o yaml hides managedFields unless asked for, as against kube-apiserver.
        self.assertNotIn("managedFields", self.kc("get", "lease", "ssa", "-n", ns, "-o", "yaml"))
        shown = yaml.safe_load(self.kc("get", "lease", "ssa", "-n", ns, "-o", "yaml", "--show-managed-fields"))
        entries = shown["metadata"]["managedFields"]
        # kube's order: operation, time, manager (other's apply came last).
        self.assertEqual([(e["manager"], e["operation"], e["apiVersion"], e["fieldsType"]) for e in entries],
                         [("kubectl", "Apply", "coordination.k8s.io/v1", "FieldsV1"),
                          ("other", "Apply", "coordination.k8s.io/v1", "FieldsV1")], shown)
        for e in entries:
            self.assertRegex(e["time"], TIME_RE)

        # kubectl applies again without leaseDurationSeconds: the field goes, as no one else owns it.
        path = self.k.write_file("apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: ssa\n"
                                 "spec:\n  leaseTransitions: 3\n", "ssa.yaml")
        self.assertOneLine(self.kc("apply", "--server-side", "-f", path, "-n", ns),
                           "lease.coordination.k8s.io/ssa serverside-applied")
        third = self.get_lease(ns, "ssa")
        self.assertEqual(third["spec"], {"holderIdentity": "holder-other", "leaseTransitions": 3})

    def managed_fields(self, obj: dict) -> dict:
        return {(e["manager"], e["operation"]): e["fieldsV1"] for e in obj["metadata"].get("managedFields", [])}

    def test_create_dry_run(self):
        ns = self.ns()
        path = self.k.write_file(lease_yaml("dry", holder="holder-dry"), "dry.yaml")
        self.assertOneLine(self.kc("create", "-f", path, "-n", ns, "--dry-run=server"),
                           "lease.coordination.k8s.io/dry created (server dry run)")
        obj = json.loads(self.kc("create", "-f", path, "-n", ns, "--dry-run=server", "-o", "json",
                                 "--show-managed-fields"))
        # As kube-apiserver: the object as it would be stored, but no resourceVersion.
        self.assertRegex(obj["metadata"]["uid"], UUID_RE)
        self.assertRegex(obj["metadata"]["creationTimestamp"], TIME_RE)
        self.assertNotIn("resourceVersion", obj["metadata"], obj)
        self.assertEqual([(e["manager"], e["operation"]) for e in obj["metadata"]["managedFields"]],
                         [("kubectl-create", "Update")], obj)
        r = self.api.get(lease_path(ns, "dry"))
        self.assertEqual(r.status, 404, r.describe())

    def test_get_in_chunks(self):
        ns = self.ns()
        for name in ("chunk-a", "chunk-b", "chunk-c"):
            self.create_lease(ns, name)
        run = self.k.run("get", "leases", "-n", ns, "--chunk-size=1", "-v=6")
        self.assertEqual(run.returncode, 0, run.describe())
        self.assertEqual([r["NAME"] for r in parse_table(run.stdout)], ["chunk-a", "chunk-b", "chunk-c"],
                         run.describe())
        # Each request once (kubectl 1.33 logs it as "Response" verb="GET" url="...").
        pages = list(dict.fromkeys(re.findall(r"/leases\?([^\s\"]*)", run.stderr)))
        self.assertEqual(len(pages), 3, run.describe())
        self.assertIn("limit=1", pages[0])
        self.assertNotIn("continue=", pages[0])
        for page in pages[1:]:
            self.assertRegex(page, r"(^|&)continue=[^&]+", run.describe())

    def test_delete_namespace_with_contents(self):
        ns = self.ns()
        self.create_lease(ns, "inside")
        self.create(core_path("configmaps", ns), {"apiVersion": "v1", "kind": "ConfigMap",
                                                  "metadata": {"name": "inside"}, "data": {"k": "v"}})
        # kubectl waits until the namespace is gone: its contents first, then itself.
        self.assertOneLine(self.kc("delete", "namespace", ns, timeout=60), f'namespace "{ns}" deleted')
        for path in (lease_path(ns, "inside"), core_path("configmaps", ns, "inside"), f"/api/v1/namespaces/{ns}"):
            r = self.api.get(path)
            self.assertEqual(r.status, 404, r.describe())

    # patch ---------------------------------------------------------------------------------
    def test_patch_types(self):
        ns = self.ns()
        created = self.create_lease(ns, "pt", holder="holder-0", leaseTransitions=1)
        prev = rv_int(created)

        def patched(args, holder):
            nonlocal prev
            out = self.kc("patch", "lease", "pt", "-n", ns, *args)
            self.assertOneLine(out, "lease.coordination.k8s.io/pt patched")
            lease = self.get_lease(ns, "pt")
            self.assertEqual(lease["spec"]["holderIdentity"], holder, f"after patch {args}")
            self.assertGreater(rv_int(lease), prev, f"resourceVersion after patch {args}")
            prev = rv_int(lease)
            return lease

        patched(["--type=merge", "-p", '{"spec":{"holderIdentity":"holder-merge"}}'], "holder-merge")
        patched(["--type=json", "-p", '[{"op":"replace","path":"/spec/holderIdentity","value":"holder-json"}]'],
                "holder-json")
        lease = patched(["-p", '{"spec":{"holderIdentity":"holder-strategic"}}'], "holder-strategic")
        self.assertEqual(lease["spec"]["leaseTransitions"], 1, "a patch of one field changed another")

        out = self.kc("patch", "lease", "pt", "-n", ns, "-p", '{"spec":{"holderIdentity":"holder-strategic"}}')
        self.assertOneLine(out, "lease.coordination.k8s.io/pt patched (no change)")
        self.assertEqual(rv_int(self.get_lease(ns, "pt")), prev, "a no-op patch changed resourceVersion")

        lease = patched(["--type=merge", "-p", '{"spec":{"leaseTransitions":null}}'], "holder-strategic")
        self.assertNotIn("leaseTransitions", lease["spec"], "merge patch null did not remove the field")

        r = self.kc_fails("patch", "lease", "absent", "-n", ns, "--type=merge", "-p", '{"spec":{}}')
        self.assertIn('leases.coordination.k8s.io "absent" not found', r.stderr, r.describe())

    # delete --------------------------------------------------------------------------------
    def test_delete(self):
        ns = self.ns()
        self.create_lease(ns, "gone")
        self.assertOneLine(self.kc("delete", "lease", "gone", "-n", ns), 'lease.coordination.k8s.io "gone" deleted')
        r = self.api.get(lease_path(ns, "gone"))
        self.assertEqual(r.status, 404, r.describe())
        r = self.kc_fails("delete", "lease", "gone", "-n", ns)
        self.assertIn('Error from server (NotFound): leases.coordination.k8s.io "gone" not found', r.stderr,
                      r.describe())

    # watch ---------------------------------------------------------------------------------
    def test_get_leases_watch(self):
        ns = self.ns()
        self.create_lease(ns, "w0", holder="holder-w0")
        events = self.k.background("get", "leases", "-n", ns, "-w", "--output-watch-events")
        self.addCleanup(events.stop)
        rows = self.k.background("get", "leases", "-n", ns, "-w")
        self.addCleanup(rows.stop)
        # The initial list is printed first; the watch starts from the list's resourceVersion.
        events.wait_line(r"^ADDED\s+w0\s+holder-w0\s")
        rows.wait_line(r"^w0\s+holder-w0\s")

        self.create_lease(ns, "w1", holder="holder-w1")
        events.wait_line(r"^ADDED\s+w1\s+holder-w1\s")
        n = rows.wait_line(r"^w1\s+holder-w1\s")

        lease = self.get_lease(ns, "w1")
        lease["spec"]["holderIdentity"] = "holder-w1b"
        r = self.api.put(lease_path(ns, "w1"), lease)
        self.assertEqual(r.status, 200, r.describe())
        events.wait_line(r"^MODIFIED\s+w1\s+holder-w1b\s")
        n = rows.wait_line(r"^w1\s+holder-w1b\s", start=n + 1)

        r = self.api.delete(lease_path(ns, "w1"))
        self.assertEqual(r.status, 200, r.describe())
        events.wait_line(r"^DELETED\s+w1\s+holder-w1b\s")
        self.assertIsNone(events.proc.poll(), f"kubectl get -w exited:\n{events.describe()}")
        self.assertEqual(events.err_lines, [], f"kubectl get -w printed errors:\n{events.describe()}")
        # Only the expected lines: header, initial ADDED w0, ADDED/MODIFIED/DELETED w1.
        kinds = [ln.split()[0] for ln in events.lines[1:]]
        self.assertEqual(kinds, ["ADDED", "ADDED", "MODIFIED", "DELETED"], events.describe())
        self.assertRegex(events.lines[0], r"^EVENT\s+NAME\s+HOLDER\s+AGE$")

    # explain -------------------------------------------------------------------------------
    def test_explain_lease_spec(self):
        out = self.kc("explain", "lease.spec")
        self.assertRegex(out, r"(?m)^GROUP:\s+coordination\.k8s\.io$")
        self.assertRegex(out, r"(?m)^KIND:\s+Lease$")
        self.assertRegex(out, r"(?m)^VERSION:\s+v1$")
        self.assertRegex(out, r"(?m)^FIELD:\s+spec\s+<\w+>")
        lines = out.splitlines()
        for field, typ in (("holderIdentity", "string"), ("leaseDurationSeconds", "integer"),
                           ("renewTime", "string"), ("leaseTransitions", "integer")):
            idx = [i for i, ln in enumerate(lines) if re.match(rf"^\s+{field}\s+<{typ}>", ln)]
            self.assertTrue(idx, f"explain lease.spec lacks '{field} <{typ}>':\n{out}")
            desc = lines[idx[0] + 1] if idx[0] + 1 < len(lines) else ""
            self.assertGreater(len(desc.strip().split()), 3, f"{field} has no description:\n{out}")
        self.assertRegex(out.lower(), r"holderidentity\s+<string>\s+\S.*holder", "holderIdentity description")

        top = self.kc("explain", "lease")
        self.assertRegex(top, r"(?m)^\s+spec\s+<\w+>")
        self.assertRegex(top, r"(?m)^\s+metadata\s+<\w+>")

    def test_explain_openapiv2(self):
        # The Swagger 2.0 document (/openapi/v2) that older tools and this form of explain read.
        out = self.kc("explain", "lease.spec", "--output=plaintext-openapiv2")
        self.assertRegex(out, r"(?m)^KIND:\s+Lease$", out)
        self.assertRegex(out, r"(?m)^VERSION:\s+coordination\.k8s\.io/v1$", out)
        self.assertRegex(out, r"(?m)^RESOURCE:\s+spec\s+<Object>$", out)
        for field, typ in (("holderIdentity", "string"), ("leaseDurationSeconds", "integer"),
                           ("renewTime", "string")):
            self.assertRegex(out, rf"(?m)^\s+{field}\s+<{typ}>$", out)

    # leasecandidates -------------------------------------------------------------------------
    def test_get_leasecandidates(self):
        ns = self.ns()
        body = {"apiVersion": "coordination.k8s.io/v1beta1", "kind": "LeaseCandidate",
                "metadata": {"name": "cand-1"},
                "spec": {"leaseName": "cand-lease", "binaryVersion": "1.33.0", "emulationVersion": "1.32.0",
                         "strategy": "OldestEmulationVersion", "renewTime": micro_time_now()}}
        self.create(candidate_path(ns), body)
        out = self.kc("get", "leasecandidates", "-A")
        rows = parse_table(out)
        self.assertEqual(list(rows[0].keys()),
                         ["NAMESPACE", "NAME", "LEASENAME", "BINARYVERSION", "EMULATIONVERSION", "AGE"], out)
        mine = [r for r in rows if r["NAMESPACE"] == ns]
        self.assertEqual(len(mine), 1, out)
        self.assertEqual((mine[0]["NAME"], mine[0]["LEASENAME"], mine[0]["BINARYVERSION"],
                          mine[0]["EMULATIONVERSION"]), ("cand-1", "cand-lease", "1.33.0", "1.32.0"), out)

    # configmaps and namespaces ---------------------------------------------------------------
    def test_get_configmaps(self):
        ns = self.ns()
        path = self.k.write_file({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"},
                                  "data": {"a": "1", "b": "2"}}, "cfg.json")
        self.assertOneLine(self.kc("create", "-f", path, "-n", ns), "configmap/cfg created")
        out = self.kc("get", "cm", "-n", ns)
        rows = [r for r in parse_table(out) if r["NAME"] == "cfg"]
        self.assertEqual(len(rows), 1, out)
        self.assertEqual(rows[0]["DATA"], "2", out)
        self.assertIn("AGE", rows[0], out)
        obj = json.loads(self.kc("get", "configmap", "cfg", "-n", ns, "-o", "json"))
        self.assertEqual(obj["data"], {"a": "1", "b": "2"})
        self.assertEqual((obj["apiVersion"], obj["kind"]), ("v1", "ConfigMap"))

    def test_create_configmap_imperative(self):
        # `kubectl create configmap` (like `create namespace`) sends a protobuf body for core types.
        ns = self.ns()
        out = self.kc("create", "configmap", "imp", "-n", ns, "--from-literal=k=v", "--from-literal=k2=v2")
        self.assertOneLine(out, "configmap/imp created")
        r = self.api.get(core_path("configmaps", ns, "imp"))
        self.assertEqual(r.status, 200, r.describe())
        self.assertEqual(r.body.get("data"), {"k": "v", "k2": "v2"}, r.describe())

    def test_create_namespace(self):
        name = f"k{self.VERSION.replace('.', '')}-created-ns"
        self.assertOneLine(self.kc("create", "namespace", name), f"namespace/{name} created")
        obj = json.loads(self.kc("get", "namespace", name, "-o", "json"))
        self.assertEqual(obj["status"].get("phase"), "Active", obj)
        names = {r["NAME"] for r in parse_table(self.kc("get", "namespaces"))}
        self.assertTrue({"default", "kube-system", "kube-public", "kube-node-lease", name} <= names, names)

        path = self.k.write_file(lease_yaml("in-new-ns"), "in-new-ns.yaml")
        self.assertOneLine(self.kc("create", "-f", path, "-n", name), "lease.coordination.k8s.io/in-new-ns created")
        self.get_lease(name, "in-new-ns")

        r = self.kc_fails("create", "namespace", name)
        self.assertIn(f'namespaces "{name}" already exists', r.stderr, r.describe())

    def test_create_in_missing_namespace(self):
        missing = f"k{self.VERSION.replace('.', '')}-no-such-ns"
        path = self.k.write_file(lease_yaml("orphan"), "orphan.yaml")
        r = self.kc_fails("create", "-f", path, "-n", missing)
        self.assertIn(f'Error from server (NotFound): error when creating "orphan.yaml": namespaces "{missing}" '
                      'not found', r.stderr, r.describe())
        r = self.api.get(lease_path(missing, "orphan"))
        self.assertEqual(r.status, 404, r.describe())
        r = self.k.run("get", "leases", "-n", missing)
        self.assertEqual(r.returncode, 0, r.describe())
        self.assertIn(f"No resources found in {missing} namespace.", r.stderr, r.describe())


class Kubectl132Test(KubectlCases, ServerTestCase):
    VERSION = "1.32"


class Kubectl133Test(KubectlCases, ServerTestCase):
    VERSION = "1.33"


class KubectlOldestTest(KubectlCases, ServerTestCase):
    """The oldest kubectl the machine has, when it is neither of the above."""

    VERSION = oldest_kubectl_version() or ""

    @classmethod
    def setUpClass(cls):
        if cls.VERSION in ("", "1.32", "1.33"):
            raise unittest.SkipTest(f"no kubectl older than 1.32 installed ({cls.VERSION or 'none'})")
        super().setUpClass()


if __name__ == "__main__":
    unittest.main()
