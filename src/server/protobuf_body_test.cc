// Tests of DecodeProtobufObject: every field a protobuf Namespace or ConfigMap body may set, the
// fields left to the server, and the malformed bodies.
#include "server/protobuf_body.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace tenure::server {
namespace {

using nlohmann::json;

std::string Varint(uint64_t value) {
  std::string out;
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
  return out;
}

// A length-delimited field (strings, bytes, messages, map entries).
std::string Bytes(uint32_t number, const std::string& payload) {
  return Varint(number << 3 | 2) + Varint(payload.size()) + payload;
}

std::string VarintField(uint32_t number, uint64_t value) {
  return Varint(number << 3) + Varint(value);
}

std::string MapEntry(uint32_t number, const std::string& key, const std::string& value) {
  return Bytes(number, Bytes(1, key) + Bytes(2, value));
}

// The "k8s\0" envelope: runtime.Unknown{typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2}.
std::string Envelope(const std::string& api_version, const std::string& kind,
                     const std::string& raw) {
  return std::string("k8s\0", 4) + Bytes(1, Bytes(1, api_version) + Bytes(2, kind)) + Bytes(2, raw);
}

json Decoded(const std::string& body) {
  auto object = DecodeProtobufObject(body);
  EXPECT_TRUE(object.ok()) << object.status().ToString();
  return object.ok() ? *object : json();
}

// ObjectMeta as kubectl fills it, and the server-owned fields a client might send too: uid (5),
// resourceVersion (6), generation (7), creationTimestamp (8), ownerReferences (13).
std::string Metadata() {
  return Bytes(1, "n") + Bytes(2, "gen-") + Bytes(3, "ns") + Bytes(5, "uid-1") + Bytes(6, "12") +
         VarintField(7, 3) + Bytes(8, VarintField(1, 1700000000)) + MapEntry(11, "app", "x") +
         MapEntry(11, "tier", "") + MapEntry(12, "note", "hello") + Bytes(13, Bytes(1, "Lease")) +
         Bytes(14, "f1") + Bytes(14, "f2");
}

const json kMetadata = {{"name", "n"},
                        {"generateName", "gen-"},
                        {"namespace", "ns"},
                        {"labels", {{"app", "x"}, {"tier", ""}}},
                        {"annotations", {{"note", "hello"}}},
                        {"finalizers", {"f1", "f2"}}};

TEST(ProtobufBodyTest, NamespaceWithEveryField) {
  // spec.finalizers (NamespaceSpec = 2, finalizers = 1); status (3) is the server's.
  std::string raw = Bytes(1, Metadata()) + Bytes(2, Bytes(1, "kubernetes") + Bytes(1, "x/y")) +
                    Bytes(3, Bytes(1, "Terminating"));
  EXPECT_EQ(Decoded(Envelope("v1", "Namespace", raw)),
            json({{"apiVersion", "v1"},
                  {"kind", "Namespace"},
                  {"metadata", kMetadata},
                  {"spec", {{"finalizers", {"kubernetes", "x/y"}}}}}));
}

TEST(ProtobufBodyTest, NamespaceAsKubectlSendsIt) {
  // Go's encoder writes the embedded spec and status even when they are empty.
  std::string raw = Bytes(1, Bytes(1, "team-a")) + Bytes(2, "") + Bytes(3, "");
  EXPECT_EQ(Decoded(Envelope("v1", "Namespace", raw)).dump(),
            R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}})");
}

TEST(ProtobufBodyTest, ConfigMapWithEveryField) {
  std::string raw = Bytes(1, Metadata()) + MapEntry(2, "k", "v") + MapEntry(2, "empty", "") +
                    MapEntry(3, "bin", std::string("\0\xff\x01", 3)) + VarintField(4, 1);
  EXPECT_EQ(Decoded(Envelope("v1", "ConfigMap", raw)), json({{"apiVersion", "v1"},
                                                             {"kind", "ConfigMap"},
                                                             {"metadata", kMetadata},
                                                             {"data", {{"k", "v"}, {"empty", ""}}},
                                                             {"binaryData", {{"bin", "AP8B"}}},
                                                             {"immutable", true}}));
}

TEST(ProtobufBodyTest, ConfigMapImmutableFalseIsKept) {
  std::string raw = Bytes(1, Bytes(1, "c")) + VarintField(4, 0);
  EXPECT_EQ(Decoded(Envelope("v1", "ConfigMap", raw)).dump(),
            R"({"apiVersion":"v1","immutable":false,"kind":"ConfigMap","metadata":{"name":"c"}})");
}

TEST(ProtobufBodyTest, TheLastValueOfARepeatedScalarOrMapKeyWins) {
  std::string raw = Bytes(1, Bytes(1, "a") + Bytes(1, "b")) + MapEntry(2, "k", "1") +
                    MapEntry(2, "k", "2") + VarintField(4, 1) + VarintField(4, 0);
  EXPECT_EQ(Decoded(Envelope("v1", "ConfigMap", raw)).dump(),
            R"({"apiVersion":"v1","data":{"k":"2"},"immutable":false,"kind":"ConfigMap",)"
            R"("metadata":{"name":"b"}})");
}

TEST(ProtobufBodyTest, UnknownFieldsAndFieldsOfAnotherWireTypeAreSkipped) {
  // A fixed64 and a fixed32 field, data as a varint, immutable as bytes, name as a varint.
  std::string raw = Bytes(1, VarintField(1, 5) + Bytes(1, "c")) + Varint(9 << 3 | 1) +
                    std::string(8, 'x') + Varint(10 << 3 | 5) + std::string(4, 'y') +
                    VarintField(2, 7) + Bytes(4, "t") + Bytes(99, "z");
  EXPECT_EQ(Decoded(Envelope("v1", "ConfigMap", raw)).dump(),
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})");
}

TEST(ProtobufBodyTest, TheEnvelopeMaySkipFieldsAndComeInAnyOrder) {
  std::string raw = Bytes(1, Bytes(1, "c"));
  std::string body = std::string("k8s\0", 4) + Bytes(2, raw) + Bytes(4, "application/json") +
                     Bytes(1, Bytes(2, "ConfigMap") + Bytes(1, "v1") + Bytes(3, "x"));
  EXPECT_EQ(Decoded(body).dump(),
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})");
}

TEST(ProtobufBodyTest, MalformedBodies) {
  const std::string good = Bytes(1, Bytes(1, "c"));
  for (const std::string& body : {
           std::string("k8s"),                                      // no magic
           std::string("k9s\0", 4) + Bytes(2, good),                // another magic
           Envelope("v1", "ConfigMap", good).substr(0, 12),         // truncated envelope
           std::string("k8s\0", 4) + Bytes(1, "\x0a\x05v1"),        // truncated TypeMeta
           Envelope("v1", "ConfigMap", Bytes(1, "\x0a\x09short")),  // truncated name
           Envelope("v1", "ConfigMap", Bytes(2, "\x0a\x09k")),      // truncated map entry
           Envelope("v1", "ConfigMap", Bytes(1, MapEntry(11, "a", "b").substr(0, 4))),
           Envelope("v1", "Namespace", Bytes(2, "\x0a\x09k")),  // truncated spec
           Envelope("v1", "ConfigMap", "\x0f"),                 // wire type 7
           Envelope("v1", "ConfigMap", "\x20\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"),  // varint
       }) {
    auto object = DecodeProtobufObject(body);
    ASSERT_FALSE(object.ok()) << json(body).dump(-1, ' ', true, json::error_handler_t::replace);
    EXPECT_EQ(object.status().reason(), Reason::kBadRequest);
    EXPECT_EQ(object.status().message(), "the protobuf body of the request is malformed");
  }
}

TEST(ProtobufBodyTest, AStringThatIsNotUtf8IsABadRequest) {
  for (const std::string& raw : {Bytes(1, Bytes(1, "\xff")), Bytes(1, MapEntry(12, "a", "\xc3")),
                                 Bytes(1, Bytes(1, "c")) + MapEntry(2, "k", "\xff")}) {
    auto object = DecodeProtobufObject(Envelope("v1", "ConfigMap", raw));
    ASSERT_FALSE(object.ok());
    EXPECT_EQ(object.status().reason(), Reason::kBadRequest);
    EXPECT_EQ(object.status().message(),
              "the body of the request contains a string that is not UTF-8");
  }
  // binaryData holds bytes: base64 in JSON.
  EXPECT_EQ(Decoded(Envelope("v1", "ConfigMap", MapEntry(3, "b", "\xff")))["binaryData"]["b"],
            "/w==");
}

TEST(ProtobufBodyTest, OtherKindsAreUnsupportedMediaType) {
  const std::vector<std::pair<std::string, std::string>> others = {
      {"coordination.k8s.io/v1", "Lease"},
      {"v1", "Event"},
      {"v2", "ConfigMap"},
      {"apps/v1", "Namespace"},
      {"v1", "Pod"}};
  for (const auto& [api_version, kind] : others) {
    auto object = DecodeProtobufObject(Envelope(api_version, kind, ""));
    ASSERT_FALSE(object.ok()) << kind;
    EXPECT_EQ(object.status().reason(), Reason::kUnsupportedMediaType);
    EXPECT_NE(object.status().message().find("protobuf bodies are accepted only for "),
              std::string::npos);
    EXPECT_NE(object.status().message().find("ConfigMap"), std::string::npos);
    EXPECT_NE(object.status().message().find("Namespace"), std::string::npos);
    EXPECT_NE(object.status().message().find("; send " + kind + " as application/json"),
              std::string::npos)
        << object.status().message();
  }
}

// The generic path on a description of its own: every field type protobuf is read into.
const api::ObjectDescription& NestedMessage() {
  static const api::ObjectDescription d{
      .go_name = "Nested", .fields = {api::field::String("s", api::Emit::kOmitEmpty, "").Proto(1)}};
  return d;
}

const api::ObjectDescription& EveryTypeMessage() {
  using api::Emit;
  namespace field = api::field;
  static const api::ObjectDescription d{
      .go_name = "EveryType",
      .fields = {
          field::String("string", Emit::kOmitEmpty, "").Proto(1),
          field::Bool("bool", Emit::kPointer, "").Proto(2),
          field::Int32("int32", Emit::kOmitEmpty, "").Proto(3),
          field::Int64("int64", Emit::kOmitEmpty, "").Proto(4),
          field::StringMap("stringMap", Emit::kOmitEmpty, "").Proto(5),
          field::BytesMap("bytesMap", Emit::kOmitEmpty, "").Proto(6),
          field::StringList("stringList", Emit::kOmitEmpty, "").Proto(7),
          field::Object("object", Emit::kAlways, NestedMessage(), "").Proto(8),
          field::Object("emptyObject", Emit::kAlways, NestedMessage(), "").Proto(9),
          field::Time("time", Emit::kOmitEmpty, "").Proto(10),  // a type protobuf is not read into
          field::ObjectList("objectList", Emit::kOmitEmpty, NestedMessage(), "").Proto(11),
          field::String("unnumbered", Emit::kOmitEmpty, ""),
      }};
  return d;
}

TEST(ProtobufMessageTest, EveryFieldTypeThroughTheDescription) {
  std::string message =
      Bytes(1, "text") + VarintField(2, 1) + VarintField(3, static_cast<uint64_t>(int64_t{-7})) +
      VarintField(4, uint64_t{1} << 40) + MapEntry(5, "k", "v") + MapEntry(6, "b", "\x01\x02") +
      Bytes(7, "a") + Bytes(7, "") + Bytes(8, Bytes(1, "inner")) + Bytes(9, Bytes(2, "unknown")) +
      Bytes(10, VarintField(1, 5)) + Bytes(11, Bytes(1, "first")) + Bytes(11, "") +
      Bytes(0x7ff, "far");
  auto decoded = DecodeProtobufMessage(EveryTypeMessage(), message);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, json({{"string", "text"},
                            {"bool", true},
                            {"int32", -7},
                            {"int64", int64_t{1} << 40},
                            {"stringMap", {{"k", "v"}}},
                            {"bytesMap", {{"b", "AQI="}}},
                            {"stringList", {"a", ""}},
                            {"object", {{"s", "inner"}}},
                            {"objectList", {{{"s", "first"}}, json::object()}}}));
}

// What `kubectl create rolebinding b --role=r --user=u --group=g` sends: repeated subjects.
TEST(ProtobufBodyTest, RoleBindingSubjectsAreRepeatedMessages) {
  const std::string rbac = "rbac.authorization.k8s.io";
  std::string raw = Bytes(1, Bytes(1, "b")) +
                    Bytes(2, Bytes(1, "User") + Bytes(2, rbac) + Bytes(3, "u")) +
                    Bytes(2, Bytes(1, "Group") + Bytes(2, rbac) + Bytes(3, "g")) +
                    Bytes(3, Bytes(1, rbac) + Bytes(2, "Role") + Bytes(3, "r"));
  EXPECT_EQ(Decoded(Envelope(rbac + "/v1", "RoleBinding", raw)),
            json({{"apiVersion", rbac + "/v1"},
                  {"kind", "RoleBinding"},
                  {"metadata", {{"name", "b"}}},
                  {"subjects",
                   {{{"kind", "User"}, {"apiGroup", rbac}, {"name", "u"}},
                    {{"kind", "Group"}, {"apiGroup", rbac}, {"name", "g"}}}},
                  {"roleRef", {{"apiGroup", rbac}, {"kind", "Role"}, {"name", "r"}}}}));
}

TEST(ProtobufMessageTest, AnEmptyMessageIsAnEmptyObject) {
  auto decoded = DecodeProtobufMessage(EveryTypeMessage(), "");
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, json::object());
}

TEST(ProtobufMessageTest, AMalformedNestedMessageIsMalformed) {
  auto decoded = DecodeProtobufMessage(EveryTypeMessage(), Bytes(8, Bytes(1, "x").substr(0, 2)));
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().message(), "the protobuf body of the request is malformed");
}

}  // namespace
}  // namespace tenure::server
