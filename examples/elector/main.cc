// elector: the smallest useful libtenure program. It campaigns for a Lease and, while it leads,
// does its work; SIGINT or SIGTERM stops it, and a leader then hands the lease over at once.
//   elector LEASE_NAME [IDENTITY]     (kubeconfig: $KUBECONFIG or ~/.kube/config, or in-cluster)
#include <signal.h>

#include <tenure/tenure.h>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: elector LEASE_NAME [IDENTITY]\n");
    return 2;
  }
  // Signals are taken by sigwait below, not by whichever thread they would interrupt.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto cluster = tenure::Cluster::Connect();  // kubeconfig, or the pod's service account
  if (!cluster.ok()) {
    std::fprintf(stderr, "elector: %s\n", cluster.status().ToString().c_str());
    return 1;
  }
  std::string identity = argc > 2 ? argv[2] : tenure::UniqueIdentity();

  tenure::ElectionConfig config;
  config.lock = tenure::NewLeaseLock(*cluster, {.name = argv[1], .identity = identity});
  config.release_on_cancel = true;  // on stop, hand over at once instead of letting it expire
  config.callbacks.on_started_leading = [](std::stop_token stop, const tenure::LeaderTerm& term) {
    std::printf("leading %s fencing_token=%llu\n", term.identity.c_str(),
                static_cast<unsigned long long>(term.fencing_token));
    std::fflush(stdout);
    // The work of the leader goes here; it must end soon after `stop` fires.
    std::mutex mu;
    std::condition_variable_any cv;
    std::unique_lock lock(mu);
    cv.wait(lock, stop, [] { return false; });
  };
  config.callbacks.on_stopped_leading = [] {
    std::printf("stopped leading\n");
    std::fflush(stdout);
  };
  config.callbacks.on_new_leader = [](const std::string& leader) {
    std::printf("leader is %s\n", leader.c_str());
    std::fflush(stdout);
  };

  auto election = tenure::ElectionHandle::Start(std::move(config));
  if (!election.ok()) {
    std::fprintf(stderr, "elector: %s\n", election.status().ToString().c_str());
    return 1;
  }
  int signal = 0;
  sigwait(&signals, &signal);
  election->Stop();  // a leader releases the lease before this returns
  return 0;
}
