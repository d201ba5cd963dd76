// The library's TLS client (client::HttpConnection) against the server's own TLS: the server is
// trusted by a CA file or its text, refused when its certificate names another host or comes from
// another CA, and a client certificate given as files or as text says who the caller is.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "client/http_connection.h"
#include "client/test_loopback_listener.h"
#include "client/tls_client_context.h"
#include "server/certificates.h"
#include "server/test_server_fixture.h"

namespace tenure::server {
namespace {

using namespace std::chrono_literals;

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class ClientTlsTest : public testing::ServerFixture {
 protected:
  Result<client::HttpReply> Get(const client::Endpoint& endpoint, bool with_token = true) {
    client::HttpConnection connection(endpoint);
    std::vector<std::pair<std::string, std::string>> headers;
    if (with_token) headers = this->headers();
    return connection.Request("GET", "/api/v1/namespaces/default", headers, "", 10s);
  }
  // The user the server takes the caller for.
  std::string WhoAmI(const client::Endpoint& endpoint) {
    client::HttpConnection connection(endpoint);
    auto reply = connection.Request(
        "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        {{"Content-Type", "application/json"}},
        R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})", 10s);
    if (!reply.ok()) return reply.status().ToString();
    if (reply->status != 201) return "HTTP " + std::to_string(reply->status) + ": " + reply->body;
    auto user = nlohmann::json::parse(reply->body)["status"]["userInfo"];
    return user["username"].get<std::string>() + " " + user["groups"].dump();
  }
};

TEST_F(ClientTlsTest, TheServerIsTrustedThroughItsCaAsAFileOrAsText) {
  client::Endpoint by_file = endpoint();
  ASSERT_TRUE(by_file.tls.enabled);
  auto reply = Get(by_file);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->status, 200);

  client::Endpoint by_text = endpoint();
  by_text.tls.ca_data = ReadText(by_text.tls.ca_file);
  by_text.tls.ca_file.clear();
  reply = Get(by_text);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->status, 200);

  client::Endpoint unchecked = endpoint();
  unchecked.tls.ca_file.clear();
  unchecked.tls.insecure_skip_verify = true;
  reply = Get(unchecked);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->status, 200);
}

TEST_F(ClientTlsTest, ACertificateThatNamesAnotherHostIsRefused) {
  client::Endpoint elsewhere = endpoint();
  elsewhere.tls.server_name = "elsewhere.example";
  auto reply = Get(elsewhere);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().reason(), Reason::kServiceUnavailable);
  const std::string& message = reply.status().message();
  EXPECT_EQ(message.rfind("TLS handshake with 127.0.0.1:", 0), 0u) << message;
  EXPECT_NE(message.find("certificate verify failed"), std::string::npos) << message;
  EXPECT_NE(message.find("(hostname mismatch)"), std::string::npos) << message;
}

TEST_F(ClientTlsTest, AServerFromAnotherCaIsRefused) {
  auto other_ca = IssueCertificate(
      {.use = CertificateSpec::Use::kCa, .common_name = "another CA", .organizations = {}}, "", "");
  ASSERT_TRUE(other_ca.ok()) << other_ca.status().ToString();
  client::Endpoint untrusted = endpoint();
  untrusted.tls.ca_file.clear();
  untrusted.tls.ca_data = other_ca->cert_pem;
  auto reply = Get(untrusted);
  ASSERT_FALSE(reply.ok());
  EXPECT_NE(reply.status().message().find("certificate verify failed"), std::string::npos)
      << reply.status().ToString();
}

TEST_F(ClientTlsTest, CaTextThatHoldsNoCertificateIsNamed) {
  client::Endpoint broken = endpoint();
  broken.tls.ca_file.clear();
  broken.tls.ca_data = "not a certificate";
  auto reply = Get(broken);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().reason(), Reason::kBadRequest);
  EXPECT_EQ(reply.status().message().rfind("cannot load the CA: ", 0), 0u)
      << reply.status().ToString();

  client::Endpoint no_key = endpoint();
  no_key.tls.cert_data = "not a certificate";
  reply = Get(no_key);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().message().rfind("cannot load the client certificate: ", 0), 0u)
      << reply.status().ToString();
}

TEST_F(ClientTlsTest, AClientCertificateAsTextOrAsFilesSaysWhoTheCallerIs) {
  const Credentials& credentials = server_->credentials();
  auto alice = IssueCertificate(
      {.use = CertificateSpec::Use::kClient, .common_name = "alice", .organizations = {"team-a"}},
      ReadText(credentials.ca_cert_file), ReadText(credentials.ca_key_file));
  ASSERT_TRUE(alice.ok()) << alice.status().ToString();

  client::Endpoint as_text = endpoint();
  as_text.tls.cert_data = alice->cert_pem;
  as_text.tls.key_data = alice->key_pem;
  EXPECT_EQ(WhoAmI(as_text), R"(alice ["team-a","system:authenticated"])");

  auto folder =
      std::filesystem::temp_directory_path() / ("client-tls-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "alice.crt") << alice->cert_pem;
  std::ofstream(folder / "alice.key") << alice->key_pem;
  client::Endpoint as_files = endpoint();
  as_files.tls.cert_file = (folder / "alice.crt").string();
  as_files.tls.key_file = (folder / "alice.key").string();
  EXPECT_EQ(WhoAmI(as_files), R"(alice ["team-a","system:authenticated"])");
  std::filesystem::remove_all(folder);

  // Without one, the caller is anonymous (and may not ask).
  EXPECT_NE(WhoAmI(endpoint()).find(R"(User \"system:anonymous\" cannot create)"),
            std::string::npos)
      << WhoAmI(endpoint());
}

// Opening a connection does not build a TLS context each time (about a millisecond of CPU with
// OpenSSL 3, which thousands of electors retrying through an outage paid for every attempt):
// connections with the same options share one, until a file they name changes.
TEST_F(ClientTlsTest, ConnectionsShareOneContextUntilAFileTheyNameChanges) {
  auto folder =
      std::filesystem::temp_directory_path() / ("client-tls-ca-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  const std::string ca_file = (folder / "ca.crt").string();
  const std::string ca = ReadText(endpoint().tls.ca_file);
  std::ofstream(ca_file) << ca;
  client::Endpoint by_copy = endpoint();
  by_copy.tls.ca_file = ca_file;

  const uint64_t before = client::TlsClientContextsBuilt();
  for (int i = 0; i < 10; ++i) {
    auto reply = Get(by_copy);
    ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  }
  EXPECT_EQ(client::TlsClientContextsBuilt() - before, 1u);

  // A server that is gone: every attempt fails, and none builds a context.
  client::Endpoint gone = by_copy;
  {
    client::LoopbackListener closed;
    gone.port = closed.port();
  }
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(Get(gone).ok());
  EXPECT_EQ(client::TlsClientContextsBuilt() - before, 1u);

  // The CA file is replaced (a bundle with another CA added): new connections read it again.
  auto other_ca =
      IssueCertificate({.use = CertificateSpec::Use::kCa, .common_name = "other"}, "", "");
  ASSERT_TRUE(other_ca.ok());
  std::ofstream(ca_file, std::ios::trunc) << ca << other_ca->cert_pem;
  auto reply = Get(by_copy);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(client::TlsClientContextsBuilt() - before, 2u);

  // Replaced by something that is no CA at all: the next connection says so.
  std::ofstream(ca_file, std::ios::trunc) << "not a certificate";
  reply = Get(by_copy);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().message().rfind("cannot load the CA: ", 0), 0u)
      << reply.status().ToString();
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace tenure::server
