// TokenRequestApi: POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token, as kube-apiserver's
// TokenRequest REST (`kubectl create token NAME [--duration D] [--audience A]`): a name or
// namespace in the body must be the URL's, the ServiceAccount must exist (404), expirationSeconds
// defaults to 3600 and must lie within [600, 2^32], audiences default to the server's. The answer
// is 201 with the TokenRequest, status.token a signed JWT (service_account_token.h) and
// status.expirationTimestamp when it stops being accepted. Tokens cannot be bound to objects here:
// tenure serves no Pods, Secrets or Nodes, so a boundObjectRef is 404 for those kinds and 400 for
// others, as kube answers for an object that does not exist or a kind it cannot bind.
#pragma once

#include <memory>

#include "server/auth_cache.h"
#include "server/http_server.h"
#include "server/request_info.h"
#include "server/service_account_token.h"
#include "tenure/clock.h"

namespace tenure::server {

class TokenRequestApi {
 public:
  // Either pointer null: the subresource is not served (404).
  TokenRequestApi(std::shared_ptr<const ServiceAccountTokens> tokens,
                  std::shared_ptr<AuthCache> accounts, std::shared_ptr<Clock> clock);

  void Handle(const RequestInfo& info, const HttpRequest& request, Responder& responder) const;

 private:
  std::shared_ptr<const ServiceAccountTokens> tokens_;
  std::shared_ptr<AuthCache> accounts_;
  std::shared_ptr<Clock> clock_;
};

}  // namespace tenure::server
