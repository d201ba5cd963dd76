// Over the wire: answers that follow kube-apiserver where clients other than kubectl notice:
// unknown-field warnings under the default field validation, dry-run creates, write options.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "api/kinds.h"
#include "server/test_server_fixture.h"
#include "server/warnings.h"

namespace tenure::server::testing {
namespace {

using nlohmann::json;

class ApiFidelityTest : public ServerFixture {
 protected:
  static constexpr const char* kLeases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

  static std::string LeaseWithUnknownField(const std::string& name, const std::string& rv = "") {
    json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                  {"kind", "Lease"},
                  {"metadata", {{"name", name}}},
                  {"spec", {{"holderIdentity", "a"}, {"foo", 1}}}};
    if (!rv.empty()) lease["metadata"]["resourceVersion"] = rv;
    return lease.dump();
  }
};

TEST_F(ApiFidelityTest, UnknownFieldsAreWarnedAboutUnlessIgnoredOrStrict) {
  client::HttpConnection c(endpoint());
  client::HttpReply created = Send(c, "POST", kLeases, LeaseWithUnknownField("warned"));
  EXPECT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.headers["warning"], R"(299 - "unknown field \"spec.foo\"")");

  // The warning comes with a refused update too (a Lease needs its resourceVersion).
  client::HttpReply refused =
      Send(c, "PUT", std::string(kLeases) + "/warned", LeaseWithUnknownField("warned"));
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_EQ(refused.headers["warning"], R"(299 - "unknown field \"spec.foo\"")");
  const std::string rv = json::parse(created.body)["metadata"].value("resourceVersion", "");
  client::HttpReply warn = Send(c, "PUT", std::string(kLeases) + "/warned?fieldValidation=Warn",
                                LeaseWithUnknownField("warned", rv));
  EXPECT_EQ(warn.status, 200) << warn.body;
  EXPECT_EQ(warn.headers["warning"], R"(299 - "unknown field \"spec.foo\"")");

  client::HttpReply ignored = Send(c, "POST", std::string(kLeases) + "?fieldValidation=Ignore",
                                   LeaseWithUnknownField("ignored"));
  EXPECT_EQ(ignored.status, 201) << ignored.body;
  EXPECT_EQ(ignored.headers.count("warning"), 0u);

  client::HttpReply strict = Send(c, "POST", std::string(kLeases) + "?fieldValidation=Strict",
                                  LeaseWithUnknownField("strict"));
  EXPECT_EQ(strict.status, 400);
  EXPECT_EQ(strict.headers.count("warning"), 0u);

  // A merge patch's unknown field is warned about too.
  client::HttpReply patched = Send(c, "PATCH", std::string(kLeases) + "/warned",
                                   R"({"spec":{"bar":true}})", "application/merge-patch+json");
  EXPECT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(patched.headers["warning"], R"(299 - "unknown field \"spec.bar\"")");
}

TEST_F(ApiFidelityTest, ADryRunCreateIsNotStoredAndHasNoResourceVersion) {
  client::HttpConnection c(endpoint());
  const std::string lease = R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",)"
                            R"("metadata":{"generateName":"dry-"},"spec":{}})";
  client::HttpReply reply = Send(c, "POST", std::string(kLeases) + "?dryRun=All", lease);
  ASSERT_EQ(reply.status, 201) << reply.body;
  json object = json::parse(reply.body);
  const json& meta = object["metadata"];
  EXPECT_FALSE(meta.contains("resourceVersion")) << meta.dump();
  EXPECT_TRUE(meta.contains("uid"));
  EXPECT_TRUE(meta.contains("creationTimestamp"));
  const std::string name = meta.value("name", "");
  ASSERT_EQ(name.rfind("dry-", 0), 0u) << name;
  int status = 0;
  Call(c, "GET", std::string(kLeases) + "/" + name, "", &status);
  EXPECT_EQ(status, 404);

  // A name that is taken is AlreadyExists, dry run or not.
  const std::string taken = R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",)"
                            R"("metadata":{"name":"taken"},"spec":{}})";
  ASSERT_EQ(Send(c, "POST", kLeases, taken).status, 201);
  client::HttpReply again = Send(c, "POST", std::string(kLeases) + "?dryRun=All", taken);
  EXPECT_EQ(again.status, 409) << again.body;
  EXPECT_EQ(json::parse(again.body).value("message", ""),
            R"(leases.coordination.k8s.io "taken" already exists)");
}

TEST_F(ApiFidelityTest, ADryRunDeleteChecksItsPreconditionAndDeletesNothing) {
  client::HttpConnection c(endpoint());
  const std::string lease = R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",)"
                            R"("metadata":{"name":"kept"},"spec":{}})";
  client::HttpReply created = Send(c, "POST", kLeases, lease);
  ASSERT_EQ(created.status, 201);
  const std::string rv = json::parse(created.body)["metadata"].value("resourceVersion", "");
  const std::string object = std::string(kLeases) + "/kept";
  auto options = [](const std::string& precondition) {
    return json{{"apiVersion", "v1"},
                {"kind", "DeleteOptions"},
                {"dryRun", {"All"}},
                {"preconditions", {{"resourceVersion", precondition}}}}
        .dump();
  };
  client::HttpReply stale = Send(c, "DELETE", object, options(std::to_string(std::stoll(rv) + 7)));
  EXPECT_EQ(stale.status, 409) << stale.body;
  client::HttpReply current = Send(c, "DELETE", object, options(rv));
  EXPECT_EQ(current.status, 200) << current.body;
  // The body's DeleteOptions rule, as in kube: a dryRun in the query does not count with a body.
  int status = 0;
  Call(c, "GET", object, "", &status);
  EXPECT_EQ(status, 200);
  client::HttpReply deleted =
      Send(c, "DELETE", object + "?dryRun=All", R"({"apiVersion":"v1","kind":"DeleteOptions"})");
  EXPECT_EQ(deleted.status, 200) << deleted.body;
  Call(c, "GET", object, "", &status);
  EXPECT_EQ(status, 404);
}

TEST_F(ApiFidelityTest, AnApplyBodyMayBeYaml) {
  client::HttpConnection c(endpoint());
  const std::string apply = std::string(kLeases) + "/from-yaml?fieldManager=yaml-user";
  const std::string yaml =
      "apiVersion: coordination.k8s.io/v1\n"
      "kind: Lease\n"
      "metadata:\n"
      "  name: from-yaml\n"
      "  labels: {app: demo}\n"
      "spec:\n"
      "  holderIdentity: a\n"
      "  leaseDurationSeconds: 15\n";
  client::HttpReply applied = Send(c, "PATCH", apply, yaml, "application/apply-patch+yaml");
  ASSERT_EQ(applied.status, 201) << applied.body;
  json lease = json::parse(applied.body);
  EXPECT_EQ(lease["spec"]["leaseDurationSeconds"], 15);
  EXPECT_EQ(lease["metadata"]["labels"]["app"], "demo");
  // JSON is YAML too; a body that is neither is kube's 400.
  client::HttpReply bad =
      Send(c, "PATCH", apply, "spec: [unclosed", "application/apply-patch+yaml");
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_EQ(json::parse(bad.body)["message"].get<std::string>().rfind("error decoding YAML: ", 0),
            0u)
      << bad.body;
  // Nine levels of ten aliases each: 10^10 values from a few hundred bytes.
  std::string laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    laughs += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) laughs += (j ? ", *a" : "*a") + std::to_string(i - 1);
    laughs += "]\n";
  }
  client::HttpReply aliases = Send(c, "PATCH", apply, laughs, "application/apply-patch+yaml");
  EXPECT_EQ(aliases.status, 400) << aliases.body;
  EXPECT_EQ(json::parse(aliases.body)["message"],
            "error decoding YAML: error converting YAML to JSON: yaml: document contains excessive "
            "aliasing");
}

TEST_F(ApiFidelityTest, DeleteOptionsAreValidatedAsKubeDoes) {
  client::HttpConnection c(endpoint());
  ASSERT_EQ(Send(c, "POST", kLeases, LeaseWithUnknownField("kept")).status, 201);
  client::HttpReply bad =
      Send(c, "DELETE", std::string(kLeases) + "/kept?propagationPolicy=Sometimes", "");
  EXPECT_EQ(bad.status, 422) << bad.body;
  EXPECT_EQ(json::parse(bad.body)["message"],
            "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: "
            "\"Sometimes\": supported values: \"Foreground\", \"Background\", \"Orphan\", "
            "\"nil\"");
  client::HttpReply both = Send(c, "DELETE", std::string(kLeases) + "/kept",
                                R"({"propagationPolicy":"Orphan","orphanDependents":true})");
  EXPECT_EQ(both.status, 422) << both.body;
  EXPECT_EQ(json::parse(both.body)["message"],
            "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Invalid value: "
            "\"Orphan\": orphanDependents and deletionPropagation cannot be both set");
  EXPECT_EQ(Send(c, "GET", std::string(kLeases) + "/kept", "").status, 200);
  EXPECT_EQ(
      Send(c, "DELETE", std::string(kLeases) + "/kept?propagationPolicy=Background", "").status,
      200);
  // An unsupported patch type is 415 before any option is judged (kube's PatchResource).
  client::HttpReply media =
      Send(c, "PATCH", std::string(kLeases) + "/kept?fieldValidation=bad", "{}", "text/plain");
  EXPECT_EQ(media.status, 415) << media.body;
  // ... and before a response format that cannot be served (406).
  auto h = headers();
  h[1].second = "text/plain";
  h[2].second = "text/html";
  auto unacceptable =
      c.Request("PATCH", std::string(kLeases) + "/kept", h, "{}", std::chrono::seconds(10));
  ASSERT_TRUE(unacceptable.ok());
  EXPECT_EQ(unacceptable->status, 415) << unacceptable->body;
  h[1].second = "application/merge-patch+json";
  auto plain = c.Request("GET", std::string(kLeases) + "/kept", h, "", std::chrono::seconds(10));
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->status, 406) << plain->body;
}

TEST_F(ApiFidelityTest, BadWriteOptionsAre422OnTheOptionsKind) {
  client::HttpConnection c(endpoint());
  const std::string lease = R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",)"
                            R"("metadata":{"name":"o"},"spec":{}})";
  client::HttpReply reply = Send(c, "POST", std::string(kLeases) + "?fieldValidation=warn", lease);
  EXPECT_EQ(reply.status, 422);
  EXPECT_EQ(json::parse(reply.body).value("message", ""),
            R"(CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: )"
            R"("warn": supported values: "", "Ignore", "Strict", "Warn")");
  reply = Send(c, "PATCH", std::string(kLeases) + "/o", R"({"spec":{}})",
               "application/apply-patch+yaml");
  EXPECT_EQ(reply.status, 422);
  EXPECT_EQ(json::parse(reply.body).value("message", ""),
            R"(PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is )"
            R"(required for apply patch)");
}

TEST_F(ApiFidelityTest, ServerSideApplyOwnsFieldsAndConflictsAsKubeDoes) {
  client::HttpConnection c(endpoint());
  const std::string lease = std::string(kLeases) + "/owned";
  const std::string config_a =
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"owned"},)"
      R"("spec":{"holderIdentity":"a","leaseDurationSeconds":10}})";
  client::HttpReply a =
      Send(c, "PATCH", lease + "?fieldManager=mgrA", config_a, "application/apply-patch+yaml");
  ASSERT_EQ(a.status, 201) << a.body;
  json entries = json::parse(a.body)["metadata"]["managedFields"];
  ASSERT_EQ(entries.size(), 1u) << a.body;
  EXPECT_EQ(entries[0]["manager"], "mgrA");
  EXPECT_EQ(entries[0]["operation"], "Apply");
  EXPECT_EQ(entries[0]["fieldsV1"],
            json::parse(R"({"f:spec":{"f:holderIdentity":{},"f:leaseDurationSeconds":{}}})"));

  // The same configuration again changes nothing, resourceVersion included.
  client::HttpReply again =
      Send(c, "PATCH", lease + "?fieldManager=mgrA", config_a, "application/apply-patch+yaml");
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(json::parse(again.body)["metadata"]["resourceVersion"],
            json::parse(a.body)["metadata"]["resourceVersion"]);

  const std::string config_b =
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"owned"},)"
      R"("spec":{"holderIdentity":"b"}})";
  client::HttpReply conflict =
      Send(c, "PATCH", lease + "?fieldManager=mgrB", config_b, "application/apply-patch+yaml");
  EXPECT_EQ(conflict.status, 409);
  EXPECT_EQ(json::parse(conflict.body),
            json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
              "message":"Apply failed with 1 conflict: conflict with \"mgrA\": .spec.holderIdentity",
              "reason":"Conflict","details":{"causes":[{"reason":"FieldManagerConflict",
              "message":"conflict with \"mgrA\"","field":".spec.holderIdentity"}]},"code":409})"))
      << conflict.body;

  client::HttpReply forced = Send(c, "PATCH", lease + "?fieldManager=mgrB&force=true", config_b,
                                  "application/apply-patch+yaml");
  ASSERT_EQ(forced.status, 200) << forced.body;
  EXPECT_EQ(json::parse(forced.body)["spec"]["holderIdentity"], "b");

  // An update without fieldManager is its User-Agent's; it takes the field it changes.
  json current = json::parse(forced.body);
  current["spec"]["leaseDurationSeconds"] = 20;
  client::HttpReply updated = Send(c, "PUT", lease, current.dump(), "application/json",
                                   {{"User-Agent", "my-controller/v1.2 (linux/amd64)"}});
  ASSERT_EQ(updated.status, 200) << updated.body;
  std::map<std::string, json> by_manager;
  const json updated_lease = json::parse(updated.body);
  for (const json& e : updated_lease["metadata"]["managedFields"]) {
    by_manager[e["manager"].get<std::string>()] = e;
  }
  ASSERT_EQ(by_manager.size(), 2u) << updated.body;  // mgrA gave up its last field
  EXPECT_EQ(by_manager["my-controller"]["operation"], "Update");
  EXPECT_EQ(by_manager["my-controller"]["fieldsV1"],
            json::parse(R"({"f:spec":{"f:leaseDurationSeconds":{}}})"));
  EXPECT_EQ(by_manager["mgrB"]["fieldsV1"], json::parse(R"({"f:spec":{"f:holderIdentity":{}}})"));

  // Entries a client writes are validated as kube's ValidateManagedFields does.
  json renamed = json::parse(updated.body);
  renamed["metadata"]["managedFields"][0]["manager"] = std::string(129, 'm');
  client::HttpReply invalid = Send(c, "PUT", lease, renamed.dump());
  EXPECT_EQ(invalid.status, 422) << invalid.body;
  EXPECT_NE(
      json::parse(invalid.body)
          .value("message", "")
          .find("metadata.managedFields[0].manager: Too long: may not be more than 128 bytes"),
      std::string::npos)
      << invalid.body;

  client::HttpReply too_long = Send(c, "PATCH", lease + "?fieldManager=" + std::string(129, 'm'),
                                    config_b, "application/apply-patch+yaml");
  EXPECT_EQ(too_long.status, 422);
  EXPECT_EQ(json::parse(too_long.body).value("message", ""),
            R"(PatchOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more )"
            R"(than 128 bytes)");
}

// The server's own objects (built-in namespaces, the default RBAC policy) record their manager
// as kube-apiserver's do.
TEST_F(ApiFidelityTest, TheServersOwnObjectsRecordItsWrites) {
  client::HttpConnection c(endpoint());
  for (const char* path : {"/api/v1/namespaces/default",
                           "/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin"}) {
    int status = 0;
    json object = Call(c, "GET", path, "", &status);
    ASSERT_EQ(status, 200) << path;
    ASSERT_TRUE(object["metadata"].contains("managedFields")) << object.dump();
    const json& entry = object["metadata"]["managedFields"][0];
    EXPECT_EQ(entry["manager"], "tenure") << path;
    EXPECT_EQ(entry["operation"], "Update") << path;
  }
}

// kube-apiserver warns on every request to a version its release has deprecated:
// LeaseCandidate v1alpha2 from 1.35, v1beta1 from 1.36 (neither yet at the default 1.33).
class DeprecationTest : public ServerFixture {
 protected:
  void Configure(ServerOptions& options) override { options.version.minor = 35; }
};

TEST_F(DeprecationTest, ADeprecatedVersionIsWarnedAboutOnEveryRequest) {
  client::HttpConnection c(endpoint());
  const std::string alpha = "/apis/coordination.k8s.io/v1alpha2/namespaces/default/leasecandidates";
  client::HttpReply listed = Send(c, "GET", alpha, "");
  EXPECT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(listed.headers["warning"],
            R"(299 - "coordination.k8s.io/v1alpha2 LeaseCandidate is deprecated in v1.35+, )"
            R"(unavailable in v1.38+")");
  client::HttpReply missing = Send(c, "GET", alpha + "/none", "");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.headers.count("warning"), 1u);
  client::HttpReply beta =
      Send(c, "GET", "/apis/coordination.k8s.io/v1beta1/namespaces/default/leasecandidates", "");
  EXPECT_EQ(beta.status, 200);
  EXPECT_EQ(beta.headers.count("warning"), 0u);
  EXPECT_EQ(DeprecationWarning(api::LeaseCandidateKind(), "v1beta1", 36),
            "coordination.k8s.io/v1beta1 LeaseCandidate is deprecated in v1.36+, unavailable in "
            "v1.39+");
  EXPECT_EQ(DeprecationWarning(api::LeaseCandidateKind(), "v1alpha2", 33), "");
}

}  // namespace
}  // namespace tenure::server::testing
