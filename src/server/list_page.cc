// ReadListPage: one page of a paginated list, read from the store as kube-apiserver's storage
// reads it.
#include "server/list_page.h"

#include <algorithm>

#include "server/continue_token.h"
#include "server/query_options.h"

namespace tenure::server {
namespace {

// A selective filter doubles the store pages it reads, up to this many keys.
constexpr int64_t kLargestStorePage = 10000;

}  // namespace

Result<ListPage> ReadListPage(store::Store& store, const api::KindInfo& kind,
                              const std::string& prefix, const ObjectFilter& filter,
                              store::ListOptions options, int64_t limit) {
  // As kube's storage: read pages of the store until `limit` objects matched, the later ones at
  // the first one's revision; the next page starts after the last key looked at. A selective
  // filter reads larger store pages.
  ListPage page;
  const size_t wanted = static_cast<size_t>(limit);
  options.limit = limit;
  std::string last_key;
  while (true) {
    auto listed = store.List(prefix, options);
    if (!listed.ok()) {
      if (listed.status().reason() == Reason::kBadRequest && options.revision != 0) {
        return TooLargeResourceVersion(options.revision, store.CurrentRevision());
      }
      return listed.status();
    }
    page.revision = options.revision = listed->revision;
    int64_t unread = listed->remaining;
    for (size_t i = 0; i < listed->items.size(); ++i) {
      if (limit != 0 && page.items.size() >= wanted) {
        unread += static_cast<int64_t>(listed->items.size() - i);
        break;
      }
      last_key = listed->items[i].key;
      if (filter.Matches(kind, listed->items[i].value)) {
        page.items.push_back(std::move(listed->items[i]));
      }
    }
    if (limit == 0 || unread == 0) return page;
    if (page.items.size() >= wanted) {
      page.meta.continue_token = EncodeContinue(prefix, last_key + '\0', page.revision);
      // Known only when every key counts (kube sets it without selectors only).
      if (filter.empty()) page.meta.remaining_item_count = unread;
      return page;
    }
    options.start_key = last_key + '\0';
    options.limit = std::max(limit, std::min(options.limit * 2, kLargestStorePage));
  }
}

}  // namespace tenure::server
