// RunSettings: the knob table of `tenure run`, its YAML, environment and flag sources, durations.
#include "cli/run_settings.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "api/validation.h"

namespace tenure::cli {

namespace {

using std::chrono::nanoseconds;

Status Invalid(std::string message) { return Status(Reason::kInvalid, std::move(message)); }

std::string Relaxed(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c != '-' && c != '_' && c != '.')
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

Result<bool> ParseBool(std::string_view text) {
  std::string t = Relaxed(text);
  if (t == "true" || t == "yes" || t == "on" || t == "1" || t.empty()) return true;
  if (t == "false" || t == "no" || t == "off" || t == "0") return false;
  return Invalid("invalid boolean \"" + std::string(text) + "\" (want true or false)");
}

template <bool RunSettings::*field>
Status SetBool(RunSettings& s, std::string_view v) {
  auto b = ParseBool(v);
  if (!b.ok()) return b.status();
  s.*field = *b;
  return Status::Ok();
}

template <std::string RunSettings::*field>
Status SetString(RunSettings& s, std::string_view v) {
  s.*field = std::string(v);
  return Status::Ok();
}

template <nanoseconds RunSettings::*field>
Status SetDuration(RunSettings& s, std::string_view v) {
  auto d = ParseDuration(v);
  if (!d.ok()) return d.status();
  s.*field = *d;
  return Status::Ok();
}

Status SetGracePeriod(RunSettings& s, std::string_view v) {
  Status st = SetDuration<&RunSettings::grace_period>(s, v);
  if (st.ok()) s.grace_period_set = true;
  return st;
}

Status SetLock(RunSettings& s, std::string_view v) {
  size_t slash = v.find('/');
  if (slash == std::string_view::npos) {
    s.lock_name = std::string(v);
  } else {
    if (v.find('/', slash + 1) != std::string_view::npos || slash == 0 || slash + 1 == v.size()) {
      return Invalid("want NAMESPACE/NAME or NAME, got \"" + std::string(v) + "\"");
    }
    s.lock_namespace = std::string(v.substr(0, slash));
    s.lock_name = std::string(v.substr(slash + 1));
  }
  return Status::Ok();
}

Status SetLockType(RunSettings& s, std::string_view v) {
  std::string t = Relaxed(v);
  if (t == "lease" || t == "leases") {
    s.use_config_map_as_lock = false;
  } else if (t == "configmap" || t == "configmaps") {
    s.use_config_map_as_lock = true;
  } else {
    return Invalid("want lease or configmap, got \"" + std::string(v) + "\"");
  }
  return Status::Ok();
}

// One number with its unit, e.g. "1.5" "m".
Result<nanoseconds> Scaled(double value, std::string_view unit) {
  static const std::pair<std::string_view, double> kUnits[] = {
      {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}, {"d", 86400e9}};
  for (const auto& [name, factor] : kUnits) {
    if (unit == name) return nanoseconds(static_cast<int64_t>(std::llround(value * factor)));
  }
  return Invalid("unknown unit \"" + std::string(unit) + "\"");
}

// Reads "<number><unit>" pieces; `units` maps the ISO letters when iso is set.
Result<nanoseconds> ParsePieces(std::string_view text, bool iso) {
  nanoseconds total{0};
  bool in_time = !iso;
  size_t i = 0;
  int pieces = 0;
  if (text.empty()) return Invalid("empty");
  while (i < text.size()) {
    if (iso && text[i] == 'T') {
      in_time = true;
      ++i;
      continue;
    }
    size_t start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
      ++i;
    if (start == i)
      return Invalid("expected a number at \"" + std::string(text.substr(start)) + "\"");
    double value = 0;
    auto [end, ec] = std::from_chars(text.data() + start, text.data() + i, value);
    if (ec != std::errc() || end != text.data() + i) return Invalid("bad number");
    size_t unit_start = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i])) &&
           !(iso && text[i] == 'T')) {
      ++i;
      if (iso) break;  // ISO units are one letter
    }
    std::string unit(text.substr(unit_start, i - unit_start));
    if (unit.empty())
      return Invalid("missing unit after " + std::string(text.substr(start, i - start)));
    if (iso) {
      char u = static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0])));
      if (u == 'D' && !in_time)
        unit = "d";
      else if (u == 'H' && in_time)
        unit = "h";
      else if (u == 'M' && in_time)
        unit = "m";
      else if (u == 'S' && in_time)
        unit = "s";
      else
        return Invalid("unsupported ISO-8601 part \"" + unit + "\"");
    }
    auto piece = Scaled(value, unit);
    if (!piece.ok()) return piece.status();
    total += *piece;
    ++pieces;
  }
  if (pieces == 0) return Invalid("no value");
  return total;
}

}  // namespace

Result<nanoseconds> ParseDuration(std::string_view text) {
  std::string t(text);
  t.erase(std::remove_if(t.begin(), t.end(), [](unsigned char c) { return std::isspace(c); }),
          t.end());
  auto bad = [&](const Status& why) {
    return Invalid("invalid duration \"" + std::string(text) + "\" (" + why.message() +
                   "; use e.g. 15s, 500ms, 1m30s, PT15S or a number of seconds)");
  };
  if (t.empty()) return bad(Invalid("empty"));
  if (t[0] == '-') return bad(Invalid("negative"));
  Result<nanoseconds> d = Status::Internal("unset");
  if (t[0] == 'P' || t[0] == 'p') {
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::toupper(c); });
    d = ParsePieces(std::string_view(t).substr(1), /*iso=*/true);
  } else if (std::all_of(t.begin(), t.end(),
                         [](unsigned char c) { return std::isdigit(c) || c == '.'; })) {
    d = ParsePieces(t + "s", false);  // a plain number counts seconds
  } else {
    d = ParsePieces(t, false);
  }
  if (!d.ok()) return bad(d.status());
  return *d;
}

std::string FormatDuration(nanoseconds d) {
  using namespace std::chrono;
  if (d.count() == 0) return "0s";
  if (d % seconds(1) != nanoseconds(0)) {
    return std::to_string(duration_cast<milliseconds>(d).count()) + "ms";
  }
  int64_t s = duration_cast<seconds>(d).count();
  std::string out;
  if (s >= 3600) out += std::to_string(s / 3600) + "h", s %= 3600;
  if (s >= 60) out += std::to_string(s / 60) + "m", s %= 60;
  if (s > 0) out += std::to_string(s) + "s";
  return out;
}

const std::vector<RunKnob>& RunKnobs() {
  static const std::vector<RunKnob> knobs = {
      {"lock", "NAMESPACE/NAME (or NAME) of the lock: sets lockNamespace and lockName", false,
       SetLock},
      {"lockName", "Name of the Lease (or ConfigMap); required", false,
       SetString<&RunSettings::lock_name>},
      {"lockNamespace", "Namespace of the lock (default: the pod's or the kubeconfig context's)",
       false, SetString<&RunSettings::lock_namespace>},
      {"identity", "This candidate's identity (default: HOSTNAME_random)", false,
       SetString<&RunSettings::identity>},
      {"role", "Role name reported in /info (default: the lock name)", false,
       SetString<&RunSettings::role>},
      {"leaseDuration", "How long a lease is valid after its last renewal", false,
       SetDuration<&RunSettings::lease_duration>},
      {"renewDeadline", "A leader that cannot renew for this long stops leading", false,
       SetDuration<&RunSettings::renew_deadline>},
      {"retryPeriod", "Interval of acquire attempts and renewals", false,
       SetDuration<&RunSettings::retry_period>},
      {"waitAfterRenewalFailure",
       "After losing leadership, wait this long before campaigning again", false,
       SetDuration<&RunSettings::wait_after_renewal_failure>},
      {"gracePeriod",
       "SIGTERM to SIGKILL delay when leadership ends (default 5s, less when the lease is too "
       "short for it)",
       false, SetGracePeriod},
      {"releaseOnCancel", "On SIGINT/SIGTERM, release the lease once the command is gone", true,
       SetBool<&RunSettings::release_on_cancel>},
      {"waitForPodReady", "In a pod: campaign only once the pod is Ready", true,
       SetBool<&RunSettings::wait_for_pod_ready>},
      {"publishEvents", "Post LeaderElection Events on the lock object", true,
       SetBool<&RunSettings::publish_events>},
      {"useConfigMapAsLock", "Keep the record in a ConfigMap instead of a Lease", true,
       SetBool<&RunSettings::use_config_map_as_lock>},
      {"lockType", "lease or configmap (another way to set useConfigMapAsLock)", false,
       SetLockType},
      {"campaignAgain", "When the command exits, campaign again instead of exiting", true,
       SetBool<&RunSettings::campaign_again>},
      {"readyOnlyWhileLeader", "/readyz answers 200 only while leading", true,
       SetBool<&RunSettings::ready_only_while_leader>},
      {"listen", "HOST:PORT for /healthz /readyz /metrics /info (host defaults to 127.0.0.1)",
       false, SetString<&RunSettings::listen>},
      {"kubeconfig", "kubeconfig file (default: in-cluster, $KUBECONFIG or ~/.kube/config)", false,
       SetString<&RunSettings::kubeconfig>},
      {"context", "kubeconfig context (default: current)", false, SetString<&RunSettings::context>},
      {"servers",
       "API server URL(s) replacing the kubeconfig's, comma-separated: replicas of one server "
       "(same CA and credentials) tried in turn when one fails",
       false, SetString<&RunSettings::servers>},
      {"coordinated", "Coordinated leader election (LeaseCandidate; the server picks the leader)",
       true, SetBool<&RunSettings::coordinated>},
      {"binaryVersion", "Coordinated: this binary's version, e.g. 1.33.0", false,
       SetString<&RunSettings::binary_version>},
      {"emulationVersion", "Coordinated: the emulated version (default: binaryVersion)", false,
       SetString<&RunSettings::emulation_version>},
      {"strategy", "Coordinated: preferred strategy (default OldestEmulationVersion)", false,
       SetString<&RunSettings::strategy>},
  };
  return knobs;
}

std::string KnobEnvName(std::string_view knob) {
  std::string out = "TENURE_";
  for (char c : knob) {
    if (std::isupper(static_cast<unsigned char>(c))) out += '_';
    out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string KnobFlagName(std::string_view knob) {
  std::string out = "--";
  for (char c : knob) {
    if (std::isupper(static_cast<unsigned char>(c))) out += '-';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

Status SetKnob(RunSettings& settings, std::string_view name, std::string_view value,
               std::string_view source) {
  std::string key = Relaxed(name);
  for (const RunKnob& knob : RunKnobs()) {
    if (Relaxed(knob.name) != key) continue;
    Status s = knob.set(settings, value);
    if (!s.ok()) {
      return Invalid(std::string(knob.name) + " (from " + std::string(source) +
                     "): " + s.message());
    }
    return Status::Ok();
  }
  return Invalid("unknown setting \"" + std::string(name) + "\" in " + std::string(source));
}

Status ApplyYaml(RunSettings& settings, const std::string& yaml_text, std::string_view source) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    return Invalid(std::string(source) + ": not valid YAML: " + e.what());
  }
  if (root.IsNull()) return Status::Ok();
  if (!root.IsMap()) return Invalid(std::string(source) + ": want a map of settings");
  // (YAML::Node::operator= writes through to the node; reset() rebinds the handle.)
  YAML::Node knobs;
  knobs.reset(root);
  // A Spring application.yaml: only spring.cloud.kubernetes.leader.election is ours.
  if (root["spring"]) {
    for (const char* part : {"spring", "cloud", "kubernetes", "leader", "election"}) {
      if (!knobs.IsMap() || !knobs[part]) return Status::Ok();
      knobs.reset(knobs[part]);
    }
    if (knobs.IsNull()) return Status::Ok();
    if (!knobs.IsMap())
      return Invalid(std::string(source) +
                     ": spring.cloud.kubernetes.leader.election is not a map");
  }
  for (const auto& item : knobs) {
    std::string name = item.first.as<std::string>();
    if (root["spring"] && Relaxed(name) == "enabled") continue;  // Spring's own switch
    if (!item.second.IsScalar()) {
      return Invalid(std::string(source) + ": " + name + " must be a single value");
    }
    Status s = SetKnob(settings, name, item.second.Scalar(), source);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status ApplyYamlFile(RunSettings& settings, const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot read configuration file " + path);
  std::stringstream text;
  text << in.rdbuf();
  return ApplyYaml(settings, text.str(), path);
}

Status ApplyEnv(RunSettings& settings, const std::function<const char*(const char*)>& getenv) {
  for (const RunKnob& knob : RunKnobs()) {
    std::string var = KnobEnvName(knob.name);
    const char* value = getenv(var.c_str());
    if (value == nullptr) continue;
    Status s = SetKnob(settings, knob.name, value, var);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status ApplyFlags(RunSettings& settings, const std::map<std::string, std::string>& given) {
  for (const RunKnob& knob : RunKnobs()) {  // table order: --lock before --lock-name
    auto it = given.find(std::string(knob.name));
    if (it == given.end()) continue;
    Status s = SetKnob(settings, knob.name, it->second, KnobFlagName(knob.name));
    if (!s.ok()) return s;
  }
  for (const auto& [name, value] : given) {
    bool known = std::any_of(RunKnobs().begin(), RunKnobs().end(),
                             [&](const RunKnob& k) { return k.name == name; });
    if (!known) return Invalid("unknown flag for setting " + name);
  }
  return Status::Ok();
}

Result<RunSettings> ResolveRunSettings(const std::string& config_file,
                                       const std::map<std::string, std::string>& flags,
                                       const std::function<const char*(const char*)>& getenv) {
  RunSettings settings;
  std::string file = config_file;
  if (file.empty()) {
    if (const char* env = getenv("TENURE_CONFIG"); env != nullptr) file = env;
  }
  if (!file.empty()) {
    Status s = ApplyYamlFile(settings, file);
    if (!s.ok()) return s;
  }
  Status s = ApplyEnv(settings, getenv);
  if (!s.ok()) return s;
  s = ApplyFlags(settings, flags);
  if (!s.ok()) return s;
  // The default grace period adapts to a short lease (never below 1 s: a command needs some
  // time to stop; a lease too short even for that is refused by ValidateRunSettings).
  if (!settings.grace_period_set) {
    nanoseconds longest = LongestGracePeriod(settings);
    if (longest < settings.grace_period && longest >= std::chrono::seconds(1)) {
      settings.grace_period = longest;
    }
  }
  return settings;
}

nanoseconds StopMargin(const RunSettings& s) {
  return s.grace_period + std::chrono::milliseconds(200);
}

namespace {
// "0.99": the share of the lease a leader may use, in messages.
std::string FormatFactor(double factor) {
  std::ostringstream out;
  out << factor;
  return out.str();
}
}  // namespace

namespace {

// What to change when a duration breaks the library's rules (`message` is
// ValidateElectionTimings'): the setting by flag, variable and YAML key, and a value that works
// with the others.
std::string TimingFix(const std::string& message, const RunSettings& s) {
  using std::chrono::milliseconds;
  using std::chrono::seconds;
  auto starts = [&](std::string_view prefix) { return message.rfind(prefix, 0) == 0; };
  if (starts("leaseDuration must be greater than renewDeadline")) {
    return "set --renew-deadline (TENURE_RENEW_DEADLINE, renewDeadline) below " +
           FormatDuration(s.lease_duration) + ", e.g. " +
           FormatDuration(std::chrono::floor<milliseconds>(s.lease_duration * 2 / 3)) +
           ", or --lease-duration (TENURE_LEASE_DURATION, leaseDuration) above " +
           FormatDuration(s.renew_deadline);
  }
  if (starts("renewDeadline must be greater than retryPeriod")) {
    return "set --retry-period (TENURE_RETRY_PERIOD, retryPeriod) to " +
           FormatDuration(std::chrono::floor<milliseconds>(s.renew_deadline / 2)) +
           " or less (renewDeadline / 1.2 at most), or lengthen --renew-deadline "
           "(TENURE_RENEW_DEADLINE, renewDeadline)";
  }
  if (starts("leaseDuration must be a whole number")) {
    return "set --lease-duration (TENURE_LEASE_DURATION, leaseDuration) to " +
           FormatDuration(std::chrono::ceil<seconds>(s.lease_duration));
  }
  if (starts("leaseDuration must be greater than zero")) {
    return "set --lease-duration (TENURE_LEASE_DURATION, leaseDuration), e.g. 15s";
  }
  if (starts("renewDeadline must be greater than zero")) {
    return "set --renew-deadline (TENURE_RENEW_DEADLINE, renewDeadline), e.g. 10s";
  }
  if (starts("retryPeriod must be greater than zero")) {
    return "set --retry-period (TENURE_RETRY_PERIOD, retryPeriod), e.g. 2s";
  }
  return "shorten --retry-period (TENURE_RETRY_PERIOD, retryPeriod) or lengthen --lease-duration "
         "(TENURE_LEASE_DURATION, leaseDuration)";
}

}  // namespace

// The longest gracePeriod, in whole tenths of a second, that leaves a leader two retry periods
// to renew in before it must have stopped its command (see ValidateRunSettings); zero or less
// when even no grace period would.
nanoseconds LongestGracePeriod(const RunSettings& s) {
  RunSettings none = s;
  none.grace_period = nanoseconds(0);
  ElectionConfig election = ElectionTimingsOf(none);
  nanoseconds room = UsableLease(election) - 2 * s.retry_period - std::chrono::milliseconds(1);
  return std::chrono::floor<std::chrono::milliseconds>(room) / 100 * 100;
}

ElectionConfig ElectionTimingsOf(const RunSettings& s) {
  ElectionConfig election;
  election.lease_duration = s.lease_duration;
  election.renew_deadline = s.renew_deadline;
  election.retry_period = s.retry_period;
  election.release_on_cancel = s.release_on_cancel;
  election.recontend_after = s.wait_after_renewal_failure;
  election.safety_margin = StopMargin(s);
  // A graceful handover waits while the command stops: SIGTERM, SIGKILL after gracePeriod.
  election.drain_timeout = s.grace_period + std::chrono::seconds(1);
  election.coordinated = s.coordinated;
  return election;
}

Status ValidateRunSettings(const RunSettings& s) {
  if (s.lock_name.empty()) {
    return Invalid("a lock name is required (--lock NAMESPACE/NAME, TENURE_LOCK_NAME or lockName)");
  }
  // Checked here too (the server would refuse them later) so that names are safe in URLs,
  // metric labels and the command's environment from the start.
  if (auto errors = api::IsDNS1123Subdomain(s.lock_name); !errors.empty()) {
    return Invalid("lockName \"" + s.lock_name + "\": " + errors.front());
  }
  if (!s.lock_namespace.empty()) {
    if (auto errors = api::IsDNS1123Label(s.lock_namespace); !errors.empty()) {
      return Invalid("lockNamespace \"" + s.lock_namespace + "\": " + errors.front());
    }
  }
  // The durations by the library's own rules (ValidateElectionTimings), without the grace
  // period first: when only the grace period leaves no time to renew, the message names it.
  ElectionConfig election = ElectionTimingsOf(s);
  ElectionConfig durations = election;
  durations.safety_margin = nanoseconds(0);
  if (Status st = ValidateElectionTimings(durations); !st.ok()) {
    return Invalid(st.message() + "; " + TimingFix(st.message(), s));
  }
  // The command must be stopped before the lease could pass to someone else, and a renewal must
  // fit in before that point.
  if (UsableLease(election) <= 2 * s.retry_period) {
    nanoseconds longest = LongestGracePeriod(s);
    std::string fix =
        longest > nanoseconds(0)
            ? "set --grace-period (TENURE_GRACE_PERIOD, gracePeriod) to " +
                  FormatDuration(longest) + " or less, or lengthen --lease-duration"
            : "lengthen --lease-duration (TENURE_LEASE_DURATION, leaseDuration) or shorten "
              "--retry-period (TENURE_RETRY_PERIOD, retryPeriod)";
    return Invalid("gracePeriod " + FormatDuration(s.grace_period) +
                   " is too long for leaseDuration " + FormatDuration(s.lease_duration) +
                   ": leaseDuration x " + FormatFactor(1.0 - election.max_clock_rate_drift) +
                   " - gracePeriod - 200ms must exceed " + "2 x retryPeriod (" +
                   FormatDuration(2 * s.retry_period) + "); " + fix);
  }
  if (s.coordinated && s.binary_version.empty()) {
    return Invalid("coordinated election needs a binary version (--binary-version)");
  }
  return Status::Ok();
}

}  // namespace tenure::cli
