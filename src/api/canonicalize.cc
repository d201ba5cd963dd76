// Canonicalize: kube-apiserver's decoding and re-encoding of an object, driven by its description.
#include "api/canonicalize.h"

#include <algorithm>
#include <limits>

#include "api/canonical_json.h"
#include "api/description.h"
#include "api/kinds.h"
#include "api/time.h"
#include "api/validation.h"

namespace tenure::api {
namespace internal {
namespace {

using nlohmann::json;

// Go's name for a JSON value in "cannot unmarshal X into ...".
std::string JsonWhat(const json& v, bool numeric_target) {
  switch (v.type()) {
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "bool";
    case json::value_t::array:
      return "array";
    case json::value_t::object:
      return "object";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return numeric_target ? "number " + v.dump() : "number";
    default:
      return "null";
  }
}

// Strips "[n]" segments: Go names the field path without list indices in type errors.
std::string WithoutIndices(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  bool in_index = false;
  for (char c : path) {
    if (c == '[') in_index = true;
    if (!in_index) out += c;
    if (c == ']') in_index = false;
  }
  return out;
}

bool IsBase64(std::string_view s, std::string& cleaned) {
  cleaned.clear();
  cleaned.reserve(s.size());
  for (char c : s) {
    if (c == '\r' || c == '\n') continue;  // Go's decoder skips newlines
    cleaned += c;
  }
  if (cleaned.size() % 4 != 0) return false;
  for (size_t i = 0; i < cleaned.size(); ++i) {
    const char c = cleaned[i];
    const bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                       c == '+' || c == '/';
    if (alpha) continue;
    if (c == '=' && i + 2 >= cleaned.size()) {
      if (i + 1 < cleaned.size() && cleaned[i + 1] != '=') return false;
      continue;
    }
    return false;
  }
  return true;
}

size_t FirstBadBase64Byte(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '+' || c == '/';
    if (!ok) return i;
  }
  return s.size();
}

class Decoder {
 public:
  // `collect`: note the unknown fields (strict decoding fails on them; Warn reports them).
  explicit Decoder(bool collect) : collect_(collect) {}

  bool Object(const ObjectDescription& schema, const json& in, json& out) {
    out = json::object();
    for (auto it = in.begin(); it != in.end(); ++it) {
      const FieldDescription* f = schema.Find(it.key());
      if (f == nullptr) {
        if (collect_) unknown_.push_back(Join(it.key()));
        continue;
      }
      if (it->is_null()) continue;  // null means unset
      const size_t mark = path_.size();
      if (!path_.empty()) path_ += '.';
      path_ += it.key();
      json value;
      const bool ok = Field(schema, *f, *it, value);
      path_.resize(mark);
      if (!ok) return false;
      if (Emitted(*f, value)) out[it.key()] = std::move(value);
    }
    for (const auto& f : schema.fields) {
      if (f.emit == Emit::kAlways && !out.contains(f.name)) out[std::string(f.name)] = ZeroValue(f);
    }
    return true;
  }

  const std::string& error() const { return error_; }
  const std::vector<std::string>& unknown() const { return unknown_; }

 private:
  std::string Join(std::string_view key) const {
    if (path_.empty()) return std::string(key);
    std::string out = path_;
    out += '.';
    out += key;
    return out;
  }

  bool TypeError(const ObjectDescription& parent, const json& v, std::string_view go_type,
                 bool numeric_target) {
    error_ = "json: cannot unmarshal " + JsonWhat(v, numeric_target) + " into Go struct field " +
             std::string(parent.go_name) + "." + WithoutIndices(path_) + " of type " +
             std::string(go_type);
    return false;
  }

  bool Integer(const ObjectDescription& parent, const FieldDescription& f, const json& v,
               int64_t lo, int64_t hi, json& out) {
    if (v.is_number_integer()) {
      const int64_t x = v.get<int64_t>();
      if (x < lo || x > hi) return TypeError(parent, v, f.go_type, true);
      out = x;
      return true;
    }
    if (v.is_number_unsigned()) {
      const uint64_t x = v.get<uint64_t>();
      if (x > static_cast<uint64_t>(hi)) return TypeError(parent, v, f.go_type, true);
      out = static_cast<int64_t>(x);
      return true;
    }
    return TypeError(parent, v, f.go_type, v.is_number());
  }

  bool Time(const ObjectDescription& parent, const FieldDescription& f, const json& v, bool micro,
            json& out) {
    if (!v.is_string()) return TypeError(parent, v, f.go_type, false);
    const std::string& s = v.get_ref<const std::string&>();
    // Kept as sent, in UTC: every year 0000-9999 (a Timestamp would wrap outside 1677-2262).
    auto t = ParseWideTime(s);
    if (!t) {
      error_ = "parsing time " + GoQuote(s) + " as " +
               (micro ? "\"2006-01-02T15:04:05.000000Z07:00\"" : "\"2006-01-02T15:04:05Z07:00\"") +
               ": not an RFC 3339 time";
      return false;
    }
    if (t->year() < 0 || t->year() > 9999) {
      // Go's encoder refuses such a time: kube-apiserver cannot store it either.
      error_ = "parsing time " + GoQuote(s) + ": year outside of range [0,9999] in UTC";
      return false;
    }
    out = FormatWideTime(*t, micro);
    return true;
  }

  // Decodes the value `v` of field `f` into `out` (dropped fields: only type-checked).
  bool Field(const ObjectDescription& parent, const FieldDescription& f, const json& v, json& out) {
    switch (f.type) {
      case FieldType::kString:
        if (!v.is_string()) return TypeError(parent, v, f.go_type, false);
        out = v;
        return true;
      case FieldType::kDroppedString:
        if (!v.is_string()) return TypeError(parent, v, f.go_type, false);
        return true;
      case FieldType::kInt32:
        return Integer(parent, f, v, std::numeric_limits<int32_t>::min(),
                       std::numeric_limits<int32_t>::max(), out);
      case FieldType::kInt64:
        return Integer(parent, f, v, std::numeric_limits<int64_t>::min(),
                       std::numeric_limits<int64_t>::max(), out);
      case FieldType::kBool:
        if (!v.is_boolean()) return TypeError(parent, v, f.go_type, false);
        out = v;
        return true;
      case FieldType::kMicroTime:
      case FieldType::kTime:
        return Time(parent, f, v, f.type == FieldType::kMicroTime, out);
      case FieldType::kStringMap:
      case FieldType::kBytesMap: {
        if (!v.is_object()) return TypeError(parent, v, f.go_type, false);
        out = json::object();
        std::string cleaned;
        for (auto it = v.begin(); it != v.end(); ++it) {
          if (it->is_null()) {
            out[it.key()] = "";
            continue;
          }
          if (!it->is_string()) return TypeError(parent, *it, f.elem_go_type, false);
          if (f.type == FieldType::kBytesMap) {
            const std::string& s = it->get_ref<const std::string&>();
            if (!IsBase64(s, cleaned)) {
              error_ = "illegal base64 data at input byte " +
                       std::to_string(FirstBadBase64Byte(cleaned));
              return false;
            }
            out[it.key()] = cleaned;
          } else {
            out[it.key()] = *it;
          }
        }
        return true;
      }
      case FieldType::kStringList: {
        if (!v.is_array()) return TypeError(parent, v, f.go_type, false);
        out = json::array();
        for (const auto& e : v) {
          if (e.is_null()) {
            out.push_back("");
          } else if (e.is_string()) {
            out.push_back(e);
          } else {
            return TypeError(parent, e, f.elem_go_type, false);
          }
        }
        return true;
      }
      case FieldType::kObject:
        if (!v.is_object()) return TypeError(parent, v, f.go_type, false);
        if (f.object->opaque) {
          out = v;
          return true;
        }
        return Object(*f.object, v, out);
      case FieldType::kObjectList: {
        if (!v.is_array()) return TypeError(parent, v, f.go_type, false);
        out = json::array();
        const size_t mark = path_.size();
        for (size_t i = 0; i < v.size(); ++i) {
          const json& e = v[i];
          if (!e.is_null() && !e.is_object()) return TypeError(parent, e, f.elem_go_type, false);
          path_ += '[';
          path_ += std::to_string(i);
          path_ += ']';
          json item;
          const bool ok = Object(*f.object, e.is_null() ? EmptyObject() : e, item);
          path_.resize(mark);
          if (!ok) return false;
          out.push_back(std::move(item));
        }
        return true;
      }
    }
    return false;
  }

  bool collect_;
  std::string path_;
  std::string error_;
  std::vector<std::string> unknown_;
};

}  // namespace

std::string CanonicalizeObject(const ObjectDescription& schema, const json& in, json& out,
                               bool strict, std::vector<std::string>* unknown_fields) {
  Decoder decoder(strict || unknown_fields != nullptr);
  if (!in.is_object()) {
    return "json: cannot unmarshal " + JsonWhat(in, false) + " into Go value of type v1." +
           std::string(schema.go_name);
  }
  if (!decoder.Object(schema, in, out)) return decoder.error();
  if (!strict) {
    if (unknown_fields) {
      unknown_fields->insert(unknown_fields->end(), decoder.unknown().begin(),
                             decoder.unknown().end());
    }
    return {};
  }
  if (!decoder.unknown().empty()) {
    std::string msg = "strict decoding error: ";
    for (size_t i = 0; i < decoder.unknown().size(); ++i) {
      if (i) msg += ", ";
      msg += "unknown field " + GoQuote(decoder.unknown()[i]);
    }
    return msg;
  }
  return {};
}

}  // namespace internal

Result<nlohmann::json> Canonicalize(const KindInfo& kind, const nlohmann::json& object,
                                    const DecodeOptions& options) {
  using nlohmann::json;
  const std::string kind_name(kind.kind);
  if (!object.is_object()) {
    return Status::BadRequest("the object provided is unrecognized (must be of type " + kind_name +
                              "): json: cannot unmarshal " + internal::JsonWhat(object, false) +
                              " into Go value of type map[string]interface {}");
  }
  // Type meta first, as kube-apiserver finds the version and kind before decoding.
  std::string_view api_version, body_kind;
  for (const char* key : {"apiVersion", "kind"}) {
    auto it = object.find(key);
    if (it == object.end() || it->is_null()) continue;
    if (!it->is_string()) {
      return Status::BadRequest(
          std::string("couldn't get version/kind; json parse error: json: cannot unmarshal ") +
          internal::JsonWhat(*it, false) + " into Go struct field ." + key + " of type string");
    }
    (std::string_view(key) == "kind" ? body_kind : api_version) = it->get_ref<const std::string&>();
  }
  std::string_view version = kind.versions.front();
  bool version_ok = true;
  if (!api_version.empty()) {
    const size_t slashes =
        static_cast<size_t>(std::count(api_version.begin(), api_version.end(), '/'));
    std::string_view group;
    if (slashes == 0) {
      version = api_version;
    } else if (slashes == 1) {
      const size_t slash = api_version.find('/');
      group = api_version.substr(0, slash);
      version = api_version.substr(slash + 1);
    } else {
      return Status::BadRequest(
          "couldn't get version/kind; json parse error: unexpected GroupVersion string: " +
          std::string(api_version));
    }
    version_ok = group == kind.group && std::find(kind.versions.begin(), kind.versions.end(),
                                                  version) != kind.versions.end();
  }
  const std::string shown_kind(body_kind.empty() ? kind.kind : body_kind);
  const std::string prefix = shown_kind + " in version \"" + std::string(version) +
                             "\" cannot be handled as a " + kind_name + ": ";
  if (!version_ok || (!body_kind.empty() && body_kind != kind.kind)) {
    return Status::BadRequest(
        prefix + "no kind \"" + shown_kind + "\" is registered for version \"" +
        (api_version.empty() ? kind.api_version(version) : std::string(api_version)) +
        "\" in scheme \"pkg/api/legacyscheme/scheme.go:30\"");
  }
  json out;
  std::string err = internal::CanonicalizeObject(*Describe(kind).object, object, out,
                                                 options.strict, options.unknown_fields);
  if (!err.empty()) return Status::BadRequest(prefix + err);
  out["apiVersion"] = kind.api_version(version);
  out["kind"] = kind.kind;
  return out;
}

}  // namespace tenure::api
