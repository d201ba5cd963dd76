// ObjectFilter: label and field selectors over stored objects, read from the metadata alone when
// that is all they ask about.
#include <gtest/gtest.h>

#include "api/kinds.h"
#include "server/http_server.h"
#include "server/response_format.h"

namespace tenure::server {
namespace {

ObjectFilter Filter(const api::KindInfo& kind, const std::string& labels,
                    const std::string& fields = "") {
  HttpRequest request;
  if (!labels.empty()) request.query.emplace("labelSelector", labels);
  if (!fields.empty()) request.query.emplace("fieldSelector", fields);
  auto filter = ObjectFilter::FromRequest(kind, request);
  EXPECT_TRUE(filter.ok()) << filter.status().ToString();
  return *filter;
}

// A stored Lease as the store keeps it: metadata before spec, managedFields included.
const std::string kWeb =
    R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"creationTimestamp":)"
    R"("2026-12-04T00:00:00Z","labels":{"app":"web","tier":"front"},"managedFields":[{)"
    R"("manager":"m","operation":"Update","fieldsV1":{"f:metadata":{"f:labels":{"f:app":{}}}}}],)"
    R"("name":"web-1","namespace":"prod","uid":"u"},"spec":{"holderIdentity":"a"}})";
// Metadata last, a label whose value is no string, names elsewhere that are not the object's.
const std::string kOdd =
    R"({"spec":{"holderIdentity":"b","metadata":{"name":"web-1","labels":{"app":"web"}}},)"
    R"("metadata":{"labels":{"app":"db","replicas":3},"name":"db-1","namespace":"prod"}})";
const std::string kNoLabels = R"({"metadata":{"name":"plain","namespace":"dev"},"spec":{}})";

TEST(ObjectFilterTest, LabelSelectorsMatchTheObjectsOwnLabelsWhereverItsMetadataIs) {
  const auto& lease = api::LeaseKind();
  struct Case {
    std::string selector;
    bool web, odd, plain;
  };
  for (const Case& c : std::vector<Case>{
           {"app=web", true, false, false},
           {"app!=web", false, true, true},
           {"app in (web,db)", true, true, false},
           {"app notin (web)", false, true, true},
           {"tier", true, false, false},
           {"!tier", false, true, true},
           {"replicas", false, false, false},  // not a string: no such label
           {"app=web,tier=front", true, false, false},
           {"app=db,!tier", false, true, false},
       }) {
    ObjectFilter filter = Filter(lease, c.selector);
    EXPECT_EQ(filter.Matches(lease, kWeb), c.web) << c.selector;
    EXPECT_EQ(filter.Matches(lease, kOdd), c.odd) << c.selector;
    EXPECT_EQ(filter.Matches(lease, kNoLabels), c.plain) << c.selector;
  }
}

TEST(ObjectFilterTest, NameAndNamespaceFieldsAndARequiredNameAreTheObjectsOwn) {
  const auto& lease = api::LeaseKind();
  EXPECT_TRUE(Filter(lease, "", "metadata.name=web-1").Matches(lease, kWeb));
  EXPECT_FALSE(Filter(lease, "", "metadata.name=web-1").Matches(lease, kOdd));
  EXPECT_TRUE(Filter(lease, "", "metadata.name!=web-1").Matches(lease, kOdd));
  EXPECT_TRUE(Filter(lease, "", "metadata.namespace=dev").Matches(lease, kNoLabels));
  EXPECT_FALSE(Filter(lease, "", "metadata.namespace=dev").Matches(lease, kWeb));
  EXPECT_TRUE(Filter(lease, "app=db", "metadata.namespace=prod").Matches(lease, kOdd));
  ObjectFilter named = Filter(lease, "app=web");
  named.RequireName("web-1");
  EXPECT_TRUE(named.Matches(lease, kWeb));
  named.RequireName("web-2");
  EXPECT_FALSE(named.Matches(lease, kWeb));
}

TEST(ObjectFilterTest, AFieldOutsideTheMetadataIsReadFromTheWholeObject) {
  const auto& candidate = api::LeaseCandidateKind();
  const std::string stored = R"({"metadata":{"labels":{"app":"web"},"name":"c","namespace":"ns"},)"
                             R"("spec":{"leaseName":"l1"}})";
  EXPECT_TRUE(Filter(candidate, "app=web", "spec.leaseName=l1").Matches(candidate, stored));
  EXPECT_FALSE(Filter(candidate, "app=web", "spec.leaseName=l2").Matches(candidate, stored));
  EXPECT_FALSE(Filter(candidate, "app=db", "spec.leaseName=l1").Matches(candidate, stored));
}

TEST(ObjectFilterTest, TextThatIsNoObjectIsNeverSelected) {
  const auto& lease = api::LeaseKind();
  ObjectFilter filter = Filter(lease, "!app");
  EXPECT_FALSE(filter.Matches(lease, "not json"));
  EXPECT_FALSE(filter.Matches(lease, "[]"));
  EXPECT_TRUE(filter.Matches(lease, "{}"));  // an object without labels has no app label
}

}  // namespace
}  // namespace tenure::server
