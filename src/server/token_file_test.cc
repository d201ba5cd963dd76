// Tests of ParseTokenFile: kube-apiserver's static token file with Go's CSV rules.
#include "server/token_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tenure::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

TokenFile Parse(std::string_view text) {
  auto file = ParseTokenFile(text, "tokens.csv");
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  return file.ok() ? *file : TokenFile{};
}

TEST(TokenFileTest, ReadsUsersUidsAndGroups) {
  TokenFile file = Parse(
      "t1,alice,42\n"
      "t2,bob,43,ops\n"
      "t3,carol,44,\"g1,g2\",ignored\r\n"
      "\n"
      "t4,dave,45,\n");
  ASSERT_THAT(file.users, SizeIs(4));
  EXPECT_EQ(file.users["t1"], (UserInfo{.name = "alice", .uid = "42"}));
  EXPECT_EQ(file.users["t2"], (UserInfo{.name = "bob", .uid = "43", .groups = {"ops"}}));
  EXPECT_EQ(file.users["t3"], (UserInfo{.name = "carol", .uid = "44", .groups = {"g1", "g2"}}));
  // An empty fourth column is one empty group, as strings.Split gives it.
  EXPECT_EQ(file.users["t4"], (UserInfo{.name = "dave", .uid = "45", .groups = {""}}));
  EXPECT_TRUE(file.warnings.empty());
}

TEST(TokenFileTest, QuotesAreGosAndNothingIsTrimmed) {
  TokenFile file = Parse("\"t,1\",\"a \"\"b\"\"\",1\n t2 , x ,2\n");
  ASSERT_TRUE(file.users.count("t,1"));
  EXPECT_EQ(file.users["t,1"].name, "a \"b\"");
  ASSERT_TRUE(file.users.count(" t2 "));
  EXPECT_EQ(file.users[" t2 "].name, " x ");
}

TEST(TokenFileTest, EmptyTokensAreSkippedAndRepeatedOnesReplaced) {
  TokenFile file = Parse(",nobody,1\nt,first,2\nt,second,3\n");
  ASSERT_THAT(file.users, SizeIs(1));
  EXPECT_EQ(file.users["t"].name, "second");
  ASSERT_THAT(file.warnings, SizeIs(2));
  EXPECT_THAT(file.warnings[0], HasSubstr("line 1: skipped: empty token"));
  EXPECT_THAT(file.warnings[1], HasSubstr("line 3: the token is repeated"));
}

TEST(TokenFileTest, ShortRecordsAndCsvErrorsStopTheServer) {
  auto short_record = ParseTokenFile("t1,alice,42\nt2,bob\n", "tokens.csv");
  EXPECT_EQ(short_record.status().message(),
            "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), "
            "found 2");
  auto bare = ParseTokenFile("t1,al\"ice,42\n", "tokens.csv");
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(
      bare.status().message(),
      "token file 'tokens.csv': parse error on line 1, column 6: bare \" in non-quoted field");
  auto open = ParseTokenFile("t1,\"alice,42\n", "tokens.csv");
  ASSERT_FALSE(open.ok());
  EXPECT_THAT(open.status().message(), HasSubstr("extraneous or missing \" in quoted field"));
  auto trailing = ParseTokenFile("t1,\"alice\"x,42\n", "tokens.csv");
  ASSERT_FALSE(trailing.ok());
  EXPECT_THAT(trailing.status().message(), HasSubstr("extraneous or missing \" in quoted field"));
  EXPECT_FALSE(ReadTokenFile("/nonexistent/tokens.csv").ok());
}

}  // namespace
}  // namespace tenure::server
