// DemoFleet: the candidate processes of `tenure demo` and the FIFO reader of their JSON events.
#include "cli/demo_fleet.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

namespace tenure::cli {

namespace {
constexpr const char* kEndOfStream = "{\"event\":\"end-of-demo\"}\n";
}

Result<std::unique_ptr<DemoFleet>> DemoFleet::Create(const std::string& folder, std::string self,
                                                     std::vector<std::string> base_args,
                                                     Observer observer) {
  std::string fifo = folder + "/candidates.fifo";
  if (mkfifo(fifo.c_str(), 0600) != 0) {
    return Status::Internal("mkfifo " + fifo + ": " + std::strerror(errno));
  }
  // Read-write: opening does not wait for a writer, and the stream never ends while candidates
  // come and go; the destructor ends it with a line of its own.
  int fd = open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return Status::Internal("open " + fifo + ": " + std::strerror(errno));
  return std::unique_ptr<DemoFleet>(
      new DemoFleet(fifo, fd, std::move(self), std::move(base_args), std::move(observer)));
}

DemoFleet::DemoFleet(std::string fifo, int fd, std::string self, std::vector<std::string> base_args,
                     Observer observer)
    : fifo_(std::move(fifo)),
      fd_(fd),
      self_(std::move(self)),
      base_args_(std::move(base_args)),
      observer_(std::move(observer)) {
  reader_ = std::thread([this] { ReadLoop(); });
}

DemoFleet::~DemoFleet() {
  StopAll(std::chrono::seconds(5));
  [[maybe_unused]] ssize_t n = write(fd_, kEndOfStream, std::strlen(kEndOfStream));
  reader_.join();
  close(fd_);
  unlink(fifo_.c_str());
}

void DemoFleet::ReadLoop() {
  std::string buffer;
  char chunk[4096];
  while (true) {
    ssize_t n = read(fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    buffer.append(chunk, static_cast<size_t>(n));
    size_t newline;
    while ((newline = buffer.find('\n')) != std::string::npos) {
      auto line = nlohmann::json::parse(buffer.substr(0, newline), nullptr, false);
      buffer.erase(0, newline + 1);
      if (!line.is_object()) continue;
      CandidateEvent event;
      event.event = line.value("event", "");
      if (event.event == "end-of-demo") return;
      event.identity = line.value("identity", "");
      event.token = line.value("token", uint64_t{0});
      event.message = line.value("message", "");
      event.at = std::chrono::steady_clock::time_point(
          std::chrono::nanoseconds(line.value("mono_ns", int64_t{0})));
      if (observer_) observer_(event);
      {
        std::lock_guard lock(mu_);
        events_.push_back(std::move(event));
      }
      cv_.notify_all();
    }
  }
}

Status DemoFleet::Spawn(const std::string& identity, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {self_,    "demo-candidate", "--identity",
                                   identity, "--report",       fifo_};
  argv.insert(argv.end(), base_args_.begin(), base_args_.end());
  argv.insert(argv.end(), args.begin(), args.end());
  auto child = ChildProcess::Spawn(argv, {});
  if (!child.ok()) return child.status();
  std::lock_guard lock(mu_);
  children_.insert_or_assign(identity, std::move(*child));
  return Status::Ok();
}

void DemoFleet::Signal(const std::string& identity, int signal) {
  std::lock_guard lock(mu_);
  if (auto it = children_.find(identity); it != children_.end()) it->second.Signal(signal);
}

std::optional<pid_t> DemoFleet::Pid(const std::string& identity) const {
  std::lock_guard lock(mu_);
  auto it = children_.find(identity);
  if (it == children_.end()) return std::nullopt;
  return it->second.pid();
}

size_t DemoFleet::Reap() {
  std::lock_guard lock(mu_);
  size_t running = 0;
  for (auto& [identity, child] : children_) {
    child.TryReap();
    if (child.running()) ++running;
  }
  return running;
}

std::optional<CandidateEvent> DemoFleet::WaitFor(
    const std::function<bool(const CandidateEvent&)>& match,
    std::chrono::steady_clock::duration timeout, size_t* cursor) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock lock(mu_);
  while (true) {
    if (interrupted_) return std::nullopt;
    for (; *cursor < events_.size(); ++*cursor) {
      if (match(events_[*cursor])) return events_[(*cursor)++];
    }
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout) {
      for (; *cursor < events_.size(); ++*cursor) {
        if (match(events_[*cursor])) return events_[(*cursor)++];
      }
      return std::nullopt;
    }
  }
}

size_t DemoFleet::EventCount() const {
  std::lock_guard lock(mu_);
  return events_.size();
}

void DemoFleet::Interrupt() {
  {
    std::lock_guard lock(mu_);
    interrupted_ = true;
  }
  cv_.notify_all();
}

size_t DemoFleet::StopAll(std::chrono::steady_clock::duration grace) {
  for (auto& [identity, child] : children_) child.Signal(SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + grace;
  // Polling the children is simplest here: SIGCHLD belongs to nobody in this process.
  while (Reap() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  size_t killed = 0;
  std::lock_guard lock(mu_);
  for (auto& [identity, child] : children_) {
    if (!child.running()) continue;
    child.Signal(SIGKILL);
    ++killed;
    while (!child.TryReap()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return killed;
}

}  // namespace tenure::cli
