// `tenure run`: the subcommand with one flag per RunKnob; resolves settings, then RunWhileLeader.
#include "cli/run_command.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <map>

#include "cli/run_settings.h"
#include "cli/run_supervisor.h"

namespace tenure::cli {

namespace {

struct RunFlags {
  std::string config_file;
  std::map<std::string, std::string> values;  // knob name -> flag value, as typed
  std::map<std::string, CLI::Option*> options;
  std::vector<std::string> command;
};

std::string Description() {
  std::string text =
      "Run COMMAND only while this process leads the lock NAMESPACE/NAME.\n"
      "The command gets TENURE_IDENTITY, TENURE_FENCING_TOKEN, TENURE_LOCK_NAMESPACE,\n"
      "TENURE_LOCK_NAME and TENURE_ROLE; it is stopped (SIGTERM, then SIGKILL after the grace\n"
      "period) before anyone else can take the lease over. Every flag is also an environment\n"
      "variable (TENURE_LEASE_DURATION for --lease-duration) and a YAML key (leaseDuration);\n"
      "flags win over the environment, which wins over the --config file. See docs/run.md.";
  return text;
}

int Run(RunFlags& flags) {
  std::map<std::string, std::string> given;
  for (const auto& [name, option] : flags.options) {
    if (option->count() > 0) given[name] = flags.values[name];
  }
  auto settings = ResolveRunSettings(flags.config_file, given,
                                     [](const char* name) { return std::getenv(name); });
  if (!settings.ok()) {
    std::cerr << "tenure run: " << settings.status().message() << "\n";
    return 2;
  }
  if (Status s = ValidateRunSettings(*settings); !s.ok()) {
    std::cerr << "tenure run: " << s.message() << "\n";
    return 2;
  }
  if (flags.command.empty()) {
    std::cerr << "tenure run: no command given (tenure run --lock NS/NAME -- COMMAND ARGS...)\n";
    return 2;
  }
  return RunWhileLeader(*settings, flags.command);
}

}  // namespace

void AddRunCommand(CLI::App& app) {
  auto flags = std::make_shared<RunFlags>();
  CLI::App* run = app.add_subcommand(
      "run",
      "Run a command only while this process leads a lock: tenure run --lock NS/NAME -- CMD");
  run->footer(Description());
  run->add_option(
      "--config", flags->config_file,
      "YAML file with the settings below (Spring Cloud Kubernetes names); also TENURE_CONFIG");
  for (const RunKnob& knob : RunKnobs()) {
    std::string name(knob.name);
    std::string help = std::string(knob.help) + " [" + KnobEnvName(knob.name) + ", " + name + "]";
    CLI::Option* option;
    if (knob.is_flag) {
      // --flag means true; --flag=false is accepted too.
      option = run->add_flag(KnobFlagName(knob.name), flags->values[name], help);
    } else {
      std::string names = KnobFlagName(knob.name);
      if (name == "servers") names = "--server," + names;  // kubectl's spelling as well
      option = run->add_option(names, flags->values[name], help);
    }
    flags->options[name] = option;
  }
  run->add_option("command", flags->command, "The command and its arguments (after --)");
  run->callback([flags] { std::exit(Run(*flags)); });
}

}  // namespace tenure::cli
