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

std::string GoQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  char buf[16];
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\a':
          out += "\\a";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\v':
          out += "\\v";
          break;
        default:
          if (c < 0x20 || c == 0x7f) {
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // Decode one UTF-8 sequence; invalid bytes print as \xNN like Go.
    size_t len = 0;
    uint32_t r = 0;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      r = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      r = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      r = c & 0x07;
    }
    bool ok = len != 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) {
      const unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) ok = false;
      r = (r << 6) | (cc & 0x3F);
    }
    if (ok) {
      static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
      if (r < kMin[len] || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) ok = false;
    }
    if (!ok) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      ++i;
      continue;
    }
    if (r < 0xA0) {
      std::snprintf(buf, sizeof buf, "\\u%04x", r);
      out += buf;
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  out += '"';
  return out;
}

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
