// TlsClientContext: OpenSSL client contexts built once per set of options and files, then shared.
#include "client/tls_client_context.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <vector>

namespace tenure::client {

std::string OpenSslError() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown TLS error";
  const char* reason = ERR_reason_error_string(code);
  return reason != nullptr ? reason : "TLS error " + std::to_string(code);
}

namespace {

std::atomic<uint64_t> built{0};

// Every certificate of a PEM text: at least one, or false.
bool AddCertificateAuthorities(SSL_CTX* context, const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> in(BIO_new_mem_buf(pem.data(), int(pem.size())),
                                               BIO_free);
  X509_STORE* store = SSL_CTX_get_cert_store(context);
  int added = 0;
  while (X509* cert = PEM_read_bio_X509(in.get(), nullptr, nullptr, nullptr)) {
    int ok = X509_STORE_add_cert(store, cert);
    X509_free(cert);
    if (ok != 1) return false;
    ++added;
  }
  if (added == 0) return false;
  ERR_clear_error();  // the end of the text reads as "no start line"
  return true;
}

// The certificate then its chain, from a PEM text.
bool UseCertificateChain(SSL_CTX* context, const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> in(BIO_new_mem_buf(pem.data(), int(pem.size())),
                                               BIO_free);
  X509* leaf = PEM_read_bio_X509_AUX(in.get(), nullptr, nullptr, nullptr);
  if (leaf == nullptr) return false;
  int ok = SSL_CTX_use_certificate(context, leaf);
  X509_free(leaf);
  if (ok != 1) return false;
  SSL_CTX_clear_chain_certs(context);
  while (X509* cert = PEM_read_bio_X509(in.get(), nullptr, nullptr, nullptr)) {
    if (SSL_CTX_add0_chain_cert(context, cert) != 1) {
      X509_free(cert);
      return false;
    }
  }
  ERR_clear_error();
  return true;
}

// An encrypted key fails to load instead of OpenSSL asking for its passphrase on the terminal.
int NoPassphrase(char*, int, int, void*) { return 0; }

bool UsePrivateKey(SSL_CTX* context, const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> in(BIO_new_mem_buf(pem.data(), int(pem.size())),
                                               BIO_free);
  EVP_PKEY* key = PEM_read_bio_PrivateKey(in.get(), nullptr, NoPassphrase, nullptr);
  if (key == nullptr) return false;
  int ok = SSL_CTX_use_PrivateKey(context, key);
  EVP_PKEY_free(key);
  return ok == 1;
}

// Everything a context is built from, files by what they are now, as one SHA-256 digest: the
// cache's key (it holds no copy of a private key).
std::string KeyOf(const TlsOptions& t) {
  std::string material;
  auto add = [&](const std::string& field) {
    material += std::to_string(field.size());
    material += ':';
    material += field;
  };
  auto add_file = [&](const std::string& path) {
    add(path);
    struct stat info {};
    if (path.empty() || ::stat(path.c_str(), &info) != 0) {
      add("-");
      return;
    }
    add(std::to_string(info.st_dev) + "/" + std::to_string(info.st_ino) + "/" +
        std::to_string(info.st_size) + "/" + std::to_string(info.st_mtim.tv_sec) + "." +
        std::to_string(info.st_mtim.tv_nsec));
  };
  add(t.insecure_skip_verify ? "insecure" : "verify");
  add_file(t.ca_file);
  add(t.ca_data);
  add_file(t.cert_file);
  add(t.cert_data);
  add_file(t.key_file);
  add(t.key_data);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(material.data(), material.size(), digest, &size, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<char*>(digest), size);
}

Result<std::shared_ptr<SSL_CTX>> Build(const TlsOptions& t) {
  SSL_CTX* context = SSL_CTX_new(TLS_client_method());
  if (context == nullptr)
    return Status::Unavailable("cannot make a TLS context: " + OpenSslError());
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> owned(context, SSL_CTX_free);
  // A server that closes without close_notify ends the stream, as Go's servers may.
  SSL_CTX_set_options(context, SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_CTX_set_mode(context, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // Records are read whole with the bytes after them, not header and body apart (two recv()s).
  SSL_CTX_set_read_ahead(context, 1);
  SSL_CTX_set_default_passwd_cb(context, NoPassphrase);
  if (t.insecure_skip_verify) {
    SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nullptr);
  } else {
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nullptr);
    bool loaded = !t.ca_data.empty() ? AddCertificateAuthorities(context, t.ca_data)
                  : !t.ca_file.empty()
                      ? SSL_CTX_load_verify_locations(context, t.ca_file.c_str(), nullptr) == 1
                      : SSL_CTX_set_default_verify_paths(context) == 1;
    if (!loaded) return Status::BadRequest("cannot load the CA: " + OpenSslError());
  }
  bool ok = true;
  if (!t.cert_data.empty()) ok = UseCertificateChain(context, t.cert_data);
  if (ok && !t.cert_file.empty()) {
    ok = SSL_CTX_use_certificate_chain_file(context, t.cert_file.c_str()) == 1;
  }
  if (ok && !t.key_data.empty()) ok = UsePrivateKey(context, t.key_data);
  if (ok && !t.key_file.empty()) {
    ok = SSL_CTX_use_PrivateKey_file(context, t.key_file.c_str(), SSL_FILETYPE_PEM) == 1;
  }
  if (!ok) return Status::BadRequest("cannot load the client certificate: " + OpenSslError());
  built.fetch_add(1);
  return std::shared_ptr<SSL_CTX>(owned.release(), SSL_CTX_free);
}

}  // namespace

Result<std::shared_ptr<SSL_CTX>> SharedTlsClientContext(const TlsOptions& options) {
  // Held here, not only by the connections: a client that drops a failed connection and opens
  // the next finds the context still there. Of the contexts no connection uses, the few used
  // last stay (a process talks to few clusters); the others go. A context is built outside the
  // lock (reading its files must not hold up other connections), and options that fail to load
  // are answered from here for a second, not loaded again at each attempt.
  constexpr size_t kUnusedKept = 4;
  constexpr auto kFailureKept = std::chrono::seconds(1);
  struct Entry {
    std::shared_ptr<SSL_CTX> context;
    Status failed = Status::Ok();
    std::chrono::steady_clock::time_point failed_at;
    uint64_t last_used = 0;
  };
  // Never destroyed: a library thread may open a connection while the process exits.
  static auto* mu = new std::mutex;
  static auto* cache = new std::map<std::string, Entry>;
  static uint64_t uses = 0;
  auto& contexts = *cache;
  const std::string key = KeyOf(options);
  {
    std::lock_guard lock(*mu);
    if (auto found = contexts.find(key); found != contexts.end()) {
      Entry& entry = found->second;
      if (entry.context) {
        entry.last_used = ++uses;
        return entry.context;
      }
      if (std::chrono::steady_clock::now() - entry.failed_at < kFailureKept) return entry.failed;
    }
  }
  auto built_now = Build(options);
  std::lock_guard lock(*mu);
  Entry& entry = contexts[key];
  if (entry.context) {  // another thread built it meanwhile
    entry.last_used = ++uses;
    return entry.context;
  }
  if (!built_now.ok()) {
    entry.failed = built_now.status();
    entry.failed_at = std::chrono::steady_clock::now();
    return built_now.status();
  }
  entry = Entry{*built_now, Status::Ok(), {}, ++uses};
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(contexts, [&](const auto& e) {
    return !e.second.context && now - e.second.failed_at >= kFailureKept;
  });
  std::vector<std::pair<uint64_t, std::string>> unused;  // contexts no connection holds
  for (const auto& [k, e] : contexts) {
    if (e.context && e.context.use_count() == 1) unused.emplace_back(e.last_used, k);
  }
  if (unused.size() > kUnusedKept) {
    std::sort(unused.begin(), unused.end());
    for (size_t i = 0; i + kUnusedKept < unused.size(); ++i) contexts.erase(unused[i].second);
  }
  return built_now;
}

uint64_t TlsClientContextsBuilt() { return built.load(); }

}  // namespace tenure::client
