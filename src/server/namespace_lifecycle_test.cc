// Over the wire: a namespace's deletion through the Terminating phase, as kube-apiserver and its
// namespace controller do it: marked, its content removed, then the namespace gone; nothing new
// enters it meanwhile; a second delete is 409; the finalize subresource.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "server/test_server_fixture.h"

namespace tenure::server::testing {
namespace {

using nlohmann::json;

class NamespaceLifecycleTest : public ServerFixture {
 protected:
  static std::string Namespace(const std::string& name, const json& finalizers = nullptr) {
    json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
    if (!finalizers.is_null()) ns["spec"]["finalizers"] = finalizers;
    return ns.dump();
  }
  static std::string ConfigMap(const std::string& name) {
    return json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}}.dump();
  }

  // Polls until `done` or 10 s passed (the controller works in the background).
  template <typename F>
  bool Eventually(F done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return done();
  }

  int StatusOf(client::HttpConnection& c, const std::string& method, const std::string& path,
               const std::string& body = "") {
    int status = 0;
    Call(c, method, path, body, &status);
    return status;
  }
};

TEST_F(NamespaceLifecycleTest, ADeletedNamespaceTerminatesLosesItsContentAndGoes) {
  client::HttpConnection c(endpoint());
  ASSERT_EQ(StatusOf(c, "POST", "/api/v1/namespaces", Namespace("doomed")), 201);
  ASSERT_EQ(StatusOf(c, "POST", "/api/v1/namespaces/doomed/configmaps", ConfigMap("cm")), 201);
  ASSERT_EQ(StatusOf(c, "POST", "/api/v1/namespaces/kept/configmaps", ConfigMap("cm")), 404);
  int status = 0;
  json marked = Call(c, "DELETE", "/api/v1/namespaces/doomed", "", &status);
  ASSERT_EQ(status, 200) << marked.dump();
  EXPECT_EQ(marked["kind"], "Namespace");
  EXPECT_TRUE(marked["metadata"].contains("deletionTimestamp")) << marked.dump();
  EXPECT_EQ(marked["status"]["phase"], "Terminating");
  EXPECT_TRUE(Eventually([&] {
    return StatusOf(c, "GET", "/api/v1/namespaces/doomed") == 404 &&
           StatusOf(c, "GET", "/api/v1/namespaces/doomed/configmaps/cm") == 404;
  }));
  // The name can be used again.
  EXPECT_EQ(StatusOf(c, "POST", "/api/v1/namespaces", Namespace("doomed")), 201);
  EXPECT_EQ(StatusOf(c, "GET", "/api/v1/namespaces/doomed/configmaps/cm"), 404);
}

TEST_F(NamespaceLifecycleTest, ATerminatingNamespaceRefusesNewContentAndASecondDelete) {
  client::HttpConnection c(endpoint());
  // Another finalizer keeps the namespace Terminating once its content is gone.
  ASSERT_EQ(StatusOf(c, "POST", "/api/v1/namespaces",
                     Namespace("held", json::array({"example.com/hold"}))),
            201);
  int status = 0;
  json created = Call(c, "GET", "/api/v1/namespaces/held", "", &status);
  EXPECT_EQ(created["spec"]["finalizers"], json::array({"example.com/hold", "kubernetes"}));
  ASSERT_EQ(
      StatusOf(c, "POST", "/apis/coordination.k8s.io/v1/namespaces/held/leases",
               R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"}})"),
      201);
  ASSERT_EQ(StatusOf(c, "DELETE", "/api/v1/namespaces/held"), 200);
  ASSERT_TRUE(Eventually([&] {
    json ns = Call(c, "GET", "/api/v1/namespaces/held", "");
    return ns["spec"]["finalizers"] == json::array({"example.com/hold"});
  }));
  EXPECT_EQ(StatusOf(c, "GET", "/apis/coordination.k8s.io/v1/namespaces/held/leases/l"), 404);

  json refused = Call(c, "POST", "/api/v1/namespaces/held/configmaps", ConfigMap("late"), &status);
  EXPECT_EQ(status, 403) << refused.dump();
  EXPECT_EQ(refused["message"],
            "configmaps \"late\" is forbidden: unable to create new content in namespace held "
            "because it is being terminated");
  EXPECT_EQ(refused["details"]["causes"][0],
            (json{{"reason", "NamespaceTerminating"},
                  {"message", "namespace held is being terminated"},
                  {"field", "metadata.namespace"}}));

  json again = Call(c, "DELETE", "/api/v1/namespaces/held", "", &status);
  EXPECT_EQ(status, 409) << again.dump();
  EXPECT_EQ(again["message"],
            "Operation cannot be fulfilled on namespaces \"held\": The system is ensuring all "
            "content is removed from this namespace.  Upon completion, this namespace will "
            "automatically be purged by the system.");

  // A plain update changes neither the finalizers nor the phase, nor the deletion timestamp.
  json ns = Call(c, "GET", "/api/v1/namespaces/held", "");
  json update = ns;
  update["spec"]["finalizers"] = json::array();
  update["status"]["phase"] = "Active";
  update["metadata"].erase("deletionTimestamp");
  json updated = Call(c, "PUT", "/api/v1/namespaces/held", update.dump(), &status);
  ASSERT_EQ(status, 200) << updated.dump();
  EXPECT_EQ(updated["spec"]["finalizers"], json::array({"example.com/hold"}));
  EXPECT_EQ(updated["status"]["phase"], "Terminating");
  EXPECT_EQ(updated["metadata"]["deletionTimestamp"], ns["metadata"]["deletionTimestamp"]);

  // The finalize subresource removes the last finalizer; then the namespace goes.
  EXPECT_EQ(StatusOf(c, "GET", "/api/v1/namespaces/held/finalize"), 405);
  json finalize = updated;
  finalize["spec"]["finalizers"] = json::array();
  json bogus = updated;
  bogus["spec"]["finalizers"] = json::array({"bogus"});
  EXPECT_EQ(StatusOf(c, "PUT", "/api/v1/namespaces/held/finalize", bogus.dump()), 422);
  json finalized = Call(c, "PUT", "/api/v1/namespaces/held/finalize", finalize.dump(), &status);
  ASSERT_EQ(status, 200) << finalized.dump();
  EXPECT_EQ(finalized["spec"].value("finalizers", json::array()), json::array());
  EXPECT_EQ(finalized["status"]["phase"], "Terminating");
  EXPECT_TRUE(Eventually([&] { return StatusOf(c, "GET", "/api/v1/namespaces/held") == 404; }));
  EXPECT_EQ(StatusOf(c, "PUT", "/api/v1/namespaces/held/finalize", finalize.dump()), 404);
}

TEST_F(NamespaceLifecycleTest, OnlyNamespacesHaveAFinalizeSubresource) {
  client::HttpConnection c(endpoint());
  ASSERT_EQ(StatusOf(c, "POST", "/api/v1/namespaces/default/configmaps", ConfigMap("cm")), 201);
  EXPECT_EQ(
      StatusOf(c, "PUT", "/api/v1/namespaces/default/configmaps/cm/finalize", ConfigMap("cm")),
      404);
}

// namespaces/status was not served (404): kube serves GET, PUT and PATCH there, writing the
// status only, with the phase following the deletion timestamp.
TEST_F(NamespaceLifecycleTest, TheStatusSubresourceWritesTheStatusOnly) {
  client::HttpConnection c(endpoint());
  ASSERT_EQ(StatusOf(c, "POST", "/api/v1/namespaces", Namespace("stat")), 201);
  int status = 0;
  json ns = Call(c, "GET", "/api/v1/namespaces/stat/status", "", &status);
  ASSERT_EQ(status, 200) << ns.dump();
  EXPECT_EQ(ns["kind"], "Namespace");

  ns["spec"]["finalizers"] = json::array();  // ignored: the spec is not the status's
  ns["status"]["conditions"] = json::array(
      {{{"type", "NamespaceContentRemaining"}, {"status", "False"}, {"reason", "ContentDeleted"}}});
  json written = Call(c, "PUT", "/api/v1/namespaces/stat/status", ns.dump(), &status);
  ASSERT_EQ(status, 200) << written.dump();
  EXPECT_EQ(written["spec"]["finalizers"], json::array({"kubernetes"}));
  EXPECT_EQ(written["status"]["conditions"][0]["type"], "NamespaceContentRemaining");

  written["status"]["phase"] = "Terminating";
  json refused = Call(c, "PUT", "/api/v1/namespaces/stat/status", written.dump(), &status);
  EXPECT_EQ(status, 422);
  EXPECT_EQ(refused["message"],
            "Namespace \"stat\" is invalid: status.Phase: Invalid value: \"Terminating\": may "
            "only be 'Active' if `deletionTimestamp` is empty");

  json patched = Call(c, "PATCH", "/api/v1/namespaces/stat/status",
                      R"({"status":{"conditions":null},"metadata":{"labels":{"a":"b"}}})", &status);
  ASSERT_EQ(status, 200) << patched.dump();
  EXPECT_FALSE(patched["status"].contains("conditions"));
  EXPECT_EQ(StatusOf(c, "DELETE", "/api/v1/namespaces/stat/status"), 405);
}

// A namespace held by another finalizer stays Terminating once its content is gone: it says so
// with kube's deletion conditions (kubectl describe shows them).
TEST_F(NamespaceLifecycleTest, ATerminatingNamespaceCarriesKubesDeletionConditions) {
  client::HttpConnection c(endpoint());
  ASSERT_EQ(StatusOf(c, "POST", "/api/v1/namespaces",
                     Namespace("kept", json::array({"example.com/keep"}))),
            201);
  ASSERT_EQ(StatusOf(c, "POST", "/api/v1/namespaces/kept/configmaps", ConfigMap("cm")), 201);
  ASSERT_EQ(StatusOf(c, "DELETE", "/api/v1/namespaces/kept"), 200);
  json ns;
  ASSERT_TRUE(Eventually([&] {
    ns = Call(c, "GET", "/api/v1/namespaces/kept", "");
    return ns["spec"]["finalizers"] == json::array({"example.com/keep"});
  })) << ns.dump();
  EXPECT_EQ(ns["status"]["phase"], "Terminating");
  std::vector<std::string> types, statuses;
  for (const json& condition : ns["status"]["conditions"]) {
    types.push_back(condition["type"]);
    statuses.push_back(condition["status"]);
    EXPECT_TRUE(condition.contains("lastTransitionTime")) << condition.dump();
  }
  EXPECT_EQ(types,
            (std::vector<std::string>{
                "NamespaceDeletionDiscoveryFailure", "NamespaceDeletionGroupVersionParsingFailure",
                "NamespaceDeletionContentFailure", "NamespaceContentRemaining",
                "NamespaceFinalizersRemaining"}));
  EXPECT_EQ(statuses, std::vector<std::string>(5, "False"));
  EXPECT_EQ(ns["status"]["conditions"][3]["message"], "All content successfully removed");
  // Written as kube's controller writes them: through status and finalize, each recorded.
  std::map<std::string, json> by_subresource;
  for (const json& entry : ns["metadata"]["managedFields"]) {
    if (entry.value("manager", "") == "tenure")
      by_subresource[entry.value("subresource", "")] = entry;
  }
  ASSERT_EQ(by_subresource.count("status"), 1u) << ns.dump();
  EXPECT_EQ(by_subresource["status"]["operation"], "Update");
  EXPECT_TRUE(by_subresource["status"]["fieldsV1"]["f:status"].contains("f:conditions"));
  ASSERT_EQ(by_subresource.count("finalize"), 1u) << ns.dump();
  EXPECT_TRUE(by_subresource["finalize"]["fieldsV1"]["f:spec"].contains("f:finalizers"));
  EXPECT_EQ(StatusOf(c, "GET", "/api/v1/namespaces/kept/configmaps/cm"), 404);
}

}  // namespace
}  // namespace tenure::server::testing
