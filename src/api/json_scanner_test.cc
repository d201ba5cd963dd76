// JsonScanner: what it accepts, what it decodes, and that it agrees with nlohmann's parser.
#include "api/json_scanner.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "api/json_text.h"
#include "api/object_head.h"
#include "api/parse_without_managed_fields.h"

namespace tenure::api {
namespace {

using nlohmann::json;

bool SkipsWhole(std::string_view text) {
  JsonScanner scan(text);
  return scan.SkipValue() && scan.AtEnd();
}

TEST(JsonScannerTest, StringsAreDecodedWithTheirEscapesAndSurrogatePairs) {
  JsonScanner scan(R"("a\"b\\c\/d\b\f\n\r\t\u00e9\u20ac\ud83d\ude00 é")");
  std::string out = "stale";
  ASSERT_TRUE(scan.String(&out));
  EXPECT_EQ(out, "a\"b\\c/d\b\f\n\r\t\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80 \xC3\xA9");
  EXPECT_TRUE(scan.AtEnd());
}

TEST(JsonScannerTest, MalformedStringsAreRefused) {
  for (const char* text : {R"("open)", R"("bad \x escape")", R"("\u12")", R"("\ud83d")",
                           R"("\ud83d\u0041")", R"("\ude00")", "\"tab\there\"", "\"\xC0\xAF\"",
                           "\"\xED\xA0\x80\"", "\"\xF4\x90\x80\x80\"", "\"\xE2\x82\""}) {
    JsonScanner scan(text);
    std::string out;
    EXPECT_FALSE(scan.String(&out)) << text;
    EXPECT_FALSE(SkipsWhole(text)) << text;
  }
}

TEST(JsonScannerTest, ValuesAreSkippedWholeAndMalformedOnesRefused) {
  // As nlohmann: a number too large for a double is refused, one too small for it is zero.
  EXPECT_FALSE(SkipsWhole("1e400"));
  EXPECT_FALSE(SkipsWhole("-0.0001e313"));
  EXPECT_FALSE(SkipsWhole(std::string(400, '9')));
  EXPECT_TRUE(SkipsWhole("1e-400"));
  EXPECT_TRUE(SkipsWhole("0.00001e310"));
  EXPECT_TRUE(SkipsWhole(std::string(300, '9')));
  for (const char* text : {"0", "-0.5e+10", "1E3", "true", "false", "null", "[]", "{}",
                           R"({"a":[1,{"b":null}],"c":"d"})", " [ 1 , 2 ] "}) {
    EXPECT_TRUE(SkipsWhole(text)) << text;
  }
  for (const char* text : {"", "01", "1.", "-", "1e", ".5", "tru", "nul", "[1,]", "[1 2]",
                           R"({"a"})", R"({"a":1,})", R"({a:1})", "{", "]", "[1}", "+1"}) {
    EXPECT_FALSE(SkipsWhole(text)) << text;
  }
}

// Found by review: nlohmann skips a byte order mark at the start of its input, and the SAX pass
// before the scanner did too.
TEST(JsonScannerTest, AByteOrderMarkIsSkippedAtTheStartOnly) {
  EXPECT_TRUE(SkipsWhole("\xEF\xBB\xBF{}"));
  EXPECT_FALSE(SkipsWhole("{}\xEF\xBB\xBF"));
  EXPECT_FALSE(SkipsWhole("[\xEF\xBB\xBF]"));
  for (const char* text : {"\xEF\xBB\xBF{}", "{}\xEF\xBB\xBF", "[\xEF\xBB\xBF]"}) {
    EXPECT_EQ(SkipsWhole(text), json::accept(text)) << text;
  }
  ObjectHead head;
  ASSERT_TRUE(ReadObjectHead("\xEF\xBB\xBF{\"metadata\":{\"name\":\"a\"}}", head, true));
  EXPECT_EQ(head.name, "a");
}

TEST(JsonScannerTest, DeepNestingIsFollowedWithoutRecursion) {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  EXPECT_TRUE(SkipsWhole(deep));
  EXPECT_FALSE(SkipsWhole(deep.substr(0, deep.size() - 1)));
}

// Random JSON values: strings with escapes and non-ASCII text, numbers, nesting, and objects whose
// members include those an object's head reads.
class RandomJson {
 public:
  explicit RandomJson(uint32_t seed) : rng_(seed) {}

  std::string Value(int depth) {
    switch (Pick(depth > 3 ? 5 : 7)) {
      case 0:
        return String();
      case 1:
        return Number();
      case 2:
        return std::array<const char*, 3>{"true", "false", "null"}[Pick(3)];
      case 3:
      case 4:
        return String();
      case 5:
        return Array(depth);
      default:
        return Object(depth);
    }
  }

  std::string Object(int depth) {
    static const std::array<const char*, 9> kKeys = {
        "metadata", "name",   "namespace", "labels",       "resourceVersion",
        "type",     "object", "spec",      "managedFields"};
    std::string out = "{";
    const size_t members = Pick(5);
    for (size_t i = 0; i < members; ++i) {
      if (i > 0) out += Space() + ",";
      out += Space() +
             (Pick(3) == 0 ? String() : "\"" + std::string(kKeys[Pick(kKeys.size())]) + "\"");
      out += Space() + ":" + Space() + Value(depth + 1);
    }
    return out + Space() + "}";
  }

  // Some bytes of `text` replaced, removed or cut off.
  std::string Mutate(std::string text) {
    if (text.empty()) return text;
    switch (Pick(3)) {
      case 0:
        text[Pick(text.size())] = "{}[]\":,\\x0 \x80"[Pick(13)];
        break;
      case 1:
        text.erase(Pick(text.size()), 1);
        break;
      default:
        text.resize(Pick(text.size()));
        break;
    }
    return text;
  }

  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

 private:
  std::string Space() { return Pick(4) == 0 ? " \n" : ""; }
  std::string Array(int depth) {
    std::string out = "[";
    const size_t n = Pick(4);
    for (size_t i = 0; i < n; ++i) out += (i > 0 ? "," : "") + Value(depth + 1);
    return out + "]";
  }
  std::string String() {
    static const std::array<const char*, 10> kPieces = {
        "a", "name", "x-y", "\\\"", "\\\\", "\\n", "\\u00e9", "\\ud83d\\ude00", "\xC3\xA9", " "};
    std::string out = "\"";
    const size_t n = Pick(4);
    for (size_t i = 0; i < n; ++i) out += kPieces[Pick(kPieces.size())];
    return out + "\"";
  }
  std::string Number() {
    static const std::array<const char*, 11> kNumbers = {"0",
                                                         "-12",
                                                         "3.25",
                                                         "1e9",
                                                         "-0.5E-3",
                                                         "42",
                                                         "18446744073709551616",
                                                         "-9223372036854775809",
                                                         "1e-400",
                                                         "-0",
                                                         "18446744073709551615"};
    return kNumbers[Pick(kNumbers.size())];
  }

  std::mt19937 rng_;
};

// The head a full parse finds: what ReadObjectHead must read.
ObjectHead HeadFromTree(const json& object) {
  ObjectHead head;
  auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) return head;
  const auto text = [&](const char* key, std::string& out) {
    auto it = metadata->find(key);
    if (it != metadata->end() && it->is_string()) out = it->get<std::string>();
  };
  text("name", head.name);
  text("namespace", head.namespace_);
  text("resourceVersion", head.resource_version);
  auto labels = metadata->find("labels");
  if (labels != metadata->end() && labels->is_object()) {
    for (const auto& [key, value] : labels->items()) {
      if (value.is_string()) head.labels[key] = value.get<std::string>();
    }
  }
  return head;
}

TEST(JsonScannerTest, AgreesWithNlohmannOnWhatIsJsonOnItsTreeAndOnEveryObjectsHead) {
  RandomJson random(20261205);
  int objects = 0, refused = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text = random.Object(0);
    if (random.Pick(2) == 0) text = random.Mutate(text);
    bool accepted = json::accept(text);
    ASSERT_EQ(SkipsWhole(text), accepted) << text;
    const json built = ParseJson(text);
    ASSERT_EQ(built.is_discarded(), !accepted) << text;
    if (!accepted) {
      EXPECT_TRUE(ParseWithoutManagedFields(text).is_discarded()) << text;
      ++refused;
      continue;
    }
    const json tree = json::parse(text);
    ASSERT_TRUE(IdenticalJson(built, tree)) << text;
    ASSERT_EQ(DumpJson(tree), tree.dump()) << text;
    ObjectHead head;
    ASSERT_TRUE(ReadObjectHead(text, head, /*with_labels=*/true)) << text;
    const ObjectHead expected = HeadFromTree(tree);
    // A key given twice: the tree keeps its last value, the head the last string (and every
    // labels object of the first metadata). Compared where each key comes once.
    const auto once = [&](const char* key) {
      const std::string quoted = "\"" + std::string(key) + "\"";
      return text.find(quoted) == text.rfind(quoted);
    };
    if (!once("metadata")) continue;
    // The same object, parsed without metadata.managedFields, as a lock or an informer reads it.
    if (once("managedFields")) {
      json without = tree;
      if (auto metadata = without.find("metadata");
          metadata != without.end() && metadata->is_object()) {
        metadata->erase("managedFields");
      }
      EXPECT_EQ(ParseWithoutManagedFields(text), without) << text;
    }
    if (once("name")) {
      EXPECT_EQ(head.name, expected.name) << text;
    }
    if (once("namespace")) {
      EXPECT_EQ(head.namespace_, expected.namespace_) << text;
    }
    if (once("resourceVersion")) {
      EXPECT_EQ(head.resource_version, expected.resource_version) << text;
    }
    if (once("labels")) {
      EXPECT_EQ(head.labels, expected.labels) << text;
    }
    ++objects;
  }
  EXPECT_GT(objects, 5000);
  EXPECT_GT(refused, 2000);
}

}  // namespace
}  // namespace tenure::api
