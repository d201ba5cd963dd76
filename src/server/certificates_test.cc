// Tests of certificate issuing: the names, uses and signatures of what IssueCertificate makes.
#include "server/certificates.h"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace tenure::server {
namespace {

X509* Parse(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return cert;
}

// Whether `cert` verifies against `ca` for `purpose` (X509_PURPOSE_SSL_CLIENT, ...).
bool Verifies(const std::string& cert_pem, const std::string& ca_pem, int purpose) {
  X509* cert = Parse(cert_pem);
  X509* ca = Parse(ca_pem);
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca);
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store, cert, nullptr);
  X509_STORE_CTX_set_purpose(ctx, purpose);
  bool ok = X509_verify_cert(ctx) == 1;
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  X509_free(ca);
  X509_free(cert);
  return ok;
}

TEST(CertificatesTest, ServerAndClientCertificatesVerifyForTheirUseOnly) {
  auto ca = IssueCertificate({.use = CertificateSpec::Use::kCa, .common_name = "ca"}, "", "");
  ASSERT_TRUE(ca.ok()) << ca.status().ToString();
  auto server = IssueCertificate({.use = CertificateSpec::Use::kServer,
                                  .common_name = "server",
                                  .alt_names = {"localhost", "127.0.0.1", "::1", "a.example"}},
                                 ca->cert_pem, ca->key_pem);
  ASSERT_TRUE(server.ok());
  auto client = IssueCertificate(
      {.use = CertificateSpec::Use::kClient, .common_name = "carol", .organizations = {"g1", "g2"}},
      ca->cert_pem, ca->key_pem);
  ASSERT_TRUE(client.ok());
  EXPECT_TRUE(Verifies(server->cert_pem, ca->cert_pem, X509_PURPOSE_SSL_SERVER));
  EXPECT_FALSE(Verifies(server->cert_pem, ca->cert_pem, X509_PURPOSE_SSL_CLIENT));
  EXPECT_TRUE(Verifies(client->cert_pem, ca->cert_pem, X509_PURPOSE_SSL_CLIENT));
  EXPECT_FALSE(Verifies(client->cert_pem, ca->cert_pem, X509_PURPOSE_SSL_SERVER));
  auto other = IssueCertificate({.use = CertificateSpec::Use::kCa, .common_name = "other"}, "", "");
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(Verifies(client->cert_pem, other->cert_pem, X509_PURPOSE_SSL_CLIENT));
  auto names = AltNamesOf(server->cert_pem);
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"localhost", "127.0.0.1", "::1", "a.example"}));
}

TEST(CertificatesTest, AClientCertificateCarriesItsGroupsAsOrganizations) {
  auto ca = IssueCertificate({.use = CertificateSpec::Use::kCa, .common_name = "ca"}, "", "");
  ASSERT_TRUE(ca.ok());
  auto client = IssueCertificate({.use = CertificateSpec::Use::kClient,
                                  .common_name = "carol",
                                  .organizations = {"team, with comma", "ops"}},
                                 ca->cert_pem, ca->key_pem);
  ASSERT_TRUE(client.ok());
  X509* cert = Parse(client->cert_pem);
  char text[256];
  X509_NAME_oneline(X509_get_subject_name(cert), text, sizeof text);
  EXPECT_STREQ(text, "/O=team, with comma/O=ops/CN=carol");
  X509_free(cert);
}

TEST(CertificatesTest, IpAddressesAreToldFromNames) {
  EXPECT_TRUE(IsIpAddress("10.0.0.1"));
  EXPECT_TRUE(IsIpAddress("fe80::1"));
  EXPECT_FALSE(IsIpAddress("example.com"));
  EXPECT_FALSE(IsIpAddress("10.0.0"));
}

}  // namespace
}  // namespace tenure::server
