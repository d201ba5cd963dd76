// Task: the coroutine type of the election loop. A Task starts when it is awaited and resumes
// its awaiter when it returns (symmetric transfer, so chains of awaits do not grow the stack).
// A Task that never suspends (every await completed at once) runs to its end inside the first
// resume, on the caller's thread: that is how Elector::Run executes the same code as a pool.
// Detach() starts a Task that nobody awaits and calls `done` on whatever thread finishes it.
#pragma once

#include <coroutine>
#include <exception>
#include <functional>
#include <optional>
#include <utility>

namespace tenure::election {

template <typename T>
class Task;

namespace internal {

// Resumes the awaiter when a Task ends (nothing when none).
struct ResumeAwaiter {
  bool await_ready() const noexcept { return false; }
  template <typename Promise>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> done) noexcept {
    std::coroutine_handle<> next = done.promise().awaiter;
    return next ? next : std::noop_coroutine();
  }
  void await_resume() const noexcept {}
};

struct PromiseBase {
  std::coroutine_handle<> awaiter;
  std::exception_ptr error;
  std::suspend_always initial_suspend() const noexcept { return {}; }
  ResumeAwaiter final_suspend() const noexcept { return {}; }
  void unhandled_exception() noexcept { error = std::current_exception(); }
  void Rethrow() const {
    if (error) std::rethrow_exception(error);
  }
};

template <typename T>
struct Promise : PromiseBase {
  std::optional<T> value;
  Task<T> get_return_object() noexcept;
  void return_value(T v) { value.emplace(std::move(v)); }
  T Take() {
    Rethrow();
    return std::move(*value);
  }
};

template <>
struct Promise<void> : PromiseBase {
  Task<void> get_return_object() noexcept;
  void return_void() const noexcept {}
  void Take() const { Rethrow(); }
};

}  // namespace internal

template <typename T = void>
class [[nodiscard]] Task {
 public:
  using promise_type = internal::Promise<T>;

  explicit Task(std::coroutine_handle<promise_type> handle) : handle_(handle) {}
  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&&) = delete;
  Task(const Task&) = delete;
  ~Task() {
    if (handle_) handle_.destroy();
  }

  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiter) noexcept {
    handle_.promise().awaiter = awaiter;
    return handle_;
  }
  T await_resume() { return handle_.promise().Take(); }

  // Runs the task on this thread until it ends or first suspends; true when it ended (then
  // Result() gives its value, or throws what it threw).
  bool RunHere() {
    handle_.resume();
    return handle_.done();
  }
  T Result() { return handle_.promise().Take(); }

 private:
  std::coroutine_handle<promise_type> handle_;
};

namespace internal {

template <typename T>
Task<T> Promise<T>::get_return_object() noexcept {
  return Task<T>(std::coroutine_handle<Promise<T>>::from_promise(*this));
}

inline Task<void> Promise<void>::get_return_object() noexcept {
  return Task<void>(std::coroutine_handle<Promise<void>>::from_promise(*this));
}

// A coroutine nobody awaits: it waits to be resumed once, then frees itself at its end.
struct Detached {
  struct promise_type {
    Detached get_return_object() noexcept {
      return Detached{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() const noexcept { return {}; }
    std::suspend_never final_suspend() const noexcept { return {}; }
    void return_void() const noexcept {}
    // The election loop catches nothing: an exception escaping it ends the process, as one
    // escaping a thread's function would.
    void unhandled_exception() const noexcept { std::terminate(); }
  };
  std::coroutine_handle<promise_type> handle;
};

inline Detached AwaitThen(Task<void> task, std::function<void()> done) {
  {
    // The task's frame is freed before `done`: once told, the caller may free what it used.
    Task<void> own = std::move(task);
    co_await own;
  }
  done();
}

}  // namespace internal

// Returns the handle that starts `task` when resumed; `done` runs after the task's end, on the
// thread that ran its last step.
inline std::coroutine_handle<> Detach(Task<void> task, std::function<void()> done) {
  return internal::AwaitThen(std::move(task), std::move(done)).handle;
}

}  // namespace tenure::election
