// Credentials: what `tenure serve` keeps in its data folder so that clients can trust and reach
// it: a self-signed CA, a server certificate for the loopback names, an admin bearer token, and
// a kubeconfig using them, and the key that signs ServiceAccount tokens. Created on first start,
// reused afterwards (the kubeconfig is rewritten every start because the port may change).
#pragma once

#include <string>
#include <vector>

#include "tenure/status.h"

namespace tenure::server {

// The server certificate beyond the data folder's default (valid for the loopback names).
struct TlsOptions {
  // Names (DNS names or IP addresses) it must also be valid for: the certificate is issued again
  // when it lacks one (kube-apiserver's --tls-sans of its self-signed certificate).
  std::vector<std::string> alt_names;
  // The user's own certificate chain and key (kube's --tls-cert-file, --tls-private-key-file):
  // served instead of the data folder's; both or neither.
  std::string cert_file;
  std::string key_file;
};

struct Credentials {
  std::string ca_cert_file;              // <dir>/ca.crt: signs the server's and users' certificates
  std::string ca_key_file;               // <dir>/ca.key
  std::string server_cert_file;          // <dir>/server.crt, or the user's own
  std::string server_key_file;           // <dir>/server.key, or the user's own
  std::string server_trust_file;         // what clients trust the server by (kubeconfig CA data)
  std::string token_file;                // <dir>/admin.token
  std::string kubeconfig_file;           // <dir>/kubeconfig
  std::string service_account_key_file;  // <dir>/sa.key: signs ServiceAccount tokens
  std::string token;                     // the admin bearer token
};

// Ensures the CA, server certificate, service-account key and token exist in `data_dir`: the
// folder 0700 and every file 0600 whatever the umask (store/private_files.h), looser ones from an
// older run narrowed.
Result<Credentials> EnsureCredentials(const std::string& data_dir, const TlsOptions& tls = {});

// Writes a kubeconfig (cluster "tenure", user "admin", context "tenure") for `server_url`.
Status WriteKubeconfig(const Credentials& credentials, const std::string& server_url);

// A kubeconfig (0600) at `file` for `server_url` trusting the server as the admin's does, with
// one user named `user` whose YAML fields (indented four spaces, each line ending in a newline)
// are `user_fields`.
Status WriteKubeconfigFor(const Credentials& credentials, const std::string& server_url,
                          const std::string& user, const std::string& user_fields,
                          const std::string& file);

// The whole content of a file; NotFound "cannot read <path>" when it cannot be read.
Result<std::string> ReadFileText(const std::string& path);

// A new bearer token: 32 random bytes from the system's generator, in hex.
std::string NewToken();

// Standard base64 (kubeconfig *-data fields).
std::string Base64(const std::string& bytes);

}  // namespace tenure::server
