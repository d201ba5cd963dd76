// LeaseCandidate (coordination.k8s.io/v1beta1, v1alpha2): the kind's one description.
#include "api/kind_entries.h"
#include "api/kind_validation.h"
#include "api/meta_descriptions.h"
#include "api/table.h"
#include "api/types.h"

namespace tenure::api::internal {
namespace {

using E = Emit;

const ObjectDescription& LeaseCandidateSpecObject() {
  static const ObjectDescription d{
      .go_name = "LeaseCandidateSpec",
      .go_package = "v1beta1",
      .doc = "LeaseCandidateSpec is a specification of a Lease.",
      .fields = {
          field::String("leaseName", E::kAlways,
                        "LeaseName is the name of the lease for which this candidate is "
                        "contending. The limits on this field are the same as on Lease.name. "
                        "Multiple lease candidates may reference the same Lease.name. This field "
                        "is immutable.")
              .Required()
              .OpenApiDefault()
              .Bind<&LeaseCandidateSpec::lease_name>(),
          field::MicroTime("pingTime", E::kPointer,
                           "PingTime is the last time that the server has requested the "
                           "LeaseCandidate to renew. It is only done during leader election to "
                           "check if any LeaseCandidates have become ineligible. When PingTime "
                           "is updated, the LeaseCandidate will respond by updating RenewTime.")
              .Bind<&LeaseCandidateSpec::ping_time>(),
          field::MicroTime("renewTime", E::kPointer,
                           "RenewTime is the time that the LeaseCandidate was last updated. Any "
                           "time a Lease needs to do leader election, the PingTime field is "
                           "updated to signal to the LeaseCandidate that they should update the "
                           "RenewTime. Old LeaseCandidate objects are also garbage collected if "
                           "it has been hours since the last renew. The PingTime field is "
                           "updated regularly to prevent garbage collection for still active "
                           "LeaseCandidates.")
              .Bind<&LeaseCandidateSpec::renew_time>(),
          field::String("binaryVersion", E::kAlways,
                        "BinaryVersion is the binary version. It must be in a semver format "
                        "without leading `v`. This field is required.")
              .Required()
              .OpenApiDefault()
              .Bind<&LeaseCandidateSpec::binary_version>(),
          field::String("emulationVersion", E::kOmitEmpty,
                        "EmulationVersion is the emulation version. It must be in a semver "
                        "format without leading `v`. EmulationVersion must be less than or "
                        "equal to BinaryVersion. This field is required when strategy is "
                        "\"OldestEmulationVersion\"")
              .Bind<&LeaseCandidateSpec::emulation_version>(),
          field::String("strategy", E::kAlways,
                        "Strategy is the strategy that coordinated leader election will use for "
                        "picking the leader. If multiple candidates for the same Lease return "
                        "different strategies, the strategy provided by the candidate with the "
                        "latest BinaryVersion will be used. If there is still conflict, this is "
                        "a user error and coordinated leader election will not operate the "
                        "Lease until resolved.",
                        "v1.CoordinatedLeaseStrategy")
              .Required()
              .OpenApiDefault()
              .Bind<&LeaseCandidateSpec::strategy>(),
      }};
  return d;
}

const ObjectDescription& LeaseCandidateObject() {
  static const ObjectDescription d{
      .go_name = "LeaseCandidate",
      .go_package = "v1beta1",
      .doc =
          "LeaseCandidate defines a candidate for a Lease object. Candidates are created such "
          "that coordinated leader election will pick the best leader from the list of "
          "candidates.",
      .fields = WithTypeMeta({
          MetadataField(std::string("metadata is the standard object's metadata. ") +
                        kMetadataMoreInfo)
              .Bind<&LeaseCandidate::metadata>(),
          field::Object(
              "spec", E::kAlways, LeaseCandidateSpecObject(),
              std::string("spec contains the specification of the Lease. ") + kSpecMoreInfo)
              .OpenApiDefault()
              .Bind<&LeaseCandidate::spec>(),
      }),
  };
  return d;
}

}  // namespace

const KindDescription& LeaseCandidateKind() {
  static const KindDescription kind = [] {
    KindDescription k;
    k.group = "coordination.k8s.io";
    k.versions = {"v1beta1", "v1alpha2"};
    // k8s.io/api coordination's zz_generated.prerelease-lifecycle.go.
    k.deprecations = {{"v1alpha2", 35, 38}, {"v1beta1", 36, 39}};
    k.kind = "LeaseCandidate";
    k.list_kind = "LeaseCandidateList";
    k.resource = "leasecandidates";
    k.singular = "leasecandidate";
    k.namespaced = true;
    k.allow_unconditional_update = false;
    k.allow_create_on_update = true;
    k.verbs = AllVerbs();
    k.object = &LeaseCandidateObject();
    k.list = ListObject(LeaseCandidateObject(), k.list_kind,
                        "LeaseCandidateList is a list of Lease objects.",
                        "items is a list of schema objects.");
    k.columns = {NameColumn(),
                 {.name = "LeaseName", .field = "spec.leaseName"},
                 {.name = "BinaryVersion", .field = "spec.binaryVersion"},
                 {.name = "EmulationVersion", .field = "spec.emulationVersion"},
                 AgeColumn()};
    k.selector_fields = {{.label = "spec.leaseName"}};
    k.validation = {.create = ValidateLeaseCandidate, .update = ValidateLeaseCandidateUpdate};
    return k;
  }();
  return kind;
}

}  // namespace tenure::api::internal
