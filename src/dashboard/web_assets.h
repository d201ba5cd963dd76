// The dashboard's page, script, style and icon, compiled into the binary from
// src/dashboard/web/ (cmake/embed_files.cmake writes the table): nothing is fetched from
// elsewhere at run time.
#pragma once

#include <string_view>

namespace tenure::dashboard {

struct WebAsset {
  std::string_view name;          // "app.js"
  std::string_view content_type;  // "text/javascript; charset=utf-8"
  std::string_view body;
};

// The asset of that file name, or null.
const WebAsset* FindWebAsset(std::string_view name);

}  // namespace tenure::dashboard
