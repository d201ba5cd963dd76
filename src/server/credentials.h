// Credentials: what `tenure serve` keeps in its data folder so that clients can trust and reach
// it: a self-signed CA, a server certificate for the loopback names, an admin bearer token, and
// a kubeconfig using them. Created on first start, reused afterwards (the kubeconfig is
// rewritten every start because the port may change).
#pragma once

#include <string>

#include "tenure/status.h"

namespace tenure::server {

struct Credentials {
  std::string ca_cert_file;      // <dir>/ca.crt
  std::string server_cert_file;  // <dir>/server.crt
  std::string server_key_file;   // <dir>/server.key
  std::string token_file;        // <dir>/admin.token
  std::string kubeconfig_file;   // <dir>/kubeconfig
  std::string token;             // the admin bearer token
};

// Ensures the CA, server certificate and token exist in `data_dir`: the folder 0700 and every
// file 0600 whatever the umask (store/private_files.h), looser ones from an older run narrowed.
Result<Credentials> EnsureCredentials(const std::string& data_dir);

// Writes a kubeconfig (cluster "tenure", user "admin", context "tenure") for `server_url`.
Status WriteKubeconfig(const Credentials& credentials, const std::string& server_url);

}  // namespace tenure::server
