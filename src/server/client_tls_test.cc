// The library's TLS client (client::HttpConnection) against the server's own TLS: the server is
// trusted by a CA file or its text, refused when its certificate names another host or comes from
// another CA, and a client certificate given as files or as text says who the caller is.
#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

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

// A TLS stand-in with the server's own certificate: it accepts one connection, reads the
// request's head, writes `reply` and closes the socket without close_notify, as a server that
// crashed, or a proxy that cut the connection, does.
class AbruptTlsServer {
 public:
  AbruptTlsServer(const Credentials& credentials, std::string reply) {
    EXPECT_TRUE(listener_.ok());
    context_ = SSL_CTX_new(TLS_server_method());
    EXPECT_EQ(SSL_CTX_use_certificate_chain_file(context_, credentials.server_cert_file.c_str()),
              1);
    EXPECT_EQ(SSL_CTX_use_PrivateKey_file(context_, credentials.server_key_file.c_str(),
                                          SSL_FILETYPE_PEM),
              1);
    thread_ = std::jthread([this, reply = std::move(reply)] {
      int fd = accept(listener_.fd(), nullptr, nullptr);
      if (fd < 0) return;
      SSL* ssl = SSL_new(context_);
      SSL_set_fd(ssl, fd);
      if (SSL_accept(ssl) == 1) {
        std::string in;
        char buffer[4096];
        while (in.find("\r\n\r\n") == std::string::npos) {
          int n = SSL_read(ssl, buffer, sizeof buffer);
          if (n <= 0) break;
          in.append(buffer, static_cast<size_t>(n));
        }
        SSL_write(ssl, reply.data(), static_cast<int>(reply.size()));
      }
      SSL_free(ssl);  // no SSL_shutdown: no close_notify
      close(fd);
    });
  }
  ~AbruptTlsServer() {
    listener_.Shutdown();
    thread_.join();
    SSL_CTX_free(context_);
  }
  uint16_t port() const { return listener_.port(); }

 private:
  client::LoopbackListener listener_;
  SSL_CTX* context_ = nullptr;
  std::jthread thread_;
};

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

// What other code on the caller's thread may leave behind: an OpenSSL error in the thread's
// queue and an errno.
void LeaveStaleErrors() {
  BIO* garbage = BIO_new_mem_buf("not PEM", -1);
  EXPECT_EQ(PEM_read_bio_X509(garbage, nullptr, nullptr, nullptr), nullptr);  // queues an error
  BIO_free(garbage);
  errno = EAGAIN;
}

// A TLS server that closes without close_notify ends its stream there: a reply framed by the
// connection's end is whole, and a watch stream ends after its last line. Neither an OpenSSL
// error queued by other code on the caller's thread nor a stale errno is taken for the outcome
// of a TLS call.
TEST_F(ClientTlsTest, AServerThatClosesWithoutCloseNotifyEndsTheStream) {
  {
    LeaveStaleErrors();
    auto reply = Get(endpoint());
    ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  }
  {
    AbruptTlsServer abrupt(server_->credentials(),
                           "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nthe whole body");
    client::Endpoint to = endpoint();
    to.port = abrupt.port();
    LeaveStaleErrors();
    auto reply = Get(to);
    ASSERT_TRUE(reply.ok()) << reply.status().ToString();
    EXPECT_EQ(reply->body, "the whole body");
  }
  {
    AbruptTlsServer abrupt(server_->credentials(),
                           "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                           "8\r\n{\"n\":1}\n\r\n");
    client::Endpoint to = endpoint();
    to.port = abrupt.port();
    client::HttpConnection connection(to);
    auto head = connection.StartStream("/watch", headers(), 10s);
    ASSERT_TRUE(head.ok()) << head.status().ToString();
    auto line = connection.ReadLine(10s);
    ASSERT_TRUE(line.ok()) << line.status().ToString();
    EXPECT_EQ(*line, R"({"n":1})");
    LeaveStaleErrors();
    auto end = connection.ReadLine(10s);
    EXPECT_EQ(end.status().reason(), Reason::kNotFound) << end.status().ToString();
  }
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
  client::RefusingPort refusing;
  gone.port = refusing.port();
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
