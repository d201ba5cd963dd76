// TlsContextSource: the server's TLS context, built from its certificate chain, key and client
// CAs, and built again when one of those files changes, so that a renewed certificate is served
// without a restart: new connections get the new context, open ones keep theirs. A change that
// does not load (a key that does not match yet, a file half written) keeps the previous context
// and is tried again at the next check.
//
// Client certificates are requested, not required, with the client CAs sent as acceptable; the
// handshake accepts any certificate and records its verification, which the authenticator
// reads (kube-apiserver's RequestClientCert and x509 authenticator). Internal to the HTTP server
// (it includes Boost.Asio's SSL headers).
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tenure/status.h"

namespace tenure::server {

class TlsContextSource {
 public:
  TlsContextSource(std::string cert_file, std::string key_file,
                   std::vector<std::string> client_ca_files);

  // Builds the first context; the error names the file that does not load.
  Status Load();
  // The context for a new connection.
  std::shared_ptr<boost::asio::ssl::context> Current() const;
  // Builds a new context when a file changed since the last build; true when it did.
  bool ReloadIfChanged();

 private:
  struct Stamp;
  Result<std::shared_ptr<boost::asio::ssl::context>> Build() const;
  std::vector<std::string> Files() const;
  std::string Stamps() const;  // size and modification time of every file

  const std::string cert_file_, key_file_;
  const std::vector<std::string> client_ca_files_;
  mutable std::mutex mu_;
  std::shared_ptr<boost::asio::ssl::context> current_;
  std::string stamps_;  // of the files `current_` was built from (or last failed to build)
};

}  // namespace tenure::server
