// ParseJson and DumpJson: the trees and the text nlohmann's parse() and dump() make, types and
// bytes included. (The random agreement with nlohmann is in json_scanner_test.cc.)
#include "api/json_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "api/client_json.h"

namespace tenure::api {
namespace {

using nlohmann::json;

TEST(ParseJsonTest, BuildsTheTreeNlohmannBuildsTypesIncluded) {
  for (const char* text :
       {"0",
        "-0",
        "42",
        "-42",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "1.0",
        "-0.0",
        "1e2",
        "1E+2",
        "0.1",
        "1e-400",
        "4.9e-324",
        "2.2250738585072014e-308",
        "123456789012345678901234567890",
        "1.7976931348623157e308",
        "true",
        "false",
        "null",
        R"("a\"b\u00e9\ud83d\ude00")",
        "[]",
        "{}",
        R"({"a":1,"a":2})",
        R"({"a":{"b":1},"a":[1,2]})",
        R"({"a":[1,2],"a":{}})",
        " \t\n[ 1 , [ ] , { } , \"x\" ] \r",
        "\xEF\xBB\xBF{\"k\":[true]}",
        R"({"metadata":{"name":"n","labels":{"a":"b"}},"spec":{"x":[{"y":-1.5e-3}]}})"}) {
    const json expected = json::parse(text);
    const json got = ParseJson(text);
    EXPECT_TRUE(IdenticalJson(got, expected)) << text << " -> " << got.dump();
    EXPECT_EQ(got.dump(), expected.dump()) << text;
  }
  EXPECT_TRUE(ParseJson("18446744073709551615").is_number_unsigned());
  EXPECT_TRUE(ParseJson("-1").is_number_integer());
  EXPECT_TRUE(ParseJson("18446744073709551616").is_number_float());
  EXPECT_EQ(ParseJson(R"({"a":1,"a":2})")["a"], 2);
  // IdenticalJson tells the types apart where == does not.
  EXPECT_EQ(json(1), json(1u));
  EXPECT_FALSE(IdenticalJson(json(1), json(1u)));
  EXPECT_FALSE(IdenticalJson(json(1.0), json(1)));
  EXPECT_EQ(json(-0.0), json(0.0));
  EXPECT_FALSE(IdenticalJson(json(-0.0), json(0.0)));
  EXPECT_TRUE(ParseJson("-1e-400").is_number_float());
  EXPECT_TRUE(std::signbit(ParseJson("-1e-400").get<double>()));
  EXPECT_FALSE(IdenticalJson(json::parse(R"({"a":[1]})"), json::parse(R"({"a":[1,2]})")));
  EXPECT_FALSE(IdenticalJson(json::parse(R"({"a":1})"), json::parse(R"({"b":1})")));
}

TEST(ParseJsonTest, RefusesWhatNlohmannRefuses) {
  for (const char* text : {"",
                           " ",
                           "01",
                           "1.",
                           "-",
                           "1e",
                           ".5",
                           "tru",
                           "nul",
                           "[1,]",
                           "[1 2]",
                           R"({"a"})",
                           R"({"a":1,})",
                           R"({a:1})",
                           "{",
                           "]",
                           "[1}",
                           "+1",
                           "1e400",
                           "{} {}",
                           "[\"\\x\"]",
                           "\"\xC0\xAF\"",
                           "{}\xEF\xBB\xBF",
                           "[1]]"}) {
    EXPECT_TRUE(ParseJson(text).is_discarded()) << text;
    EXPECT_FALSE(json::accept(text)) << text;
  }
  // nlohmann ends its input at a NUL byte outside a string; ParseJson refuses one.
  EXPECT_TRUE(ParseJson(std::string_view("{}\0x", 4)).is_discarded());
}

TEST(ParseJsonTest, DeepNestingIsBuiltWithoutRecursion) {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  const json tree = ParseJson(deep);
  ASSERT_TRUE(tree.is_array());
  EXPECT_EQ(JsonValueDepth(tree), 200000u);
  EXPECT_TRUE(ParseJson(deep.substr(0, deep.size() - 1)).is_discarded());
}

TEST(DumpJsonTest, WritesWhatDumpWritesByteForByte) {
  std::string controls;
  for (int c = 0; c < 0x20; ++c) controls.push_back(static_cast<char>(c));
  json tree = {
      {"controls", controls},
      {"specials", "\"\\/\x7F"},
      {"text", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"},
      {"key \"quoted\"\n", json::array({json::object(), json::array(), nullptr, true, false})},
      {"integers", {0, -1, INT64_MIN, INT64_MAX, UINT64_MAX, 42u}},
      {"doubles", {1.0, -0.0, 0.1, 1e100, 5e-324, 1.7976931348623157e308, -2.5e-7, 3.0e20}},
      {"nested", {{"a", {{"b", {{"c", json::array({1, "x"})}}}}}}},
  };
  EXPECT_EQ(DumpJson(tree), tree.dump());
  for (const json& value : {json(), json(true), json(""), json(0), json(-0.5), json::object(),
                            json::array(), json("\x01")}) {
    EXPECT_EQ(DumpJson(value), value.dump()) << value.dump();
  }
  const std::string lease =
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"managedFields":[{)"
      R"("fieldsV1":{"f:spec":{"f:holderIdentity":{}}},"manager":"m","operation":"Update"}],)"
      R"("name":"a"},"spec":{"holderIdentity":"x","leaseDurationSeconds":15}})";
  EXPECT_EQ(DumpJson(json::parse(lease)), lease);
}

TEST(DumpJsonTest, AStringThatIsNotUtf8IsRefusedAsDumpRefusesIt) {
  for (const char* bad : {"\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE2\x82", "\xFF"}) {
    const json value = {{"a", bad}};
    EXPECT_THROW(value.dump(), json::type_error) << bad;
    EXPECT_THROW(DumpJson(value), json::type_error) << bad;
    const json key = {{bad, 1}};
    EXPECT_THROW(DumpJson(key), json::type_error) << bad;
  }
}

}  // namespace
}  // namespace tenure::api
