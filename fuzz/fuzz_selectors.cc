// Fuzz target: label and field selectors as the query parameters carry them, and matching.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "server/selectors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto labels = tenure::server::LabelSelector::Parse(text); labels.ok()) {
    std::map<std::string, std::string> some = {{"app", "tenure"}, {"tier", "a"}, {"x.io/y", ""}};
    (void)labels->Matches(some);
    (void)labels->Matches({});
  }
  if (auto fields = tenure::server::FieldSelector::Parse(text); fields.ok()) {
    (void)fields->ExactValue("metadata.name");
    (void)fields->ExactValue("metadata.namespace");
  }
  return 0;
}
