// ParseWithoutManagedFields: the managedFields member found with a JsonScanner and cut from the
// text before it is parsed.
#include "api/parse_without_managed_fields.h"

#include <string>
#include <utility>

#include "api/json_scanner.h"
#include "api/json_text.h"

namespace tenure::api {
namespace {

using Step = JsonScanner::Step;

// The bytes [begin, end) of `text` that hold metadata.managedFields with one comma beside it, so
// that what is left is the same object without that member; {0, 0} when there is none.
std::pair<size_t, size_t> ManagedFieldsSpan(std::string_view text) {
  std::pair<size_t, size_t> span{0, 0};
  JsonScanner scan(text);
  const auto at = [&](const char* p) { return static_cast<size_t>(p - text.data()); };
  // The object's members, up to its metadata's managedFields.
  const auto in_object = [&](const std::string& key) {
    if (key != "metadata" || scan.Peek() != '{') {
      return scan.SkipValue() ? Step::kNext : Step::kError;
    }
    // The metadata's members by hand, to know where each starts and ends.
    scan.Consume('{');
    const char* previous_end = nullptr;  // where the member before this one ends
    std::string member;
    while (scan.Peek() == '"') {
      const char* start = scan.position();
      if (!scan.String(&member) || !scan.Consume(':') || !scan.SkipValue()) return Step::kError;
      const char* end = scan.position();
      if (member == "managedFields") {
        if (previous_end != nullptr) {
          span = {at(previous_end), at(end)};  // ,"managedFields":[...]
        } else if (scan.Consume(',')) {
          span = {at(start), at(scan.position())};  // "managedFields":[...],
        } else {
          span = {at(start), at(end)};  // the only member
        }
        return Step::kStop;
      }
      previous_end = end;
      if (!scan.Consume(',')) break;
    }
    return Step::kStop;  // no managedFields: parse the text as it is
  };
  scan.Members(in_object);
  return span;
}

// `text` with the bytes [begin, end) left out.
std::string Without(std::string_view text, std::pair<size_t, size_t> span) {
  const auto [begin, end] = span;
  std::string rest;
  rest.reserve(text.size() - (end - begin));
  rest.append(text.substr(0, begin));
  rest.append(text.substr(end));
  return rest;
}

// `text` parsed with the bytes [begin, end) left out.
nlohmann::json ParseWithout(std::string_view text, std::pair<size_t, size_t> span) {
  if (span.first == span.second) return ParseJson(text);
  return ParseJson(Without(text, span));
}

}  // namespace

nlohmann::json ParseWithoutManagedFields(std::string_view text) {
  return ParseWithout(text, ManagedFieldsSpan(text));
}

std::string TextWithoutManagedFields(std::string_view text) {
  return Without(text, ManagedFieldsSpan(text));
}

}  // namespace tenure::api
