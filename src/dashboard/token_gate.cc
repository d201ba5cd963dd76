// TokenGate: one access token in front of a WebApp.
#include "dashboard/token_gate.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "api/url.h"
#include "server/response_format.h"

namespace tenure::dashboard {

TokenGate::TokenGate(std::shared_ptr<server::WebApp> app, std::string token)
    : app_(std::move(app)), token_(std::move(token)) {}

server::HttpResponse TokenGate::Reject(const Status& status) { return app_->Reject(status); }

void TokenGate::Handle(server::HttpRequest request, std::shared_ptr<server::Responder> responder) {
  if (!server::PathUnder(request.path, app_->prefix())) {
    if (request.path == "/") {
      server::HttpResponse r = server::TextResponse(302, "");
      r.headers.emplace_back("location", app_->prefix() + "/");
      return responder->Reply(std::move(r));
    }
    return responder->Reply(server::ErrorResponse(Status::NotFound("not found")));
  }
  std::string given;
  const std::string authorization = request.header("authorization");
  if (authorization.rfind("Bearer ", 0) == 0) {
    given = authorization.substr(7);
  } else {
    given = api::PercentDecode(server::CookieValue(request.header("cookie"), app_->token_cookie()));
  }
  if (given.empty())
    return app_->HandleUnauthenticated(std::move(request), std::move(responder), false);
  const bool same = given.size() == token_.size() &&
                    CRYPTO_memcmp(given.data(), token_.data(), token_.size()) == 0;
  if (!same) return app_->HandleUnauthenticated(std::move(request), std::move(responder), true);
  app_->Handle(std::move(request), std::move(responder));
}

Result<std::string> NewAccessToken() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return Status::Internal("no random bytes for a token");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

}  // namespace tenure::dashboard
