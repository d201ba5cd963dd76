// ObjectHeadCache: a value's head read once, named by its store, key and revision.
#include "server/object_head_cache.h"

#include <gtest/gtest.h>

namespace tenure::server {
namespace {

store::KeyValue Value(const std::string& team, int64_t revision) {
  return {"/registry/leases/default/l",
          R"({"metadata":{"name":"l","namespace":"default","labels":{"team":")" + team +
              R"("}},"spec":{}})",
          1, revision};
}

TEST(ObjectHeadCacheTest, AValueIsReadOnceAndNamedByItsStoreKeyAndRevision) {
  ObjectHeadCache cache;
  int store_a = 0, store_b = 0;
  const api::ObjectHead* head = cache.Get(&store_a, Value("a", 5));
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->name, "l");
  EXPECT_EQ(head->namespace_, "default");
  EXPECT_EQ(head->labels.at("team"), "a");
  // The same name is the same value: not read again (a different text here shows it).
  EXPECT_EQ(cache.Get(&store_a, Value("changed", 5))->labels.at("team"), "a");
  // Another revision, or another store's value at the same key and revision, is read.
  EXPECT_EQ(cache.Get(&store_a, Value("b", 6))->labels.at("team"), "b");
  EXPECT_EQ(cache.Get(&store_b, Value("c", 5))->labels.at("team"), "c");
  // A text without a head: the caller decides some other way.
  store::KeyValue broken = Value("a", 7);
  broken.value = "not json";
  EXPECT_EQ(cache.Get(&store_a, broken), nullptr);
}

}  // namespace
}  // namespace tenure::server
