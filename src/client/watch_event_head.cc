// ReadWatchEventHead: a watch event's type and object identity from a SAX pass that stops early.
#include "client/watch_event_head.h"

#include <nlohmann/json.hpp>
#include <vector>

namespace tenure::client {
namespace {

using nlohmann::json;

// Follows the keys from the line's top: depth 1 is the event, depth 2 its "object", depth 3 the
// object's "metadata". Stops the parse (returns false) once every wanted field was seen.
class HeadReader final : public nlohmann::json_sax<json> {
 public:
  explicit HeadReader(WatchEventHead& head) : head_(head) {}

  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t) override { return Value(); }
  bool number_unsigned(number_unsigned_t) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }
  bool string(string_t& value) override {
    if (depth_ == 1 && Key(1) == "type") {
      head_.type = std::move(value);
    } else if (InMetadata()) {
      const std::string& key = Key(3);
      if (key == "name") head_.name = std::move(value);
      if (key == "namespace") head_.namespace_ = std::move(value);
      if (key == "resourceVersion") head_.resource_version = std::move(value);
    }
    return Value() && !Complete();
  }
  bool start_object(std::size_t) override { return Enter(); }
  bool end_object() override {
    bool metadata_ends = InMetadata();
    --depth_;
    // Past the metadata the object's identity is known, namespace or not (cluster-scoped).
    if (metadata_ends && !head_.type.empty()) {
      stopped_early_ = true;
      return false;
    }
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_ == 0) return false;  // not an event
    return Enter();
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool key(string_t& key) override {
    keys_[static_cast<size_t>(depth_)] = std::move(key);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

  bool stopped_early() const { return stopped_early_; }

 private:
  bool Enter() {
    ++depth_;
    if (keys_.size() <= static_cast<size_t>(depth_)) keys_.resize(static_cast<size_t>(depth_) + 1);
    keys_[static_cast<size_t>(depth_)].clear();  // an array's elements have no key
    return true;
  }
  bool Value() { return depth_ > 0; }  // a bare value is not an event
  const std::string& Key(int depth) const { return keys_[static_cast<size_t>(depth)]; }
  bool InMetadata() const { return depth_ == 3 && Key(1) == "object" && Key(2) == "metadata"; }
  bool Complete() {
    if (head_.type.empty() || head_.name.empty() || head_.namespace_.empty() ||
        head_.resource_version.empty()) {
      return false;
    }
    stopped_early_ = true;
    return true;
  }

  WatchEventHead& head_;
  int depth_ = 0;
  std::vector<std::string> keys_ = std::vector<std::string>(4);
  bool stopped_early_ = false;  // every wanted field seen: the rest was not read
};

}  // namespace

bool ReadWatchEventHead(std::string_view line, WatchEventHead& head) {
  head = {};
  HeadReader reader(head);
  bool parsed_whole = json::sax_parse(line.begin(), line.end(), &reader);
  return parsed_whole || reader.stopped_early();
}

}  // namespace tenure::client
