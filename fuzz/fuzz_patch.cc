// Fuzz target: every patch type on a stored object. Input: one byte for the patch type, then the
// target object and the patch as JSON texts separated by a NUL byte; the result is
// canonicalized as a Lease, as the server does.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/client_json.h"
#include "api/kinds.h"
#include "server/patch.h"

using tenure::server::PatchType;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  size_t nul = rest.find('\0');
  if (nul == std::string_view::npos) return 0;
  auto target = tenure::api::ParseClientJson(rest.substr(0, nul));
  auto patch = tenure::api::ParseClientJson(rest.substr(nul + 1));
  if (!target.ok() || !patch.ok()) return 0;
  tenure::Result<nlohmann::json> out = tenure::Status::Ok();
  switch (data[0] % 4) {
    case 0:
      out = tenure::server::ApplyMergePatch(*target, *patch);
      break;
    case 1:
      out = tenure::server::ApplyStrategicMergePatch(*target, *patch);
      break;
    case 2:
      out = tenure::server::ApplyJsonPatch(*target, *patch);
      break;
    default:
      out = tenure::server::ApplyServerSideApply(target->is_object() ? &*target : nullptr, *patch);
      break;
  }
  if (!out.ok() || !out->is_object()) return 0;
  const tenure::api::KindInfo* lease = tenure::api::FindByKind("coordination.k8s.io", "Lease");
  auto object = tenure::api::Canonicalize(*lease, *out, {});
  if (object.ok()) (void)object->dump();
  return 0;
}
