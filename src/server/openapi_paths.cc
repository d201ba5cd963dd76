// The paths of an OpenAPI v3 document: the resource list and each kind's REST operations.
#include "server/openapi_paths.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "api/api_paths.h"
#include "api/meta_descriptions.h"
#include "server/openapi_schemas.h"
#include "server/routes.h"

namespace tenure::server {
namespace {

using nlohmann::json;

json QueryParam(const char* name, const char* description, const char* type = "string") {
  return {{"name", name},
          {"in", "query"},
          {"description", description},
          {"schema", {{"type", type}, {"uniqueItems", true}}}};
}

json PathParam(const char* name, const std::string& description) {
  return {{"name", name},
          {"in", "path"},
          {"required", true},
          {"description", description},
          {"schema", {{"type", "string"}, {"uniqueItems", true}}}};
}

json Pretty() {
  return QueryParam("pretty",
                    "If 'true', then the output is pretty printed. Defaults to 'false' unless the "
                    "user-agent indicates a browser or command-line HTTP tool (curl and wget).");
}
json DryRun() {
  return QueryParam("dryRun",
                    "When present, indicates that modifications should not be persisted. An "
                    "invalid or unrecognized dryRun directive will result in an error response "
                    "and no further processing of the request. Valid values are: - All: all dry "
                    "run stages will be processed");
}
json FieldManager(bool patch) {
  return QueryParam(
      "fieldManager",
      patch ? "fieldManager is a name associated with the actor or entity that is making these "
              "changes. The value must be less than or 128 characters long, and only contain "
              "printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint. "
              "This field is required for apply requests (application/apply-patch) but optional "
              "for non-apply patch types (JsonPatch, MergePatch, StrategicMergePatch)."
            : "fieldManager is a name associated with the actor or entity that is making these "
              "changes. The value must be less than or 128 characters long, and only contain "
              "printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint.");
}
json FieldValidation() {
  return QueryParam(
      "fieldValidation",
      "fieldValidation instructs the server on how to handle objects in the request "
      "(POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: This "
      "will ignore any unknown fields that are silently dropped from the object, and will ignore "
      "all but the last duplicate field that the decoder encounters. This is the default "
      "behavior prior to v1.23. - Warn: This will send a warning via the standard warning "
      "response header for each unknown field that is dropped from the object, and for each "
      "duplicate field that is encountered. The request will still succeed if there are no "
      "other errors, and will only persist the last of any duplicate fields. This is the "
      "default in v1.23+ - Strict: This will fail the request with a BadRequest error if any "
      "unknown fields would be dropped from the object, or if any duplicate fields are present. "
      "The error returned from the server will contain all unknown and duplicate fields "
      "encountered.");
}

json ListParams() {
  return json::array({
      QueryParam("allowWatchBookmarks",
                 "allowWatchBookmarks requests watch events with type \"BOOKMARK\". Servers that "
                 "do not implement bookmarks may ignore this flag and bookmarks are sent at the "
                 "server's discretion.",
                 "boolean"),
      QueryParam("continue",
                 "The continue option should be set when retrieving more results from the "
                 "server. Since this value is server defined, clients may only use the continue "
                 "value from a previous query result with identical query parameters (except "
                 "for the value of continue)."),
      QueryParam("fieldSelector",
                 "A selector to restrict the list of returned objects by their "
                 "fields. Defaults to everything."),
      QueryParam("labelSelector",
                 "A selector to restrict the list of returned objects by their "
                 "labels. Defaults to everything."),
      QueryParam("limit",
                 "limit is a maximum number of responses to return for a list call. If more "
                 "items exist, the server will set the `continue` field on the list metadata to "
                 "a value that can be used with the same initial query to retrieve the next set "
                 "of results.",
                 "integer"),
      QueryParam("resourceVersion",
                 "resourceVersion sets a constraint on what resource versions a request may be "
                 "served from. See "
                 "https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions "
                 "for details.\n\nDefaults to unset"),
      QueryParam("resourceVersionMatch",
                 "resourceVersionMatch determines how resourceVersion is applied to list calls. "
                 "It is highly recommended that resourceVersionMatch be set for list calls "
                 "where resourceVersion is set See "
                 "https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions "
                 "for details.\n\nDefaults to unset"),
      QueryParam("sendInitialEvents",
                 "`sendInitialEvents=true` may be set together with `watch=true`. In that case, "
                 "the watch stream will begin with synthetic events to produce the current state "
                 "of objects in the collection.",
                 "boolean"),
      QueryParam("timeoutSeconds",
                 "Timeout for the list/watch call. This limits the duration of the call, "
                 "regardless of any activity or inactivity.",
                 "integer"),
      QueryParam("watch",
                 "Watch for changes to the described resources and return them as a stream of "
                 "add, update, and remove notifications. Specify resourceVersion.",
                 "boolean"),
  });
}

json DeleteParams() {
  return json::array({
      DryRun(),
      QueryParam("gracePeriodSeconds",
                 "The duration in seconds before the object should be deleted. Value must be "
                 "non-negative integer. The value zero indicates delete immediately. If this "
                 "value is nil, the default grace period for the specified type will be used. "
                 "Defaults to a per object value if not specified. zero means delete "
                 "immediately.",
                 "integer"),
      QueryParam("orphanDependents",
                 "Deprecated: please use the PropagationPolicy, this field will be deprecated in "
                 "1.7. Should the dependent objects be orphaned. If true/false, the \"orphan\" "
                 "finalizer will be added to/removed from the object's finalizers list. Either "
                 "this field or PropagationPolicy may be set, but not both.",
                 "boolean"),
      QueryParam("propagationPolicy",
                 "Whether and how garbage collection will be performed. Either this field or "
                 "OrphanDependents may be set, but not both. The default policy is decided by "
                 "the existing finalizer set in the metadata.finalizers and the "
                 "resource-specific default policy. Acceptable values are: 'Orphan' - orphan the "
                 "dependents; 'Background' - allow the garbage collector to delete the "
                 "dependents in the background; 'Foreground' - a cascading policy that deletes "
                 "all dependents in the foreground."),
  });
}

json Content(const std::string& schema, bool watch = false) {
  json content = {{"application/json", {{"schema", OpenApiRef(schema)}}},
                  {"application/yaml", {{"schema", OpenApiRef(schema)}}}};
  if (watch) content["application/json;stream=watch"] = {{"schema", OpenApiRef(schema)}};
  return content;
}

json Responses(std::initializer_list<std::pair<const char*, const std::string*>> codes,
               bool watch = false) {
  static const std::map<std::string, std::string> kText = {
      {"200", "OK"}, {"201", "Created"}, {"202", "Accepted"}};
  json out = {{"401", {{"description", "Unauthorized"}}}};
  for (const auto& [code, schema] : codes) {
    out[code] = {{"description", kText.at(code)}, {"content", Content(*schema, watch)}};
  }
  return out;
}

// "CoordinationV1beta1" / "CoreV1": the group-version part of kube's operation ids.
std::string OperationGroup(std::string_view group, std::string_view version) {
  std::string name = group.empty() ? "core" : std::string(group.substr(0, group.find('.')));
  name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  std::string v(version);
  v[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(v[0])));
  return name + v;
}

// "a " or "an ", as kube's operation descriptions ("create a Lease", "create an Event").
std::string Article(std::string_view noun) {
  char c =
      noun.empty() ? 'x' : static_cast<char>(std::tolower(static_cast<unsigned char>(noun[0])));
  return std::string_view("aeiou").find(c) != std::string_view::npos ? "an " : "a ";
}

std::string Tag(std::string_view group, std::string_view version) {
  std::string name = group.empty() ? "core" : std::string(group.substr(0, group.find('.')));
  return name + "_" + std::string(version);
}

void AddPaths(json& paths, const api::KindDescription& kind, std::string_view version) {
  const std::string_view group = kind.group;
  const std::string object = OpenApiSchemaName(*kind.object, group, version);
  const std::string list = kind.stored ? OpenApiSchemaName(kind.list, group, version) : "";
  const std::string status = OpenApiSchemaName(api::StatusObject(), group, version);
  const std::string patch = OpenApiSchemaName(api::PatchObject(), group, version);
  const std::string delete_options = OpenApiSchemaName(api::DeleteOptionsObject(), group, version);
  const std::string og = OperationGroup(group, version);
  const std::string scope = kind.namespaced ? "Namespaced" : "";
  const std::string k(kind.kind);
  const json tags = json::array({Tag(group, version)});
  const json gvk = OpenApiGvk(group, version, kind.kind);

  auto op = [&](const char* action, const std::string& description, const std::string& id) {
    return json{{"description", description},
                {"operationId", id},
                {"tags", tags},
                {"x-kubernetes-action", action},
                {"x-kubernetes-group-version-kind", gvk}};
  };
  auto body = [&](json content) {
    return json{{"required", true}, {"content", std::move(content)}};
  };

  json namespace_param = PathParam("namespace",
                                   "object name and auth scope, such as for teams "
                                   "and projects");
  json name_param = PathParam("name", "name of the " + k);

  // Collection.
  json collection = {{"parameters", kind.namespaced ? json::array({namespace_param, Pretty()})
                                                    : json::array({Pretty()})}};
  json create = op("post", "create " + Article(k) + k, "create" + og + scope + k);
  create["parameters"] = json::array({DryRun(), FieldManager(false), FieldValidation()});
  create["requestBody"] = body({{"*/*", {{"schema", OpenApiRef(object)}}}});
  create["responses"] = Responses({{"200", &object}, {"201", &object}, {"202", &object}});
  collection["post"] = create;
  if (!kind.stored) {  // a review: create only
    paths[api::CollectionPathTemplate(kind, version)] = collection;
    return;
  }
  json list_op = op("list", "list or watch objects of kind " + k, "list" + og + scope + k);
  list_op["parameters"] = ListParams();
  list_op["responses"] = Responses({{"200", &list}}, true);
  collection["get"] = list_op;
  if (Serves(kind, Verb::kDeleteCollection)) {
    json delete_collection = op("deletecollection", "delete collection of " + k,
                                "delete" + og + "Collection" + scope + k);
    json params = DeleteParams();
    for (auto& param : ListParams()) params.push_back(param);
    delete_collection["parameters"] = params;
    delete_collection["requestBody"] = body({{"*/*", {{"schema", OpenApiRef(delete_options)}}}});
    delete_collection["responses"] = Responses({{"200", &status}});
    collection["delete"] = delete_collection;
  }
  paths[api::CollectionPathTemplate(kind, version)] = collection;

  // Item.
  json item = {{"parameters", kind.namespaced ? json::array({name_param, namespace_param, Pretty()})
                                              : json::array({name_param, Pretty()})}};
  json read = op("get", "read the specified " + k, "read" + og + scope + k);
  read["responses"] = Responses({{"200", &object}});
  item["get"] = read;
  json replace = op("put", "replace the specified " + k, "replace" + og + scope + k);
  replace["parameters"] = json::array({DryRun(), FieldManager(false), FieldValidation()});
  replace["requestBody"] = body({{"*/*", {{"schema", OpenApiRef(object)}}}});
  replace["responses"] = Responses({{"200", &object}, {"201", &object}});
  item["put"] = replace;
  json patch_op = op("patch", "partially update the specified " + k, "patch" + og + scope + k);
  patch_op["parameters"] =
      json::array({DryRun(), FieldManager(true), FieldValidation(),
                   QueryParam("force",
                              "Force is going to \"force\" Apply requests. It means user will "
                              "re-acquire conflicting fields owned by other people. Force flag "
                              "must be unset for non-apply patch requests.",
                              "boolean")});
  json patch_content = json::object();
  for (const char* type :
       {"application/apply-patch+yaml", "application/json-patch+json",
        "application/merge-patch+json", "application/strategic-merge-patch+json"}) {
    patch_content[type] = {{"schema", OpenApiRef(patch)}};
  }
  patch_op["requestBody"] = body(patch_content);
  patch_op["responses"] = Responses({{"200", &object}, {"201", &object}});
  item["patch"] = patch_op;
  json remove = op("delete", "delete " + Article(k) + k, "delete" + og + scope + k);
  remove["parameters"] = DeleteParams();
  remove["requestBody"] = body({{"*/*", {{"schema", OpenApiRef(delete_options)}}}});
  remove["responses"] = Responses({{"200", &status}, {"202", &status}});
  item["delete"] = remove;
  paths[api::ObjectPathTemplate(kind, version)] = item;

  // The object's own subresources (namespaces/finalize and /status), with the item's operations
  // of their verbs. (serviceaccounts/token takes another kind's body: not described here.)
  for (const api::KindInfo::Subresource& sub : kind.subresources) {
    if (!sub.kind.empty()) continue;
    const std::string name(sub.name);
    std::string title = name;
    title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
    json sub_item = {{"parameters", item["parameters"]}};
    for (std::string_view verb : sub.verbs) {
      const char* method = verb == "get" ? "get" : verb == "update" ? "put" : "patch";
      json operation = item[method];
      const std::string what = verb == "get"      ? "read "
                               : verb == "update" ? "replace "
                                                  : "partially update ";
      operation["description"] = what + name + " of the specified " + k;
      operation["operationId"] = std::string(verb == "get"      ? "read"
                                             : verb == "update" ? "replace"
                                                                : "patch") +
                                 og + scope + k + title;
      sub_item[method] = std::move(operation);
    }
    paths[api::ObjectPathTemplate(kind, version) + "/" + name] = std::move(sub_item);
  }

  // List across namespaces.
  if (kind.namespaced) {
    json all =
        op("list", "list or watch objects of kind " + k, "list" + og + k + "ForAllNamespaces");
    all["responses"] = Responses({{"200", &list}}, true);
    json all_params = ListParams();
    all_params.push_back(Pretty());
    paths[api::CollectionPath(kind, version, "")] = {{"get", all}, {"parameters", all_params}};
  }
}

}  // namespace

json OpenApiPaths(const std::vector<const api::KindDescription*>& kinds, std::string_view group,
                  std::string_view version) {
  json paths = json::object();
  std::string resource_list = OpenApiSchemaName(api::ApiResourceListObject(), group, version);
  paths[api::GroupVersionPath(group, version) + "/"] = {
      {"get",
       {{"description", "get available resources"},
        {"operationId", "get" + OperationGroup(group, version) + "APIResources"},
        {"tags", json::array({Tag(group, version)})},
        {"responses", Responses({{"200", &resource_list}})}}}};
  for (const api::KindDescription* kind : kinds) AddPaths(paths, *kind, version);
  return paths;
}

}  // namespace tenure::server
