// FormatLeaderAnnotation and ParseLeaderAnnotation: the leader record as annotation JSON.
#include "election/leader_annotation.h"

#include <nlohmann/json.hpp>

#include "api/time.h"

namespace tenure {

using nlohmann::json;

namespace {

// RFC 3339, or the Python client's naive "2026-11-29 23:05:24.543753" (taken as UTC).
std::chrono::system_clock::time_point TolerantTime(const json& record, const char* field) {
  auto it = record.find(field);
  if (it == record.end() || !it->is_string()) return {};
  std::string text = it->get<std::string>();
  if (auto t = api::ParseTime(text)) return *t;
  if (text.size() > 10 && text[10] == ' ') {
    text[10] = 'T';
    if (auto t = api::ParseTime(text + "Z")) return *t;
  }
  return {};
}

int TolerantInt(const json& record, const char* field) {
  auto it = record.find(field);
  if (it == record.end()) return 0;
  if (it->is_number_integer()) return it->get<int>();
  if (it->is_string()) {
    try {
      return std::stoi(it->get<std::string>());
    } catch (...) {
      return 0;
    }
  }
  return 0;
}

}  // namespace

// Times with microseconds, as the Python client writes them and client-go's RFC 3339 parser
// accepts: with whole seconds (client-go's own writer) most renewals would leave the record's
// bytes unchanged, the server keeps such a write's resourceVersion, and others would count a
// lease from the renewal that last changed a second, up to a second older than the newest one.
std::string FormatLeaderAnnotation(const LeaderElectionRecord& r) {
  json record = {{"holderIdentity", r.holder_identity},
                 {"leaseDurationSeconds", r.lease_duration_seconds},
                 {"acquireTime", api::FormatMicroTime(r.acquire_time)},
                 {"renewTime", api::FormatMicroTime(r.renew_time)},
                 {"leaderTransitions", r.leader_transitions}};
  return record.dump();
}

LeaderElectionRecord ParseLeaderAnnotation(const std::string& text) {
  LeaderElectionRecord r;
  if (text.empty()) return r;
  json record = json::parse(text, nullptr, false);
  if (!record.is_object()) return r;
  r.holder_identity = record.value("holderIdentity", "");
  r.lease_duration_seconds = TolerantInt(record, "leaseDurationSeconds");
  r.acquire_time = TolerantTime(record, "acquireTime");
  r.renew_time = TolerantTime(record, "renewTime");
  r.leader_transitions = TolerantInt(record, "leaderTransitions");
  return r;
}

}  // namespace tenure
