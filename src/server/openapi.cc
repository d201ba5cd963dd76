// OpenAPI documents for kubectl: v3 per group-version from the kinds' descriptions, v3 index, v2.
#include "server/openapi.h"

#include <openssl/evp.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "api/api_paths.h"
#include "api/meta_descriptions.h"
#include "server/openapi_paths.h"
#include "server/openapi_schemas.h"
#include "server/openapi_v2.h"
#include "server/openapi_v2_proto.h"

namespace tenure::server {
namespace {

using nlohmann::json;

std::vector<const api::KindDescription*> KindsAt(const std::vector<ServedVersion>& served,
                                                 std::string_view group, std::string_view version) {
  std::vector<const api::KindDescription*> kinds;
  for (const ServedVersion& s : served) {
    if (s.kind == nullptr || s.kind->group != group || s.version != version) continue;
    const api::KindDescription* kind = &api::Describe(*s.kind);
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
  }
  return kinds;
}

// The schemas of the kinds served at group/version and of the API machinery's objects, with the
// group-version-kinds each stands for.
json Schemas(const std::vector<const api::KindDescription*>& kinds, std::string_view group,
             std::string_view version) {
  std::vector<const api::ObjectDescription*> roots = {
      &api::StatusObject(), &api::DeleteOptionsObject(), &api::PatchObject(),
      &api::WatchEventObject(), &api::ApiResourceListObject()};
  for (const api::KindDescription* kind : kinds) {
    roots.push_back(kind->object);
    if (kind->stored) roots.push_back(&kind->list);
  }
  json schemas = OpenApiSchemas(roots, group, version);
  auto gvks = [&](const api::ObjectDescription& object) -> json& {
    return schemas[OpenApiSchemaName(object, group, version)]["x-kubernetes-group-version-kind"];
  };
  for (const api::KindDescription* kind : kinds) {
    gvks(*kind->object) = json::array({OpenApiGvk(group, version, kind->kind)});
    if (kind->stored) gvks(kind->list) = json::array({OpenApiGvk(group, version, kind->list_kind)});
  }
  gvks(api::StatusObject()) = json::array({OpenApiGvk("", "v1", "Status")});
  gvks(api::ApiResourceListObject()) = json::array({OpenApiGvk("", "v1", "APIResourceList")});
  // Also served in the group-version itself.
  for (const api::ObjectDescription* object :
       {&api::DeleteOptionsObject(), &api::WatchEventObject()}) {
    json list = json::array({OpenApiGvk("", "v1", object->go_name)});
    if (!group.empty()) list.push_back(OpenApiGvk(group, version, object->go_name));
    gvks(*object) = std::move(list);
  }
  return schemas;
}

std::vector<std::pair<std::string_view, std::string_view>> GroupVersions(
    const std::vector<ServedVersion>& served) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  for (const ServedVersion& s : served) {
    if (s.kind == nullptr) continue;
    std::pair<std::string_view, std::string_view> gv{s.kind->group, s.version};
    if (std::find(out.begin(), out.end(), gv) == out.end()) out.push_back(gv);
  }
  return out;
}

}  // namespace

std::string OpenApiV3Key(std::string_view group, std::string_view version) {
  return api::GroupVersionPath(group, version).substr(1);  // without the leading "/"
}

std::optional<json> OpenApiV3Document(const std::vector<ServedVersion>& served,
                                      std::string_view group, std::string_view version) {
  auto kinds = KindsAt(served, group, version);
  if (kinds.empty()) return std::nullopt;
  return json{
      {"openapi", "3.0.0"},
      {"info", {{"title", "Kubernetes"}, {"version", "unversioned"}}},
      {"paths", OpenApiPaths(kinds, group, version)},
      {"components",
       {{"schemas", Schemas(kinds, group, version)},
        {"securitySchemes",
         {{"BearerToken",
           {{"type", "apiKey"},
            {"name", "authorization"},
            {"in", "header"},
            {"description", "Bearer Token authentication"}}}}}}},
  };
}

std::string OpenApiHash(const json& document) {
  std::string text = document.dump();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha512(), nullptr);
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xF];
  }
  return hex;
}

json OpenApiV3Index(const std::vector<ServedVersion>& served) {
  json paths = json::object();
  for (const auto& [group, version] : GroupVersions(served)) {
    auto document = OpenApiV3Document(served, group, version);
    if (!document) continue;
    std::string key = OpenApiV3Key(group, version);
    paths[key] = {{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + OpenApiHash(*document)}};
  }
  return {{"paths", paths}};
}

OpenApiDocuments::OpenApiDocuments(const std::vector<ServedVersion>& served) {
  json paths = json::object();
  std::vector<json> v3_documents;
  for (const auto& [group, version] : GroupVersions(served)) {
    auto document = OpenApiV3Document(served, group, version);
    if (!document) continue;
    std::string key = OpenApiV3Key(group, version);
    Document entry{document->dump(), OpenApiHash(*document)};
    paths[key] = {{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + entry.hash}};
    documents_.emplace(key, std::move(entry));
    v3_documents.push_back(std::move(*document));
  }
  index_body_ = json{{"paths", paths}}.dump();
  const json v2 = OpenApiV2FromV3(v3_documents);
  v2_json_body_ = v2.dump();
  v2_protobuf_body_ = OpenApiV2Protobuf(v2);
}

const OpenApiDocuments::Document* OpenApiDocuments::Find(std::string_view key) const {
  while (!key.empty() && key.front() == '/') key.remove_prefix(1);
  while (!key.empty() && key.back() == '/') key.remove_suffix(1);
  auto it = documents_.find(key);
  return it == documents_.end() ? nullptr : &it->second;
}

OpenApiV2Reply OpenApiV2(std::string_view accept_header, const OpenApiDocuments& documents) {
  if (accept_header.find("protobuf") != std::string_view::npos) {
    return {200, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
            documents.v2_protobuf_body()};
  }
  return {200, "application/json", documents.v2_json_body()};
}

}  // namespace tenure::server
