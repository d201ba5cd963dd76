// One page of a list (kube's paginated LIST): the objects a filter selects among a prefix's keys,
// at most `limit` of them, all read at one store revision, with the continue token of the next
// page and, without selectors, the count of the items after it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/kinds.h"
#include "server/response_format.h"
#include "store/store.h"
#include "tenure/status.h"

namespace tenure::server {

struct ListPage {
  std::vector<store::KeyValue> items;
  int64_t revision = 0;  // the revision every item was read at
  ListPageMeta meta;     // continue token (none on the last page) and remainingItemCount
};

// Reads `options` (revision, start key) of `prefix` until `limit` objects matched (0: all of
// them). Gone when the store no longer keeps that revision; a revision it has not reached is
// the 504 of TooLargeResourceVersion.
Result<ListPage> ReadListPage(store::Store& store, const api::KindInfo& kind,
                              const std::string& prefix, const ObjectFilter& filter,
                              store::ListOptions options, int64_t limit);

}  // namespace tenure::server
