// coordinated: a candidate in coordinated leader election. The process registers a
// LeaseCandidate with its versions; the API server's election controller picks the leader (by
// default the candidate with the oldest emulation version, then binary version) and this
// process only renews a lease assigned to it. SIGINT or SIGTERM stops it.
//   coordinated LEASE_NAME IDENTITY BINARY_VERSION EMULATION_VERSION
#include <signal.h>

#include <tenure/tenure.h>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: coordinated LEASE_NAME IDENTITY BINARY_VERSION EMULATION_VERSION\n");
    return 2;
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto cluster = tenure::Cluster::Connect();
  if (!cluster.ok()) {
    std::fprintf(stderr, "coordinated: %s\n", cluster.status().ToString().c_str());
    return 1;
  }
  tenure::CandidateOptions candidate;
  candidate.identity = argv[2];
  candidate.lease_name = argv[1];
  candidate.binary_version = argv[3];
  candidate.emulation_version = argv[4];
  auto registrar = tenure::CandidateRegistrar::Start(*cluster, candidate);
  if (!registrar.ok()) {
    std::fprintf(stderr, "coordinated: %s\n", registrar.status().ToString().c_str());
    return 1;
  }

  tenure::ElectionConfig config;
  config.lock = tenure::NewLeaseLock(*cluster, {.name = argv[1], .identity = argv[2]});
  config.coordinated = true;                         // renew only a lease assigned to us
  config.recontend_after = std::chrono::seconds(1);  // stay a candidate after a preemption
  config.callbacks.on_started_leading = [](std::stop_token stop, const tenure::LeaderTerm& term) {
    std::printf("leading %s fencing_token=%llu\n", term.identity.c_str(),
                static_cast<unsigned long long>(term.fencing_token));
    std::fflush(stdout);
    std::mutex mu;
    std::condition_variable_any cv;
    std::unique_lock lock(mu);
    cv.wait(lock, stop, [] { return false; });
  };
  config.callbacks.on_stopped_leading = [] {
    std::printf("stopped leading\n");
    std::fflush(stdout);
  };
  auto election = tenure::ElectionHandle::Start(std::move(config));
  if (!election.ok()) {
    std::fprintf(stderr, "coordinated: %s\n", election.status().ToString().c_str());
    return 1;
  }
  int signal = 0;
  sigwait(&signals, &signal);
  election->Stop();
  (*registrar)->Stop();  // the candidate is deleted: the controller stops considering it
  return 0;
}
