"""The official Kubernetes Python client (Debian's python3-kubernetes), used as its own
documentation shows, against the real `tenure serve`: the calls that failed before tenure read
query parameters and paths as kube-apiserver does.

- Watches: the client sends `watch=True`; kube-apiserver takes any value but absent, `0` or
  `false` (any case) as true. tenure answered a list, so a watch saw no event, and a watch
  resumed from a resourceVersion listed again and again.
- Discovery: VersionApi, ApisApi, CoreApi and get_api_resources ask for `/version/`, `/apis/`,
  `/api/` and `/apis/G/V/` with the trailing slash that go-restful trims.
- Integers: a `limit` or `timeoutSeconds` that is not one is 400 with Go's error.
- Watch-list (client-go's WatchList informers): `sendInitialEvents=true` sends the current state,
  then a BOOKMARK annotated `k8s.io/initial-events-end`; the list options are validated with
  kube's 422s; a list at an exact old resourceVersion is 410, one not reached yet 504.
"""

from __future__ import annotations

import unittest

from tenure_testlib import ServerTestCase, close_api_client, lease_body, lease_path

NS = "compat"


class PythonClientCompatTest(ServerTestCase):

    @classmethod
    def setUpClass(cls) -> None:
        try:
            from kubernetes import client, config  # noqa: F401
        except ImportError as e:
            raise unittest.SkipTest(f"python3-kubernetes is not installed ({e}); run scripts/bootstrap.sh")
        super().setUpClass()
        cls.api_client = config.new_client_from_config(config_file=cls.server.kubeconfig)
        cls.addClassCleanup(close_api_client, cls.api_client)

    def setUp(self) -> None:
        self.ensure_namespace(NS)

    def test_discovery_apis_with_their_trailing_slashes(self):
        from kubernetes import client
        version = client.VersionApi(self.api_client).get_code()
        self.assertTrue(version.git_version.startswith("v1."), version)
        groups = [g.name for g in client.ApisApi(self.api_client).get_api_versions().groups]
        self.assertIn("coordination.k8s.io", groups)
        self.assertEqual(client.CoreApi(self.api_client).get_api_versions().versions, ["v1"])
        core = [r.name for r in client.CoreV1Api(self.api_client).get_api_resources().resources]
        self.assertIn("configmaps", core)
        coordination = client.CoordinationV1Api(self.api_client).get_api_resources()
        self.assertIn("leases", [r.name for r in coordination.resources])

    def test_watch_streams_events_and_resumes_from_a_resource_version(self):
        from kubernetes import client, watch
        leases = client.CoordinationV1Api(self.api_client)
        self.create(lease_path(NS), lease_body("watched", NS, holder="a"))

        w = watch.Watch()
        first = None
        for event in w.stream(leases.list_namespaced_lease, NS, timeout_seconds=10):
            if event["object"].metadata.name == "watched":
                first = event
                w.stop()
        self.assertIsNotNone(first, "the watch ended without an event")
        self.assertEqual(first["type"], "ADDED")
        rv = first["object"].metadata.resource_version

        # A change after rv, then a watch resumed from rv replays it (before: a list, again and again).
        r = self.api.patch(lease_path(NS, "watched"), {"spec": {"holderIdentity": "b"}})
        self.assertEqual(r.status, 200, r.describe())
        w = watch.Watch()
        resumed = []
        for event in w.stream(leases.list_namespaced_lease, NS, resource_version=rv, timeout_seconds=10):
            resumed.append(event)
            w.stop()
        self.assertEqual([(e["type"], e["object"].spec.holder_identity) for e in resumed], [("MODIFIED", "b")])

    def test_integer_parameters_that_are_not_integers_are_bad_requests(self):
        for query, text in (("limit=abc", "abc"), ("limit=", ""), ("timeoutSeconds=1s", "1s"),
                            ("watch=1&timeoutSeconds=x", "x")):
            r = self.api.get(f"{lease_path(NS)}?{query}")
            body = self.assertStatus(r, 400, "BadRequest", what=query)
            self.assertEqual(body["message"], f'strconv.ParseInt: parsing "{text}": invalid syntax')

    def test_watch_list_ends_its_initial_events_with_a_bookmark(self):
        for name in ("wl-a", "wl-b"):
            self.create(lease_path(NS), lease_body(name, NS))
        params = {"sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan",
                  "allowWatchBookmarks": "true", "timeoutSeconds": "30"}
        w = self.server.watch(lease_path(NS), params)
        self.addCleanup(w.close)
        self.assertEqual(w.status, 200, w.body)
        seen = []
        while True:
            event = w.next(10)
            self.assertIsNotNone(event, "the stream ended before the initial-events-end bookmark")
            if event["type"] == "BOOKMARK":
                break
            seen.append((event["type"], event["object"]["metadata"]["name"]))
        self.assertIn(("ADDED", "wl-a"), seen)
        self.assertIn(("ADDED", "wl-b"), seen)
        meta = event["object"]["metadata"]
        self.assertEqual(meta.get("annotations"), {"k8s.io/initial-events-end": "true"})
        listed = self.api.get(lease_path(NS)).body["metadata"]["resourceVersion"]
        self.assertLessEqual(int(meta["resourceVersion"]), int(listed))
        # Changes after the bookmark follow on the same stream.
        self.assertEqual(self.api.patch(lease_path(NS, "wl-a"), {"spec": {"holderIdentity": "z"}}).status, 200)
        self.assertEqual([(e["type"], e["object"]["metadata"]["name"]) for e in w.collect(1)],
                         [("MODIFIED", "wl-a")])

    def test_list_options_are_validated_and_resource_versions_honoured(self):
        cases = (
            ("watch=1&sendInitialEvents=true", "resourceVersionMatch: Forbidden: sendInitialEvents requires "
                                               "setting resourceVersionMatch to NotOlderThan"),
            ("watch=1&resourceVersionMatch=NotOlderThan", "resourceVersionMatch: Forbidden: resourceVersionMatch "
                                                          "is forbidden for watch unless sendInitialEvents is provided"),
            ("sendInitialEvents=false", "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"),
            ("resourceVersionMatch=Exact", "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden "
                                           "unless resourceVersion is provided"),
        )
        for query, message in cases:
            body = self.assertStatus(self.api.get(f"{lease_path(NS)}?{query}"), 422, "Invalid", what=query)
            self.assertEqual(body["message"], f'ListOptions.meta.k8s.io "" is invalid: {message}')
        current = int(self.api.get(lease_path(NS)).body["metadata"]["resourceVersion"])
        exact = self.api.get(f"{lease_path(NS)}?resourceVersion={current}&resourceVersionMatch=Exact")
        self.assertEqual(exact.status, 200, exact.describe())
        self.create(lease_path(NS), lease_body("rv-newer", NS))
        old = self.api.get(f"{lease_path(NS)}?resourceVersion={current}&resourceVersionMatch=Exact")
        self.assertEqual(self.assertStatus(old, 410, "Expired")["message"],
                         "The resourceVersion for the provided list is too old.")
        future = current + 1000
        body = self.assertStatus(self.api.get(f"{lease_path(NS)}?resourceVersion={future}"
                                              "&resourceVersionMatch=NotOlderThan"), 504, "Timeout")
        self.assertTrue(body["message"].startswith(f"Timeout: Too large resource version: {future}, current: "),
                        body["message"])
        self.assertEqual(body["details"]["causes"],
                         [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}])

    def test_write_options_are_validated_as_kube_does(self):
        r = self.api.post(f"{lease_path(NS)}?fieldValidation=strict", lease_body("opts", NS))
        body = self.assertStatus(r, 422, "Invalid")
        self.assertEqual(body["message"], 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported '
                                          'value: "strict": supported values: "", "Ignore", "Strict", "Warn"')
        r = self.api.post(f"{lease_path(NS)}?dryRun=all", lease_body("opts", NS))
        body = self.assertStatus(r, 422, "Invalid")
        self.assertEqual(body["message"], 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: '
                                          '[]string{"all"}: supported values: "All"')


if __name__ == "__main__":
    unittest.main()
