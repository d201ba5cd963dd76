// WatchEventHead: what a shared watch needs of an event line before deciding whether anyone
// wants it: its type and the object's namespace, name and resourceVersion. Read with a SAX
// pass that stops once they are known (they come first in kube-apiserver's and tenure's
// output), so an event no subscriber of this process wants costs no parsed tree.
#pragma once

#include <string>
#include <string_view>

namespace tenure::client {

struct WatchEventHead {
  std::string type;  // "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"
  std::string namespace_;
  std::string name;
  std::string resource_version;
};

// The head of `line` ({"type":...,"object":{"metadata":{...}}}); false when the line is not
// such a JSON object (the caller then parses it whole, or skips it).
bool ReadWatchEventHead(std::string_view line, WatchEventHead& head);

}  // namespace tenure::client
