// How a field of a description binds to a member of a typed struct (types.h): BindMember<&S::m>
// gives the two functions the typed codec calls, chosen by the member's C++ type.
//
// Supported members: std::string, int32_t, int64_t, bool, Timestamp (Time or MicroTime by the
// field's type), std::map<std::string, std::string> (base64 on the wire for bytes maps),
// std::vector<T>, std::optional<T> (unset: the field is absent), and structs that have their own
// object description (the field's `object`).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "api/time.h"

namespace tenure::api {

struct FieldDescription;
struct ObjectDescription;

struct TypedMember {
  // The member's wire value; nullopt when it is unset (an empty optional).
  std::optional<nlohmann::json> (*encode)(const void* object,
                                          const FieldDescription& field) = nullptr;
  // Sets the member from the field's value in a canonical object (nullptr: absent or null).
  void (*decode)(const nlohmann::json* value, void* object,
                 const FieldDescription& field) = nullptr;
  const std::type_info* owner = nullptr;   // the struct holding the member
  const std::type_info* nested = nullptr;  // the struct held (by value, in a list or optional)

  explicit operator bool() const { return encode != nullptr; }
};

// The typed codec over a description (typed_codec.cc): `object` points to the struct the
// description's fields are bound to. DecodeTyped reads any JSON: a field that is absent, null or
// not of the member's type leaves the member at its zero value (the strict decoders of codec.h
// canonicalize first, which refuses wrong types with kube's messages).
nlohmann::json EncodeTyped(const ObjectDescription& description, const void* object);
void DecodeTyped(const ObjectDescription& description, const nlohmann::json& json, void* object);
// A struct's encoding `after` written over `original`, the object it was decoded from, whose own
// encoding is `before`: a bound field whose encoding did not change keeps the original's value
// as it was (also one the decode could not read), a changed one takes `after`'s (absent there:
// removed), bound nested objects merge the same way, and fields the struct does not bind, or
// does not know, stay as they were.
nlohmann::json OverlayTyped(const ObjectDescription& description, const nlohmann::json& original,
                            const nlohmann::json& before, nlohmann::json after);

namespace typed_internal {

nlohmann::json EncodeTimestamp(Timestamp t, const FieldDescription& field);
std::optional<Timestamp> ReadTimestamp(const nlohmann::json& value);
nlohmann::json EncodeStringMap(const std::map<std::string, std::string>& map,
                               const FieldDescription& field);
std::optional<std::map<std::string, std::string>> ReadStringMap(const nlohmann::json& value,
                                                                const FieldDescription& field);
const ObjectDescription& NestedObject(const FieldDescription& field);

// TypedValue<M>: Encode (nullopt only for an unset optional), Read (nullopt when the value is
// absent or not of the member's type: the member is then left at its zero value), Nested.
template <typename T>
struct TypedValue {  // a struct with its own object description
  static std::optional<nlohmann::json> Encode(const T& v, const FieldDescription& f) {
    return EncodeTyped(NestedObject(f), &v);
  }
  static std::optional<T> Read(const nlohmann::json* j, const FieldDescription& f) {
    if (j == nullptr || !j->is_object()) return std::nullopt;
    T v{};
    DecodeTyped(NestedObject(f), *j, &v);
    return v;
  }
  static const std::type_info* Nested() { return &typeid(T); }
};

template <typename Scalar, bool (nlohmann::json::*kIs)() const noexcept>
struct ScalarValue {
  static std::optional<nlohmann::json> Encode(const Scalar& v, const FieldDescription&) {
    return nlohmann::json(v);
  }
  static std::optional<Scalar> Read(const nlohmann::json* j, const FieldDescription&) {
    if (j == nullptr || !((*j).*kIs)()) return std::nullopt;
    if constexpr (std::is_integral_v<Scalar> && !std::is_same_v<Scalar, bool>) {
      return static_cast<Scalar>(j->get<int64_t>());
    } else {
      return j->get<Scalar>();
    }
  }
  static const std::type_info* Nested() { return nullptr; }
};

template <>
struct TypedValue<std::string> : ScalarValue<std::string, &nlohmann::json::is_string> {};
template <>
struct TypedValue<int32_t> : ScalarValue<int32_t, &nlohmann::json::is_number_integer> {};
template <>
struct TypedValue<int64_t> : ScalarValue<int64_t, &nlohmann::json::is_number_integer> {};
template <>
struct TypedValue<bool> : ScalarValue<bool, &nlohmann::json::is_boolean> {};

template <>
struct TypedValue<Timestamp> {
  static std::optional<nlohmann::json> Encode(Timestamp v, const FieldDescription& f) {
    return EncodeTimestamp(v, f);
  }
  static std::optional<Timestamp> Read(const nlohmann::json* j, const FieldDescription&) {
    return j == nullptr ? std::nullopt : ReadTimestamp(*j);
  }
  static const std::type_info* Nested() { return nullptr; }
};

template <>
struct TypedValue<std::map<std::string, std::string>> {
  using Map = std::map<std::string, std::string>;
  static std::optional<nlohmann::json> Encode(const Map& v, const FieldDescription& f) {
    return EncodeStringMap(v, f);
  }
  static std::optional<Map> Read(const nlohmann::json* j, const FieldDescription& f) {
    return j == nullptr ? std::nullopt : ReadStringMap(*j, f);
  }
  static const std::type_info* Nested() { return nullptr; }
};

template <typename T>
struct TypedValue<std::vector<T>> {
  static std::optional<nlohmann::json> Encode(const std::vector<T>& v, const FieldDescription& f) {
    nlohmann::json out = nlohmann::json::array();
    for (const T& e : v) out.push_back(*TypedValue<T>::Encode(e, f));
    return out;
  }
  static std::optional<std::vector<T>> Read(const nlohmann::json* j, const FieldDescription& f) {
    if (j == nullptr || !j->is_array()) return std::nullopt;
    std::vector<T> out;
    for (const auto& e : *j) {
      if (auto v = TypedValue<T>::Read(&e, f)) out.push_back(std::move(*v));
    }
    return out;
  }
  static const std::type_info* Nested() { return TypedValue<T>::Nested(); }
};

template <typename T>
struct TypedValue<std::optional<T>> {
  static std::optional<nlohmann::json> Encode(const std::optional<T>& v,
                                              const FieldDescription& f) {
    if (!v) return std::nullopt;
    return TypedValue<T>::Encode(*v, f);
  }
  static std::optional<std::optional<T>> Read(const nlohmann::json* j, const FieldDescription& f) {
    return std::optional<std::optional<T>>(std::in_place, TypedValue<T>::Read(j, f));
  }
  static const std::type_info* Nested() { return TypedValue<T>::Nested(); }
};

template <typename T>
struct MemberTraits;
template <typename S, typename M>
struct MemberTraits<M S::*> {
  using Struct = S;
  using Member = M;
};

}  // namespace typed_internal

template <auto Member>
TypedMember BindMember() {
  using Traits = typed_internal::MemberTraits<decltype(Member)>;
  using S = typename Traits::Struct;
  using M = typename Traits::Member;
  using Value = typed_internal::TypedValue<M>;
  return TypedMember{[](const void* object, const FieldDescription& field) {
                       return Value::Encode(static_cast<const S*>(object)->*Member, field);
                     },
                     [](const nlohmann::json* value, void* object, const FieldDescription& field) {
                       M& member = static_cast<S*>(object)->*Member;
                       if (std::optional<M> read = Value::Read(value, field)) {
                         member = std::move(*read);
                       } else {
                         member = M();
                       }
                     },
                     &typeid(S), Value::Nested()};
}

}  // namespace tenure::api
