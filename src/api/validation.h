// Field errors as kube-apiserver reports them (k8s.io/apimachinery field.ErrorList), and the
// name/label checks of k8s.io/apimachinery/pkg/util/validation with their exact messages.
//
// A FieldError renders like field.Error.ErrorBody(): 'Invalid value: -1: must be greater than 0',
// 'Required value', 'Unsupported value: "x": supported values: "A", "B"'. InvalidStatus() builds
// the Invalid Status kube-apiserver returns, including its message form for several errors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/go_quote.h"
#include "tenure/status.h"

namespace tenure::api {

struct FieldError {
  enum class Type {
    kInvalid,
    kRequired,
    kNotSupported,
    kTooLong,
    kForbidden,
    kDuplicate,
    kTooMany,
    kInternal
  };
  Type type = Type::kInvalid;
  std::string field;                 // "spec.leaseDurationSeconds"
  std::optional<std::string> value;  // the bad value as Go prints it: -1, "abc" (quoted)
  std::string detail;

  // "FieldValueInvalid", ...
  std::string_view type_name() const;
  // 'Invalid value: -1: must be greater than 0'
  std::string Body() const;
  // 'spec.leaseDurationSeconds: Invalid value: -1: must be greater than 0'
  std::string ToString() const;
  bool operator==(const FieldError&) const = default;
};
using FieldErrors = std::vector<FieldError>;

// Go's %q of a string: "a\"b\n" (core/go_quote.h).
using ::tenure::GoQuote;
// Go's %#v of a []string: []string{"a", "b"}.
std::string GoStringSlice(const std::vector<std::string>& v);

FieldError Invalid(std::string field, std::string_view value, std::string detail);
FieldError Invalid(std::string field, int64_t value, std::string detail);
// `raw_value` is printed as is.
FieldError InvalidRaw(std::string field, std::string raw_value, std::string detail);
FieldError Required(std::string field, std::string detail = "");
FieldError Forbidden(std::string field, std::string detail);
FieldError NotSupported(std::string field, std::string_view value,
                        const std::vector<std::string_view>& supported);
FieldError Duplicate(std::string field, std::string_view value);
// "Too long: may not be more than <max> bytes".
FieldError TooLong(std::string field, int64_t max_bytes);

// Status Invalid as errors.NewInvalid: message '<qualifiedKind> "<name>" is invalid: <e1>' or
// '... is invalid: [<e1>, <e2>]' (duplicates removed), one cause per distinct error. OK if empty.
Status InvalidStatus(std::string_view qualified_kind, std::string_view name,
                     const FieldErrors& errors);

// util/validation checks: each returns the list of problems (empty when valid).
std::vector<std::string> IsDNS1123Label(std::string_view value);
std::vector<std::string> IsDNS1123Subdomain(std::string_view value);
std::vector<std::string> IsQualifiedName(std::string_view value);
std::vector<std::string> IsValidLabelValue(std::string_view value);
std::vector<std::string> IsConfigMapKey(std::string_view value);
std::vector<std::string> IsValidPathSegmentName(std::string_view value);

// Strict semantic version (github.com/blang/semver Parse): MAJOR.MINOR.PATCH[-pre][+build],
// no leading zeros, no "v".
struct SemVer {
  uint64_t major = 0, minor = 0, patch = 0;
  std::vector<std::string> pre;
  std::vector<std::string> build;
  // <0, 0, >0 like blang's Compare (build metadata ignored).
  int Compare(const SemVer& other) const;
};
std::optional<SemVer> ParseSemVer(std::string_view text);

}  // namespace tenure::api
