// Routes: every kind serves the verbs it declares and refuses the others as kube-apiserver does,
// by CheckRoute and over the wire (DELETE of the namespaces collection deletes nothing).
#include "server/routes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "api/api_paths.h"
#include "api/kinds.h"
#include "api/status_object.h"
#include "server/test_server_fixture.h"

namespace tenure::server {
namespace {

using nlohmann::json;

constexpr std::string_view kMethodNotAllowedMessage =
    "the server does not allow this method on the requested resource";
constexpr std::string_view kNoSuchResourceMessage =
    "the server could not find the requested resource";

bool Declares(const api::KindInfo& kind, Verb verb) {
  return std::find(kind.verbs.begin(), kind.verbs.end(), KubeName(verb)) != kind.verbs.end();
}

// A request with a method, a path and its query (a target as the HTTP server parses it).
HttpRequest Request(std::string method, std::string path,
                    std::multimap<std::string, std::string> query = {}) {
  HttpRequest r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.target = r.path;
  for (const auto& [key, value] : query) {
    r.target += (r.target == r.path ? "?" : "&") + key + "=" + value;
  }
  r.query = std::move(query);
  return r;
}

// The request a client sends for `verb` on the kind at its preferred version, in namespace
// "default" for a namespaced kind (a watch as `?watch=true`, as client-go sends it).
HttpRequest RequestFor(const api::KindInfo& kind, Verb verb) {
  std::string collection = api::CollectionPath(kind, kind.versions.front(), "default");
  std::string object = api::ObjectPath(kind, kind.versions.front(), "default", "routes-test");
  switch (verb) {
    case Verb::kGet:
      return Request("GET", object);
    case Verb::kList:
      return Request("GET", collection);
    case Verb::kWatch:
      return Request("GET", collection, {{"watch", "true"}});
    case Verb::kCreate:
      return Request("POST", collection);
    case Verb::kUpdate:
      return Request("PUT", object);
    case Verb::kPatch:
      return Request("PATCH", object);
    case Verb::kDelete:
      return Request("DELETE", object);
    case Verb::kDeleteCollection:
      return Request("DELETE", collection);
  }
  return {};
}

Status Route(const api::KindInfo& kind, const HttpRequest& request) {
  return CheckRoute(kind, ParseRequestInfo(request), request.method);
}

// Whether `status` is one of the router's refusals (no route for the path, or not the method).
bool IsRouteRefusal(const Status& status) {
  return (status.code() == 405 && status.reason() == Reason::kMethodNotAllowed) ||
         (status.code() == 404 && status.message() == kNoSuchResourceMessage);
}

TEST(RoutesTest, EveryKindDeclaresOnlyVerbsTheServerKnows) {
  for (const api::KindInfo* kind : api::AllKinds()) {
    for (std::string_view verb : kind->verbs) {
      EXPECT_TRUE(VerbFromKubeName(verb).has_value()) << kind->kind << ": " << verb;
    }
  }
}

TEST(RoutesTest, EveryKindRoutesItsDeclaredVerbsAndRefusesTheOthers) {
  for (const api::KindInfo* kind : api::AllKinds()) {
    for (Verb verb : EveryVerb()) {
      SCOPED_TRACE(std::string(kind->kind) + " " + std::string(KubeName(verb)));
      HttpRequest request = RequestFor(*kind, verb);
      ASSERT_EQ(ParseRequestInfo(request).verb, verb);
      Status status = Route(*kind, request);
      if (Declares(*kind, verb)) {
        EXPECT_TRUE(status.ok()) << status.ToString();
      } else {
        EXPECT_TRUE(IsRouteRefusal(status)) << status.ToString();
      }
    }
  }
}

TEST(RoutesTest, NamespacesHaveNoDeleteCollectionRoute) {
  Status status = Route(api::NamespaceKind(), Request("DELETE", "/api/v1/namespaces"));
  EXPECT_EQ(status.code(), 405);
  EXPECT_EQ(status.reason(), Reason::kMethodNotAllowed);
  EXPECT_EQ(status.message(), kMethodNotAllowedMessage);
  EXPECT_EQ(status.details(), StatusDetails{});
  // One namespace is deleted as before.
  EXPECT_TRUE(Route(api::NamespaceKind(), Request("DELETE", "/api/v1/namespaces/team")).ok());
}

// A kind that gets and lists but does nothing else: what kube-apiserver installs for it.
api::KindInfo GetAndListOnly() {
  api::KindInfo kind = api::LeaseKind();
  kind.verbs = {"get", "list"};
  return kind;
}

TEST(RoutesTest, AWatchOfAKindThatDoesNotWatchIsNotSupportedOnItsListRoute) {
  api::KindInfo kind = GetAndListOnly();
  const std::string leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
  for (const std::string& path : {leases, std::string("/apis/coordination.k8s.io/v1/leases")}) {
    Status status = Route(kind, Request("GET", path, {{"watch", "true"}}));
    EXPECT_EQ(status.code(), 405) << path;
    EXPECT_EQ(status.reason(), Reason::kMethodNotAllowed);
    EXPECT_EQ(status.message(),
              "watch is not supported on resources of kind \"leases.coordination.k8s.io\"");
    EXPECT_EQ(status.details().group, "coordination.k8s.io");
    EXPECT_EQ(status.details().kind, "leases");
    EXPECT_TRUE(Route(kind, Request("GET", path)).ok()) << path;
  }
  // The deprecated watch paths are not installed at all.
  for (const char* path : {"/apis/coordination.k8s.io/v1/watch/namespaces/default/leases",
                           "/apis/coordination.k8s.io/v1/watch/namespaces/default/leases/x",
                           "/apis/coordination.k8s.io/v1/watch/leases"}) {
    Status status = Route(kind, Request("GET", path));
    EXPECT_EQ(status.code(), 404) << path;
    EXPECT_EQ(status.message(), kNoSuchResourceMessage) << path;
  }
}

TEST(RoutesTest, AMethodWithoutARouteOnAPathWithRoutesIsNotAllowed) {
  api::KindInfo kind = GetAndListOnly();
  const std::string leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
  for (const HttpRequest& request :
       {Request("POST", leases), Request("DELETE", leases), Request("PUT", leases),
        Request("OPTIONS", leases), Request("PUT", leases + "/x"), Request("PATCH", leases + "/x"),
        Request("DELETE", leases + "/x"), Request("POST", leases + "/x")}) {
    Status status = Route(kind, request);
    EXPECT_EQ(status.code(), 405) << request.method << " " << request.path;
    EXPECT_EQ(status.message(), kMethodNotAllowedMessage) << request.method << " " << request.path;
    EXPECT_EQ(status.details(), StatusDetails{});
  }
  // A kind that only creates has no route on its objects' paths.
  kind.verbs = {"create"};
  Status status = Route(kind, Request("GET", leases + "/x"));
  EXPECT_EQ(status.code(), 404);
  EXPECT_EQ(status.message(), kNoSuchResourceMessage);
  EXPECT_TRUE(Route(kind, Request("POST", leases)).ok());
}

TEST(RoutesTest, AcrossAllNamespacesOnlyListsAndWatchesAreRouted) {
  const api::KindInfo& kind = api::LeaseKind();
  const std::string all = "/apis/coordination.k8s.io/v1/leases";
  EXPECT_TRUE(Route(kind, Request("GET", all)).ok());
  EXPECT_TRUE(Route(kind, Request("GET", all, {{"watch", "true"}})).ok());
  EXPECT_TRUE(Route(kind, Request("GET", "/apis/coordination.k8s.io/v1/watch/leases")).ok());
  for (const char* method : {"POST", "DELETE", "PUT", "PATCH"}) {
    Status status = Route(kind, Request(method, all));
    EXPECT_EQ(status.code(), 405) << method;
    EXPECT_EQ(status.message(), kMethodNotAllowedMessage) << method;
  }
  // Only GET is installed on the deprecated watch paths.
  EXPECT_EQ(Route(kind, Request("DELETE", "/apis/coordination.k8s.io/v1/watch/leases")).code(),
            405);
  // No route for a namespaced object without its namespace, nor for a subresource.
  EXPECT_EQ(Route(kind, Request("GET", all + "/x")).code(), 404);
  EXPECT_EQ(
      Route(kind, Request("GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases/x/status"))
          .code(),
      404);
}

class RoutesServerTest : public testing::ServerFixture {
 protected:
  std::set<std::string> NamespaceNames(client::HttpConnection& c) {
    int status = 0;
    json list = Call(c, "GET", "/api/v1/namespaces", "", &status);
    EXPECT_EQ(status, 200) << list.dump();
    std::set<std::string> names;
    for (const json& item : list["items"]) names.insert(item["metadata"]["name"]);
    return names;
  }
};

TEST_F(RoutesServerTest, DeletingTheNamespacesCollectionIsNotAllowedAndDeletesNothing) {
  client::HttpConnection c(endpoint());
  std::set<std::string> before = NamespaceNames(c);
  ASSERT_TRUE(before.contains("default") && before.contains("kube-system")) << before.size();
  for (const char* target : {"/api/v1/namespaces", "/api/v1/namespaces?dryRun=All",
                             "/api/v1/namespaces?labelSelector=kubernetes.io%2Fmetadata.name"}) {
    int status = 0;
    json reply = Call(c, "DELETE", target, "", &status);
    EXPECT_EQ(status, 405) << target << ": " << reply.dump();
    EXPECT_EQ(reply["kind"], "Status");
    EXPECT_EQ(reply["status"], "Failure");
    EXPECT_EQ(reply["reason"], "MethodNotAllowed");
    EXPECT_EQ(reply["message"], kMethodNotAllowedMessage);
    EXPECT_EQ(reply["code"], 405);
  }
  EXPECT_EQ(NamespaceNames(c), before);
}

TEST_F(RoutesServerTest, EveryKindRefusesItsUndeclaredVerbsOverTheWire) {
  client::HttpConnection c(endpoint());
  for (const api::KindInfo* kind : api::AllKinds()) {
    for (Verb verb : EveryVerb()) {
      // A declared watch would stream; CheckRoute's test covers it.
      if (verb == Verb::kWatch && Declares(*kind, verb)) continue;
      SCOPED_TRACE(std::string(kind->kind) + " " + std::string(KubeName(verb)));
      HttpRequest request = RequestFor(*kind, verb);
      int code = 0;
      json reply = Call(c, request.method, request.target, "{}", &code);
      Status status = api::StatusFromResponse(code, reply.dump());
      EXPECT_EQ(IsRouteRefusal(status), !Declares(*kind, verb)) << code << " " << reply.dump();
    }
  }
}

}  // namespace
}  // namespace tenure::server
