// Tests of the OpenAPI documents: v3 index and hashes, schemas and $refs, patch, v2 fallback.
#include "server/openapi.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace tenure::server {
namespace {

using nlohmann::json;

std::vector<ServedVersion> Served() { return AllServedVersions(); }

std::string SchemaPrefix(std::string_view group, std::string_view version) {
  std::string name = group.empty() ? "core" : std::string(group.substr(0, group.find('.')));
  return "io.k8s.api." + name + "." + std::string(version) + ".";
}

// Every "$ref" in `value`.
void CollectRefs(const json& value, std::set<std::string>& refs) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      if (key == "$ref" && child.is_string()) refs.insert(child.get<std::string>());
      CollectRefs(child, refs);
    }
  } else if (value.is_array()) {
    for (const auto& child : value) CollectRefs(child, refs);
  }
}

bool HasGvk(const json& schema, std::string_view group, std::string_view version,
            std::string_view kind) {
  if (!schema.contains("x-kubernetes-group-version-kind")) return false;
  for (const json& gvk : schema["x-kubernetes-group-version-kind"]) {
    if (gvk["group"] == group && gvk["version"] == version && gvk["kind"] == kind) return true;
  }
  return false;
}

TEST(OpenApiTest, IndexListsEveryGroupVersionWithStableHash) {
  json index = OpenApiV3Index(Served());
  ASSERT_TRUE(index["paths"].contains("api/v1"));
  ASSERT_TRUE(index["paths"].contains("apis/coordination.k8s.io/v1"));
  ASSERT_TRUE(index["paths"].contains("apis/coordination.k8s.io/v1beta1"));
  ASSERT_TRUE(index["paths"].contains("apis/coordination.k8s.io/v1alpha2"));
  EXPECT_EQ(index, OpenApiV3Index(Served()));

  auto doc = OpenApiV3Document(Served(), "coordination.k8s.io", "v1");
  ASSERT_TRUE(doc.has_value());
  std::string hash = OpenApiHash(*doc);
  EXPECT_EQ(hash.size(), 128u);
  EXPECT_EQ(hash.find_first_not_of("0123456789ABCDEF"), std::string::npos);
  EXPECT_EQ(index["paths"]["apis/coordination.k8s.io/v1"]["serverRelativeURL"],
            "/openapi/v3/apis/coordination.k8s.io/v1?hash=" + hash);
  EXPECT_EQ(OpenApiHash(*OpenApiV3Document(Served(), "coordination.k8s.io", "v1")), hash);
  EXPECT_NE(OpenApiHash(*OpenApiV3Document(Served(), "", "v1")), hash);

  EXPECT_FALSE(OpenApiV3Document(Served(), "coordination.k8s.io", "v9").has_value());
  EXPECT_FALSE(OpenApiV3Document(Served(), "apps", "v1").has_value());
}

TEST(OpenApiTest, PrecomputedDocumentsMatch) {
  OpenApiDocuments documents(Served());
  EXPECT_EQ(json::parse(documents.index_body()), OpenApiV3Index(Served()));
  const auto* lease = documents.Find("apis/coordination.k8s.io/v1");
  ASSERT_NE(lease, nullptr);
  EXPECT_EQ(json::parse(lease->body), *OpenApiV3Document(Served(), "coordination.k8s.io", "v1"));
  EXPECT_EQ(lease->hash, OpenApiHash(json::parse(lease->body)));
  EXPECT_NE(documents.Find("/api/v1"), nullptr);
  EXPECT_EQ(documents.Find("apis/apps/v1"), nullptr);
}

TEST(OpenApiTest, EveryKindHasSchemasAndResolvableRefs) {
  for (const ServedVersion& served : Served()) {
    const api::KindInfo& kind = *served.kind;
    SCOPED_TRACE(std::string(kind.kind) + " " + std::string(served.version));
    auto doc = OpenApiV3Document(Served(), kind.group, served.version);
    ASSERT_TRUE(doc.has_value());
    EXPECT_EQ((*doc)["openapi"], "3.0.0");
    const json& schemas = (*doc)["components"]["schemas"];
    std::string prefix = SchemaPrefix(kind.group, served.version);
    std::string object_name = prefix + std::string(kind.kind);
    ASSERT_TRUE(schemas.contains(object_name));
    const json& object = schemas[object_name];
    EXPECT_TRUE(HasGvk(object, kind.group, served.version, kind.kind));
    if (kind.stored) {  // a review has no list
      ASSERT_TRUE(schemas.contains(prefix + std::string(kind.list_kind)));
      EXPECT_TRUE(HasGvk(schemas[prefix + std::string(kind.list_kind)], kind.group, served.version,
                         kind.list_kind));
    }
    EXPECT_FALSE(object["description"].get<std::string>().empty());
    for (const char* field : {"apiVersion", "kind", "metadata"}) {
      EXPECT_TRUE(object["properties"].contains(field)) << field;
    }
    // No generic fallback for tenure's own kinds.
    EXPECT_FALSE(object.contains("x-kubernetes-preserve-unknown-fields"));

    std::set<std::string> refs;
    CollectRefs(*doc, refs);
    EXPECT_FALSE(refs.empty());
    for (const std::string& ref : refs) {
      ASSERT_EQ(ref.rfind("#/components/schemas/", 0), 0u) << ref;
      EXPECT_TRUE(schemas.contains(ref.substr(std::string("#/components/schemas/").size()))) << ref;
    }
    // Every schema property has a description or a type (what kubectl explain prints).
    for (const auto& [name, schema] : schemas.items()) {
      EXPECT_TRUE(schema.contains("description")) << name;
      if (!schema.contains("properties")) continue;
      for (const auto& [field, property] : schema["properties"].items()) {
        EXPECT_TRUE(property.contains("type") || property.contains("allOf"))
            << name << "." << field;
      }
    }
  }
}

TEST(OpenApiTest, EveryKindHasPatchWithFieldValidation) {
  for (const ServedVersion& served : Served()) {
    const api::KindInfo& kind = *served.kind;
    SCOPED_TRACE(std::string(kind.kind) + " " + std::string(served.version));
    auto doc = OpenApiV3Document(Served(), kind.group, served.version);
    ASSERT_TRUE(doc.has_value());
    bool found_patch = false;
    std::set<std::string> actions;
    for (const auto& [path, item] : (*doc)["paths"].items()) {
      for (const auto& [method, op] : item.items()) {
        if (method == "parameters" || !op.contains("x-kubernetes-group-version-kind")) continue;
        const json& gvk = op["x-kubernetes-group-version-kind"];
        if (gvk["kind"] != kind.kind || gvk["group"] != kind.group) continue;
        actions.insert(op["x-kubernetes-action"].get<std::string>());
        if (method != "patch") continue;
        bool field_validation = false;
        for (const json& param : op["parameters"]) {
          if (param["name"] == "fieldValidation" && param["in"] == "query") field_validation = true;
        }
        EXPECT_TRUE(field_validation);
        const json& content = op["requestBody"]["content"];
        for (const char* type :
             {"application/apply-patch+yaml", "application/json-patch+json",
              "application/merge-patch+json", "application/strategic-merge-patch+json"}) {
          EXPECT_TRUE(content.contains(type)) << type;
        }
        found_patch = true;
      }
    }
    if (!kind.stored) {  // a review: create only
      EXPECT_EQ(actions, std::set<std::string>{"post"});
      continue;
    }
    EXPECT_TRUE(found_patch);
    for (const char* action : {"get", "list", "post", "put", "patch", "delete"}) {
      EXPECT_TRUE(actions.count(action)) << action;
    }
  }
}

TEST(OpenApiTest, ItemPathsFollowScope) {
  auto core = OpenApiV3Document(Served(), "", "v1");
  ASSERT_TRUE(core.has_value());
  const json& paths = (*core)["paths"];
  EXPECT_TRUE(paths.contains("/api/v1/namespaces/{namespace}/configmaps/{name}"));
  EXPECT_TRUE(paths.contains("/api/v1/namespaces/{namespace}/configmaps"));
  EXPECT_TRUE(paths.contains("/api/v1/configmaps"));
  EXPECT_TRUE(paths.contains("/api/v1/namespaces/{name}"));
  EXPECT_TRUE(paths.contains("/api/v1/namespaces"));
  EXPECT_EQ(paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"]["operationId"],
            "patchCoreV1NamespacedConfigMap");
  EXPECT_EQ(paths["/api/v1/namespaces/{name}"]["patch"]["operationId"], "patchCoreV1Namespace");

  auto leases = OpenApiV3Document(Served(), "coordination.k8s.io", "v1");
  EXPECT_EQ((*leases)["paths"]["/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}"]
                     ["patch"]["operationId"],
            "patchCoordinationV1NamespacedLease");
}

TEST(OpenApiTest, ExplainAndStrategicMergeMetadata) {
  auto doc = OpenApiV3Document(Served(), "coordination.k8s.io", "v1");
  const json& schemas = (*doc)["components"]["schemas"];
  const json& spec = schemas["io.k8s.api.coordination.v1.LeaseSpec"];
  EXPECT_EQ(spec["properties"]["holderIdentity"]["type"], "string");
  EXPECT_EQ(spec["properties"]["holderIdentity"]["description"].get<std::string>().rfind(
                "holderIdentity contains the identity of the holder of a current lease.", 0),
            0u);
  EXPECT_EQ(spec["properties"]["leaseDurationSeconds"]["format"], "int32");
  EXPECT_EQ(spec["properties"]["renewTime"]["allOf"][0]["$ref"],
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime");
  for (const char* field : {"acquireTime", "holderIdentity", "leaseDurationSeconds",
                            "leaseTransitions", "preferredHolder", "renewTime", "strategy"}) {
    EXPECT_TRUE(spec["properties"].contains(field)) << field;
  }
  EXPECT_EQ(schemas["io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"]["format"], "date-time");
  EXPECT_EQ(schemas["io.k8s.apimachinery.pkg.apis.meta.v1.Time"]["format"], "date-time");

  const json& meta = schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"];
  EXPECT_EQ(meta["ownerReferences"]["x-kubernetes-patch-merge-key"], "uid");
  EXPECT_EQ(meta["ownerReferences"]["x-kubernetes-patch-strategy"], "merge");
  EXPECT_EQ(meta["finalizers"]["x-kubernetes-patch-strategy"], "merge");
  EXPECT_EQ(meta["labels"]["additionalProperties"]["type"], "string");

  auto core = OpenApiV3Document(Served(), "", "v1");
  const json& core_schemas = (*core)["components"]["schemas"];
  EXPECT_EQ(core_schemas["io.k8s.api.core.v1.NamespaceStatus"]["properties"]["conditions"]
                        ["x-kubernetes-patch-merge-key"],
            "type");
  EXPECT_EQ(
      core_schemas["io.k8s.api.core.v1.Event"]["properties"]["involvedObject"]["allOf"][0]["$ref"],
      "#/components/schemas/io.k8s.api.core.v1.ObjectReference");

  auto candidates = OpenApiV3Document(Served(), "coordination.k8s.io", "v1beta1");
  const json& candidate_spec =
      (*candidates)["components"]["schemas"]["io.k8s.api.coordination.v1beta1.LeaseCandidateSpec"];
  EXPECT_EQ(candidate_spec["required"], json::array({"leaseName", "binaryVersion", "strategy"}));
}

// The fields of one protobuf message: length-delimited ones as their bytes, varints as text.
std::multimap<uint32_t, std::string> ProtoFields(std::string_view bytes) {
  std::multimap<uint32_t, std::string> out;
  size_t i = 0;
  auto varint = [&] {
    uint64_t v = 0;
    for (int shift = 0; i < bytes.size(); shift += 7) {
      const auto b = static_cast<unsigned char>(bytes[i++]);
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) break;
    }
    return v;
  };
  while (i < bytes.size()) {
    const uint64_t tag = varint();
    const auto field = static_cast<uint32_t>(tag >> 3);
    switch (tag & 7) {
      case 0:
        out.emplace(field, std::to_string(varint()));
        break;
      case 1:
        out.emplace(field, std::string(bytes.substr(i, 8)));
        i += 8;
        break;
      case 2: {
        const size_t n = varint();
        out.emplace(field, std::string(bytes.substr(i, n)));
        i += n;
        break;
      }
      default:
        ADD_FAILURE() << "wire type " << (tag & 7);
        return out;
    }
  }
  return out;
}

// The value of the NamedX entry called `name` among `field`'s entries of `message`.
std::string Named(std::string_view message, uint32_t field, const std::string& name) {
  for (const auto& [f, entry] : ProtoFields(message)) {
    if (f != field) continue;
    auto named = ProtoFields(entry);
    auto n = named.find(1);
    if (n != named.end() && n->second == name) return named.find(2)->second;
  }
  return {};
}

// kubectl and client-go read /openapi/v2 as protobuf: it was empty, so `kubectl explain
// --output=plaintext-openapiv2` found no kind. It is now gnostic's Document of the same content.
TEST(OpenApiTest, V2ProtobufIsTheDocumentAsGnosticsMessages) {
  OpenApiDocuments documents(Served());
  OpenApiV2Reply protobuf =
      OpenApiV2("application/com.github.proto-openapi.spec.v2@v1.0+protobuf", documents);
  EXPECT_EQ(protobuf.status, 200);
  // kube-openapi answers with the form without "@" (Go's mime parser refuses the other).
  EXPECT_EQ(protobuf.content_type, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
  auto document = ProtoFields(protobuf.body);
  EXPECT_EQ(document.find(1)->second, "2.0");
  // definitions (9) -> NamedSchema "io.k8s.api.coordination.v1.Lease" -> Schema.
  const std::string lease = Named(document.find(9)->second, 1, "io.k8s.api.coordination.v1.Lease");
  ASSERT_FALSE(lease.empty());
  auto schema = ProtoFields(lease);
  EXPECT_NE(schema.find(4)->second.find("Lease defines a lease concept"), std::string::npos);
  EXPECT_EQ(ProtoFields(schema.find(22)->second).find(1)->second, "object");  // type
  // properties (25) -> spec -> its $ref (1).
  const std::string spec = Named(schema.find(25)->second, 1, "spec");
  EXPECT_EQ(ProtoFields(spec).find(1)->second,
            "#/definitions/io.k8s.api.coordination.v1.LeaseSpec");
  // x-kubernetes-group-version-kind (31) as an Any whose YAML (2) names the kind.
  const std::string gvk = Named(lease, 31, "x-kubernetes-group-version-kind");
  const json kinds = json::parse(ProtoFields(gvk).find(2)->second);
  EXPECT_EQ(kinds,
            json::parse(R"([{"group":"coordination.k8s.io","kind":"Lease","version":"v1"}])"));
  // paths (8) -> path (2) -> the lease path's get (2) operation id (5).
  const std::string item =
      Named(document.find(8)->second, 2,
            "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}");
  ASSERT_FALSE(item.empty());
  auto get = ProtoFields(ProtoFields(item).find(2)->second);
  EXPECT_EQ(get.find(5)->second, "readCoordinationV1NamespacedLease");

  OpenApiV2Reply as_json = OpenApiV2("application/json", documents);
  EXPECT_EQ(as_json.content_type, "application/json");
  EXPECT_EQ(json::parse(as_json.body)["swagger"], "2.0");
}

// /openapi/v2 was empty, so tools that validate against v2 found no kind. It now holds every
// path and definition of the v3 documents, written as Swagger 2.0.
TEST(OpenApiTest, V2HoldsEveryPathAndDefinitionAsSwagger2) {
  OpenApiDocuments documents(Served());
  json v2 = json::parse(documents.v2_json_body());
  const json& paths = v2["paths"];
  const json& definitions = v2["definitions"];
  // Every group-version's paths and schemas.
  for (const ServedVersion& served : Served()) {
    const std::string group(served.kind->group), version(served.version);
    auto v3 = OpenApiV3Document(Served(), group, version);
    ASSERT_TRUE(v3.has_value()) << group << "/" << version;
    for (const auto& [path, item] : (*v3)["paths"].items())
      EXPECT_TRUE(paths.contains(path)) << path;
    for (const auto& [name, schema] : (*v3)["components"]["schemas"].items()) {
      EXPECT_TRUE(definitions.contains(name)) << name;
    }
  }
  // No v3 construct is left: references point into definitions, bodies are parameters.
  const std::string text = v2.dump();
  EXPECT_EQ(text.find("#/components/schemas/"), std::string::npos);
  EXPECT_EQ(text.find("\"requestBody\""), std::string::npos);
  EXPECT_EQ(text.find("\"content\""), std::string::npos);

  const json& lease = definitions["io.k8s.api.coordination.v1.Lease"];
  EXPECT_EQ(lease["properties"]["spec"]["$ref"],
            "#/definitions/io.k8s.api.coordination.v1.LeaseSpec");
  EXPECT_FALSE(lease["properties"]["spec"].contains("allOf"));
  EXPECT_FALSE(lease["properties"]["spec"].contains("default"));
  EXPECT_EQ(lease["x-kubernetes-group-version-kind"][0]["kind"], "Lease");

  const json& create = paths["/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"]["post"];
  EXPECT_EQ(create["parameters"][0]["in"], "body");
  EXPECT_EQ(create["parameters"][0]["schema"]["$ref"],
            "#/definitions/io.k8s.api.coordination.v1.Lease");
  EXPECT_EQ(create["responses"]["201"]["schema"]["$ref"],
            "#/definitions/io.k8s.api.coordination.v1.Lease");
  EXPECT_NE(std::find(create["produces"].begin(), create["produces"].end(), "application/json"),
            create["produces"].end());
  EXPECT_EQ(create["schemes"], json::array({"https"}));
  for (const json& parameter : create["parameters"]) {
    if (parameter["name"] == "dryRun") {
      EXPECT_EQ(parameter["type"], "string");
    }
    EXPECT_FALSE(parameter.contains("schema") && parameter["in"] != "body") << parameter.dump();
  }
  const json& patch =
      paths["/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}"]["patch"];
  EXPECT_NE(
      std::find(patch["consumes"].begin(), patch["consumes"].end(), "application/apply-patch+yaml"),
      patch["consumes"].end());

  // A definition several group-versions share lists each group-version-kind it stands for.
  const json& gvks = definitions["io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"]
                                ["x-kubernetes-group-version-kind"];
  auto has = [&](const std::string& group) {
    return std::any_of(gvks.begin(), gvks.end(),
                       [&](const json& g) { return g["group"] == group; });
  };
  EXPECT_TRUE(has(""));
  EXPECT_TRUE(has("coordination.k8s.io"));
  EXPECT_TRUE(has("rbac.authorization.k8s.io"));
}

}  // namespace
}  // namespace tenure::server
