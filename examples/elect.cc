// tenure-elect: one election candidate as a process, printing what happens as JSON lines.
// Used by the integration tests (several candidates, kill -9, fencing) and as a small example
// of the library:
//   tenure-elect --kubeconfig F --lock NS/NAME --identity ID [--configmap] [--release-on-cancel]
//                [--lease-duration S --renew-deadline S --retry-period S]
//                [--fence-port P]   (while leading, write {token, identity, seq} to a fencing
//                                    checker on 127.0.0.1:P every 50 ms)
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>

#include "client/http_connection.h"
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
  std::string kubeconfig, lock_name, identity;
  bool configmap = false, release = false;
  double lease = 15, renew = 10, retry = 2;
  int fence_port = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--kubeconfig") kubeconfig = next();
    else if (a == "--lock") lock_name = next();
    else if (a == "--identity") identity = next();
    else if (a == "--configmap") configmap = true;
    else if (a == "--release-on-cancel") release = true;
    else if (a == "--lease-duration") lease = Seconds(next());
    else if (a == "--renew-deadline") renew = Seconds(next());
    else if (a == "--retry-period") retry = Seconds(next());
    else if (a == "--fence-port") fence_port = std::atoi(next());
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
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto cluster = tenure::Cluster::Connect({.kubeconfig = kubeconfig});
  if (!cluster.ok()) {
    std::cerr << "tenure-elect: " << cluster.status().ToString() << "\n";
    return 1;
  }
  tenure::KubeLockOptions lock_options{lock_name.substr(0, slash), lock_name.substr(slash + 1),
                                       identity, true};
  tenure::ElectionConfig config;
  config.lock = configmap ? tenure::NewConfigMapLock(*cluster, lock_options)
                          : tenure::NewLeaseLock(*cluster, lock_options);
  auto to_ns = [](double s) { return std::chrono::nanoseconds(static_cast<int64_t>(s * 1e9)); };
  config.lease_duration = to_ns(lease);
  config.renew_deadline = to_ns(renew);
  config.retry_period = to_ns(retry);
  config.release_on_cancel = release;
  config.callbacks.on_started_leading = [fence_port, identity](std::stop_token stop,
                                                              const tenure::LeaderTerm& term) {
    Print("{\"event\":\"started\",\"identity\":" + Quote(identity) +
          ",\"token\":" + std::to_string(term.fencing_token) + "}");
    if (fence_port == 0) return;
    tenure::client::Endpoint ep;
    ep.port = static_cast<uint16_t>(fence_port);
    tenure::client::HttpConnection fence(ep);
    for (long seq = 0; !stop.stop_requested(); ++seq) {
      std::string body = "{\"token\":" + std::to_string(term.fencing_token) +
                         ",\"identity\":" + Quote(identity) + ",\"seq\":" + std::to_string(seq) + "}";
      auto reply = fence.Request("POST", "/write", {{"Content-Type", "application/json"}}, body,
                                 std::chrono::seconds(2));
      if (reply.ok() && reply->status == 409) {
        Print("{\"event\":\"fenced\",\"token\":" + std::to_string(term.fencing_token) + "}");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
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
  sigwait(&signals, &signal);
  handle.Stop();
  Print("{\"event\":\"exit\",\"identity\":" + Quote(identity) + "}");
  return 0;
}
