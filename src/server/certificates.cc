// Certificates: issuing, reading alt names, and the client certificate of a TLS connection.
#include "server/certificates.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace tenure::server {
namespace {

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

std::string BioText(BIO* bio) {
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(n));
}

std::string KeyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  return BioText(bio.get());
}

std::string CertPem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  return BioText(bio.get());
}

Result<KeyPtr> ReadKey(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) return Status::Internal("cannot parse the private key");
  return key;
}

Result<CertPtr> ReadCert(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  CertPtr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) return Status::Internal("cannot parse the certificate");
  return cert;
}

bool AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return false;
  bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

bool AddName(X509_NAME* name, const char* field, const std::string& value) {
  return X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8,
                                    reinterpret_cast<const unsigned char*>(value.c_str()),
                                    static_cast<int>(value.size()), -1, 0) == 1;
}

std::string AltNameList(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += ',';
    out += (IsIpAddress(n) ? "IP:" : "DNS:") + n;
  }
  return out;
}

std::string Hex(const unsigned char* bytes, size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 15];
  }
  return out;
}

}  // namespace

bool IsIpAddress(const std::string& name) {
  unsigned char buffer[16];
  return inet_pton(AF_INET, name.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, name.c_str(), buffer) == 1;
}

Result<std::string> NewPrivateKeyPem() {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return OpenSslError("generating a key");
  return KeyPem(key.get());
}

Result<IssuedCertificate> IssueCertificate(const CertificateSpec& spec,
                                           const std::string& ca_cert_pem,
                                           const std::string& ca_key_pem) {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return OpenSslError("generating a key");
  CertPtr issuer;
  KeyPtr issuer_key;
  if (!ca_cert_pem.empty()) {
    auto c = ReadCert(ca_cert_pem);
    if (!c.ok()) return c.status();
    auto k = ReadKey(ca_key_pem);
    if (!k.ok()) return k.status();
    issuer = std::move(*c);
    issuer_key = std::move(*k);
  }
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
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), spec.valid_days * 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  bool ok = true;
  for (const std::string& o : spec.organizations) ok &= AddName(name, "O", o);
  ok &= AddName(name, "CN", spec.common_name);
  if (!ok) return Status::BadRequest("a certificate's subject cannot hold these names");
  X509* signer = issuer ? issuer.get() : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  switch (spec.use) {
    case CertificateSpec::Use::kCa:
      ok &= AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
      ok &= AddExtension(cert.get(), signer, NID_key_usage,
                         "critical,keyCertSign,cRLSign,digitalSignature");
      ok &= AddExtension(cert.get(), signer, NID_subject_key_identifier, "hash");
      break;
    case CertificateSpec::Use::kServer:
      ok &= AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
      ok &= AddExtension(cert.get(), signer, NID_key_usage,
                         "critical,digitalSignature,keyEncipherment");
      ok &= AddExtension(cert.get(), signer, NID_ext_key_usage, "serverAuth");
      if (!spec.alt_names.empty()) {
        ok &= AddExtension(cert.get(), signer, NID_subject_alt_name, AltNameList(spec.alt_names));
      }
      break;
    case CertificateSpec::Use::kClient:
      ok &= AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
      ok &= AddExtension(cert.get(), signer, NID_key_usage, "critical,digitalSignature");
      ok &= AddExtension(cert.get(), signer, NID_ext_key_usage, "clientAuth");
      break;
  }
  if (!ok) return Status::BadRequest("invalid certificate extensions (a bad alt name?)");
  if (X509_sign(cert.get(), issuer_key ? issuer_key.get() : key.get(), EVP_sha256()) == 0) {
    return OpenSslError("X509_sign");
  }
  return IssuedCertificate{CertPem(cert.get()), KeyPem(key.get())};
}

Result<std::vector<std::string>> AltNamesOf(const std::string& cert_pem) {
  auto cert = ReadCert(cert_pem);
  if (!cert.ok()) return cert.status();
  std::vector<std::string> out;
  auto* names = static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(cert->get(), NID_subject_alt_name, nullptr, nullptr));
  if (names == nullptr) return out;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type == GEN_DNS) {
      const ASN1_STRING* s = n->d.dNSName;
      out.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                       static_cast<size_t>(ASN1_STRING_length(s)));
    } else if (n->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* s = n->d.iPAddress;
      char text[INET6_ADDRSTRLEN] = {};
      int family = ASN1_STRING_length(s) == 4 ? AF_INET : AF_INET6;
      if (inet_ntop(family, ASN1_STRING_get0_data(s), text, sizeof text) != nullptr) {
        out.emplace_back(text);
      }
    }
  }
  GENERAL_NAMES_free(names);
  return out;
}

ClientCertificate PeerCertificateOf(ssl_st* ssl, bool& present) {
  ClientCertificate out;
  X509* cert = SSL_get1_peer_certificate(ssl);
  present = cert != nullptr;
  if (cert == nullptr) return out;
  long result = SSL_get_verify_result(ssl);
  out.verified = result == X509_V_OK;
  if (!out.verified) out.error = X509_verify_cert_error_string(result);
  X509_NAME* subject = X509_get_subject_name(cert);
  for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
    X509_NAME_ENTRY* entry = X509_NAME_get_entry(subject, i);
    int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry));
    if (nid != NID_commonName && nid != NID_organizationName) continue;
    unsigned char* utf8 = nullptr;
    int n = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry));
    if (n < 0) continue;
    std::string value(reinterpret_cast<char*>(utf8), static_cast<size_t>(n));
    OPENSSL_free(utf8);
    if (nid == NID_commonName) {
      out.common_name = std::move(value);  // the last CN, as Go's pkix.Name
    } else {
      out.organizations.push_back(std::move(value));
    }
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (X509_digest(cert, EVP_sha256(), digest, &size) == 1) out.sha256_hex = Hex(digest, size);
  X509_free(cert);
  return out;
}

}  // namespace tenure::server
