// ParseJson, DumpJson and IdenticalJson: nlohmann trees from and to text, without nlohmann's own
// lexer and serializer.
#include "api/json_text.h"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "api/json_scanner.h"
#include "core/json_string.h"

namespace tenure::api {
namespace {

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
        if (!AppendJsonString(out, key)) return false;
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
      return AppendJsonString(out, *value.get_ptr<const std::string*>());
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
    } else if (*x != *y || (x->is_number_float() &&
                            std::signbit(x->get<double>()) != std::signbit(y->get<double>()))) {
      return false;  // (== takes -0.0 for 0.0)
    }
  }
  return true;
}

nlohmann::json ParseJsonOrThrow(std::string_view text) {
  nlohmann::json object = ParseJson(text);
  if (object.is_discarded()) return nlohmann::json::parse(text);  // throws why
  return object;
}

std::string DumpJson(const nlohmann::json& value) {
  std::string out;
  if (!Append(value, out)) return value.dump();
  return out;
}

}  // namespace tenure::api
