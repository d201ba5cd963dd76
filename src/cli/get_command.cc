// `tenure get leases|candidates`: a kubectl-like listing with the columns leader election
// needs (holder, last renewal, expiry) instead of kubectl's Name/Holder/Age.
#include <CLI/CLI.hpp>
#include <iostream>

#include "api/codec.h"
#include "cli/inspect_commands.h"
#include "cli/lease_view.h"
#include "cli/output_format.h"
#include "cli/yaml_output.h"

namespace tenure::cli {

namespace {

using nlohmann::json;

struct GetFlags {
  std::string resource;
  std::string ns;
  bool all_namespaces = false;
  std::string output;
  ConnectionFlags connection;
};

std::string Or(const std::string& text, const std::string& fallback) {
  return text.empty() ? fallback : text;
}

std::string LeasesTable(const api::LeaseList& list, bool all, bool wide, api::Timestamp now,
                        const Painter& painter) {
  std::vector<std::string> header;
  if (all) header.push_back("NAMESPACE");
  for (const char* h : {"NAME", "HOLDER", "RENEWED", "EXPIRES", "AGE"}) header.push_back(h);
  if (wide) {
    for (const char* h : {"TRANSITIONS", "DURATION", "ACQUIRED", "STRATEGY", "PREFERRED HOLDER"}) {
      header.push_back(h);
    }
  }
  TextTable table(header);
  for (const api::Lease& lease : list.items) {
    const auto& spec = lease.spec;
    std::vector<TextTable::Cell> row;
    if (all) row.push_back({lease.metadata.namespace_});
    row.push_back({lease.metadata.name});
    row.push_back({HolderText(lease), HolderColor(lease, now)});
    row.push_back({spec.renew_time ? Ago(spec.renew_time, now) : "<none>"});
    row.push_back({ExpiresText(lease, now), IsHeld(lease, now) ? Color::kNone : Color::kDim});
    row.push_back({Ago(lease.metadata.creation_timestamp, now)});
    if (wide) {
      row.push_back({std::to_string(spec.lease_transitions.value_or(0))});
      row.push_back({LeaseDurationText(lease)});
      row.push_back({spec.acquire_time ? Ago(spec.acquire_time, now) : "<none>"});
      row.push_back({Or(spec.strategy.value_or(""), "<none>")});
      row.push_back({Or(spec.preferred_holder.value_or(""), "<none>")});
    }
    table.AddRow(std::move(row));
  }
  return table.Render(painter);
}

std::string CandidatesTable(const api::LeaseCandidateList& list, bool all, bool wide,
                            api::Timestamp now, const Painter& painter) {
  std::vector<std::string> header;
  if (all) header.push_back("NAMESPACE");
  for (const char* h : {"NAME", "LEASE", "BINARY VERSION", "EMULATION VERSION", "RENEWED", "AGE"}) {
    header.push_back(h);
  }
  if (wide) {
    header.push_back("STRATEGY");
    header.push_back("PINGED");
  }
  TextTable table(header);
  for (const api::LeaseCandidate& c : list.items) {
    std::vector<TextTable::Cell> row;
    if (all) row.push_back({c.metadata.namespace_});
    row.push_back({c.metadata.name});
    row.push_back({c.spec.lease_name});
    row.push_back({Or(c.spec.binary_version, "<none>")});
    row.push_back({Or(c.spec.emulation_version, "<none>")});
    row.push_back({c.spec.renew_time ? Ago(c.spec.renew_time, now) : "<none>"});
    row.push_back({Ago(c.metadata.creation_timestamp, now)});
    if (wide) {
      row.push_back({Or(c.spec.strategy, "<none>")});
      row.push_back({c.spec.ping_time ? Ago(c.spec.ping_time, now) : "<none>"});
    }
    table.AddRow(std::move(row));
  }
  return table.Render(painter);
}

int RunGet(const GetFlags& flags) {
  bool leases = flags.resource == "leases" || flags.resource == "lease";
  auto api = ConnectOrReport("get", flags.connection);
  if (!api) return 1;
  std::string ns = flags.all_namespaces ? "" : Or(flags.ns, api->default_namespace());

  Result<json> list = Status::Internal("unset");
  if (leases) {
    list = api->ListLeases(ns);
  } else {
    auto version = api->CandidateVersion();
    if (!version.ok()) {
      std::cerr << "tenure get: " << DescribeError(version.status(), api->server()) << "\n";
      return 1;
    }
    if (version->empty()) {
      std::cerr << "tenure get: " << api->server()
                << " does not serve LeaseCandidates (coordination.k8s.io v1beta1 or v1alpha2); "
                   "kube-apiserver needs --feature-gates=CoordinatedLeaderElection=true and "
                   "--runtime-config=coordination.k8s.io/v1beta1=true\n";
      return 1;
    }
    list = api->ListCandidates(*version, ns);
  }
  if (!list.ok()) {
    std::cerr << "tenure get: " << DescribeError(list.status(), api->server()) << "\n";
    return 1;
  }
  if (flags.output == "json") {
    std::cout << list->dump(4) << "\n";
    return 0;
  }
  if (flags.output == "yaml") {
    std::cout << ToYaml(*list);
    return 0;
  }
  const json& items = list->contains("items") ? (*list)["items"] : json::array();
  if (items.empty()) {
    std::cerr << "No resources found" << (ns.empty() ? "" : " in " + ns + " namespace") << ".\n";
    return 0;
  }
  auto now = std::chrono::system_clock::now();
  Painter painter = Painter::ForStdout();
  bool wide = flags.output == "wide";
  if (leases) {
    auto typed = api::LeaseListFromJson(*list);
    if (!typed.ok()) {
      std::cerr << "tenure get: unexpected LeaseList from the server: " << typed.status().message()
                << "\n";
      return 1;
    }
    std::cout << LeasesTable(*typed, ns.empty(), wide, now, painter);
  } else {
    auto typed = api::LeaseCandidateListFromJson(*list);
    if (!typed.ok()) {
      std::cerr << "tenure get: unexpected LeaseCandidateList from the server: "
                << typed.status().message() << "\n";
      return 1;
    }
    std::cout << CandidatesTable(*typed, ns.empty(), wide, now, painter);
  }
  return 0;
}

}  // namespace

void AddGetCommand(CLI::App& app) {
  auto flags = std::make_shared<GetFlags>();
  CLI::App* get = app.add_subcommand("get", "List leases (who holds them) or lease candidates");
  get->add_option("resource", flags->resource, "leases or candidates")
      ->required()
      ->transform(CLI::IsMember(
          {"leases", "lease", "candidates", "candidate", "leasecandidates", "leasecandidate"}));
  auto* ns = get->add_option("-n,--namespace", flags->ns,
                             "Namespace (default: the kubeconfig context's, else \"default\")");
  get->add_flag("-A,--all-namespaces", flags->all_namespaces, "List every namespace")->excludes(ns);
  get->add_option("-o,--output", flags->output, "Output format: wide, yaml or json")
      ->check(CLI::IsMember({"wide", "yaml", "json"}));
  AddConnectionFlags(get, flags->connection);
  get->footer(
      "Examples:\n"
      "  tenure get leases -A                  # every lease, its holder and expiry\n"
      "  tenure get leases -n kube-system -o wide\n"
      "  tenure get candidates -A              # LeaseCandidates (coordinated election)\n"
      "  tenure get leases -o yaml --kubeconfig ~/.local/share/tenure/kubeconfig");
  get->callback([flags] { std::exit(RunGet(*flags)); });
}

}  // namespace tenure::cli
