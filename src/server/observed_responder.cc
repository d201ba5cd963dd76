// Observed: the Responder decorator that lets a ResponseObserver see each answer.
#include "server/observed_responder.h"

namespace tenure::server {
namespace {

class ObservedResponder final : public Responder {
 public:
  ObservedResponder(std::shared_ptr<Responder> inner, std::shared_ptr<ResponseObserver> observer)
      : inner_(std::move(inner)), observer_(std::move(observer)) {}
  void Reply(HttpResponse response) override {
    observer_->Replied(response);
    inner_->Reply(std::move(response));
  }
  void ReplyWith(std::function<HttpResponse()> make) override {
    inner_->ReplyWith([make = std::move(make), observer = observer_] {
      HttpResponse response = make();
      observer->Replied(response);
      return response;
    });
  }
  void Post(std::function<void()> work) override { inner_->Post(std::move(work)); }
  void OnAnswered(std::function<void(int status)> answered) override {
    inner_->OnAnswered(std::move(answered));
  }
  std::shared_ptr<ResponseStream> Stream(int status, std::string content_type,
                                         std::chrono::steady_clock::time_point deadline,
                                         std::chrono::milliseconds idle_interval,
                                         std::function<void()> idle) override {
    auto stream =
        inner_->Stream(status, std::move(content_type), deadline, idle_interval, std::move(idle));
    return observer_->Streamed(status, std::move(stream));
  }

 private:
  std::shared_ptr<Responder> inner_;
  std::shared_ptr<ResponseObserver> observer_;
};

}  // namespace

std::shared_ptr<Responder> Observed(std::shared_ptr<Responder> inner,
                                    std::shared_ptr<ResponseObserver> observer) {
  return std::make_shared<ObservedResponder>(std::move(inner), std::move(observer));
}

}  // namespace tenure::server
