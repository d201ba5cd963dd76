// ConfigMap (core/v1): the kind's one description.
#include "api/canonical_json.h"
#include "api/kind_entries.h"
#include "api/kind_validation.h"
#include "api/meta_descriptions.h"
#include "api/table.h"
#include "api/types.h"

namespace tenure::api::internal {
namespace {

using E = Emit;
using nlohmann::json;

// Protobuf numbers from core/v1 generated.proto.
const ObjectDescription& ConfigMapObject() {
  static const ObjectDescription d{
      .go_name = "ConfigMap",
      .doc = "ConfigMap holds configuration data for pods to consume.",
      .fields = WithTypeMeta({
          MetadataField(kStandardObjectMeta).Proto(1).Bind<&ConfigMap::metadata>(),
          field::Bool("immutable", E::kPointer,
                      "Immutable, if set to true, ensures that data stored in the ConfigMap "
                      "cannot be updated (only object metadata can be modified). If not set to "
                      "true, the field can be modified at any time. Defaulted to nil.")
              .Proto(4)
              .Bind<&ConfigMap::immutable>(),
          field::StringMap("data", E::kOmitEmpty,
                           "Data contains the configuration data. Each key must consist of "
                           "alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte "
                           "sequences must use the BinaryData field. The keys stored in Data "
                           "must not overlap with the keys in the BinaryData field, this is "
                           "enforced during validation process.")
              .Proto(2)
              .Bind<&ConfigMap::data>(),
          field::BytesMap("binaryData", E::kOmitEmpty,
                          "BinaryData contains the binary data. Each key must consist of "
                          "alphanumeric characters, '-', '_' or '.'. BinaryData can contain byte "
                          "sequences that are not in the UTF-8 range. The keys stored in "
                          "BinaryData must not overlap with the ones in the Data field, this is "
                          "enforced during validation process. Using this field will require "
                          "1.10+ apiserver and kubelet.")
              .Proto(3)
              .Bind<&ConfigMap::binary_data>(),
      }),
  };
  return d;
}

// The number of keys in data and binaryData.
json DataCell(const json& object, std::chrono::system_clock::time_point) {
  return static_cast<int64_t>(Sub(object, "data").size() + Sub(object, "binaryData").size());
}

}  // namespace

const KindDescription& ConfigMapKind() {
  static const KindDescription kind = [] {
    KindDescription k;
    k.group = "";
    k.versions = {"v1"};
    k.kind = "ConfigMap";
    k.list_kind = "ConfigMapList";
    k.resource = "configmaps";
    k.singular = "configmap";
    k.namespaced = true;
    k.short_names = {"cm"};
    k.allow_unconditional_update = true;
    k.allow_create_on_update = false;
    k.verbs = AllVerbs();
    k.object = &ConfigMapObject();
    k.list = ListObject(ConfigMapObject(), k.list_kind,
                        "ConfigMapList is a resource containing a list of ConfigMap objects.",
                        "Items is the list of ConfigMaps.");
    k.columns = {NameColumn(), {.name = "Data", .field = "data", .cell = DataCell}, AgeColumn()};
    k.validation = {.create = ValidateConfigMap, .update = ValidateConfigMapUpdate};
    return k;
  }();
  return kind;
}

}  // namespace tenure::api::internal
