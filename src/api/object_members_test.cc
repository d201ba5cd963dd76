// Tests of ObjectMembers: an object's top-level members as spans, and the object rewritten.
#include "api/object_members.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tenure::api {
namespace {

std::string ValueOf(std::string_view text, const ObjectMember& member) {
  return std::string(text.substr(member.begin, member.end - member.begin));
}

TEST(ObjectMembersTest, EachMemberIsTheSpanOfItsValue) {
  const std::string text =
      " {\"a\" : 1 ,\"b\":{\"c\":[1,{\"d\":\"}\"}]}, \"e\\u0041\":\"x\\\"y\",\"f\":null} ";
  auto members = ReadObjectMembers(text);
  ASSERT_TRUE(members);
  ASSERT_EQ(members->size(), 4u);
  EXPECT_EQ((*members)[0].key, "a");
  EXPECT_EQ(ValueOf(text, (*members)[0]), "1");
  EXPECT_EQ(ValueOf(text, (*members)[1]), "{\"c\":[1,{\"d\":\"}\"}]}");
  EXPECT_EQ((*members)[2].key, "eA");
  EXPECT_EQ(ValueOf(text, (*members)[2]), "\"x\\\"y\"");
  EXPECT_EQ(ValueOf(text, (*members)[3]), "null");
  EXPECT_TRUE(ReadObjectMembers("{}")->empty());
}

TEST(ObjectMembersTest, WhatIsNotOneObjectIsRefused) {
  for (const char* bad : {"", "[1]", "\"s\"", "{", "{\"a\":}", "{\"a\":1,}", "{\"a\":1}x",
                          "{\"a\":1}{}", "{\"a\":\"\xff\"}", "{\"a\":tru}", "{a:1}"}) {
    EXPECT_FALSE(ReadObjectMembers(bad)) << bad;
  }
}

// As a parser keeps it: the last of two members of one name.
TEST(ObjectMembersTest, FindMemberFindsTheLastOfItsName) {
  const std::string text = R"({"a":1,"b":2,"a":3})";
  auto members = ReadObjectMembers(text);
  ASSERT_TRUE(members);
  ASSERT_NE(FindMember(*members, "a"), nullptr);
  EXPECT_EQ(ValueOf(text, *FindMember(*members, "a")), "3");
  EXPECT_EQ(FindMember(*members, "z"), nullptr);
  EXPECT_EQ(nlohmann::json::parse(text)["a"], 3);
}

TEST(ObjectMembersTest, ReplaceMembersKeepsTheRestByteForByte) {
  const std::string text = R"({"kind":"Lease", "metadata":{"x" : [1, 2]},"spec":{"a":1},"q\"k":0})";
  auto members = ReadObjectMembers(text);
  ASSERT_TRUE(members);
  EXPECT_EQ(ReplaceMembers(text, *members, {{"spec", R"({"b":2})"}, {"apiVersion", R"("v1")"}}),
            R"({"apiVersion":"v1","kind":"Lease","metadata":{"x" : [1, 2]},"spec":{"b":2},)"
            R"("q\"k":0})");
  EXPECT_EQ(ReplaceMembers(text, *members, {}),
            R"({"kind":"Lease","metadata":{"x" : [1, 2]},"spec":{"a":1},"q\"k":0})");
  // Every member of a replaced name holds the new value.
  const std::string twice = R"({"a":1,"a":2})";
  EXPECT_EQ(ReplaceMembers(twice, *ReadObjectMembers(twice), {{"a", "3"}}), R"({"a":3,"a":3})");
  EXPECT_EQ(ReplaceMembers("{}", {}, {{"a", "1"}, {"b", "2"}}), R"({"a":1,"b":2})");
  // A key that needs escapes is written with them.
  EXPECT_EQ(ReplaceMembers("{}", {}, {{"a\nb\\\xc3\xa9", "1"}}), "{\"a\\nb\\\\\xc3\xa9\":1}");
}

TEST(ObjectMembersTest, DecodeStringReadsOnlyAString) {
  EXPECT_EQ(DecodeString(R"("12")"), "12");
  EXPECT_EQ(DecodeString(R"("a\u00e9\"")"), "a\xc3\xa9\"");
  EXPECT_FALSE(DecodeString("12"));
  EXPECT_FALSE(DecodeString("null"));
  EXPECT_FALSE(DecodeString(R"("a" "b")"));
  EXPECT_FALSE(DecodeString(R"("unterminated)"));
}

}  // namespace
}  // namespace tenure::api
