// LeaseWriters: a lease's successful writes, read from audit log lines.
#include "cli/lease_writers.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "api/canonical_json.h"
#include "server/audit_log.h"

namespace tenure::cli {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string Str(const json& object, const char* key) {
  return std::string(api::internal::StringAt(object, key));
}

}  // namespace

std::vector<LeaseWrite> LeaseWritesIn(const std::vector<std::string>& lines, const std::string& ns,
                                      const std::string& name) {
  std::vector<LeaseWrite> out;
  for (const std::string& line : lines) {
    json event = json::parse(line, nullptr, false);
    if (!event.is_object() || Str(event, "stage") != "ResponseComplete") continue;
    const std::string verb = Str(event, "verb");
    if (verb != "create" && verb != "update" && verb != "patch" && verb != "delete") continue;
    const json& ref = api::internal::Sub(event, "objectRef");
    if (!ref.is_object() || Str(ref, "resource") != "leases" || !Str(ref, "subresource").empty() ||
        Str(ref, "apiGroup") != "coordination.k8s.io" || Str(ref, "namespace") != ns ||
        Str(ref, "name") != name) {
      continue;
    }
    const json* code_value =
        api::internal::Child(api::internal::Sub(event, "responseStatus"), "code");
    const int code =
        code_value != nullptr && code_value->is_number_integer() ? code_value->get<int>() : 0;
    if (code < 200 || code >= 300) continue;
    LeaseWrite write{.time = Str(event, "stageTimestamp"), .verb = verb, .code = code};
    const json& impersonated = api::internal::Sub(event, "impersonatedUser");
    write.user = impersonated.contains("username")
                     ? Str(impersonated, "username")
                     : Str(api::internal::Sub(event, "user"), "username");
    if (auto body = event.find("requestObject"); body != event.end() && body->is_object()) {
      if (auto spec = body->find("spec"); spec != body->end() && spec->is_object()) {
        auto holder = spec->find("holderIdentity");
        if (holder != spec->end()) {
          write.holder = holder->is_string() ? holder->get<std::string>() : std::string();
        }
      }
    }
    out.push_back(std::move(write));
  }
  return out;
}

Result<std::vector<std::string>> ReadAuditLog(const std::string& path) {
  if (!fs::exists(path)) return Status::NotFound("cannot read " + path);
  std::vector<std::string> files = server::AuditLogBackups(path);
  files.push_back(path);
  std::vector<std::string> lines;
  for (const std::string& file : files) {
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace tenure::cli
