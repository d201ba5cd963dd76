// OpenApiV2Protobuf: a Swagger 2.0 JSON document written as gnostic's openapi.v2.Document.
#include "server/openapi_v2_proto.h"

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string_view>

namespace tenure::server {
namespace {

using nlohmann::json;

// One protobuf message being written (proto3: zero scalars are left out).
class Message {
 public:
  void String(uint32_t field, std::string_view s) {
    if (s.empty()) return;
    Tag(field, 2);
    Varint(s.size());
    out_ += s;
  }
  void Bool(uint32_t field, bool b) {
    if (!b) return;
    Tag(field, 0);
    Varint(1);
  }
  // A member of a oneof: written even when false.
  void OneofBool(uint32_t field, bool b) {
    Tag(field, 0);
    Varint(b ? 1 : 0);
  }
  void Double(uint32_t field, double d) {
    if (d == 0) return;
    Tag(field, 1);
    char bytes[8];
    std::memcpy(bytes, &d, 8);  // little-endian, as the wire format
    out_.append(bytes, 8);
  }
  void Child(uint32_t field, const Message& m) {
    Tag(field, 2);
    Varint(m.out_.size());
    out_ += m.out_;
  }
  const std::string& bytes() const { return out_; }

 private:
  void Tag(uint32_t field, uint32_t wire_type) { Varint((uint64_t{field} << 3) | wire_type); }
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_ += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    out_ += static_cast<char>(v);
  }

  std::string out_;
};

std::string StringOf(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool BoolOf(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

// gnostic's Any: the value as YAML text.
Message Any(const json& value) {
  Message m;
  m.String(2, value.dump(-1, ' ', false, json::error_handler_t::replace) + "\n");
  return m;
}

void Strings(Message& m, uint32_t field, const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_array()) return;
  for (const json& s : *it) {
    if (s.is_string()) m.String(field, s.get_ref<const std::string&>());
  }
}

// The x- keys of `object` as repeated NamedAny.
void VendorExtensions(Message& m, uint32_t field, const json& object) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (it.key().rfind("x-", 0) != 0) continue;
    Message named;
    named.String(1, it.key());
    named.Child(2, Any(*it));
    m.Child(field, named);
  }
}

void Anys(Message& m, uint32_t field, const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_array()) return;
  for (const json& v : *it) m.Child(field, Any(v));
}

Message Schema(const json& s) {
  Message m;
  if (!s.is_object()) return m;
  m.String(1, StringOf(s, "$ref"));
  m.String(2, StringOf(s, "format"));
  m.String(3, StringOf(s, "title"));
  m.String(4, StringOf(s, "description"));
  if (auto d = s.find("default"); d != s.end()) m.Child(5, Any(*d));
  if (auto v = s.find("maximum"); v != s.end() && v->is_number()) m.Double(7, v->get<double>());
  if (auto v = s.find("minimum"); v != s.end() && v->is_number()) m.Double(9, v->get<double>());
  m.Bool(16, BoolOf(s, "uniqueItems"));
  Strings(m, 19, s, "required");
  Anys(m, 20, s, "enum");
  if (auto a = s.find("additionalProperties"); a != s.end()) {
    Message item;
    if (a->is_boolean()) {
      item.OneofBool(2, a->get<bool>());
    } else {
      item.Child(1, Schema(*a));
    }
    m.Child(21, item);
  }
  if (auto t = s.find("type"); t != s.end()) {
    Message type;
    if (t->is_string()) type.String(1, t->get_ref<const std::string&>());
    if (t->is_array()) Strings(type, 1, s, "type");
    m.Child(22, type);
  }
  if (auto items = s.find("items"); items != s.end()) {
    Message item;
    if (items->is_array()) {
      for (const json& one : *items) item.Child(1, Schema(one));
    } else {
      item.Child(1, Schema(*items));
    }
    m.Child(23, item);
  }
  if (auto all = s.find("allOf"); all != s.end() && all->is_array()) {
    for (const json& one : *all) m.Child(24, Schema(one));
  }
  if (auto props = s.find("properties"); props != s.end() && props->is_object()) {
    Message properties;
    for (auto it = props->begin(); it != props->end(); ++it) {
      Message named;
      named.String(1, it.key());
      named.Child(2, Schema(*it));
      properties.Child(1, named);
    }
    m.Child(25, properties);
  }
  m.Bool(27, BoolOf(s, "readOnly"));
  VendorExtensions(m, 31, s);
  return m;
}

// The items of a non-body parameter (PrimitivesItems).
Message PrimitivesItems(const json& s) {
  Message m;
  m.String(1, StringOf(s, "type"));
  m.String(2, StringOf(s, "format"));
  if (auto items = s.find("items"); items != s.end() && items->is_object()) {
    m.Child(3, PrimitivesItems(*items));
  }
  m.String(4, StringOf(s, "collectionFormat"));
  if (auto d = s.find("default"); d != s.end()) m.Child(5, Any(*d));
  m.Bool(15, BoolOf(s, "uniqueItems"));
  Anys(m, 16, s, "enum");
  VendorExtensions(m, 18, s);
  return m;
}

// A query, path, header or form parameter (their sub-schemas share a layout, numbered from the
// `shift` of query and form parameters, which have allowEmptyValue as field 5).
Message NonBodySubSchema(const json& p, bool with_allow_empty) {
  const uint32_t shift = with_allow_empty ? 1 : 0;
  Message m;
  m.Bool(1, BoolOf(p, "required"));
  m.String(2, StringOf(p, "in"));
  m.String(3, StringOf(p, "description"));
  m.String(4, StringOf(p, "name"));
  if (with_allow_empty) m.Bool(5, BoolOf(p, "allowEmptyValue"));
  m.String(5 + shift, StringOf(p, "type"));
  m.String(6 + shift, StringOf(p, "format"));
  if (auto items = p.find("items"); items != p.end() && items->is_object()) {
    m.Child(7 + shift, PrimitivesItems(*items));
  }
  m.String(8 + shift, StringOf(p, "collectionFormat"));
  if (auto d = p.find("default"); d != p.end()) m.Child(9 + shift, Any(*d));
  m.Bool(19 + shift, BoolOf(p, "uniqueItems"));
  Anys(m, 20 + shift, p, "enum");
  VendorExtensions(m, 22 + shift, p);
  return m;
}

// ParametersItem: a reference, a body parameter or a non-body one.
Message ParametersItem(const json& p) {
  Message item;
  if (!p.is_object()) return item;
  if (p.contains("$ref")) {
    Message ref;
    ref.String(1, StringOf(p, "$ref"));
    ref.String(2, StringOf(p, "description"));
    item.Child(2, ref);
    return item;
  }
  Message parameter;
  const std::string in = StringOf(p, "in");
  if (in == "body") {
    Message body;
    body.String(1, StringOf(p, "description"));
    body.String(2, StringOf(p, "name"));
    body.String(3, in);
    body.Bool(4, BoolOf(p, "required"));
    if (auto s = p.find("schema"); s != p.end()) body.Child(5, Schema(*s));
    VendorExtensions(body, 6, p);
    parameter.Child(1, body);
  } else {
    Message non_body;
    if (in == "header") {
      non_body.Child(1, NonBodySubSchema(p, false));
    } else if (in == "formData") {
      non_body.Child(2, NonBodySubSchema(p, true));
    } else if (in == "query") {
      non_body.Child(3, NonBodySubSchema(p, true));
    } else {
      non_body.Child(4, NonBodySubSchema(p, false));
    }
    parameter.Child(2, non_body);
  }
  item.Child(1, parameter);
  return item;
}

void Parameters(Message& m, uint32_t field, const json& object) {
  auto it = object.find("parameters");
  if (it == object.end() || !it->is_array()) return;
  for (const json& p : *it) m.Child(field, ParametersItem(p));
}

Message Responses(const json& responses) {
  Message m;
  for (auto it = responses.begin(); it != responses.end(); ++it) {
    if (it.key().rfind("x-", 0) == 0) continue;
    Message value;
    if (it->contains("$ref")) {
      Message ref;
      ref.String(1, StringOf(*it, "$ref"));
      value.Child(2, ref);
    } else {
      Message response;
      response.String(1, StringOf(*it, "description"));
      if (auto s = it->find("schema"); s != it->end()) {
        Message item;
        item.Child(1, Schema(*s));
        response.Child(2, item);
      }
      VendorExtensions(response, 5, *it);
      value.Child(1, response);
    }
    Message named;
    named.String(1, it.key());
    named.Child(2, value);
    m.Child(1, named);
  }
  VendorExtensions(m, 2, responses);
  return m;
}

Message Operation(const json& op) {
  Message m;
  Strings(m, 1, op, "tags");
  m.String(2, StringOf(op, "summary"));
  m.String(3, StringOf(op, "description"));
  m.String(5, StringOf(op, "operationId"));
  Strings(m, 6, op, "produces");
  Strings(m, 7, op, "consumes");
  Parameters(m, 8, op);
  if (auto r = op.find("responses"); r != op.end() && r->is_object()) m.Child(9, Responses(*r));
  Strings(m, 10, op, "schemes");
  m.Bool(11, BoolOf(op, "deprecated"));
  VendorExtensions(m, 13, op);
  return m;
}

Message PathItem(const json& item) {
  Message m;
  m.String(1, StringOf(item, "$ref"));
  static constexpr std::pair<const char*, uint32_t> kMethods[] = {
      {"get", 2},     {"put", 3},  {"post", 4}, {"delete", 5},
      {"options", 6}, {"head", 7}, {"patch", 8}};
  for (const auto& [method, field] : kMethods) {
    if (auto op = item.find(method); op != item.end() && op->is_object()) {
      m.Child(field, Operation(*op));
    }
  }
  Parameters(m, 9, item);
  VendorExtensions(m, 10, item);
  return m;
}

Message SecurityDefinition(const json& d) {
  Message item;
  const std::string type = StringOf(d, "type");
  Message scheme;
  if (type == "apiKey") {
    scheme.String(1, type);
    scheme.String(2, StringOf(d, "name"));
    scheme.String(3, StringOf(d, "in"));
    scheme.String(4, StringOf(d, "description"));
    VendorExtensions(scheme, 5, d);
    item.Child(2, scheme);
  } else {
    scheme.String(1, type);
    scheme.String(2, StringOf(d, "description"));
    VendorExtensions(scheme, 3, d);
    item.Child(1, scheme);
  }
  return item;
}

}  // namespace

std::string OpenApiV2Protobuf(const json& doc) {
  Message m;
  if (!doc.is_object()) return m.bytes();
  m.String(1, StringOf(doc, "swagger"));
  if (auto info = doc.find("info"); info != doc.end() && info->is_object()) {
    Message i;
    i.String(1, StringOf(*info, "title"));
    i.String(2, StringOf(*info, "version"));
    i.String(3, StringOf(*info, "description"));
    VendorExtensions(i, 7, *info);
    m.Child(2, i);
  }
  m.String(3, StringOf(doc, "host"));
  m.String(4, StringOf(doc, "basePath"));
  Strings(m, 5, doc, "schemes");
  Strings(m, 6, doc, "consumes");
  Strings(m, 7, doc, "produces");
  if (auto paths = doc.find("paths"); paths != doc.end() && paths->is_object()) {
    Message p;
    VendorExtensions(p, 1, *paths);
    for (auto it = paths->begin(); it != paths->end(); ++it) {
      if (it.key().rfind("x-", 0) == 0) continue;
      Message named;
      named.String(1, it.key());
      named.Child(2, PathItem(*it));
      p.Child(2, named);
    }
    m.Child(8, p);
  }
  if (auto defs = doc.find("definitions"); defs != doc.end() && defs->is_object()) {
    Message d;
    for (auto it = defs->begin(); it != defs->end(); ++it) {
      Message named;
      named.String(1, it.key());
      named.Child(2, Schema(*it));
      d.Child(1, named);
    }
    m.Child(9, d);
  }
  if (auto security = doc.find("security"); security != doc.end() && security->is_array()) {
    for (const json& requirement : *security) {
      Message r;
      for (auto it = requirement.begin(); it != requirement.end(); ++it) {
        Message scopes;
        if (it->is_array()) {
          for (const json& s : *it) {
            if (s.is_string()) scopes.String(1, s.get_ref<const std::string&>());
          }
        }
        Message named;
        named.String(1, it.key());
        named.Child(2, scopes);
        r.Child(1, named);
      }
      m.Child(12, r);
    }
  }
  if (auto defs = doc.find("securityDefinitions"); defs != doc.end() && defs->is_object()) {
    Message d;
    for (auto it = defs->begin(); it != defs->end(); ++it) {
      Message named;
      named.String(1, it.key());
      named.Child(2, SecurityDefinition(*it));
      d.Child(1, named);
    }
    m.Child(13, d);
  }
  VendorExtensions(m, 16, doc);
  return m.bytes();
}

}  // namespace tenure::server
