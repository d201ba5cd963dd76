// Fuzz target: the server's HTTP/1.1 request reader, then what routing reads of the request:
// the request info (verb, group, resource, name), the list and write query options and the
// selectors.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "server/http_request_reader.h"
#include "server/patch.h"
#include "server/query_options.h"
#include "server/request_info.h"
#include "server/selectors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto request = tenure::server::ParseHttpRequest(bytes, 3 * 1024 * 1024);
  if (!request.ok()) return 0;
  tenure::server::RequestInfo info = tenure::server::ParseRequestInfo(*request);
  if (auto list =
          tenure::server::ParseListQuery(*request, info.verb == tenure::server::Verb::kWatch);
      list.ok()) {
    (void)tenure::server::ListReadOf(*list, 1);
  }
  if (info.verb && !tenure::server::IsReadOnly(*info.verb)) {
    const bool apply = tenure::server::PatchTypeFromContentType(request->header("content-type")) ==
                       std::optional(tenure::server::PatchType::kApply);
    (void)tenure::server::ParseWriteQuery(*request, *info.verb, apply).ok();
  }
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
