// Status: the one error type of tenure, shared by the library, the store and the server.
//
// A Status is either OK or carries a Kubernetes reason (NotFound, Conflict, Invalid, ...), a
// human message and, for Invalid, one cause per offending field. The server turns a Status into
// a Kubernetes Status object 1:1; the client turns a Status object back into the same Status, so
// code on both sides of the wire tests `status.reason()` the same way.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace tenure {

enum class Reason {
  kOk,
  kNotFound,               // 404
  kAlreadyExists,          // 409
  kConflict,               // 409
  kInvalid,                // 422
  kBadRequest,             // 400
  kUnauthorized,           // 401
  kForbidden,              // 403
  kMethodNotAllowed,       // 405
  kNotAcceptable,          // 406
  kGone,                   // 410, reason "Expired": a resourceVersion older than the kept history
  kRequestEntityTooLarge,  // 413
  kUnsupportedMediaType,   // 415
  kTooManyRequests,        // 429
  kInternalError,          // 500
  kServiceUnavailable,     // 503: also "could not reach the server"
  kTimeout,                // 504
  kUnknown,                // 500 without a reason: an error kube-apiserver passes on as it is
};

// One invalid field, as in metav1.StatusCause.
struct StatusCause {
  std::string type;     // e.g. "FieldValueInvalid", "FieldValueRequired"
  std::string message;  // e.g. "Invalid value: -1: must be greater than 0"
  std::string field;    // e.g. "spec.leaseDurationSeconds"
  bool operator==(const StatusCause&) const = default;
};

// Which object an error is about, as metav1.StatusDetails (kind is the resource, e.g. "leases",
// except for Invalid where it is the kind, e.g. "Lease"; this follows kube-apiserver).
struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;
  std::string uid;
  int retry_after_seconds = 0;
  bool operator==(const StatusDetails&) const = default;
};

class Status {
 public:
  Status() = default;  // OK
  Status(Reason reason, std::string message, std::vector<StatusCause> causes = {})
      : reason_(reason), message_(std::move(message)), causes_(std::move(causes)) {}

  static Status Ok() { return Status(); }
  static Status NotFound(std::string m) { return {Reason::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {Reason::kAlreadyExists, std::move(m)}; }
  static Status Conflict(std::string m) { return {Reason::kConflict, std::move(m)}; }
  static Status BadRequest(std::string m) { return {Reason::kBadRequest, std::move(m)}; }
  static Status Gone(std::string m) { return {Reason::kGone, std::move(m)}; }
  static Status Internal(std::string m) { return {Reason::kInternalError, std::move(m)}; }
  static Status Unavailable(std::string m) { return {Reason::kServiceUnavailable, std::move(m)}; }
  static Status Timeout(std::string m) { return {Reason::kTimeout, std::move(m)}; }

  bool ok() const { return reason_ == Reason::kOk; }
  Reason reason() const { return reason_; }
  const std::string& message() const { return message_; }
  const std::vector<StatusCause>& causes() const { return causes_; }
  const StatusDetails& details() const { return details_; }
  Status& set_details(StatusDetails details) {
    details_ = std::move(details);
    return *this;
  }

  // metav1.Status's metadata.continue: on a list's 410 for an expired continue token, the token
  // that resumes the list from the same key at the latest revision (inconsistently).
  const std::string& list_continue() const { return list_continue_; }
  Status& set_list_continue(std::string token) {
    list_continue_ = std::move(token);
    return *this;
  }

  bool IsNotFound() const { return reason_ == Reason::kNotFound; }
  bool IsConflict() const { return reason_ == Reason::kConflict; }
  bool IsAlreadyExists() const { return reason_ == Reason::kAlreadyExists; }
  bool IsGone() const { return reason_ == Reason::kGone; }

  // HTTP status code of the reason (200 for OK).
  int code() const;
  // Kubernetes reason string ("NotFound", "Expired", ...; "" for OK).
  std::string_view reason_name() const;
  // "NotFound: leases.coordination.k8s.io \"x\" not found"
  std::string ToString() const;

  static Reason ReasonFromName(std::string_view name, int code);

 private:
  Reason reason_ = Reason::kOk;
  std::string message_;
  std::vector<StatusCause> causes_;
  StatusDetails details_;
  std::string list_continue_;
};

// Thrown by Result::value() (and operator* and ->) on a Result holding an error: reading a value
// that is not there fails loudly, with the Status' message, instead of being undefined
// behaviour. Uncaught, the program terminates and prints what().
class BadResultAccess : public std::exception {
 public:
  explicit BadResultAccess(Status status);
  const char* what() const noexcept override { return what_.c_str(); }
  const Status& status() const { return status_; }

 private:
  Status status_;
  std::string what_;
};

// A value or the Status explaining why there is none. Test ok() first; value() on an error
// throws BadResultAccess naming the Status (never undefined behaviour).
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  // A Result made from an OK Status holds an Internal error: an OK result needs a value.
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    if (status_.ok()) status_ = Status::Internal("Result made from an OK Status without a value");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return Checked(); }
  const T& value() const& { return Checked(); }
  T&& value() && { return std::move(Checked()); }
  // The value, or `fallback` on an error.
  T value_or(T fallback) const& { return ok() ? *value_ : std::move(fallback); }
  T value_or(T fallback) && { return ok() ? std::move(*value_) : std::move(fallback); }
  T* operator->() { return &Checked(); }
  const T* operator->() const { return &Checked(); }
  T& operator*() & { return Checked(); }
  const T& operator*() const& { return Checked(); }
  T&& operator*() && { return std::move(Checked()); }

 private:
  T& Checked() {
    if (!value_) throw BadResultAccess(status_);
    return *value_;
  }
  const T& Checked() const {
    if (!value_) throw BadResultAccess(status_);
    return *value_;
  }

  Status status_;
  std::optional<T> value_;
};

}  // namespace tenure
