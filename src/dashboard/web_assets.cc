// FindWebAsset: the embedded files by name, with their content types.
#include "dashboard/web_assets.h"

#include <cstddef>

namespace tenure::dashboard {

// Written by cmake/embed_files.cmake (web_files.cc in the build folder).
struct EmbeddedFile {
  const char* name;
  const unsigned char* data;
  size_t size;
};
extern const EmbeddedFile kEmbeddedWebFiles[];
extern const size_t kEmbeddedWebFileCount;

namespace {

std::string_view ContentTypeOf(std::string_view name) {
  auto ends = [&](std::string_view ext) {
    return name.size() >= ext.size() && name.substr(name.size() - ext.size()) == ext;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".json")) return "application/json";
  return "application/octet-stream";
}

}  // namespace

const WebAsset* FindWebAsset(std::string_view name) {
  static const auto* assets = [] {
    auto* list = new WebAsset[kEmbeddedWebFileCount];
    for (size_t i = 0; i < kEmbeddedWebFileCount; ++i) {
      const EmbeddedFile& f = kEmbeddedWebFiles[i];
      list[i] = {f.name, ContentTypeOf(f.name),
                 std::string_view(reinterpret_cast<const char*>(f.data), f.size)};
    }
    return list;
  }();
  for (size_t i = 0; i < kEmbeddedWebFileCount; ++i) {
    if (assets[i].name == name) return &assets[i];
  }
  return nullptr;
}

}  // namespace tenure::dashboard
