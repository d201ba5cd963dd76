// ValueDelta: a value written as its differences from another value, for the watch history's
// superseded versions. A renewed Lease differs from its next version in a few timestamps only,
// so its delta against that version is tens of bytes where the value is hundreds.
//
// The encoding: a sequence of operations, each a varint header (length << 1 | kind) followed,
// for a copy (kind 0), by a varint offset into the base, or, for literal bytes (kind 1), by the
// bytes themselves. Internal to the store: not a format kept on disk or sent anywhere.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tenure::store {

// The delta that makes `target` from `base`.
std::string MakeDelta(std::string_view target, std::string_view base);

// A value other values are written against whole, not as their own earlier versions (the store's
// current values: one Lease against another of its namespace), with an index of where its runs
// of kRun bytes start, at every kStride-th byte (texts of up to kMaxIndexed bytes; a longer one
// is not indexed, and values are written against it as literals). Immutable, so values written
// against it may share it across threads.
class DeltaBase {
 public:
  static constexpr size_t kRun = 8;
  static constexpr size_t kStride = 4;
  static constexpr size_t kMaxIndexed = 65534;
  explicit DeltaBase(std::string text);
  const std::string& text() const { return text_; }
  // A position where the kRun bytes at `probe` may start in text() (compare them), or npos.
  size_t Candidate(const char* probe) const;

 private:
  std::string text_;
  std::vector<uint16_t> index_;  // by a hash of kRun bytes: a position where they start, + 1
  int shift_ = 64;
};

// The delta that makes `target` from `base`: every run of kRun + kStride - 1 (11) or more bytes
// that `base` also holds, wherever it holds it, is copied (shorter ones may be); the rest is
// literal. ApplyDelta takes it
// with base.text().
std::string MakeDelta(std::string_view target, const DeltaBase& base);

// `target` again, from MakeDelta(target, base) and the same base; nullopt when the delta is cut
// short or reaches outside the base (a delta applied to a shorter base than its own, or damaged).
std::optional<std::string> ApplyDelta(std::string_view delta, std::string_view base);

// How many times ApplyDelta ran in this process: tests check how much work a rebuild does.
uint64_t DeltasApplied();

// A delta as the watch history keeps one: up to 28 bytes in place (a renewed Lease's is 20 to 30),
// longer ones in a heap block of their exact size. 32 bytes in all, where a std::string is 32
// plus a heap block for anything over 15 bytes. Move-only. (A delta is shorter than its value,
// and a value is a few MiB at most: the size fits 32 bits.)
class DeltaBytes {
 public:
  DeltaBytes() = default;
  explicit DeltaBytes(std::string_view bytes);
  DeltaBytes(DeltaBytes&& other) noexcept { Take(other); }
  DeltaBytes& operator=(DeltaBytes&& other) noexcept {
    if (this != &other) {
      Free();
      Take(other);
    }
    return *this;
  }
  DeltaBytes(const DeltaBytes&) = delete;
  DeltaBytes& operator=(const DeltaBytes&) = delete;
  ~DeltaBytes() { Free(); }

  std::string_view view() const { return {OnHeap() ? HeapBlock() : in_place_, size_}; }
  // Whether the bytes are in a heap block of their own (tests).
  bool OnHeap() const { return size_ > kInPlace; }

 private:
  static constexpr uint32_t kInPlace = 28;
  // A heap block's address is kept in the first bytes of in_place_.
  char* HeapBlock() const {
    char* block;
    std::memcpy(&block, in_place_, sizeof block);
    return block;
  }
  void Take(DeltaBytes& other) {
    std::memcpy(in_place_, other.in_place_, sizeof in_place_);
    size_ = other.size_;
    other.size_ = 0;
  }
  void Free();

  char in_place_[kInPlace];
  uint32_t size_ = 0;
};

}  // namespace tenure::store
