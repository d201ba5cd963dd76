// Server benchmark: durable lease compare-and-swap over TLS keep-alive connections, watch
// fan-out, and memory with many leases. Starts its own `tenure serve` equivalent in-process
// (SQLite store in a temporary folder, fsync on every commit) and prints figures.
// --store etcd: the servers use one etcd instead (started here on loopback, Debian's
// /usr/bin/etcd, unless --etcd-port names a running one); prints raw etcd compare-and-swap over
// gRPC and tenure's lease updates with 1 and 2 replicas side by side, with the ratio.
//
//   build/bench/server_bench [--seconds 5] [--clients 1,50] [--watchers 1000] [--leases 100000]
//                            [--store sqlite|etcd] [--etcd-port P] [--etcd-conns N]
//                            [--reads true] [--floor true]
//                            [--data-dir DIR --port P [--server-pid PID]]
// --reads true (with --store etcd): consistent GETs of one Lease per client and LISTs of 1,000
// Leases, answered from the replica's watch-fed copy and, with ConsistentListFromCache=false,
// from etcd, side by side.
// --floor true: first the floor under every row, per client count: the same PUT over the same
// TLS from the same client, answered by FloorServer (a minimal blocking TLS server that does
// nothing with it), and tenure's GET /version (its HTTP stack and authentication, no store).
// Each row prints the whole machine's CPU per operation; with --store etcd the table adds the
// ceiling those figures put on the etcd backend (raw etcd's CPU plus the floor's, per update).
// With --data-dir and --port it measures a running `tenure serve` instead; --server-pid makes
// the memory figure that process's alone (bench/run_server_memory.sh does this).
#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "api/api_paths.h"
#include "api/kinds.h"
#include "bench/bench_util.h"
#include "bench/etcd_cas.h"
#include "client/http_connection.h"
#include "floor_server.h"
#include "lean_client.h"
#include "server/server.h"
#include "store/testing/etcd_test_cluster.h"

using nlohmann::json;
using Clock = std::chrono::steady_clock;
using tenure::client::Endpoint;
using tenure::client::HttpConnection;

namespace {

using tenure::bench::ClosedLoop;
using tenure::bench::LoopResult;
using tenure::bench::PeakRssKiB;
using tenure::bench::Percentile;
using tenure::bench::RssKiB;
using tenure::bench::Step;

// The benchmark's Leases, in namespace default.
std::string LeasesPath() {
  return tenure::api::CollectionPath(tenure::api::LeaseKind(), "v1", "default");
}
std::string LeasePath(const std::string& name) {
  return tenure::api::ObjectPath(tenure::api::LeaseKind(), "v1", "default", name);
}

struct Flags {
  int seconds = 5;
  std::vector<int> clients = {1, 50};
  int watchers = 1000;
  int leases = 100000;
  // Measure an already running `tenure serve` instead of an in-process one.
  std::string external_dir;
  int external_port = 0;
  int server_pid = 0;            // the external server's process: memory is measured there
  std::string store = "sqlite";  // the in-process server's store: sqlite or etcd
  // Also measure raw etcd CAS over gRPC against the etcd on this loopback port (with --store
  // etcd, the servers use it too; 0: the benchmark starts its own).
  int etcd_port = 0;
  int etcd_conns = 0;      // raw etcd CAS: gRPC connections shared by the clients (0: one each)
  int server_threads = 0;  // in-process server's I/O threads (0: its default)
  // --store etcd: also consistent GETs and LISTs, from the replica's watch-fed copy and from etcd.
  bool reads = false;
  bool floor = false;  // also the floor rows (see the top of this file)
};

struct Bench {
  Endpoint endpoint;
  std::string token;

  std::vector<std::pair<std::string, std::string>> Headers(
      const char* type = "application/json") const {
    return {{"Authorization", "Bearer " + token}, {"Content-Type", type}};
  }
};

std::string LeaseBody(const std::string& name, const std::string& holder, const std::string& rv) {
  std::string body =
      "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":\"" +
      name + "\",\"namespace\":\"default\"";
  if (!rv.empty()) body += ",\"resourceVersion\":\"" + rv + "\"";
  body += "},\"spec\":{\"holderIdentity\":\"" + holder +
          "\",\"leaseDurationSeconds\":15,\"renewTime\":\"2026-01-01T00:00:00.000000Z\"}}";
  return body;
}

// Each client renews its own lease with the resourceVersion of its last write (the leader's
// fast path): PUT with optimistic concurrency, durable before the reply. The load generator is
// LeanClient (see lean_client.h): it runs on the same cores as the server. With several
// replicas, client i talks to replica i % replicas.size(). Lease names start with `name_prefix`.
LoopResult CasThroughput(const std::vector<Bench>& replicas, const std::string& label,
                         const std::string& name_prefix, int clients, int seconds) {
  return ClosedLoop(label, "updates", clients, seconds, [&](int i) -> Step {
    const Bench& bench = replicas[static_cast<size_t>(i) % replicas.size()];
    const std::string headers =
        "Authorization: Bearer " + bench.token + "\r\nContent-Type: application/json\r\n";
    auto c = std::make_shared<bench::LeanClient>(bench.endpoint.port, bench.endpoint.tls.ca_file);
    std::string name = name_prefix + std::to_string(clients) + "-" + std::to_string(i);
    auto created = c->Request("POST", LeasesPath(), headers, LeaseBody(name, name, ""));
    std::string rv(bench::JsonStringField(created.body, "resourceVersion"));
    if (created.status != 201 || rv.empty()) return nullptr;
    std::string target = LeasePath(name);
    return [c, name, target, rv, headers](long n) mutable {
      auto reply =
          c->Request("PUT", target, headers, LeaseBody(name, name + "-" + std::to_string(n), rv));
      std::string_view new_rv = bench::JsonStringField(reply.body, "resourceVersion");
      if (reply.status != 200 || new_rv.empty()) return false;
      rv = new_rv;
      return true;
    };
  });
}

// The floor of one lease update: CasThroughput's PUT (same body, same client, same TLS) against
// a FloorServer that answers each with `reply` without reading it.
LoopResult FloorThroughput(const std::string& data_dir, const std::string& reply, int clients,
                           int seconds) {
  bench::FloorServer floor(data_dir + "/server.crt", data_dir + "/server.key", reply);
  return ClosedLoop(
      "floor: the same PUT, minimal TLS server", "requests", clients, seconds, [&](int i) -> Step {
        auto c = std::make_shared<bench::LeanClient>(floor.port(), data_dir + "/ca.crt");
        std::string name = "floor-" + std::to_string(i);
        std::string target = LeasePath(name);
        const std::string headers = "Authorization: Bearer x\r\nContent-Type: application/json\r\n";
        return [c, name, target, headers](long n) {
          auto r = c->Request("PUT", target, headers,
                              LeaseBody(name, name + "-" + std::to_string(n), "1"));
          return r.status == 200;
        };
      });
}

// tenure's HTTP stack and authentication without the store: GET /version, back to back.
LoopResult VersionThroughput(const Bench& bench, int clients, int seconds) {
  return ClosedLoop("tenure GET /version", "requests", clients, seconds, [&](int) -> Step {
    auto c = std::make_shared<bench::LeanClient>(bench.endpoint.port, bench.endpoint.tls.ca_file);
    const std::string headers = "Authorization: Bearer " + bench.token + "\r\n";
    return [c, headers](long) { return c->Request("GET", "/version", headers, "").status == 200; };
  });
}

// A renewal's reply as tenure sends it (the floor server answers with these bytes).
std::string RenewalReply(const Bench& bench) {
  HttpConnection c(bench.endpoint);
  auto created = c.Request("POST", LeasesPath(), bench.Headers(), LeaseBody("floor-reply", "a", ""),
                           std::chrono::seconds(10));
  if (!created.ok() || created->status != 201) return "{}";
  std::string rv = json::parse(created->body)["metadata"]["resourceVersion"];
  auto renewed = c.Request("PUT", LeasePath("floor-reply"), bench.Headers(),
                           LeaseBody("floor-reply", "b", rv), std::chrono::seconds(10));
  return renewed.ok() && renewed->status == 200 ? renewed->body : "{}";
}

// One update seen by `watchers` open watches: time from the write's reply until every
// watcher has the event.
void WatchFanOut(const Bench& bench, int watchers) {
  HttpConnection c(bench.endpoint);
  auto created = c.Request("POST", LeasesPath(), bench.Headers(), LeaseBody("fanout", "a", ""),
                           std::chrono::seconds(10));
  if (!created.ok() || created->status != 201) {
    std::printf("watch fan-out: setup failed\n");
    return;
  }
  std::string rv = json::parse(created->body)["metadata"]["resourceVersion"];
  std::atomic<int> ready{0}, received{0};
  std::vector<double> arrival(static_cast<size_t>(watchers));
  std::atomic<int64_t> sent_ns{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < watchers; ++i) {
    threads.emplace_back([&, i] {
      HttpConnection w(bench.endpoint);
      auto head = w.StartStream(
          tenure::api::WithQuery(LeasesPath(), {{"watch", "true"},
                                                {"fieldSelector", "metadata.name=fanout"},
                                                {"resourceVersion", rv}}),
          bench.Headers(), std::chrono::seconds(60));
      ++ready;
      if (!head.ok() || head->status != 200) return;
      auto line = w.ReadLine(std::chrono::seconds(60));
      if (!line.ok()) return;
      auto now = Clock::now().time_since_epoch().count();
      arrival[static_cast<size_t>(i)] = static_cast<double>(now - sent_ns.load()) / 1e6;
      ++received;
    });
  }
  while (ready.load() < watchers) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // watches registered server-side
  sent_ns = Clock::now().time_since_epoch().count();
  auto reply = c.Request("PUT", LeasePath("fanout"), bench.Headers(), LeaseBody("fanout", "b", rv),
                         std::chrono::seconds(10));
  for (auto& t : threads) t.join();
  std::vector<double> got;
  for (int i = 0; i < received.load(); ++i) got.push_back(arrival[static_cast<size_t>(i)]);
  std::printf(
      "watch fan-out to %d watchers: %d received, p50 %.1f ms, last %.1f ms after the write was "
      "sent (write status %d)\n",
      watchers, received.load(), Percentile(got, 0.5),
      got.empty() ? 0.0 : *std::max_element(got.begin(), got.end()),
      reply.ok() ? reply->status : -1);
}

// Stores `leases` leases and prints the memory of the process serving them: `server_pid`, or
// this process (in-process server and benchmark clients together) when it is 0.
void ManyLeases(const Bench& bench, int leases, int server_pid) {
  long before = RssKiB(server_pid);
  constexpr int kWriters = 16;
  std::atomic<int> next{0}, failed{0};
  const std::string path = LeasesPath();
  auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) {
    threads.emplace_back([&] {
      HttpConnection c(bench.endpoint);
      for (int i = next++; i < leases; i = next++) {
        std::string name = "many-" + std::to_string(i);
        auto r = c.Request("POST", path, bench.Headers(), LeaseBody(name, "holder-" + name, ""),
                           std::chrono::seconds(30));
        if (!r.ok() || r->status != 201) ++failed;
      }
    });
  }
  for (auto& t : threads) t.join();
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  HttpConnection c(bench.endpoint);
  auto list_start = Clock::now();
  auto list = c.Request("GET", LeasesPath(), bench.Headers(), "", std::chrono::seconds(120));
  double list_ms = std::chrono::duration<double, std::milli>(Clock::now() - list_start).count();
  std::printf("%d leases stored in %.1fs (%d failed); list all: %.0f ms, %zu bytes\n", leases,
              elapsed, failed.load(), list_ms, list.ok() ? list->body.size() : 0);
  std::printf("memory: RSS %ld MiB before, %ld MiB after, peak %ld MiB (%s)\n", before / 1024,
              RssKiB(server_pid) / 1024, PeakRssKiB(server_pid) / 1024,
              server_pid > 0 ? ("tenure serve, pid " + std::to_string(server_pid)).c_str()
                             : "server and benchmark clients in one process");
}

std::vector<int> ParseList(const char* text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(std::stoi(item));
  return out;
}

// Starts an in-process server on `data_dir` (replicas share it: same CA and token) with the
// store `flags` name; etcd_url is the etcd for --store etcd.
tenure::Result<std::unique_ptr<tenure::server::Server>> StartServer(
    const Flags& flags, const std::string& data_dir, const std::string& etcd_url,
    bool reads_from_watch_cache = true) {
  tenure::server::ServerOptions options;
  options.etcd.reads_from_watch_cache = reads_from_watch_cache;
  options.data_dir = data_dir;
  options.port = 0;
  options.threads = flags.server_threads;
  options.store = flags.store;
  if (flags.store == "etcd") options.etcd.endpoints = {etcd_url};
  return tenure::server::Server::Start(options);
}

Bench BenchFor(const tenure::server::Server& server) {
  Bench bench;
  bench.endpoint.tls.enabled = true;
  bench.endpoint.port = server.port();
  bench.endpoint.tls.ca_file = server.credentials().ca_cert_file;
  bench.token = server.credentials().token;
  return bench;
}

// Consistent reads (no resourceVersion) through one replica: each client GETs a Lease of its own,
// or LISTs the `listed` Leases of namespace "reads", back to back.
LoopResult ReadThroughput(const Bench& bench, const std::string& label, bool list, int clients,
                          int seconds) {
  return ClosedLoop(label, list ? "lists" : "gets", clients, seconds, [&](int i) -> Step {
    const std::string headers = "Authorization: Bearer " + bench.token + "\r\n";
    auto c = std::make_shared<bench::LeanClient>(bench.endpoint.port, bench.endpoint.tls.ca_file);
    std::string target = list ? tenure::api::CollectionPath(tenure::api::LeaseKind(), "v1", "reads")
                              : LeasePath("get-" + std::to_string(i));
    if (!list) {
      auto created =
          c->Request("POST", LeasesPath(), headers + "Content-Type: application/json\r\n",
                     LeaseBody("get-" + std::to_string(i), "reader", ""));
      if (created.status != 201 && created.status != 409) return nullptr;
    }
    return
        [c, target, headers](long) { return c->Request("GET", target, headers, "").status == 200; };
  });
}

// The reads of --reads true: GET and LIST rates with the copy, then without it (each on a
// replica of its own, started for the row).
int EtcdReads(const Flags& flags, const std::string& data_dir, const std::string& etcd_url) {
  constexpr int kListed = 1000;
  struct Row {
    const char* what;
    bool cache;
    bool list;
    int clients;
    LoopResult r;
  };
  std::vector<Row> rows;
  for (bool cache : {true, false}) {
    auto replica = StartServer(flags, data_dir, etcd_url, cache);
    if (!replica.ok()) {
      std::fprintf(stderr, "cannot start the replica: %s\n", replica.status().ToString().c_str());
      return 1;
    }
    Bench bench = BenchFor(**replica);
    if (cache) {
      HttpConnection c(bench.endpoint);
      auto ns = c.Request("POST", "/api/v1/namespaces", bench.Headers(),
                          R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"reads"}})",
                          std::chrono::seconds(10));
      if (!ns.ok() || (ns->status != 201 && ns->status != 409)) {
        std::fprintf(stderr, "cannot create namespace reads\n");
        return 1;
      }
      for (int i = 0; i < kListed; ++i) {
        std::string name = "listed-" + std::to_string(i);
        std::string body = LeaseBody(name, "holder", "");
        body.replace(body.find("\"default\""), 9, "\"reads\"");
        auto r =
            c.Request("POST", tenure::api::CollectionPath(tenure::api::LeaseKind(), "v1", "reads"),
                      bench.Headers(), body, std::chrono::seconds(10));
        if (!r.ok() || (r->status != 201 && r->status != 409)) {
          std::fprintf(stderr, "cannot store the listed Leases\n");
          return 1;
        }
      }
    }
    for (int clients : flags.clients) {
      std::string copy = cache ? "from the copy" : "from etcd";
      rows.push_back({"GET", cache, false, clients,
                      ReadThroughput(bench, "GET " + copy, false, clients, flags.seconds)});
      rows.push_back({"LIST 1,000", cache, true, clients,
                      ReadThroughput(bench, "LIST " + copy, true, clients, flags.seconds)});
    }
    (*replica)->Stop();
  }
  std::printf("\nconsistent reads through one replica, same etcd, same run (%ds per row):\n",
              flags.seconds);
  std::printf("%-12s %-14s %7s %11s %8s %8s %8s\n", "", "answered", "clients", "reads/s", "p50 ms",
              "p99 ms", "errors");
  for (const Row& row : rows) {
    std::printf("%-12s %-14s %7d %11.0f %8.2f %8.2f %8ld\n", row.what,
                row.cache ? "from the copy" : "from etcd", row.clients, row.r.rate, row.r.p50_ms,
                row.r.p99_ms, row.r.errors);
  }
  return 0;
}

// The etcd backend side by side, per client count in the same run: raw etcd CAS over gRPC while
// no replica runs (a replica's watch covers etcd's whole key space and would see those writes),
// tenure with one replica started for the row, then with a second one (clients alternate
// between the two). Prints a table with tenure's rate as a fraction of raw etcd's.
int EtcdSideBySide(const Flags& flags, const std::string& data_dir, const std::string& etcd_url) {
  const std::string target = etcd_url.substr(etcd_url.find("://") + 3);
  struct Row {
    int clients;
    LoopResult raw, one, two;
    LoopResult floor, watched, version;  // --floor true
  };
  std::vector<Row> rows;
  std::string reply;
  for (int clients : flags.clients) {
    Row row{clients, {}, {}, {}, {}, {}, {}};
    row.raw =
        tenure::bench::EtcdGrpcCas(target, "/bench-raw/", clients, flags.seconds, flags.etcd_conns);
    auto first = StartServer(flags, data_dir, etcd_url);
    if (flags.floor && first.ok()) {
      // The same raw loop while a replica watches every key (as it does to serve reads from its
      // watch-fed copy): etcd sends each write to it, and it reads each one.
      row.watched = tenure::bench::EtcdGrpcCas(target, "/bench-watched/", clients, flags.seconds,
                                               flags.etcd_conns);
      if (reply.empty()) reply = RenewalReply(BenchFor(**first));
      row.floor = FloorThroughput(data_dir, reply, clients, flags.seconds);
      row.version = VersionThroughput(BenchFor(**first), clients, flags.seconds);
    }
    auto second = first.ok() ? StartServer(flags, data_dir, etcd_url) : first.status();
    if (!second.ok()) {
      std::fprintf(stderr, "cannot start the replicas: %s\n", second.status().ToString().c_str());
      return 1;
    }
    // The second replica's watch costs CPU also while it takes no request: stopped for row one.
    (*second)->Stop();
    row.one = CasThroughput({BenchFor(**first)}, "tenure on etcd, 1 replica", "one-", clients,
                            flags.seconds);
    second = StartServer(flags, data_dir, etcd_url);
    if (!second.ok()) {
      std::fprintf(stderr, "cannot start the second replica: %s\n",
                   second.status().ToString().c_str());
      return 1;
    }
    row.two = CasThroughput({BenchFor(**first), BenchFor(**second)}, "tenure on etcd, 2 replicas",
                            "two-", clients, flags.seconds);
    (*second)->Stop();
    (*first)->Stop();
    rows.push_back(row);
  }
  std::printf("\netcd backend, same etcd, same run (%ds per row):\n", flags.seconds);
  std::printf("%-31s %7s %11s %8s %8s %8s %11s\n", "", "clients", "updates/s", "p50 ms", "p99 ms",
              "errors", "tenure/raw");
  auto line = [](const char* what, int clients, const LoopResult& r, double raw_rate) {
    std::printf("%-31s %7d %11.0f %8.2f %8.2f %8ld %11.2f\n", what, clients, r.rate, r.p50_ms,
                r.p99_ms, r.errors, raw_rate > 0 ? r.rate / raw_rate : 0.0);
  };
  for (const Row& row : rows) {
    line("raw etcd CAS (gRPC)", row.clients, row.raw, row.raw.rate);
    line("tenure serve, 1 replica", row.clients, row.one, row.raw.rate);
    line("tenure serve, 2 replicas", row.clients, row.two, row.raw.rate);
    if (!flags.floor) continue;
    line("raw etcd CAS, replica watching", row.clients, row.watched, row.raw.rate);
    line("floor (minimal TLS server)", row.clients, row.floor, row.raw.rate);
    line("tenure GET /version", row.clients, row.version, row.raw.rate);
  }
  if (!flags.floor) return 0;
  // Any server in front of etcd costs, per update, at least etcd's work for the Txn and the
  // floor's for the request over TLS; one that serves reads from a watch-fed copy also costs
  // the watch, and tenure's HTTP stack costs what GET /version does. On these cores, at full
  // use, each sum bounds the rate.
  std::printf(
      "\nCPU per operation, whole machine (us), and the ceilings they put on a server in "
      "front of etcd (as a fraction of raw etcd's rate):\n");
  std::printf("%7s %6s %8s %6s %8s %9s %6s %18s %22s\n", "clients", "raw", "watched", "floor",
              "version", "1 replica", "cores", "raw+floor", "watched+version");
  const double cores = std::thread::hardware_concurrency();
  for (const Row& row : rows) {
    auto ceiling = [&](double us) { return us > 0 ? cores * 1e6 / us : 0.0; };
    const double bare = ceiling(row.raw.cpu_us_per_op + row.floor.cpu_us_per_op);
    const double designed = ceiling(row.watched.cpu_us_per_op + row.version.cpu_us_per_op);
    const double raw = row.raw.rate > 0 ? row.raw.rate : 1;
    std::printf("%7d %6.0f %8.0f %6.0f %8.0f %9.0f %6.2f %10.0f/s %5.2f %14.0f/s %5.2f\n",
                row.clients, row.raw.cpu_us_per_op, row.watched.cpu_us_per_op,
                row.floor.cpu_us_per_op, row.version.cpu_us_per_op, row.one.cpu_us_per_op,
                row.raw.busy_cores, bare, bare / raw, designed, designed / raw);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // A peer that closes while a TLS write of the floor server or of a LeanClient is under way
  // (OpenSSL's socket BIO writes with write()) must not end the benchmark.
  signal(SIGPIPE, SIG_IGN);
  Flags flags;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--seconds")
      flags.seconds = std::atoi(argv[i + 1]);
    else if (flag == "--clients")
      flags.clients = ParseList(argv[i + 1]);
    else if (flag == "--watchers")
      flags.watchers = std::atoi(argv[i + 1]);
    else if (flag == "--leases")
      flags.leases = std::atoi(argv[i + 1]);
    else if (flag == "--data-dir")
      flags.external_dir = argv[i + 1];
    else if (flag == "--port")
      flags.external_port = std::atoi(argv[i + 1]);
    else if (flag == "--server-pid")
      flags.server_pid = std::atoi(argv[i + 1]);
    else if (flag == "--etcd-conns")
      flags.etcd_conns = std::atoi(argv[i + 1]);
    else if (flag == "--store")
      flags.store = argv[i + 1];
    else if (flag == "--etcd-port")
      flags.etcd_port = std::atoi(argv[i + 1]);
    else if (flag == "--server-threads")
      flags.server_threads = std::atoi(argv[i + 1]);
    else if (flag == "--reads")
      flags.reads = std::string(argv[i + 1]) == "true";
    else if (flag == "--floor")
      flags.floor = std::string(argv[i + 1]) == "true";
    else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  if (flags.store != "sqlite" && flags.store != "etcd") {
    std::fprintf(stderr, "--store: sqlite or etcd, not \"%s\"\n", flags.store.c_str());
    return 2;
  }
  if (flags.store == "etcd" && !flags.external_dir.empty()) {
    std::fprintf(stderr, "--store etcd runs its own servers: no --data-dir\n");
    return 2;
  }
  std::unique_ptr<tenure::store::testing::EtcdTestCluster> etcd;
  std::string etcd_url;
  if (flags.etcd_port > 0) {
    etcd_url = "http://127.0.0.1:" + std::to_string(flags.etcd_port);
  } else if (flags.store == "etcd") {
    auto started = tenure::store::testing::EtcdTestCluster::Start({});
    if (!started.ok()) {
      std::fprintf(stderr, "cannot start etcd: %s\n", started.status().ToString().c_str());
      return 1;
    }
    etcd = std::move(*started);
    etcd_url = etcd->ClientUrl(0);
  }
  Bench bench;
  bench.endpoint.tls.enabled = true;
  std::unique_ptr<tenure::server::Server> server;
  std::string where;
  char tmpl[] = "/tmp/tenure-bench-XXXXXX";
  if (!flags.external_dir.empty()) {
    bench.endpoint.port = static_cast<uint16_t>(flags.external_port);
    bench.endpoint.tls.ca_file = flags.external_dir + "/ca.crt";
    std::ifstream token(flags.external_dir + "/admin.token");
    std::getline(token, bench.token);
    where = "external tenure serve on port " + std::to_string(flags.external_port);
  } else {
    if (mkdtemp(tmpl) == nullptr) return 1;
    auto started = StartServer(flags, tmpl, etcd_url);
    if (!started.ok()) {
      std::fprintf(stderr, "cannot start the server: %s\n", started.status().ToString().c_str());
      return 1;
    }
    server = std::move(*started);
    bench = BenchFor(*server);
    where = flags.store == "etcd"
                ? "in-process servers, etcd store on " + etcd_url + " (one member, fsync on)"
                : std::string("in-process server, SQLite store in ") + tmpl + " (synchronous=FULL)";
  }
  std::printf("tenure server benchmark: %u cores, %s\n", std::thread::hardware_concurrency(),
              where.c_str());
  int rc = 0;
  if (flags.store == "etcd") {
    // Without the in-process server, which the side by side starts per row itself.
    server->Stop();
    rc = EtcdSideBySide(flags, tmpl, etcd_url);
    if (rc == 0 && flags.reads) rc = EtcdReads(flags, tmpl, etcd_url);
    auto restarted = StartServer(flags, tmpl, etcd_url);
    if (!restarted.ok()) return 1;
    server = std::move(*restarted);
    bench = BenchFor(*server);
  } else {
    if (flags.floor) {
      const std::string dir = flags.external_dir.empty() ? tmpl : flags.external_dir;
      const std::string reply = RenewalReply(bench);
      for (int clients : flags.clients) {
        FloorThroughput(dir, reply, clients, flags.seconds);
        VersionThroughput(bench, clients, flags.seconds);
      }
    }
    for (int clients : flags.clients)
      CasThroughput({bench}, "lease CAS over TLS", "cas-", clients, flags.seconds);
    if (!etcd_url.empty()) {
      const std::string target = etcd_url.substr(etcd_url.find("://") + 3);
      for (int clients : flags.clients) {
        tenure::bench::EtcdGrpcCas(target, "/bench-raw/", clients, flags.seconds, flags.etcd_conns);
      }
    }
  }
  if (rc == 0 && flags.watchers > 0) WatchFanOut(bench, flags.watchers);
  if (rc == 0 && flags.leases > 0) ManyLeases(bench, flags.leases, flags.server_pid);
  if (server) {
    server->Stop();
    std::filesystem::remove_all(tmpl);
  }
  return rc;
}
