// `tenure describe lease NS/NAME`: everything about one election in one screen: the holder and
// its times, the coordinated-election fields, the LeaseCandidates for the lease and the recent
// Events about it.
#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>

#include "api/codec.h"
#include "cli/inspect_commands.h"
#include "cli/lease_view.h"
#include "cli/lease_writers.h"
#include "cli/output_format.h"

namespace tenure::cli {

namespace {

using nlohmann::json;

constexpr size_t kMaxEvents = 15;
constexpr size_t kMaxWriters = 10;

struct DescribeFlags {
  LeaseRefFlags lease;
  std::string audit_log;
};

// `micro`: a MicroTime field (spec times) rather than a Time (metadata, whole seconds).
std::string TimeAndAge(const std::optional<api::Timestamp>& t, api::Timestamp now,
                       bool micro = true) {
  if (!t) return "<none>";
  return (micro ? api::FormatMicroTime(*t) : api::FormatTime(*t)) + " (" + Ago(t, now) + " ago)";
}

class Fields {
 public:
  explicit Fields(const Painter& painter) : painter_(painter) {}
  void Add(const std::string& label, const std::string& value, Color color = Color::kNone) {
    std::string padded = label + ":";
    padded.resize(std::max<size_t>(padded.size() + 1, 20), ' ');
    out_ << padded << painter_.Paint(value, color) << "\n";
  }
  void Section(const std::string& label, const std::string& body_or_none) {
    if (body_or_none.find('\n') == std::string::npos) {
      Add(label, body_or_none);
    } else {
      out_ << label << ":\n" << body_or_none;
    }
  }
  std::string str() const { return out_.str(); }

 private:
  const Painter& painter_;
  std::ostringstream out_;
};

// The candidates table for `lease`, or one line saying why there is none.
std::string CandidatesSection(LeaseApi& api, const api::Lease& lease, api::Timestamp now,
                              const Painter& painter) {
  auto version = api.CandidateVersion();
  if (!version.ok()) return "<unavailable: " + DescribeError(version.status(), api.server()) + ">";
  if (version->empty()) return "<LeaseCandidate API not served>";
  auto list = api.ListCandidates(*version, lease.metadata.namespace_);
  if (!list.ok()) return "<unavailable: " + DescribeError(list.status(), api.server()) + ">";
  auto typed = api::LeaseCandidateListFromJson(*list);
  if (!typed.ok()) return "<unreadable: " + typed.status().message() + ">";
  TextTable table({"NAME", "BINARY VERSION", "EMULATION VERSION", "STRATEGY", "RENEWED", "PINGED"});
  for (const auto& c : typed->items) {
    if (c.spec.lease_name != lease.metadata.name) continue;
    bool holder = lease.spec.holder_identity && *lease.spec.holder_identity == c.metadata.name;
    table.AddRow({{c.metadata.name, holder ? Color::kGreen : Color::kNone},
                  {c.spec.binary_version},
                  {c.spec.emulation_version.empty() ? "<none>" : c.spec.emulation_version},
                  {c.spec.strategy},
                  {c.spec.renew_time ? Ago(c.spec.renew_time, now) + " ago" : "<never>"},
                  {c.spec.ping_time ? Ago(c.spec.ping_time, now) + " ago" : "<never>"}});
  }
  if (table.rows() == 0) return "<none>";
  return table.Render(painter, "  ");
}

std::string EventsSection(LeaseApi& api, const api::Lease& lease, api::Timestamp now,
                          const Painter& painter) {
  auto items = api.ListEvents(lease.metadata.namespace_, "Lease", lease.metadata.name);
  if (!items.ok()) return "<unavailable: " + DescribeError(items.status(), api.server()) + ">";
  std::vector<api::Event> events;
  for (const json& item : *items) {
    auto event = api::EventFromJson(item);
    if (!event.ok()) continue;
    // Events of an earlier lease of the same name carry another uid.
    const std::string& uid = event->involved_object.uid;
    if (!uid.empty() && !lease.metadata.uid.empty() && uid != lease.metadata.uid) continue;
    events.push_back(std::move(*event));
  }
  if (events.empty()) return "<none>";
  std::string out;
  size_t skip = events.size() > kMaxEvents ? events.size() - kMaxEvents : 0;
  TextTable table({"TYPE", "REASON", "AGE", "FROM", "MESSAGE"});
  for (size_t i = skip; i < events.size(); ++i) {
    const api::Event& e = events[i];
    auto when = e.last_timestamp ? e.last_timestamp
                : e.event_time   ? e.event_time
                                 : e.first_timestamp;
    std::string from = !e.reporting_component.empty() ? e.reporting_component : e.source.component;
    if (!e.reporting_instance.empty()) from += " (" + e.reporting_instance + ")";
    table.AddRow({{e.type, e.type == "Warning" ? Color::kYellow : Color::kNone},
                  {e.reason},
                  {Ago(when, now)},
                  {from.empty() ? "<unknown>" : from},
                  {e.message}});
  }
  out = table.Render(painter, "  ");
  if (skip > 0) out += "  (" + std::to_string(skip) + " older events not shown)\n";
  return out;
}

// The last writes of the lease in the audit log at `path`, newest last.
std::string WritersSection(const std::string& path, const api::Lease& lease,
                           const Painter& painter) {
  auto lines = ReadAuditLog(path);
  if (!lines.ok()) return "<unavailable: --audit-log: " + lines.status().message() + ">";
  std::vector<LeaseWrite> writes =
      LeaseWritesIn(*lines, lease.metadata.namespace_, lease.metadata.name);
  if (writes.empty()) return "<none in " + path + ">";
  size_t skip = writes.size() > kMaxWriters ? writes.size() - kMaxWriters : 0;
  TextTable table({"TIME", "USER", "VERB", "HOLDER SET"});
  for (size_t i = skip; i < writes.size(); ++i) {
    const LeaseWrite& w = writes[i];
    std::string holder = !w.holder           ? "<not recorded>"
                         : w.holder->empty() ? "<released>"
                                             : *w.holder;
    table.AddRow({{w.time}, {w.user.empty() ? "<unknown>" : w.user}, {w.verb}, {holder}});
  }
  std::string out = table.Render(painter, "  ");
  if (skip > 0) out += "  (" + std::to_string(skip) + " older writes not shown)\n";
  return out;
}

int RunDescribe(const DescribeFlags& describe_flags) {
  const LeaseRefFlags& flags = describe_flags.lease;
  int exit_code = 0;
  auto target = OpenLeaseTarget("describe", flags, &exit_code);
  if (!target) return exit_code;
  LeaseApi* api = &target->api;
  auto object = api->GetLease(target->ns, target->name);
  if (!object.ok()) {
    std::cerr << "tenure describe: " << DescribeError(object.status(), api->server()) << "\n";
    return 1;
  }
  auto lease = api::LeaseFromJson(*object);
  if (!lease.ok()) {
    std::cerr << "tenure describe: unexpected Lease from the server: " << lease.status().message()
              << "\n";
    return 1;
  }
  auto now = std::chrono::system_clock::now();
  Painter painter = Painter::ForStdout();
  const auto& spec = lease->spec;
  Fields f(painter);
  f.Add("Name", lease->metadata.name, Color::kBold);
  f.Add("Namespace", lease->metadata.namespace_);
  f.Add("Holder", HolderText(*lease), HolderColor(*lease, now));
  f.Add("Acquired", TimeAndAge(spec.acquire_time, now));
  f.Add("Renewed", TimeAndAge(spec.renew_time, now));
  f.Add("Expires", ExpiresText(*lease, now));
  f.Add("Lease Duration", LeaseDurationText(*lease));
  f.Add("Transitions", std::to_string(spec.lease_transitions.value_or(0)));
  f.Add("Strategy",
        spec.strategy.value_or("").empty() ? "<none> (not coordinated)" : *spec.strategy);
  f.Add("Preferred Holder",
        spec.preferred_holder.value_or("").empty() ? "<none>" : *spec.preferred_holder);
  f.Add("Created", TimeAndAge(lease->metadata.creation_timestamp, now, false));
  f.Section("Candidates", CandidatesSection(*api, *lease, now, painter));
  f.Section("Events", EventsSection(*api, *lease, now, painter));
  if (!describe_flags.audit_log.empty()) {
    f.Section("Last Writers", WritersSection(describe_flags.audit_log, *lease, painter));
  }
  std::cout << f.str();
  return 0;
}

}  // namespace

void AddDescribeCommand(CLI::App& app) {
  auto flags = std::make_shared<DescribeFlags>();
  CLI::App* describe = app.add_subcommand(
      "describe", "Show one lease in detail: holder, times, candidates and recent events");
  AddLeaseRefOptions(describe, flags->lease, true);
  describe->add_option("--audit-log", flags->audit_log,
                       "The server's audit log (tenure serve --audit-log-path): also show who "
                       "last wrote the lease");
  describe->footer(
      "Examples:\n"
      "  tenure describe lease kube-system/kube-scheduler\n"
      "  tenure describe lease my-app -n prod --context staging\n"
      "  tenure describe lease default/my-app --audit-log /var/log/tenure/audit.log");
  describe->callback([flags] { std::exit(RunDescribe(*flags)); });
}

}  // namespace tenure::cli
