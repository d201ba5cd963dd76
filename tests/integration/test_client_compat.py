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
  kube's 422s; a list at an exact earlier resourceVersion reads that version (410 once it is
  no longer kept), one not reached yet is 504.
- Namespaces are deleted through Terminating: the first DELETE answers the namespace marked, its
  content goes, then the namespace; `kubectl delete namespace` waits for that and returns.
- The dynamic client (kubernetes.dynamic): its own discovery of every group-version, then CRUD
  and a watch through what it found.
- Paging: `limit` and `continue` (the client's `_continue`, `kubectl --chunk-size`): pages of one
  resourceVersion with remainingItemCount, kube's 400 for a malformed token and 410 with a token
  to go on for an expired one.
"""

from __future__ import annotations

import json
import unittest

from tenure_testlib import ServerTestCase, close_api_client, core_path, lease_body, lease_path

NS = "compat"


class PythonClientCompatTest(ServerTestCase):
    # No coordination controller: its lease renewals would move the revision between the requests
    # of the exact-resourceVersion checks.
    # A short history, so that a version falls out of it after a few writes.
    SERVER_ARGS = ("--feature-gates", "CoordinatedLeaderElection=false", "--watch-history", str(50))

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

    def test_the_dynamic_client_discovers_writes_and_watches(self):
        # kubernetes.dynamic: its own discovery (/api, /apis and each group-version), then CRUD,
        # a server-side apply and a watch through the resources it found.
        from kubernetes import dynamic
        dyn = dynamic.DynamicClient(self.api_client)
        leases = dyn.resources.get(api_version="coordination.k8s.io/v1", kind="Lease")
        self.assertEqual((leases.name, leases.namespaced), ("leases", True))
        configmaps = dyn.resources.get(api_version="v1", kind="ConfigMap")
        self.assertEqual(configmaps.name, "configmaps")
        with self.assertRaises(dynamic.exceptions.ResourceNotFoundError):  # its gate is off here
            dyn.resources.get(api_version="coordination.k8s.io/v1beta1", kind="LeaseCandidate")

        created = leases.create(body=lease_body("dyn", NS, holder="a"), namespace=NS)
        self.assertEqual(created.spec.holderIdentity, "a")
        got = leases.get(name="dyn", namespace=NS)
        self.assertEqual(got.metadata.resourceVersion, created.metadata.resourceVersion)
        patched = leases.patch(name="dyn", namespace=NS, body={"spec": {"holderIdentity": "b"}},
                               content_type="application/merge-patch+json")
        self.assertEqual(patched.spec.holderIdentity, "b")
        # (Its server_side_apply cannot send a body in this client version: "Cannot prepare a
        # request message", refused before any request.)
        replaced = leases.replace(body=patched.to_dict(), namespace=NS)
        self.assertEqual(replaced.metadata.resourceVersion, patched.metadata.resourceVersion)  # no-op
        names = [item.metadata.name for item in leases.get(namespace=NS).items]
        self.assertIn("dyn", names)

        seen = []
        for event in leases.watch(namespace=NS, resource_version=created.metadata.resourceVersion,
                                  timeout=10):
            seen.append((event["type"], event["object"].spec.holderIdentity))
            break
        self.assertEqual(seen, [("MODIFIED", "b")])  # the patch; the no-op replace is no event

        leases.delete(name="dyn", namespace=NS)
        r = self.api.get(lease_path(NS, "dyn"))
        self.assertEqual(r.status, 404, r.describe())

    def test_integer_parameters_that_are_not_integers_are_bad_requests(self):
        for query, text in (("limit=abc", "abc"), ("limit=", ""), ("timeoutSeconds=1s", "1s"),
                            ("watch=1&timeoutSeconds=x", "x")):
            r = self.api.get(f"{lease_path(NS)}?{query}")
            body = self.assertStatus(r, 400, "BadRequest", what=query)
            self.assertEqual(body["message"], f'strconv.ParseInt: parsing "{text}": invalid syntax')

    def test_watch_list_ends_its_initial_events_with_a_bookmark(self):
        created = [self.create(lease_path(NS), lease_body(name, NS)) for name in ("wl-a", "wl-b")]
        newest = max(int(c["metadata"]["resourceVersion"]) for c in created)
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
        # The bookmark's version is the state the initial events showed: at least the newest write.
        listed = self.api.get(lease_path(NS)).body["metadata"]["resourceVersion"]
        self.assertGreaterEqual(int(meta["resourceVersion"]), newest)
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
        self.assertEqual(old.status, 200, old.describe())
        self.assertEqual(old.body["metadata"]["resourceVersion"], str(current))
        self.assertNotIn("rv-newer", [i["metadata"]["name"] for i in old.body["items"]])
        for i in range(60):
            self.assertEqual(self.api.patch(lease_path(NS, "rv-newer"), {"spec": {"holderIdentity": f"h{i}"}}).status,
                             200)
        gone = self.api.get(f"{lease_path(NS)}?resourceVersion={current}&resourceVersionMatch=Exact")
        self.assertEqual(self.assertStatus(gone, 410, "Expired")["message"],
                         "The resourceVersion for the provided list is too old.")
        future = current + 1000
        body = self.assertStatus(self.api.get(f"{lease_path(NS)}?resourceVersion={future}"
                                              "&resourceVersionMatch=NotOlderThan"), 504, "Timeout")
        self.assertTrue(body["message"].startswith(f"Timeout: Too large resource version: {future}, current: "),
                        body["message"])
        self.assertEqual(body["details"]["causes"],
                         [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}])
        self.assertEqual(body["details"].get("retryAfterSeconds"), 1, body)  # after kube's 3 s wait

    def test_lists_page_with_continue_tokens(self):
        from kubernetes import client
        from kubernetes.client.rest import ApiException
        ns = "compat-paging"
        self.ensure_namespace(ns)
        core = client.CoreV1Api(self.api_client)
        names = [f"page-{i}" for i in range(5)]
        for name in names:
            core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name),
                                                                     data={"k": name}))
        seen, token, pages, version = [], None, 0, None
        while True:
            page = core.list_namespaced_config_map(ns, limit=2, _continue=token) if token else \
                core.list_namespaced_config_map(ns, limit=2)
            pages += 1
            seen += [item.metadata.name for item in page.items]
            version = version or page.metadata.resource_version
            self.assertEqual(page.metadata.resource_version, version, "every page is read at the first one's version")
            token = page.metadata._continue
            if not token:
                self.assertIsNone(page.metadata.remaining_item_count)
                break
            self.assertEqual(page.metadata.remaining_item_count, len(names) - len(seen))
            if pages == 1:  # a write between pages is not seen by the later ones
                core.delete_namespaced_config_map("page-4", ns)
        self.assertEqual((seen, pages), (names, 3))

        with self.assertRaises(ApiException) as bad:
            core.list_namespaced_config_map(ns, limit=2, _continue="not!base64")
        self.assertEqual(bad.exception.status, 400)
        self.assertIn("invalid continue token: continue key is not valid", bad.exception.body)

        # An expired token: 410 with a token that goes on at the latest version.
        first = core.list_namespaced_config_map(ns, limit=1)
        for i in range(60):
            core.patch_namespaced_config_map("page-3", ns, {"data": {"k": str(i)}})
        with self.assertRaises(ApiException) as expired:
            core.list_namespaced_config_map(ns, limit=1, _continue=first.metadata._continue)
        self.assertEqual(expired.exception.status, 410)
        status = json.loads(expired.exception.body)
        self.assertEqual(status["reason"], "Expired")
        rest = core.list_namespaced_config_map(ns, limit=10, _continue=status["metadata"]["continue"])
        self.assertEqual([i.metadata.name for i in rest.items], names[1:4])

        # kubectl pages with --chunk-size (its default is 500): the requests show the tokens.
        k = self.server.kubectl("1.33")
        run = k.run("get", "configmaps", "-n", ns, "--chunk-size=1", "-o", "name", "-v=6")
        self.assertEqual(run.returncode, 0, run.describe())
        self.assertEqual(run.stdout.split(), [f"configmap/{n}" for n in names[:4]], run.describe())
        self.assertIn("limit=1", run.stderr)
        self.assertIn("continue=", run.stderr)

    def test_a_namespace_is_deleted_through_terminating(self):
        from kubernetes import client
        core = client.CoreV1Api(self.api_client)
        for ns in ("compat-doomed", "compat-doomed-2"):
            core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
            core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cm")))
        r = self.api.delete(core_path("namespaces", name="compat-doomed"))
        self.assertEqual(r.status, 200, r.describe())
        self.assertEqual((r.body["kind"], r.body["status"]["phase"]), ("Namespace", "Terminating"))
        self.assertIn("deletionTimestamp", r.body["metadata"])
        # kubectl waits until the namespace is gone (its content first).
        k = self.server.kubectl("1.33")
        run = k.run("delete", "namespace", "compat-doomed-2", timeout=30)
        self.assertEqual(run.returncode, 0, run.describe())
        self.assertIn('namespace "compat-doomed-2" deleted', run.stdout)
        self.assertEqual(self.api.get(core_path("namespaces", name="compat-doomed-2")).status, 404)
        self.assertEqual(self.api.get(core_path("configmaps", "compat-doomed-2", "cm")).status, 404)
        run = k.run("wait", "--for=delete", "namespace/compat-doomed", "--timeout=20s")
        self.assertEqual(run.returncode, 0, run.describe())
        self.assertEqual(self.api.get(core_path("configmaps", "compat-doomed", "cm")).status, 404)

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
