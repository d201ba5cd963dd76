"""Bad input is rejected with the right Kubernetes Status and changes nothing (issue 2, item 2)."""

import json
import unittest

from tenure_testlib import (LEASES, ServerTestCase, core_path, kubectl_binary, lease_body, lease_path,
                            micro_time_now)

NS = "bad-input"
CONFLICT_MSG = ('Operation cannot be fulfilled on leases.coordination.k8s.io "keep": the object has been '
                'modified; please apply your changes to the latest version and try again')


class BadInputTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        r = cls.api.post(core_path("namespaces"), {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
        assert r.status == 201, r.describe()
        r = cls.api.post(lease_path(NS), lease_body("keep", holder="holder-keep", duration=20,
                                                    renewTime=micro_time_now(), leaseTransitions=2))
        assert r.status == 201, r.describe()

    def setUp(self):
        self.before = self.snapshot()

    def tearDown(self):
        # Every case must leave stored data exactly as it was (tests that write on purpose re-snapshot).
        after = self.snapshot()
        self.assertEqual(after, self.before, "stored data changed by rejected requests")

    def snapshot(self):
        keep = self.api.get(lease_path(NS, "keep"))
        self.assertEqual(keep.status, 200, keep.describe())
        leases = self.api.get(lease_path(NS))
        self.assertEqual(leases.status, 200, leases.describe())
        cms = self.api.get(core_path("configmaps", NS))
        self.assertEqual(cms.status, 200, cms.describe())
        return {
            "keep": keep.body,
            "leases": sorted((i["metadata"]["name"], i["metadata"]["resourceVersion"]) for i in leases.body["items"]),
            "configmaps": sorted((i["metadata"]["name"], i["metadata"]["resourceVersion"]) for i in cms.body["items"]),
        }

    def keep(self) -> dict:
        return json.loads(json.dumps(self.before["keep"]))

    def assertAbsent(self, name: str):
        r = self.api.get(lease_path(NS, name))
        self.assertEqual(r.status, 404, f"lease {name} should not exist: {r.describe()}")

    # Invalid ---------------------------------------------------------------------------------
    def test_invalid_lease_http(self):
        r = self.api.post(lease_path(NS), lease_body("bad", duration=-1))
        b = self.assertStatus(r, 422, "Invalid", "POST lease with leaseDurationSeconds -1")
        self.assertIn('"bad" is invalid: spec.leaseDurationSeconds: Invalid value: -1: must be greater than 0',
                      b.get("message", ""), r.describe())
        details = b.get("details") or {}
        self.assertEqual((details.get("name"), details.get("group"), details.get("kind")),
                         ("bad", "coordination.k8s.io", "Lease"), r.describe())
        self.assertEqual([(c.get("reason"), c.get("field"), c.get("message")) for c in details.get("causes", [])],
                         [("FieldValueInvalid", "spec.leaseDurationSeconds",
                           "Invalid value: -1: must be greater than 0")], r.describe())
        self.assertAbsent("bad")

        # One cause per invalid field.
        r = self.api.post(lease_path(NS), lease_body("bad", duration=0, leaseTransitions=-1))
        b = self.assertStatus(r, 422, "Invalid", "POST lease with two invalid fields")
        fields = sorted(c.get("field") for c in (b.get("details") or {}).get("causes", []))
        self.assertEqual(fields, ["spec.leaseDurationSeconds", "spec.leaseTransitions"], r.describe())
        self.assertAbsent("bad")

        r = self.api.post(lease_path(NS), lease_body("Bad_Name"))
        b = self.assertStatus(r, 422, "Invalid", "POST lease with a name that is not a DNS subdomain")
        self.assertIn("metadata.name", [c.get("field") for c in (b.get("details") or {}).get("causes", [])],
                      r.describe())

        # Updating the existing lease into an invalid state is rejected too.
        keep = self.keep()
        keep["spec"]["leaseDurationSeconds"] = -1
        r = self.api.put(lease_path(NS, "keep"), keep)
        self.assertStatus(r, 422, "Invalid", "PUT lease with leaseDurationSeconds -1")
        r = self.api.patch(lease_path(NS, "keep"), {"spec": {"leaseDurationSeconds": -5}})
        self.assertStatus(r, 422, "Invalid", "merge PATCH lease with leaseDurationSeconds -5")

    def test_invalid_lease_kubectl(self):
        for version in ("1.33", "1.32"):
            try:
                kubectl_binary(version)
                break
            except unittest.SkipTest:
                continue
        else:
            self.skipTest("no versioned kubectl installed")
        k = self.server.kubectl(version)
        path = k.write_file("apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: bad\n"
                            "spec:\n  holderIdentity: x\n  leaseDurationSeconds: -1\n", "bad.yaml")
        r = k.run("create", "-f", path, "-n", NS)
        self.assertNotEqual(r.returncode, 0, r.describe())
        self.assertIn('The Lease "bad" is invalid: spec.leaseDurationSeconds: Invalid value: -1: must be greater '
                      'than 0', r.stderr, r.describe())
        r = k.run("apply", "-f", path, "-n", NS)
        self.assertNotEqual(r.returncode, 0, r.describe())
        self.assertIn('The Lease "bad" is invalid: spec.leaseDurationSeconds: Invalid value: -1: must be greater '
                      'than 0', r.stderr, r.describe())
        self.assertAbsent("bad")

        # kubectl asks for fieldValidation=Strict: an unknown field is an error naming the field.
        path = k.write_file("apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: unknownfield\n"
                            "spec:\n  holderIdentity: x\n  bogusField: 1\n", "unknown.yaml")
        r = k.run("create", "-f", path, "-n", NS)
        self.assertNotEqual(r.returncode, 0, r.describe())
        self.assertIn("Error from server (BadRequest)", r.stderr, r.describe())
        self.assertIn("bogusField", r.stderr, r.describe())
        self.assertAbsent("unknownfield")

    # Conflict --------------------------------------------------------------------------------
    def test_stale_resource_version(self):
        # Make one real update so that the lease's previous resourceVersion is stale.
        old = self.keep()
        new = self.keep()
        new["spec"]["holderIdentity"] = "holder-keep-2"
        r = self.api.put(lease_path(NS, "keep"), new)
        self.assertEqual(r.status, 200, r.describe())
        self.assertNotEqual(r.body["metadata"]["resourceVersion"], old["metadata"]["resourceVersion"])
        self.before = self.snapshot()

        stale = json.loads(json.dumps(old))
        stale["spec"]["holderIdentity"] = "holder-stale"
        r = self.api.put(lease_path(NS, "keep"), stale)
        b = self.assertStatus(r, 409, "Conflict", "PUT with a stale resourceVersion")
        self.assertEqual(b.get("message"), CONFLICT_MSG, r.describe())
        details = b.get("details") or {}
        self.assertEqual((details.get("name"), details.get("group"), details.get("kind")),
                         ("keep", "coordination.k8s.io", "leases"), r.describe())

        # A patch carrying a stale resourceVersion is conditional on it.
        r = self.api.patch(lease_path(NS, "keep"), {"metadata": {"resourceVersion": old["metadata"]["resourceVersion"]},
                                                    "spec": {"holderIdentity": "holder-stale"}})
        self.assertStatus(r, 409, "Conflict", "merge PATCH with a stale metadata.resourceVersion")

        # Delete with a stale resourceVersion precondition.
        r = self.api.delete(lease_path(NS, "keep"),
                            {"apiVersion": "v1", "kind": "DeleteOptions",
                             "preconditions": {"resourceVersion": old["metadata"]["resourceVersion"]}})
        self.assertStatus(r, 409, "Conflict", "DELETE with a stale resourceVersion precondition")

        # Creating a name that exists is AlreadyExists (also 409).
        r = self.api.post(lease_path(NS), lease_body("keep"))
        b = self.assertStatus(r, 409, "AlreadyExists", "POST of an existing name")
        self.assertEqual(b.get("message"), 'leases.coordination.k8s.io "keep" already exists', r.describe())

    # Malformed -------------------------------------------------------------------------------
    def test_malformed_json(self):
        broken = '{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "mal"'
        r = self.api.post(lease_path(NS), broken, content_type="application/json")
        self.assertStatus(r, 400, "BadRequest", "POST malformed JSON")
        r = self.api.put(lease_path(NS, "keep"), '{"spec": [', content_type="application/json")
        self.assertStatus(r, 400, "BadRequest", "PUT malformed JSON")
        r = self.api.patch(lease_path(NS, "keep"), '{"spec": {', patch_type="application/merge-patch+json")
        self.assertStatus(r, 400, "BadRequest", "merge PATCH malformed JSON")
        r = self.api.post(lease_path(NS), "[1, 2, 3]", content_type="application/json")
        self.assertIn(r.status, (400, 422), f"POST a JSON array: {r.describe()}")
        self.assertAbsent("mal")

    def test_integer_given_as_string(self):
        body = lease_body("strint")
        body["spec"]["leaseDurationSeconds"] = "15"
        r = self.api.post(lease_path(NS), body)
        self.assertStatus(r, 400, "BadRequest", "POST with leaseDurationSeconds given as a string")
        self.assertAbsent("strint")
        keep = self.keep()
        keep["spec"]["leaseTransitions"] = "3"
        r = self.api.put(lease_path(NS, "keep"), keep)
        self.assertStatus(r, 400, "BadRequest", "PUT with leaseTransitions given as a string")

    def test_unknown_field_strict(self):
        body = lease_body("strict")
        body["spec"]["bogusField"] = "x"
        r = self.api.post(lease_path(NS), body, params={"fieldValidation": "Strict"})
        b = self.assertStatus(r, 400, "BadRequest", "POST with an unknown field under fieldValidation=Strict")
        self.assertIn("bogusField", b.get("message", ""), r.describe())
        self.assertAbsent("strict")

        keep = self.keep()
        keep["spec"]["otherBogus"] = 1
        r = self.api.put(lease_path(NS, "keep"), keep, params={"fieldValidation": "Strict"})
        b = self.assertStatus(r, 400, "BadRequest", "PUT with an unknown field under fieldValidation=Strict")
        self.assertIn("otherBogus", b.get("message", ""), r.describe())

        # Without Strict the unknown field is dropped and the object is stored.
        r = self.api.post(lease_path(NS), body, params={"fieldValidation": "Ignore"})
        self.assertEqual(r.status, 201, f"POST with an unknown field under fieldValidation=Ignore: {r.describe()}")
        got = self.api.get(lease_path(NS, "strict"))
        self.assertEqual(got.status, 200, got.describe())
        self.assertNotIn("bogusField", got.body["spec"], "an unknown field was stored")
        self.assertEqual(got.body["spec"]["holderIdentity"], "holder-a")
        r = self.api.delete(lease_path(NS, "strict"))
        self.assertEqual(r.status, 200, r.describe())
        self.before = self.snapshot()

    def test_wrong_kind_in_body(self):
        body = lease_body("wrongkind")
        body["kind"] = "Widget"
        r = self.api.post(lease_path(NS), body)
        self.assertStatus(r, 400, "BadRequest", "POST kind Widget to leases")
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "wrongkind"}, "data": {"a": "b"}}
        r = self.api.post(lease_path(NS), body)
        self.assertStatus(r, 400, "BadRequest", "POST a ConfigMap to leases")
        self.assertAbsent("wrongkind")

    # Size ------------------------------------------------------------------------------------
    def test_body_over_3_mib(self):
        body = lease_body("huge")
        body["metadata"]["annotations"] = {"big": "x" * (3 * 1024 * 1024 + 1024)}
        r = self.api.post(lease_path(NS), body)
        self.assertStatus(r, 413, "RequestEntityTooLarge", "POST of a 3 MiB + 1 KiB body")
        keep = self.keep()
        keep["metadata"].setdefault("annotations", {})["big"] = "y" * (3 * 1024 * 1024 + 1024)
        r = self.api.put(lease_path(NS, "keep"), keep)
        self.assertStatus(r, 413, "RequestEntityTooLarge", "PUT of a 3 MiB + 1 KiB body")
        self.assertAbsent("huge")

    # Not found -------------------------------------------------------------------------------
    def test_unknown_path_and_kind(self):
        cases = [
            ("GET", "/no/such/path"),
            ("GET", "/apis/nope.example.com/v1/things"),
            ("GET", "/apis/coordination.k8s.io/v9/namespaces/bad-input/leases"),
            ("GET", f"{LEASES}/namespaces/{NS}/widgets"),
            ("GET", f"{LEASES}/namespaces/{NS}/widgets/w1"),
            ("GET", f"/api/v1/namespaces/{NS}/leases"),
            ("POST", f"{LEASES}/namespaces/{NS}/widgets"),
            ("DELETE", f"{LEASES}/namespaces/{NS}/widgets/w1"),
        ]
        for method, path in cases:
            with self.subTest(method=method, path=path):
                body = {"apiVersion": "coordination.k8s.io/v1", "kind": "Widget", "metadata": {"name": "w1"}} \
                    if method == "POST" else None
                r = self.api.request(method, path, body)
                self.assertStatus(r, 404, "NotFound", f"{method} {path}")
        r = self.api.get(lease_path(NS, "no-such-lease"))
        b = self.assertStatus(r, 404, "NotFound", "GET a missing lease")
        self.assertEqual(b.get("message"), 'leases.coordination.k8s.io "no-such-lease" not found', r.describe())
        self.assertEqual((b.get("details") or {}).get("name"), "no-such-lease", r.describe())

    # Content type ----------------------------------------------------------------------------
    def test_unsupported_content_type(self):
        body = json.dumps(lease_body("textplain"))
        r = self.api.post(lease_path(NS), body, content_type="text/plain")
        self.assertStatus(r, 415, "UnsupportedMediaType", "POST with Content-Type text/plain")
        keep = json.dumps(self.keep())
        r = self.api.put(lease_path(NS, "keep"), keep, content_type="application/xml")
        self.assertStatus(r, 415, "UnsupportedMediaType", "PUT with Content-Type application/xml")
        r = self.api.patch(lease_path(NS, "keep"), {"spec": {"holderIdentity": "z"}}, patch_type="application/json")
        self.assertStatus(r, 415, "UnsupportedMediaType", "PATCH with Content-Type application/json")
        r = self.api.patch(lease_path(NS, "keep"), {"spec": {"holderIdentity": "z"}}, patch_type="text/plain")
        self.assertStatus(r, 415, "UnsupportedMediaType", "PATCH with Content-Type text/plain")
        self.assertAbsent("textplain")

    # Authentication --------------------------------------------------------------------------
    def test_no_token(self):
        # No credentials: anonymous, which the default RBAC policy refuses (403); a token no one
        # knows: 401. Neither leaks or changes anything.
        anon = self.server.client(token="")
        self.addCleanup(anon.close)
        r = anon.get(lease_path(NS, "keep"))
        self.assertStatus(r, 403, "Forbidden", "GET without a token")
        self.assertNotIn("holder-keep", r.raw.decode("utf-8", "replace"), "a 403 leaked the object")
        r = anon.post(lease_path(NS), lease_body("anon"))
        self.assertStatus(r, 403, "Forbidden", "POST without a token")
        r = anon.delete(lease_path(NS, "keep"))
        self.assertStatus(r, 403, "Forbidden", "DELETE without a token")
        r = anon.get(lease_path(NS, "keep"), token="not-the-token")
        self.assertStatus(r, 401, "Unauthorized", "GET with a wrong token")
        self.assertNotIn("holder-keep", r.raw.decode("utf-8", "replace"), "a 401 leaked the object")
        r = anon.put(lease_path(NS, "keep"), self.keep(), token="not-the-token")
        self.assertStatus(r, 401, "Unauthorized", "PUT with a wrong token")
        self.assertAbsent("anon")

if __name__ == "__main__":
    unittest.main()
