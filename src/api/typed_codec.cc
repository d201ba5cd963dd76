// The typed codec: typed structs to canonical JSON and back, through the members fields bind to.
#include "api/canonical_json.h"
#include "api/codec.h"
#include "api/description.h"

namespace tenure::api {

nlohmann::json EncodeTyped(const ObjectDescription& description, const void* object) {
  nlohmann::json out = nlohmann::json::object();
  for (const FieldDescription& f : description.fields) {
    std::optional<nlohmann::json> value;
    if (f.typed) value = f.typed.encode(object, f);
    if (!value) {
      if (f.emit == Emit::kAlways) out[std::string(f.name)] = ZeroValue(f);
    } else if (Emitted(f, *value)) {
      out[std::string(f.name)] = std::move(*value);
    }
  }
  return out;
}

void DecodeTyped(const ObjectDescription& description, const nlohmann::json& json, void* object) {
  for (const FieldDescription& f : description.fields) {
    if (f.typed) f.typed.decode(internal::Child(json, std::string(f.name).c_str()), object, f);
  }
}

nlohmann::json OverlayTyped(const ObjectDescription& description, const nlohmann::json& original,
                            const nlohmann::json& before, nlohmann::json after) {
  if (!original.is_object() || !after.is_object()) return after;
  nlohmann::json out = original;
  for (const FieldDescription& f : description.fields) {
    const std::string name(f.name);
    const nlohmann::json* was = internal::Child(before, name.c_str());
    auto now = after.find(name);
    if (!f.typed) {  // the struct has no say: the original's value, else what EncodeTyped wrote
      if (now != after.end() && !out.contains(name)) out[name] = std::move(*now);
      continue;
    }
    const bool changed = now == after.end() ? was != nullptr : was == nullptr || *was != *now;
    if (!changed) continue;
    if (now == after.end()) {
      out.erase(name);
      continue;
    }
    auto kept = out.find(name);
    if (f.type == FieldType::kObject && kept != out.end()) {
      *kept = OverlayTyped(*f.object, *kept, was != nullptr ? *was : internal::EmptyObject(),
                           std::move(*now));
    } else {
      out[name] = std::move(*now);
    }
  }
  return out;
}

namespace typed_internal {

nlohmann::json EncodeTimestamp(Timestamp t, const FieldDescription& field) {
  return field.type == FieldType::kMicroTime ? FormatMicroTime(t) : FormatTime(t);
}

std::optional<Timestamp> ReadTimestamp(const nlohmann::json& value) {
  if (!value.is_string()) return std::nullopt;
  return ParseTime(value.get_ref<const std::string&>());
}

nlohmann::json EncodeStringMap(const std::map<std::string, std::string>& map,
                               const FieldDescription& field) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : map) {
    out[k] = field.type == FieldType::kBytesMap ? Base64Encode(v) : v;
  }
  return out;
}

std::optional<std::map<std::string, std::string>> ReadStringMap(const nlohmann::json& value,
                                                                const FieldDescription& field) {
  if (!value.is_object()) return std::nullopt;
  std::map<std::string, std::string> out;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (!it->is_string()) continue;
    const std::string& s = it->get_ref<const std::string&>();
    out.emplace(it.key(), field.type == FieldType::kBytesMap ? Base64Decode(s).value_or("") : s);
  }
  return out;
}

const ObjectDescription& NestedObject(const FieldDescription& field) { return *field.object; }

}  // namespace typed_internal
}  // namespace tenure::api
