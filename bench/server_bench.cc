// Server benchmark: durable lease compare-and-swap over TLS keep-alive connections, watch
// fan-out, and memory with many leases. Starts its own `tenure serve` equivalent in-process
// (SQLite store in a temporary folder, fsync on every commit) and prints figures.
//
//   build/bench/server_bench [--seconds 5] [--clients 1,50] [--watchers 1000] [--leases 100000]
#include <pthread.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_util.h"
#include "client/http_connection.h"
#include "lean_client.h"
#include "server/server.h"

using nlohmann::json;
using Clock = std::chrono::steady_clock;
using tenure::client::Endpoint;
using tenure::client::HttpConnection;

namespace {

using tenure::bench::Percentile;
using tenure::bench::PeakRssKiB;
using tenure::bench::RssKiB;

constexpr const char* kLeases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

struct Flags {
  int seconds = 5;
  std::vector<int> clients = {1, 50};
  int watchers = 1000;
  int leases = 100000;
  // Measure an already running `tenure serve` instead of an in-process one.
  std::string external_dir;
  int external_port = 0;
  int etcd_port = 0;  // also measure etcd's JSON gateway on this loopback port
  int server_threads = 0;  // in-process server's I/O threads (0: its default)
};

struct Bench {
  Endpoint endpoint;
  std::string token;

  std::vector<std::pair<std::string, std::string>> Headers(const char* type = "application/json") const {
    return {{"Authorization", "Bearer " + token}, {"Content-Type", type}};
  }
};

std::string LeaseBody(const std::string& name, const std::string& holder, const std::string& rv) {
  std::string body = "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":\"" + name +
                     "\",\"namespace\":\"default\"";
  if (!rv.empty()) body += ",\"resourceVersion\":\"" + rv + "\"";
  body += "},\"spec\":{\"holderIdentity\":\"" + holder +
          "\",\"leaseDurationSeconds\":15,\"renewTime\":\"2026-01-01T00:00:00.000000Z\"}}";
  return body;
}

// Each client renews its own lease with the resourceVersion of its last write (the leader's
// fast path): PUT with optimistic concurrency, durable before the reply. The load generator is
// LeanClient (see lean_client.h): it runs on the same cores as the server.
// Runs `clients` threads in a closed loop for `seconds`. Each thread first calls prepare(i),
// which returns its step (or nullptr when setup failed); after a common start, it calls
// step(n) back to back, timing each call (true: acknowledged). Prints rate and latencies.
using Step = std::function<bool(long n)>;
void ClosedLoop(const std::string& label, const char* unit, int clients, int seconds,
                const std::function<Step(int)>& prepare) {
  std::vector<std::vector<double>> latencies(static_cast<size_t>(clients));
  std::atomic<long> errors{0};
  std::atomic<bool> go{false}, stop{false};
  std::mutex start_mu;
  std::condition_variable start_cv;
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i] {
      pthread_setname_np(pthread_self(), "bench-client");  // tells them apart in perf
      Step step = prepare(i);
      if (!step) {
        ++errors;
        return;
      }
      {
        std::unique_lock lock(start_mu);
        start_cv.wait(lock, [&] { return go.load(); });
      }
      auto& mine = latencies[static_cast<size_t>(i)];
      mine.reserve(static_cast<size_t>(seconds) * 20000);
      for (long n = 1; !stop.load(); ++n) {
        auto start = Clock::now();
        bool ok = step(n);
        double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        if (ok) {
          mine.push_back(ms);
        } else {
          ++errors;
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let clients connect
  {
    std::lock_guard lock(start_mu);
    go = true;
  }
  start_cv.notify_all();
  auto start = Clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  stop = true;
  for (auto& t : threads) t.join();
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> all;
  for (auto& v : latencies) all.insert(all.end(), v.begin(), v.end());
  std::printf("%s, %2d clients: %8.0f %s/s  p50 %.2f ms  p99 %.2f ms  (%zu ok, %ld errors, %.1fs)\n",
              label.c_str(), clients, static_cast<double>(all.size()) / elapsed, unit,
              Percentile(all, 0.50), Percentile(all, 0.99), all.size(), errors.load(), elapsed);
}

void CasThroughput(const Bench& bench, int clients, int seconds) {
  const std::string headers = "Authorization: Bearer " + bench.token +
                              "\r\nContent-Type: application/json\r\n";
  ClosedLoop("lease CAS over TLS", "updates", clients, seconds, [&](int i) -> Step {
    auto c = std::make_shared<bench::LeanClient>(bench.endpoint.port, bench.endpoint.tls.ca_file);
    std::string name = "cas-" + std::to_string(clients) + "-" + std::to_string(i);
    auto created = c->Request("POST", kLeases, headers, LeaseBody(name, name, ""));
    std::string rv(bench::JsonStringField(created.body, "resourceVersion"));
    if (created.status != 201 || rv.empty()) return nullptr;
    std::string target = std::string(kLeases) + "/" + name;
    return [c, name, target, rv, &headers](long n) mutable {
      auto reply = c->Request("PUT", target, headers,
                              LeaseBody(name, name + "-" + std::to_string(n), rv));
      std::string_view new_rv = bench::JsonStringField(reply.body, "resourceVersion");
      if (reply.status != 200 || new_rv.empty()) return false;
      rv = new_rv;
      return true;
    };
  });
}

std::string Base64(const std::string& in) {
  static constexpr char kTable[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kTable[(v >> s) & 63]);
  }
  if (i < in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    if (i + 1 < in.size()) v |= uint8_t(in[i + 1]) << 8;
    out.push_back(kTable[(v >> 18) & 63]);
    out.push_back(kTable[(v >> 12) & 63]);
    out.push_back(i + 1 < in.size() ? kTable[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

// The same closed loop against etcd's v3 JSON gateway (plain HTTP on loopback): a Txn that
// compares the key's mod_revision with the last one written, then puts a lease-sized value.
void EtcdCasThroughput(uint16_t port, int clients, int seconds) {
  const std::string headers = "Content-Type: application/json\r\n";
  ClosedLoop("etcd CAS via JSON gateway", "txn", clients, seconds, [&](int i) -> Step {
    auto c = std::make_shared<bench::LeanClient>(port, "");
    std::string key = Base64("/registry/leases/default/etcd-" + std::to_string(clients) + "-" +
                             std::to_string(i));
    auto rev = std::make_shared<int64_t>(0);
    Step put = [c, key, rev, &headers](long n) {
      std::string txn = "{\"compare\":[{\"key\":\"" + key +
                        "\",\"result\":\"EQUAL\",\"target\":\"MOD\",\"mod_revision\":\"" +
                        std::to_string(*rev) + "\"}],\"success\":[{\"request_put\":{\"key\":\"" +
                        key + "\",\"value\":\"" + Base64(LeaseBody("x", "h" + std::to_string(n), "1")) +
                        "\"}}]}";
      auto reply = c->Request("POST", "/v3/kv/txn", headers, txn);
      if (reply.status != 200 || reply.body.find("\"succeeded\":true") == std::string::npos) {
        return false;
      }
      std::string_view revision = bench::JsonStringField(reply.body, "revision");
      if (revision.empty()) return false;
      *rev = std::stoll(std::string(revision));
      return true;
    };
    return put(0) ? put : nullptr;
  });
}

// One update seen by `watchers` open watches: time from the write's reply until every
// watcher has the event.
void WatchFanOut(const Bench& bench, int watchers) {
  HttpConnection c(bench.endpoint);
  auto created = c.Request("POST", kLeases, bench.Headers(), LeaseBody("fanout", "a", ""),
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
      auto head = w.StartStream(std::string(kLeases) +
                                    "?watch=true&fieldSelector=metadata.name%3Dfanout&resourceVersion=" + rv,
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
  auto reply = c.Request("PUT", std::string(kLeases) + "/fanout", bench.Headers(),
                         LeaseBody("fanout", "b", rv), std::chrono::seconds(10));
  for (auto& t : threads) t.join();
  std::vector<double> got;
  for (int i = 0; i < received.load(); ++i) got.push_back(arrival[static_cast<size_t>(i)]);
  std::printf("watch fan-out to %d watchers: %d received, p50 %.1f ms, last %.1f ms after the write was sent (write status %d)\n",
              watchers, received.load(), Percentile(got, 0.5),
              got.empty() ? 0.0 : *std::max_element(got.begin(), got.end()),
              reply.ok() ? reply->status : -1);
}

void ManyLeases(const Bench& bench, int leases) {
  long before = RssKiB();
  constexpr int kWriters = 16;
  std::atomic<int> next{0}, failed{0};
  auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) {
    threads.emplace_back([&] {
      HttpConnection c(bench.endpoint);
      for (int i = next++; i < leases; i = next++) {
        std::string name = "many-" + std::to_string(i);
        auto r = c.Request("POST", kLeases, bench.Headers(), LeaseBody(name, "holder-" + name, ""),
                           std::chrono::seconds(30));
        if (!r.ok() || r->status != 201) ++failed;
      }
    });
  }
  for (auto& t : threads) t.join();
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  HttpConnection c(bench.endpoint);
  auto list_start = Clock::now();
  auto list = c.Request("GET", kLeases, bench.Headers(), "", std::chrono::seconds(120));
  double list_ms = std::chrono::duration<double, std::milli>(Clock::now() - list_start).count();
  std::printf("%d leases stored in %.1fs (%d failed); list all: %.0f ms, %zu bytes\n", leases,
              elapsed, failed.load(), list_ms, list.ok() ? list->body.size() : 0);
  std::printf("memory: RSS %ld MiB before, %ld MiB after, peak %ld MiB (server and benchmark clients in one process)\n",
              before / 1024, RssKiB() / 1024, PeakRssKiB() / 1024);
}

std::vector<int> ParseList(const char* text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(std::stoi(item));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--seconds") flags.seconds = std::atoi(argv[i + 1]);
    else if (flag == "--clients") flags.clients = ParseList(argv[i + 1]);
    else if (flag == "--watchers") flags.watchers = std::atoi(argv[i + 1]);
    else if (flag == "--leases") flags.leases = std::atoi(argv[i + 1]);
    else if (flag == "--data-dir") flags.external_dir = argv[i + 1];
    else if (flag == "--port") flags.external_port = std::atoi(argv[i + 1]);
    else if (flag == "--etcd-port") flags.etcd_port = std::atoi(argv[i + 1]);
    else if (flag == "--server-threads") flags.server_threads = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
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
    tenure::server::ServerOptions options;
    options.data_dir = tmpl;
    options.port = 0;
    options.threads = flags.server_threads;
    auto started = tenure::server::Server::Start(options);
    if (!started.ok()) {
      std::fprintf(stderr, "cannot start the server: %s\n", started.status().ToString().c_str());
      return 1;
    }
    server = std::move(*started);
    bench.endpoint.port = server->port();
    bench.endpoint.tls.ca_file = server->credentials().ca_cert_file;
    bench.token = server->credentials().token;
    where = std::string("in-process server, SQLite store in ") + tmpl;
  }
  std::printf("tenure server benchmark: %u cores, %s (synchronous=FULL)\n",
              std::thread::hardware_concurrency(), where.c_str());
  for (int clients : flags.clients) CasThroughput(bench, clients, flags.seconds);
  if (flags.etcd_port > 0) {
    for (int clients : flags.clients) {
      EtcdCasThroughput(static_cast<uint16_t>(flags.etcd_port), clients, flags.seconds);
    }
  }
  if (flags.watchers > 0) WatchFanOut(bench, flags.watchers);
  if (flags.leases > 0) ManyLeases(bench, flags.leases);
  if (server) {
    server->Stop();
    std::filesystem::remove_all(tmpl);
  }
  return 0;
}
