#include "client/kube_client.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "api/status_object.h"
#include "client/watch_multiplexer.h"

namespace tenure::client {

namespace {
constexpr size_t kMaxConnections = 8;
}

KubeClient::KubeClient(ClusterConfig config) : config_(std::move(config)) {}

KubeClient::~KubeClient() { watches_.reset(); }

Result<std::shared_ptr<KubeClient>> KubeClient::Create(ClusterConfig config) {
  auto client = std::shared_ptr<KubeClient>(new KubeClient(std::move(config)));
  client->watches_ = std::make_unique<WatchMultiplexer>(*client);
  return client;
}

std::string KubeClient::BearerToken() {
  if (config_.token_file.empty()) return config_.token;
  std::error_code ec;
  auto mtime = std::filesystem::last_write_time(config_.token_file, ec);
  std::lock_guard lock(mu_);
  if (!ec && (file_token_.empty() || mtime != token_mtime_)) {
    std::ifstream in(config_.token_file);
    std::string token((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
    if (!token.empty()) {
      file_token_ = token;
      token_mtime_ = mtime;
    }
  }
  return file_token_.empty() ? config_.token : file_token_;
}

std::vector<std::pair<std::string, std::string>> KubeClient::Headers(
    const std::string& content_type) {
  std::vector<std::pair<std::string, std::string>> headers = {{"Accept", "application/json"}};
  if (!content_type.empty()) headers.emplace_back("Content-Type", content_type);
  std::string token = BearerToken();
  if (!token.empty()) headers.emplace_back("Authorization", "Bearer " + token);
  return headers;
}

std::unique_ptr<HttpConnection> KubeClient::NewConnection() const {
  return std::make_unique<HttpConnection>(config_.endpoint);
}

Result<std::unique_ptr<HttpConnection>> KubeClient::TakeConnection(
    std::chrono::nanoseconds timeout) {
  std::unique_lock lock(mu_);
  bool available = connection_freed_.wait_for(lock, timeout, [&] {
    return !idle_.empty() || connections_ < kMaxConnections;
  });
  if (!available) return Status::Timeout("no connection to " + config_.server + " became free in time");
  if (!idle_.empty()) {
    auto c = std::move(idle_.back());
    idle_.pop_back();
    return c;
  }
  ++connections_;
  lock.unlock();
  return NewConnection();
}

void KubeClient::ReturnConnection(std::unique_ptr<HttpConnection> connection) {
  {
    std::lock_guard lock(mu_);
    if (connection) {
      idle_.push_back(std::move(connection));
    } else {
      --connections_;  // it failed and was dropped
    }
  }
  connection_freed_.notify_one();
}

Result<nlohmann::json> KubeClient::Call(const std::string& method, const std::string& path,
                                        const nlohmann::json* body,
                                        std::chrono::nanoseconds timeout,
                                        const std::string& content_type) {
  auto started = std::chrono::steady_clock::now();
  auto taken = TakeConnection(timeout);
  if (!taken.ok()) return taken.status();
  std::unique_ptr<HttpConnection> connection = std::move(*taken);
  ++requests_;
  auto left = timeout - (std::chrono::steady_clock::now() - started);
  auto ms = std::max<std::chrono::milliseconds>(
      std::chrono::milliseconds(1), std::chrono::duration_cast<std::chrono::milliseconds>(left));
  auto reply = connection->Request(method, config_.path_prefix + path,
                                   Headers(body ? content_type : ""), body ? body->dump() : "", ms);
  if (!reply.ok()) {
    ReturnConnection(nullptr);  // a failed connection is dropped
    return reply.status();
  }
  ReturnConnection(std::move(connection));
  if (reply->status >= 400) return api::StatusFromResponse(reply->status, reply->body);
  nlohmann::json parsed = nlohmann::json::parse(reply->body, nullptr, false);
  if (parsed.is_discarded()) {
    return Status::Internal("the server sent a reply that is not JSON (HTTP " +
                            std::to_string(reply->status) + ")");
  }
  return parsed;
}

std::unique_ptr<Subscription> KubeClient::WatchObject(const std::string& collection_path,
                                                      const std::string& name,
                                                      ObjectEventHandler handler) {
  return watches_->Subscribe(collection_path, name, std::move(handler));
}

}  // namespace tenure::client
