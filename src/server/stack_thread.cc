// StackThread: pthread_create with an explicit stack size.
#include "server/stack_thread.h"

#include <exception>
#include <system_error>
#include <utility>

namespace tenure::server {
namespace {

void* RunBody(void* arg) {
  std::unique_ptr<std::function<void()>> body(static_cast<std::function<void()>*>(arg));
  (*body)();
  return nullptr;
}

}  // namespace

StackThread::StackThread(size_t stack_bytes, std::function<void()> body) {
  auto owned = std::make_unique<std::function<void()>>(std::move(body));
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  int rc = pthread_attr_setstacksize(&attr, stack_bytes);
  if (rc == 0) rc = pthread_create(&thread_, &attr, &RunBody, owned.get());
  pthread_attr_destroy(&attr);
  if (rc != 0) throw std::system_error(rc, std::generic_category(), "cannot start a thread");
  owned.release();  // RunBody owns it now
  joinable_ = true;
}

StackThread::StackThread(StackThread&& other) noexcept
    : thread_(other.thread_), joinable_(std::exchange(other.joinable_, false)) {}

StackThread& StackThread::operator=(StackThread&& other) noexcept {
  if (this != &other) {
    if (joinable_) std::terminate();  // as std::thread: a running thread must be joined first
    thread_ = other.thread_;
    joinable_ = std::exchange(other.joinable_, false);
  }
  return *this;
}

StackThread::~StackThread() {
  if (joinable_) std::terminate();
}

void StackThread::join() {
  if (!joinable_) return;
  pthread_join(thread_, nullptr);
  joinable_ = false;
}

}  // namespace tenure::server
