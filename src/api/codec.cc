// ToJson and the *FromJson decoders of the typed structs, from the kinds' descriptions; Base64.
#include "api/codec.h"

#include "api/canonical_json.h"
#include "api/canonicalize.h"
#include "api/description.h"
#include "api/kind_entries.h"
#include "api/meta_descriptions.h"

namespace tenure::api {
namespace {

using internal::Child;
using nlohmann::json;

// The tolerant read: the fields straight from `in`, each unset when absent or not readable.
template <typename T>
T DecodeKindLeniently(const KindDescription& kind, const json& in) {
  T out;
  DecodeTyped(*kind.object, in, &out);
  return out;
}

// A top-level object: its fields (written over the object it was decoded from, if any: see
// OverlayTyped), then apiVersion and kind.
template <typename T>
json EncodeKind(const KindDescription& kind, const T& object, std::string_view version) {
  json out = EncodeTyped(*kind.object, &object);
  if (const json* original = object.original.get()) {
    const T decoded = DecodeKindLeniently<T>(kind, *original);
    out =
        OverlayTyped(*kind.object, *original, EncodeTyped(*kind.object, &decoded), std::move(out));
  }
  out["apiVersion"] = kind.api_version(version);
  out["kind"] = kind.kind;
  return out;
}

template <typename T>
json EncodeKind(const KindDescription& kind, const T& object) {
  return EncodeKind(kind, object, kind.versions.front());
}

// Decodes `in` against `description` (tolerantly, as a client) into a typed struct.
template <typename T>
Result<T> Decode(const ObjectDescription& description, std::string_view name, const json& in) {
  json canonical;
  std::string err = internal::CanonicalizeObject(description, in, canonical, false);
  if (!err.empty()) return Status::BadRequest("cannot decode " + std::string(name) + ": " + err);
  T out;
  DecodeTyped(description, canonical, &out);
  return out;
}

template <typename T>
Result<T> DecodeKind(const KindDescription& kind, const json& in) {
  Result<T> out = Decode<T>(*kind.object, kind.kind, in);
  if (out.ok()) out->original = WireOriginal(std::make_shared<const json>(in));
  return out;
}

template <typename T>
Result<List<T>> DecodeList(const KindDescription& kind, const json& in) {
  if (!in.is_object()) {
    return Status::BadRequest("cannot decode " + std::string(kind.list_kind) +
                              ": not a JSON object");
  }
  List<T> list;
  DecodeTyped(ListMetaObject(), internal::Sub(in, "metadata"), &list.metadata);
  const json* items = Child(in, "items");
  if (items == nullptr) return list;
  if (!items->is_array()) {
    return Status::BadRequest("cannot decode " + std::string(kind.list_kind) +
                              ": items is not an array");
  }
  for (const auto& item : *items) {  // without their originals: a list is read, not written back
    auto decoded = Decode<T>(*kind.object, kind.kind, item);
    if (!decoded.ok()) return decoded.status();
    list.items.push_back(std::move(*decoded));
  }
  return list;
}

}  // namespace

std::string Base64Encode(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = (static_cast<uint8_t>(in[i]) << 16) |
                       (static_cast<uint8_t>(in[i + 1]) << 8) | static_cast<uint8_t>(in[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == in.size()) {
    const uint32_t v = static_cast<uint8_t>(in[i]) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    const uint32_t v = (static_cast<uint8_t>(in[i]) << 16) | (static_cast<uint8_t>(in[i + 1]) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string clean;
  for (char c : text) {
    if (c != '\r' && c != '\n') clean += c;
  }
  if (clean.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(clean.size() / 4 * 3);
  for (size_t i = 0; i < clean.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = clean[i + k];
      if (c == '=' && i + 4 == clean.size() && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      if (pad > 0) return std::nullopt;
      v[k] = value(c);
      if (v[k] < 0) return std::nullopt;
    }
    const uint32_t n = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    out += static_cast<char>((n >> 16) & 0xFF);
    if (pad < 2) out += static_cast<char>((n >> 8) & 0xFF);
    if (pad < 1) out += static_cast<char>(n & 0xFF);
  }
  return out;
}

json ToJson(const ObjectMeta& meta) { return EncodeTyped(ObjectMetaObject(), &meta); }

json ToJson(const LeaseSpec& spec) {
  return EncodeTyped(*internal::LeaseKind().object->Find("spec")->object, &spec);
}

json ToJson(const Lease& lease) { return EncodeKind(internal::LeaseKind(), lease); }

json ToJson(const LeaseCandidateSpec& spec) {
  return EncodeTyped(*internal::LeaseCandidateKind().object->Find("spec")->object, &spec);
}

json ToJson(const LeaseCandidate& candidate, std::string_view version) {
  return EncodeKind(internal::LeaseCandidateKind(), candidate, version);
}

json ToJson(const ConfigMap& configmap) { return EncodeKind(internal::ConfigMapKind(), configmap); }

json ToJson(const Namespace& ns) { return EncodeKind(internal::NamespaceKind(), ns); }

json ToJson(const ObjectReference& ref) {
  return EncodeTyped(*internal::EventKind().object->Find("involvedObject")->object, &ref);
}

json ToJson(const Event& event) { return EncodeKind(internal::EventKind(), event); }

json ToJson(const DeleteOptions& options) {
  json out = EncodeTyped(DeleteOptionsObject(), &options);
  out["apiVersion"] = "v1";
  out["kind"] = "DeleteOptions";
  return out;
}

Result<ObjectMeta> ObjectMetaFromJson(const json& in) {
  return Decode<ObjectMeta>(ObjectMetaObject(), "ObjectMeta", in);
}

Result<Lease> LeaseFromJson(const json& in) { return DecodeKind<Lease>(internal::LeaseKind(), in); }

Result<LeaseCandidate> LeaseCandidateFromJson(const json& in) {
  return DecodeKind<LeaseCandidate>(internal::LeaseCandidateKind(), in);
}

Result<ConfigMap> ConfigMapFromJson(const json& in) {
  return DecodeKind<ConfigMap>(internal::ConfigMapKind(), in);
}

Result<Namespace> NamespaceFromJson(const json& in) {
  return DecodeKind<Namespace>(internal::NamespaceKind(), in);
}

Result<Event> EventFromJson(const json& in) { return DecodeKind<Event>(internal::EventKind(), in); }

ObjectMeta LenientMetadata(const json& object) {
  ObjectMeta out;
  DecodeTyped(ObjectMetaObject(), internal::Sub(object, "metadata"), &out);
  return out;
}

Lease LenientLease(const json& in) { return DecodeKindLeniently<Lease>(internal::LeaseKind(), in); }

ConfigMap LenientConfigMap(const json& in) {
  return DecodeKindLeniently<ConfigMap>(internal::ConfigMapKind(), in);
}

Result<LeaseList> LeaseListFromJson(const json& in) {
  return DecodeList<Lease>(internal::LeaseKind(), in);
}

Result<LeaseCandidateList> LeaseCandidateListFromJson(const json& in) {
  return DecodeList<LeaseCandidate>(internal::LeaseCandidateKind(), in);
}

Result<ConfigMapList> ConfigMapListFromJson(const json& in) {
  return DecodeList<ConfigMap>(internal::ConfigMapKind(), in);
}

Result<EventList> EventListFromJson(const json& in) {
  return DecodeList<Event>(internal::EventKind(), in);
}

Result<NamespaceList> NamespaceListFromJson(const json& in) {
  return DecodeList<Namespace>(internal::NamespaceKind(), in);
}

std::string Base64UrlEncode(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t n = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += kAlphabet[(n >> shift) & 63];
  }
  if (bytes.size() - i == 1) {
    uint32_t n = uint8_t(bytes[i]) << 16;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
  } else if (bytes.size() - i == 2) {
    uint32_t n = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8);
    for (int shift : {18, 12, 6}) out += kAlphabet[(n >> shift) & 63];
  }
  return out;
}

std::optional<std::string> Base64UrlDecode(std::string_view text, size_t* bad_at) {
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    int v;
    if (c >= 'A' && c <= 'Z') {
      v = c - 'A';
    } else if (c >= 'a' && c <= 'z') {
      v = c - 'a' + 26;
    } else if (c >= '0' && c <= '9') {
      v = c - '0' + 52;
    } else if (c == '-') {
      v = 62;
    } else if (c == '_') {
      v = 63;
    } else {
      if (bad_at != nullptr) *bad_at = i;
      return std::nullopt;
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  if (bits >= 6) {  // a dangling character is no whole byte
    if (bad_at != nullptr) *bad_at = text.size() - 1;
    return std::nullopt;
  }
  return out;
}

}  // namespace tenure::api
