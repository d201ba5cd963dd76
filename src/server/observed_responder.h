// ObservedResponder: a Responder that shows what a request is answered with to an observer,
// then passes it on. The audit log and the request counters both watch answers this way.
#pragma once

#include <memory>

#include "server/http_server.h"

namespace tenure::server {

class ResponseObserver {
 public:
  virtual ~ResponseObserver() = default;
  // A whole response, on the thread that builds it (for ReplyWith, the connection's).
  virtual void Replied(const HttpResponse& response) = 0;
  // A stream starts with `status`; what is returned is written to (the stream itself, or a
  // wrapper that sees its end).
  virtual std::shared_ptr<ResponseStream> Streamed(int status,
                                                   std::shared_ptr<ResponseStream> stream) = 0;
};

// `inner` with `observer` seeing its answer; the observer is kept as long as the responder.
std::shared_ptr<Responder> Observed(std::shared_ptr<Responder> inner,
                                    std::shared_ptr<ResponseObserver> observer);

}  // namespace tenure::server
