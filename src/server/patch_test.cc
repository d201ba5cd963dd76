// Tests of the PATCH types: RFC 7386 and 6902 vectors, limits, strategic merge directives, apply.
#include "server/patch.h"

#include "api/client_json.h"
#include "server/stack_thread.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tenure::server {
namespace {

using nlohmann::json;

json J(const char* text) { return json::parse(text); }

TEST(PatchTypeTest, FromContentType) {
  EXPECT_EQ(PatchTypeFromContentType("application/merge-patch+json"), PatchType::kMerge);
  EXPECT_EQ(PatchTypeFromContentType("application/strategic-merge-patch+json; charset=utf-8"),
            PatchType::kStrategicMerge);
  EXPECT_EQ(PatchTypeFromContentType("Application/JSON-Patch+JSON"), PatchType::kJson);
  EXPECT_EQ(PatchTypeFromContentType(" application/apply-patch+yaml ;charset=utf-8"),
            PatchType::kApply);
  EXPECT_EQ(PatchTypeFromContentType("application/json"), std::nullopt);
  EXPECT_EQ(PatchTypeFromContentType(""), std::nullopt);
  EXPECT_EQ(PatchContentType(PatchType::kJson), "application/json-patch+json");
}

// RFC 7386 appendix A (the vectors whose patch is an object).
TEST(PatchMergeTest, Rfc7386Vectors) {
  struct Case {
    const char* target;
    const char* patch;
    const char* result;
  };
  const Case cases[] = {
      {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
      {R"({"a":"b"})", R"({"a":null})", R"({})"},
      {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
      {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
      {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
      {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
      {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
      {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
      {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
      // The RFC's example document.
      {R"({"title":"Goodbye!","author":{"givenName":"John","familyName":"Doe"},
          "tags":["example","sample"],"content":"This will be unchanged"})",
       R"({"title":"Hello!","phoneNumber":"+01-123-456-7890","author":{"familyName":null},
          "tags":["example"]})",
       R"({"title":"Hello!","author":{"givenName":"John"},"tags":["example"],
          "content":"This will be unchanged","phoneNumber":"+01-123-456-7890"})"},
  };
  for (const Case& c : cases) {
    auto result = ApplyMergePatch(J(c.target), J(c.patch));
    ASSERT_TRUE(result.ok()) << c.patch << ": " << result.status().ToString();
    EXPECT_EQ(*result, J(c.result)) << c.target << " + " << c.patch;
  }
}

TEST(PatchMergeTest, NonObjectPatchIsBadRequest) {
  auto result = ApplyMergePatch(J(R"({"a":"b"})"), J(R"(["c"])"));
  EXPECT_EQ(result.status().reason(), Reason::kBadRequest);
  EXPECT_EQ(ApplyMergePatch(J(R"({"a":"b"})"), json()).status().reason(), Reason::kBadRequest);
}

// RFC 6902 appendix A.
TEST(PatchJsonTest, Rfc6902Vectors) {
  struct Case {
    const char* target;
    const char* patch;
    const char* result;
  };
  const Case cases[] = {
      // A.1 - A.10
      {R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux"}])",
       R"({"baz":"qux","foo":"bar"})"},
      {R"({"foo":["bar","baz"]})", R"([{"op":"add","path":"/foo/1","value":"qux"}])",
       R"({"foo":["bar","qux","baz"]})"},
      {R"({"baz":"qux","foo":"bar"})", R"([{"op":"remove","path":"/baz"}])", R"({"foo":"bar"})"},
      {R"({"foo":["bar","qux","baz"]})", R"([{"op":"remove","path":"/foo/1"}])",
       R"({"foo":["bar","baz"]})"},
      {R"({"baz":"qux","foo":"bar"})", R"([{"op":"replace","path":"/baz","value":"boo"}])",
       R"({"baz":"boo","foo":"bar"})"},
      {R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
       R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
       R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"},
      {R"({"foo":["all","grass","cows","eat"]})",
       R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])",
       R"({"foo":["all","cows","eat","grass"]})"},
      {R"({"baz":"qux","foo":["a",2,"c"]})",
       R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])",
       R"({"baz":"qux","foo":["a",2,"c"]})"},
      {R"({"foo":"bar"})", R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])",
       R"({"foo":"bar","child":{"grandchild":{}}})"},
      {R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])",
       R"({"foo":"bar","baz":"qux"})"},
      // A.14: ~ escapes.
      {R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":10}])", R"({"/":9,"~1":10})"},
      {R"({"/":9,"~1":10})", R"([{"op":"add","path":"/~1x","value":1}])",
       R"({"/":9,"~1":10,"/x":1})"},
      // A.16: adding an array value; "-" appends.
      {R"({"foo":["bar"]})", R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])",
       R"({"foo":["bar",["abc","def"]]})"},
      // copy, and replacing the whole document.
      {R"({"a":{"b":1}})", R"([{"op":"copy","from":"/a","path":"/c"}])",
       R"({"a":{"b":1},"c":{"b":1}})"},
      {R"({"a":1})", R"([{"op":"replace","path":"","value":{"b":2}}])", R"({"b":2})"},
      // Numbers compare by value.
      {R"({"a":1})", R"([{"op":"test","path":"/a","value":1.0}])", R"({"a":1})"},
  };
  for (const Case& c : cases) {
    auto result = ApplyJsonPatch(J(c.target), J(c.patch));
    ASSERT_TRUE(result.ok()) << c.patch << ": " << result.status().ToString();
    EXPECT_EQ(*result, J(c.result)) << c.patch;
  }
}

TEST(PatchJsonTest, Rfc6902Errors) {
  const char* failing[][2] = {
      // A.9 failed test, A.11 missing parent, A.12 remove missing, A.13 invalid index, A.15
      // comparing strings and numbers.
      {R"({"baz":"qux"})", R"([{"op":"test","path":"/baz","value":"bar"}])"},
      {R"({"foo":"bar"})", R"([{"op":"add","path":"/baz/bat","value":"qux"}])"},
      {R"({"foo":"bar"})", R"([{"op":"remove","path":"/baz"}])"},
      {R"({"foo":["bar","baz"]})", R"([{"op":"add","path":"/foo/3","value":"x"}])"},
      {R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":"10"}])"},
      {R"({"a":1})", R"([{"op":"replace","path":"/b","value":2}])"},
      {R"({"a":{"b":1}})", R"([{"op":"move","from":"/a","path":"/a/b/c"}])"},
      {R"({"a":[1]})", R"([{"op":"remove","path":"/a/01"}])"},
      {R"({"a":1})", R"([{"op":"frob","path":"/a"}])"},
      {R"({"a":1})", R"([{"op":"add","path":"a","value":1}])"},
      {R"({"a":1})", R"([{"op":"copy","from":"/x","path":"/y"}])"},
  };
  for (const auto& c : failing) {
    json target = J(c[0]);
    auto result = ApplyJsonPatch(target, J(c[1]));
    ASSERT_FALSE(result.ok()) << c[1];
    EXPECT_EQ(result.status().reason(), Reason::kInvalid) << c[1];
    EXPECT_EQ(result.status().message(),
              "the server rejected our request due to an error in our request");
    ASSERT_EQ(result.status().causes().size(), 1u);
    EXPECT_EQ(result.status().causes()[0].type, "UnexpectedServerResponse");
    EXPECT_FALSE(result.status().causes()[0].message.empty());
  }
  auto test_failed =
      ApplyJsonPatch(J(R"({"a":"x"})"), J(R"([{"op":"test","path":"/a","value":"y"}])"));
  EXPECT_EQ(test_failed.status().causes()[0].message, "testing value /a failed: test failed");
}

TEST(PatchJsonTest, OperationsApplyInOrderAndAllOrNothing) {
  json target = J(R"({"spec":{"holderIdentity":"a"}})");
  auto result =
      ApplyJsonPatch(target, J(R"([{"op":"replace","path":"/spec/holderIdentity","value":"b"},
                    {"op":"test","path":"/spec/holderIdentity","value":"b"},
                    {"op":"add","path":"/metadata","value":{"labels":{"x":"y"}}}])"));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, J(R"({"spec":{"holderIdentity":"b"},"metadata":{"labels":{"x":"y"}}})"));
  EXPECT_EQ(target, J(R"({"spec":{"holderIdentity":"a"}})"));
}

TEST(PatchJsonTest, MalformedPatchIsBadRequest) {
  EXPECT_EQ(ApplyJsonPatch(J("{}"), J(R"({"op":"add"})")).status().reason(), Reason::kBadRequest);
  EXPECT_EQ(ApplyJsonPatch(J("{}"), J(R"([1])")).status().reason(), Reason::kBadRequest);
  json many = json::array();
  for (int i = 0; i < 10001; ++i) many.push_back({{"op", "test"}, {"path", ""}, {"value", 1}});
  EXPECT_EQ(ApplyJsonPatch(J("{}"), many).status().reason(), Reason::kRequestEntityTooLarge);
}

// Finding: a 2.6 KB JSON patch of 21 copy operations, each doubling the document, drove the
// server to 5.4 GB. As in kube-apiserver, copies may add 3 MiB to a patch's document in all.
TEST(PatchJsonTest, CopiesAreBoundedInBytes) {
  json target = {{"a", std::string(1000, 'x')}};
  json bomb = json::array();
  for (int i = 0; i < 21; ++i) {
    bomb.push_back({{"op", "copy"}, {"from", ""}, {"path", "/c" + std::to_string(i)}});
  }
  auto result = ApplyJsonPatch(target, bomb);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().reason(), Reason::kInvalid);
  ASSERT_EQ(result.status().causes().size(), 1u);
  EXPECT_NE(result.status().causes()[0].message.find("exceeding the limit 3145728"),
            std::string::npos)
      << result.status().causes()[0].message;
  // Copies within the bound apply.
  auto few = ApplyJsonPatch(target, J(R"([{"op":"copy","from":"/a","path":"/b"},
                                         {"op":"copy","from":"/b","path":"/c"}])"));
  ASSERT_TRUE(few.ok()) << few.status().ToString();
  EXPECT_EQ((*few)["c"], target["a"]);
}

void DeepPatchChecks();

// Review finding: the nesting limit held for the body, not for what a JSON patch builds from
// it: adds at the deepest leaf and copies of a subtree into itself doubled the depth each time,
// until a recursive step overflowed the stack. A patch may not build a document deeper than a
// body may be.
TEST(PatchJsonTest, APatchCannotBuildADocumentDeeperThanABody) {
  // On a thread with a request handler's stack, as in the server: copying and destroying
  // thousands of levels recurses (a Debug ASan build needs more than the main thread's 8 MiB).
  StackThread handler(kHandlerStackBytes, [] { DeepPatchChecks(); });
  handler.join();
}

void DeepPatchChecks() {
  auto nested = [](size_t levels) {
    json v = json::array();
    for (size_t i = 1; i < levels; ++i) v = json::array({std::move(v)});
    return v;
  };
  json target = {{"a", nested(6000)}};
  std::string deep_path = "/a";
  for (int i = 0; i < 5000; ++i) deep_path += "/0";
  json add = json::array({{{"op", "add"}, {"path", deep_path + "/0"}, {"value", nested(5000)}}});
  auto added = ApplyJsonPatch(target, add);
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.status().reason(), Reason::kInvalid);
  EXPECT_NE(added.status().causes()[0].message.find("deeper than 10000"), std::string::npos);
  json copy = json::array({{{"op", "copy"}, {"from", "/a"}, {"path", deep_path + "/0"}}});
  EXPECT_FALSE(ApplyJsonPatch(target, copy).ok());
  // A move of a large subtree is a move, and within the limit it applies.
  json move = json::array({{{"op", "move"}, {"from", "/a"}, {"path", "/b"}}});
  auto moved = ApplyJsonPatch(target, move);
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_FALSE(moved->contains("a"));
  EXPECT_EQ(api::JsonValueDepth((*moved)["b"]), 6000u);
}

const char* kLease = R"({
  "apiVersion":"coordination.k8s.io/v1","kind":"Lease",
  "metadata":{"name":"l","namespace":"default","labels":{"a":"1","b":"2"},
              "finalizers":["f1","f2"],
              "ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"x","uid":"u1"},
                                 {"apiVersion":"v1","kind":"ConfigMap","name":"y","uid":"u2"}]},
  "spec":{"holderIdentity":"a","leaseDurationSeconds":15}})";

TEST(PatchStrategicTest, BehavesAsMergePatchForPlainFields) {
  auto result = ApplyStrategicMergePatch(J(kLease), J(R"({"metadata":{"labels":{"a":null,"c":"3"}},
                       "spec":{"holderIdentity":"b","leaseDurationSeconds":null}})"));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ((*result)["metadata"]["labels"], J(R"({"b":"2","c":"3"})"));
  EXPECT_EQ((*result)["spec"], J(R"({"holderIdentity":"b"})"));
  EXPECT_EQ((*result)["metadata"]["finalizers"], J(R"(["f1","f2"])"));
}

TEST(PatchStrategicTest, FinalizersMergeAsASet) {
  auto result =
      ApplyStrategicMergePatch(J(kLease), J(R"({"metadata":{"finalizers":["f2","f3"]}})"));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)["metadata"]["finalizers"], J(R"(["f1","f2","f3"])"));
}

TEST(PatchStrategicTest, DeleteFromPrimitiveListAndSetElementOrder) {
  auto result = ApplyStrategicMergePatch(
      J(kLease), J(R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["f1"],
                                   "$setElementOrder/finalizers":["f3","f2"],
                                   "finalizers":["f3"]}})"));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ((*result)["metadata"]["finalizers"], J(R"(["f3","f2"])"));
  EXPECT_FALSE((*result)["metadata"].contains("$setElementOrder/finalizers"));

  auto emptied = ApplyStrategicMergePatch(
      J(kLease), J(R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["f1","f2"]}})"));
  ASSERT_TRUE(emptied.ok());
  EXPECT_FALSE((*emptied)["metadata"].contains("finalizers"));
}

// Finding: strategic merge and apply were quadratic in list lengths (40,000 finalizers: 11.7 s
// on the request threads). Long lists merge correctly; the time is in bench/patch_bench.
TEST(PatchStrategicTest, LongListsMergeAsShortOnesDo) {
  constexpr int kN = 100000;
  json target = J(kLease);
  json& finalizers = target["metadata"]["finalizers"] = json::array();
  for (int i = 0; i < kN; ++i) finalizers.push_back("f" + std::to_string(i));
  json patch = {{"metadata",
                 {{"finalizers", json::array()},
                  {"$deleteFromPrimitiveList/finalizers", json::array()},
                  {"$setElementOrder/finalizers", json::array()}}}};
  for (int i = kN / 2; i < kN + kN / 2; ++i) {
    patch["metadata"]["finalizers"].push_back("f" + std::to_string(i));
  }
  for (int i = 0; i < kN / 4; ++i) {
    patch["metadata"]["$deleteFromPrimitiveList/finalizers"].push_back("f" + std::to_string(i));
  }
  for (int i = kN + kN / 2 - 1; i >= kN / 4; --i) {
    patch["metadata"]["$setElementOrder/finalizers"].push_back("f" + std::to_string(i));
  }
  auto merged = ApplyStrategicMergePatch(target, patch);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  const json& out = (*merged)["metadata"]["finalizers"];
  ASSERT_EQ(out.size(), static_cast<size_t>(kN + kN / 2 - kN / 4));
  EXPECT_EQ(out.front(), "f" + std::to_string(kN + kN / 2 - 1));
  EXPECT_EQ(out.back(), "f" + std::to_string(kN / 4));

  // Owner references by uid, with deletions and duplicates in the stored list.
  json owners = J(kLease);
  json& refs = owners["metadata"]["ownerReferences"] = json::array();
  for (int i = 0; i < kN / 10; ++i) refs.push_back({{"uid", "u" + std::to_string(i)}, {"n", 0}});
  refs.push_back({{"uid", "u0"}, {"n", 9}});  // a duplicate: found after the first is deleted
  json change = {{"metadata", {{"ownerReferences", json::array()}}}};
  for (int i = 0; i < kN / 10; i += 2) {
    change["metadata"]["ownerReferences"].push_back(
        {{"uid", "u" + std::to_string(i)}, {"$patch", "delete"}});
  }
  change["metadata"]["ownerReferences"].push_back({{"uid", "u0"}, {"n", 1}});
  change["metadata"]["ownerReferences"].push_back({{"uid", "new"}, {"n", 2}});
  auto by_uid = ApplyStrategicMergePatch(owners, change);
  ASSERT_TRUE(by_uid.ok()) << by_uid.status().ToString();
  const json& kept = (*by_uid)["metadata"]["ownerReferences"];
  ASSERT_EQ(kept.size(), static_cast<size_t>(kN / 20 + 2));
  EXPECT_EQ(kept[0]["uid"], "u1");
  EXPECT_EQ(kept[kN / 20], J(R"({"uid":"u0","n":1})"));
  EXPECT_EQ(kept.back(), J(R"({"uid":"new","n":2})"));
}

// The patch kubectl 1.33 `apply` computed from the OpenAPI v3 documents (openapi.h) when a
// manifest changed metadata.finalizers from [a, b] to [b, c].
TEST(PatchStrategicTest, KubectlApplyPatch) {
  json lease = J(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
                     "metadata":{"name":"x","namespace":"default","finalizers":["a","b"]},
                     "spec":{"holderIdentity":"one"}})");
  auto result =
      ApplyStrategicMergePatch(lease, J(R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a"],
                               "$setElementOrder/finalizers":["b","c"],
                               "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"},
                               "finalizers":["c"]},
                  "spec":{"holderIdentity":"two"}})"));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(*result, J(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
                           "metadata":{"name":"x","namespace":"default","finalizers":["b","c"],
                                       "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},
                           "spec":{"holderIdentity":"two"}})"));
}

TEST(PatchStrategicTest, OwnerReferencesMergeByUid) {
  auto result = ApplyStrategicMergePatch(J(kLease), J(R"({"metadata":{"ownerReferences":[
                         {"uid":"u2","controller":true},
                         {"uid":"u1","$patch":"delete"},
                         {"apiVersion":"v1","kind":"ConfigMap","name":"z","uid":"u3"}]}})"));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ((*result)["metadata"]["ownerReferences"],
            J(R"([{"apiVersion":"v1","kind":"ConfigMap","name":"y","uid":"u2","controller":true},
                  {"apiVersion":"v1","kind":"ConfigMap","name":"z","uid":"u3"}])"));

  auto reordered = ApplyStrategicMergePatch(
      J(kLease),
      J(R"({"metadata":{"$setElementOrder/ownerReferences":[{"uid":"u2"},{"uid":"u1"}]}})"));
  ASSERT_TRUE(reordered.ok());
  EXPECT_EQ((*reordered)["metadata"]["ownerReferences"][0]["uid"], "u2");

  auto missing_key =
      ApplyStrategicMergePatch(J(kLease), J(R"({"metadata":{"ownerReferences":[{"name":"q"}]}})"));
  EXPECT_EQ(missing_key.status().reason(), Reason::kBadRequest);
}

TEST(PatchStrategicTest, ListReplaceDirective) {
  auto result = ApplyStrategicMergePatch(
      J(kLease), J(R"({"metadata":{"finalizers":[{"$patch":"replace"},"only"]}})"));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ((*result)["metadata"]["finalizers"], J(R"(["only"])"));
}

TEST(PatchStrategicTest, MapDirectives) {
  auto replaced = ApplyStrategicMergePatch(
      J(kLease), J(R"({"metadata":{"labels":{"$patch":"replace","z":"9"}}})"));
  ASSERT_TRUE(replaced.ok());
  EXPECT_EQ((*replaced)["metadata"]["labels"], J(R"({"z":"9"})"));

  auto deleted = ApplyStrategicMergePatch(J(kLease), J(R"({"spec":{"$patch":"delete"}})"));
  ASSERT_TRUE(deleted.ok());
  EXPECT_FALSE(deleted->contains("spec"));

  auto merged =
      ApplyStrategicMergePatch(J(kLease), J(R"({"spec":{"$patch":"merge","holderIdentity":"c"}})"));
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ((*merged)["spec"], J(R"({"holderIdentity":"c","leaseDurationSeconds":15})"));

  auto retained = ApplyStrategicMergePatch(
      J(kLease), J(R"({"spec":{"$retainKeys":["holderIdentity","renewTime"],
                               "renewTime":"2024-01-01T00:00:00.000000Z"}})"));
  ASSERT_TRUE(retained.ok());
  EXPECT_EQ((*retained)["spec"],
            J(R"({"holderIdentity":"a","renewTime":"2024-01-01T00:00:00.000000Z"})"));

  auto unknown = ApplyStrategicMergePatch(J(kLease), J(R"({"spec":{"$patch":"frob"}})"));
  EXPECT_EQ(unknown.status().reason(), Reason::kBadRequest);
  EXPECT_EQ(ApplyStrategicMergePatch(J(kLease), J("[]")).status().reason(), Reason::kBadRequest);
}

TEST(PatchStrategicTest, DirectivesInsideReplacedValuesAreStripped) {
  auto result = ApplyStrategicMergePatch(
      J(R"({"kind":"ConfigMap","data":{"a":"1"}})"),
      J(R"({"metadata":{"annotations":{"x":"y"},"$setElementOrder/finalizers":["f"]},
            "data":{"b":"2"}})"));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, J(R"({"kind":"ConfigMap","data":{"a":"1","b":"2"},
                           "metadata":{"annotations":{"x":"y"}}})"));
}

TEST(PatchStrategicTest, NamespaceConditionsMergeByType) {
  json ns = J(R"({"kind":"Namespace","metadata":{"name":"n"},"spec":{"finalizers":["kubernetes"]},
                  "status":{"phase":"Active","conditions":[{"type":"A","status":"True"},
                                                           {"type":"B","status":"False"}]}})");
  auto result = ApplyStrategicMergePatch(ns, J(R"({"spec":{"finalizers":["other"]},
                "status":{"conditions":[{"type":"B","status":"True"}]}})"));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)["status"]["conditions"],
            J(R"([{"type":"A","status":"True"},{"type":"B","status":"True"}])"));
  // spec.finalizers has no patch strategy: replaced.
  EXPECT_EQ((*result)["spec"]["finalizers"], J(R"(["other"])"));
}

TEST(PatchStrategicTest, NoOpPatchLeavesObjectEqual) {
  json lease = J(kLease);
  auto result = ApplyStrategicMergePatch(
      lease,
      J(R"({"metadata":{"$setElementOrder/finalizers":["f1","f2"]},"spec":{"holderIdentity":"a"}})"));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, lease);
}

}  // namespace
}  // namespace tenure::server
