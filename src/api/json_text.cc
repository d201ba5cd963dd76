// ParseJson, DumpJson and IdenticalJson: nlohmann trees from and to text, without nlohmann's own
// lexer and serializer.
#include "api/json_text.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "api/json_scanner.h"

namespace tenure::api {
namespace {

// `text` quoted and escaped as nlohmann escapes it (ensure_ascii off); false when it is not UTF-8.
bool AppendString(std::string_view text, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  const auto* run = p;  // the start of the bytes not yet appended
  while (p < end) {
    const unsigned char c = *p;
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      ++p;
      continue;
    }
    if (c >= 0x80) {
      const size_t n = Utf8Length(p, end);
      if (n == 0) return false;
      p += n;
      continue;
    }
    out.append(reinterpret_cast<const char*>(run), static_cast<size_t>(p - run));
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
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
      default:
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xF]);
        break;
    }
    run = ++p;
  }
  out.append(reinterpret_cast<const char*>(run), static_cast<size_t>(p - run));
  out.push_back('"');
  return true;
}

template <typename Integer>
void AppendInteger(Integer value, std::string& out) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

// `value` appended as dump() writes it; false for what this does not write itself (a string that
// is not UTF-8, binary, a discarded value): dump() then writes (or refuses) the whole.
bool Append(const nlohmann::json& value, std::string& out) {
  using Type = nlohmann::json::value_t;
  switch (value.type()) {
    case Type::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& [key, member] : value.items()) {
        if (!first) out.push_back(',');
        first = false;
        if (!AppendString(key, out)) return false;
        out.push_back(':');
        if (!Append(member, out)) return false;
      }
      out.push_back('}');
      return true;
    }
    case Type::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& element : value) {
        if (!first) out.push_back(',');
        first = false;
        if (!Append(element, out)) return false;
      }
      out.push_back(']');
      return true;
    }
    case Type::string:
      return AppendString(*value.get_ptr<const std::string*>(), out);
    case Type::boolean:
      out += value.get<bool>() ? "true" : "false";
      return true;
    case Type::null:
      out += "null";
      return true;
    case Type::number_integer:
      AppendInteger(value.get<int64_t>(), out);
      return true;
    case Type::number_unsigned:
      AppendInteger(value.get<uint64_t>(), out);
      return true;
    case Type::number_float:
      out += value.dump();  // nlohmann's own shortest round trip, rare in these objects
      return true;
    default:
      return false;
  }
}

}  // namespace

nlohmann::json ParseJson(std::string_view text) {
  nlohmann::json out;
  JsonScanner scan(text);
  if (!scan.Tree(out) || !scan.AtEnd()) return nlohmann::json(nlohmann::json::value_t::discarded);
  return out;
}

bool IdenticalJson(const nlohmann::json& a, const nlohmann::json& b) {
  std::vector<std::pair<const nlohmann::json*, const nlohmann::json*>> pending = {{&a, &b}};
  while (!pending.empty()) {
    const auto [x, y] = pending.back();
    pending.pop_back();
    if (x->type() != y->type() || x->size() != y->size()) return false;
    if (x->is_object()) {
      for (auto i = x->begin(), j = y->begin(); i != x->end(); ++i, ++j) {
        if (i.key() != j.key()) return false;
        pending.emplace_back(&*i, &*j);
      }
    } else if (x->is_array()) {
      for (size_t i = 0; i < x->size(); ++i) pending.emplace_back(&(*x)[i], &(*y)[i]);
    } else if (*x != *y) {
      return false;
    }
  }
  return true;
}

std::string DumpJson(const nlohmann::json& value) {
  std::string out;
  if (!Append(value, out)) return value.dump();
  return out;
}

}  // namespace tenure::api
