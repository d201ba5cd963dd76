// FieldError rendering and the Invalid Status, as k8s.io/apimachinery field.Error and
// errors.NewInvalid produce them.
#include <cstdio>
#include <set>

#include "api/validation.h"

namespace tenure::api {

std::string_view FieldError::type_name() const {
  switch (type) {
    case Type::kInvalid:
      return "FieldValueInvalid";
    case Type::kRequired:
      return "FieldValueRequired";
    case Type::kNotSupported:
      return "FieldValueNotSupported";
    case Type::kTooLong:
      return "FieldValueTooLong";
    case Type::kForbidden:
      return "FieldValueForbidden";
    case Type::kDuplicate:
      return "FieldValueDuplicate";
    case Type::kTooMany:
      return "FieldValueTooMany";
    case Type::kInternal:
      return "InternalError";
  }
  return "FieldValueInvalid";
}

std::string FieldError::Body() const {
  std::string s;
  switch (type) {
    case Type::kInvalid:
      s = "Invalid value";
      break;
    case Type::kRequired:
      s = "Required value";
      break;
    case Type::kNotSupported:
      s = "Unsupported value";
      break;
    case Type::kTooLong:
      s = "Too long";
      break;
    case Type::kForbidden:
      s = "Forbidden";
      break;
    case Type::kDuplicate:
      s = "Duplicate value";
      break;
    case Type::kTooMany:
      s = "Too many";
      break;
    case Type::kInternal:
      s = "Internal error";
      break;
  }
  const bool shows_value = type != Type::kRequired && type != Type::kForbidden &&
                           type != Type::kTooLong && type != Type::kInternal;
  if (shows_value) {
    s += ": ";
    s += value.value_or("null");
  }
  if (!detail.empty()) {
    s += ": ";
    s += detail;
  }
  return s;
}

std::string FieldError::ToString() const { return field + ": " + Body(); }

std::string GoStringSlice(const std::vector<std::string>& v) {
  std::string out = "[]string{";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    out += GoQuote(v[i]);
  }
  out += "}";
  return out;
}

FieldError Invalid(std::string field, std::string_view value, std::string detail) {
  return {FieldError::Type::kInvalid, std::move(field), GoQuote(value), std::move(detail)};
}

FieldError Invalid(std::string field, int64_t value, std::string detail) {
  return {FieldError::Type::kInvalid, std::move(field), std::to_string(value), std::move(detail)};
}

FieldError InvalidRaw(std::string field, std::string raw_value, std::string detail) {
  return {FieldError::Type::kInvalid, std::move(field), std::move(raw_value), std::move(detail)};
}

FieldError Required(std::string field, std::string detail) {
  return {FieldError::Type::kRequired, std::move(field), "\"\"", std::move(detail)};
}

FieldError Forbidden(std::string field, std::string detail) {
  return {FieldError::Type::kForbidden, std::move(field), "\"\"", std::move(detail)};
}

FieldError NotSupported(std::string field, std::string_view value,
                        const std::vector<std::string_view>& supported) {
  std::string detail;
  if (!supported.empty()) {
    detail = "supported values: ";
    for (size_t i = 0; i < supported.size(); ++i) {
      if (i) detail += ", ";
      detail += GoQuote(supported[i]);
    }
  }
  return {FieldError::Type::kNotSupported, std::move(field), GoQuote(value), std::move(detail)};
}

FieldError Duplicate(std::string field, std::string_view value) {
  return {FieldError::Type::kDuplicate, std::move(field), GoQuote(value), ""};
}

FieldError TooLong(std::string field, int64_t max_bytes) {
  return {
      FieldError::Type::kTooLong, std::move(field), std::nullopt,
      "may not be more than " + std::to_string(max_bytes) + (max_bytes == 1 ? " byte" : " bytes")};
}

Status InvalidStatus(std::string_view qualified_kind, std::string_view name,
                     const FieldErrors& errors) {
  if (errors.empty()) return Status::Ok();
  std::vector<StatusCause> causes;
  std::vector<std::string> messages;
  std::set<std::string> seen_messages;
  for (const auto& e : errors) {
    StatusCause cause{std::string(e.type_name()), e.Body(), e.field};
    bool duplicate_cause = false;
    for (const auto& c : causes) {
      if (c == cause) {
        duplicate_cause = true;
        break;
      }
    }
    if (!duplicate_cause) causes.push_back(std::move(cause));
    std::string msg = e.ToString();
    if (seen_messages.insert(msg).second) messages.push_back(std::move(msg));
  }
  std::string message(qualified_kind);
  message += ' ';
  message += GoQuote(name);
  message += " is invalid: ";
  if (messages.size() == 1) {
    message += messages[0];
  } else {
    message += '[';
    for (size_t i = 0; i < messages.size(); ++i) {
      if (i) message += ", ";
      message += messages[i];
    }
    message += ']';
  }
  return Status(Reason::kInvalid, std::move(message), std::move(causes));
}

}  // namespace tenure::api
