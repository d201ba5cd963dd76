// StackThread: a joinable thread whose stack has a size chosen here, whatever RLIMIT_STACK says
// (std::thread takes the process default, which a container may set low). The HTTP server's
// threads are these: request handlers recurse over client JSON up to api::kMaxJsonNesting
// levels (patches, canonicalization, comparison, serialization), a few hundred bytes per level.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <functional>
#include <memory>

namespace tenure::server {

// A request handler's stack: 10,000 levels of the deepest recursion (strategic merge, about
// 400 bytes a level) need about 4 MiB; this leaves a margin of eight. Only the pages a thread
// touches are committed.
inline constexpr size_t kHandlerStackBytes = size_t{32} << 20;

class StackThread {
 public:
  // Starts `body` on a new thread with a stack of `stack_bytes`; throws std::system_error when
  // the thread cannot be created (as std::thread does).
  StackThread(size_t stack_bytes, std::function<void()> body);
  StackThread(StackThread&& other) noexcept;
  StackThread& operator=(StackThread&& other) noexcept;
  // The thread must have been joined.
  ~StackThread();

  bool joinable() const { return joinable_; }
  void join();

 private:
  pthread_t thread_{};
  bool joinable_ = false;
};

}  // namespace tenure::server
