// ReadObjectHead, ReadWatchEventHead: an object's identity and labels from one forward pass that
// decodes only those and stops once the metadata has been read.
#include "api/object_head.h"

#include "api/json_scanner.h"

namespace tenure::api {
namespace {

using Step = JsonScanner::Step;

// Whether an event's head needs no more: its type and its object's identity are all known.
bool EventHeadComplete(const std::string* type, const ObjectHead& head) {
  return type != nullptr && !type->empty() && !head.name.empty() && !head.namespace_.empty() &&
         !head.resource_version.empty();
}

// Reads the members of an object's metadata (the scanner before it) into `head`. With an event's
// `type` (not null), stops as soon as the type and the object's identity are all known.
Step ReadMetadata(JsonScanner& scan, ObjectHead& head, bool with_labels, const std::string* type) {
  std::string value;
  return scan.Members([&](const std::string& key) {
    std::string* field = nullptr;
    if (key == "name") field = &head.name;
    if (key == "namespace") field = &head.namespace_;
    if (key == "resourceVersion") field = &head.resource_version;
    if (field != nullptr && scan.Peek() == '"') {
      if (!scan.String(&value)) return Step::kError;
      *field = std::move(value);
      return EventHeadComplete(type, head) ? Step::kStop : Step::kNext;
    }
    if (with_labels && key == "labels" && scan.Peek() == '{') {
      return scan.Members([&](const std::string& label) {
        if (scan.Peek() != '"') return scan.SkipValue() ? Step::kNext : Step::kError;
        if (!scan.String(&value)) return Step::kError;
        head.labels[label] = std::move(value);  // only string values are labels
        return Step::kNext;
      });
    }
    return scan.SkipValue() ? Step::kNext : Step::kError;
  });
}

// true when the pass stopped early, or read the whole text and it was one well-formed value.
bool Finished(Step step, JsonScanner& scan) {
  if (step == Step::kStop) return true;
  return step == Step::kNext && scan.AtEnd();
}

}  // namespace

bool ReadObjectHead(std::string_view text, ObjectHead& head, bool with_labels) {
  head = {};
  JsonScanner scan(text);
  const Step step = scan.Members([&](const std::string& key) {
    if (key == "metadata" && scan.Peek() == '{') {
      // The identity is known once the metadata has been read, namespace or not.
      const Step read = ReadMetadata(scan, head, with_labels, nullptr);
      return read == Step::kError ? Step::kError : Step::kStop;
    }
    return scan.SkipValue() ? Step::kNext : Step::kError;
  });
  return Finished(step, scan);
}

bool ReadWatchEventHead(std::string_view line, std::string& type, ObjectHead& head) {
  head = {};
  type.clear();
  JsonScanner scan(line);
  std::string value;
  const Step step = scan.Members([&](const std::string& key) {
    if (key == "type" && scan.Peek() == '"') {
      if (!scan.String(&value)) return Step::kError;
      type = std::move(value);
      return EventHeadComplete(&type, head) ? Step::kStop : Step::kNext;
    }
    if (key == "object" && scan.Peek() == '{') {
      return scan.Members([&](const std::string& member) {
        if (member != "metadata" || scan.Peek() != '{') {
          return scan.SkipValue() ? Step::kNext : Step::kError;
        }
        const Step read = ReadMetadata(scan, head, /*with_labels=*/false, &type);
        // Past the metadata the identity is known; an event's type may still be to come.
        if (read == Step::kNext && !type.empty()) return Step::kStop;
        return read;
      });
    }
    return scan.SkipValue() ? Step::kNext : Step::kError;
  });
  return Finished(step, scan);
}

}  // namespace tenure::api
