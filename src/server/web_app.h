// WebApp: a browser application the API server serves under a path of its own (the dashboard),
// behind the server's authentication and authorization.
//
// A request under prefix() reaches Handle once its sender is authenticated and RBAC allows the
// non-resource request (nonResourceURLs such as "/dashboard/*", verb get). One with no
// credentials, or with credentials the server does not know, reaches HandleUnauthenticated
// instead (a login page; anything else must be refused). A browser cannot put a bearer token in
// the header of a page load: for paths under prefix() only, the token may come in the cookie
// token_cookie() (other paths ignore it, so the cookie cannot act for a page elsewhere).
#pragma once

#include <memory>
#include <string>

#include "server/http_server.h"

namespace tenure::server {

class WebApp : public HttpHandler {
 public:
  // "/dashboard": the app's own path and everything below it.
  virtual const std::string& prefix() const = 0;
  virtual const std::string& token_cookie() const = 0;
  // `refused`: credentials came and were not accepted (else none came).
  virtual void HandleUnauthenticated(HttpRequest request, std::shared_ptr<Responder> responder,
                                     bool refused) = 0;
  HttpResponse Reject(const Status& status) override;
};

// Whether `path` is `prefix` or below it ("/dashboard", "/dashboard/x"; not "/dashboards").
bool PathUnder(const std::string& path, const std::string& prefix);

// The value of cookie `name` in a Cookie header ("a=1; b=2"), or "".
std::string CookieValue(const std::string& cookie_header, const std::string& name);

}  // namespace tenure::server
