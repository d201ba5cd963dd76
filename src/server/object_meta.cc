// MetadataString, FillSystemFields (uid, creationTimestamp) and GeneratedName.
#include "server/object_meta.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>

#include "api/time.h"

namespace tenure::server {
std::string NewUid() {
  thread_local std::mt19937_64 rng(std::random_device{}());
  uint64_t a = rng(), b = rng();
  a = (a & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 10
  char out[37];
  std::snprintf(out, sizeof out, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xffff),
                static_cast<unsigned>(b >> 48),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return out;
}

std::string MetadataString(const nlohmann::json& object, const char* field) {
  auto s = object.find("metadata");
  if (s == object.end() || !s->is_object()) return "";
  auto f = s->find(field);
  return f != s->end() && f->is_string() ? f->get<std::string>() : "";
}

void FillSystemFields(nlohmann::json& object, const Clock& clock) {
  nlohmann::json& meta = object["metadata"];
  meta["uid"] = NewUid();
  meta["creationTimestamp"] = api::FormatTime(clock.wall_now());
}

std::string GeneratedName(const std::string& generate_name) {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";  // as kube's rand.String
  thread_local std::mt19937 rng(std::random_device{}());
  std::string out = generate_name;
  for (int i = 0; i < 5; ++i) out.push_back(kAlphabet[rng() % (sizeof kAlphabet - 1)]);
  return out;
}

}  // namespace tenure::server
