// PATCH types and their Content-Type names. The algorithms: merge_patch.cc, json_patch.cc,
// strategic_merge_patch.cc.
#include "server/patch.h"

#include <cctype>
#include <string>

namespace tenure::server {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<PatchType> PatchTypeFromContentType(std::string_view content_type) {
  std::string media = Lower(Trim(content_type.substr(0, content_type.find(';'))));
  if (media == "application/merge-patch+json") return PatchType::kMerge;
  if (media == "application/strategic-merge-patch+json") return PatchType::kStrategicMerge;
  if (media == "application/json-patch+json") return PatchType::kJson;
  if (media == "application/apply-patch+yaml") return PatchType::kApply;
  return std::nullopt;
}

std::string_view PatchContentType(PatchType type) {
  switch (type) {
    case PatchType::kMerge:
      return "application/merge-patch+json";
    case PatchType::kStrategicMerge:
      return "application/strategic-merge-patch+json";
    case PatchType::kJson:
      return "application/json-patch+json";
    case PatchType::kApply:
      return "application/apply-patch+yaml";
  }
  return "";
}

}  // namespace tenure::server
