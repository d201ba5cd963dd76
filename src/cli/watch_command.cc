// `tenure watch lease NS/NAME`: a live timeline of holder changes, one line per change, until
// Ctrl-C. Uses the library's shared watch (resumed after disconnects, relisted after 410), so a
// restarting server only pauses the timeline.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <mutex>

#include "api/codec.h"
#include "cli/holder_timeline.h"
#include "cli/inspect_commands.h"
#include "client/kube_client.h"
#include "election/cluster_access.h"

namespace tenure::cli {

namespace {

using nlohmann::json;

class TimelinePrinter {
 public:
  explicit TimelinePrinter(Painter painter) : painter_(painter) {}
  void Observe(const std::optional<api::Lease>& lease) {
    std::lock_guard lock(mu_);
    if (auto change = timeline_.Observe(std::chrono::system_clock::now(), lease)) {
      std::cout << FormatChange(*change, painter_) << std::endl;
    }
  }
  void Note(const std::string& text) {
    std::lock_guard lock(mu_);
    std::cout << painter_.Paint(TimeOfDay(std::chrono::system_clock::now()) + "  " + text,
                                Color::kDim)
              << std::endl;
  }

 private:
  Painter painter_;
  std::mutex mu_;
  HolderTimeline timeline_;
};

int RunWatch(const LeaseRefFlags& flags) {
  // Before any thread starts, so that only sigtimedwait below sees Ctrl-C.
  sigset_t signals = BlockStopSignals();
  int exit_code = 0;
  auto target = OpenLeaseTarget("watch", flags, &exit_code);
  if (!target) return exit_code;
  LeaseApi* api = &target->api;
  const std::string& ns = target->ns;
  const std::string& name = target->name;
  TimelinePrinter printer(Painter::ForStdout());
  auto current = api->GetLease(ns, name);
  if (current.ok()) {
    auto lease = api::LeaseFromJson(*current);
    if (!lease.ok()) {
      std::cerr << "tenure watch: unexpected Lease from the server: " << lease.status().message()
                << "\n";
      return 1;
    }
    printer.Observe(*lease);
  } else if (current.status().IsNotFound()) {
    printer.Observe(std::nullopt);
  } else {
    std::cerr << "tenure watch: " << DescribeError(current.status(), api->server()) << "\n";
    return 1;
  }
  std::cerr << "Watching lease " << ns << "/" << name << " on " << api->server()
            << " (Ctrl-C to stop)" << std::endl;

  auto subscription = KubeClientOf(*api->cluster())
                          .WatchObject(LeaseApi::LeasesPath(ns), name,
                                       [&printer](const std::string& type, const json& object) {
                                         if (type == "DELETED") {
                                           printer.Observe(std::nullopt);
                                           return;
                                         }
                                         auto lease = api::LeaseFromJson(object);
                                         if (lease.ok()) printer.Observe(*lease);
                                       });
  bool was_active = false, lost = false;
  while (true) {
    timespec poll{0, 500'000'000};
    int signal = sigtimedwait(&signals, nullptr, &poll);
    if (signal == SIGINT || signal == SIGTERM) break;
    bool active = subscription->active();
    if (was_active && !active) {
      printer.Note("watch connection lost; reconnecting");
      lost = true;
    }
    if (lost && active) {
      printer.Note("reconnected");
      lost = false;
    }
    was_active = active;
  }
  subscription.reset();
  return 0;
}

}  // namespace

void AddWatchCommand(CLI::App& app) {
  auto flags = std::make_shared<LeaseRefFlags>();
  CLI::App* watch = app.add_subcommand(
      "watch", "Follow one lease live: a line per holder change, with how long each held it");
  AddLeaseRefOptions(watch, *flags, true);
  watch->footer(
      "Runs until Ctrl-C. Each line: local time, previous -> new holder, and how long the\n"
      "previous holder held the lease (or how long it was without a holder).\n"
      "Examples:\n"
      "  tenure watch lease kube-system/kube-controller-manager\n"
      "  tenure watch lease my-app -n prod");
  watch->callback([flags] { std::exit(RunWatch(*flags)); });
}

}  // namespace tenure::cli
