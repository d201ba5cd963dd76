// EtcdTestCluster: real etcd members on loopback ports for tests; TSan suppressions for gRPC.
#include "store/testing/etcd_test_cluster.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <thread>

namespace tenure::store::testing {
namespace {

// Reserves `n` distinct free loopback ports (bound together, then released).
Result<std::vector<uint16_t>> FreePorts(size_t n) {
  std::vector<int> fds;
  std::vector<uint16_t> ports;
  Status status;
  for (size_t i = 0; i < n && status.ok(); ++i) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      status = Status::Internal(std::string("cannot reserve a loopback port: ") + strerror(errno));
    } else {
      ports.push_back(ntohs(addr.sin_port));
    }
    if (fd >= 0) fds.push_back(fd);
  }
  for (int fd : fds) close(fd);
  if (!status.ok()) return status;
  return ports;
}

// The body of GET http://127.0.0.1:port<path> ("" when the member does not answer within 1 s).
std::string HttpGet(uint16_t port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  timeval timeout{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    std::string request =
        "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buf[4096];
      ssize_t n;
      while ((n = read(fd, buf, sizeof(buf))) > 0) response.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  return response;
}

// True when etcd reports itself healthy.
bool Healthy(uint16_t port) {
  return HttpGet(port, "/health").find("\"health\":\"true\"") != std::string::npos;
}

std::string UniqueToken() {
  static std::atomic<int> counter{0};
  std::random_device random;
  return "tenure-test-" + std::to_string(getpid()) + "-" + std::to_string(counter.fetch_add(1)) +
         "-" + std::to_string(random());
}

}  // namespace

Result<std::unique_ptr<EtcdTestCluster>> EtcdTestCluster::Start(
    const EtcdTestClusterOptions& options) {
  std::unique_ptr<EtcdTestCluster> cluster(new EtcdTestCluster(options));
  if (const char* env = getenv("TENURE_ETCD"); env != nullptr && *env != '\0') {
    cluster->options_.etcd_binary = env;
  }
  if (access(cluster->options_.etcd_binary.c_str(), X_OK) != 0) {
    return Status::Unavailable("etcd not found at " + cluster->options_.etcd_binary +
                               " (install Debian's etcd-server: scripts/bootstrap.sh)");
  }
  if (options.members < 1) return Status::BadRequest("an etcd cluster needs a member");
  std::string pattern = (std::filesystem::temp_directory_path() / "tenure-etcd-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return Status::Internal(std::string("mkdtemp: ") + strerror(errno));
  }
  cluster->root_ = pattern;
  // A member that exits during start most likely lost one of its ports to another process:
  // the whole cluster starts again on new ports (and a new data folder per member).
  Status started;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    started = cluster->StartMembers(attempt);
    if (started.ok()) return cluster;
    for (int i = 0; i < cluster->size(); ++i) cluster->Kill(i);
    cluster->members_.clear();
    cluster->metrics_ports_.clear();
    cluster->initial_cluster_.clear();
  }
  return started;
}

Status EtcdTestCluster::StartMembers(int attempt) {
  EtcdTestCluster* cluster = this;
  const EtcdTestClusterOptions& options = options_;
  cluster->token_ = UniqueToken();
  auto ports = FreePorts(static_cast<size_t>(options.members) * 3);
  if (!ports.ok()) return ports.status();
  for (int i = 0; i < options.members; ++i) {
    Member m;
    m.name = "m" + std::to_string(i + 1);
    m.client_port = (*ports)[static_cast<size_t>(i) * 3];
    if (i == 0 && attempt == 1 && options.first_client_port_for_test != 0) {
      m.client_port = options.first_client_port_for_test;
    }
    m.peer_port = (*ports)[static_cast<size_t>(i) * 3 + 1];
    const std::string suffix = attempt == 1 ? "" : "-" + std::to_string(attempt);
    m.data_dir = cluster->root_ + "/" + m.name + suffix;
    m.log_file = cluster->root_ + "/" + m.name + suffix + ".log";
    if (!cluster->initial_cluster_.empty()) cluster->initial_cluster_ += ",";
    cluster->initial_cluster_ += m.name + "=http://127.0.0.1:" + std::to_string(m.peer_port);
    cluster->members_.push_back(m);
    cluster->metrics_ports_.push_back((*ports)[static_cast<size_t>(i) * 3 + 2]);
  }
  for (Member& m : cluster->members_) {
    if (Status s = cluster->Spawn(m, true); !s.ok()) return s;
  }
  auto deadline = std::chrono::steady_clock::now() + options.start_deadline;
  for (int i = 0; i < cluster->size(); ++i) {
    if (Status s = cluster->WaitHealthy(i, deadline); !s.ok()) return s;
  }
  return Status::Ok();
}

EtcdTestCluster::~EtcdTestCluster() {
  for (int i = 0; i < size(); ++i) Kill(i);
  std::error_code ignored;
  if (!root_.empty()) std::filesystem::remove_all(root_, ignored);
}

std::string EtcdTestCluster::ClientUrl(int i) const {
  bool tls = !options_.server_cert_file.empty();
  return std::string(tls ? "https" : "http") +
         "://127.0.0.1:" + std::to_string(members_[static_cast<size_t>(i)].client_port);
}

std::vector<std::string> EtcdTestCluster::ClientUrls() const {
  std::vector<std::string> urls;
  for (int i = 0; i < size(); ++i) urls.push_back(ClientUrl(i));
  return urls;
}

Status EtcdTestCluster::Spawn(Member& m, bool initial) {
  std::vector<std::string> args = {
      options_.etcd_binary,
      "--name=" + m.name,
      "--data-dir=" + m.data_dir,
      "--listen-client-urls=" + ClientUrl(static_cast<int>(&m - members_.data())),
      "--advertise-client-urls=" + ClientUrl(static_cast<int>(&m - members_.data())),
      "--listen-peer-urls=http://127.0.0.1:" + std::to_string(m.peer_port),
      "--initial-advertise-peer-urls=http://127.0.0.1:" + std::to_string(m.peer_port),
      // Plain HTTP /health even when the client port uses TLS.
      "--listen-metrics-urls=http://127.0.0.1:" +
          std::to_string(metrics_ports_[static_cast<size_t>(&m - members_.data())]),
      "--initial-cluster=" + initial_cluster_,
      "--initial-cluster-token=" + token_,
      std::string("--initial-cluster-state=") + (initial ? "new" : "existing"),
      "--logger=zap",
      "--log-outputs=stderr",
      "--log-level=warn",
  };
  if (!options_.server_cert_file.empty()) {
    args.push_back("--cert-file=" + options_.server_cert_file);
    args.push_back("--key-file=" + options_.server_key_file);
    if (!options_.client_ca_file.empty()) {
      args.push_back("--client-cert-auth");
      args.push_back("--trusted-ca-file=" + options_.client_ca_file);
    }
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int log = open(m.log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) return Status::Internal("cannot open " + m.log_file + ": " + strerror(errno));
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(log);
    return Status::Internal(std::string("fork: ") + strerror(errno));
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(log, STDOUT_FILENO);
    dup2(log, STDERR_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(log);
  m.pid = pid;
  return Status::Ok();
}

Status EtcdTestCluster::WaitHealthy(int i, std::chrono::steady_clock::time_point deadline) {
  Member& m = members_[static_cast<size_t>(i)];
  while (true) {
    // Healthy, and this member's own answer: its write-ahead log exists only once it has bound
    // its peer and client ports, so a port that another process took between FreePorts and the
    // bind (tests run side by side) cannot pass for this member.
    if (std::filesystem::exists(m.data_dir + "/member/wal") &&
        Healthy(metrics_ports_[static_cast<size_t>(i)])) {
      return Status::Ok();
    }
    int wstatus = 0;
    if (m.pid > 0 && waitpid(m.pid, &wstatus, WNOHANG) == m.pid) {
      m.pid = -1;
      return Status::Internal("etcd member " + m.name + " exited during start:\n" + LogTail(i));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return Status::Timeout("etcd member " + m.name + " not healthy in time:\n" + LogTail(i));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling a child process
  }
}

bool EtcdTestCluster::IsLeader(int i) const {
  if (!Running(i)) return false;
  std::string metrics = HttpGet(metrics_ports_[static_cast<size_t>(i)], "/metrics");
  return metrics.find("\netcd_server_is_leader 1") != std::string::npos;
}

void EtcdTestCluster::Kill(int i) {
  Member& m = members_[static_cast<size_t>(i)];
  if (m.pid <= 0) return;
  kill(m.pid, SIGKILL);
  waitpid(m.pid, nullptr, 0);
  m.pid = -1;
}

namespace {

// Whether every thread of process `pid` is stopped (state T or t in /proc/PID/task/*/stat).
bool AllThreadsStopped(pid_t pid) {
  std::error_code ec;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  bool any = false;
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    std::ifstream in(task.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t paren = stat.rfind(')');  // the command name may hold spaces and parentheses
    if (paren == std::string::npos || paren + 2 >= stat.size()) continue;  // the thread is gone
    const char state = stat[paren + 2];
    if (state != 'T' && state != 't') return false;
    any = true;
  }
  return !ec && any;
}

}  // namespace

void EtcdTestCluster::Pause(int i) {
  const pid_t pid = members_[static_cast<size_t>(i)].pid;
  if (pid <= 0) return;
  kill(pid, SIGSTOP);
  // SIGSTOP takes effect on each thread asynchronously: a request sent right after kill()
  // returns could still be answered. Wait (bounded) until every thread has stopped.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!AllThreadsStopped(pid) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void EtcdTestCluster::Resume(int i) {
  if (members_[static_cast<size_t>(i)].pid > 0) kill(members_[static_cast<size_t>(i)].pid, SIGCONT);
}

Status EtcdTestCluster::Restart(int i) {
  Member& m = members_[static_cast<size_t>(i)];
  if (m.pid > 0) return Status::BadRequest("etcd member " + m.name + " is running");
  if (Status s = Spawn(m, false); !s.ok()) return s;
  return WaitHealthy(i, std::chrono::steady_clock::now() + options_.start_deadline);
}

std::string EtcdTestCluster::LogTail(int i) const {
  std::ifstream in(members_[static_cast<size_t>(i)].log_file);
  std::stringstream all;
  all << in.rdbuf();
  std::string text = all.str();
  return text.size() > 4000 ? text.substr(text.size() - 4000) : text;
}

}  // namespace tenure::store::testing

// ThreadSanitizer: Debian's gRPC, protobuf, abseil and OpenSSL are not built with
// -fsanitize=thread, so the synchronization inside them (abseil's atomics and futexes) is invisible
// and their own memory accesses that it orders look like races (e.g. abseil's deadlock graph in
// GetId). tenure calls gRPC only through its blocking API on its own threads; its own code stays
// checked. Defined here so that every test binary that starts etcd gets it (TSan looks the symbol
// up).
extern "C" const char* __tsan_default_suppressions() {
  return "race:libabsl_\n"
         "race:libgrpc\n"
         // gRPC's C++ API is header code compiled into the test binary: the same unseen
         // synchronization, in frames that name the headers rather than the library.
         "race:/usr/include/grpcpp/\n"
         "race:libgpr\n"
         "race:libprotobuf\n"
         "race:libupb\n"
         "race:libcrypto\n"
         "race:libssl\n";
}

// LeakSanitizer: OpenSSL keeps per-thread state (its error queue, its per-thread random generator)
// that it frees when the thread exits. gRPC's TLS handshakes run on gRPC's own pool threads, which
// are still alive, or exit after OpenSSL's atexit cleanup, when the process ends; now and then
// that state is reported as leaked after a test that opens TLS channels to etcd. The stack stops
// at libcrypto (built without frame pointers), so the suppression names the module. tenure's
// store calls OpenSSL only through gRPC, so in this binary it hides nothing of ours.
extern "C" const char* __lsan_default_suppressions() { return "leak:libcrypto.so\n"; }
