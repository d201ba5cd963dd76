// The three ways to configure `tenure run` (YAML, environment, flags) map to one RunSettings.
#include "cli/run_settings.h"

#include <gtest/gtest.h>

#include <map>

namespace tenure::cli {
namespace {

using namespace std::chrono_literals;

// A fake environment.
struct Env {
  std::map<std::string, std::string> vars;
  std::function<const char*(const char*)> getenv() const {
    return [this](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

// Every knob set to a non-default value, three ways.
const char* kYaml = R"(
lockName: my-lock
lockNamespace: team-a
identity: pod-1
role: billing
leaseDuration: PT20S
renewDeadline: 12s
retryPeriod: 1500ms
waitAfterRenewalFailure: 7
gracePeriod: 2s
releaseOnCancel: true
waitForPodReady: false
publishEvents: false
useConfigMapAsLock: true
campaignAgain: true
readyOnlyWhileLeader: true
listen: 127.0.0.1:9090
kubeconfig: /tmp/kc
context: kind
servers: https://10.0.0.1:6443,https://10.0.0.2:6443
coordinated: true
binaryVersion: 1.34.0
emulationVersion: 1.33.0
strategy: OldestEmulationVersion
)";

const std::map<std::string, std::string> kEnv = {
    {"TENURE_LOCK_NAME", "my-lock"},
    {"TENURE_LOCK_NAMESPACE", "team-a"},
    {"TENURE_IDENTITY", "pod-1"},
    {"TENURE_ROLE", "billing"},
    {"TENURE_LEASE_DURATION", "20s"},
    {"TENURE_RENEW_DEADLINE", "PT12S"},
    {"TENURE_RETRY_PERIOD", "1.5s"},
    {"TENURE_WAIT_AFTER_RENEWAL_FAILURE", "7s"},
    {"TENURE_GRACE_PERIOD", "2000ms"},
    {"TENURE_RELEASE_ON_CANCEL", "true"},
    {"TENURE_WAIT_FOR_POD_READY", "false"},
    {"TENURE_PUBLISH_EVENTS", "0"},
    {"TENURE_LOCK_TYPE", "configmap"},
    {"TENURE_CAMPAIGN_AGAIN", "yes"},
    {"TENURE_READY_ONLY_WHILE_LEADER", "true"},
    {"TENURE_LISTEN", "127.0.0.1:9090"},
    {"TENURE_KUBECONFIG", "/tmp/kc"},
    {"TENURE_CONTEXT", "kind"},
    {"TENURE_SERVERS", "https://10.0.0.1:6443,https://10.0.0.2:6443"},
    {"TENURE_COORDINATED", "true"},
    {"TENURE_BINARY_VERSION", "1.34.0"},
    {"TENURE_EMULATION_VERSION", "1.33.0"},
    {"TENURE_STRATEGY", "OldestEmulationVersion"},
};

// As `tenure run` passes flags: knob name -> typed value ("true" for a bare boolean flag).
const std::map<std::string, std::string> kFlags = {
    {"lock", "team-a/my-lock"},
    {"identity", "pod-1"},
    {"role", "billing"},
    {"leaseDuration", "20s"},
    {"renewDeadline", "12s"},
    {"retryPeriod", "1500ms"},
    {"waitAfterRenewalFailure", "7s"},
    {"gracePeriod", "2s"},
    {"releaseOnCancel", "true"},
    {"waitForPodReady", "false"},
    {"publishEvents", "false"},
    {"lockType", "configmap"},
    {"campaignAgain", "true"},
    {"readyOnlyWhileLeader", "true"},
    {"listen", "127.0.0.1:9090"},
    {"kubeconfig", "/tmp/kc"},
    {"context", "kind"},
    {"servers", "https://10.0.0.1:6443,https://10.0.0.2:6443"},
    {"coordinated", "true"},
    {"binaryVersion", "1.34.0"},
    {"emulationVersion", "1.33.0"},
    {"strategy", "OldestEmulationVersion"},
};

RunSettings Expected() {
  RunSettings s;
  s.lock_name = "my-lock";
  s.lock_namespace = "team-a";
  s.identity = "pod-1";
  s.role = "billing";
  s.lease_duration = 20s;
  s.renew_deadline = 12s;
  s.retry_period = 1500ms;
  s.wait_after_renewal_failure = 7s;
  s.grace_period = 2s;
  s.grace_period_set = true;
  s.release_on_cancel = true;
  s.wait_for_pod_ready = false;
  s.publish_events = false;
  s.use_config_map_as_lock = true;
  s.campaign_again = true;
  s.ready_only_while_leader = true;
  s.listen = "127.0.0.1:9090";
  s.kubeconfig = "/tmp/kc";
  s.context = "kind";
  s.servers = "https://10.0.0.1:6443,https://10.0.0.2:6443";
  s.coordinated = true;
  s.binary_version = "1.34.0";
  s.emulation_version = "1.33.0";
  s.strategy = "OldestEmulationVersion";
  return s;
}

TEST(RunSettingsTest, YamlEnvironmentAndFlagsGiveIdenticalSettings) {
  RunSettings from_yaml, from_env, from_flags;
  ASSERT_TRUE(ApplyYaml(from_yaml, kYaml, "test.yaml").ok());
  Env env{{kEnv.begin(), kEnv.end()}};
  ASSERT_TRUE(ApplyEnv(from_env, env.getenv()).ok());
  ASSERT_TRUE(ApplyFlags(from_flags, kFlags).ok());
  EXPECT_TRUE(from_yaml == Expected());
  EXPECT_TRUE(from_env == Expected());
  EXPECT_TRUE(from_flags == Expected());
  EXPECT_TRUE(ValidateRunSettings(from_yaml).ok()) << ValidateRunSettings(from_yaml).message();
}

TEST(RunSettingsTest, EveryKnobHasAYamlKeyAnEnvironmentVariableAndAFlag) {
  // The tables above cover every knob (lock/lockType are shorthands of others).
  for (const RunKnob& knob : RunKnobs()) {
    std::string name(knob.name);
    EXPECT_TRUE(kEnv.count(KnobEnvName(name)) || name == "lock" || name == "useConfigMapAsLock")
        << name;
    EXPECT_TRUE(kFlags.count(name) || name == "lockName" || name == "lockNamespace" ||
                name == "useConfigMapAsLock")
        << name;
  }
  EXPECT_EQ(KnobEnvName("waitAfterRenewalFailure"), "TENURE_WAIT_AFTER_RENEWAL_FAILURE");
  EXPECT_EQ(KnobFlagName("waitAfterRenewalFailure"), "--wait-after-renewal-failure");
}

TEST(RunSettingsTest, SpringApplicationYamlWithRelaxedNamesIsRead) {
  RunSettings s;
  Status status = ApplyYaml(s, R"(
server:
  port: 8080
spring:
  application:
    name: billing
  cloud:
    kubernetes:
      leader:
        election:
          enabled: true
          lock-name: spring-lock
          lockNamespace: apps
          wait-after-renewal-failure: 3
          use-config-map-as-lock: true
          publish_events: false
)",
                            "application.yaml");
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(s.lock_name, "spring-lock");
  EXPECT_EQ(s.lock_namespace, "apps");
  EXPECT_EQ(s.wait_after_renewal_failure, 3s);
  EXPECT_TRUE(s.use_config_map_as_lock);
  EXPECT_FALSE(s.publish_events);
}

// A short lease leaves no room for the default 5 s grace period: unless a source set one, the
// default shrinks to the longest that still lets the leader renew twice before it must stop the
// command. A grace period that was set is kept, and its refusal names the setting and a value
// that works.
TEST(RunSettingsTest, TheDefaultGracePeriodAdaptsToAShortLease) {
  std::map<std::string, std::string> fast = {{"lock", "ns/name"},
                                             {"leaseDuration", "3s"},
                                             {"renewDeadline", "2s"},
                                             {"retryPeriod", "250ms"}};
  auto adapted = ResolveRunSettings("", fast, Env{}.getenv());
  ASSERT_TRUE(adapted.ok()) << adapted.status().message();
  // 3 s x 0.99 - 200 ms - 2 x 250 ms = 2.27 s, in tenths: 2.2 s.
  EXPECT_EQ(adapted->grace_period, 2200ms);
  EXPECT_FALSE(adapted->grace_period_set);
  EXPECT_TRUE(ValidateRunSettings(*adapted).ok()) << ValidateRunSettings(*adapted).message();
  auto defaults = ResolveRunSettings("", {{"lock", "ns/name"}}, Env{}.getenv());
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->grace_period, 5s);  // the default timings have room for it

  auto explicit_grace = fast;
  explicit_grace["gracePeriod"] = "5s";
  auto kept = ResolveRunSettings("", explicit_grace, Env{}.getenv());
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->grace_period, 5s);
  EXPECT_EQ(ValidateRunSettings(*kept).message(),
            "gracePeriod 5s is too long for leaseDuration 3s: leaseDuration x 0.99 - gracePeriod - "
            "200ms must exceed 2 x retryPeriod (500ms); set --grace-period (TENURE_GRACE_PERIOD, "
            "gracePeriod) to 2200ms or less, or lengthen --lease-duration");
  auto from_env = ResolveRunSettings("", fast, Env{{{"TENURE_GRACE_PERIOD", "4s"}}}.getenv());
  ASSERT_TRUE(from_env.ok());
  EXPECT_TRUE(from_env->grace_period_set);
  EXPECT_EQ(from_env->grace_period, 4s);

  // No grace period fits: the lease itself is named.
  std::map<std::string, std::string> tight = {{"lock", "ns/name"},
                                              {"leaseDuration", "1s"},
                                              {"renewDeadline", "800ms"},
                                              {"retryPeriod", "400ms"}};
  auto too_short = ResolveRunSettings("", tight, Env{}.getenv());
  ASSERT_TRUE(too_short.ok());
  EXPECT_NE(ValidateRunSettings(*too_short)
                .message()
                .find("lengthen --lease-duration (TENURE_LEASE_DURATION, leaseDuration) or shorten "
                      "--retry-period (TENURE_RETRY_PERIOD, retryPeriod)"),
            std::string::npos)
      << ValidateRunSettings(*too_short).message();
}

TEST(RunSettingsTest, PrecedenceIsFlagsThenEnvironmentThenFileThenDefaults) {
  std::string path = ::testing::TempDir() + "/run_settings_test.yaml";
  {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("lockName: from-file\nleaseDuration: 30s\nrenewDeadline: 20s\nidentity: file-id\n",
               f);
    std::fclose(f);
  }
  Env env{{{"TENURE_LEASE_DURATION", "40s"}, {"TENURE_IDENTITY", "env-id"}}};
  auto s = ResolveRunSettings(path, {{"identity", "flag-id"}}, env.getenv());
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->lock_name, "from-file");  // file only
  EXPECT_EQ(s->renew_deadline, 20s);     // file only
  EXPECT_EQ(s->lease_duration, 40s);     // env beats file
  EXPECT_EQ(s->identity, "flag-id");     // flag beats env
  EXPECT_EQ(s->retry_period, 2s);        // default
  EXPECT_TRUE(s->publish_events);        // default
  // TENURE_CONFIG names the file when --config is not given.
  Env with_config{{{"TENURE_CONFIG", path}}};
  auto t = ResolveRunSettings("", {}, with_config.getenv());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->lock_name, "from-file");
  EXPECT_EQ(ResolveRunSettings("/nonexistent/x.yaml", {}, Env{}.getenv()).status().reason(),
            Reason::kNotFound);
}

TEST(RunSettingsTest, DurationsInEveryAcceptedForm) {
  EXPECT_EQ(*ParseDuration("15s"), 15s);
  EXPECT_EQ(*ParseDuration("PT15S"), 15s);
  EXPECT_EQ(*ParseDuration("pt0.5s"), 500ms);
  EXPECT_EQ(*ParseDuration("PT1M30S"), 90s);
  EXPECT_EQ(*ParseDuration("P1DT1H"), 25h);
  EXPECT_EQ(*ParseDuration("1m30s"), 90s);
  EXPECT_EQ(*ParseDuration("250ms"), 250ms);
  EXPECT_EQ(*ParseDuration("3"), 3s);
  EXPECT_EQ(*ParseDuration("2.5"), 2500ms);
  EXPECT_EQ(*ParseDuration(" 1h "), 1h);
  for (const char* bad : {"", "-1s", "abc", "15x", "s", "P", "PT", "PT5D", "1.2.3s", "5 s s"}) {
    auto d = ParseDuration(bad);
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_NE(d.status().message().find("invalid duration"), std::string::npos) << bad;
  }
  EXPECT_EQ(FormatDuration(90s), "1m30s");
  EXPECT_EQ(FormatDuration(1500ms), "1500ms");
}

TEST(RunSettingsTest, BadInputGetsAClearError) {
  RunSettings s;
  EXPECT_EQ(
      ApplyYaml(s, "leaseDuration: soon", "f.yaml").message(),
      "leaseDuration (from f.yaml): invalid duration \"soon\" (expected a number at \"soon\"; use "
      "e.g. 15s, 500ms, 1m30s, PT15S or a number of seconds)");
  EXPECT_EQ(ApplyYaml(s, "lockNmae: x", "f.yaml").message(),
            "unknown setting \"lockNmae\" in f.yaml");
  EXPECT_NE(ApplyYaml(s, "a: [", "f.yaml").message().find("not valid YAML"), std::string::npos);
  EXPECT_NE(ApplyYaml(s, "- a\n- b", "f.yaml").message().find("want a map"), std::string::npos);
  EXPECT_NE(ApplyYaml(s, "lockName: [a, b]", "f.yaml").message().find("single value"),
            std::string::npos);
  Env env{{{"TENURE_PUBLISH_EVENTS", "maybe"}}};
  EXPECT_EQ(
      ApplyEnv(s, env.getenv()).message(),
      "publishEvents (from TENURE_PUBLISH_EVENTS): invalid boolean \"maybe\" (want true or false)");
  EXPECT_NE(ApplyFlags(s, {{"lock", "a/b/c"}}).message().find("want NAMESPACE/NAME"),
            std::string::npos);
  EXPECT_NE(ApplyFlags(s, {{"lockType", "etcd"}}).message().find("want lease or configmap"),
            std::string::npos);
}

TEST(RunSettingsTest, ValidationExplainsWhatIsWrong) {
  RunSettings s;
  EXPECT_NE(ValidateRunSettings(s).message().find("a lock name is required"), std::string::npos);
  s.lock_name = "x";
  EXPECT_TRUE(ValidateRunSettings(s).ok());
  RunSettings bad = s;
  bad.renew_deadline = 15s;
  EXPECT_EQ(ValidateRunSettings(bad).message(),
            "leaseDuration must be greater than renewDeadline; set --renew-deadline "
            "(TENURE_RENEW_DEADLINE, renewDeadline) below 15s, e.g. 10s, or --lease-duration "
            "(TENURE_LEASE_DURATION, leaseDuration) above 15s");
  bad = s;
  bad.retry_period = 9s;
  EXPECT_EQ(ValidateRunSettings(bad).message(),
            "renewDeadline must be greater than retryPeriod*JitterFactor; set --retry-period "
            "(TENURE_RETRY_PERIOD, retryPeriod) to 5s or less (renewDeadline / 1.2 at most), or "
            "lengthen --renew-deadline (TENURE_RENEW_DEADLINE, renewDeadline)");
  bad = s;
  bad.lease_duration = 15500ms;
  EXPECT_NE(ValidateRunSettings(bad).message().find("whole number of seconds"), std::string::npos);
  EXPECT_NE(ValidateRunSettings(bad).message().find(
                "; set --lease-duration (TENURE_LEASE_DURATION, leaseDuration) to 16s"),
            std::string::npos);
  bad = s;
  bad.grace_period = 11s;  // 14.85 s - 11.2 s leaves less than two retry periods
  EXPECT_NE(ValidateRunSettings(bad).message().find("gracePeriod 11s is too long"),
            std::string::npos);
  bad = s;
  bad.lock_name = "Bad_Name";
  EXPECT_NE(ValidateRunSettings(bad).message().find(
                "lockName \"Bad_Name\": a lowercase RFC 1123 subdomain"),
            std::string::npos)
      << ValidateRunSettings(bad).message();
  bad = s;
  bad.lock_namespace = "a.b";
  EXPECT_NE(ValidateRunSettings(bad).message().find("lockNamespace \"a.b\""), std::string::npos);
  bad = s;
  bad.coordinated = true;
  EXPECT_NE(ValidateRunSettings(bad).message().find("binary version"), std::string::npos);
  EXPECT_EQ(StopMargin(s), 5200ms);
}

TEST(RunSettingsTest, LockShorthandSetsNamespaceAndName) {
  RunSettings s;
  ASSERT_TRUE(ApplyFlags(s, {{"lock", "ns/name"}}).ok());
  EXPECT_EQ(s.lock_namespace, "ns");
  EXPECT_EQ(s.lock_name, "name");
  RunSettings t;
  ASSERT_TRUE(ApplyFlags(t, {{"lock", "only-name"}}).ok());
  EXPECT_EQ(t.lock_namespace, "");
  EXPECT_EQ(t.lock_name, "only-name");
}

}  // namespace
}  // namespace tenure::cli
