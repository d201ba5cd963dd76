// The kube names of the verbs, and which verbs only read.
#include "server/verb.h"

#include <utility>

namespace tenure::server {
namespace {

constexpr std::pair<Verb, std::string_view> kNames[] = {
    {Verb::kGet, "get"},       {Verb::kList, "list"},
    {Verb::kWatch, "watch"},   {Verb::kCreate, "create"},
    {Verb::kUpdate, "update"}, {Verb::kPatch, "patch"},
    {Verb::kDelete, "delete"}, {Verb::kDeleteCollection, "deletecollection"},
};

}  // namespace

std::string_view KubeName(Verb verb) {
  for (const auto& [v, name] : kNames) {
    if (v == verb) return name;
  }
  return "";
}

std::optional<Verb> VerbFromKubeName(std::string_view name) {
  for (const auto& [v, n] : kNames) {
    if (n == name) return v;
  }
  return std::nullopt;
}

std::vector<Verb> EveryVerb() {
  std::vector<Verb> verbs;
  for (const auto& [v, name] : kNames) verbs.push_back(v);
  return verbs;
}

bool IsReadOnly(Verb verb) {
  return verb == Verb::kGet || verb == Verb::kList || verb == Verb::kWatch;
}

}  // namespace tenure::server
