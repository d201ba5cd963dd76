// Over the wire: paginated lists (limit, continue, remainingItemCount) as kube-apiserver answers
// them, the errors around continue tokens, and lists at an exact earlier resourceVersion.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/codec.h"
#include "server/test_server_fixture.h"

namespace tenure::server::testing {
namespace {

using nlohmann::json;

class ListPagingTest : public ServerFixture {
 protected:
  static constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";

  void CreateConfigMap(client::HttpConnection& c, const std::string& name,
                       const std::string& value = "v") {
    int status = 0;
    json body = {{"apiVersion", "v1"},
                 {"kind", "ConfigMap"},
                 {"metadata", {{"name", name}, {"labels", {{"even", value}}}}},
                 {"data", {{"k", value}}}};
    Call(c, "POST", kConfigMaps, body.dump(), &status);
    ASSERT_EQ(status, 201) << name;
  }

  static std::vector<std::string> Names(const json& list) {
    std::vector<std::string> names;
    for (const json& item : list["items"]) names.push_back(item["metadata"]["name"]);
    return names;
  }

  static std::string Token(const json& token) { return api::Base64UrlEncode(token.dump()); }
};

TEST_F(ListPagingTest, PagesResumeAtTheFirstPagesVersionAndCountWhatRemains) {
  client::HttpConnection c(endpoint());
  for (const char* name : {"a", "b", "c", "d", "e"}) CreateConfigMap(c, name);
  int status = 0;
  json first = Call(c, "GET", std::string(kConfigMaps) + "?limit=2", "", &status);
  ASSERT_EQ(status, 200) << first.dump();
  EXPECT_EQ(Names(first), (std::vector<std::string>{"a", "b"}));
  const std::string rv = first["metadata"]["resourceVersion"];
  const std::string next = first["metadata"].value("continue", "");
  ASSERT_FALSE(next.empty()) << first.dump();
  EXPECT_EQ(first["metadata"]["remainingItemCount"], 3);
  // kube's token: unpadded base64url of the version, revision and the key to start from.
  auto decoded = api::Base64UrlDecode(next);
  ASSERT_TRUE(decoded.has_value()) << next;
  EXPECT_EQ(
      json::parse(*decoded),
      (json{{"v", "meta.k8s.io/v1"}, {"rv", std::stoll(rv)}, {"start", std::string("b\0", 2)}}));

  // Later writes do not show in the next pages.
  Call(c, "DELETE", std::string(kConfigMaps) + "/c", "", &status);
  ASSERT_EQ(status, 200);
  CreateConfigMap(c, "bb");
  json second = Call(c, "GET", std::string(kConfigMaps) + "?limit=2&continue=" + next, "", &status);
  ASSERT_EQ(status, 200) << second.dump();
  EXPECT_EQ(Names(second), (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(second["metadata"]["resourceVersion"], rv);
  EXPECT_EQ(second["metadata"]["remainingItemCount"], 1);
  json last = Call(
      c, "GET",
      std::string(kConfigMaps) + "?limit=2&continue=" + second["metadata"].value("continue", ""),
      "", &status);
  ASSERT_EQ(status, 200) << last.dump();
  EXPECT_EQ(Names(last), (std::vector<std::string>{"e"}));
  EXPECT_FALSE(last["metadata"].contains("continue")) << last.dump();
  EXPECT_FALSE(last["metadata"].contains("remainingItemCount")) << last.dump();

  // resourceVersion=0 is served whole (kube's watch cache ignores the limit).
  json whole = Call(c, "GET", std::string(kConfigMaps) + "?limit=2&resourceVersion=0", "", &status);
  EXPECT_EQ(Names(whole), (std::vector<std::string>{"a", "b", "bb", "d", "e"}));
  EXPECT_FALSE(whole["metadata"].contains("continue"));
}

TEST_F(ListPagingTest, ASelectorFillsPagesWithMatchesAndCountsNothing) {
  client::HttpConnection c(endpoint());
  for (int i = 0; i < 9; ++i) CreateConfigMap(c, "m" + std::to_string(i), i % 2 ? "no" : "yes");
  int status = 0;
  std::vector<std::string> seen;
  std::string next;
  int pages = 0;
  do {
    json page = Call(c, "GET",
                     std::string(kConfigMaps) + "?labelSelector=even%3Dyes&limit=2" +
                         (next.empty() ? "" : "&continue=" + next),
                     "", &status);
    ASSERT_EQ(status, 200) << page.dump();
    EXPECT_FALSE(page["metadata"].contains("remainingItemCount")) << page.dump();
    for (const std::string& name : Names(page)) seen.push_back(name);
    next = page["metadata"].value("continue", "");
    ASSERT_LT(++pages, 10);
  } while (!next.empty());
  EXPECT_EQ(seen, (std::vector<std::string>{"m0", "m2", "m4", "m6", "m8"}));
  EXPECT_EQ(pages, 3);
}

TEST_F(ListPagingTest, MalformedTokensAreBadRequestsWithKubesMessages) {
  client::HttpConnection c(endpoint());
  CreateConfigMap(c, "a");
  auto message = [&](const std::string& query) {
    int status = 0;
    json reply = Call(c, "GET", std::string(kConfigMaps) + "?" + query, "", &status);
    EXPECT_EQ(status, 400) << query << " " << reply.dump();
    return reply.value("message", "");
  };
  const std::string prefix = "invalid continue token: continue key is not valid";
  EXPECT_EQ(message("continue=ab%21cd"), prefix + ": illegal base64 data at input byte 2");
  EXPECT_EQ(message("continue=" + Token({{"v", "meta.k8s.io/v1"}, {"rv", 0}, {"start", "a"}})),
            prefix + ": incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  EXPECT_EQ(message("continue=" + Token({{"v", "meta.k8s.io/v1"}, {"rv", 3}, {"start", ""}})),
            prefix + ": encoded start key empty (version meta.k8s.io/v1)");
  EXPECT_EQ(message("continue=" + Token({{"v", "v9"}, {"rv", 3}, {"start", "a"}})),
            prefix + ": server does not recognize this encoded version v9");
  // A start key that climbs out of the list's prefix is refused, never read.
  EXPECT_EQ(message("continue=" +
                    Token({{"v", "meta.k8s.io/v1"}, {"rv", 3}, {"start", "../kube-system/x"}})),
            prefix + ": ../kube-system/x");
  const std::string good = Token({{"v", "meta.k8s.io/v1"}, {"rv", 3}, {"start", "a"}});
  EXPECT_EQ(message("continue=" + good + "&resourceVersion=5"),
            "specifying resource version is not allowed when using continue");
}

TEST_F(ListPagingTest, ATokenWhoseVersionIsNoLongerKeptIsExpiredWithATokenToGoOn) {
  client::HttpConnection c(endpoint());
  for (const char* name : {"a", "b", "c"}) CreateConfigMap(c, name);
  int status = 0;
  json first = Call(c, "GET", std::string(kConfigMaps) + "?limit=1", "", &status);
  ASSERT_EQ(status, 200);
  const std::string next = first["metadata"].value("continue", "");
  // The fixture keeps 50 writes of history.
  for (int i = 0; i < 60; ++i) {
    Call(c, "PATCH", std::string(kConfigMaps) + "/c",
         R"({"data":{"k":")" + std::to_string(i) + "\"}}", &status);
    ASSERT_EQ(status, 200);
  }
  json expired =
      Call(c, "GET", std::string(kConfigMaps) + "?limit=1&continue=" + next, "", &status);
  EXPECT_EQ(status, 410) << expired.dump();
  EXPECT_EQ(expired["reason"], "Expired");
  EXPECT_EQ(expired.value("message", "").rfind("The provided continue parameter is too old", 0),
            0u);
  const std::string inconsistent = expired["metadata"].value("continue", "");
  ASSERT_FALSE(inconsistent.empty()) << expired.dump();
  EXPECT_EQ(json::parse(*api::Base64UrlDecode(inconsistent))["rv"], -1);
  // That token goes on from the same key at the latest version.
  json rest =
      Call(c, "GET", std::string(kConfigMaps) + "?limit=5&continue=" + inconsistent, "", &status);
  ASSERT_EQ(status, 200) << rest.dump();
  EXPECT_EQ(Names(rest), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(rest["items"][1]["data"]["k"], "59");
}

TEST_F(ListPagingTest, AnExactListReadsThatVersion) {
  client::HttpConnection c(endpoint());
  CreateConfigMap(c, "a", "1");
  int status = 0;
  json before = Call(c, "GET", kConfigMaps, "", &status);
  const std::string rv = before["metadata"]["resourceVersion"];
  Call(c, "PATCH", std::string(kConfigMaps) + "/a", R"({"data":{"k":"2"}})", &status);
  CreateConfigMap(c, "b");
  json exact = Call(
      c, "GET", std::string(kConfigMaps) + "?resourceVersion=" + rv + "&resourceVersionMatch=Exact",
      "", &status);
  ASSERT_EQ(status, 200) << exact.dump();
  EXPECT_EQ(exact["metadata"]["resourceVersion"], rv);
  EXPECT_EQ(Names(exact), (std::vector<std::string>{"a"}));
  EXPECT_EQ(exact["items"][0]["data"]["k"], "1");
  // The legacy form (a limit, no match) is exact too, and pages.
  json legacy =
      Call(c, "GET", std::string(kConfigMaps) + "?limit=1&resourceVersion=" + rv, "", &status);
  ASSERT_EQ(status, 200) << legacy.dump();
  EXPECT_EQ(legacy["metadata"]["resourceVersion"], rv);
  EXPECT_EQ(legacy["items"][0]["data"]["k"], "1");
}

}  // namespace
}  // namespace tenure::server::testing
