// ValueDelta: MakeDelta and ApplyDelta (copies from the base and literal bytes).
#include "store/value_delta.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>

namespace tenure::store {
namespace {

// Equal stretches shorter than this inside a changed region are sent as literals: a copy costs
// two varints, and a literal run that continues costs nothing more than its bytes.
constexpr size_t kMinCopy = 8;

void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

bool GetVarint(std::string_view& in, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && !in.empty(); shift += 7) {
    const auto byte = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    v |= uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80u) == 0) return true;
  }
  return false;
}

void Copy(std::string& out, size_t offset, size_t length) {
  if (length == 0) return;
  PutVarint(out, uint64_t{length} << 1);
  PutVarint(out, offset);
}

void Literal(std::string& out, std::string_view bytes) {
  if (bytes.empty()) return;
  PutVarint(out, (uint64_t{bytes.size()} << 1) | 1);
  out.append(bytes);
}

}  // namespace

std::string MakeDelta(std::string_view target, std::string_view base) {
  const size_t limit = std::min(target.size(), base.size());
  size_t prefix = 0;
  while (prefix < limit && target[prefix] == base[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < limit - prefix &&
         target[target.size() - 1 - suffix] == base[base.size() - 1 - suffix]) {
    ++suffix;
  }
  std::string out;
  Copy(out, 0, prefix);
  const size_t end = target.size() - suffix;
  if (target.size() == base.size()) {
    // Same length (a renewal: timestamps of fixed width changed): the changed runs in place,
    // the equal stretches between them copied when long enough to be worth it.
    size_t i = prefix;
    while (i < end) {
      size_t changed_end = i;
      size_t equal = 0;
      while (changed_end + equal < end) {
        if (target[changed_end + equal] == base[changed_end + equal]) {
          if (++equal >= kMinCopy) break;
        } else {
          changed_end += equal + 1;
          equal = 0;
        }
      }
      Literal(out, target.substr(i, changed_end - i));
      size_t copy_end = changed_end;
      while (copy_end < end && target[copy_end] == base[copy_end]) ++copy_end;
      Copy(out, changed_end, copy_end - changed_end);
      i = copy_end;
    }
  } else {
    Literal(out, target.substr(prefix, end - prefix));
  }
  Copy(out, base.size() - suffix, suffix);
  return out;
}

namespace {

uint64_t RunHash(const char* at) {
  uint64_t run;
  std::memcpy(&run, at, sizeof run);
  return run * 0x9E3779B97F4A7C15ull;
}

}  // namespace

DeltaBase::DeltaBase(std::string text) : text_(std::move(text)) {
  if (text_.size() < kRun || text_.size() > kMaxIndexed) return;
  // Every kStride-th position, in a table of as many 16-bit entries: an index of half the text's
  // size at most (a base stays as long as values are written against it), and every common run
  // of kRun + kStride - 1 bytes still holds one of them unless another run took its slot.
  const size_t positions = (text_.size() - kRun) / kStride + 1;
  int bits = 4;
  while ((size_t{1} << bits) < positions) ++bits;
  shift_ = 64 - bits;
  index_.assign(size_t{1} << bits, 0);
  // From the end back, so that a run found twice names its first place.
  for (size_t p = positions; p-- > 0;) {
    const size_t i = p * kStride;
    index_[RunHash(text_.data() + i) >> shift_] = static_cast<uint16_t>(i + 1);
  }
}

size_t DeltaBase::Candidate(const char* probe) const {
  if (index_.empty()) return std::string::npos;
  const uint16_t at = index_[RunHash(probe) >> shift_];
  return at == 0 ? std::string::npos : at - 1;
}

std::string MakeDelta(std::string_view target, const DeltaBase& base) {
  constexpr size_t kRun = DeltaBase::kRun;
  const std::string_view from = base.text();
  std::string out;
  size_t literal = 0;  // where the bytes not yet written start
  size_t i = 0;
  // The base position that continues the last copy at `i` (a value edited in place: its next
  // equal run is most likely as far from the copy's end in both).
  size_t follow = std::string::npos;
  const auto matches = [&](size_t at) {
    return at != std::string::npos && at + kRun <= from.size() &&
           std::memcmp(target.data() + i, from.data() + at, kRun) == 0;
  };
  while (i + kRun <= target.size()) {
    size_t at = matches(follow) ? follow : base.Candidate(target.data() + i);
    if (!matches(at)) {
      ++i;
      if (follow != std::string::npos) ++follow;
      continue;
    }
    size_t start = i;
    while (start > literal && at > 0 && target[start - 1] == from[at - 1]) {
      --start;
      --at;
    }
    size_t length = i - start + kRun;
    while (start + length < target.size() && at + length < from.size() &&
           target[start + length] == from[at + length]) {
      ++length;
    }
    Literal(out, target.substr(literal, start - literal));
    Copy(out, at, length);
    i = literal = start + length;
    follow = at + length;
  }
  Literal(out, target.substr(literal));
  return out;
}

namespace {
std::atomic<uint64_t> deltas_applied{0};
}  // namespace

uint64_t DeltasApplied() { return deltas_applied.load(std::memory_order_relaxed); }

std::optional<std::string> ApplyDelta(std::string_view delta, std::string_view base) {
  deltas_applied.fetch_add(1, std::memory_order_relaxed);
  std::string out;
  while (!delta.empty()) {
    uint64_t header = 0;
    if (!GetVarint(delta, header)) return std::nullopt;
    const uint64_t length = header >> 1;
    if ((header & 1) != 0) {
      if (length > delta.size()) return std::nullopt;
      out.append(delta.substr(0, length));
      delta.remove_prefix(length);
    } else {
      uint64_t offset = 0;
      if (!GetVarint(delta, offset) || offset > base.size() || length > base.size() - offset) {
        return std::nullopt;
      }
      out.append(base.substr(offset, length));
    }
  }
  return out;
}

DeltaBytes::DeltaBytes(std::string_view bytes) : size_(static_cast<uint32_t>(bytes.size())) {
  // Deltas are shorter than the values they come from, which requests bound to a few MiB; a
  // longer one would be cut short here, and copied past the end of in_place_ below.
  if (bytes.size() > UINT32_MAX) std::abort();
  if (!OnHeap()) {
    std::memcpy(in_place_, bytes.data(), bytes.size());
    return;
  }
  char* block = new char[bytes.size()];
  std::memcpy(block, bytes.data(), bytes.size());
  std::memcpy(in_place_, &block, sizeof block);
}

void DeltaBytes::Free() {
  if (OnHeap()) delete[] HeapBlock();
  size_ = 0;
}

}  // namespace tenure::store
