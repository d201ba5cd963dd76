// Lease (coordination.k8s.io/v1): the kind's one description.
#include "api/kind_entries.h"
#include "api/kind_validation.h"
#include "api/meta_descriptions.h"
#include "api/table.h"
#include "api/types.h"

namespace tenure::api::internal {
namespace {

using E = Emit;

const ObjectDescription& LeaseSpecObject() {
  static const ObjectDescription d{
      .go_name = "LeaseSpec",
      .doc = "LeaseSpec is a specification of a Lease.",
      .fields = {
          field::String("holderIdentity", E::kPointer,
                        "holderIdentity contains the identity of the holder of a current lease. "
                        "If Coordinated Leader Election is used, the holder identity must be "
                        "equal to the elected LeaseCandidate.metadata.name field.")
              .Bind<&LeaseSpec::holder_identity>(),
          field::Int32("leaseDurationSeconds", E::kPointer,
                       "leaseDurationSeconds is a duration that candidates for a lease need to "
                       "wait to force acquire it. This is measured against the time of last "
                       "observed renewTime.")
              .Bind<&LeaseSpec::lease_duration_seconds>(),
          field::MicroTime("acquireTime", E::kPointer,
                           "acquireTime is a time when the current lease was acquired.")
              .Bind<&LeaseSpec::acquire_time>(),
          field::MicroTime("renewTime", E::kPointer,
                           "renewTime is a time when the current holder of a lease has last "
                           "updated the lease.")
              .Bind<&LeaseSpec::renew_time>(),
          field::Int32("leaseTransitions", E::kPointer,
                       "leaseTransitions is the number of transitions of a lease between "
                       "holders.")
              .Bind<&LeaseSpec::lease_transitions>(),
          field::String("strategy", E::kPointer,
                        "Strategy indicates the strategy for picking the leader for coordinated "
                        "leader election. If the field is not specified, there is no active "
                        "coordination for this lease. (Alpha) Using this field requires the "
                        "CoordinatedLeaderElection feature gate to be enabled.",
                        "v1.CoordinatedLeaseStrategy")
              .Bind<&LeaseSpec::strategy>(),
          field::String("preferredHolder", E::kPointer,
                        "PreferredHolder signals to a lease holder that the lease has a more "
                        "optimal holder and should be given up. This field can only be set if "
                        "Strategy is also set.")
              .Bind<&LeaseSpec::preferred_holder>(),
      }};
  return d;
}

const ObjectDescription& LeaseObject() {
  static const ObjectDescription d{
      .go_name = "Lease",
      .doc = "Lease defines a lease concept.",
      .fields = WithTypeMeta({
          MetadataField(kMetadataMoreInfo).Bind<&Lease::metadata>(),
          field::Object(
              "spec", E::kAlways, LeaseSpecObject(),
              std::string("spec contains the specification of the Lease. ") + kSpecMoreInfo)
              .OpenApiDefault()
              .Bind<&Lease::spec>(),
      }),
  };
  return d;
}

}  // namespace

const KindDescription& LeaseKind() {
  static const KindDescription kind = [] {
    KindDescription k;
    k.group = "coordination.k8s.io";
    k.versions = {"v1"};
    k.kind = "Lease";
    k.list_kind = "LeaseList";
    k.resource = "leases";
    k.singular = "lease";
    k.namespaced = true;
    // As kube-apiserver's leaseStrategy (pkg/registry/coordination/lease/strategy.go).
    k.allow_unconditional_update = false;
    k.allow_create_on_update = true;
    k.verbs = AllVerbs();
    k.object = &LeaseObject();
    k.list = ListObject(LeaseObject(), k.list_kind, "LeaseList is a list of Lease objects.",
                        "items is a list of schema objects.");
    k.columns = {NameColumn(), {.name = "Holder", .field = "spec.holderIdentity"}, AgeColumn()};
    k.validation = {.create = ValidateLease,
                    .update = ValidateLeaseUpdate,
                    .update_reads_only_old_metadata = true};
    return k;
  }();
  return kind;
}

}  // namespace tenure::api::internal
