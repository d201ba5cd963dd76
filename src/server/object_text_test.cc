// Tests of StoredMetadata, WithResourceVersion and StoredValue on stored object text.
#include "server/object_text.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "api/kinds.h"

namespace tenure::server {
namespace {

TEST(StoredMetadataTest, FindsTheTopLevelMetadataObject) {
  EXPECT_EQ(
      StoredMetadata(
          R"({"apiVersion":"v1","kind":"Lease","metadata":{"name":"a","labels":{"x":"}{"}},"spec":{}})"),
      R"({"name":"a","labels":{"x":"}{"}})");
}

TEST(StoredMetadataTest, SkipsEscapedQuotesAndBrackets) {
  EXPECT_EQ(StoredMetadata(R"({"metadata":{"annotations":{"a":"\"}]\\"},"f":["{"]},"spec":{}})"),
            R"({"annotations":{"a":"\"}]\\"},"f":["{"]})");
}

TEST(StoredMetadataTest, EmptyWhenAbsentOrTruncated) {
  EXPECT_EQ(StoredMetadata(R"({"kind":"Lease"})"), "");
  EXPECT_EQ(StoredMetadata(R"({"metadata":{"name":"a")"), "");
  EXPECT_EQ(StoredMetadata(R"({"metadata":"x"})"), "");
}

TEST(WithResourceVersionTest, SplicesTheRevisionFirstInMetadata) {
  EXPECT_EQ(WithResourceVersion(R"({"metadata":{"name":"a"}})", 7),
            R"({"metadata":{"resourceVersion":"7","name":"a"}})");
  EXPECT_EQ(WithResourceVersion(R"({"metadata":{}})", 7),
            R"({"metadata":{"resourceVersion":"7"}})");
  // Revision 0: never stored (a dry-run create), no resourceVersion.
  EXPECT_EQ(WithResourceVersion(R"({"metadata":{"name":"a"}})", 0), R"({"metadata":{"name":"a"}})");
}

TEST(StoredValueTest, HoldsNoMoreMemoryThanItsText) {
  // A renewed Lease as an elector writes it: its managedFields make the text longer than the
  // room a growing string happens to end with.
  nlohmann::json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                          {"kind", "Lease"},
                          {"metadata",
                           {{"name", "scale-00001"},
                            {"namespace", "default"},
                            {"uid", "6f1c1b9e-2d53-4a8e-9a57-3c1f0b8d2e41"},
                            {"creationTimestamp", "2026-12-05T03:17:11Z"},
                            {"managedFields",
                             {{{"manager", "tenure"},
                               {"operation", "Update"},
                               {"apiVersion", "coordination.k8s.io/v1"},
                               {"time", "2026-12-05T03:17:11Z"},
                               {"fieldsType", "FieldsV1"},
                               {"fieldsV1",
                                {{"f:spec",
                                  {{"f:acquireTime", nlohmann::json::object()},
                                   {"f:holderIdentity", nlohmann::json::object()},
                                   {"f:leaseDurationSeconds", nlohmann::json::object()},
                                   {"f:leaseTransitions", nlohmann::json::object()},
                                   {"f:renewTime", nlohmann::json::object()}}}}}}}}}},
                          {"spec",
                           {{"holderIdentity", "candidate-a-0001"},
                            {"leaseDurationSeconds", 15},
                            {"acquireTime", "2026-12-05T03:17:11.000000Z"},
                            {"renewTime", "2026-12-05T03:17:13.123456Z"},
                            {"leaseTransitions", 0}}}};
  for (int extra = 0; extra < 64; ++extra) {
    lease["metadata"]["labels"]["group"] = std::string(extra, 'x');
    std::string value = StoredValue(api::LeaseKind(), lease);
    EXPECT_EQ(value, lease.dump());
    EXPECT_EQ(value.capacity(), value.size()) << "with a label of " << extra << " characters";
  }
}

}  // namespace
}  // namespace tenure::server
