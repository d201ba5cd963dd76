// DemoFleet: the candidate processes of `tenure demo` (this binary's hidden `demo-candidate`
// command). They report JSON lines into one FIFO; a reader thread collects them, hands each to
// an observer (the demo's live output) and lets the demo wait for a given event.
//
// Every process is stopped by StopAll or the destructor (SIGTERM, then SIGKILL after a grace
// period) and reaped; the processes also die with the demo's main thread (see ChildProcess).
// Spawn from the main thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/child_process.h"
#include "tenure/status.h"

namespace tenure::cli {

struct CandidateEvent {
  std::string identity;
  std::string event;    // ready, registered, started, stopped, stopping, released, exit, error
  uint64_t token = 0;   // "started": the term's fencing token
  std::string message;  // "error"
  std::chrono::steady_clock::time_point at;  // when the candidate reported it
};

class DemoFleet {
 public:
  using Observer = std::function<void(const CandidateEvent&)>;
  // `folder` receives the FIFO; `self` is the tenure binary; `base_args` follow
  // "demo-candidate" on every command line.
  static Result<std::unique_ptr<DemoFleet>> Create(const std::string& folder, std::string self,
                                                   std::vector<std::string> base_args,
                                                   Observer observer);
  ~DemoFleet();

  Status Spawn(const std::string& identity, const std::vector<std::string>& args);
  // Signals one candidate's process (group).
  void Signal(const std::string& identity, int signal);
  std::optional<pid_t> Pid(const std::string& identity) const;
  // Reaps exited candidates; returns how many are still running.
  size_t Reap();

  // The first event at index >= *cursor (events are numbered in arrival order) that matches,
  // waiting until `timeout`; advances *cursor past it. nullopt on timeout or Interrupt.
  std::optional<CandidateEvent> WaitFor(const std::function<bool(const CandidateEvent&)>& match,
                                        std::chrono::steady_clock::duration timeout,
                                        size_t* cursor);
  // Number of events received so far (a cursor for "from now on").
  size_t EventCount() const;
  // Makes every WaitFor return nullopt from now on (Ctrl-C).
  void Interrupt();

  // SIGTERM to every running candidate, SIGKILL to those still running after `grace`; reaps
  // all. Returns how many had to be killed.
  size_t StopAll(std::chrono::steady_clock::duration grace);

 private:
  DemoFleet(std::string fifo, int fd, std::string self, std::vector<std::string> base_args,
            Observer observer);
  void ReadLoop();

  std::string fifo_;
  int fd_;
  std::string self_;
  std::vector<std::string> base_args_;
  Observer observer_;
  std::map<std::string, ChildProcess> children_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<CandidateEvent> events_;
  bool interrupted_ = false;
  std::thread reader_;
};

}  // namespace tenure::cli
