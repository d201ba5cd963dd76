// Tests of the name format checks (DNS subdomain and label, qualified name), SemVer, FieldError.
#include <gtest/gtest.h>

#include "api/validation.h"

namespace tenure::api {
namespace {

constexpr const char* kSubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

TEST(NameChecksTest, DnsSubdomain) {
  EXPECT_TRUE(IsDNS1123Subdomain("a").empty());
  EXPECT_TRUE(IsDNS1123Subdomain("kube-controller-manager").empty());
  EXPECT_TRUE(IsDNS1123Subdomain("a.b-c.d0").empty());
  for (const char* bad : {"", "A", "-a", "a-", "a..b", ".a", "a.", "a_b", "a/b", "a.-b"}) {
    auto errs = IsDNS1123Subdomain(bad);
    ASSERT_EQ(errs.size(), 1u) << bad;
    EXPECT_EQ(errs[0], kSubdomainMsg);
  }
  auto errs = IsDNS1123Subdomain(std::string(254, 'a'));
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0], "must be no more than 253 characters");
  EXPECT_TRUE(IsDNS1123Subdomain(std::string(253, 'a')).empty());
}

TEST(NameChecksTest, DnsLabel) {
  EXPECT_TRUE(IsDNS1123Label("kube-system").empty());
  EXPECT_EQ(IsDNS1123Label("a.b"), std::vector<std::string>{"must not contain dots"});
  EXPECT_EQ(IsDNS1123Label("Ab"),
            std::vector<std::string>{
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
                "or '-', and must start and end with an alphanumeric character (e.g. 'my-name', "
                " or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"});
  EXPECT_EQ(IsDNS1123Label(std::string(64, 'a')),
            std::vector<std::string>{"must be no more than 63 characters"});
}

TEST(NameChecksTest, QualifiedName) {
  EXPECT_TRUE(IsQualifiedName("app").empty());
  EXPECT_TRUE(IsQualifiedName("example.com/My_Name.x").empty());
  EXPECT_EQ(IsQualifiedName("/x"), std::vector<std::string>{"prefix part must be non-empty"});
  EXPECT_EQ(IsQualifiedName("example.com/"),
            (std::vector<std::string>{
                "name part must be non-empty",
                "name part must consist of alphanumeric characters, '-', '_' or '.', and must "
                "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
                "'123-abc', regex used for validation is "
                "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}));
  auto errs = IsQualifiedName("a/b/c");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].rfind("a qualified name must consist of", 0), 0u);
  EXPECT_NE(errs[0].find("with an optional DNS subdomain prefix and '/' (e.g. "
                         "'example.com/MyName')"),
            std::string::npos);
  errs = IsQualifiedName("Bad_Prefix/x");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0], std::string("prefix part ") + kSubdomainMsg);
}

TEST(NameChecksTest, LabelValueAndConfigMapKey) {
  EXPECT_TRUE(IsValidLabelValue("").empty());
  EXPECT_TRUE(IsValidLabelValue("v1.2_x").empty());
  EXPECT_EQ(IsValidLabelValue("-x").size(), 1u);
  EXPECT_EQ(IsValidLabelValue(std::string(64, 'a')),
            std::vector<std::string>{"must be no more than 63 characters"});
  EXPECT_TRUE(IsConfigMapKey("Key_name.x-1").empty());
  EXPECT_EQ(IsConfigMapKey("."), std::vector<std::string>{"must not be '.'"});
  EXPECT_EQ(IsConfigMapKey(".."), std::vector<std::string>{"must not be '..'"});
  EXPECT_EQ(IsConfigMapKey("..a"), std::vector<std::string>{"must not start with '..'"});
  EXPECT_EQ(IsConfigMapKey("a/b"),
            std::vector<std::string>{
                "a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
                "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
                "'[-._a-zA-Z0-9]+')"});
}

TEST(SemVerTest, StrictParse) {
  EXPECT_TRUE(ParseSemVer("1.2.3"));
  EXPECT_TRUE(ParseSemVer("1.33.0-alpha.1+build.5"));
  EXPECT_TRUE(ParseSemVer("0.0.0"));
  for (const char* bad : {"", "v1.2.3", "1.2", "1.2.3.4", "01.2.3", "1.02.3", "1.2.03", "1.2.3-",
                          "1.2.3-01", "1.2.3+", "1.2.3-a..b", "1.2.x", "1.2.3-a_b"}) {
    EXPECT_FALSE(ParseSemVer(bad)) << bad;
  }
  EXPECT_LT(ParseSemVer("1.2.3")->Compare(*ParseSemVer("1.10.0")), 0);
  EXPECT_LT(ParseSemVer("1.2.3-alpha")->Compare(*ParseSemVer("1.2.3")), 0);
  EXPECT_LT(ParseSemVer("1.2.3-alpha.2")->Compare(*ParseSemVer("1.2.3-alpha.10")), 0);
  EXPECT_LT(ParseSemVer("1.2.3-1")->Compare(*ParseSemVer("1.2.3-alpha")), 0);
  EXPECT_EQ(ParseSemVer("1.2.3+a")->Compare(*ParseSemVer("1.2.3+b")), 0);
}

TEST(FieldErrorTest, Rendering) {
  EXPECT_EQ(Invalid("spec.leaseDurationSeconds", int64_t{-1}, "must be greater than 0").ToString(),
            "spec.leaseDurationSeconds: Invalid value: -1: must be greater than 0");
  EXPECT_EQ(Invalid("f", "v1.2", "bad").Body(), "Invalid value: \"v1.2\": bad");
  EXPECT_EQ(Required("spec.leaseName").Body(), "Required value");
  EXPECT_EQ(Required("x", "why").Body(), "Required value: why");
  EXPECT_EQ(Forbidden("x", "no").Body(), "Forbidden: no");
  EXPECT_EQ(NotSupported("x", "Foo", {"A", "B"}).Body(),
            "Unsupported value: \"Foo\": supported values: \"A\", \"B\"");
  EXPECT_EQ(TooLong("metadata.annotations", 262144).Body(),
            "Too long: may not be more than 262144 bytes");
  EXPECT_EQ(Duplicate("x", "a").Body(), "Duplicate value: \"a\"");
  EXPECT_EQ(GoQuote("a\"b\\c\n\x01\xff\xc3\xa9"), "\"a\\\"b\\\\c\\n\\x01\\xff\xc3\xa9\"");
}

TEST(FieldErrorTest, InvalidStatusOneAndMany) {
  Status one =
      InvalidStatus("Lease.coordination.k8s.io", "bad",
                    {Invalid("spec.leaseDurationSeconds", int64_t{-1}, "must be greater than 0")});
  EXPECT_EQ(one.reason(), Reason::kInvalid);
  EXPECT_EQ(one.code(), 422);
  EXPECT_EQ(one.message(),
            "Lease.coordination.k8s.io \"bad\" is invalid: spec.leaseDurationSeconds: Invalid "
            "value: -1: must be greater than 0");
  ASSERT_EQ(one.causes().size(), 1u);
  EXPECT_EQ(one.causes()[0],
            (StatusCause{"FieldValueInvalid", "Invalid value: -1: must be greater than 0",
                         "spec.leaseDurationSeconds"}));

  Status many = InvalidStatus("ConfigMap", "x", {Required("a"), Required("b", "d"), Required("a")});
  EXPECT_EQ(many.message(),
            "ConfigMap \"x\" is invalid: [a: Required value, b: Required value: d]");
  EXPECT_EQ(many.causes().size(), 2u);
  EXPECT_TRUE(InvalidStatus("ConfigMap", "x", {}).ok());
}

}  // namespace
}  // namespace tenure::api
