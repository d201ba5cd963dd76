// Tests of the query parameters read as kube-apiserver reads them: booleans, Go integers, the
// first of repeated values, and the 422s of a write's options.
#include "server/query_options.h"

#include <gtest/gtest.h>

#include <string>

#include "api/url.h"

namespace tenure::server {
namespace {

HttpRequest WithQuery(const std::string& query) {
  HttpRequest request;
  request.method = "GET";
  request.query = api::ParseQuery(query);
  return request;
}

TEST(QueryBoolTest, FalseOnlyWhenAbsentZeroOrFalseInAnyCase) {
  for (const char* query :
       {"", "watch=0", "watch=false", "watch=FALSE", "watch=False", "other=1"}) {
    EXPECT_FALSE(QueryBool(WithQuery(query), "watch")) << query;
  }
  // The Python client sends "True"; a bare key and an empty value are true too.
  for (const char* query : {"watch=True", "watch=true", "watch=1", "watch", "watch=", "watch=yes",
                            "watch=no", "watch=2", "watch=%20false"}) {
    EXPECT_TRUE(QueryBool(WithQuery(query), "watch")) << query;
  }
}

TEST(QueryBoolTest, TheFirstOfRepeatedValuesCounts) {
  EXPECT_FALSE(QueryBool(WithQuery("watch=false&watch=true"), "watch"));
  EXPECT_TRUE(QueryBool(WithQuery("watch=true&watch=false"), "watch"));
  EXPECT_EQ(WithQuery("limit=1&limit=2").param("limit"), "1");
}

TEST(QueryBoolTest, OptionalIsSetWheneverPresent) {
  EXPECT_EQ(QueryOptionalBool(WithQuery(""), "sendInitialEvents"), std::nullopt);
  EXPECT_EQ(QueryOptionalBool(WithQuery("sendInitialEvents=false"), "sendInitialEvents"), false);
  EXPECT_EQ(QueryOptionalBool(WithQuery("sendInitialEvents"), "sendInitialEvents"), true);
}

TEST(ParseGoInt64Test, SignAndDecimalDigitsOnly) {
  EXPECT_EQ(*ParseGoInt64("0"), 0);
  EXPECT_EQ(*ParseGoInt64("+17"), 17);
  EXPECT_EQ(*ParseGoInt64("-17"), -17);
  EXPECT_EQ(*ParseGoInt64("007"), 7);
  EXPECT_EQ(*ParseGoInt64("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(*ParseGoInt64("-9223372036854775808"), INT64_MIN);
}

TEST(ParseGoInt64Test, GoErrorTexts) {
  auto message = [](const std::string& text) {
    auto r = ParseGoInt64(text);
    EXPECT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), 400) << text;
    return r.status().message();
  };
  EXPECT_EQ(message(""), "strconv.ParseInt: parsing \"\": invalid syntax");
  EXPECT_EQ(message("abc"), "strconv.ParseInt: parsing \"abc\": invalid syntax");
  EXPECT_EQ(message("1s"), "strconv.ParseInt: parsing \"1s\": invalid syntax");
  EXPECT_EQ(message("-"), "strconv.ParseInt: parsing \"-\": invalid syntax");
  EXPECT_EQ(message(" 1"), "strconv.ParseInt: parsing \" 1\": invalid syntax");
  EXPECT_EQ(message("1_000"), "strconv.ParseInt: parsing \"1_000\": invalid syntax");
  EXPECT_EQ(message("0x10"), "strconv.ParseInt: parsing \"0x10\": invalid syntax");
  EXPECT_EQ(message("9223372036854775808"),
            "strconv.ParseInt: parsing \"9223372036854775808\": value out of range");
  EXPECT_EQ(message("-9223372036854775809"),
            "strconv.ParseInt: parsing \"-9223372036854775809\": value out of range");
  EXPECT_EQ(message("99999999999999999999999"),
            "strconv.ParseInt: parsing \"99999999999999999999999\": value out of range");
  // Go parses in one pass: a value past uint64 is out of range before a later bad byte is seen,
  // a bad byte before that is bad syntax.
  EXPECT_EQ(message("99999999999999999999999x"),
            "strconv.ParseInt: parsing \"99999999999999999999999x\": value out of range");
  EXPECT_EQ(message("9x9999999999999999999999"),
            "strconv.ParseInt: parsing \"9x9999999999999999999999\": invalid syntax");
  EXPECT_EQ(message("18446744073709551615x"),
            "strconv.ParseInt: parsing \"18446744073709551615x\": invalid syntax");
  EXPECT_EQ(message("18446744073709551616"),
            "strconv.ParseInt: parsing \"18446744073709551616\": value out of range");
  EXPECT_EQ(message("a\"b"), "strconv.ParseInt: parsing \"a\\\"b\": invalid syntax");
}

TEST(ParseListQueryTest, IntegersAndBookmarks) {
  auto q = ParseListQuery(WithQuery("limit=5&timeoutSeconds=30&allowWatchBookmarks=True"), true);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->limit, 5);
  EXPECT_EQ(q->timeout_seconds, 30);
  EXPECT_TRUE(q->allow_watch_bookmarks);
  auto none = ParseListQuery(WithQuery(""), false);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->limit, std::nullopt);
  EXPECT_FALSE(none->allow_watch_bookmarks);
  auto bad = ParseListQuery(WithQuery("limit="), false);
  EXPECT_EQ(bad.status().code(), 400);
  EXPECT_EQ(bad.status().message(), "strconv.ParseInt: parsing \"\": invalid syntax");
}

std::string ListError(const std::string& query, bool watch) {
  auto r = ParseListQuery(WithQuery(query), watch);
  EXPECT_FALSE(r.ok()) << query;
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), 422) << query;
  return r.status().message();
}

TEST(ParseListQueryTest, WatchListOptions) {
  auto q = ParseListQuery(
      WithQuery("sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=1"),
      true);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->send_initial_events, true);
  const std::string prefix = "ListOptions.meta.k8s.io \"\" is invalid: ";
  EXPECT_EQ(ListError("sendInitialEvents=false", true),
            prefix +
                "resourceVersionMatch: Forbidden: sendInitialEvents requires setting "
                "resourceVersionMatch to NotOlderThan");
  EXPECT_EQ(ListError("resourceVersionMatch=Exact", true),
            prefix +
                "[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch "
                "unless sendInitialEvents is provided, resourceVersionMatch: Unsupported "
                "value: \"Exact\": supported values: \"NotOlderThan\"]");
  EXPECT_EQ(ListError("sendInitialEvents=1&resourceVersionMatch=NotOlderThan&continue=x", true),
            prefix +
                "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when "
                "continue is provided");
}

TEST(ParseListQueryTest, ListResourceVersionMatch) {
  const std::string prefix = "ListOptions.meta.k8s.io \"\" is invalid: ";
  EXPECT_TRUE(
      ParseListQuery(WithQuery("resourceVersion=5&resourceVersionMatch=Exact"), false).ok());
  EXPECT_EQ(ListError("resourceVersionMatch=NotOlderThan", false),
            prefix +
                "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless "
                "resourceVersion is provided");
  EXPECT_EQ(ListError("resourceVersion=1&resourceVersionMatch=x", false),
            prefix +
                "resourceVersionMatch: Unsupported value: \"x\": supported values: "
                "\"Exact\", \"NotOlderThan\", \"\"");
  EXPECT_EQ(ListError("resourceVersion=0&resourceVersionMatch=Exact", false),
            prefix +
                "resourceVersionMatch: Forbidden: resourceVersionMatch \"exact\" is forbidden "
                "for resourceVersion \"0\"");
  EXPECT_EQ(ListError("sendInitialEvents=true", false),
            prefix + "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list");
}

TEST(ListReadOfTest, KubesTable) {
  auto read = [](const std::string& query, int64_t rv) {
    return ListReadOf(*ParseListQuery(WithQuery(query), false), rv);
  };
  EXPECT_EQ(read("", 0), ListRead::kCurrent);
  EXPECT_EQ(read("limit=5", 0), ListRead::kCurrent);
  EXPECT_EQ(read("", 7), ListRead::kNotOlderThan);
  EXPECT_EQ(read("limit=5", 7), ListRead::kExact);
  EXPECT_EQ(read("resourceVersion=7&resourceVersionMatch=NotOlderThan&limit=5", 7),
            ListRead::kNotOlderThan);
  EXPECT_EQ(read("resourceVersion=7&resourceVersionMatch=Exact", 7), ListRead::kExact);
}

TEST(TooLargeResourceVersionTest, KubesTimeoutWithItsCause) {
  Status s = TooLargeResourceVersion(12, 9);
  EXPECT_EQ(s.code(), 504);
  EXPECT_EQ(s.message(), "Timeout: Too large resource version: 12, current: 9");
  ASSERT_EQ(s.causes().size(), 1u);
  EXPECT_EQ(s.causes()[0].type, "ResourceVersionTooLarge");
  EXPECT_EQ(s.causes()[0].message, "Too large resource version");
}

Status WriteError(const std::string& query, Verb verb, bool apply = false) {
  auto r = ParseWriteQuery(WithQuery(query), verb, apply);
  return r.ok() ? Status::Ok() : r.status();
}

TEST(ParseWriteQueryTest, DryRunAllOnly) {
  auto q = ParseWriteQuery(WithQuery("dryRun=All"), Verb::kCreate, false);
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(q->dry_run);
  EXPECT_FALSE(ParseWriteQuery(WithQuery(""), Verb::kCreate, false)->dry_run);
  Status s = WriteError("dryRun=All&dryRun=x", Verb::kCreate);
  EXPECT_EQ(s.code(), 422);
  EXPECT_EQ(s.message(),
            "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: "
            "[]string{\"All\", \"x\"}: supported values: \"All\"");
  EXPECT_EQ(WriteError("dryRun=", Verb::kDelete).message(),
            "DeleteOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: "
            "[]string{\"\"}: supported values: \"All\"");
}

TEST(ParseWriteQueryTest, FieldValidationValues) {
  for (const char* v : {"", "Ignore", "Strict", "Warn"}) {
    EXPECT_TRUE(WriteError(std::string("fieldValidation=") + v, Verb::kUpdate).ok()) << v;
  }
  Status s = WriteError("fieldValidation=strict", Verb::kUpdate);
  EXPECT_EQ(s.code(), 422);
  EXPECT_EQ(s.message(),
            "UpdateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: "
            "\"strict\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"");
  // DeleteOptions has no fieldValidation.
  EXPECT_TRUE(WriteError("fieldValidation=x", Verb::kDelete).ok());
}

TEST(ParseWriteQueryTest, PatchForceAndFieldManager) {
  EXPECT_EQ(WriteError("force=true", Verb::kPatch).message(),
            "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified "
            "for non-apply patch");
  EXPECT_EQ(WriteError("force=true", Verb::kPatch, /*apply=*/true).message(),
            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required "
            "for apply patch");
  EXPECT_TRUE(WriteError("force=true&fieldManager=m", Verb::kPatch, true).ok());
  Status both = WriteError("force=1&dryRun=no", Verb::kPatch);
  EXPECT_EQ(both.message(),
            "PatchOptions.meta.k8s.io \"\" is invalid: [force: Forbidden: may not be specified "
            "for non-apply patch, dryRun: Unsupported value: []string{\"no\"}: supported values: "
            "\"All\"]");
  EXPECT_EQ(both.causes().size(), 2u);
}

}  // namespace
}  // namespace tenure::server
