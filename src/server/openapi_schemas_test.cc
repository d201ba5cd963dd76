// Tests of OpenAPI schema rendering from descriptions: names, field forms, defaults, extensions.
#include "server/openapi_schemas.h"

#include <gtest/gtest.h>

#include "api/meta_descriptions.h"

namespace tenure::server {
namespace {

using api::Emit;
using nlohmann::json;
namespace field = api::field;

const api::ObjectDescription& Item() {
  static const api::ObjectDescription d{
      .go_name = "Item",
      .doc = "An item.",
      .fields = {field::String("key", Emit::kAlways, "The key.").Required().OpenApiDefault()},
      .map_type = "atomic",
  };
  return d;
}

const api::ObjectDescription& Thing() {
  static const api::ObjectDescription d{
      .go_name = "Thing",
      .doc = "A thing.",
      .fields = {
          field::String("phase", Emit::kOmitEmpty, "The phase.").Enum({"A", "B"}),
          field::Int64("count", Emit::kPointer, "How many."),
          field::MicroTime("seen", Emit::kPointer, "When."),
          field::Object("item", Emit::kAlways, Item(), "Its item.").OpenApiDefault(),
          field::ObjectList("items", Emit::kOmitEmpty, Item(), "Its items.")
              .ListType("map")
              .PatchMerge("key"),
          field::StringList("tags", Emit::kOmitEmpty, "Tags.").ListType("set").PatchMerge(),
      }};
  return d;
}

TEST(OpenApiSchemasTest, NamesFollowPackages) {
  EXPECT_EQ(OpenApiSchemaName(Thing(), "coordination.k8s.io", "v1beta1"),
            "io.k8s.api.coordination.v1beta1.Thing");
  EXPECT_EQ(OpenApiSchemaName(Thing(), "", "v1"), "io.k8s.api.core.v1.Thing");
  EXPECT_EQ(OpenApiSchemaName(api::ObjectMetaObject(), "", "v1"),
            "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
}

TEST(OpenApiSchemasTest, FieldsAndHeldObjects) {
  const json schemas = OpenApiSchemas({&Thing()}, "example.com", "v1");
  const std::string item = "io.k8s.api.example.v1.Item";
  const std::string micro = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime";
  ASSERT_TRUE(schemas.contains(item));
  ASSERT_TRUE(schemas.contains(micro));
  EXPECT_EQ(schemas[micro]["format"], "date-time");
  EXPECT_EQ(schemas[item]["required"], json::array({"key"}));
  EXPECT_EQ(schemas[item]["properties"]["key"]["default"], "");
  EXPECT_EQ(schemas[item]["x-kubernetes-map-type"], "atomic");

  const json& p = schemas["io.k8s.api.example.v1.Thing"]["properties"];
  EXPECT_EQ(p["phase"], json::parse(R"({"type":"string","description":"The phase.",
                                        "enum":["A","B"]})"));
  EXPECT_EQ(p["count"]["format"], "int64");
  EXPECT_EQ(p["seen"]["allOf"][0]["$ref"], "#/components/schemas/" + micro);
  EXPECT_EQ(p["item"]["default"], json::object());
  EXPECT_EQ(p["items"]["items"]["default"], json::object());
  EXPECT_EQ(p["items"]["x-kubernetes-list-map-keys"], json::array({"key"}));
  EXPECT_EQ(p["items"]["x-kubernetes-patch-merge-key"], "key");
  EXPECT_EQ(p["items"]["x-kubernetes-patch-strategy"], "merge");
  EXPECT_EQ(p["tags"]["x-kubernetes-list-type"], "set");
  EXPECT_FALSE(p["tags"].contains("x-kubernetes-patch-merge-key"));
  EXPECT_FALSE(schemas["io.k8s.api.example.v1.Thing"].contains("required"));
}

}  // namespace
}  // namespace tenure::server
