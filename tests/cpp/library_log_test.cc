// The library's log lines reach a user's sink with their level, component and fields: an
// elector's campaign, term and handover against a real server, and an API server endpoint that
// fails. Nothing the library does writes to stderr itself.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "tenure/elector.h"
#include "tenure/kube_locks.h"
#include "tenure/log.h"
#include "tenure/testing/waits.h"
#include "testing/in_process_server.h"

namespace tenure {
namespace {

using namespace std::chrono_literals;

struct Line {
  LogLevel level;
  std::string component, message;
  std::vector<LogField> fields;
  std::string Field(const std::string& key) const {
    for (const auto& f : fields) {
      if (f.key == key) return f.value;
    }
    return "<none>";
  }
};

class RecordingSink : public LogSink {
 public:
  void Write(const LogRecord& r) override {
    std::lock_guard lock(mu_);
    lines_.push_back({r.level, std::string(r.component), std::string(r.message),
                      std::vector<LogField>(r.fields.begin(), r.fields.end())});
  }
  std::vector<Line> Find(const std::string& component, const std::string& message) const {
    std::lock_guard lock(mu_);
    std::vector<Line> found;
    for (const Line& l : lines_) {
      if (l.component == component && l.message == message) found.push_back(l);
    }
    return found;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Line> lines_;
};

class LibraryLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sink_ = std::make_shared<RecordingSink>();
    SetLogSink(sink_);
    SetLogLevel(LogLevel::kDebug);
  }
  void TearDown() override {
    SetLogSink(nullptr);
    SetLogLevel(LogLevel::kInfo);
  }
  std::shared_ptr<RecordingSink> sink_;
};

// Standard error, captured into a file for as long as it lives.
class CapturedStderr {
 public:
  CapturedStderr() {
    std::fflush(stderr);
    saved_ = dup(STDERR_FILENO);
    file_ = std::tmpfile();
    dup2(fileno(file_), STDERR_FILENO);
  }
  ~CapturedStderr() { Restore(); }
  std::string Restore() {
    if (saved_ < 0) return text_;
    std::fflush(stderr);
    dup2(saved_, STDERR_FILENO);
    close(saved_);
    saved_ = -1;
    std::rewind(file_);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, file_)) > 0) text_.append(buf, n);
    std::fclose(file_);
    return text_;
  }

 private:
  int saved_ = -1;
  std::FILE* file_ = nullptr;
  std::string text_;
};

TEST_F(LibraryLogTest, AnElectorsTermIsLoggedWithItsFields) {
  CapturedStderr captured;  // with a sink set, nothing of the library's reaches stderr
  auto server = testing::InProcessServer::Start();
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto cluster = (*server)->Connect();
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  ElectionConfig config;
  config.lock = NewLeaseLock(*cluster, {"default", "logged", "pod-1", false});
  config.lease_duration = 3s;
  config.renew_deadline = 2s;
  config.retry_period = 500ms;
  config.release_on_cancel = true;
  config.callbacks.on_started_leading = [](std::stop_token, const LeaderTerm&) {};
  config.callbacks.on_stopped_leading = [] {};
  auto election = ElectionHandle::Start(std::move(config));
  ASSERT_TRUE(election.ok()) << election.status().ToString();
  ASSERT_TRUE(testing::Eventually([&] { return election->elector().IsLeader(); }, 10s));
  election->Stop();

  auto became = sink_->Find("elector", "became leader");
  ASSERT_EQ(became.size(), 1u);
  EXPECT_EQ(became[0].level, LogLevel::kInfo);
  EXPECT_EQ(became[0].Field("identity"), "pod-1");
  EXPECT_NE(became[0].Field("election").find("logged"), std::string::npos);
  EXPECT_NE(became[0].Field("fencing_token"), "<none>");
  auto stopped = sink_->Find("elector", "stopped leading");
  ASSERT_EQ(stopped.size(), 1u);
  EXPECT_EQ(stopped[0].Field("reason"), "stopped");
  EXPECT_EQ(stopped[0].Field("released"), "true");
  EXPECT_EQ(sink_->Find("elector", "campaigning").size(), 1u);
  server->reset();  // the server stops: its lines, too, went to the sink
  EXPECT_EQ(captured.Restore(), "");
}

TEST_F(LibraryLogTest, AFailingEndpointIsLoggedAsAWarning) {
  auto server = testing::InProcessServer::Start();
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  // The first "replica" refuses connections: requests move to the real server, and say so.
  ClusterOptions options;
  options.kubeconfig = (*server)->credentials().kubeconfig_file;
  options.in_cluster_if_available = false;
  options.servers = {"https://127.0.0.1:1,https://127.0.0.1:" + std::to_string((*server)->port())};
  auto cluster = Cluster::Connect(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  auto lock = NewLeaseLock(*cluster, {"default", "failover-logged", "pod-1", false});
  auto got = lock->Get(5s);
  EXPECT_TRUE(got.ok() || got.status().IsNotFound()) << got.status().ToString();
  auto moved = sink_->Find("client", "API server endpoint failed; moving to the next");
  ASSERT_FALSE(moved.empty());
  EXPECT_EQ(moved[0].level, LogLevel::kWarning);
  EXPECT_EQ(moved[0].Field("failed"), "127.0.0.1:1");
}

}  // namespace
}  // namespace tenure
