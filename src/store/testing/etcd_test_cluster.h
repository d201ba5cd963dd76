// EtcdTestCluster: real etcd members (Debian's etcd-server, /usr/bin/etcd) for tests and
// benchmarks, on free loopback ports, data in a temporary folder, with a unique
// --initial-cluster-token per start. Start() waits until every member answers /health with a
// deadline; the destructor kills the members (SIGKILL) and removes the folder. A member dies
// with the test process (PR_SET_PDEATHSIG). Starting fails loudly (never skips) when etcd is
// missing: CI installs it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "tenure/status.h"

namespace tenure::store::testing {

struct EtcdTestClusterOptions {
  int members = 1;
  std::string etcd_binary = "/usr/bin/etcd";  // $TENURE_ETCD overrides
  std::chrono::seconds start_deadline{30};
  // TLS on the client port when set (server certificate for 127.0.0.1); with client_ca_file,
  // clients must present a certificate signed by it.
  std::string server_cert_file;
  std::string server_key_file;
  std::string client_ca_file;
  // For tests of the cluster itself: the first member's client port on the first attempt (a
  // port another process holds, to show that the cluster then starts elsewhere). 0: a free one.
  uint16_t first_client_port_for_test = 0;
};

class EtcdTestCluster {
 public:
  static Result<std::unique_ptr<EtcdTestCluster>> Start(const EtcdTestClusterOptions& options);
  ~EtcdTestCluster();

  EtcdTestCluster(const EtcdTestCluster&) = delete;
  EtcdTestCluster& operator=(const EtcdTestCluster&) = delete;

  int size() const { return static_cast<int>(members_.size()); }
  // "http://127.0.0.1:PORT" (https with TLS) of member i, or of all members.
  std::string ClientUrl(int i) const;
  std::vector<std::string> ClientUrls() const;
  // Whether member i is the raft leader now (its /metrics): a test that pauses a follower
  // keeps the cluster's leader.
  bool IsLeader(int i) const;
  // Kills member i with SIGKILL and reaps it. Idempotent.
  void Kill(int i);
  // SIGSTOP / SIGCONT member i: it keeps its connections open but answers nothing (Pause returns
  // once every thread of it has stopped).
  void Pause(int i);
  void Resume(int i);
  // Restarts a killed member with its data folder; waits for it to be healthy.
  Status Restart(int i);
  bool Running(int i) const { return members_[static_cast<size_t>(i)].pid > 0; }
  // The tail of member i's log (for failure messages).
  std::string LogTail(int i) const;

 private:
  struct Member {
    std::string name;
    uint16_t client_port = 0;
    uint16_t peer_port = 0;
    std::string data_dir;
    std::string log_file;
    pid_t pid = -1;
  };

  explicit EtcdTestCluster(EtcdTestClusterOptions options) : options_(std::move(options)) {}
  // Chooses ports and data folders (attempt 2 and 3: new ones), spawns every member and waits
  // until each is healthy.
  Status StartMembers(int attempt);
  Status Spawn(Member& m, bool initial);
  Status WaitHealthy(int i, std::chrono::steady_clock::time_point deadline);

  EtcdTestClusterOptions options_;
  std::string root_;
  std::string token_;
  std::string initial_cluster_;
  std::vector<Member> members_;
  std::vector<uint16_t> metrics_ports_;  // per member: plain-HTTP /health
};

}  // namespace tenure::store::testing
