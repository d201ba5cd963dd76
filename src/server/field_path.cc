// PathElement: order, conflict-message text and fieldsV1 keys of server-side apply's paths.
#include "server/field_path.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "api/client_json.h"
#include "api/validation.h"

namespace tenure::server {
namespace {

using nlohmann::json;

int Sign(int64_t c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

int CompareDoubles(double a, double b) { return a < b ? -1 : (a > b ? 1 : 0); }

// Compact JSON as the fieldsV1 keys carry it (invalid UTF-8 replaced, never thrown on).
std::string CompactJson(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Go's %v of a float64: the shortest text that reads back.
std::string FloatText(double d) {
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  return buf;
}

// value.ToString: what a conflict message shows of a key or set item.
std::string ValueText(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::number_float:
      return FloatText(v.get<double>());
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return CompactJson(v);
    case json::value_t::string:
      return api::GoQuote(v.get_ref<const std::string&>());
    case json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case json::value_t::array: {
      std::string out = "[";
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) out += ',';
        out += ValueText(v[i]);
      }
      return out + "]";
    }
    case json::value_t::object: {
      std::string out;
      for (auto it = v.begin(); it != v.end(); ++it) out += it.key() + "=" + ValueText(*it);
      return out;
    }
    default:
      return "{{undefined}}";
  }
}

// The rank of a value's type in CompareValues' order.
int TypeRank(const json& v) {
  switch (v.type()) {
    case json::value_t::number_float:
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return 0;
    case json::value_t::string:
      return 1;
    case json::value_t::boolean:
      return 2;
    case json::value_t::array:
      return 3;
    case json::value_t::object:
      return 4;
    default:
      return 5;
  }
}

// Integers of either sign (nlohmann keeps non-negative ones unsigned).
int CompareIntegers(const json& a, const json& b) {
  const bool a_big = a.is_number_unsigned() && a.get<uint64_t>() > uint64_t{INT64_MAX};
  const bool b_big = b.is_number_unsigned() && b.get<uint64_t>() > uint64_t{INT64_MAX};
  if (a_big || b_big) {
    if (!b_big) return 1;
    if (!a_big) return -1;
    const uint64_t x = a.get<uint64_t>(), y = b.get<uint64_t>();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  const int64_t x = a.get<int64_t>(), y = b.get<int64_t>();
  return x < y ? -1 : (x > y ? 1 : 0);
}

}  // namespace

int CompareValues(const json& a, const json& b) {
  const int ra = TypeRank(a), rb = TypeRank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      if (a.is_number_float() || b.is_number_float()) {
        return CompareDoubles(a.get<double>(), b.get<double>());
      }
      return CompareIntegers(a, b);
    case 1:
      return Sign(a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>()));
    case 2:
      return a.get<bool>() == b.get<bool>() ? 0 : (a.get<bool>() ? 1 : -1);
    case 3: {
      for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        if (int c = CompareValues(a[i], b[i]); c != 0) return c;
      }
      return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
    }
    case 4: {
      auto x = a.begin(), y = b.begin();
      for (; x != a.end() && y != b.end(); ++x, ++y) {
        if (int c = Sign(x.key().compare(y.key())); c != 0) return c;
        if (int c = CompareValues(*x, *y); c != 0) return c;
      }
      return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
    }
    default:
      return 0;
  }
}

PathElement PathElement::Field(std::string name) {
  PathElement e;
  e.type = Type::kField;
  e.name = std::move(name);
  return e;
}

PathElement PathElement::Key(json fields) {
  PathElement e = Value(std::move(fields));
  e.type = Type::kKey;
  return e;
}

PathElement PathElement::Value(json item) {
  PathElement e;
  e.type = Type::kValue;
  e.value = std::move(item);
  return e;
}

PathElement PathElement::Index(int index) {
  PathElement e;
  e.type = Type::kIndex;
  e.index = index;
  return e;
}

int Compare(const PathElement& a, const PathElement& b) {
  if (a.type != b.type) return a.type < b.type ? -1 : 1;
  switch (a.type) {
    case PathElement::Type::kField:
      return Sign(a.name.compare(b.name));
    case PathElement::Type::kKey:
    case PathElement::Type::kValue:
      // A key is an object of its fields, sorted by name: compared field by field as
      // structured-merge-diff's FieldList.
      return CompareValues(a.value, b.value);
    case PathElement::Type::kIndex:
      return a.index < b.index ? -1 : (a.index > b.index ? 1 : 0);
  }
  return 0;
}

std::string ToString(const PathElement& e) {
  switch (e.type) {
    case PathElement::Type::kField:
      return "." + e.name;
    case PathElement::Type::kKey: {
      std::string out = "[";
      bool first = true;
      for (auto it = e.value.begin(); it != e.value.end(); ++it) {
        if (!first) out += ',';
        first = false;
        out += it.key() + "=" + ValueText(*it);
      }
      return out + "]";
    }
    case PathElement::Type::kValue:
      return "[=" + ValueText(e.value) + "]";
    case PathElement::Type::kIndex:
      return "[" + std::to_string(e.index) + "]";
  }
  return "{{invalid path element}}";
}

std::string ToString(const FieldPath& path) {
  std::string out;
  for (const PathElement& e : path) out += ToString(e);
  return out;
}

std::string Serialize(const PathElement& e) {
  switch (e.type) {
    case PathElement::Type::kField:
      return "f:" + e.name;
    case PathElement::Type::kKey:
      return "k:" + CompactJson(e.value);
    case PathElement::Type::kValue:
      return "v:" + CompactJson(e.value);
    case PathElement::Type::kIndex:
      return "i:" + std::to_string(e.index);
  }
  return {};
}

Result<std::optional<PathElement>> ParsePathElement(std::string_view key) {
  if (key.size() < 2) return Status::BadRequest("key must be 2 characters long:");
  if (key[1] != ':') return Status::BadRequest("missing colon: " + std::string(key));
  const std::string_view rest = key.substr(2);
  switch (key[0]) {
    case 'f':
      return std::optional<PathElement>(PathElement::Field(std::string(rest)));
    case 'v':
    case 'k': {
      // A key is text inside the body, not seen by the body's nesting limit: keep to it here.
      if (api::JsonNesting(rest) > api::kMaxJsonNesting) {
        return Status::BadRequest("managedFields parsing: nesting too deep in a key");
      }
      json value = json::parse(rest, nullptr, /*allow_exceptions=*/false);
      if (value.is_discarded()) {
        return Status::BadRequest("managedFields parsing: invalid JSON in " + std::string(key));
      }
      if (key[0] == 'v') return std::optional<PathElement>(PathElement::Value(std::move(value)));
      if (!value.is_object()) {
        return Status::BadRequest("managedFields parsing: a key must be an object: " +
                                  std::string(key));
      }
      return std::optional<PathElement>(PathElement::Key(std::move(value)));
    }
    case 'i': {
      int index = 0;
      const char* begin = rest.data();
      if (!rest.empty() && rest[0] == '+') ++begin;  // strconv.Atoi takes a sign
      auto [end, ec] = std::from_chars(begin, rest.data() + rest.size(), index);
      if (ec != std::errc() || end != rest.data() + rest.size() || rest.empty()) {
        return Status::BadRequest("strconv.Atoi: parsing " + api::GoQuote(rest) +
                                  ": invalid syntax");
      }
      return std::optional<PathElement>(PathElement::Index(index));
    }
    default:
      return std::optional<PathElement>();
  }
}

}  // namespace tenure::server
