// Golden copies of the discovery and OpenAPI documents: each document, rendered by ApiServer's
// own handler exactly as `tenure serve` sends it with its default options, must equal its file
// in src/server/testdata/golden/ byte for byte.
//
// The documents derive from the kinds' descriptions (src/api/kind_*.cc), so a refactor that
// changes one byte of them fails here, naming the document, the offset of the first difference
// and the text around it on both sides. When a change is intended (a new kind, a new field, a
// corrected description), rewrite the files and commit them with the change:
//
//   TENURE_UPDATE_GOLDEN=1 build/src/server/server_test --gtest_filter='GoldenDocuments*'
//
// That writes every document's file, removes the files of documents no longer served, and
// passes; review the difference with `git diff src/server/testdata/golden`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "server/api_server.h"
#include "server/server.h"

namespace tenure::server {
namespace {

using nlohmann::json;

const std::filesystem::path kGoldenDir = TENURE_GOLDEN_DIR;

class CapturingResponder : public Responder {
 public:
  void Reply(HttpResponse response) override { response_ = std::move(response); }
  std::shared_ptr<ResponseStream> Stream(int, std::string, std::chrono::steady_clock::time_point,
                                         std::chrono::milliseconds,
                                         std::function<void()>) override {
    ADD_FAILURE() << "a document is never streamed";
    return nullptr;
  }
  std::optional<HttpResponse> response_;
};

// One document: the request that fetches it and the golden file it is compared with.
struct Document {
  std::string file;  // "apis_coordination.k8s.io_v1.json"
  std::string path;  // "/apis/coordination.k8s.io/v1"
  std::string accept;
  std::multimap<std::string, std::string> query;
};

// "/apis/coordination.k8s.io/v1" -> "apis_coordination.k8s.io_v1" + suffix + ".json".
std::string FileName(std::string_view path, std::string_view suffix = "") {
  std::string name(path.substr(1));
  std::replace(name.begin(), name.end(), '/', '_');
  return name + std::string(suffix) + ".json";
}

// The server of `tenure serve` with its default options, without a store or a socket: only
// discovery and OpenAPI are asked of it, which need neither.
class GoldenDocumentsTest : public ::testing::Test {
 protected:
  GoldenDocumentsTest() {
    ServerOptions defaults;
    ApiServerOptions options;
    options.served = ServedVersions(defaults);
    options.server_address = ServerAddress(defaults);
    server_ = std::make_unique<ApiServer>(options, nullptr);
    served_ = options.served;
  }

  // The response body of GET `document`, through the handler the HTTP server calls.
  std::string Fetch(const Document& document) {
    HttpRequest request;
    request.method = "GET";
    request.path = document.path;
    request.target = document.path;
    request.query = document.query;
    if (!document.accept.empty()) request.headers = {{"accept", document.accept}};
    auto responder = std::make_shared<CapturingResponder>();
    server_->Handle(std::move(request), responder);
    EXPECT_TRUE(responder->response_.has_value()) << document.path;
    if (!responder->response_) return "";
    EXPECT_EQ(responder->response_->status, 200) << document.path;
    return responder->response_->body;
  }

  // Every document: the discovery documents of the served groups and versions, the OpenAPI v2
  // document, the v3 index and every document the index links to (at the URL it gives).
  std::vector<Document> Documents() {
    std::vector<Document> out;
    for (const char* root : {"/api", "/apis"}) {
      out.push_back({FileName(root), root, "application/json"});
      for (std::string_view version : {"v2", "v2beta1"}) {
        out.push_back({FileName(root, ".aggregated-" + std::string(version)), root,
                       "application/json;g=apidiscovery.k8s.io;v=" + std::string(version) +
                           ";as=APIGroupDiscoveryList"});
      }
    }
    std::set<std::string> groups, group_versions;
    for (const ServedVersion& served : served_) {
      std::string group(served.kind->group);
      std::string version(served.version);
      if (!group.empty()) groups.insert("/apis/" + group);
      group_versions.insert(group.empty() ? "/api/" + version : "/apis/" + group + "/" + version);
    }
    for (const std::set<std::string>* paths : {&groups, &group_versions}) {
      for (const std::string& path : *paths) out.push_back({FileName(path), path, ""});
    }
    out.push_back({FileName("/openapi/v2"), "/openapi/v2", "application/json"});
    Document index{FileName("/openapi/v3"), "/openapi/v3", ""};
    out.push_back(index);
    json links = json::parse(Fetch(index), nullptr, false);
    EXPECT_TRUE(links.contains("paths")) << links.dump();
    json paths = links.is_object() ? links.value("paths", json::object()) : json::object();
    for (const auto& [key, link] : paths.items()) {
      // "/openapi/v3/apis/coordination.k8s.io/v1?hash=<H>", requested as kubectl does.
      std::string url = link.value("serverRelativeURL", "");
      std::string path = url.substr(0, url.find('?'));
      std::multimap<std::string, std::string> query;
      if (size_t hash = url.find("?hash="); hash != std::string::npos) {
        query.emplace("hash", url.substr(hash + 6));
      }
      out.push_back({FileName("/openapi/v3/" + key), path, "", query});
    }
    return out;
  }

  std::unique_ptr<ApiServer> server_;
  std::vector<ServedVersion> served_;
};

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The text around `offset`, at most 60 bytes before and after it.
std::string Excerpt(const std::string& text, size_t offset) {
  size_t from = offset < 60 ? 0 : offset - 60;
  return "..." + text.substr(from, 120) + "...";
}

// Empty when equal; otherwise where `actual` first differs from `golden`, and both around it.
std::string FirstDifference(const std::string& golden, const std::string& actual) {
  if (golden == actual) return "";
  auto [g, a] = std::mismatch(golden.begin(), golden.end(), actual.begin(), actual.end());
  size_t offset = static_cast<size_t>(g - golden.begin());
  std::ostringstream out;
  out << "first difference at byte " << offset << " (golden " << golden.size()
      << " bytes, rendered " << actual.size() << " bytes)\n  golden:   " << Excerpt(golden, offset)
      << "\n  rendered: " << Excerpt(actual, offset);
  return out.str();
}

// "GET /apis (Accept: ...)".
std::string Describe(const Document& document) {
  return "GET " + document.path +
         (document.accept.empty() ? "" : " (Accept: " + document.accept + ")");
}

bool UpdateRequested() {
  const char* value = std::getenv("TENURE_UPDATE_GOLDEN");
  return value != nullptr && std::string(value) == "1";
}

TEST(GoldenDocumentsDiffTest, TheFirstDifferenceIsFoundAndShownOnBothSides) {
  EXPECT_EQ(FirstDifference("same", "same"), "");
  std::string message = FirstDifference(R"({"a":"one"})", R"({"a":"two"})");
  EXPECT_NE(message.find("first difference at byte 6"), std::string::npos) << message;
  EXPECT_NE(message.find(R"(golden:   ...{"a":"one"}...)"), std::string::npos) << message;
  EXPECT_NE(message.find(R"(rendered: ...{"a":"two"}...)"), std::string::npos) << message;
  // A document that only grew differs where the shorter one ends.
  EXPECT_NE(FirstDifference("abc", "abcd").find("at byte 3"), std::string::npos);
}

TEST_F(GoldenDocumentsTest, EveryDocumentEqualsItsGoldenFile) {
  std::vector<Document> documents = Documents();
  std::set<std::string> files;
  for (const Document& document : documents) {
    ASSERT_TRUE(files.insert(document.file).second) << "two documents in " << document.file;
  }
  // Sanity: the set covers discovery and OpenAPI of every served group-version.
  EXPECT_GE(documents.size(), 12u);

  if (UpdateRequested()) {
    std::filesystem::create_directories(kGoldenDir);
    for (const auto& entry : std::filesystem::directory_iterator(kGoldenDir)) {
      if (!files.contains(entry.path().filename().string())) std::filesystem::remove(entry);
    }
    for (const Document& document : documents) {
      std::ofstream(kGoldenDir / document.file, std::ios::binary) << Fetch(document);
    }
    std::cout << "rewrote " << documents.size() << " golden documents in " << kGoldenDir << "\n";
  }

  for (const Document& document : documents) {
    std::filesystem::path file = kGoldenDir / document.file;
    if (!std::filesystem::exists(file)) {
      ADD_FAILURE() << Describe(document) << ": no golden file " << file
                    << "; write it with TENURE_UPDATE_GOLDEN=1";
      continue;
    }
    std::string difference = FirstDifference(ReadFile(file), Fetch(document));
    EXPECT_TRUE(difference.empty()) << Describe(document) << " differs from " << file << ":\n"
                                    << difference
                                    << "\nIf the change is intended, rewrite the golden files with "
                                       "TENURE_UPDATE_GOLDEN=1 (see golden_documents_test.cc).";
  }
  // A golden file whose document is no longer served is stale.
  if (!std::filesystem::is_directory(kGoldenDir)) return;
  for (const auto& entry : std::filesystem::directory_iterator(kGoldenDir)) {
    EXPECT_TRUE(files.contains(entry.path().filename().string()))
        << entry.path() << " is no document the server sends; remove it (TENURE_UPDATE_GOLDEN=1)";
  }
}

// go-restful trims a trailing slash before routing, and the official Python client asks for
// /version/, /api/, /apis/ and /api/v1/ exactly so: the same document either way (404 before).
TEST_F(GoldenDocumentsTest, DiscoveryPathsWithATrailingSlashAreTheSameDocuments) {
  std::vector<Document> documents{{"", "/version", ""}};
  for (const Document& document : Documents()) {
    if (document.path.rfind("/api", 0) == 0) documents.push_back(document);
  }
  for (const Document& document : documents) {
    Document slashed = document;
    slashed.path += "/";
    EXPECT_EQ(Fetch(slashed), Fetch(document)) << slashed.path;
    slashed.path += "/";
    EXPECT_EQ(Fetch(slashed), Fetch(document)) << slashed.path;
  }
}

}  // namespace
}  // namespace tenure::server
