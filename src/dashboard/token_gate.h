// TokenGate: the front door of a WebApp served outside the API server (`tenure dashboard`):
// one access token, made at start or read from a file, admits a browser (in the app's cookie
// or an Authorization header); everything else reaches the app's HandleUnauthenticated. The
// server's root redirects to the app.
#pragma once

#include <memory>
#include <string>

#include "server/web_app.h"

namespace tenure::dashboard {

class TokenGate final : public server::HttpHandler {
 public:
  TokenGate(std::shared_ptr<server::WebApp> app, std::string token);
  void Handle(server::HttpRequest request, std::shared_ptr<server::Responder> responder) override;
  server::HttpResponse Reject(const Status& status) override;

 private:
  std::shared_ptr<server::WebApp> app_;
  std::string token_;
};

// 32 random bytes as 64 hex digits (from the system's random source).
Result<std::string> NewAccessToken();

}  // namespace tenure::dashboard
