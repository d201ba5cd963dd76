// JsonScanner: a forward pass over JSON text (RFC 8259, with nlohmann's checks: UTF-8, escapes,
// surrogate pairs) that decodes only the strings it is asked for and steps over every other value
// after checking it, building nothing. For reads that want a few members of a large object (an
// object's head: its metadata before its managedFields and spec) without paying for a tree or a
// SAX event per token. Nesting is followed on a small stack of its own, not by recursion.
// ParseJson (json_text.h) builds whole trees with it.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace tenure::api {

class JsonScanner {
 public:
  // A UTF-8 byte order mark at the start is skipped, as nlohmann does.
  explicit JsonScanner(std::string_view text)
      : p_(text.data() + (text.starts_with("\xEF\xBB\xBF") ? 3 : 0)),
        end_(text.data() + text.size()) {}

  // The next character after whitespace ('\0' at the end), not consumed.
  char Peek();
  // Consumes `c` when it is the next character after whitespace.
  bool Consume(char c);
  // Whether only whitespace is left.
  bool AtEnd() { return Peek() == '\0' && p_ == end_; }
  // Where the scanner stands in the text: the next character not consumed.
  const char* position() const { return p_; }

  // A string (the next character must be '"'): decoded into *out (replacing it) when out is not
  // null, only checked otherwise. false: not a well-formed string.
  bool String(std::string* out);
  // Any one value, checked and stepped over. false: not a well-formed value.
  bool SkipValue();
  // Any one value, checked and built into `out` as nlohmann's parser builds it (a member given
  // twice keeps its last value; an integer is unsigned unless negative, a double when it fits
  // neither). false: not a well-formed value (`out` then holds part of it).
  bool Tree(nlohmann::json& out);

  // How a member callback of Members goes on.
  enum class Step { kNext, kStop, kError };
  // The members of an object (the next character must be '{'): for each, `on_member(key)` with
  // the scanner before the member's value, which the callback consumes (SkipValue when it does
  // not want it). kNext once the object ended, kStop or kError as soon as a callback or the text
  // says so.
  template <typename OnMember>
  Step Members(OnMember&& on_member) {
    if (!Consume('{')) return Step::kError;
    if (Consume('}')) return Step::kNext;
    std::string key;
    while (true) {
      if (Peek() != '"' || !String(&key) || !Consume(':')) return Step::kError;
      const Step step = on_member(static_cast<const std::string&>(key));
      if (step != Step::kNext) return step;
      if (Consume(',')) continue;
      return Consume('}') ? Step::kNext : Step::kError;
    }
  }

 private:
  bool Scalar();
  bool Number();
  // A scalar built into `out`.
  bool ScalarTree(nlohmann::json& out);
  bool NumberTree(nlohmann::json& out);
  bool Literal(std::string_view word);
  bool MemberKey() { return Peek() == '"' && String(nullptr) && Consume(':'); }

  const char* p_;
  const char* end_;
};

}  // namespace tenure::api
