// Verb: the kube names, and the verb ParseRequestInfo gives each method and path.
#include "server/verb.h"

#include <gtest/gtest.h>

#include "server/request_info.h"

namespace tenure::server {
namespace {

TEST(VerbTest, EveryVerbHasItsKubeNameAndBack) {
  const Verb all[] = {Verb::kGet,    Verb::kList,  Verb::kWatch,  Verb::kCreate,
                      Verb::kUpdate, Verb::kPatch, Verb::kDelete, Verb::kDeleteCollection};
  const char* names[] = {"get",    "list",  "watch",  "create",
                         "update", "patch", "delete", "deletecollection"};
  for (size_t i = 0; i < std::size(all); ++i) {
    EXPECT_EQ(KubeName(all[i]), names[i]);
    EXPECT_EQ(VerbFromKubeName(names[i]), all[i]);
  }
  EXPECT_EQ(EveryVerb(), std::vector<Verb>(std::begin(all), std::end(all)));
  EXPECT_EQ(VerbFromKubeName("*"), std::nullopt);
  EXPECT_EQ(VerbFromKubeName("GET"), std::nullopt);
  EXPECT_TRUE(IsReadOnly(Verb::kWatch));
  EXPECT_FALSE(IsReadOnly(Verb::kPatch));
}

std::optional<Verb> VerbOf(const std::string& method, const std::string& path,
                           bool watch_param = false) {
  HttpRequest r;
  r.method = method;
  r.path = path;
  if (watch_param) r.query.emplace("watch", "true");
  return ParseRequestInfo(r).verb;
}

TEST(VerbTest, TheRequestsMethodAndPathDecideTheVerb) {
  const std::string leases = "/apis/coordination.k8s.io/v1/namespaces/ns/leases";
  EXPECT_EQ(VerbOf("GET", leases + "/l"), Verb::kGet);
  EXPECT_EQ(VerbOf("HEAD", leases + "/l"), Verb::kGet);
  EXPECT_EQ(VerbOf("GET", leases), Verb::kList);
  EXPECT_EQ(VerbOf("GET", leases, /*watch_param=*/true), Verb::kWatch);
  EXPECT_EQ(VerbOf("GET", "/apis/coordination.k8s.io/v1/watch/namespaces/ns/leases/l"),
            Verb::kWatch);
  EXPECT_EQ(VerbOf("POST", leases), Verb::kCreate);
  EXPECT_EQ(VerbOf("PUT", leases + "/l"), Verb::kUpdate);
  EXPECT_EQ(VerbOf("PATCH", leases + "/l"), Verb::kPatch);
  EXPECT_EQ(VerbOf("DELETE", leases + "/l"), Verb::kDelete);
  EXPECT_EQ(VerbOf("DELETE", leases), Verb::kDeleteCollection);
  EXPECT_EQ(VerbOf("DELETE", "/api/v1/namespaces/ns"), Verb::kDelete);
  EXPECT_EQ(VerbOf("OPTIONS", leases), std::nullopt);
}

// The official Python client asks for a watch with watch=True: any value but 0 and false (in any
// case) is a watch, as kube-apiserver converts booleans. A list was answered before.
TEST(VerbTest, WatchParameterIsAGoBoolean) {
  const std::string leases = "/apis/coordination.k8s.io/v1/namespaces/ns/leases";
  for (const char* value : {"True", "true", "1", "", "yes"}) {
    HttpRequest r;
    r.method = "GET";
    r.path = leases;
    r.query.emplace("watch", value);
    EXPECT_EQ(ParseRequestInfo(r).verb, Verb::kWatch) << value;
  }
  for (const char* value : {"False", "false", "0"}) {
    HttpRequest r;
    r.method = "GET";
    r.path = leases;
    r.query.emplace("watch", value);
    EXPECT_EQ(ParseRequestInfo(r).verb, Verb::kList) << value;
  }
}

}  // namespace
}  // namespace tenure::server
