// Label and field selectors with Kubernetes syntax.
//   labels: "a=b,c!=d,e in (x,y),f notin (z),g,!h"   fields: "metadata.name=x,spec.leaseName!=y"
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tenure/status.h"

namespace tenure::server {

struct Requirement {
  enum class Op { kEquals, kNotEquals, kIn, kNotIn, kExists, kDoesNotExist };
  std::string key;
  Op op = Op::kEquals;
  std::vector<std::string> values;
};

class LabelSelector {
 public:
  static Result<LabelSelector> Parse(std::string_view text);
  bool empty() const { return requirements_.empty(); }
  bool Matches(const std::map<std::string, std::string>& labels) const;

 private:
  std::vector<Requirement> requirements_;
};

class FieldSelector {
 public:
  // Only =, == and != exist for fields.
  static Result<FieldSelector> Parse(std::string_view text);
  bool empty() const { return requirements_.empty(); }
  const std::vector<Requirement>& requirements() const { return requirements_; }
  // The value a requirement `metadata.name=x` pins, if any (lets a watch or list skip others).
  std::string ExactValue(std::string_view field) const;

 private:
  std::vector<Requirement> requirements_;
};

}  // namespace tenure::server
