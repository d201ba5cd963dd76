// OpenAPI documents for kubectl: /openapi/v3 (index and one document per group-version) and the
// /openapi/v2 fallback.
//
// kubectl reads them to decide that the server validates fields itself (a patch operation with a
// fieldValidation query parameter per kind, so it sends fieldValidation=Strict), to print
// `kubectl explain` (components.schemas with Kubernetes' names, descriptions and
// x-kubernetes-group-version-kind), and to compute client-side apply's strategic merge patches
// (x-kubernetes-patch-strategy / -merge-key on metadata.finalizers, ownerReferences, ...).
// Schemas follow kube-apiserver's documents (reduced: descriptions and structure of the fields
// tenure's kinds have). Documents are deterministic: the same served set gives byte-identical
// documents and hashes.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/discovery.h"

namespace tenure::server {

// The key of a group-version in the /openapi/v3 index: "api/v1" or "apis/<group>/<version>".
std::string OpenApiV3Key(std::string_view group, std::string_view version);

// The OpenAPI 3.0 document of one group-version (GET /openapi/v3/<key>), or nullopt when nothing
// is served there (404).
std::optional<nlohmann::json> OpenApiV3Document(const std::vector<ServedVersion>& served,
                                                std::string_view group, std::string_view version);

// The stable hash of a document: uppercase hex SHA-512 of its serialization, as kube-apiserver.
std::string OpenApiHash(const nlohmann::json& document);

// GET /openapi/v3: {"paths":{"<key>":{"serverRelativeURL":"/openapi/v3/<key>?hash=<H>"},...}}.
nlohmann::json OpenApiV3Index(const std::vector<ServedVersion>& served);

// Every /openapi/v3 body, and the /openapi/v2 bodies made from them, precomputed once (the
// served set does not change while the server runs).
// Reply to GET /openapi/v3/<key>[?hash=...] with Document(key)->body as application/json; the
// hash may serve as ETag, and with a matching ?hash= the reply may carry
// "Cache-Control: public, immutable" (kube-apiserver redirects a stale hash to the current URL
// with 301; serving the current document instead is fine for kubectl).
class OpenApiDocuments {
 public:
  struct Document {
    std::string body;
    std::string hash;
  };

  explicit OpenApiDocuments(const std::vector<ServedVersion>& served);

  const std::string& index_body() const { return index_body_; }
  // GET /openapi/v2 as JSON: every group-version in one Swagger 2.0 document (openapi_v2.h).
  const std::string& v2_json_body() const { return v2_json_body_; }
  // The same document as protobuf (openapi_v2_proto.h).
  const std::string& v2_protobuf_body() const { return v2_protobuf_body_; }
  // `key` is the request path after "/openapi/v3/" without the query
  // ("apis/coordination.k8s.io/v1"); nullptr when there is no such document (404).
  const Document* Find(std::string_view key) const;

 private:
  std::string index_body_;
  std::string v2_json_body_;
  std::string v2_protobuf_body_;
  std::map<std::string, Document, std::less<>> documents_;
};

// GET /openapi/v2: the Swagger 2.0 document as protobuf when the client asks for it (kubectl's
// explain --output=plaintext-openapiv2, client-go's OpenAPISchema), else as JSON.
struct OpenApiV2Reply {
  int status = 200;
  std::string content_type;
  std::string body;
};
OpenApiV2Reply OpenApiV2(std::string_view accept_header, const OpenApiDocuments& documents);

}  // namespace tenure::server
