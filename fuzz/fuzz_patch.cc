// Fuzz target: every patch type on a stored object, and the managedFields of the result.
// Input: one byte for the patch type (and, for apply, force), then the target object and the
// patch as JSON texts separated by a NUL byte. Server-side apply goes through the field manager;
// the other types' results are recorded by it over the target (whose managedFields may be
// anything); the result is canonicalized as a Lease, as the server does.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "api/client_json.h"
#include "api/kinds.h"
#include "server/field_manager.h"
#include "server/patch.h"
#include "tenure/clock.h"

using tenure::server::PatchType;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  size_t nul = rest.find('\0');
  if (nul == std::string_view::npos) return 0;
  auto target = tenure::api::ParseClientJson(rest.substr(0, nul));
  auto patch = tenure::api::ParseClientJson(rest.substr(nul + 1));
  if (!target.ok() || !patch.ok()) return 0;
  const tenure::api::KindInfo* lease = tenure::api::FindByKind("coordination.k8s.io", "Lease");
  static const std::shared_ptr<tenure::Clock> clock = tenure::Clock::Real();
  static const tenure::server::FieldManager leases(*lease, "v1", "", {}, *clock);
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
      out = leases.Apply(target->is_object() ? *target : leases.EmptyObject(), *patch, "fuzz",
                         (data[0] & 4) != 0);
      break;
  }
  if (!out.ok() || !out->is_object()) return 0;
  if (data[0] % 4 != 3 && target->is_object()) leases.Update(*target, *out, "fuzz");
  auto object = tenure::api::Canonicalize(*lease, *out, {});
  if (object.ok()) (void)object->dump();
  return 0;
}
