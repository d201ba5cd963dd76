// Stored object text as sent to clients: WithResourceVersion, StoredMetadata, ObjectText.
#include "server/object_text.h"

#include <nlohmann/json.hpp>

#include "api/json_text.h"

namespace tenure::server {

std::string WithResourceVersion(std::string_view stored, int64_t revision) {
  static constexpr std::string_view kMetadata = "\"metadata\":{";
  std::string rv = "\"resourceVersion\":\"" + std::to_string(revision) + "\"";
  std::string out;
  out.reserve(stored.size() + rv.size() + 1);
  size_t at = revision == 0 ? std::string_view::npos : stored.find(kMetadata);
  if (at == std::string_view::npos) {
    out.assign(stored);
    return out;
  }
  size_t insert = at + kMetadata.size();
  out.append(stored.substr(0, insert));
  out += rv;
  if (insert < stored.size() && stored[insert] != '}') out += ',';
  out.append(stored.substr(insert));
  return out;
}

std::string_view StoredMetadata(std::string_view stored) {
  static constexpr std::string_view kMetadata = "\"metadata\":";
  size_t at = stored.find(kMetadata);
  if (at == std::string_view::npos) return {};
  size_t begin = at + kMetadata.size();
  if (begin >= stored.size() || stored[begin] != '{') return {};
  int depth = 0;
  bool in_string = false;
  for (size_t i = begin; i < stored.size(); ++i) {
    char c = stored[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return stored.substr(begin, i + 1 - begin);
    }
  }
  return {};
}

namespace {

// `out` (canonical object text) with the apiVersion of `version`.
std::string AtVersion(const api::KindInfo& kind, std::string_view version, std::string out) {
  static constexpr std::string_view kApiVersion = "{\"apiVersion\":\"";
  if (out.compare(0, kApiVersion.size(), kApiVersion) != 0) return out;
  size_t start = kApiVersion.size();
  size_t end = out.find('"', start);
  std::string wanted = kind.api_version(version);
  if (end != std::string::npos && out.compare(start, end - start, wanted) != 0) {
    out.replace(start, end - start, wanted);
  }
  return out;
}

}  // namespace

std::string ObjectText(const api::KindInfo& kind, std::string_view version, std::string_view stored,
                       int64_t revision) {
  if (kind.from_storage != nullptr) {
    return AtVersion(kind, version,
                     WithResourceVersion(api::DumpJson(ServedObject(kind, stored)), revision));
  }
  return AtVersion(kind, version, WithResourceVersion(stored, revision));
}

nlohmann::json ServedObject(const api::KindInfo& kind, std::string_view stored) {
  nlohmann::json object = api::ParseJsonOrThrow(stored);
  // (Not a conditional expression: its `object` branch would copy the tree.)
  if (kind.from_storage != nullptr) return kind.from_storage(object);
  return object;
}

std::string StoredValue(const api::KindInfo& kind, const nlohmann::json& object) {
  std::string value =
      kind.to_storage != nullptr ? api::DumpJson(kind.to_storage(object)) : api::DumpJson(object);
  // The text is written by appending, which leaves up to as much room again unused. The value is
  // kept for as long as it is current, and then in the histories (about five versions of a renewed
  // Lease): the room would be a third of the server's memory.
  value.shrink_to_fit();
  return value;
}

}  // namespace tenure::server
