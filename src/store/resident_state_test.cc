// ResidentState: listing, watched events, the revision reads wait for, and invalidation.
#include "store/resident_state.h"

#include <gtest/gtest.h>

#include <thread>

namespace tenure::store {
namespace {

using Clock = std::chrono::steady_clock;

Event Put(const std::string& key, const std::string& value, int64_t revision,
          Event::Type type = Event::Type::kUpdated) {
  return Event{type, KeyValue{key, value, 1, revision}};
}

Event Deleted(const std::string& key, int64_t revision) {
  return Event{Event::Type::kDeleted, KeyValue{key, "last", 1, revision}};
}

TEST(ResidentStateTest, ServesNothingBeforeItsFirstListing) {
  ResidentState state;
  EXPECT_FALSE(state.serving());
  EXPECT_FALSE(state.WaitFor(0, Clock::now()));
  state.Apply({Put("/registry/a", "1", 5)}, 5);  // not serving: ignored
  EXPECT_FALSE(state.Get("/registry/a"));
}

TEST(ResidentStateTest, EventsAfterTheListingApplyAndOlderOnesAreAlreadyIn) {
  ResidentState state;
  state.Reset({KeyValue{"/registry/a", "listed", 1, 10}, KeyValue{"/registry/b", "b", 2, 4}}, 10);
  ASSERT_TRUE(state.serving());
  EXPECT_EQ(state.revision(), 10);
  // A watch resumed from before the listing replays what the listing already holds.
  state.Apply({Put("/registry/a", "older", 9), Deleted("/registry/b", 10)}, 10);
  ASSERT_TRUE(state.Get("/registry/a"));
  EXPECT_EQ(state.Get("/registry/a")->value, "listed");
  EXPECT_TRUE(state.Get("/registry/b"));
  state.Apply({Put("/registry/a", "newer", 11), Deleted("/registry/b", 12),
               Put("/registry/c", "c", 12, Event::Type::kCreated)},
              12);
  EXPECT_EQ(state.revision(), 12);
  EXPECT_EQ(state.Get("/registry/a")->value, "newer");
  EXPECT_EQ(state.Get("/registry/a")->mod_revision, 11);
  EXPECT_FALSE(state.Get("/registry/b"));
  EXPECT_EQ(state.Get("/registry/c")->value, "c");
  EXPECT_EQ(state.size(), 2u);
  // A response of writes outside the prefix moves the revision alone.
  state.Apply({}, 15);
  EXPECT_EQ(state.revision(), 15);
}

TEST(ResidentStateTest, AppliedEventsAreSharedWithTheWatchAndAnUpdateNamesItsPreviousVersion) {
  ResidentState state;
  state.Reset({KeyValue{"/registry/a", "listed", 1, 10}}, 10);
  Event update = Put("/registry/a", "new", 11);
  // What etcd's prev_kv says the update replaced: the copy holds that version.
  update.previous = std::make_shared<const KeyValue>(KeyValue{"/registry/a", "listed", 1, 10});
  Event elsewhere = Put("/registry/b", "b", 12, Event::Type::kCreated);
  std::vector<PublishedEvent> published = state.Apply({update, elsewhere}, 12);
  ASSERT_EQ(published.size(), 2u);
  ASSERT_NE(published[0].previous, nullptr);
  EXPECT_EQ(published[0].previous->value.Text(), "listed");
  EXPECT_EQ(published[0].previous->mod_revision, 10);
  EXPECT_EQ(published[1].previous, nullptr);
  // The copy and the watch's history hold one event, not a copy each.
  EXPECT_EQ(published[0].event.use_count(), 2);
  auto again = state.Apply({Put("/registry/a", "newest", 13)}, 13);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].previous, nullptr);  // etcd named none: none is made up
  // An update older than the copy (a listing taken after it) is published with what etcd named.
  Event old = Put("/registry/a", "old", 9);
  old.previous = std::make_shared<const KeyValue>(KeyValue{"/registry/a", "older", 1, 8});
  published = state.Apply({old}, 13);
  ASSERT_EQ(published.size(), 1u);
  ASSERT_NE(published[0].previous, nullptr);
  EXPECT_EQ(published[0].previous->value.Text(), "older");
  EXPECT_EQ(state.Get("/registry/a")->value, "newest");
}

TEST(ResidentStateTest, ListsAPrefixInKeyOrderWithPages) {
  ResidentState state;
  state.Reset({KeyValue{"/registry/l/a", "1", 1, 1}, KeyValue{"/registry/l/b", "2", 2, 2},
               KeyValue{"/registry/l/c", "3", 3, 3}, KeyValue{"/registry/m/a", "4", 4, 4}},
              4);
  ListResult all = state.List("/registry/l/", "", 0);
  ASSERT_EQ(all.items.size(), 3u);
  EXPECT_EQ(all.items[0].key, "/registry/l/a");
  EXPECT_EQ(all.items[2].key, "/registry/l/c");
  EXPECT_EQ(all.revision, 4);
  EXPECT_EQ(all.remaining, 0);
  ListResult page = state.List("/registry/l/", "/registry/l/b", 1);
  ASSERT_EQ(page.items.size(), 1u);
  EXPECT_EQ(page.items[0].key, "/registry/l/b");
  EXPECT_EQ(page.remaining, 1);
}

TEST(ResidentStateTest, AReaderWaitsUntilTheWatchReachesTheRevision) {
  ResidentState state;
  state.Reset({}, 10);
  EXPECT_TRUE(state.WaitFor(10, Clock::now()));
  EXPECT_FALSE(state.WaitFor(11, Clock::now() + std::chrono::milliseconds(1)));
  std::jthread watch([&] { state.Apply({Put("/registry/a", "1", 11)}, 11); });
  EXPECT_TRUE(state.WaitFor(11, Clock::now() + std::chrono::seconds(60)));
  EXPECT_EQ(state.Get("/registry/a")->value, "1");
}

TEST(ResidentStateTest, InvalidatingEndsTheWaitsAndTheServingUntilTheNextListing) {
  ResidentState state;
  state.Reset({KeyValue{"/registry/a", "1", 1, 1}}, 1);
  std::jthread gap([&] { state.Invalidate(); });
  EXPECT_FALSE(state.WaitFor(2, Clock::now() + std::chrono::seconds(60)));
  gap.join();
  EXPECT_FALSE(state.serving());
  state.Apply({Put("/registry/a", "2", 2)}, 2);  // ignored while invalid
  state.Reset({KeyValue{"/registry/a", "3", 1, 3}}, 3);
  EXPECT_TRUE(state.WaitFor(3, Clock::now()));
  EXPECT_EQ(state.Get("/registry/a")->value, "3");
}

}  // namespace
}  // namespace tenure::store
