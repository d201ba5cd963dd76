// tenure-elect: one election candidate as a process, printing what happens as JSON lines.
// Used by the integration tests (several candidates, kill -9, fencing) and as a small example
// of the library:
//   tenure-elect --kubeconfig F --lock NS/NAME --identity ID [--configmap] [--release-on-cancel]
//                [--servers URL,URL]  (replicas of the kubeconfig's server, same credentials:
//                                      requests move to the next one when one fails)
//                [--lease-duration S --renew-deadline S --retry-period S]
//                [--fence-port P]   (while leading, write {token, identity, seq} to a fencing
//                                    checker on 127.0.0.1:P every 50 ms)
//                [--stop-delay S]   (the leader's work takes S seconds to stop after its stop
//                                    token fired; "work-ended" is printed when it has)
//                [--drain-timeout S] (how long a graceful handover waits for that work)
//                SIGUSR1 gives leadership up and stays a candidate (Elector::Yield);
//                SIGINT/SIGTERM stop the candidate.
//                [--coordinated --binary-version V --emulation-version V [--strategy S]]
//                                   (coordinated leader election: register a LeaseCandidate named
//                                    ID for the lease and let the server's controller pick the
//                                    leader; the elector only renews a lease assigned to it and
//                                    stays a candidate after a preemption)
#include <signal.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "fence_client.h"
#include "tenure/candidate.h"
#include "tenure/elector.h"
#include "tenure/kube_locks.h"

namespace {

std::mutex out_mu;
void Print(const std::string& line) {
  std::lock_guard lock(out_mu);
  std::cout << line << std::endl;
}

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

double Seconds(const char* text) { return std::atof(text); }

}  // namespace

int main(int argc, char** argv) {
  std::string kubeconfig, servers, lock_name, identity;
  bool configmap = false, release = false, coordinated = false;
  std::string binary_version, emulation_version, strategy = tenure::kOldestEmulationVersion;
  double lease = 15, renew = 10, retry = 2;
  int fence_port = 0;
  double stop_delay = 0;
  std::optional<double> drain_timeout;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--kubeconfig")
      kubeconfig = next();
    else if (a == "--servers")
      servers = next();
    else if (a == "--lock")
      lock_name = next();
    else if (a == "--identity")
      identity = next();
    else if (a == "--configmap")
      configmap = true;
    else if (a == "--release-on-cancel")
      release = true;
    else if (a == "--lease-duration")
      lease = Seconds(next());
    else if (a == "--renew-deadline")
      renew = Seconds(next());
    else if (a == "--retry-period")
      retry = Seconds(next());
    else if (a == "--stop-delay")
      stop_delay = Seconds(next());
    else if (a == "--drain-timeout")
      drain_timeout = Seconds(next());
    else if (a == "--fence-port")
      fence_port = std::atoi(next());
    else if (a == "--coordinated")
      coordinated = true;
    else if (a == "--binary-version")
      binary_version = next();
    else if (a == "--emulation-version")
      emulation_version = next();
    else if (a == "--strategy")
      strategy = next();
    else {
      std::cerr << "unknown argument " << a << "\n";
      return 2;
    }
  }
  size_t slash = lock_name.find('/');
  if (lock_name.empty() || identity.empty() || slash == std::string::npos) {
    std::cerr << "usage: tenure-elect --kubeconfig F --lock NS/NAME --identity ID\n";
    return 2;
  }
  if (coordinated && configmap) {
    std::cerr << "tenure-elect: --coordinated needs a Lease lock (not --configmap)\n";
    return 2;
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  tenure::ClusterOptions cluster_options{.kubeconfig = kubeconfig};
  if (!servers.empty()) cluster_options.servers = {servers};
  auto cluster = tenure::Cluster::Connect(cluster_options);
  if (!cluster.ok()) {
    std::cerr << "tenure-elect: " << cluster.status().ToString() << "\n";
    return 1;
  }
  tenure::KubeLockOptions lock_options{lock_name.substr(0, slash), lock_name.substr(slash + 1),
                                       identity, true};
  std::unique_ptr<tenure::CandidateRegistrar> registrar;
  if (coordinated) {
    tenure::CandidateOptions candidate;
    candidate.namespace_ = lock_options.namespace_;
    candidate.identity = identity;
    candidate.lease_name = lock_options.name;
    candidate.binary_version = binary_version;
    candidate.emulation_version = emulation_version;
    candidate.strategy = strategy;
    auto started = tenure::CandidateRegistrar::Start(*cluster, candidate);
    if (!started.ok()) {
      std::cerr << "tenure-elect: LeaseCandidate: " << started.status().ToString() << "\n";
      return started.status().reason() == tenure::Reason::kInvalid ? 2 : 1;
    }
    registrar = std::move(*started);
    Print("{\"event\":\"candidate\",\"identity\":" + Quote(identity) +
          ",\"apiVersion\":" + Quote(registrar->api_version()) + "}");
  }
  tenure::ElectionConfig config;
  config.lock = configmap ? tenure::NewConfigMapLock(*cluster, lock_options)
                          : tenure::NewLeaseLock(*cluster, lock_options);
  auto to_ns = [](double s) { return std::chrono::nanoseconds(static_cast<int64_t>(s * 1e9)); };
  config.lease_duration = to_ns(lease);
  config.renew_deadline = to_ns(renew);
  config.retry_period = to_ns(retry);
  config.release_on_cancel = release;
  if (drain_timeout) config.drain_timeout = to_ns(*drain_timeout);
  if (coordinated) {
    config.coordinated = true;
    // Still registered after a preemption, so still a candidate the controller may pick again.
    config.recontend_after = config.retry_period;
  }
  config.callbacks.on_started_leading = [fence_port, identity, stop_delay](
                                            std::stop_token stop, const tenure::LeaderTerm& term) {
    std::string token = std::to_string(term.fencing_token);
    Print("{\"event\":\"started\",\"identity\":" + Quote(identity) + ",\"token\":" + token + "}");
    std::optional<FenceClient> fence;
    if (fence_port != 0) fence.emplace(static_cast<uint16_t>(fence_port));
    // Until the stop token fires, then for stop_delay more: work that takes time to wind down.
    std::mutex mu;
    std::condition_variable_any cv;
    std::optional<std::chrono::steady_clock::time_point> stop_at;
    std::stop_callback on_stop(stop, [&] {
      std::lock_guard lock(mu);
      stop_at = std::chrono::steady_clock::now() +
                std::chrono::nanoseconds(static_cast<int64_t>(stop_delay * 1e9));
      cv.notify_all();
    });
    for (long seq = 0;; ++seq) {
      {
        std::unique_lock lock(mu);
        if (stop_at && std::chrono::steady_clock::now() >= *stop_at) break;
      }
      if (fence) {
        std::string body = "{\"token\":" + token + ",\"identity\":" + Quote(identity) +
                           ",\"seq\":" + std::to_string(seq) + "}";
        if (fence->Post("/write", body, std::chrono::seconds(2)) == 409) {
          Print("{\"event\":\"fenced\",\"token\":" + token + "}");
        }
      }
      std::unique_lock lock(mu);
      auto wake = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
      if (stop_at) wake = std::min(wake, *stop_at);
      cv.wait_until(lock, wake,
                    [&] { return stop_at && std::chrono::steady_clock::now() >= *stop_at; });
    }
    Print("{\"event\":\"work-ended\",\"identity\":" + Quote(identity) + ",\"token\":" + token +
          "}");
  };
  config.callbacks.on_stopped_leading = [identity] {
    Print("{\"event\":\"stopped\",\"identity\":" + Quote(identity) + "}");
  };
  config.callbacks.on_new_leader = [](const std::string& leader) {
    Print("{\"event\":\"leader\",\"identity\":" + Quote(leader) + "}");
  };
  auto elector = tenure::Elector::Create(std::move(config));
  if (!elector.ok()) {
    std::cerr << "tenure-elect: " << elector.status().ToString() << "\n";
    return 2;
  }
  std::shared_ptr<tenure::Elector> shared(std::move(*elector));
  tenure::ElectionHandle handle(shared);
  Print("{\"event\":\"ready\",\"identity\":" + Quote(identity) + "}");
  int signal = 0;
  while (sigwait(&signals, &signal) == 0 && signal == SIGUSR1) shared->Yield();
  // The candidate goes first: the controller must not assign the lease we are about to release.
  if (registrar) (void)registrar->Stop();
  handle.Stop();
  Print("{\"event\":\"exit\",\"identity\":" + Quote(identity) + "}");
  return 0;
}
