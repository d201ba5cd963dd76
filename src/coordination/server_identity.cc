// ServerIdentity: the identity Lease of one tenure serve, renewed, and expired ones collected.
#include "coordination/server_identity.h"

#include <openssl/rand.h>
#include <openssl/sha.h>

#include <nlohmann/json.hpp>

#include "api/time.h"
#include "client/kube_client.h"
#include "tenure/log.h"

namespace tenure::coordination {

using nlohmann::json;

namespace {

constexpr auto kCallTimeout = std::chrono::seconds(5);
constexpr char kLeases[] = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";

void AppendLengthPrefixed(std::string& out, std::string_view text) {
  out += static_cast<char>((text.size() >> 8) & 0xff);
  out += static_cast<char>(text.size() & 0xff);
  out += text;
}

std::string Base32LowerNoPadding(const unsigned char* data, size_t size) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (size_t i = 0; i < size; ++i) {
    buffer = (buffer << 8) | data[i];
    bits += 8;
    while (bits >= 5) {
      out += kAlphabet[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += kAlphabet[(buffer << (5 - bits)) & 31];
  return out;
}

std::string NewUuid() {
  unsigned char b[16];
  if (RAND_bytes(b, sizeof b) != 1) {
    for (auto& c : b) c = static_cast<unsigned char>(std::rand());
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[b[i] >> 4];
    out += kHex[b[i] & 15];
  }
  return out;
}

// A label value Kubernetes accepts: at most 63 of [A-Za-z0-9._-], alphanumeric at both ends.
bool ValidLabelValue(std::string_view v) {
  if (v.empty() || v.size() > 63) return false;
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  for (char c : v) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return alnum(v.front()) && alnum(v.back());
}

}  // namespace

std::string ApiServerId(std::string_view hostname) {
  std::string data;
  AppendLengthPrefixed(data, hostname);
  AppendLengthPrefixed(data, "kube-apiserver");
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  return "apiserver-" + Base32LowerNoPadding(digest, 16);
}

ServerIdentity::ServerIdentity(std::shared_ptr<client::KubeClient> client,
                               ServerIdentityOptions options)
    : client_(std::move(client)), options_(std::move(options)) {
  std::string hashed = options_.hostname;
  if (options_.port != 0) hashed += ":" + std::to_string(options_.port);
  name_ = ApiServerId(hashed);
  holder_ = name_ + "_" + NewUuid();
}

ServerIdentity::~ServerIdentity() { Stop(); }

Result<std::unique_ptr<ServerIdentity>> ServerIdentity::Start(
    std::shared_ptr<client::KubeClient> client, ServerIdentityOptions options) {
  std::unique_ptr<ServerIdentity> identity(new ServerIdentity(std::move(client), options));
  identity->thread_ =
      std::jthread([self = identity.get()](std::stop_token stop) { self->Run(stop); });
  return identity;
}

void ServerIdentity::Stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

Status ServerIdentity::Renew() {
  const std::string path = std::string(kLeases) + "/" + name_;
  const std::string now = api::FormatMicroTime(options_.clock->wall_now());
  json labels = {{std::string(kApiServerIdentityLabel), "kube-apiserver"}};
  if (ValidLabelValue(options_.hostname)) labels["kubernetes.io/hostname"] = options_.hostname;
  auto existing = client_->Call("GET", path, nullptr, kCallTimeout);
  if (!existing.ok() && existing.status().reason() != Reason::kNotFound) return existing.status();
  json lease;
  const bool create = !existing.ok();
  if (create) {
    lease = {{"apiVersion", "coordination.k8s.io/v1"},
             {"kind", "Lease"},
             {"metadata", {{"name", name_}, {"namespace", "kube-system"}}},
             {"spec", json::object()}};
  } else {
    lease = std::move(*existing);
  }
  for (auto& [key, value] : labels.items()) lease["metadata"]["labels"][key] = value;
  json& spec = lease["spec"];
  spec["holderIdentity"] = holder_;
  spec["leaseDurationSeconds"] = options_.lease_duration.count();
  spec["renewTime"] = now;
  auto written = create ? client_->Call("POST", kLeases, &lease, kCallTimeout)
                        : client_->Call("PUT", path, &lease, kCallTimeout);
  return written.status();
}

void ServerIdentity::CollectExpired() {
  auto list = client_->Call("GET",
                            std::string(kLeases) + "?labelSelector=" +
                                std::string(kApiServerIdentityLabel) + "%3Dkube-apiserver",
                            nullptr, kCallTimeout);
  if (!list.ok() || !list->contains("items")) return;
  const api::Timestamp now = options_.clock->wall_now();
  if (!(*list)["items"].is_array()) return;
  for (const json& item : (*list)["items"]) {
    if (!item.is_object() || !item.contains("metadata") || !item["metadata"].is_object()) continue;
    const json& metadata = item["metadata"];
    const std::string name = metadata.value("name", "");
    if (name.empty() || name == name_) continue;
    const json spec = item.value("spec", json::object());
    auto renewed = api::ParseTime(spec.value("renewTime", ""));
    const int64_t duration = spec.value("leaseDurationSeconds", int64_t{0});
    if (!renewed || *renewed + std::chrono::seconds(duration) >= now) continue;
    // Only the version seen: a server that came back and renewed it keeps it.
    json options = {
        {"apiVersion", "v1"},
        {"kind", "DeleteOptions"},
        {"preconditions", {{"resourceVersion", item["metadata"].value("resourceVersion", "")}}}};
    auto deleted =
        client_->Call("DELETE", std::string(kLeases) + "/" + name, &options, kCallTimeout);
    if (deleted.ok()) {
      Log(LogLevel::kInfo, "identity", "collected an expired API server identity Lease",
          {{"lease", name}});
    }
  }
}

void ServerIdentity::Run(std::stop_token stop) {
  // The first renewal and collection at once, then every renew_interval and collect_every. A
  // surprise in a reply (a member of another type) is logged; the renewals go on.
  auto next_collect = options_.clock->now();
  bool renewed = false;
  do {
    try {
      if (Status s = Renew(); !s.ok()) {
        Log(LogLevel::kWarning, "identity", "cannot renew the API server identity Lease",
            {{"lease", name_}, {"error", s.message()}});
      } else {
        renewed = true;
      }
      if (renewed && options_.clock->now() >= next_collect) {
        CollectExpired();
        next_collect = options_.clock->now() + options_.collect_every;
      }
    } catch (const std::exception& e) {
      Log(LogLevel::kError, "identity", "the identity Lease's renewal failed",
          {{"error", e.what()}});
    }
  } while (options_.clock->SleepUntil(options_.clock->now() + options_.renew_interval, stop));
}

}  // namespace tenure::coordination
