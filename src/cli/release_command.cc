// `tenure release NS/NAME --force`: an operator clears a lease's holder (holderIdentity removed,
// written with the resourceVersion just read, so a concurrent renewal is never overwritten
// blindly). Waiting candidates then take the lease at once.
#include <CLI/CLI.hpp>
#include <iostream>

#include "api/codec.h"
#include "cli/inspect_commands.h"

namespace tenure::cli {

namespace {

constexpr int kAttempts = 5;

struct ReleaseFlags {
  LeaseRefFlags ref;
  std::string holder;  // only release when this is the holder
  bool force = false;
};

int RunRelease(const ReleaseFlags& flags) {
  int exit_code = 0;
  auto target = OpenLeaseTarget("release", flags.ref, &exit_code);
  if (!target) return exit_code;
  LeaseApi* api = &target->api;
  const std::string& ns = target->ns;
  const std::string& name = target->name;
  std::string what = "lease " + ns + "/" + name;
  std::string released;  // the holder we set out to clear
  for (int attempt = 1; attempt <= kAttempts; ++attempt) {
    auto got = api->GetLease(ns, name);
    if (!got.ok()) {
      std::cerr << "tenure release: " << DescribeError(got.status(), api->server()) << "\n";
      return 1;
    }
    auto lease = api::LeaseFromJson(*got);
    if (!lease.ok()) {
      std::cerr << "tenure release: " << what << ": " << lease.status().message() << "\n";
      return 1;
    }
    std::string holder = lease->spec.holder_identity.value_or("");
    if (holder.empty()) {
      std::cout << what << " has no holder; nothing to release" << std::endl;
      return 0;
    }
    if (!flags.holder.empty() && holder != flags.holder) {
      std::cerr << "tenure release: " << what << " is held by " << holder << ", not "
                << flags.holder << "; left alone\n";
      return 1;
    }
    if (!released.empty() && holder != released) {
      std::cerr << "tenure release: the holder of " << what << " changed from " << released
                << " to " << holder << " meanwhile; left alone (run again to release " << holder
                << ")\n";
      return 1;
    }
    released = holder;
    if (!flags.force) {
      std::cerr
          << "tenure release: " << what << " is held by " << holder << ".\n"
          << "Refusing without --force: clearing the holder lets a waiting candidate take over at\n"
          << "once. A tenure leader sees the change on its watch and stops at once; a client-go\n"
          << "style leader keeps acting until its next renewal fails (at most its renew "
             "deadline).\n"
          << "Use it when the holder is gone or stuck; to make a\n"
          << "healthy leader step down, stop it instead (with release on cancel).\n";
      return 2;
    }
    api::Lease updated = *lease;
    updated.spec.holder_identity.reset();
    auto written = api->ReplaceLease(updated);
    if (written.ok()) {
      std::cout << what << ": released holder " << holder << " (resourceVersion "
                << lease->metadata.resource_version << " -> " << written->metadata.resource_version
                << "); waiting candidates can take it now" << std::endl;
      return 0;
    }
    if (!written.status().IsConflict()) {
      std::cerr << "tenure release: " << DescribeError(written.status(), api->server()) << "\n";
      return 1;
    }
    // Conflict: the holder renewed between our read and write; read again.
  }
  std::cerr << "tenure release: " << what << " kept changing (" << kAttempts
            << " conflicting writes); not released\n";
  return 1;
}

}  // namespace

void AddReleaseCommand(CLI::App& app) {
  auto flags = std::make_shared<ReleaseFlags>();
  CLI::App* release = app.add_subcommand(
      "release", "Clear a lease's holder so a waiting candidate takes over (needs --force)");
  AddLeaseRefOptions(release, flags->ref, false);
  release->add_flag("--force", flags->force, "Really clear the holder (see below)");
  release->add_option("--holder", flags->holder, "Only release when this identity holds the lease");
  release->footer(
      "The holder is removed with an update conditional on the resourceVersion just read\n"
      "(retried on conflict while the holder stays the same). The old holder learns it lost the\n"
      "lease at its next renewal; until then it may still act, so prefer stopping a healthy\n"
      "leader. Examples:\n"
      "  tenure release kube-system/my-controller --force\n"
      "  tenure release my-app -n prod --holder pod-7 --force");
  release->callback([flags] { std::exit(RunRelease(*flags)); });
}

}  // namespace tenure::cli
