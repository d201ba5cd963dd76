// EnsureCredentials, WriteKubeconfig: the data folder's CA, server certificate, admin token,
// service-account key and kubeconfig.
#include "server/credentials.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "server/certificates.h"
#include "store/private_files.h"

namespace tenure::server {

namespace {

namespace fs = std::filesystem;

// What the server certificate is always valid for: the loopback names.
const std::vector<std::string> kLoopbackNames = {"localhost", "127.0.0.1", "::1"};

}  // namespace

Result<std::string> ReadFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot read " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string NewToken() {
  unsigned char raw[32];
  RAND_bytes(raw, sizeof raw);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (unsigned char c : raw) {
    token.push_back(kHex[c >> 4]);
    token.push_back(kHex[c & 15]);
  }
  return token;
}

namespace {

Status WriteIssued(const IssuedCertificate& issued, const std::string& cert_file,
                   const std::string& key_file) {
  if (Status s = store::WritePrivateFileAtomically(key_file, issued.key_pem); !s.ok()) return s;
  return store::WritePrivateFileAtomically(cert_file, issued.cert_pem);
}

// The names the server certificate must cover: the loopback names and `extra`, once each.
std::vector<std::string> ServerNames(const std::vector<std::string>& extra) {
  std::vector<std::string> names = kLoopbackNames;
  for (const std::string& n : extra) {
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  return names;
}

// The CA (created once), and a server certificate it signed for every name asked for: issued
// again when the CA is new or the certificate lacks a name.
Status EnsureCaAndServerCert(const Credentials& c, const std::string& ca_key_file,
                             const std::vector<std::string>& alt_names) {
  bool new_ca = false;
  if (!fs::exists(c.ca_cert_file) || !fs::exists(ca_key_file)) {
    auto ca = IssueCertificate(
        {.use = CertificateSpec::Use::kCa, .common_name = "tenure-ca", .valid_days = 3650}, "", "");
    if (!ca.ok()) return ca.status();
    if (Status s = WriteIssued(*ca, c.ca_cert_file, ca_key_file); !s.ok()) return s;
    new_ca = true;
  }
  const std::vector<std::string> names = ServerNames(alt_names);
  if (!new_ca && fs::exists(c.server_cert_file) && fs::exists(c.server_key_file)) {
    auto pem = ReadFileText(c.server_cert_file);
    if (!pem.ok()) return pem.status();
    auto have = AltNamesOf(*pem);
    if (have.ok() && std::all_of(names.begin(), names.end(), [&](const std::string& n) {
          return std::find(have->begin(), have->end(), n) != have->end();
        })) {
      return Status::Ok();
    }
  }
  auto ca_cert = ReadFileText(c.ca_cert_file);
  if (!ca_cert.ok()) return ca_cert.status();
  auto ca_key = ReadFileText(ca_key_file);
  if (!ca_key.ok()) return ca_key.status();
  auto server = IssueCertificate({.use = CertificateSpec::Use::kServer,
                                  .common_name = "tenure-server",
                                  .alt_names = names,
                                  .valid_days = 825},
                                 *ca_cert, *ca_key);
  if (!server.ok()) return server.status();
  return WriteIssued(*server, c.server_cert_file, c.server_key_file);
}

// The key service-account tokens are signed with, kept across restarts (tokens stay valid).
Status EnsureServiceAccountKey(const std::string& file) {
  if (fs::exists(file)) return Status::Ok();
  auto key = NewPrivateKeyPem();
  if (!key.ok()) return key.status();
  return store::WritePrivateFileAtomically(file, *key);
}

}  // namespace

std::string Base64(const std::string& in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()),
                          static_cast<int>(in.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

Result<Credentials> EnsureCredentials(const std::string& data_dir, const TlsOptions& tls) {
  if (Status s = store::EnsurePrivateFolder(data_dir); !s.ok()) {
    return Status(s.reason(), "data folder: " + s.message());
  }
  if (tls.cert_file.empty() != tls.key_file.empty()) {
    return Status::BadRequest("a server certificate needs both its file and its key's");
  }
  Credentials c;
  c.ca_cert_file = data_dir + "/ca.crt";
  c.ca_key_file = data_dir + "/ca.key";
  c.server_cert_file = data_dir + "/server.crt";
  c.server_key_file = data_dir + "/server.key";
  c.token_file = data_dir + "/admin.token";
  c.kubeconfig_file = data_dir + "/kubeconfig";
  c.service_account_key_file = data_dir + "/sa.key";
  // Files an older run left with looser modes are narrowed before they are read.
  for (const std::string& file :
       {c.ca_key_file, c.ca_cert_file, c.server_cert_file, c.server_key_file, c.token_file,
        c.kubeconfig_file, c.service_account_key_file}) {
    if (Status s = store::EnsurePrivateFile(file, /*create=*/false); !s.ok()) return s;
  }
  if (Status s = EnsureCaAndServerCert(c, c.ca_key_file, tls.alt_names); !s.ok()) return s;
  if (!tls.cert_file.empty()) {
    // The user's own certificate is served instead, as given; clients trust its chain.
    for (const std::string& file : {tls.cert_file, tls.key_file}) {
      if (!fs::exists(file)) return Status::NotFound("cannot read " + file);
    }
    c.server_cert_file = tls.cert_file;
    c.server_key_file = tls.key_file;
    c.server_trust_file = tls.cert_file;
  } else {
    c.server_trust_file = c.ca_cert_file;
  }
  if (Status s = EnsureServiceAccountKey(c.service_account_key_file); !s.ok()) return s;
  auto token = ReadFileText(c.token_file);
  if (token.ok() && !token->empty()) {
    c.token = *token;
    while (!c.token.empty() && (c.token.back() == '\n' || c.token.back() == '\r')) {
      c.token.pop_back();
    }
  } else {
    c.token = NewToken();
    if (Status s = store::WritePrivateFileAtomically(c.token_file, c.token + "\n"); !s.ok())
      return s;
  }
  return c;
}

Status WriteKubeconfig(const Credentials& c, const std::string& server_url) {
  return WriteKubeconfigFor(c, server_url, "admin", "    token: " + c.token + "\n",
                            c.kubeconfig_file);
}

Status WriteKubeconfigFor(const Credentials& c, const std::string& server_url,
                          const std::string& user, const std::string& user_fields,
                          const std::string& file) {
  auto trust = ReadFileText(c.server_trust_file.empty() ? c.ca_cert_file : c.server_trust_file);
  if (!trust.ok()) return trust.status();
  std::string config =
      "apiVersion: v1\n"
      "kind: Config\n"
      "clusters:\n"
      "- name: tenure\n"
      "  cluster:\n"
      "    server: " +
      server_url +
      "\n"
      "    certificate-authority-data: " +
      Base64(*trust) +
      "\n"
      "users:\n"
      "- name: " +
      user +
      "\n"
      "  user:\n" +
      user_fields +
      "contexts:\n"
      "- name: tenure\n"
      "  context:\n"
      "    cluster: tenure\n"
      "    user: " +
      user +
      "\n"
      "    namespace: default\n"
      "current-context: tenure\n";
  return store::WritePrivateFileAtomically(file, config);
}

}  // namespace tenure::server
