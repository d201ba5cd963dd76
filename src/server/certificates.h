// Certificates: the X.509 work of the server and its tools, over OpenSSL: issuing certificates
// (the data folder's CA, the server's, a user's client certificate), reading the names a
// server certificate is valid for, and what a TLS client's certificate says about who it is.
// Keys are EC P-256 (fast handshakes, accepted by Go's TLS stack). PEM in, PEM out.
#pragma once

#include <string>
#include <vector>

#include "tenure/status.h"

struct ssl_st;  // OpenSSL's SSL

namespace tenure::server {

struct CertificateSpec {
  enum class Use { kCa, kServer, kClient };
  Use use = Use::kServer;
  std::string common_name;
  // The subject's O attributes, in order: a client's groups, as kube-apiserver reads them.
  std::vector<std::string> organizations;
  // kServer: the subjectAltNames, each a DNS name or an IP address.
  std::vector<std::string> alt_names;
  long valid_days = 825;
};

struct IssuedCertificate {
  std::string cert_pem;
  std::string key_pem;
};

// A new private key, PEM.
Result<std::string> NewPrivateKeyPem();

// A new key and a certificate for it, signed by the CA in `ca_cert_pem` and `ca_key_pem`
// (self-signed when both are empty).
Result<IssuedCertificate> IssueCertificate(const CertificateSpec& spec,
                                           const std::string& ca_cert_pem,
                                           const std::string& ca_key_pem);

// The subjectAltNames of a PEM certificate ("localhost", "127.0.0.1", "::1"), in its order.
Result<std::vector<std::string>> AltNamesOf(const std::string& cert_pem);

// Whether `name` is an IP address (v4 or v6) rather than a DNS name.
bool IsIpAddress(const std::string& name);

// The certificate a TLS client presented, as the handshake's verification against the client
// CAs judged it, and the identity kube-apiserver reads from it.
struct ClientCertificate {
  bool verified = false;
  std::string error;  // why it was not: OpenSSL's words ("certificate has expired")
  std::string common_name;
  std::vector<std::string> organizations;
  std::string sha256_hex;  // of the leaf's DER: kube's credential id "X509SHA256=<hex>"
};

// The client certificate of a finished TLS handshake; `present` false when there was none.
ClientCertificate PeerCertificateOf(ssl_st* ssl, bool& present);

}  // namespace tenure::server
