// Over the wire: answers that follow kube-apiserver where clients other than kubectl notice:
// unknown-field warnings under the default field validation, dry-run creates, write options.
#include <gtest/gtest.h>

#include <string>

#include "server/test_server_fixture.h"

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

}  // namespace
}  // namespace tenure::server::testing
