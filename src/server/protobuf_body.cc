// DecodeProtobufObject: protobuf request bodies (kubectl's Namespace and ConfigMap) as JSON, read
// by the kinds' descriptions.
#include "server/protobuf_body.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/codec.h"
#include "api/kinds.h"

namespace tenure::server {

using nlohmann::json;

namespace {

// The wire types of the protobuf encoding.
enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// A minimal reader of the protobuf wire format (varint, 64-bit, length-delimited, 32-bit).
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool done() const { return pos_ >= data_.size(); }
  bool failed() const { return failed_; }

  // Reads the next field's tag; false at the end or on malformed input.
  bool Next(uint32_t& field, uint32_t& wire_type) {
    if (done() || failed_) return false;
    uint64_t tag = Varint();
    if (failed_) return false;
    field = static_cast<uint32_t>(tag >> 3);
    wire_type = static_cast<uint32_t>(tag & 7);
    return field != 0;
  }
  uint64_t Varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) break;
      uint8_t byte = static_cast<uint8_t>(data_[pos_++]);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    failed_ = true;
    return 0;
  }
  std::string_view Bytes() {
    uint64_t n = Varint();
    if (failed_ || n > data_.size() - pos_) {
      failed_ = true;
      return {};
    }
    std::string_view out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  void Skip(uint32_t wire_type) {
    switch (wire_type) {
      case kVarint:
        Varint();
        break;
      case kFixed64:
        Advance(8);
        break;
      case kLengthDelimited:
        Bytes();
        break;
      case kFixed32:
        Advance(4);
        break;
      default:
        failed_ = true;
    }
  }

 private:
  void Advance(size_t n) {
    if (n > data_.size() - pos_) {
      failed_ = true;
      return;
    }
    pos_ += n;
  }
  std::string_view data_;
  size_t pos_ = 0;
  bool failed_ = false;
};

Status Malformed() { return Status::BadRequest("the protobuf body of the request is malformed"); }

// A map<string, X> entry: key = 1, value = 2.
bool ReadMapEntry(std::string_view entry, std::string& key, std::string& value) {
  Reader r(entry);
  uint32_t field, type;
  while (r.Next(field, type)) {
    if (field == 1 && type == kLengthDelimited)
      key = r.Bytes();
    else if (field == 2 && type == kLengthDelimited)
      value = r.Bytes();
    else
      r.Skip(type);
  }
  return !r.failed();
}

// The wire type a field of `type` comes in; nullopt for types not read from protobuf.
std::optional<uint32_t> WireTypeOf(api::FieldType type) {
  using api::FieldType;
  switch (type) {
    case FieldType::kBool:
    case FieldType::kInt32:
    case FieldType::kInt64:
      return kVarint;
    case FieldType::kString:
    case FieldType::kStringMap:
    case FieldType::kBytesMap:
    case FieldType::kStringList:
    case FieldType::kObject:
    case FieldType::kObjectList:
      return kLengthDelimited;
    default:
      return std::nullopt;
  }
}

const api::FieldDescription* FieldNumbered(const api::ObjectDescription& description,
                                           uint32_t number) {
  for (const api::FieldDescription& f : description.fields) {
    if (f.proto == number) return &f;
  }
  return nullptr;
}

// Reads the value of `field` at `r` into `message`; false when it is malformed.
bool ReadField(Reader& r, const api::FieldDescription& field, json& message) {
  using api::FieldType;
  const std::string name(field.name);
  switch (field.type) {
    case FieldType::kBool:
      message[name] = r.Varint() != 0;
      break;
    case FieldType::kInt32:
      message[name] = static_cast<int32_t>(r.Varint());
      break;
    case FieldType::kInt64:
      message[name] = static_cast<int64_t>(r.Varint());
      break;
    case FieldType::kString:
      if (std::string value(r.Bytes()); !value.empty()) message[name] = std::move(value);
      break;
    case FieldType::kStringMap:
    case FieldType::kBytesMap: {
      std::string key, value;
      if (!ReadMapEntry(r.Bytes(), key, value)) return false;
      message[name][key] = field.type == FieldType::kBytesMap ? api::Base64Encode(value) : value;
      break;
    }
    case FieldType::kStringList:
      message[name].push_back(std::string(r.Bytes()));
      break;
    case FieldType::kObject: {
      auto object = DecodeProtobufMessage(*field.object, r.Bytes());
      if (!object.ok()) return false;
      if (!object->empty()) message[name] = std::move(*object);
      break;
    }
    case FieldType::kObjectList: {  // repeated messages: one element per occurrence
      auto object = DecodeProtobufMessage(*field.object, r.Bytes());
      if (!object.ok()) return false;
      message[name].push_back(std::move(*object));
      break;
    }
    default:
      break;  // WireTypeOf lets no other type through
  }
  return !r.failed();
}

// Whether protobuf bodies of `kind` are read: its description numbers some field.
bool TakesProtobuf(const api::KindInfo& kind) {
  for (const api::FieldDescription& f : api::Describe(kind).object->fields) {
    if (f.proto != 0) return true;
  }
  return false;
}

// "ConfigMap and Namespace": the kinds that take protobuf.
std::string KindsTakingProtobuf() {
  std::vector<std::string_view> kinds;
  for (const api::KindInfo* kind : api::AllKinds()) {
    if (TakesProtobuf(*kind)) kinds.push_back(kind->kind);
  }
  std::string out;
  for (size_t i = 0; i < kinds.size(); ++i) {
    if (i > 0) out += i + 1 == kinds.size() ? " and " : ", ";
    out += kinds[i];
  }
  return out;
}

// The served kind `api_version` and `kind` name, when it takes protobuf.
const api::KindInfo* ProtobufKind(std::string_view api_version, std::string_view kind) {
  std::vector<const api::KindInfo*> kinds = api::AllKinds();
  kinds.insert(kinds.end(), api::SubresourceKinds().begin(), api::SubresourceKinds().end());
  for (const api::KindInfo* info : kinds) {
    if (info->kind != kind || !TakesProtobuf(*info)) continue;
    for (std::string_view version : info->versions) {
      if (info->api_version(version) == api_version) return info;
    }
  }
  return nullptr;
}

// runtime.Unknown (apimachinery's runtime generated.proto): typeMeta = 1 (TypeMeta: apiVersion
// = 1, kind = 2), raw = 2 (the object's own message); contentEncoding and contentType unused.
constexpr uint32_t kUnknownTypeMeta = 1;
constexpr uint32_t kUnknownRaw = 2;
constexpr uint32_t kTypeMetaApiVersion = 1;
constexpr uint32_t kTypeMetaKind = 2;

}  // namespace

Result<json> DecodeProtobufMessage(const api::ObjectDescription& description,
                                   std::string_view message) {
  json out = json::object();
  Reader r(message);
  uint32_t number, type;
  while (r.Next(number, type)) {
    const api::FieldDescription* field = FieldNumbered(description, number);
    if (field == nullptr || WireTypeOf(field->type) != type) {
      r.Skip(type);  // not the client's to set, or not sent by the clients that send protobuf
    } else if (!ReadField(r, *field, out)) {
      return Malformed();
    }
  }
  if (r.failed()) return Malformed();
  return out;
}

Result<json> DecodeProtobufObject(std::string_view body) {
  static constexpr std::string_view kMagic("k8s\0", 4);
  if (body.substr(0, 4) != kMagic) return Malformed();
  Reader envelope(body.substr(4));
  std::string api_version, kind;
  std::string_view raw;
  uint32_t field, type;
  while (envelope.Next(field, type)) {
    if (field == kUnknownTypeMeta && type == kLengthDelimited) {
      Reader type_meta(envelope.Bytes());
      uint32_t f, t;
      while (type_meta.Next(f, t)) {
        if (f == kTypeMetaApiVersion && t == kLengthDelimited)
          api_version = type_meta.Bytes();
        else if (f == kTypeMetaKind && t == kLengthDelimited)
          kind = type_meta.Bytes();
        else
          type_meta.Skip(t);
      }
      if (type_meta.failed()) return Malformed();
    } else if (field == kUnknownRaw && type == kLengthDelimited) {
      raw = envelope.Bytes();
    } else {
      envelope.Skip(type);
    }
  }
  if (envelope.failed()) return Malformed();
  const api::KindInfo* info = ProtobufKind(api_version, kind);
  if (info == nullptr) {
    return Status(Reason::kUnsupportedMediaType, "protobuf bodies are accepted only for " +
                                                     KindsTakingProtobuf() + "; send " + kind +
                                                     " as application/json");
  }
  auto fields = DecodeProtobufMessage(*api::Describe(*info).object, raw);
  if (!fields.ok()) return fields;
  json object = {{"apiVersion", api_version}, {"kind", kind}};
  object.update(*fields);
  // Protobuf strings are bytes; JSON strings must be UTF-8 (as a JSON body's are, by parsing).
  try {
    (void)object.dump();
  } catch (const json::type_error&) {
    return Status::BadRequest("the body of the request contains a string that is not UTF-8");
  }
  return object;
}

}  // namespace tenure::server
