// Tests of ToYaml: kubectl's layout, quoting of ambiguous strings, nesting, empty containers.
#include "cli/yaml_output.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tenure::cli {
namespace {

using nlohmann::json;

TEST(YamlOutputTest, KubectlLayout) {
  json list = json::parse(R"({
    "apiVersion": "coordination.k8s.io/v1", "kind": "LeaseList",
    "items": [{"metadata": {"name": "a", "resourceVersion": "12", "labels": {}},
               "spec": {"holderIdentity": "node-1", "leaseDurationSeconds": 15,
                        "renewTime": "2024-01-01T00:00:00.000000Z"}}],
    "metadata": {"resourceVersion": "12"}})");
  EXPECT_EQ(ToYaml(list),
            "apiVersion: coordination.k8s.io/v1\n"
            "items:\n"
            "- metadata:\n"
            "    labels: {}\n"
            "    name: a\n"
            "    resourceVersion: \"12\"\n"
            "  spec:\n"
            "    holderIdentity: node-1\n"
            "    leaseDurationSeconds: 15\n"
            "    renewTime: \"2024-01-01T00:00:00.000000Z\"\n"
            "kind: LeaseList\n"
            "metadata:\n"
            "  resourceVersion: \"12\"\n");
}

TEST(YamlOutputTest, QuotesStringsYamlWouldReadAsSomethingElse) {
  json v = {{"a", "true"},        {"b", "no"},   {"c", "null"},       {"d", ""},
            {"e", "1.5"},         {"f", "a: b"}, {"g", "x #y"},       {"h", "-x"},
            {"i", "line\nbreak"}, {"j", " pad"}, {"k", "plain text"}, {"l", "~"}};
  EXPECT_EQ(ToYaml(v),
            "a: \"true\"\n"
            "b: \"no\"\n"
            "c: \"null\"\n"
            "d: \"\"\n"
            "e: \"1.5\"\n"
            "f: \"a: b\"\n"
            "g: \"x #y\"\n"
            "h: \"-x\"\n"
            "i: \"line\\nbreak\"\n"
            "j: \" pad\"\n"
            "k: plain text\n"
            "l: \"~\"\n");
}

TEST(YamlOutputTest, ScalarsNestedListsAndEmptyContainers) {
  json v = {{"n", nullptr},
            {"t", true},
            {"f", 1.5},
            {"list", {1, "x", json::array(), {2, 3}}},
            {"empty", json::array()}};
  EXPECT_EQ(ToYaml(v),
            "empty: []\n"
            "f: 1.5\n"
            "list:\n"
            "- 1\n"
            "- x\n"
            "- []\n"
            "-\n"
            "  - 2\n"
            "  - 3\n"
            "\"n\": null\n"  // a key too: YAML 1.1 reads a plain n as false
            "t: true\n");
  EXPECT_EQ(ToYaml(json::object()), "{}\n");
  EXPECT_EQ(ToYaml("text"), "text\n");
}

}  // namespace
}  // namespace tenure::cli
