// leadership: the Spring Cloud Kubernetes style of leader election. The application is told
// "granted" when it becomes leader and "revoked" when it is no longer, and can give leadership
// up while staying a candidate (SIGUSR1 here). SIGINT or SIGTERM stops it.
//   leadership LEASE_NAME IDENTITY [ROLE]
#include <signal.h>

#include <tenure/tenure.h>
#include <cstdio>
#include <string>
#include <thread>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: leadership LEASE_NAME IDENTITY [ROLE]\n");
    return 2;
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto cluster = tenure::Cluster::Connect();
  if (!cluster.ok()) {
    std::fprintf(stderr, "leadership: %s\n", cluster.status().ToString().c_str());
    return 1;
  }
  tenure::LeadershipOptions options;
  options.election.lock = tenure::NewLeaseLock(*cluster, {.name = argv[1], .identity = argv[2]});
  options.election.release_on_cancel = true;
  options.role = argc > 3 ? argv[3] : "worker";
  // Event style: on_granted returns at once; the role's work would start here and stop in
  // on_revoked.
  options.on_granted = [](const tenure::LeadershipContext& context) {
    std::printf("granted role=%s fencing_token=%llu\n", context.role.c_str(),
                static_cast<unsigned long long>(context.term.fencing_token));
    std::fflush(stdout);
  };
  options.on_revoked = [](const tenure::LeadershipContext& context) {
    std::printf("revoked role=%s\n", context.role.c_str());
    std::fflush(stdout);
  };
  auto leadership = tenure::Leadership::Create(std::move(options));
  if (!leadership.ok()) {
    std::fprintf(stderr, "leadership: %s\n", leadership.status().ToString().c_str());
    return 1;
  }
  tenure::Leadership& app = **leadership;
  std::jthread election([&app](std::stop_token stop) { app.Run(stop); });
  for (;;) {
    int signal = 0;
    sigwait(&signals, &signal);
    if (signal != SIGUSR1) break;
    std::printf("yielding\n");
    std::fflush(stdout);
    app.Yield();  // leadership given up; still a candidate
  }
  election.request_stop();
  election.join();
  std::printf("%s\n", app.InfoJson().c_str());
  return 0;
}
