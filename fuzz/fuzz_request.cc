// Fuzz target: the server's HTTP/1.1 request reader, then what routing reads of the request:
// the request info (verb, group, resource, name) and the selectors.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "server/http_request_reader.h"
#include "server/request_info.h"
#include "server/selectors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto request = tenure::server::ParseHttpRequest(bytes, 3 * 1024 * 1024);
  if (!request.ok()) return 0;
  tenure::server::RequestInfo info = tenure::server::ParseRequestInfo(*request);
  (void)info;
  if (auto labels = tenure::server::LabelSelector::Parse(request->param("labelSelector"));
      labels.ok()) {
    (void)labels->Matches({{"a", "b"}, {"app", "x"}});
  }
  if (auto fields = tenure::server::FieldSelector::Parse(request->param("fieldSelector"));
      fields.ok()) {
    (void)fields->ExactValue("metadata.name");
  }
  return 0;
}
