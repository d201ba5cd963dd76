// YamlToJson: typed scalars, and the limits that make it safe for request bodies.
#include "server/yaml_json.h"

#include <gtest/gtest.h>

#include <string>

namespace tenure::server {
namespace {

using nlohmann::json;

TEST(YamlJsonTest, AliasesExpandWithinTheTextsOwnBudget) {
  auto ok = YamlToJson("base: &b {x: 1}\nfirst: *b\nsecond: *b\n");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)["second"], (json{{"x", 1}}));
  // "Billion laughs": ten levels of ten aliases each would be 10^10 values.
  std::string laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    laughs += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) laughs += (j ? ", " : "") + prev;
    laughs += "]\n";
  }
  auto bomb = YamlToJson(laughs);
  EXPECT_EQ(bomb.status().reason(), Reason::kBadRequest);
  EXPECT_EQ(bomb.status().message(), "yaml: document contains excessive aliasing");
}

TEST(YamlJsonTest, PlainScalarsAreTypedAsYaml11WithoutRegexRecursion) {
  auto typed =
      YamlToJson("a: yes\nb: off\nc: 0x1F\nd: 0755\ne: 1_000\nf: -2.5e3\ng: '1'\nh: 1.2.3\n");
  ASSERT_TRUE(typed.ok()) << typed.status().ToString();
  EXPECT_EQ(*typed, (json{{"a", true},
                          {"b", false},
                          {"c", 31},
                          {"d", 493},
                          {"e", 1000},
                          {"f", -2500.0},
                          {"g", "1"},
                          {"h", "1.2.3"}}));
  // A scalar of a million digits is a string, read in one pass (a regex would recurse per digit).
  auto digits = YamlToJson("a: " + std::string(1000000, '1') + "\n");
  ASSERT_TRUE(digits.ok()) << digits.status().ToString();
  EXPECT_TRUE((*digits)["a"].is_string());
}

TEST(YamlJsonTest, AnAliasInsideItsOwnAnchorIsRefusedNotFollowedForever) {
  auto cycle = YamlToJson("a: &a [1, *a]\n");
  EXPECT_EQ(cycle.status().reason(), Reason::kBadRequest) << cycle.status().ToString();
}

TEST(YamlJsonTest, DeepNestingIsABadRequest) {
  const std::string deep = std::string(50000, '[') + std::string(50000, ']');
  auto nested = YamlToJson(deep);
  EXPECT_EQ(nested.status().reason(), Reason::kBadRequest);
  auto bad_key = YamlToJson("? [a, b]\n: 1\n");
  EXPECT_EQ(bad_key.status().reason(), Reason::kBadRequest) << bad_key.status().ToString();
}

}  // namespace
}  // namespace tenure::server
