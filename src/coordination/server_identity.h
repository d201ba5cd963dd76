// ServerIdentity: kube-apiserver's identity Lease (the APIServerIdentity feature) for one
// `tenure serve`: kube-system/apiserver-<id>, labelled apiserver.kubernetes.io/identity:
// kube-apiserver and kubernetes.io/hostname, held by "<lease name>_<uuid>" for 3600 s and renewed
// every 10 s, so that clients (the dashboard, `kubectl get leases -n kube-system -l
// apiserver.kubernetes.io/identity`) can count the servers that run. Identity Leases that expired
// (renewTime + their 3600 s passed) are deleted, as kube-apiserver collects them.
//
// The id is kube's: "apiserver-" + the first 16 bytes of SHA-256 over the length-prefixed host
// name and "kube-apiserver", in lower-case unpadded base32. Several tenure servers may share a
// host (replicas on one machine), so the name hashed is "HOST:PORT" unless the port is 0.
// A client of the API like the coordination controller: it writes through a KubeClient whose
// user may get, list, create, update and delete Leases in kube-system. Thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "tenure/clock.h"
#include "tenure/status.h"

namespace tenure::client {
class KubeClient;
}

namespace tenure::coordination {

inline constexpr std::string_view kApiServerIdentityLabel = "apiserver.kubernetes.io/identity";

// "apiserver-" + lower(base32(sha256(u16 len + `hostname`, u16 len + "kube-apiserver"))[:16
// bytes]).
std::string ApiServerId(std::string_view hostname);

struct ServerIdentityOptions {
  std::string hostname;  // the kubernetes.io/hostname label (a valid label value, or none)
  uint16_t port = 0;     // hashed with the host name when not 0
  std::chrono::seconds lease_duration{3600};
  std::chrono::seconds renew_interval{10};
  std::chrono::seconds collect_every{600};  // how often expired identity Leases are looked for
  std::shared_ptr<Clock> clock = Clock::Real();
};

class ServerIdentity {
 public:
  // Renews the Lease on a thread of its own, from now on (a server that cannot answer yet, an
  // etcd replica starting, is tried again every renew_interval; each failure is logged).
  static Result<std::unique_ptr<ServerIdentity>> Start(std::shared_ptr<client::KubeClient> client,
                                                       ServerIdentityOptions options);
  ~ServerIdentity();  // Stop()
  // Ends the renewals; the Lease stays (it expires, and another server collects it).
  void Stop();
  const std::string& lease_name() const { return name_; }
  const std::string& holder() const { return holder_; }

 private:
  ServerIdentity(std::shared_ptr<client::KubeClient> client, ServerIdentityOptions options);
  Status Renew();
  void CollectExpired();
  void Run(std::stop_token stop);

  std::shared_ptr<client::KubeClient> client_;
  ServerIdentityOptions options_;
  std::string name_;
  std::string holder_;
  std::jthread thread_;
};

}  // namespace tenure::coordination
