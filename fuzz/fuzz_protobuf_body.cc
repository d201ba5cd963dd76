// Fuzz target: the protobuf bodies kubectl sends (Namespace, ConfigMap), decoded to JSON.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "server/protobuf_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto object = tenure::server::DecodeProtobufObject(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (object.ok()) (void)object->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
