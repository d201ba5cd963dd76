// What a client asked to receive (full objects, a server-side Table, or metadata only), how to
// render stored objects and lists that way, and which objects a list or watch selects.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/kinds.h"
#include "api/object_head.h"
#include "server/http_server.h"
#include "server/selectors.h"
#include "store/store.h"
#include "tenure/clock.h"

namespace tenure::server {

struct ResponseFormat {
  enum class As { kObject, kTable, kPartialMetadata };
  enum class Include { kNone, kMetadata, kObject };  // a Table row's object (includeObject=)
  As as = As::kObject;
  Include include = Include::kMetadata;
};

// Reads Accept and includeObject; NotAcceptable when nothing offered can be served.
Result<ResponseFormat> NegotiateFormat(const HttpRequest& request);

// A Kubernetes Status object response for an error.
HttpResponse ErrorResponse(const Status& status);

std::string RenderObject(const ResponseFormat& format, const api::KindInfo& kind,
                         const std::string& version, const std::string& stored, int64_t revision,
                         const Clock& clock);
// What a page of a paginated list adds to its metadata: the token of the next page (none on the
// last) and, when known, how many items follow.
struct ListPageMeta {
  std::string continue_token;
  std::optional<int64_t> remaining_item_count;
};
std::string RenderList(const ResponseFormat& format, const api::KindInfo& kind,
                       const std::string& version, const std::vector<const store::KeyValue*>& items,
                       int64_t list_revision, const Clock& clock, const ListPageMeta& page = {});

// Label and field selectors of a list, watch or deletecollection request.
class ObjectFilter {
 public:
  static Result<ObjectFilter> FromRequest(const api::KindInfo& kind, const HttpRequest& request);
  void RequireName(const std::string& name) { name_ = name; }
  bool empty() const { return labels_.empty() && fields_.empty() && name_.empty(); }
  // Whether a stored object is selected.
  bool Matches(const api::KindInfo& kind, const std::string& stored) const;
  // Whether the filter asks only what an object's head holds (name, namespace, labels); then
  // MatchesHead decides from a head read with its labels (api::ReadObjectHead).
  bool ReadsOnlyHead() const;
  bool MatchesHead(const api::ObjectHead& head) const;
  // Whether it asks only about the name and the namespace, which no update changes.
  bool SelectsByIdentityOnly() const { return labels_.empty() && ReadsOnlyHead(); }

 private:
  LabelSelector labels_;
  FieldSelector fields_;
  std::string name_;
};

}  // namespace tenure::server
