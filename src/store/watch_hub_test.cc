// Tests of WatchHub: history replay and bounds, prefixes, Gone, handle lifetimes, many watchers.
#include "store/watch_hub.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "store/store_test_util.h"
#include "store/value_delta.h"

namespace tenure::store {
namespace {

using test_util::Collector;
using test_util::kDeadline;

Event MakeEvent(const std::string& key, int64_t revision,
                Event::Type type = Event::Type::kUpdated) {
  Event e;
  e.type = type;
  e.kv = KeyValue{key, "v" + std::to_string(revision), 1, revision};
  return e;
}

// Publishes one event per revision start+1..end, keys alternating under /a/ and /b/.
void PublishRange(WatchHub& hub, int64_t start, int64_t end) {
  for (int64_t r = start + 1; r <= end; ++r) {
    hub.Publish({MakeEvent((r % 2 == 0 ? "/a/" : "/b/") + std::to_string(r), r)});
  }
}

TEST(WatchHubTest, ReplaysHistoryThenDeliversLive) {
  WatchHub hub(100, 0);
  PublishRange(hub, 0, 10);
  Collector c;
  auto handle = hub.Watch("", 4, c.Callback());
  ASSERT_TRUE(handle.ok()) << handle.status().ToString();
  PublishRange(hub, 10, 15);
  ASSERT_TRUE(c.WaitForRevision(15));
  std::vector<int64_t> want;
  for (int64_t r = 5; r <= 15; ++r) want.push_back(r);
  EXPECT_EQ(c.revisions(), want);
}

TEST(WatchHubTest, FromZeroStartsAtHead) {
  WatchHub hub(100, 7);
  PublishRange(hub, 7, 9);
  Collector c;
  auto handle = hub.Watch("", 0, c.Callback());
  ASSERT_TRUE(handle.ok());
  PublishRange(hub, 9, 10);
  ASSERT_TRUE(c.WaitForRevision(10));
  EXPECT_EQ(c.revisions(), std::vector<int64_t>{10});
}

TEST(WatchHubTest, PrefixFilter) {
  WatchHub hub(100, 0);
  PublishRange(hub, 0, 6);
  Collector a, b, ab;
  auto ha = hub.Watch("/a/", 0 + 1, a.Callback());
  auto hb = hub.Watch("/b/", 1, b.Callback());
  auto hab = hub.Watch("/a/1", 1, ab.Callback());
  ASSERT_TRUE(ha.ok() && hb.ok() && hab.ok());
  PublishRange(hub, 6, 12);
  ASSERT_TRUE(a.WaitForRevision(12));
  ASSERT_TRUE(b.WaitForRevision(11));
  ASSERT_TRUE(ab.WaitForRevision(12));
  EXPECT_EQ(a.revisions(), (std::vector<int64_t>{2, 4, 6, 8, 10, 12}));
  EXPECT_EQ(b.revisions(), (std::vector<int64_t>{3, 5, 7, 9, 11}));
  EXPECT_EQ(ab.revisions(), (std::vector<int64_t>{10, 12}));
}

TEST(WatchHubTest, ManyDistinctPrefixes) {
  WatchHub hub(100, 0);
  constexpr int kPrefixes = 40;
  std::vector<std::unique_ptr<Collector>> collectors;
  std::vector<std::unique_ptr<WatchHandle>> handles;
  std::vector<std::string> prefixes = {"", "/p/", "/p/1"};
  for (int i = 0; i < kPrefixes; ++i) prefixes.push_back("/p/" + std::to_string(i) + "/");
  for (const std::string& prefix : prefixes) {
    collectors.push_back(std::make_unique<Collector>());
    auto h = hub.Watch(prefix, 0, collectors.back()->Callback());
    ASSERT_TRUE(h.ok());
    handles.push_back(std::move(*h));
  }
  for (int i = 0; i < kPrefixes; ++i)
    hub.Publish({MakeEvent("/p/" + std::to_string(i) + "/x", i + 1)});
  ASSERT_TRUE(collectors[0]->WaitForRevision(kPrefixes));
  ASSERT_TRUE(collectors[1]->WaitForRevision(kPrefixes));
  EXPECT_EQ(collectors[0]->revisions().size(), static_cast<size_t>(kPrefixes));
  EXPECT_EQ(collectors[1]->revisions().size(), static_cast<size_t>(kPrefixes));
  ASSERT_TRUE(collectors[2]->WaitForRevision(20));  // "/p/1": 1 and 10..19
  EXPECT_EQ(collectors[2]->revisions().size(), 11u);
  for (int i = 0; i < kPrefixes; ++i) {
    ASSERT_TRUE(collectors[3 + i]->WaitForRevision(i + 1));
    EXPECT_EQ(collectors[3 + i]->revisions(), std::vector<int64_t>{i + 1});
  }
}

// Finding: the history was bounded by events only (15,000 updates of a 110 KB ConfigMap: 1.7 GB).
// It is bounded in bytes too; the newest event is always kept, and what was dropped is Gone.
TEST(WatchHubTest, HistoryIsBoundedInBytes) {
  const size_t kValue = 100 * 1024;
  WatchHub hub(100000, 0, 10 * kValue);
  for (int64_t r = 1; r <= 100; ++r) {
    Event e = MakeEvent("/cm/big", r);
    e.kv.value.assign(kValue, 'x');
    hub.Publish({std::move(e)});
  }
  EXPECT_LE(hub.HistoryBytes(), 10 * kValue);
  EXPECT_GE(hub.HistorySize(), 9u);
  EXPECT_LE(hub.HistorySize(), 10u);
  EXPECT_TRUE(hub.Watch("", 50, [](const std::vector<Event>&) {}).status().IsGone());
  Collector c;
  auto ok = hub.Watch("", hub.OldestWatchableRevision(), c.Callback());
  ASSERT_TRUE(ok.ok());
  ASSERT_TRUE(c.WaitForRevision(100));

  WatchHub tiny(100000, 0, 1);  // one event larger than the bound is still kept
  tiny.Publish({MakeEvent("/k", 1)});
  EXPECT_EQ(tiny.HistorySize(), 1u);
}

TEST(WatchHubTest, AnUpdatesPreviousValueIsDeliveredWithItLiveAndReplayed) {
  WatchHub hub(100, 10);
  Collector live;
  auto live_handle = hub.Watch("", 0, live.Callback());
  ASSERT_TRUE(live_handle.ok());
  hub.Publish({MakeEvent("/k", 11, Event::Type::kCreated)});
  // A previous value the history has no entry of (its version is older than the history): the
  // history keeps it as a delta against the update's value.
  Event update = MakeEvent("/k", 12);
  update.previous =
      std::make_shared<const KeyValue>(KeyValue{"/k", std::string(1000, 'p'), 11, 11});
  hub.Publish({std::move(update)});
  const Event published = MakeEvent("/k", 13);
  SharedEvent shared = WholeEvent(published.type, published.kv);
  SharedEvent previous = WholeEvent(Event::Type::kUpdated, KeyValue{"/k", "v12", 11, 12});
  hub.Publish(std::vector<PublishedEvent>{{shared, previous, std::nullopt}});

  ASSERT_TRUE(live.WaitForRevision(13));
  std::vector<Event> delivered = live.events();
  ASSERT_EQ(delivered.size(), 3u);
  ASSERT_NE(delivered[2].previous, nullptr);
  EXPECT_EQ(delivered[2].previous->value, "v12");
  EXPECT_EQ(delivered[2].previous->mod_revision, 12);

  Collector replayed;
  auto handle = hub.Watch("", 10, replayed.Callback());
  ASSERT_TRUE(handle.ok());
  ASSERT_TRUE(replayed.WaitForRevision(13));
  std::vector<Event> events = replayed.events();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].previous, nullptr);
  ASSERT_NE(events[1].previous, nullptr);
  EXPECT_EQ(events[1].previous->value, std::string(1000, 'p'));
  EXPECT_EQ(events[1].previous->mod_revision, 11);
  EXPECT_EQ(events[1].kv.value, "v12");
  ASSERT_NE(events[2].previous, nullptr);
  EXPECT_EQ(events[2].previous->value, "v12");
  EXPECT_EQ(events[2].previous->mod_revision, 12);
  EXPECT_EQ(events[2].previous->create_revision, 1);
}

// A Lease as a renewal leaves it, renewed at second `second` of the minute.
std::string RenewedLease(int second) {
  const std::string at =
      "2026-12-05T03:17:" + std::string(second < 10 ? "0" : "") + std::to_string(second);
  return R"({"kind":"Lease","metadata":{"managedFields":[{"manager":"tenure","time":")" + at +
         R"(Z"}],"name":"x","uid":"6f1c1b9e-2d53-4a8e-9a57-3c1f0b8d2e41"},"spec":{"holderIdentity":"candidate-a-0001","leaseDurationSeconds":15,"renewTime":")" +
         at + R"(.123456Z"}})" + std::string(400, ' ');
}

// Publishes a create (at revision 101) and `updates` renewals of "/lease", each update with the
// version it replaced, shared as the SQLite store shares its state; returns what the hub was
// given.
std::vector<std::weak_ptr<const StoredEvent>> PublishRenewals(WatchHub& hub, int updates) {
  std::vector<std::weak_ptr<const StoredEvent>> published;
  SharedEvent last;
  for (int i = 0; i <= updates; ++i) {
    SharedEvent e = WholeEvent(i == 0 ? Event::Type::kCreated : Event::Type::kUpdated,
                               KeyValue{"/lease", RenewedLease(i % 60), 101, 101 + i});
    SharedEvent previous = std::move(last);
    last = e;
    published.push_back(last);
    hub.Publish(std::vector<PublishedEvent>{{last, std::move(previous), std::nullopt}});
  }
  return published;
}

// Checks a replay of renewals from revision `from`: every version whole, with its previous one.
void ExpectRenewalsReplayed(WatchHub& hub, int64_t from, int64_t to) {
  Collector c;
  auto handle = hub.Watch("/lease", from, c.Callback());
  ASSERT_TRUE(handle.ok()) << handle.status().ToString();
  ASSERT_TRUE(c.WaitForRevision(to));
  std::vector<Event> events = c.events();
  ASSERT_EQ(events.size(), static_cast<size_t>(to - from));
  for (const Event& e : events) {
    const int i = static_cast<int>(e.kv.mod_revision - 101);
    EXPECT_EQ(e.kv.key, "/lease");
    EXPECT_EQ(e.kv.value, RenewedLease(i % 60)) << "revision " << e.kv.mod_revision;
    EXPECT_EQ(e.kv.create_revision, 101);
    if (i == 0) {
      EXPECT_EQ(e.type, Event::Type::kCreated);
      EXPECT_EQ(e.previous, nullptr);
      continue;
    }
    ASSERT_NE(e.previous, nullptr) << "revision " << e.kv.mod_revision;
    EXPECT_EQ(e.previous->value, RenewedLease((i - 1) % 60));
    EXPECT_EQ(e.previous->mod_revision, e.kv.mod_revision - 1);
  }
}

// Finding (issue 17): at 10,000 renewed Leases the history held five whole versions of each,
// half of the server's memory. An older version is now kept as its delta against the next one.
TEST(WatchHubTest, ASupersededVersionKeepsOnlyItsDeltaAndIsRebuiltForAReplay) {
  WatchHub hub(1000, 100);
  std::vector<std::weak_ptr<const StoredEvent>> published = PublishRenewals(hub, 50);
  // The bytes bound still counts each version whole: a replay rebuilds them all.
  EXPECT_GE(hub.HistoryBytes(), 51 * RenewedLease(0).size());
  for (size_t i = 0; i + 1 < published.size(); ++i) {
    EXPECT_TRUE(published[i].expired()) << "version " << i << " is still held whole";
  }
  EXPECT_FALSE(published.back().expired());
  ExpectRenewalsReplayed(hub, 100, 151);

  // Once the history drops the older versions, the oldest kept update still has its previous.
  hub.SetHistoryCapacity(10);
  EXPECT_EQ(hub.OldestWatchableRevision(), 141);
  ExpectRenewalsReplayed(hub, 141, 151);
  ExpectRenewalsReplayed(hub, 147, 151);
}

// Found by review: a replay rebuilt each version from the newest one, so a key with k versions
// cost k * k / 2 deltas applied under the hub's lock (3,000 versions of 16 KB: about 70 GB
// copied). It now rebuilds each version once, from the next one, and each previous value once.
TEST(WatchHubTest, AReplayOfManyVersionsOfOneKeyRebuildsEachOnce) {
  constexpr int kVersions = 2000;
  WatchHub hub(kVersions + 10, 1000, size_t{1} << 30);
  SharedEvent last;
  auto value_of = [](int i) {
    std::string v(4 * 1024, 'x');
    const std::string n = std::to_string(i);
    v.replace(v.size() / 2, n.size(), n);
    return v;
  };
  for (int i = 1; i <= kVersions; ++i) {
    SharedEvent e = WholeEvent(i == 1 ? Event::Type::kCreated : Event::Type::kUpdated,
                               KeyValue{"/cm", value_of(i), 1001, 1000 + i});
    SharedEvent previous = std::move(last);
    last = e;
    hub.Publish(std::vector<PublishedEvent>{{last, std::move(previous), value_of(i)}});
  }
  Collector c;
  const uint64_t applied = DeltasApplied();
  auto handle = hub.Watch("", hub.OldestWatchableRevision(), c.Callback());
  ASSERT_TRUE(handle.ok()) << handle.status().ToString();
  EXPECT_LE(DeltasApplied() - applied, 2u * kVersions);
  ASSERT_TRUE(c.WaitForRevision(1000 + kVersions));
  std::vector<Event> events = c.events();
  ASSERT_EQ(events.size(), static_cast<size_t>(kVersions));
  for (int i = 1; i <= kVersions; i += 499) {
    EXPECT_EQ(events[i - 1].kv.value, value_of(i));
    if (i > 1) {
      ASSERT_NE(events[i - 1].previous, nullptr);
      EXPECT_EQ(events[i - 1].previous->value, value_of(i - 1));
    }
  }
  int seen = 0;
  const uint64_t before_list = DeltasApplied();
  Status s = hub.ForEachChangedSince(1001, "", "", [&](std::string_view, const KeyValue* then) {
    ++seen;
    ASSERT_NE(then, nullptr);
    EXPECT_EQ(then->value, value_of(1));
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(seen, 1);
  EXPECT_LE(DeltasApplied() - before_list, 2u * kVersions);
}

TEST(WatchHubTest, WhatEachKeyHeldAtAPastRevision) {
  WatchHub hub(1000, 100);
  auto publish = [&](Event::Type type, const std::string& key, int64_t revision,
                     const std::string& value, SharedEvent previous) {
    SharedEvent e = WholeEvent(
        type, KeyValue{key, value, type == Event::Type::kCreated ? revision : 101, revision});
    hub.Publish(std::vector<PublishedEvent>{{e, std::move(previous), std::nullopt}});
    return e;
  };
  auto a1 = publish(Event::Type::kCreated, "/p/a", 101, "a1", nullptr);
  auto b1 = publish(Event::Type::kCreated, "/p/b", 102, "b1", nullptr);
  auto a2 = publish(Event::Type::kUpdated, "/p/a", 103, "a2", a1);
  publish(Event::Type::kDeleted, "/p/b", 104, "b1", b1);
  publish(Event::Type::kCreated, "/p/c", 105, "c1", nullptr);
  publish(Event::Type::kUpdated, "/p/a", 106, "a3", a2);
  publish(Event::Type::kCreated, "/q/x", 107, "x1", nullptr);
  auto then = [&](int64_t revision, std::string_view from = "") {
    std::vector<std::string> out;
    Status s = hub.ForEachChangedSince(
        revision, "/p/", from, [&](std::string_view key, const KeyValue* kv) {
          out.push_back(std::string(key) + "=" +
                        (kv ? kv->value + "@" + std::to_string(kv->mod_revision) : "absent"));
        });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(then(100), (V{"/p/a=absent", "/p/b=absent", "/p/c=absent"}));
  EXPECT_EQ(then(102), (V{"/p/a=a1@101", "/p/b=b1@102", "/p/c=absent"}));
  EXPECT_EQ(then(104), (V{"/p/a=a2@103", "/p/c=absent"}));
  EXPECT_EQ(then(105), (V{"/p/a=a2@103"}));
  EXPECT_EQ(then(106), V{});
  EXPECT_EQ(then(102, "/p/b"), (V{"/p/b=b1@102", "/p/c=absent"}));
  // The same once the versions of 101..103 are no longer in the history.
  hub.SetHistoryCapacity(3);
  EXPECT_EQ(then(104), (V{"/p/a=a2@103", "/p/c=absent"}));
  Status gone = hub.ForEachChangedSince(103, "/p/", "", [](std::string_view, const KeyValue*) {});
  EXPECT_TRUE(gone.IsGone()) << gone.ToString();
}

TEST(WatchHubTest, TooOldIsGone) {
  WatchHub hub(5, 100);
  EXPECT_EQ(hub.OldestWatchableRevision(), 100);
  auto before_start = hub.Watch("", 99, [](const std::vector<Event>&) {});
  ASSERT_FALSE(before_start.ok());
  EXPECT_TRUE(before_start.status().IsGone());
  EXPECT_EQ(before_start.status().message(), "too old resource version: 99 (100)");

  PublishRange(hub, 100, 110);  // keeps 106..110
  EXPECT_EQ(hub.HistorySize(), 5u);
  EXPECT_EQ(hub.OldestWatchableRevision(), 105);
  auto gone = hub.Watch("", 104, [](const std::vector<Event>&) {});
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(gone.status().IsGone());
  EXPECT_EQ(gone.status().message(), "too old resource version: 104 (105)");

  Collector c;
  auto ok = hub.Watch("", 105, c.Callback());
  ASSERT_TRUE(ok.ok());
  ASSERT_TRUE(c.WaitForRevision(110));
  EXPECT_EQ(c.revisions(), (std::vector<int64_t>{106, 107, 108, 109, 110}));
}

TEST(WatchHubTest, ZeroCapacityKeepsNoHistory) {
  WatchHub hub(0, 0);
  PublishRange(hub, 0, 3);
  EXPECT_EQ(hub.OldestWatchableRevision(), 3);
  EXPECT_TRUE(hub.Watch("", 2, [](const std::vector<Event>&) {}).status().IsGone());
  Collector c;
  auto h = hub.Watch("", 3, c.Callback());
  ASSERT_TRUE(h.ok());
  PublishRange(hub, 3, 4);
  ASSERT_TRUE(c.WaitForRevision(4));
  EXPECT_EQ(c.revisions(), std::vector<int64_t>{4});
}

TEST(WatchHubTest, FutureRevisionSkipsEventsUpToIt) {
  WatchHub hub(100, 0);
  Collector c;
  auto h = hub.Watch("", 3, c.Callback());
  ASSERT_TRUE(h.ok());
  PublishRange(hub, 0, 5);
  ASSERT_TRUE(c.WaitForRevision(5));
  EXPECT_EQ(c.revisions(), (std::vector<int64_t>{4, 5}));
}

TEST(WatchHubTest, DestroyedHandleGetsNoMoreCallbacks) {
  WatchHub hub(100, 0);
  Collector dropped, witness;
  auto h = hub.Watch("", 0, dropped.Callback());
  auto w = hub.Watch("", 0, witness.Callback());
  ASSERT_TRUE(h.ok() && w.ok());
  PublishRange(hub, 0, 1);
  ASSERT_TRUE(dropped.WaitForRevision(1));
  h->reset();
  EXPECT_EQ(hub.WatcherCount(), 1u);
  PublishRange(hub, 1, 20);
  ASSERT_TRUE(witness.WaitForRevision(20));
  EXPECT_EQ(dropped.revisions(), std::vector<int64_t>{1});
}

TEST(WatchHubTest, DestructorWaitsForRunningCallback) {
  WatchHub hub(100, 0);
  std::promise<void> entered;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> returned{false};
  std::atomic<bool> destructor_done_early{false};
  std::atomic<bool> first_call{true};
  auto h = hub.Watch("", 0, [&](const std::vector<Event>&) {
    if (first_call.exchange(false)) entered.set_value();
    released.wait();
    returned.store(true);
  });
  ASSERT_TRUE(h.ok());
  PublishRange(hub, 0, 1);
  if (entered.get_future().wait_for(kDeadline) != std::future_status::ready) {
    release.set_value();
    FAIL() << "callback not called";
  }
  std::thread destroyer([&] {
    h->reset();
    if (!returned.load()) destructor_done_early.store(true);
  });
  // The destructor is blocked until the callback returns; releasing it lets both finish.
  release.set_value();
  destroyer.join();
  EXPECT_FALSE(destructor_done_early.load());
}

TEST(WatchHubTest, CallbackMayDestroyItsOwnHandleAndOthers) {
  WatchHub hub(100, 0);
  std::unique_ptr<WatchHandle> self, other;
  std::mutex mu;
  std::condition_variable cv;
  int self_calls = 0;
  bool other_destroyed = false;
  Collector other_events, witness;
  auto o = hub.Watch("", 0, other_events.Callback());
  ASSERT_TRUE(o.ok());
  other = std::move(*o);
  auto s = hub.Watch("", 0, [&](const std::vector<Event>&) {
    std::lock_guard lock(mu);
    ++self_calls;
    self.reset();
    other.reset();
    other_destroyed = true;
    cv.notify_all();
  });
  ASSERT_TRUE(s.ok());
  {
    std::lock_guard lock(mu);
    self = std::move(*s);
  }
  auto w = hub.Watch("", 0, witness.Callback());
  ASSERT_TRUE(w.ok());
  PublishRange(hub, 0, 1);
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, kDeadline, [&] { return other_destroyed; }));
  }
  PublishRange(hub, 1, 10);
  ASSERT_TRUE(witness.WaitForRevision(10));
  std::lock_guard lock(mu);
  EXPECT_EQ(self_calls, 1);
  EXPECT_EQ(hub.WatcherCount(), 1u);
  for (int64_t r : other_events.revisions()) EXPECT_LE(r, 1);
}

TEST(WatchHubTest, CallbackMayStartAWatch) {
  WatchHub hub(100, 10);
  Collector nested;
  std::unique_ptr<WatchHandle> nested_handle;
  std::mutex mu;
  auto h = hub.Watch("", 0, [&](const std::vector<Event>& events) {
    std::lock_guard lock(mu);
    if (!nested_handle) {
      auto r = hub.Watch("", events.front().kv.mod_revision - 1, nested.Callback());
      if (r.ok()) nested_handle = std::move(*r);
    }
  });
  ASSERT_TRUE(h.ok());
  PublishRange(hub, 10, 15);
  ASSERT_TRUE(nested.WaitForRevision(15));
  auto revs = nested.revisions();
  for (size_t i = 1; i < revs.size(); ++i) EXPECT_EQ(revs[i], revs[i - 1] + 1);
  EXPECT_EQ(revs.back(), 15);
  EXPECT_EQ(revs.front(), 11);
  std::lock_guard lock(mu);
  nested_handle.reset();
}

TEST(WatchHubTest, HandlesMayOutliveTheHub) {
  std::unique_ptr<WatchHandle> handle;
  {
    WatchHub hub(10, 0);
    auto h = hub.Watch("", 0, [](const std::vector<Event>&) {});
    ASSERT_TRUE(h.ok());
    handle = std::move(*h);
    PublishRange(hub, 0, 3);
  }
  handle.reset();
}

TEST(WatchHubTest, ThousandWatchersSeeEveryEvent) {
  WatchHub hub(1000, 0);
  constexpr int kWatchers = 1000;
  constexpr int64_t kEvents = 200;
  std::vector<std::unique_ptr<Collector>> collectors;
  std::vector<std::unique_ptr<WatchHandle>> handles;
  for (int i = 0; i < kWatchers; ++i) {
    collectors.push_back(std::make_unique<Collector>());
    auto prefix = i % 3 == 0 ? "" : (i % 3 == 1 ? "/a/" : "/b/");
    auto h = hub.Watch(prefix, 0, collectors.back()->Callback());
    ASSERT_TRUE(h.ok());
    handles.push_back(std::move(*h));
  }
  std::thread publisher([&] { PublishRange(hub, 0, kEvents); });
  publisher.join();
  for (int i = 0; i < kWatchers; ++i) {
    int64_t last = i % 3 == 2 ? kEvents - 1 : kEvents;
    ASSERT_TRUE(collectors[i]->WaitForRevision(last)) << i;
    auto revs = collectors[i]->revisions();
    size_t want = i % 3 == 0 ? kEvents : kEvents / 2;
    ASSERT_EQ(revs.size(), want) << i;
    for (size_t k = 1; k < revs.size(); ++k) ASSERT_GT(revs[k], revs[k - 1]);
  }
  handles.clear();
  EXPECT_EQ(hub.WatcherCount(), 0u);
}

}  // namespace
}  // namespace tenure::store
