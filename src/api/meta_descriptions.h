// Descriptions shared by every kind: the io.k8s.apimachinery.pkg.apis.meta.v1 objects
// (ObjectMeta and what it holds, ListMeta, Time, MicroTime), the fields every kind starts with,
// the "<Kind>List" object, and the API machinery's own objects that every OpenAPI document
// carries (Status, DeleteOptions, WatchEvent, APIResourceList, ...).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/description.h"

namespace tenure::api {

// OpenAPI name prefixes of objects outside the kinds' own group-versions.
inline constexpr std::string_view kMetaPackage = "io.k8s.apimachinery.pkg.apis.meta.v1.";
inline constexpr std::string_view kRuntimePackage = "io.k8s.apimachinery.pkg.runtime.";

// Documentation texts several descriptions share (kube-apiserver's).
inline constexpr const char* kMetadataMoreInfo =
    "More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
inline constexpr const char* kStandardObjectMeta =
    "Standard object's metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
inline constexpr const char* kStandardListMeta =
    "Standard list metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
inline constexpr const char* kSpecMoreInfo =
    "More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#spec-and-status";

const ObjectDescription& ObjectMetaObject();
const ObjectDescription& ListMetaObject();
const ObjectDescription& TimeObject();
const ObjectDescription& MicroTimeObject();

// apiVersion and kind of a top-level object (accepted when strings, set by the server), then
// `fields`.
std::vector<FieldDescription> WithTypeMeta(std::vector<FieldDescription> fields);
// The metadata (ObjectMeta) of a kind, documented by `doc`.
FieldDescription MetadataField(std::string doc);

// The "<Kind>List" object of `item`: apiVersion, kind, metadata (ListMeta), items.
ObjectDescription ListObject(const ObjectDescription& item, std::string_view list_kind,
                             std::string doc, std::string items_doc);

// Objects of the API machinery in every OpenAPI document (the paths answer with them).
const ObjectDescription& StatusObject();
const ObjectDescription& DeleteOptionsObject();
const ObjectDescription& PatchObject();
const ObjectDescription& WatchEventObject();
const ObjectDescription& ApiResourceListObject();

}  // namespace tenure::api
