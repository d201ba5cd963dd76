// ReadObjectHead, ReadWatchEventHead: an object's identity and labels from a SAX pass that stops
// once its metadata has been read.
#include "api/object_head.h"

#include <nlohmann/json.hpp>
#include <vector>

namespace tenure::api {
namespace {

using nlohmann::json;

// Follows the keys from the top of the text. The object is the text itself, or the member
// `wrapper` of it (a watch event's "object"); its metadata's members are one level deeper than
// the metadata, its labels two. Returns false from a callback to stop the parse early.
class HeadReader final : public nlohmann::json_sax<json> {
 public:
  HeadReader(ObjectHead& head, const char* wrapper, std::string* type, bool with_labels)
      : head_(head),
        wrapper_(wrapper),
        type_(type),
        with_labels_(with_labels),
        metadata_depth_(wrapper == nullptr ? 2 : 3) {}

  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t) override { return Value(); }
  bool number_unsigned(number_unsigned_t) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }
  bool string(string_t& value) override {
    if (type_ != nullptr && depth_ == 1 && Key(1) == "type") {
      *type_ = std::move(value);
    } else if (InMetadata()) {
      const std::string& key = Key(metadata_depth_);
      if (key == "name") head_.name = std::move(value);
      if (key == "namespace") head_.namespace_ = std::move(value);
      if (key == "resourceVersion") head_.resource_version = std::move(value);
    } else if (with_labels_ && InLabels()) {
      head_.labels[Key(metadata_depth_ + 1)] = std::move(value);
    }
    return Value() && !EventComplete();
  }
  bool start_object(std::size_t) override { return Enter(); }
  bool end_object() override {
    bool metadata_ends = InMetadata();
    --depth_;
    // Past the metadata the identity is known, namespace or not (cluster-scoped); an event's
    // type may still be to come.
    if (metadata_ends && (type_ == nullptr || !type_->empty())) {
      stopped_early_ = true;
      return false;
    }
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_ == 0) return false;  // not an object
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
  bool Value() const { return depth_ > 0; }  // a bare value is not an object
  const std::string& Key(int depth) const { return keys_[static_cast<size_t>(depth)]; }
  // Whether the keys down to `depth` - 1 lead to the object's metadata.
  bool OnMetadataPath() const {
    if (wrapper_ != nullptr && Key(1) != wrapper_) return false;
    return Key(metadata_depth_ - 1) == "metadata";
  }
  bool InMetadata() const { return depth_ == metadata_depth_ && OnMetadataPath(); }
  bool InLabels() const {
    return depth_ == metadata_depth_ + 1 && OnMetadataPath() && Key(metadata_depth_) == "labels";
  }
  // An event's head needs no more once its type and the object's identity are known.
  bool EventComplete() {
    if (type_ == nullptr || type_->empty() || head_.name.empty() || head_.namespace_.empty() ||
        head_.resource_version.empty()) {
      return false;
    }
    stopped_early_ = true;
    return true;
  }

  ObjectHead& head_;
  const char* wrapper_;  // null: the object is the text itself
  std::string* type_;    // the event's type (events only)
  bool with_labels_;
  int metadata_depth_;  // the depth of the metadata's members
  int depth_ = 0;
  std::vector<std::string> keys_ = std::vector<std::string>(5);
  bool stopped_early_ = false;  // the rest of the text was not read
};

bool Read(std::string_view text, HeadReader& reader) {
  bool parsed_whole = json::sax_parse(text.begin(), text.end(), &reader);
  return parsed_whole || reader.stopped_early();
}

}  // namespace

bool ReadObjectHead(std::string_view text, ObjectHead& head, bool with_labels) {
  head = {};
  HeadReader reader(head, nullptr, nullptr, with_labels);
  return Read(text, reader);
}

bool ReadWatchEventHead(std::string_view line, std::string& type, ObjectHead& head) {
  head = {};
  type.clear();
  HeadReader reader(head, "object", &type, false);
  return Read(line, reader);
}

}  // namespace tenure::api
