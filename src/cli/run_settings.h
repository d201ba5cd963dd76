// RunSettings: everything `tenure run` can be told, and the one table of knobs that YAML files,
// environment variables and flags all map to (so they cannot disagree).
//
// Each knob has a Spring Cloud Kubernetes style name (YAML key, e.g. leaseDuration), an
// environment variable TENURE_ + the name in upper snake case (TENURE_LEASE_DURATION) and a flag
// -- + the name in kebab case (--lease-duration). Precedence: flags > environment > file >
// defaults. A YAML file holds the knobs at its top level, or, for a Spring application.yaml,
// under spring.cloud.kubernetes.leader.election (relaxed names: wait-after-renewal-failure works
// too). Durations: "15s", "500ms", "1m30s", "PT15S" (ISO-8601) or a plain number of seconds.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tenure/elector.h"
#include "tenure/status.h"

namespace tenure::cli {

struct RunSettings {
  std::string lock_name;       // required
  std::string lock_namespace;  // "": the cluster's default namespace
  std::string identity;        // "": hostname + "_" + random suffix
  std::string role;            // "": the lock name
  std::chrono::nanoseconds lease_duration = std::chrono::seconds(15);
  std::chrono::nanoseconds renew_deadline = std::chrono::seconds(10);
  std::chrono::nanoseconds retry_period = std::chrono::seconds(2);
  std::chrono::nanoseconds wait_after_renewal_failure = std::chrono::seconds(3);
  std::chrono::nanoseconds grace_period = std::chrono::seconds(5);
  // Whether a source (YAML, environment, flag) set gracePeriod. When none did, the default of
  // 5 s shrinks to what a short lease leaves room for (ResolveRunSettings).
  bool grace_period_set = false;
  bool release_on_cancel = false;
  bool wait_for_pod_ready = true;  // only where there is a pod (see docs/run.md)
  bool publish_events = true;
  bool use_config_map_as_lock = false;
  bool campaign_again = false;
  bool ready_only_while_leader = false;
  std::string listen;  // "": no endpoints
  std::string kubeconfig;
  std::string context;
  std::string servers;  // "": the kubeconfig's server; else URL[,URL...] (replicas)
  bool coordinated = false;
  std::string binary_version;
  std::string emulation_version;
  std::string strategy;

  bool operator==(const RunSettings&) const = default;
};

struct RunKnob {
  std::string_view name;  // Spring-style (YAML) name
  std::string_view help;
  bool is_flag;  // boolean: a flag without value means true
  Status (*set)(RunSettings& settings, std::string_view value);
};

// Every knob, in documentation order.
const std::vector<RunKnob>& RunKnobs();
std::string KnobEnvName(std::string_view knob);   // leaseDuration -> TENURE_LEASE_DURATION
std::string KnobFlagName(std::string_view knob);  // leaseDuration -> --lease-duration

// Sets one knob by name (relaxed: case, '-' and '_' are ignored); errors name the knob and
// the source, e.g. "leaseDuration (from TENURE_LEASE_DURATION): invalid duration \"x\"".
Status SetKnob(RunSettings& settings, std::string_view name, std::string_view value,
               std::string_view source);

Result<std::chrono::nanoseconds> ParseDuration(std::string_view text);
// "15s", "1m30s", "500ms" (whole units as short as possible) for messages and docs.
std::string FormatDuration(std::chrono::nanoseconds d);

// Applies a YAML document's knobs; `source` names it in errors.
Status ApplyYaml(RunSettings& settings, const std::string& yaml_text, std::string_view source);
Status ApplyYamlFile(RunSettings& settings, const std::string& path);
// Applies TENURE_* variables found by `getenv` (a parameter so tests need no real environment).
Status ApplyEnv(RunSettings& settings, const std::function<const char*(const char*)>& getenv);
// Applies flag values given on the command line (knob name -> value).
Status ApplyFlags(RunSettings& settings, const std::map<std::string, std::string>& given);

// The whole chain: defaults, then the file (`config_file`, or TENURE_CONFIG), then the
// environment, then the flags.
Result<RunSettings> ResolveRunSettings(const std::string& config_file,
                                       const std::map<std::string, std::string>& flags,
                                       const std::function<const char*(const char*)>& getenv);

// `tenure run` starts stopping the command this long before anyone else could take the lease
// over: the grace period (SIGTERM to SIGKILL) plus time to deliver SIGKILL and reap the process.
std::chrono::nanoseconds StopMargin(const RunSettings& settings);

// The election's settings from the run's (durations, handover, safety margin from the grace
// period); lock and callbacks are the supervisor's to add.
ElectionConfig ElectionTimingsOf(const RunSettings& settings);
// The longest gracePeriod the other timings leave room for (in tenths of a second; zero or less
// when there is none): a leader must be able to renew twice before it must stop its command.
std::chrono::nanoseconds LongestGracePeriod(const RunSettings& settings);

// Checks that do not need a cluster: a lock name, durations the library accepts
// (ValidateElectionTimings), a grace period that leaves time to renew, coordinated versions.
Status ValidateRunSettings(const RunSettings& settings);

}  // namespace tenure::cli
