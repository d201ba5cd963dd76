// ServiceAccountTokens: the tokens the TokenRequest API issues, as kube-apiserver's: JWTs signed
// ES256 with the server's service-account key (its "kid" the unpadded base64url SHA-256 of the
// public key's PKIX DER), with the claims iss, sub ("system:serviceaccount:<ns>:<name>"), aud,
// iat, nbf, exp, jti and kubernetes.io {namespace, serviceaccount {name, uid}}.
//
// Verify checks the signature, the issuer, that the audiences meet the server's, and the times,
// with kube's messages; whether the account still exists with that uid is the authenticator's
// part. Immutable after Open: thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tenure/status.h"

namespace tenure::server {

struct ServiceAccountClaims {
  std::string namespace_;
  std::string name;
  std::string uid;  // the ServiceAccount's
  std::vector<std::string> audiences;
  int64_t issued_at = 0;  // seconds since the epoch; also nbf
  int64_t expires = 0;
  std::string id;  // jti
};

class ServiceAccountTokens {
 public:
  // The issuer (and so the API audience) of tokens kube-apiserver issues by default.
  static constexpr std::string_view kDefaultIssuer = "https://kubernetes.default.svc.cluster.local";

  // Reads the PEM private key (EC P-256) at `key_file`.
  static Result<std::shared_ptr<ServiceAccountTokens>> Open(const std::string& key_file,
                                                            std::string issuer);
  ~ServiceAccountTokens();

  const std::string& issuer() const { return issuer_; }
  std::string Sign(const ServiceAccountClaims& claims) const;
  // The claims of a token this server signed, valid at `now` (seconds since the epoch);
  // Unauthorized with kube's reason otherwise ("service account token has expired", "token
  // audiences [...] is invalid for the target audiences [...]", ...).
  Result<ServiceAccountClaims> Verify(std::string_view token, int64_t now) const;

  // Whether `token` has a JWT's shape (three base64url parts): only such tokens are checked
  // here, others go to the other authenticators.
  static bool LooksLikeJwt(std::string_view token);

 private:
  ServiceAccountTokens() = default;
  struct Key;
  std::unique_ptr<Key> key_;
  std::string issuer_;
  std::string key_id_;
};

}  // namespace tenure::server
