// Fuzz target: RFC 3339 timestamps. Whatever parses formats and parses back to the same instant.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "api/time.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto wide = tenure::api::ParseWideTime(text);
  (void)tenure::api::ParseTime(text);
  if (!wide || wide->year() < 0 || wide->year() > 9999) return 0;
  auto again = tenure::api::ParseWideTime(tenure::api::FormatWideTime(*wide, true));
  if (!again || !(*again == *wide)) std::abort();
  return 0;
}
