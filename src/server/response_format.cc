// NegotiateFormat, RenderObject, RenderList (object, Table, metadata) and ObjectFilter.
#include "server/response_format.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/json_text.h"
#include "api/object_head.h"
#include "api/status_object.h"
#include "server/kind_strategy.h"
#include "server/object_text.h"

namespace tenure::server {

using nlohmann::json;

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// One media range of an Accept header: "application/json;as=Table;v=v1;g=meta.k8s.io".
struct MediaRange {
  std::string_view type;
  std::string_view as, version, group;
};

MediaRange ParseMediaRange(std::string_view text) {
  MediaRange m;
  size_t semi = text.find(';');
  m.type = Trim(text.substr(0, semi));
  while (semi != std::string_view::npos) {
    text = text.substr(semi + 1);
    semi = text.find(';');
    std::string_view param = Trim(text.substr(0, semi));
    size_t eq = param.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = param.substr(0, eq), value = param.substr(eq + 1);
    if (key == "as") m.as = value;
    if (key == "v") m.version = value;
    if (key == "g") m.group = value;
  }
  return m;
}

json PartialObject(const json& object) {
  json meta = object.value("metadata", json::object());
  return {{"kind", "PartialObjectMetadata"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", std::move(meta)}};
}

json TableRow(const ResponseFormat& format, const api::KindInfo& kind, const json& object,
              const Clock& clock) {
  json row = {{"cells", StrategyFor(kind).TableCells(object, clock.wall_now())}};
  if (format.include == ResponseFormat::Include::kMetadata) {
    row["object"] = PartialObject(object);
  } else if (format.include == ResponseFormat::Include::kObject) {
    row["object"] = object;
  }
  return row;
}

// A list's metadata, in ListMeta's field order.
std::string ListMetaText(int64_t revision, const ListPageMeta& page) {
  std::string out = "{\"resourceVersion\":\"" + std::to_string(revision) + "\"";
  if (!page.continue_token.empty()) out += ",\"continue\":" + json(page.continue_token).dump();
  if (page.remaining_item_count) {
    out += ",\"remainingItemCount\":" + std::to_string(*page.remaining_item_count);
  }
  return out + "}";
}

json ListMetaJson(int64_t revision, const ListPageMeta& page) {
  return json::parse(ListMetaText(revision, page));
}

json Table(const api::KindInfo& kind, int64_t revision, json rows, const ListPageMeta& page = {}) {
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", ListMetaJson(revision, page)},
          {"columnDefinitions", StrategyFor(kind).TableColumns()},
          {"rows", std::move(rows)}};
}

}  // namespace

Result<ResponseFormat> NegotiateFormat(const HttpRequest& request) {
  ResponseFormat format;
  std::string include = request.param("includeObject");
  if (include == "None") format.include = ResponseFormat::Include::kNone;
  if (include == "Object") format.include = ResponseFormat::Include::kObject;
  std::string accept = request.header("accept");
  if (accept.empty()) return format;
  std::string_view rest = accept;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    MediaRange m = ParseMediaRange(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    bool json_type = m.type == "application/json" || m.type == "*/*" || m.type == "application/*";
    if (!json_type) continue;
    if (m.as.empty()) return format;
    if (m.group == "meta.k8s.io" && (m.version == "v1" || m.version == "v1beta1")) {
      if (m.as == "Table") {
        format.as = ResponseFormat::As::kTable;
        return format;
      }
      if (m.as == "PartialObjectMetadata" || m.as == "PartialObjectMetadataList") {
        format.as = ResponseFormat::As::kPartialMetadata;
        return format;
      }
    }
  }
  return Status(Reason::kNotAcceptable,
                "only the following media types are accepted: application/json, "
                "application/json;as=Table;v=v1;g=meta.k8s.io, "
                "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io");
}

HttpResponse ErrorResponse(const Status& status) {
  HttpResponse r;
  r.status = status.code();
  r.body = api::StatusToJsonText(status);
  if (status.details().retry_after_seconds > 0) {
    r.headers.emplace_back("Retry-After", std::to_string(status.details().retry_after_seconds));
  }
  return r;
}

std::string RenderObject(const ResponseFormat& format, const api::KindInfo& kind,
                         const std::string& version, const std::string& stored, int64_t revision,
                         const Clock& clock) {
  std::string text = ObjectText(kind, version, stored, revision);
  if (format.as == ResponseFormat::As::kObject) return text;
  json object = api::ParseJsonOrThrow(text);
  if (format.as == ResponseFormat::As::kPartialMetadata) return PartialObject(object).dump();
  return Table(kind, revision, json::array({TableRow(format, kind, object, clock)})).dump();
}

std::string RenderList(const ResponseFormat& format, const api::KindInfo& kind,
                       const std::string& version, const std::vector<const store::KeyValue*>& items,
                       int64_t list_revision, const Clock& clock, const ListPageMeta& page) {
  if (format.as == ResponseFormat::As::kObject) {
    // Assembled as text: a list of 100,000 leases is not parsed again.
    std::string out = "{\"apiVersion\":\"" + kind.api_version(version) + "\",\"items\":[";
    bool first = true;
    for (const store::KeyValue* kv : items) {
      if (!first) out += ',';
      first = false;
      out += ObjectText(kind, version, kv->value, kv->mod_revision);
    }
    out += "],\"kind\":\"" + std::string(kind.list_kind) +
           "\",\"metadata\":" + ListMetaText(list_revision, page) + "}";
    return out;
  }
  json rows = json::array();
  json partial_items = json::array();
  for (const store::KeyValue* kv : items) {
    json object = api::ParseJsonOrThrow(ObjectText(kind, version, kv->value, kv->mod_revision));
    if (format.as == ResponseFormat::As::kTable) {
      rows.push_back(TableRow(format, kind, object, clock));
    } else {
      partial_items.push_back(PartialObject(object));
    }
  }
  if (format.as == ResponseFormat::As::kTable)
    return Table(kind, list_revision, std::move(rows), page).dump();
  return json{{"kind", "PartialObjectMetadataList"},
              {"apiVersion", "meta.k8s.io/v1"},
              {"metadata", ListMetaJson(list_revision, page)},
              {"items", std::move(partial_items)}}
      .dump();
}

Result<ObjectFilter> ObjectFilter::FromRequest(const api::KindInfo& kind,
                                               const HttpRequest& request) {
  ObjectFilter filter;
  auto labels = LabelSelector::Parse(request.param("labelSelector"));
  if (!labels.ok()) return labels.status();
  auto fields = FieldSelector::Parse(request.param("fieldSelector"));
  if (!fields.ok()) return fields.status();
  // Reject unsupported field labels up front, as kube-apiserver does.
  json probe = {{"metadata", json::object()}};
  for (const auto& r : fields->requirements()) {
    auto value = api::SelectableField(kind, probe, r.key);
    if (!value.ok()) return value.status();
  }
  filter.labels_ = std::move(*labels);
  filter.fields_ = std::move(*fields);
  return filter;
}

bool ObjectFilter::ReadsOnlyHead() const {
  return std::all_of(fields_.requirements().begin(), fields_.requirements().end(),
                     [](const Requirement& r) {
                       return r.key == "metadata.name" || r.key == "metadata.namespace";
                     });
}

bool ObjectFilter::MatchesHead(const api::ObjectHead& head) const {
  if (!name_.empty() && head.name != name_) return false;
  if (!labels_.empty() && !labels_.Matches(head.labels)) return false;
  for (const auto& r : fields_.requirements()) {
    bool equal = (r.key == "metadata.name" ? head.name : head.namespace_) == r.values[0];
    if ((r.op == Requirement::Op::kEquals) != equal) return false;
  }
  return true;
}

bool ObjectFilter::Matches(const api::KindInfo& kind, const std::string& stored) const {
  if (empty()) return true;
  // Labels, the name and the namespace are in the metadata: read without a parsed tree, since a
  // filtered watch asks this of every event of its collection.
  if (api::ObjectHead head;
      ReadsOnlyHead() && api::ReadObjectHead(stored, head, /*with_labels=*/!labels_.empty())) {
    return MatchesHead(head);
  }
  json object = api::ParseJson(stored);
  if (!object.is_object()) return false;
  const json& meta = object["metadata"];
  if (!name_.empty() && meta.value("name", "") != name_) return false;
  if (!labels_.empty()) {
    std::map<std::string, std::string> labels;
    if (auto it = meta.find("labels"); it != meta.end() && it->is_object()) {
      for (const auto& [k, v] : it->items()) {
        if (v.is_string()) labels[k] = v.get<std::string>();
      }
    }
    if (!labels_.Matches(labels)) return false;
  }
  for (const auto& r : fields_.requirements()) {
    auto value = api::SelectableField(kind, object, r.key);
    if (!value.ok()) return false;
    bool equal = *value == r.values[0];
    if ((r.op == Requirement::Op::kEquals) != equal) return false;
  }
  return true;
}

}  // namespace tenure::server
