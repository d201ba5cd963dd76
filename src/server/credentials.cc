// EnsureCredentials, WriteKubeconfig: the data folder's CA, server cert, admin token, kubeconfig.
#include "server/credentials.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "store/private_files.h"

namespace tenure::server {

namespace {

namespace fs = std::filesystem;

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

Status OpenSslError(const std::string& what) {
  return Status::Internal("openssl: " + what + " failed");
}

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot read " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

KeyPtr NewKey() {
  // ECDSA P-256: fast handshakes, accepted by Go's TLS stack (kubectl).
  return KeyPtr(EVP_EC_gen("P-256"));
}

std::string ToPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

std::string ToPem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

bool AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) return false;
  bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

// Signs a new certificate for `key`; self-signed when issuer is null.
Result<CertPtr> MakeCert(EVP_PKEY* key, const std::string& common_name, X509* issuer,
                         EVP_PKEY* issuer_key, bool is_ca, long valid_days) {
  CertPtr cert(X509_new());
  if (!cert) return OpenSslError("X509_new");
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), valid_days * 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  X509* signer = issuer ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  bool ok = true;
  if (is_ca) {
    ok &= AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    ok &= AddExtension(cert.get(), signer, NID_key_usage,
                       "critical,keyCertSign,cRLSign,digitalSignature");
    ok &= AddExtension(cert.get(), signer, NID_subject_key_identifier, "hash");
  } else {
    ok &= AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
    ok &= AddExtension(cert.get(), signer, NID_key_usage,
                       "critical,digitalSignature,keyEncipherment");
    ok &= AddExtension(cert.get(), signer, NID_ext_key_usage, "serverAuth");
    ok &=
        AddExtension(cert.get(), signer, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1");
  }
  if (!ok) return OpenSslError("adding certificate extensions");
  if (X509_sign(cert.get(), issuer_key ? issuer_key : key, EVP_sha256()) == 0) {
    return OpenSslError("X509_sign");
  }
  return cert;
}

Result<KeyPtr> LoadKey(const std::string& path) {
  auto pem = ReadFile(path);
  if (!pem.ok()) return pem.status();
  BioPtr bio(BIO_new_mem_buf(pem->data(), static_cast<int>(pem->size())));
  KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) return Status::Internal("cannot parse private key " + path);
  return key;
}

Result<CertPtr> LoadCert(const std::string& path) {
  auto pem = ReadFile(path);
  if (!pem.ok()) return pem.status();
  BioPtr bio(BIO_new_mem_buf(pem->data(), static_cast<int>(pem->size())));
  CertPtr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) return Status::Internal("cannot parse certificate " + path);
  return cert;
}

std::string Base64(const std::string& in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()),
                          static_cast<int>(in.size()));
  out.resize(static_cast<size_t>(n));
  return out;
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

Status EnsureCaAndServerCert(const Credentials& c, const std::string& ca_key_file) {
  KeyPtr ca_key;
  CertPtr ca_cert;
  if (fs::exists(c.ca_cert_file) && fs::exists(ca_key_file)) {
    auto key = LoadKey(ca_key_file);
    if (!key.ok()) return key.status();
    auto cert = LoadCert(c.ca_cert_file);
    if (!cert.ok()) return cert.status();
    ca_key = std::move(*key);
    ca_cert = std::move(*cert);
  } else {
    ca_key = NewKey();
    if (!ca_key) return OpenSslError("generating the CA key");
    auto cert = MakeCert(ca_key.get(), "tenure-ca", nullptr, nullptr, true, 3650);
    if (!cert.ok()) return cert.status();
    ca_cert = std::move(*cert);
    if (Status s = store::WritePrivateFileAtomically(ca_key_file, ToPem(ca_key.get())); !s.ok())
      return s;
    if (Status s = store::WritePrivateFileAtomically(c.ca_cert_file, ToPem(ca_cert.get()));
        !s.ok()) {
      return s;
    }
    fs::remove(c.server_cert_file);  // a new CA invalidates the old server certificate
  }
  if (fs::exists(c.server_cert_file) && fs::exists(c.server_key_file)) return Status::Ok();
  KeyPtr key = NewKey();
  if (!key) return OpenSslError("generating the server key");
  auto cert = MakeCert(key.get(), "tenure-server", ca_cert.get(), ca_key.get(), false, 825);
  if (!cert.ok()) return cert.status();
  if (Status s = store::WritePrivateFileAtomically(c.server_key_file, ToPem(key.get())); !s.ok())
    return s;
  return store::WritePrivateFileAtomically(c.server_cert_file, ToPem(cert->get()));
}

}  // namespace

Result<Credentials> EnsureCredentials(const std::string& data_dir) {
  if (Status s = store::EnsurePrivateFolder(data_dir); !s.ok()) {
    return Status(s.reason(), "data folder: " + s.message());
  }
  Credentials c;
  c.ca_cert_file = data_dir + "/ca.crt";
  c.server_cert_file = data_dir + "/server.crt";
  c.server_key_file = data_dir + "/server.key";
  c.token_file = data_dir + "/admin.token";
  c.kubeconfig_file = data_dir + "/kubeconfig";
  // Files an older run left with looser modes are narrowed before they are read.
  for (const std::string& file : {data_dir + "/ca.key", c.ca_cert_file, c.server_cert_file,
                                  c.server_key_file, c.token_file, c.kubeconfig_file}) {
    if (Status s = store::EnsurePrivateFile(file, /*create=*/false); !s.ok()) return s;
  }
  if (Status s = EnsureCaAndServerCert(c, data_dir + "/ca.key"); !s.ok()) return s;
  auto token = ReadFile(c.token_file);
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
  auto ca = ReadFile(c.ca_cert_file);
  if (!ca.ok()) return ca.status();
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
      Base64(*ca) +
      "\n"
      "users:\n"
      "- name: admin\n"
      "  user:\n"
      "    token: " +
      c.token +
      "\n"
      "contexts:\n"
      "- name: tenure\n"
      "  context:\n"
      "    cluster: tenure\n"
      "    user: admin\n"
      "    namespace: default\n"
      "current-context: tenure\n";
  return store::WritePrivateFileAtomically(c.kubeconfig_file, config);
}

}  // namespace tenure::server
