// AppendJsonString and Utf8Length: escapes as nlohmann's dump(), UTF-8 as RFC 3629.
#include "core/json_string.h"

#include <gtest/gtest.h>

#include <string>

namespace tenure {
namespace {

std::string Quoted(std::string_view text, bool* utf8 = nullptr) {
  std::string out = "x";
  const bool ok = AppendJsonString(out, text);
  if (utf8 != nullptr) *utf8 = ok;
  return out;
}

TEST(JsonStringTest, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(Quoted("plain / text"), "x\"plain / text\"");
  EXPECT_EQ(Quoted("a\"b\\c"), "x\"a\\\"b\\\\c\"");
  EXPECT_EQ(Quoted("\b\f\n\r\t"), "x\"\\b\\f\\n\\r\\t\"");
  EXPECT_EQ(Quoted(std::string_view("\x00\x01\x1f\x7f", 4)), "x\"\\u0000\\u0001\\u001f\x7f\"");
  EXPECT_EQ(Quoted("caf\xC3\xA9 \xF0\x9F\x98\x80"), "x\"caf\xC3\xA9 \xF0\x9F\x98\x80\"");
  EXPECT_EQ(Quoted(""), "x\"\"");
}

TEST(JsonStringTest, TextThatIsNotUtf8IsWrittenAsItIsAndReported) {
  bool utf8 = true;
  EXPECT_EQ(Quoted("a\xC0\xAF"
                   "b",
                   &utf8),
            "x\"a\xC0\xAF"
            "b\"");
  EXPECT_FALSE(utf8);
  Quoted("\xE2\x82\xAC", &utf8);
  EXPECT_TRUE(utf8);
  for (const char* bad : {"\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE2\x82", "\xFF"}) {
    const auto* p = reinterpret_cast<const unsigned char*>(bad);
    EXPECT_EQ(Utf8Length(p, p + std::char_traits<char>::length(bad)), 0u) << bad;
  }
  const std::string four = "\xF0\x9F\x98\x80";
  const auto* p = reinterpret_cast<const unsigned char*>(four.data());
  EXPECT_EQ(Utf8Length(p, p + four.size()), 4u);
}

}  // namespace
}  // namespace tenure
