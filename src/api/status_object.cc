// StatusToJson and StatusFromResponse: tenure::Status to and from the meta/v1 Status object.
#include "api/status_object.h"

#include <nlohmann/json.hpp>

namespace tenure::api {

nlohmann::json StatusToJson(const Status& status) {
  nlohmann::json out = {
      {"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()}};
  out["status"] = status.ok() ? "Success" : "Failure";
  if (!status.message().empty()) out["message"] = status.message();
  if (!status.ok()) out["reason"] = std::string(status.reason_name());
  const StatusDetails& d = status.details();
  nlohmann::json details = nlohmann::json::object();
  if (!d.name.empty()) details["name"] = d.name;
  if (!d.group.empty()) details["group"] = d.group;
  if (!d.kind.empty()) details["kind"] = d.kind;
  if (!d.uid.empty()) details["uid"] = d.uid;
  if (d.retry_after_seconds > 0) details["retryAfterSeconds"] = d.retry_after_seconds;
  if (!status.causes().empty()) {
    nlohmann::json causes = nlohmann::json::array();
    for (const auto& c : status.causes()) {
      nlohmann::json cause = nlohmann::json::object();
      if (!c.type.empty()) cause["reason"] = c.type;
      if (!c.message.empty()) cause["message"] = c.message;
      if (!c.field.empty()) cause["field"] = c.field;
      causes.push_back(std::move(cause));
    }
    details["causes"] = std::move(causes);
  }
  if (!details.empty()) out["details"] = std::move(details);
  out["code"] = status.code();
  return out;
}

// Messages quote what the client sent (a name from the URL, a selector), which need not be UTF-8:
// invalid bytes become U+FFFD instead of failing the answer.
std::string StatusToJsonText(const Status& status) {
  return StatusToJson(status).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Status StatusFromResponse(int http_code, std::string_view body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_object() || j.value("kind", "") != "Status") {
    std::string text(body.substr(0, 512));
    Reason reason = Status::ReasonFromName("", http_code);
    return Status(reason, "the server responded with HTTP " + std::to_string(http_code) +
                              (text.empty() ? "" : ": " + text));
  }
  auto str = [](const nlohmann::json& o, const char* key) {
    auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  int code = http_code;
  if (auto it = j.find("code"); it != j.end() && it->is_number_integer()) code = it->get<int>();
  Reason reason = Status::ReasonFromName(str(j, "reason"), code);
  std::vector<StatusCause> causes;
  StatusDetails details;
  if (auto it = j.find("details"); it != j.end() && it->is_object()) {
    details.name = str(*it, "name");
    details.group = str(*it, "group");
    details.kind = str(*it, "kind");
    details.uid = str(*it, "uid");
    if (auto r = it->find("retryAfterSeconds"); r != it->end() && r->is_number_integer()) {
      details.retry_after_seconds = r->get<int>();
    }
    if (auto c = it->find("causes"); c != it->end() && c->is_array()) {
      for (const auto& cause : *c) {
        if (!cause.is_object()) continue;
        causes.push_back({str(cause, "reason"), str(cause, "message"), str(cause, "field")});
      }
    }
  }
  Status status(reason, str(j, "message"), std::move(causes));
  status.set_details(std::move(details));
  return status;
}

}  // namespace tenure::api
