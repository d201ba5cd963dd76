// TermArchive: the dashboard's term history in a JSON-lines file, bounded and compacted; in
// memory only where each Lease's newest line is.
#include "dashboard/term_archive.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace tenure::dashboard {

using nlohmann::json;

namespace {

Status WriteAll(int fd, const std::string& data, const std::string& path) {
  size_t at = 0;
  while (at < data.size()) {
    ssize_t n = ::write(fd, data.data() + at, data.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Internal("cannot write " + path + ": " + std::strerror(errno));
    at += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// A file descriptor closed when it goes out of scope.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Whether `line` is the record of `key` (the members as Put writes them: sorted, compact), without
// parsing it.
bool LineNames(const std::string& line, const LeaseKey& key) {
  const auto quoted = [](const std::string& text) {
    return json(text).dump(-1, ' ', false, json::error_handler_t::replace);
  };
  return line.starts_with('{') && line.ends_with('}') &&
         line.find("\"name\":" + quoted(key.second) + ",\"namespace\":" + quoted(key.first) +
                   ",") != std::string::npos;
}

// When a Lease's history last changed: its last term's end, else its start.
api::Timestamp LastChange(const std::vector<Term>& terms) {
  if (terms.empty()) return {};
  const Term& last = terms.back();
  return last.end.value_or(std::max(last.start, last.last_renewal));
}

}  // namespace

TermArchive::TermArchive(std::string path, TermArchiveOptions options)
    : path_(std::move(path)), options_(options) {}

TermArchive::~TermArchive() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

Result<std::unique_ptr<TermArchive>> TermArchive::Open(std::string path,
                                                       TermArchiveOptions options) {
  std::unique_ptr<TermArchive> archive(new TermArchive(std::move(path), options));
  const std::string lock = archive->path_ + ".lock";
  archive->lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (archive->lock_fd_ < 0) {
    return Status::Internal("cannot open " + lock + ": " + std::strerror(errno));
  }
  if (::flock(archive->lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    return Status(Reason::kConflict, "another dashboard keeps its history in " + archive->path_);
  }
  if (Status s = archive->Read(); !s.ok()) return s;
  if (Status s = archive->Rewrite(); !s.ok()) return s;
  return archive;
}

Result<std::pair<LeaseKey, std::vector<Term>>> TermArchive::ParseLine(const std::string& line,
                                                                      Record* record) {
  json in = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!in.is_object() || !in.contains("namespace") || !in.contains("name") ||
      !in["namespace"].is_string() || !in["name"].is_string() || !in.contains("terms") ||
      !in["terms"].is_array()) {
    return Status::BadRequest("not a record");
  }
  std::vector<Term> terms;
  for (const json& t : in["terms"]) {
    auto term = TermFromJson(t);
    if (!term.ok()) return term.status();
    terms.push_back(std::move(*term));
  }
  std::optional<api::Timestamp> deleted_at;
  if (auto d = in.find("deletedAt"); d != in.end()) {
    if (!d->is_string() || !api::ParseTime(d->get<std::string>())) {
      return Status::BadRequest("bad deletedAt");
    }
    deleted_at = api::ParseTime(d->get<std::string>());
  }
  if (record != nullptr) {
    record->length = static_cast<uint32_t>(line.size());
    record->deleted = deleted_at.has_value();
    record->last_change = deleted_at.value_or(LastChange(terms));
  }
  return std::make_pair(LeaseKey{in["namespace"].get<std::string>(), in["name"].get<std::string>()},
                        std::move(terms));
}

Status TermArchive::Read() {
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec)) return Status::Ok();
  std::ifstream in(path_);
  if (!in) return Status::Internal("cannot read " + path_);
  std::string line;
  uint64_t offset = 0;
  for (; std::getline(in, line); offset += line.size() + 1) {
    if (line.empty()) continue;
    Record record;
    auto parsed = ParseLine(line, &record);
    if (!parsed.ok()) {
      ++skipped_lines_;
      continue;
    }
    record.offset = offset;
    record.written = true;
    records_[parsed->first] = record;
    loaded_[parsed->first] = std::move(parsed->second);
  }
  return Status::Ok();
}

Result<std::string> TermArchive::LineOf(const LeaseKey& key, const Record& record, int fd) const {
  if (!record.written) {
    auto it = pending_.find(key);
    if (it == pending_.end()) return Status::Internal("no line for a record of " + path_);
    return it->second;
  }
  std::string line(record.length + 1, '\0');  // with its newline (the last line may have none)
  size_t at = 0;
  while (at < line.size()) {
    const ssize_t n =
        ::pread(fd, line.data() + at, line.size() - at, static_cast<off_t>(record.offset + at));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Internal("cannot read " + path_ + ": " + std::strerror(errno));
    if (n == 0) break;
    at += static_cast<size_t>(n);
  }
  const bool whole = at == line.size() ? line.back() == '\n' : at == record.length;
  line.resize(record.length);
  if (!whole || !LineNames(line, key)) {
    return Status::Internal(path_ + " changed under the dashboard");
  }
  return line;
}

std::optional<std::vector<Term>> TermArchive::TermsOf(const LeaseKey& key) const {
  auto it = records_.find(key);
  if (it == records_.end()) return std::nullopt;
  Fd file{it->second.written ? ::open(path_.c_str(), O_RDONLY | O_CLOEXEC) : -1};
  auto line = LineOf(key, it->second, file.fd);
  if (!line.ok()) return std::nullopt;
  auto parsed = ParseLine(*line, nullptr);
  if (!parsed.ok() || parsed->first != key) return std::nullopt;
  return std::move(parsed->second);
}

void TermArchive::Put(const LeaseKey& key, const std::vector<Term>& terms,
                      std::optional<api::Timestamp> deleted_at) {
  json record = {{"namespace", key.first}, {"name", key.second}, {"terms", json::array()}};
  const size_t first =
      terms.size() > TermLedger::kMaxTerms ? terms.size() - TermLedger::kMaxTerms : 0;
  for (size_t i = first; i < terms.size(); ++i) record["terms"].push_back(TermToJson(terms[i]));
  if (deleted_at) record["deletedAt"] = api::FormatMicroTime(*deleted_at);
  auto [it, added] = records_.try_emplace(key);
  Record& r = it->second;
  if (!added) live_bytes_ -= r.length + 1;
  std::string& line = pending_[key];
  line = record.dump(-1, ' ', false, json::error_handler_t::replace);
  live_bytes_ += line.size() + 1;
  r.length = static_cast<uint32_t>(line.size());
  r.written = false;
  r.deleted = deleted_at.has_value();
  r.last_change = deleted_at.value_or(LastChange(terms));
}

void TermArchive::Forget(std::map<LeaseKey, Record>::iterator it) {
  live_bytes_ -= it->second.length + 1;
  pending_.erase(it->first);
  records_.erase(it);
}

void TermArchive::ApplyBounds(api::Timestamp now) {
  for (auto it = records_.begin(); it != records_.end();) {
    auto next = std::next(it);
    if (it->second.deleted && now - it->second.last_change > options_.forget_deleted_after) {
      Forget(it);
    }
    it = next;
  }
  if (records_.size() <= options_.max_leases) return;
  std::vector<std::pair<api::Timestamp, LeaseKey>> by_age;
  for (const auto& [key, r] : records_) by_age.emplace_back(r.last_change, key);
  std::sort(by_age.begin(), by_age.end());
  for (size_t i = 0; i + options_.max_leases < by_age.size(); ++i) {
    Forget(records_.find(by_age[i].second));
  }
}

Status TermArchive::Flush(api::Timestamp now) {
  const size_t before = records_.size();
  ApplyBounds(now);
  if (rewrite_ || records_.size() != before || file_bytes_ > 2 * live_bytes_ + 4096) {
    return Rewrite();
  }
  if (pending_.empty()) return Status::Ok();
  std::string out;
  std::vector<std::pair<Record*, uint64_t>> placed;  // each line's record and offset
  for (const auto& [key, line] : pending_) {
    placed.emplace_back(&records_.at(key), file_bytes_ + out.size());
    out += line;
    out += '\n';
  }
  Fd file{::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600)};
  if (file.fd < 0) {
    rewrite_ = true;
    return Status::Internal("cannot open " + path_ + ": " + std::strerror(errno));
  }
  // Appended only to the file as this archive left it: the offsets of its lines count on that.
  struct stat st {};
  if (::fstat(file.fd, &st) != 0 || st.st_dev != file_device_ || st.st_ino != file_inode_ ||
      static_cast<uint64_t>(st.st_size) != file_bytes_) {
    return Rewrite();
  }
  Status s = WriteAll(file.fd, out, path_);
  if (!s.ok()) {
    // A part of the lines may be in the file: the next Flush writes the file whole.
    rewrite_ = true;
    return s;
  }
  for (auto [record, offset] : placed) {
    record->offset = offset;
    record->written = true;
  }
  pending_.clear();
  file_bytes_ += out.size();
  if (file_bytes_ > 2 * live_bytes_ + 4096) return Rewrite();
  return Status::Ok();
}

Status TermArchive::Rewrite() {
  // Each record's newest line, from the file as it is or from pending_, written to a temporary
  // file a chunk at a time; the records point into the new file only once it replaced the old.
  constexpr size_t kChunk = 64 * 1024;
  constexpr uint64_t kLost = ~uint64_t{0};
  const std::string temp = path_ + ".tmp";
  Fd old_file{::open(path_.c_str(), O_RDONLY | O_CLOEXEC)};
  Fd new_file{::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)};
  if (new_file.fd < 0) {
    rewrite_ = true;
    return Status::Internal("cannot write " + temp + ": " + std::strerror(errno));
  }
  std::vector<uint64_t> offsets;  // each record's offset in the new file; kLost: its line is gone
  offsets.reserve(records_.size());
  std::string out;
  uint64_t size = 0;
  Status s = Status::Ok();
  for (const auto& [key, record] : records_) {
    auto line = LineOf(key, record, old_file.fd);
    if (!line.ok()) {
      // Not in the file as this archive wrote it (someone else truncated, replaced or deleted
      // it): that Lease's history is gone.
      offsets.push_back(kLost);
      continue;
    }
    offsets.push_back(size + out.size());
    out += *line;
    out += '\n';
    if (out.size() >= kChunk) {
      if (s = WriteAll(new_file.fd, out, temp); !s.ok()) break;
      size += out.size();
      out.clear();
    }
  }
  if (s.ok()) s = WriteAll(new_file.fd, out, temp);
  size += out.size();
  if (s.ok() && ::fsync(new_file.fd) != 0) {
    s = Status::Internal("cannot write " + temp + ": " + std::strerror(errno));
  }
  struct stat st {};
  if (s.ok() && ::fstat(new_file.fd, &st) != 0) {
    s = Status::Internal("cannot read " + temp + ": " + std::strerror(errno));
  }
  if (s.ok() && ::rename(temp.c_str(), path_.c_str()) != 0) {
    s = Status::Internal("cannot replace " + path_ + ": " + std::strerror(errno));
  }
  if (!s.ok()) {
    ::unlink(temp.c_str());
    rewrite_ = true;  // the file still holds what the bounds dropped: the next Flush tries again
    return s;
  }
  size_t i = 0;
  for (auto it = records_.begin(); it != records_.end();) {
    const uint64_t offset = offsets[i++];
    if (offset == kLost) {
      ++lost_records_;
      it = records_.erase(it);
      continue;
    }
    it->second.offset = offset;
    it->second.written = true;
    ++it;
  }
  pending_.clear();
  rewrite_ = false;
  live_bytes_ = size;
  file_bytes_ = size;
  file_device_ = st.st_dev;
  file_inode_ = st.st_ino;
  return Status::Ok();
}

}  // namespace tenure::dashboard
