"""RBAC against the real `tenure serve`, checked the way kube-apiserver answers: with kubectl
(1.33 and the oldest supported, 1.27), over HTTPS with kube's exact 403 messages, and with the
official Kubernetes Python client.

What is shown:
- kubectl creates a Role limited by resourceNames and its RoleBinding; `auth can-i` (also
  --list, --as, and impersonation refused with kube's message) and `auth whoami` answer for
  the bound user as kube-apiserver does; kubectl 1.27 works too, except whoami, which needs
  SelfSubjectReview v1alpha1/v1beta1, APIs a default kube-apiserver no longer serves;
  impersonation headers over HTTPS: a service account gets its groups, groups are kept, and
  kube's 403 (users, serviceaccounts) and 400 (groups without a user);
- every rule shape allows what it names and refuses the rest with kube's 403 Status: a verb
  not in the role, a resource not in the role, resourceNames (a named get, a list with
  fieldSelector metadata.name=<name>, never an unnamed list), a namespace without a binding,
  a ClusterRoleBinding to a group in every namespace, nonResourceURLs, and a subresource that
  `leases` does not cover; a binding counts from the next request on;
- escalation prevention: a namespace admin may write roles and bindings within their rights
  (a lease Role, a binding of `edit`) and gets kube's 403 listing the missing rights for more
  (nodes, cluster-admin), 404 for a binding of a role that does not exist;
- ServiceAccount tokens with kubectl: create token, whoami as the account, rights from a
  RoleBinding, malformed tokens refused, kube's validation of the duration, a missing account,
  and a token revoked with its account (even when an account of that name is created again);
- the same with the official Python client: access and rules reviews, a SubjectAccessReview
  by the admin, a lease created and updated under a resourceNames role, ApiException 403 with
  kube's message, a TokenRequest's token used as bearer, whoami;
- an application cannot touch another application's lease: each may read and renew its own
  and gets 403 on the other's.
"""

from __future__ import annotations

import base64
import json
import os
import re
import tempfile
import unittest

from tenure_testlib import ServerTestCase, close_api_client, core_path, lease_body, lease_path, write_token_file

TOKENS = ("bob-token,bob,1002\n"
          "alice-token,alice,1001\n"
          'carol-token,carol,1003,"lease-readers"\n'
          "app-a-token,app-a,2001\n"
          "app-b-token,app-b,2002\n")

RBAC = "/apis/rbac.authorization.k8s.io/v1"
AUTHORIZATION = "/apis/authorization.k8s.io/v1"
AUTHENTICATION = "/apis/authentication.k8s.io/v1"
COORDINATION = "coordination.k8s.io"


TOKEN_FILE = write_token_file(TOKENS, "tenure-rbac-tokens-")


def tearDownModule():
    os.unlink(TOKEN_FILE)


# -- RBAC objects ---------------------------------------------------------------------------------

def rule(verbs: list[str], resources: list[str], group: str = COORDINATION, names: list[str] | None = None) -> dict:
    r = {"apiGroups": [group], "resources": resources, "verbs": verbs}
    if names is not None:
        r["resourceNames"] = names
    return r


def role(name: str, rules: list[dict], ns: str | None = None) -> dict:
    """A Role in ns, or a ClusterRole without ns."""
    meta = {"name": name, **({"namespace": ns} if ns else {})}
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role" if ns else "ClusterRole",
            "metadata": meta, "rules": rules}


def binding(name: str, role_kind: str, role_name: str, subjects: list[dict], ns: str | None = None) -> dict:
    """A RoleBinding in ns, or a ClusterRoleBinding without ns."""
    meta = {"name": name, **({"namespace": ns} if ns else {})}
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding" if ns else "ClusterRoleBinding",
            "metadata": meta, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": role_name},
            "subjects": subjects}


def user(name: str) -> dict:
    return {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": name}


def group(name: str) -> dict:
    return {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": name}


def rbac_path(resource: str, ns: str | None = None, name: str | None = None) -> str:
    p = f"{RBAC}/namespaces/{ns}/{resource}" if ns else f"{RBAC}/{resource}"
    return f"{p}/{name}" if name else p


def lease_forbidden(who: str, verb: str, ns: str, name: str | None = None, resource: str = "leases") -> str:
    """kube-apiserver's 403 message for a lease request refused by RBAC."""
    target = f'leases.{COORDINATION} "{name}"' if name else f"leases.{COORDINATION}"
    return (f'{target} is forbidden: User "{who}" cannot {verb} resource "{resource}" in API group '
            f'"{COORDINATION}" in the namespace "{ns}"')


def access_review(verb: str, ns: str, name: str = "", subresource: str = "", resource: str = "leases") -> dict:
    attrs = {"namespace": ns, "verb": verb, "group": COORDINATION, "resource": resource}
    if name:
        attrs["name"] = name
    if subresource:
        attrs["subresource"] = subresource
    return {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": attrs}}


def jwt_claims(token: str) -> dict:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


# -- kubectl output -------------------------------------------------------------------------------

def whoami_rows(out: str) -> dict[str, str]:
    """`kubectl auth whoami` table: ATTRIBUTE -> VALUE."""
    lines = out.strip().splitlines()
    assert lines and lines[0].split() == ["ATTRIBUTE", "VALUE"], out
    return dict(line.split(None, 1) for line in lines[1:])


def can_i_list_rows(out: str) -> list[list[str]]:
    """`kubectl auth can-i --list` rows as [resource, non-resource URLs, resource names, verbs]."""
    lines = out.strip().splitlines()
    assert lines[0].split() == ["Resources", "Non-Resource", "URLs", "Resource", "Names", "Verbs"], out
    return [re.findall(r"\[[^\]]*\]|\S+", line) for line in lines[1:]]


class RbacServerTestCase(ServerTestCase):
    """A server with the users of TOKENS; helpers that write as the admin."""

    SERVER_ARGS = ("--token-auth-file", TOKEN_FILE)

    @classmethod
    def admin_create(cls, path: str, body: dict) -> dict:
        r = cls.api.post(path, body)
        assert r.status == 201, f"POST {path}: {r.describe()}"
        return r.body

    @classmethod
    def admin_namespace(cls, ns: str) -> None:
        cls.admin_create(core_path("namespaces"), {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})

    def assertForbidden(self, r, message: str, what: str = "") -> None:
        body = self.assertStatus(r, 403, "Forbidden", what=what)
        self.assertEqual(body.get("message"), message, what)


# =================================================================================================
# 1. kubectl: auth can-i, --list, --as, whoami
# =================================================================================================

class KubectlAccessTest(RbacServerTestCase):
    NS = "kubectl-rbac"

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        k = cls.server.kubectl("1.33")
        k.ok("create", "namespace", cls.NS)
        k.ok("-n", cls.NS, "create", "role", "lease-rw", "--verb=get,update,create",
             "--resource=leases.coordination.k8s.io", "--resource-name=lock")
        k.ok("-n", cls.NS, "create", "rolebinding", "bob-lease-rw", "--role=lease-rw", "--user=bob")

    def test_kubectl_created_the_role_and_binding_as_given(self):
        k = self.server.kubectl("1.33")
        created = json.loads(k.ok("-n", self.NS, "get", "role", "lease-rw", "-o", "json"))
        self.assertEqual(created["rules"], [{"apiGroups": [COORDINATION], "resources": ["leases"],
                                             "resourceNames": ["lock"], "verbs": ["get", "update", "create"]}])
        bound = json.loads(k.ok("-n", self.NS, "get", "rolebinding", "bob-lease-rw", "-o", "json"))
        self.assertEqual(bound["roleRef"], {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "lease-rw"})
        self.assertEqual(bound["subjects"], [user("bob")])

    def check_can_i(self, version: str) -> None:
        k = self.server.kubectl(version)
        bob = ("--token", "bob-token", "-n", self.NS)

        self.assertEqual(k.ok(*bob, "auth", "can-i", "update", "leases/lock"), "yes\n")
        self.assertEqual(k.ok(*bob, "auth", "can-i", "get", "leases.coordination.k8s.io/lock"), "yes\n")
        for denied in (("update", "leases/other"), ("create", "leases"), ("list", "leases"), ("delete", "leases/lock")):
            r = k.fails(*bob, "auth", "can-i", *denied)
            self.assertEqual((r.returncode, r.stdout), (1, "no\n"), r.describe())

        rows = can_i_list_rows(k.ok(*bob, "auth", "can-i", "--list"))
        lease_rows = [row for row in rows if row[0] == "leases.coordination.k8s.io"]
        self.assertEqual(lease_rows, [["leases.coordination.k8s.io", "[]", "[lock]", "[get update create]"]])
        self.assertIn(["selfsubjectaccessreviews.authorization.k8s.io", "[]", "[]", "[create]"], rows)

        # The admin asks on bob's behalf (impersonation); alice has no binding.
        self.assertEqual(k.ok("-n", self.NS, "auth", "can-i", "update", "leases/lock", "--as", "bob"), "yes\n")
        r = k.fails("-n", self.NS, "auth", "can-i", "update", "leases/lock", "--as", "alice")
        self.assertEqual((r.returncode, r.stdout), (1, "no\n"), r.describe())
        # bob may not impersonate.
        r = k.fails(*bob, "auth", "can-i", "get", "leases", "--as", "alice")
        self.assertIn('Error from server (Forbidden): users "alice" is forbidden: User "bob" cannot impersonate '
                      'resource "users" in API group "" at the cluster scope', r.stderr, r.describe())

    def check_whoami(self, version: str) -> None:
        k = self.server.kubectl(version)
        self.assertEqual(whoami_rows(k.ok("--token", "bob-token", "auth", "whoami")),
                         {"Username": "bob", "UID": "1002", "Groups": "[system:authenticated]"})
        self.assertEqual(whoami_rows(k.ok("auth", "whoami")),
                         {"Username": "tenure-admin", "Groups": "[system:masters system:authenticated]"})
        self.assertEqual(whoami_rows(k.ok("auth", "whoami", "--as", "alice")),
                         {"Username": "alice", "Groups": "[system:authenticated]"})

    def test_can_i_and_whoami_with_kubectl_1_33(self):
        self.check_can_i("1.33")
        self.check_whoami("1.33")

    def test_can_i_with_the_oldest_kubectl_1_27(self):
        self.check_can_i("1.27")
        # kubectl 1.27 knows SelfSubjectReview only as v1alpha1/v1beta1, which kube-apiserver serves
        # no more by default (v1 since 1.28): whoami fails there exactly like this.
        r = self.server.kubectl("1.27").fails("--token", "bob-token", "auth", "whoami")
        self.assertIn("the selfsubjectreviews API is not enabled in the cluster", r.stderr, r.describe())

    def test_whoami_with_kubectl_1_28(self):
        self.check_whoami("1.28")

    def test_impersonation_headers_over_https(self):
        review = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
        as_sa = {"Impersonate-User": "system:serviceaccount:kubectl-rbac:builder"}
        r = self.api.post(f"{AUTHENTICATION}/selfsubjectreviews", review, headers=as_sa)
        self.assertEqual(r.status, 201, r.describe())
        self.assertEqual(r.body["status"]["userInfo"], {
            "username": "system:serviceaccount:kubectl-rbac:builder",
            "groups": ["system:serviceaccounts", "system:serviceaccounts:kubectl-rbac", "system:authenticated"]})
        r = self.api.post(f"{AUTHENTICATION}/selfsubjectreviews", review,
                          headers={"Impersonate-User": "alice", "Impersonate-Group": "team-z"})
        self.assertEqual(r.status, 201, r.describe())
        self.assertEqual(r.body["status"]["userInfo"],
                         {"username": "alice", "groups": ["team-z", "system:authenticated"]})

        self.assertForbidden(self.api.post(f"{AUTHENTICATION}/selfsubjectreviews", review, headers=as_sa,
                                           token="bob-token"),
                             'serviceaccounts "builder" is forbidden: User "bob" cannot impersonate resource '
                             '"serviceaccounts" in API group "" in the namespace "kubectl-rbac"')
        self.assertForbidden(self.api.get(core_path("namespaces"), headers={"Impersonate-User": "bob"},
                                          token="bob-token"),
                             'users "bob" is forbidden: User "bob" cannot impersonate resource "users" in API group "" '
                             'at the cluster scope')
        body = self.assertStatus(self.api.get(core_path("namespaces"), headers={"Impersonate-Group": "team-z"}), 400,
                                 "BadRequest")
        self.assertEqual(body.get("message"), "requested [{Group  team-z    }] without impersonating a user")


# =================================================================================================
# 2. Each rule shape, allowed and denied, over HTTPS
# =================================================================================================

class RuleShapesTest(RbacServerTestCase):
    NS = "shapes"
    ELSEWHERE = "elsewhere"

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        for ns in (cls.NS, cls.ELSEWHERE):
            cls.admin_namespace(ns)
            for name in ("lock", "other"):
                cls.admin_create(lease_path(ns), lease_body(name, holder="admin"))
        # bob: get and update any lease in NS. alice: get and list only the lease "lock" in NS.
        cls.admin_create(rbac_path("roles", cls.NS), role("lease-get-update", [rule(["get", "update"], ["leases"])],
                                                          cls.NS))
        cls.admin_create(rbac_path("rolebindings", cls.NS),
                         binding("bob-lease-get-update", "Role", "lease-get-update", [user("bob")], cls.NS))
        cls.admin_create(rbac_path("roles", cls.NS),
                         role("lock-reader", [rule(["get", "list", "watch"], ["leases"], names=["lock"])], cls.NS))
        cls.admin_create(rbac_path("rolebindings", cls.NS),
                         binding("alice-lock-reader", "Role", "lock-reader", [user("alice")], cls.NS))

    def test_a_verb_not_in_the_role_is_forbidden(self):
        r = self.api.get(lease_path(self.NS, "lock"), token="bob-token")
        self.assertEqual(r.status, 200, r.describe())
        r = self.api.put(lease_path(self.NS, "lock"), {**r.body, "spec": {"holderIdentity": "bob"}}, token="bob-token")
        self.assertEqual((r.status, r.body["spec"]["holderIdentity"]), (200, "bob"), r.describe())
        self.assertForbidden(self.api.delete(lease_path(self.NS, "lock"), token="bob-token"),
                             lease_forbidden("bob", "delete", self.NS, "lock"))
        self.assertForbidden(self.api.get(lease_path(self.NS), token="bob-token"),
                             lease_forbidden("bob", "list", self.NS))
        self.assertForbidden(self.api.post(lease_path(self.NS), lease_body("new"), token="bob-token"),
                             lease_forbidden("bob", "create", self.NS))

    def test_a_resource_not_in_the_role_is_forbidden(self):
        self.assertForbidden(self.api.get(core_path("configmaps", self.NS, "settings"), token="bob-token"),
                             'configmaps "settings" is forbidden: User "bob" cannot get resource "configmaps" '
                             'in API group "" in the namespace "shapes"')
        self.assertForbidden(self.api.get(core_path("namespaces"), token="bob-token"),
                             'namespaces is forbidden: User "bob" cannot list resource "namespaces" in API group "" '
                             'at the cluster scope')

    def test_resource_names_allow_only_the_named_object(self):
        alice = "alice-token"
        r = self.api.get(lease_path(self.NS, "lock"), token=alice)
        self.assertEqual((r.status, r.body["metadata"]["name"]), (200, "lock"), r.describe())
        self.assertForbidden(self.api.get(lease_path(self.NS, "other"), token=alice),
                             lease_forbidden("alice", "get", self.NS, "other"))
        self.assertForbidden(self.api.get(lease_path(self.NS), token=alice), lease_forbidden("alice", "list", self.NS))
        # A list narrowed to one name by fieldSelector is authorized with that name.
        r = self.api.get(lease_path(self.NS), params={"fieldSelector": "metadata.name=lock"}, token=alice)
        self.assertEqual(r.status, 200, r.describe())
        self.assertEqual([o["metadata"]["name"] for o in r.body["items"]], ["lock"])
        self.assertForbidden(self.api.get(lease_path(self.NS), params={"fieldSelector": "metadata.name=other"},
                                          token=alice),
                             lease_forbidden("alice", "list", self.NS, "other"))
        self.assertForbidden(self.api.get(lease_path(self.NS), params={"fieldSelector": "metadata.name!=other"},
                                          token=alice),
                             lease_forbidden("alice", "list", self.NS))

    def test_a_namespace_without_a_binding_is_forbidden(self):
        for who, token in (("bob", "bob-token"), ("alice", "alice-token")):
            self.assertForbidden(self.api.get(lease_path(self.ELSEWHERE, "lock"), token=token),
                                 lease_forbidden(who, "get", self.ELSEWHERE, "lock"))

    def test_a_cluster_role_binding_to_a_group_applies_in_every_namespace(self):
        carol = "carol-token"  # in group lease-readers
        self.assertForbidden(self.api.get(lease_path(self.ELSEWHERE), token=carol),
                             lease_forbidden("carol", "list", self.ELSEWHERE))
        self.admin_create(rbac_path("clusterroles"), role("lease-reader", [rule(["get", "list"], ["leases"])]))
        self.admin_create(rbac_path("clusterrolebindings"),
                          binding("lease-readers", "ClusterRole", "lease-reader", [group("lease-readers")]))
        for ns in (self.NS, self.ELSEWHERE, "default"):
            r = self.api.get(lease_path(ns), token=carol)
            self.assertEqual(r.status, 200, f"{ns}: {r.describe()}")
        r = self.api.get(f"/apis/{COORDINATION}/v1/leases", token=carol)  # all namespaces
        self.assertEqual(r.status, 200, r.describe())
        seen = {(o["metadata"]["namespace"], o["metadata"]["name"]) for o in r.body["items"]}
        self.assertLessEqual({(ns, n) for ns in (self.ELSEWHERE, self.NS) for n in ("lock", "other")}, seen)
        self.assertForbidden(self.api.put(lease_path(self.ELSEWHERE, "lock"), lease_body("lock"), token=carol),
                             lease_forbidden("carol", "update", self.ELSEWHERE, "lock"))

    def test_non_resource_urls_need_a_cluster_role(self):
        self.assertForbidden(self.api.get("/metrics", token="bob-token"),
                             'forbidden: User "bob" cannot get path "/metrics"')
        self.admin_create(rbac_path("clusterroles"),
                          role("metrics-reader", [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]))
        self.admin_create(rbac_path("clusterrolebindings"),
                          binding("bob-metrics-reader", "ClusterRole", "metrics-reader", [user("bob")]))
        r = self.api.get("/metrics", token="bob-token")
        self.assertEqual(r.status, 200, r.describe())
        self.assertForbidden(self.api.post("/metrics", {}, token="bob-token"),
                             'forbidden: User "bob" cannot post path "/metrics"')
        self.assertForbidden(self.api.get("/metrics", token="alice-token"),
                             'forbidden: User "alice" cannot get path "/metrics"')

    def test_leases_does_not_cover_a_subresource(self):
        def allowed(review: dict) -> bool:
            r = self.api.post(f"{AUTHORIZATION}/selfsubjectaccessreviews", review, token="bob-token")
            self.assertEqual(r.status, 201, r.describe())
            return r.body["status"]["allowed"]

        self.assertTrue(allowed(access_review("get", self.NS, "lock")))
        self.assertFalse(allowed(access_review("get", self.NS, "lock", subresource="status")))
        self.assertFalse(allowed(access_review("update", self.NS, "lock", subresource="status")))
        self.assertForbidden(self.api.get(lease_path(self.NS, "lock") + "/status", token="bob-token"),
                             lease_forbidden("bob", "get", self.NS, "lock", resource="leases/status"))

    def test_access_review_answers_name_the_binding(self):
        r = self.api.post(f"{AUTHORIZATION}/selfsubjectaccessreviews", access_review("update", self.NS, "lock"),
                          token="bob-token")
        self.assertEqual(r.status, 201, r.describe())
        self.assertEqual(r.body["status"], {"allowed": True, "reason": 'RBAC: allowed by RoleBinding '
                                            '"bob-lease-get-update/shapes" of Role "lease-get-update" to User "bob"'})
        r = self.api.post(f"{AUTHORIZATION}/selfsubjectaccessreviews", access_review("delete", self.NS, "lock"),
                          token="bob-token")
        self.assertEqual(r.status, 201, r.describe())
        self.assertIs(r.body["status"]["allowed"], False)
        # Only those who may create subjectaccessreviews ask about others.
        sar = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
               "spec": {"user": "alice", "resourceAttributes": access_review("get", self.NS, "lock")["spec"]
                        ["resourceAttributes"]}}
        self.assertForbidden(self.api.post(f"{AUTHORIZATION}/subjectaccessreviews", sar, token="bob-token"),
                             'subjectaccessreviews.authorization.k8s.io is forbidden: User "bob" cannot create '
                             'resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope')
        r = self.api.post(f"{AUTHORIZATION}/subjectaccessreviews", sar)
        self.assertEqual(r.status, 201, r.describe())
        self.assertEqual(r.body["status"], {"allowed": True, "reason": 'RBAC: allowed by RoleBinding '
                                            '"alice-lock-reader/shapes" of Role "lock-reader" to User "alice"'})


# =================================================================================================
# 3. Escalation prevention
# =================================================================================================

class EscalationTest(RbacServerTestCase):
    NS = "team"

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.admin_namespace(cls.NS)
        cls.admin_create(rbac_path("rolebindings", cls.NS), binding("bob-admin", "ClusterRole", "admin", [user("bob")],
                                                                    cls.NS))

    def grant_refused(self, r, resource: str, name: str, missing: list[str]) -> None:
        self.assertForbidden(r, f'{resource}.rbac.authorization.k8s.io "{name}" is forbidden: user "bob" '
                                f'(groups=["system:authenticated"]) is attempting to grant RBAC permissions not '
                                f'currently held:\n' + "\n".join(missing))

    def test_a_namespace_admin_may_write_a_role_within_their_rights(self):
        lease_writer = role("lease-writer", [rule(["get", "update", "create"], ["leases"])], self.NS)
        r = self.api.post(rbac_path("roles", self.NS), lease_writer, token="bob-token")
        self.assertEqual(r.status, 201, r.describe())
        # Adding a right they do not hold to it is refused too.
        r = self.api.patch(rbac_path("roles", self.NS, "lease-writer"),
                           {"rules": [*lease_writer["rules"], rule(["get"], ["nodes"], group="")]}, token="bob-token")
        self.grant_refused(r, "roles", "lease-writer", ['{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}'])

    def test_a_role_with_rights_not_held_is_refused(self):
        node_reader = role("node-reader", [rule(["get", "list"], ["nodes"], group=""),
                                           rule(["get"], ["leases"])], self.NS)
        r = self.api.post(rbac_path("roles", self.NS), node_reader, token="bob-token")
        self.grant_refused(r, "roles", "node-reader", ['{APIGroups:[""], Resources:["nodes"], Verbs:["get" "list"]}'])
        self.assertStatus(self.api.get(rbac_path("roles", self.NS, "node-reader")), 404, "NotFound")

    def test_binding_cluster_admin_is_refused(self):
        r = self.api.post(rbac_path("rolebindings", self.NS),
                          binding("bob-root", "ClusterRole", "cluster-admin", [user("bob")], self.NS), token="bob-token")
        self.grant_refused(r, "rolebindings", "bob-root", ['{APIGroups:["*"], Resources:["*"], Verbs:["*"]}',
                                                           '{NonResourceURLs:["*"], Verbs:["*"]}'])

    def test_binding_edit_is_allowed(self):
        r = self.api.post(rbac_path("rolebindings", self.NS),
                          binding("alice-edit", "ClusterRole", "edit", [user("alice")], self.NS), token="bob-token")
        self.assertEqual(r.status, 201, r.describe())
        r = self.api.post(lease_path(self.NS), lease_body("by-alice", holder="alice"), token="alice-token")
        self.assertEqual(r.status, 201, r.describe())

    def test_binding_a_missing_role_is_not_found(self):
        r = self.api.post(rbac_path("rolebindings", self.NS),
                          binding("alice-ghost", "ClusterRole", "ghost", [user("alice")], self.NS), token="bob-token")
        body = self.assertStatus(r, 404, "NotFound")
        self.assertEqual(body.get("message"), 'clusterroles.rbac.authorization.k8s.io "ghost" not found')

    def test_cluster_scope_and_other_namespaces_stay_out_of_reach(self):
        self.assertForbidden(self.api.post(rbac_path("clusterroles"), role("mine", [rule(["get"], ["leases"])]),
                                           token="bob-token"),
                             'clusterroles.rbac.authorization.k8s.io is forbidden: User "bob" cannot create resource '
                             '"clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope')
        self.assertForbidden(self.api.post(rbac_path("roles", "default"), role("mine", [rule(["get"], ["leases"])],
                                                                                "default"), token="bob-token"),
                             'roles.rbac.authorization.k8s.io is forbidden: User "bob" cannot create resource "roles" '
                             'in API group "rbac.authorization.k8s.io" in the namespace "default"')


# =================================================================================================
# 4. ServiceAccount tokens with kubectl
# =================================================================================================

class ServiceAccountTokenTest(RbacServerTestCase):
    NS = "apps"

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.k = cls.server.kubectl("1.33")
        cls.k.ok("create", "namespace", cls.NS)

    def kc(self, *args: str) -> str:
        return self.k.ok("-n", self.NS, *args)

    def assertUnauthorized(self, token: str) -> None:
        r = self.k.fails("--token", token, "-n", self.NS, "get", "leases")
        self.assertIn("error: You must be logged in to the server (Unauthorized)", r.stderr, r.describe())

    def test_a_service_account_token_authenticates_until_the_account_is_deleted(self):
        self.kc("create", "serviceaccount", "app")
        uid = self.kc("get", "serviceaccount", "app", "-o", "jsonpath={.metadata.uid}")
        token = self.kc("create", "token", "app", "--duration=15m").strip()
        claims = jwt_claims(token)
        self.assertEqual(claims["sub"], "system:serviceaccount:apps:app")
        self.assertEqual(claims["exp"] - claims["iat"], 15 * 60)
        self.assertEqual(claims["kubernetes.io"]["serviceaccount"], {"name": "app", "uid": uid})

        rows = whoami_rows(self.k.ok("--token", token, "auth", "whoami"))
        self.assertEqual((rows["Username"], rows["UID"], rows["Groups"]),
                         ("system:serviceaccount:apps:app", uid,
                          "[system:serviceaccounts system:serviceaccounts:apps system:authenticated]"))

        as_app = ("--token", token, "-n", self.NS)
        r = self.k.fails(*as_app, "auth", "can-i", "update", "leases")
        self.assertEqual((r.returncode, r.stdout), (1, "no\n"), r.describe())
        self.kc("create", "rolebinding", "app-edit", "--clusterrole=edit", "--serviceaccount=apps:app")
        self.assertEqual(self.k.ok(*as_app, "auth", "can-i", "update", "leases"), "yes\n")
        # kubectl has no `create lease`: the account writes one over HTTPS and reads it with kubectl.
        r = self.api.post(lease_path(self.NS), lease_body("app-lock", holder="app"), token=token)
        self.assertEqual(r.status, 201, r.describe())
        self.assertEqual(self.k.ok(*as_app, "get", "lease", "app-lock", "-o", "jsonpath={.spec.holderIdentity}"), "app")

        self.kc("delete", "serviceaccount", "app")
        self.assertUnauthorized(token)
        # An account created again under the same name is another account: the old token stays revoked.
        self.kc("create", "serviceaccount", "app")
        self.assertUnauthorized(token)
        rows = whoami_rows(self.k.ok("--token", self.kc("create", "token", "app").strip(), "auth", "whoami"))
        self.assertEqual(rows["Username"], "system:serviceaccount:apps:app")
        self.assertNotEqual(rows["UID"], uid)

    def test_malformed_tokens_are_unauthorized(self):
        for token in ("a.b.c", "Bearer garbage", "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"):
            self.assertUnauthorized(token)
            r = self.api.get(lease_path(self.NS), token=token)
            body = self.assertStatus(r, 401, "Unauthorized", what=token)
            self.assertEqual(body.get("message"), "Unauthorized")

    def test_token_requests_are_validated(self):
        self.kc("create", "serviceaccount", "short-lived")
        r = self.k.fails("-n", self.NS, "create", "token", "short-lived", "--duration=1m")
        self.assertIn('error: failed to create token: TokenRequest.authentication.k8s.io "short-lived" is invalid: '
                      'spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
                      r.stderr, r.describe())
        r = self.k.fails("-n", self.NS, "create", "token", "nobody")
        self.assertIn('error: failed to create token: serviceaccounts "nobody" not found', r.stderr, r.describe())


# =================================================================================================
# 5. The official Python client
# =================================================================================================

class PythonClientTest(RbacServerTestCase):
    NS = "py"

    @classmethod
    def setUpClass(cls) -> None:
        try:
            from kubernetes import client, config  # noqa: F401
        except ImportError as e:
            raise unittest.SkipTest(f"python3-kubernetes is not installed ({e})")
        super().setUpClass()
        cls.admin_namespace(cls.NS)
        # bob may create leases, and read and update only the one called py-lock.
        cls.admin_create(rbac_path("roles", cls.NS),
                         role("py-lock-owner", [rule(["create"], ["leases"]),
                                                rule(["get", "update"], ["leases"], names=["py-lock"])], cls.NS))
        cls.admin_create(rbac_path("rolebindings", cls.NS),
                         binding("bob-py-lock-owner", "Role", "py-lock-owner", [user("bob")], cls.NS))
        cls.admin_create(lease_path(cls.NS), lease_body("someone-elses", holder="admin"))
        cls.admin_client = config.new_client_from_config(config_file=cls.server.kubeconfig)
        cls.addClassCleanup(close_api_client, cls.admin_client)
        cls.bob_client = cls.bearer_client("bob-token")

    @classmethod
    def bearer_client(cls, token: str):
        from kubernetes import client
        cfg = client.Configuration()
        cfg.host = f"https://127.0.0.1:{cls.server.port}"
        cfg.ssl_ca_cert = cls.server.cafile
        cfg.api_key = {"authorization": f"Bearer {token}"}
        api_client = client.ApiClient(cfg)
        cls.addClassCleanup(close_api_client, api_client)
        return api_client

    @staticmethod
    def whoami(api_client) -> dict:
        review = api_client.call_api(f"{AUTHENTICATION}/selfsubjectreviews", "POST",
                                     body={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"},
                                     response_type="object", auth_settings=["BearerToken"],
                                     _return_http_data_only=True)
        return review["status"]["userInfo"]

    def assertApiForbidden(self, call, message: str) -> None:
        from kubernetes.client.rest import ApiException
        with self.assertRaises(ApiException) as caught:
            call()
        self.assertEqual(caught.exception.status, 403, caught.exception.body)
        body = json.loads(caught.exception.body)
        self.assertEqual((body["reason"], body["message"]), ("Forbidden", message))

    def test_access_and_rules_reviews(self):
        from kubernetes import client
        authz = client.AuthorizationV1Api(self.bob_client)

        def allowed(verb: str, name: str) -> bool:
            spec = client.V1SelfSubjectAccessReviewSpec(resource_attributes=client.V1ResourceAttributes(
                namespace=self.NS, verb=verb, group=COORDINATION, resource="leases", name=name))
            return authz.create_self_subject_access_review(client.V1SelfSubjectAccessReview(spec=spec)).status.allowed

        self.assertTrue(allowed("update", "py-lock"))
        self.assertFalse(allowed("update", "someone-elses"))
        self.assertFalse(allowed("delete", "py-lock"))

        rules = authz.create_self_subject_rules_review(client.V1SelfSubjectRulesReview(
            spec=client.V1SelfSubjectRulesReviewSpec(namespace=self.NS))).status
        self.assertFalse(rules.incomplete)
        lease_rules = sorted((r.verbs, r.resource_names) for r in rules.resource_rules if r.resources == ["leases"])
        self.assertEqual(lease_rules, [(["create"], None), (["get", "update"], ["py-lock"])])

        admin_authz = client.AuthorizationV1Api(self.admin_client)
        attrs = client.V1ResourceAttributes(namespace=self.NS, verb="update", group=COORDINATION, resource="leases",
                                            name="py-lock")
        review = admin_authz.create_subject_access_review(client.V1SubjectAccessReview(
            spec=client.V1SubjectAccessReviewSpec(user="bob", resource_attributes=attrs)))
        self.assertEqual((review.status.allowed, review.status.reason),
                         (True, 'RBAC: allowed by RoleBinding "bob-py-lock-owner/py" of Role "py-lock-owner" to User "bob"'))
        review = admin_authz.create_subject_access_review(client.V1SubjectAccessReview(
            spec=client.V1SubjectAccessReviewSpec(user="alice", resource_attributes=attrs)))
        self.assertFalse(review.status.allowed)

    def test_a_resource_names_role_allows_its_lease_only(self):
        from kubernetes import client
        coordination = client.CoordinationV1Api(self.bob_client)
        created = coordination.create_namespaced_lease(self.NS, client.V1Lease(
            metadata=client.V1ObjectMeta(name="py-lock"),
            spec=client.V1LeaseSpec(holder_identity="bob", lease_duration_seconds=15)))
        self.assertEqual(created.spec.holder_identity, "bob")
        lease = coordination.read_namespaced_lease("py-lock", self.NS)
        lease.spec.lease_transitions = 1
        replaced = coordination.replace_namespaced_lease("py-lock", self.NS, lease)
        self.assertEqual(replaced.spec.lease_transitions, 1)

        self.assertApiForbidden(lambda: coordination.read_namespaced_lease("someone-elses", self.NS),
                                lease_forbidden("bob", "get", self.NS, "someone-elses"))
        self.assertApiForbidden(lambda: coordination.replace_namespaced_lease("someone-elses", self.NS, client.V1Lease(
                                    metadata=client.V1ObjectMeta(name="someone-elses"),
                                    spec=client.V1LeaseSpec(holder_identity="bob"))),
                                lease_forbidden("bob", "update", self.NS, "someone-elses"))
        self.assertApiForbidden(lambda: coordination.delete_namespaced_lease("py-lock", self.NS),
                                lease_forbidden("bob", "delete", self.NS, "py-lock"))
        self.assertApiForbidden(lambda: coordination.create_namespaced_lease("default", client.V1Lease(
                                    metadata=client.V1ObjectMeta(name="py-lock"))),
                                lease_forbidden("bob", "create", "default"))

    def test_a_service_account_token_from_a_token_request(self):
        from kubernetes import client
        core = client.CoreV1Api(self.admin_client)
        account = core.create_namespaced_service_account(self.NS, client.V1ServiceAccount(
            metadata=client.V1ObjectMeta(name="py-app")))
        request = core.create_namespaced_service_account_token("py-app", self.NS, client.AuthenticationV1TokenRequest(
            spec=client.V1TokenRequestSpec(audiences=[], expiration_seconds=900)))
        app_client = self.bearer_client(request.status.token)
        self.assertEqual(self.whoami(app_client), {
            "username": "system:serviceaccount:py:py-app", "uid": account.metadata.uid,
            "groups": ["system:serviceaccounts", "system:serviceaccounts:py", "system:authenticated"]})

        coordination = client.CoordinationV1Api(app_client)
        self.assertApiForbidden(lambda: coordination.read_namespaced_lease("someone-elses", self.NS),
                                lease_forbidden("system:serviceaccount:py:py-app", "get", self.NS, "someone-elses"))
        client.RbacAuthorizationV1Api(self.admin_client).create_namespaced_role_binding(self.NS, client.V1RoleBinding(
            metadata=client.V1ObjectMeta(name="py-app-edit"),
            role_ref=client.V1RoleRef(api_group="rbac.authorization.k8s.io", kind="ClusterRole", name="edit"),
            subjects=[client.V1Subject(kind="ServiceAccount", name="py-app", namespace=self.NS)]))
        self.assertEqual(coordination.read_namespaced_lease("someone-elses", self.NS).spec.holder_identity, "admin")

    def test_whoami(self):
        self.assertEqual(self.whoami(self.bob_client),
                         {"username": "bob", "uid": "1002", "groups": ["system:authenticated"]})
        self.assertEqual(self.whoami(self.admin_client),
                         {"username": "tenure-admin", "groups": ["system:masters", "system:authenticated"]})


# =================================================================================================
# 6. One application's lease is out of another's reach
# =================================================================================================

class LeaseIsolationTest(RbacServerTestCase):
    NS = "elections"
    APPS = ("app-a", "app-b")

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.admin_namespace(cls.NS)
        for app in cls.APPS:
            cls.admin_create(lease_path(cls.NS), lease_body(app, holder="nobody"))
            cls.admin_create(rbac_path("roles", cls.NS),
                             role(f"{app}-lease", [rule(["get", "update", "patch", "watch"], ["leases"], names=[app])],
                                  cls.NS))
            cls.admin_create(rbac_path("rolebindings", cls.NS),
                             binding(f"{app}-lease", "Role", f"{app}-lease", [user(app)], cls.NS))

    def test_each_application_renews_its_own_lease_and_cannot_touch_the_other(self):
        for app, other in (self.APPS, tuple(reversed(self.APPS))):
            token = f"{app}-token"
            with self.subTest(app=app):
                r = self.api.get(lease_path(self.NS, app), token=token)
                self.assertEqual(r.status, 200, r.describe())
                mine = r.body
                mine["spec"]["holderIdentity"] = f"{app}-replica-1"
                r = self.api.put(lease_path(self.NS, app), mine, token=token)
                self.assertEqual((r.status, r.body["spec"]["holderIdentity"]), (200, f"{app}-replica-1"),
                                 r.describe())
                r = self.api.patch(lease_path(self.NS, app), {"spec": {"leaseTransitions": 1}}, token=token)
                self.assertEqual((r.status, r.body["spec"]["leaseTransitions"]), (200, 1), r.describe())

                self.assertForbidden(self.api.get(lease_path(self.NS, other), token=token),
                                     lease_forbidden(app, "get", self.NS, other))
                self.assertForbidden(self.api.put(lease_path(self.NS, other), lease_body(other, holder=app),
                                                  token=token),
                                     lease_forbidden(app, "update", self.NS, other))
                self.assertForbidden(self.api.patch(lease_path(self.NS, other), {"spec": {"holderIdentity": app}},
                                                    token=token),
                                     lease_forbidden(app, "patch", self.NS, other))
                self.assertForbidden(self.api.delete(lease_path(self.NS, other), token=token),
                                     lease_forbidden(app, "delete", self.NS, other))
        # Nothing of the other application's lease changed.
        for app in self.APPS:
            r = self.api.get(lease_path(self.NS, app))
            self.assertEqual((r.body["spec"]["holderIdentity"], r.body["spec"]["leaseTransitions"]),
                             (f"{app}-replica-1", 1))


if __name__ == "__main__":
    unittest.main()
