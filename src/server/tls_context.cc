// TlsContextSource: the TLS context from files, rebuilt when they change.
#include "server/tls_context.h"

#include <openssl/ssl.h>

#include <filesystem>

namespace tenure::server {
namespace {

namespace fs = std::filesystem;
namespace ssl = boost::asio::ssl;

}  // namespace

TlsContextSource::TlsContextSource(std::string cert_file, std::string key_file,
                                   std::vector<std::string> client_ca_files)
    : cert_file_(std::move(cert_file)),
      key_file_(std::move(key_file)),
      client_ca_files_(std::move(client_ca_files)) {}

std::vector<std::string> TlsContextSource::Files() const {
  std::vector<std::string> files = {cert_file_, key_file_};
  files.insert(files.end(), client_ca_files_.begin(), client_ca_files_.end());
  return files;
}

std::string TlsContextSource::Stamps() const {
  std::string out;
  for (const std::string& file : Files()) {
    std::error_code ec;
    auto size = fs::file_size(file, ec);
    auto time = fs::last_write_time(file, ec);
    out += file + ":" + std::to_string(ec ? 0 : size) + ":" +
           std::to_string(ec ? 0 : time.time_since_epoch().count()) + ";";
  }
  return out;
}

Result<std::shared_ptr<ssl::context>> TlsContextSource::Build() const {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                       ssl::context::single_dh_use);
  boost::system::error_code ec;
  context->use_certificate_chain_file(cert_file_, ec);
  if (ec) return Status::Internal("loading " + cert_file_ + ": " + ec.message());
  context->use_private_key_file(key_file_, ssl::context::pem, ec);
  if (ec) return Status::Internal("loading " + key_file_ + ": " + ec.message());
  if (SSL_CTX_check_private_key(context->native_handle()) != 1) {
    return Status::Internal(key_file_ + " is not the key of " + cert_file_);
  }
  if (!client_ca_files_.empty()) {
    // Trusted for verification, and named to clients as the acceptable issuers.
    STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
    for (const std::string& file : client_ca_files_) {
      context->load_verify_file(file, ec);
      if (ec || SSL_add_file_cert_subjects_to_stack(names, file.c_str()) != 1) {
        sk_X509_NAME_pop_free(names, X509_NAME_free);
        return Status::Internal("loading the client CA " + file +
                                (ec ? ": " + ec.message() : ": no certificate in it"));
      }
    }
    SSL_CTX_set_client_CA_list(context->native_handle(), names);
    // Asked for, not required; any certificate is accepted here and judged by the
    // authenticator from the verification result the handshake records.
    context->set_verify_mode(ssl::verify_peer);
    // Without an id context OpenSSL refuses every resumed session of a verifying server.
    static constexpr unsigned char kSessionContext[] = "tenure";
    SSL_CTX_set_session_id_context(context->native_handle(), kSessionContext,
                                   sizeof kSessionContext - 1);
    context->set_verify_callback([](bool, ssl::verify_context&) { return true; });
  }
  return context;
}

Status TlsContextSource::Load() {
  std::string stamps = Stamps();
  auto context = Build();
  if (!context.ok()) return context.status();
  std::lock_guard<std::mutex> lock(mu_);
  current_ = std::move(*context);
  stamps_ = std::move(stamps);
  return Status::Ok();
}

std::shared_ptr<ssl::context> TlsContextSource::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

bool TlsContextSource::ReloadIfChanged() {
  std::string stamps = Stamps();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stamps == stamps_) return false;
    stamps_ = stamps;  // a build that fails is tried again only once the files change again
  }
  auto context = Build();
  if (!context.ok()) return false;
  std::lock_guard<std::mutex> lock(mu_);
  current_ = std::move(*context);
  return true;
}

}  // namespace tenure::server
