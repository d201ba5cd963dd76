// DecodeProtobufObject: the protobuf Namespace and ConfigMap bodies kubectl sends, as JSON.
#include "server/protobuf_body.h"

#include <functional>
#include <nlohmann/json.hpp>

#include "api/codec.h"

namespace tenure::server {

using nlohmann::json;

namespace {

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
      case 0:
        Varint();
        break;
      case 1:
        Advance(8);
        break;
      case 2:
        Bytes();
        break;
      case 5:
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

// map<string,string> entry: key = 1, value = 2.
bool ReadMapEntry(std::string_view entry, std::string& key, std::string& value) {
  Reader r(entry);
  uint32_t field, type;
  while (r.Next(field, type)) {
    if (field == 1 && type == 2)
      key = r.Bytes();
    else if (field == 2 && type == 2)
      value = r.Bytes();
    else
      r.Skip(type);
  }
  return !r.failed();
}

Result<json> ReadObjectMeta(std::string_view data) {
  json meta = json::object();
  Reader r(data);
  uint32_t field, type;
  while (r.Next(field, type)) {
    if (type == 2 && (field == 1 || field == 2 || field == 3)) {
      static constexpr const char* kNames[] = {"", "name", "generateName", "namespace"};
      std::string value(r.Bytes());
      if (!value.empty()) meta[kNames[field]] = value;
    } else if (type == 2 && (field == 11 || field == 12)) {
      std::string key, value;
      if (!ReadMapEntry(r.Bytes(), key, value)) return Malformed();
      meta[field == 11 ? "labels" : "annotations"][key] = value;
    } else if (type == 2 && field == 14) {
      meta["finalizers"].push_back(std::string(r.Bytes()));
    } else {
      r.Skip(type);  // server-owned or unused by the clients that send protobuf
    }
  }
  if (r.failed()) return Malformed();
  return meta;
}

// Reads a top-level object: field 1 is its ObjectMeta, every other field goes to `field_of`,
// which stores it into `object` and returns false when it is malformed (unknown fields: Skip).
using FieldReader = std::function<bool(Reader& r, uint32_t field, uint32_t type, json& object)>;
Result<json> ReadObject(std::string_view raw, json object, const FieldReader& field_of) {
  Reader r(raw);
  uint32_t field, type;
  while (r.Next(field, type)) {
    if (field == 1 && type == 2) {
      auto meta = ReadObjectMeta(r.Bytes());
      if (!meta.ok()) return meta.status();
      object["metadata"] = std::move(*meta);
    } else if (!field_of(r, field, type, object)) {
      return Malformed();
    }
  }
  if (r.failed()) return Malformed();
  return object;
}

Result<json> ReadNamespace(std::string_view raw) {
  return ReadObject(raw, {{"apiVersion", "v1"}, {"kind", "Namespace"}},
                    [](Reader& r, uint32_t field, uint32_t type, json& object) {
                      if (field != 2 || type != 2) {
                        r.Skip(type);  // status is the server's
                        return true;
                      }
                      Reader spec(r.Bytes());
                      uint32_t f, t;
                      json finalizers = json::array();
                      while (spec.Next(f, t)) {
                        if (f == 1 && t == 2)
                          finalizers.push_back(std::string(spec.Bytes()));
                        else
                          spec.Skip(t);
                      }
                      if (!finalizers.empty()) object["spec"]["finalizers"] = std::move(finalizers);
                      return !spec.failed();
                    });
}

Result<json> ReadConfigMap(std::string_view raw) {
  return ReadObject(raw, {{"apiVersion", "v1"}, {"kind", "ConfigMap"}},
                    [](Reader& r, uint32_t field, uint32_t type, json& object) {
                      if ((field == 2 || field == 3) && type == 2) {
                        std::string key, value;
                        if (!ReadMapEntry(r.Bytes(), key, value)) return false;
                        if (field == 2)
                          object["data"][key] = value;
                        else
                          object["binaryData"][key] = api::Base64Encode(value);
                      } else if (field == 4 && type == 0) {
                        object["immutable"] = r.Varint() != 0;
                      } else {
                        r.Skip(type);
                      }
                      return true;
                    });
}

}  // namespace

Result<json> DecodeProtobufObject(std::string_view body) {
  static constexpr std::string_view kMagic("k8s\0", 4);
  if (body.substr(0, 4) != kMagic) return Malformed();
  Reader envelope(body.substr(4));
  std::string api_version, kind;
  std::string_view raw;
  uint32_t field, type;
  while (envelope.Next(field, type)) {
    if (field == 1 && type == 2) {
      Reader type_meta(envelope.Bytes());
      uint32_t f, t;
      while (type_meta.Next(f, t)) {
        if (f == 1 && t == 2)
          api_version = type_meta.Bytes();
        else if (f == 2 && t == 2)
          kind = type_meta.Bytes();
        else
          type_meta.Skip(t);
      }
      if (type_meta.failed()) return Malformed();
    } else if (field == 2 && type == 2) {
      raw = envelope.Bytes();
    } else {
      envelope.Skip(type);
    }
  }
  if (envelope.failed()) return Malformed();
  Result<json> object = Status::Ok();
  if (api_version == "v1" && kind == "Namespace") {
    object = ReadNamespace(raw);
  } else if (api_version == "v1" && kind == "ConfigMap") {
    object = ReadConfigMap(raw);
  } else {
    return Status(Reason::kUnsupportedMediaType,
                  "protobuf bodies are accepted only for Namespace and ConfigMap; send " + kind +
                      " as application/json");
  }
  if (!object.ok()) return object;
  // Protobuf strings are bytes; JSON strings must be UTF-8 (as a JSON body's are, by parsing).
  try {
    (void)object->dump();
  } catch (const json::type_error&) {
    return Status::BadRequest("the body of the request contains a string that is not UTF-8");
  }
  return object;
}

}  // namespace tenure::server
