// ObjectHead: what a selector or a shared watch needs of an object before, or instead of, parsing
// it whole: its name, namespace, resourceVersion and labels. Read with one forward pass over the
// JSON text (JsonScanner) that decodes only those, builds nothing and stops once the metadata has
// been read, so that an object nobody
// wants costs a scan of its first bytes (metadata comes before spec and status in kube-apiserver's
// and tenure's output; when it does not, the pass reads on until it ends).
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace tenure::api {

struct ObjectHead {
  std::string name;
  std::string namespace_;
  std::string resource_version;
  std::map<std::string, std::string> labels;  // string values only; filled when asked for
};

// The head of the JSON object `text` (its "metadata" member). `with_labels` also collects
// metadata.labels. false when `text` is not a JSON object: the caller then parses it whole to
// find out what it is.
bool ReadObjectHead(std::string_view text, ObjectHead& head, bool with_labels);

// A watch event line ({"type":...,"object":{"metadata":{...}}}): its type and its object's name,
// namespace and resourceVersion (no labels), the pass stopping as soon as all four are known.
// false when the line is not such a JSON object.
bool ReadWatchEventHead(std::string_view line, std::string& type, ObjectHead& head);

}  // namespace tenure::api
