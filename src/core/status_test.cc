// Status and Result: a Result's value is read only when it is there; reading it on an error
// throws BadResultAccess naming the Status, never undefined behaviour.
#include "tenure/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace tenure {
namespace {

TEST(ResultTest, ValueOnAnErrorThrowsWithTheStatusMessage) {
  Result<std::string> missing = Status::NotFound("leases \"x\" not found");
  EXPECT_FALSE(missing.ok());
  try {
    (void)missing.value();
    FAIL() << "value() on an error returned";
  } catch (const BadResultAccess& e) {
    EXPECT_STREQ(e.what(), "tenure::Result::value() on an error: NotFound: leases \"x\" not found");
    EXPECT_TRUE(e.status().IsNotFound());
  }
  EXPECT_THROW((void)*missing, BadResultAccess);
  EXPECT_THROW((void)missing->size(), BadResultAccess);
  EXPECT_THROW((void)std::move(missing).value(), BadResultAccess);
  const Result<std::string>& as_const = missing;
  EXPECT_THROW((void)as_const.value(), BadResultAccess);
}

TEST(ResultTest, ValueOrGivesTheFallbackOnlyOnAnError) {
  Result<int> error = Status::Unavailable("no server");
  EXPECT_EQ(error.value_or(7), 7);
  Result<int> value = 3;
  EXPECT_EQ(value.value_or(7), 3);
  Result<std::unique_ptr<int>> owned = std::make_unique<int>(5);
  EXPECT_EQ(*std::move(owned).value_or(nullptr), 5);
}

TEST(ResultTest, AnOkStatusWithoutAValueIsAnError) {
  Result<int> r = Status::Ok();
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().reason(), Reason::kInternalError);
  EXPECT_THROW((void)r.value(), BadResultAccess);
}

TEST(ResultTest, AValueIsReadThroughEveryAccessor) {
  Result<std::string> r = std::string("pod-1");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value(), "pod-1");
  EXPECT_EQ(*r, "pod-1");
  EXPECT_EQ(r->size(), 5u);
  std::string moved = std::move(r).value();
  EXPECT_EQ(moved, "pod-1");
}

}  // namespace
}  // namespace tenure
