// ServiceAccountTokens: ES256 JWTs as kube-apiserver issues and checks them (OpenSSL).
#include "server/service_account_token.h"

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/canonical_json.h"
#include "api/codec.h"
#include "server/credentials.h"

namespace tenure::server {
namespace {

using nlohmann::json;

constexpr size_t kCoordinateBytes = 32;  // P-256

std::string Sha256(std::string_view bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof digest);
}

Status Invalid(std::string reason) { return Status(Reason::kUnauthorized, std::move(reason)); }

// Go's %q of a []string, as kube prints audiences: ["a" "b"].
std::string QuotedList(const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ' ';
    out += '"' + values[i] + '"';
  }
  return out + "]";
}

}  // namespace

struct ServiceAccountTokens::Key {
  EVP_PKEY* pkey = nullptr;
  ~Key() { EVP_PKEY_free(pkey); }
};

ServiceAccountTokens::~ServiceAccountTokens() = default;

bool ServiceAccountTokens::LooksLikeJwt(std::string_view token) {
  return std::count(token.begin(), token.end(), '.') == 2;
}

Result<std::shared_ptr<ServiceAccountTokens>> ServiceAccountTokens::Open(
    const std::string& key_file, std::string issuer) {
  auto pem = ReadFileText(key_file);
  if (!pem.ok()) return Status::Internal("cannot read the service account key " + key_file);
  const std::string& text = *pem;
  BIO* bio = BIO_new_mem_buf(text.data(), static_cast<int>(text.size()));
  EVP_PKEY* pkey = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (pkey == nullptr) {
    return Status::Internal("the service account key " + key_file + " is not a PEM private key");
  }
  std::shared_ptr<ServiceAccountTokens> tokens(new ServiceAccountTokens());
  tokens->key_ = std::make_unique<Key>();
  tokens->key_->pkey = pkey;
  tokens->issuer_ = std::move(issuer);
  if (EVP_PKEY_get_bits(pkey) != 256 || EVP_PKEY_get_base_id(pkey) != EVP_PKEY_EC) {
    return Status::Internal("the service account key " + key_file + " is not an EC P-256 key");
  }
  unsigned char* der = nullptr;
  int n = i2d_PUBKEY(pkey, &der);
  if (n <= 0) return Status::Internal("cannot encode the service account public key");
  tokens->key_id_ = api::Base64UrlEncode(Sha256(std::string_view(reinterpret_cast<char*>(der), n)));
  OPENSSL_free(der);
  return tokens;
}

std::string ServiceAccountTokens::Sign(const ServiceAccountClaims& c) const {
  json header = {{"alg", "ES256"}, {"kid", key_id_}};
  json payload = {
      {"iss", issuer_},
      {"sub", "system:serviceaccount:" + c.namespace_ + ":" + c.name},
      {"aud", c.audiences},
      {"iat", c.issued_at},
      {"nbf", c.issued_at},
      {"exp", c.expires},
      {"jti", c.id},
      {"kubernetes.io",
       {{"namespace", c.namespace_}, {"serviceaccount", {{"name", c.name}, {"uid", c.uid}}}}}};
  std::string signing_input =
      api::Base64UrlEncode(header.dump()) + "." + api::Base64UrlEncode(payload.dump());
  // OpenSSL signs DER (r, s); JOSE wants r and s as two fixed-size big-endian numbers.
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  size_t der_size = 0;
  EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, key_->pkey);
  EVP_DigestSign(ctx, nullptr, &der_size,
                 reinterpret_cast<const unsigned char*>(signing_input.data()),
                 signing_input.size());
  std::string der(der_size, '\0');
  EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(der.data()), &der_size,
                 reinterpret_cast<const unsigned char*>(signing_input.data()),
                 signing_input.size());
  EVP_MD_CTX_free(ctx);
  const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
  ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der_size));
  std::string raw(2 * kCoordinateBytes, '\0');
  BN_bn2binpad(ECDSA_SIG_get0_r(sig), reinterpret_cast<unsigned char*>(raw.data()),
               kCoordinateBytes);
  BN_bn2binpad(ECDSA_SIG_get0_s(sig),
               reinterpret_cast<unsigned char*>(raw.data()) + kCoordinateBytes, kCoordinateBytes);
  ECDSA_SIG_free(sig);
  return signing_input + "." + api::Base64UrlEncode(raw);
}

Result<ServiceAccountClaims> ServiceAccountTokens::Verify(std::string_view token,
                                                          int64_t now) const {
  const size_t first = token.find('.');
  const size_t second = token.find('.', first + 1);
  if (first == std::string_view::npos || second == std::string_view::npos) {
    return Invalid("not a JWT");
  }
  auto header_bytes = api::Base64UrlDecode(token.substr(0, first));
  auto payload_bytes = api::Base64UrlDecode(token.substr(first + 1, second - first - 1));
  auto signature = api::Base64UrlDecode(token.substr(second + 1));
  if (!header_bytes || !payload_bytes || !signature) return Invalid("malformed JWT");
  json header = json::parse(*header_bytes, nullptr, false);
  json payload = json::parse(*payload_bytes, nullptr, false);
  if (!header.is_object() || !payload.is_object()) return Invalid("malformed JWT");
  // Claims are read with accessors that take any JSON: a field of another type is no value.
  using api::internal::StringAt;
  using api::internal::Sub;
  if (StringAt(header, "alg") != "ES256" || signature->size() != 2 * kCoordinateBytes) {
    return Invalid("invalid signature");
  }
  // The issuer first: a token of another issuer is not this authenticator's to judge.
  if (!payload["iss"].is_string() || payload["iss"] != issuer_) return Invalid("invalid issuer");

  ECDSA_SIG* sig = ECDSA_SIG_new();
  const auto* raw = reinterpret_cast<const unsigned char*>(signature->data());
  ECDSA_SIG_set0(sig, BN_bin2bn(raw, kCoordinateBytes, nullptr),
                 BN_bin2bn(raw + kCoordinateBytes, kCoordinateBytes, nullptr));
  unsigned char* der = nullptr;
  int der_size = i2d_ECDSA_SIG(sig, &der);
  ECDSA_SIG_free(sig);
  const std::string_view signing_input = token.substr(0, second);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool valid = der_size > 0 &&
               EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, key_->pkey) == 1 &&
               EVP_DigestVerify(ctx, der, static_cast<size_t>(der_size),
                                reinterpret_cast<const unsigned char*>(signing_input.data()),
                                signing_input.size()) == 1;
  EVP_MD_CTX_free(ctx);
  OPENSSL_free(der);
  if (!valid) return Invalid("invalid signature");

  ServiceAccountClaims c;
  const json& aud = payload["aud"];
  if (aud.is_string()) c.audiences.push_back(aud.get<std::string>());
  if (aud.is_array()) {
    for (const json& a : aud) {
      if (a.is_string()) c.audiences.push_back(a.get<std::string>());
    }
  }
  if (std::find(c.audiences.begin(), c.audiences.end(), issuer_) == c.audiences.end()) {
    return Invalid("token audiences " + QuotedList(c.audiences) +
                   " is invalid for the target audiences " + QuotedList({issuer_}));
  }
  auto number = [&](const char* key) {
    const json& v = payload[key];
    return v.is_number_integer() ? v.get<int64_t>() : int64_t{0};
  };
  c.issued_at = number("iat");
  c.expires = number("exp");
  const int64_t not_before = number("nbf");
  // kube allows a minute of clock skew each way.
  constexpr int64_t kLeeway = 60;
  if (c.expires == 0 || now > c.expires + kLeeway) {
    return Invalid("service account token has expired");
  }
  if (not_before != 0 && now < not_before - kLeeway) {
    return Invalid("service account token is not valid yet");
  }
  if (c.issued_at != 0 && now < c.issued_at - kLeeway) {
    return Invalid("service account token is issued in the future");
  }
  c.id = std::string(StringAt(payload, "jti"));
  const json& k8s = Sub(payload, "kubernetes.io");
  if (api::internal::Child(k8s, "serviceaccount") == nullptr ||
      !Sub(k8s, "serviceaccount").is_object()) {
    return Invalid("service account token claims are incomplete");
  }
  c.namespace_ = std::string(StringAt(k8s, "namespace"));
  c.name = std::string(StringAt(Sub(k8s, "serviceaccount"), "name"));
  c.uid = std::string(StringAt(Sub(k8s, "serviceaccount"), "uid"));
  if (c.namespace_.empty() || c.name.empty() ||
      StringAt(payload, "sub") != "system:serviceaccount:" + c.namespace_ + ":" + c.name) {
    return Invalid("service account token claims are incomplete");
  }
  return c;
}

}  // namespace tenure::server
