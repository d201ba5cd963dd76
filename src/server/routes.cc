// CheckRoute: which requests a kind's declared verbs route, and kube-apiserver's refusal of others.
#include "server/routes.h"

#include <algorithm>
#include <span>

#include "server/resource_errors.h"

namespace tenure::server {
namespace {

// The paths kube-apiserver installs for a resource.
enum class PathShape {
  kCollection,     // .../namespaces/ns/leases, /api/v1/namespaces: list, create, deletecollection
  kAllNamespaces,  // /apis/coordination.k8s.io/v1/leases of a namespaced kind: list only
  kObject,         // .../leases/name: get, update, patch, delete
  kWatchPath,      // the deprecated .../watch/... collection or object: watch only
};

PathShape ShapeOf(const api::KindInfo& kind, const RequestInfo& info) {
  if (info.legacy_watch) return PathShape::kWatchPath;
  if (!info.name.empty()) return PathShape::kObject;
  if (kind.namespaced && info.namespace_.empty()) return PathShape::kAllNamespaces;
  return PathShape::kCollection;
}

// The verbs whose routes the path has: one route per verb, each for one HTTP method.
std::span<const Verb> RoutedVerbs(PathShape shape) {
  static constexpr Verb kCollectionVerbs[] = {Verb::kList, Verb::kCreate, Verb::kDeleteCollection};
  static constexpr Verb kAllNamespacesVerbs[] = {Verb::kList};
  static constexpr Verb kObjectVerbs[] = {Verb::kGet, Verb::kUpdate, Verb::kPatch, Verb::kDelete};
  static constexpr Verb kWatchPathVerbs[] = {Verb::kWatch};
  switch (shape) {
    case PathShape::kCollection:
      return kCollectionVerbs;
    case PathShape::kAllNamespaces:
      return kAllNamespacesVerbs;
    case PathShape::kObject:
      return kObjectVerbs;
    case PathShape::kWatchPath:
      return kWatchPathVerbs;
  }
  return {};
}

// The route a request's verb takes. A `?watch=true` GET takes the path's GET route (list or get),
// whose handler then needs the kind to watch.
Verb RouteOf(Verb verb, PathShape shape) {
  if (verb != Verb::kWatch || shape == PathShape::kWatchPath) return verb;
  return shape == PathShape::kObject ? Verb::kGet : Verb::kList;
}

}  // namespace

bool Serves(const api::KindInfo& kind, Verb verb) {
  return std::find(kind.verbs.begin(), kind.verbs.end(), KubeName(verb)) != kind.verbs.end();
}

Status CheckRoute(const api::KindInfo& kind, const RequestInfo& info, std::string_view method) {
  // Of the subresources only those the kind declares are served, each with its verbs
  // (namespaces/finalize: PUT; namespaces/status: GET, PUT, PATCH), and a namespaced kind's
  // objects live only under their namespace: kube-apiserver has no route there at all.
  if (!info.subresource.empty()) {
    const api::KindInfo::Subresource* sub = nullptr;
    for (const auto& s : kind.subresources) {
      if (s.name == info.subresource) sub = &s;
    }
    if (!kind.stored || info.name.empty() || info.legacy_watch || sub == nullptr ||
        !sub->kind.empty() || (kind.namespaced && info.namespace_.empty())) {
      return NoSuchResource();
    }
    const std::string_view verb = method == "PUT"     ? "update"
                                  : method == "GET"   ? "get"
                                  : method == "PATCH" ? "patch"
                                                      : "";
    if (info.verb == Verb::kWatch ||
        std::find(sub->verbs.begin(), sub->verbs.end(), verb) == sub->verbs.end()) {
      return MethodNotAllowed();
    }
    return Status::Ok();
  }
  if (kind.namespaced && info.namespace_.empty() && !info.name.empty()) return NoSuchResource();
  // Nor does a cluster-scoped kind live under a namespace (.../namespaces/foo/clusterroles):
  // such a path must not reach the cluster's objects with a namespace's rights.
  if (!kind.namespaced && !info.namespace_.empty()) return NoSuchResource();

  PathShape shape = ShapeOf(kind, info);
  std::span<const Verb> routed = RoutedVerbs(shape);
  if (std::none_of(routed.begin(), routed.end(), [&](Verb v) { return Serves(kind, v); })) {
    return NoSuchResource();
  }
  // The deprecated watch paths give every method the watch verb; only GET is routed there.
  bool method_routed = info.verb.has_value() &&
                       (shape != PathShape::kWatchPath || method == "GET" || method == "HEAD");
  if (!method_routed) return MethodNotAllowed();
  Verb route = RouteOf(*info.verb, shape);
  if (std::find(routed.begin(), routed.end(), route) == routed.end() || !Serves(kind, route)) {
    return MethodNotAllowed();
  }
  if (!Serves(kind, *info.verb)) return MethodNotSupported(kind, KubeName(*info.verb));
  return Status::Ok();
}

}  // namespace tenure::server
