// Fuzz target: a request body as the server reads an object: client JSON (nesting limit),
// canonicalization for every kind (strict and not), validation of a create and of an update,
// serialization of the result. The first byte picks the kind (served kinds, then the bodies of
// subresources such as TokenRequest). And the head readers on the same text: JsonScanner must
// accept exactly what nlohmann accepts (but for a NUL byte), api::ParseJson build the tree
// nlohmann builds, types included, and api::DumpJson write the bytes dump() writes.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/client_json.h"
#include "api/json_scanner.h"
#include "api/json_text.h"
#include "api/kinds.h"
#include "api/object_head.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const std::vector<const tenure::api::KindInfo*> kinds = [] {
    std::vector<const tenure::api::KindInfo*> all = tenure::api::AllKinds();
    const auto& bodies = tenure::api::SubresourceKinds();
    all.insert(all.end(), bodies.begin(), bodies.end());
    return all;
  }();
  const tenure::api::KindInfo& kind = *kinds[data[0] % kinds.size()];
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  tenure::api::JsonScanner scan(text);
  const bool scanned = scan.SkipValue() && scan.AtEnd();
  // nlohmann ends its input at a NUL byte outside a string; the scanner refuses one.
  if (text.find('\0') == std::string_view::npos) {
    if (scanned != nlohmann::json::accept(text)) __builtin_trap();
    const nlohmann::json built = tenure::api::ParseJson(text);
    if (built.is_discarded() == scanned) __builtin_trap();
    if (scanned) {
      const nlohmann::json tree = nlohmann::json::parse(text);
      if (!tenure::api::IdenticalJson(built, tree)) __builtin_trap();
      if (tenure::api::DumpJson(tree) != tree.dump()) __builtin_trap();
    }
  }
  tenure::api::ObjectHead head;
  std::string type;
  (void)tenure::api::ReadObjectHead(text, head, /*with_labels=*/true);
  (void)tenure::api::ReadWatchEventHead(text, type, head);
  auto parsed = tenure::api::ParseClientJson(text);
  if (!parsed.ok()) return 0;
  for (bool strict : {false, true}) {
    auto object = tenure::api::Canonicalize(kind, *parsed, {.strict = strict});
    if (!object.ok()) continue;
    (void)tenure::api::ValidateCreate(kind, *object);
    (void)tenure::api::ValidateUpdate(kind, *object, *object);
    (void)object->dump();
  }
  return 0;
}
