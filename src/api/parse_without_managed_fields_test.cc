// ParseWithoutManagedFields: the object as parsed whole, less metadata.managedFields.
#include "api/parse_without_managed_fields.h"

#include <gtest/gtest.h>

#include <string>

namespace tenure::api {
namespace {

using nlohmann::json;

json Whole(const std::string& text) {
  json object = json::parse(text);
  object["metadata"].erase("managedFields");
  return object;
}

TEST(ParseWithoutManagedFieldsTest, TheMemberGoesWhereverItStandsInTheMetadata) {
  const std::string fields = R"([{"manager":"m","fieldsV1":{"f:spec":{"f:renewTime":{}}}}])";
  for (const std::string& metadata :
       {R"({"managedFields":)" + fields + R"(,"name":"a","resourceVersion":"7"})",
        R"({"name":"a","managedFields":)" + fields + R"(,"resourceVersion":"7"})",
        R"({"name":"a","resourceVersion":"7","managedFields":)" + fields + "}",
        R"({ "name" : "a" ,  "managedFields" :  )" + fields + " \n}",
        R"({"managedFields":)" + fields + "}"}) {
    const std::string text = R"({"apiVersion":"v1","metadata":)" + metadata + R"(,"spec":{"x":1}})";
    const json parsed = ParseWithoutManagedFields(text);
    EXPECT_EQ(parsed, Whole(text)) << text;
    EXPECT_FALSE(parsed["metadata"].contains("managedFields")) << text;
    // As text: the same object, every other byte where it was.
    const std::string cut = TextWithoutManagedFields(text);
    EXPECT_EQ(json::parse(cut), Whole(text)) << text;
    EXPECT_EQ(cut.find("managedFields"), std::string::npos) << cut;
    EXPECT_TRUE(cut.starts_with(R"({"apiVersion":"v1","metadata":{)")) << cut;
    EXPECT_TRUE(cut.ends_with(R"(,"spec":{"x":1}})")) << cut;
  }
  EXPECT_EQ(TextWithoutManagedFields(R"({"metadata":{"name":"a", "managedFields":[] }})"),
            R"({"metadata":{"name":"a" }})");
}

TEST(ParseWithoutManagedFieldsTest, OtherTextIsParsedAsItIs) {
  for (const char* text : {R"({"metadata":{"name":"a"}})", R"({"spec":{"managedFields":[1]}})",
                           R"({"metadata":"not an object"})", "[1,2]", "\"text\"", "{}"}) {
    EXPECT_EQ(ParseWithoutManagedFields(text), json::parse(text)) << text;
    EXPECT_EQ(TextWithoutManagedFields(text), text);
  }
  // Malformed, inside the member or elsewhere: discarded, as a whole parse would be.
  for (const char* text : {R"({"metadata":{"managedFields":[},"name":"a"}})",
                           R"({"metadata":{"managedFields":[],"name":}})", "", "{"}) {
    EXPECT_TRUE(ParseWithoutManagedFields(text).is_discarded()) << text;
  }
}

}  // namespace
}  // namespace tenure::api
