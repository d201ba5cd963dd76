// TermArchive: the terms the dashboard saw, kept in a file so that a restarted dashboard still
// shows each Lease's history. One JSON line per Lease and change (the newest line of a Lease
// wins), appended by Flush; the file is rewritten with only the newest lines (to a temporary
// file, then renamed) when it opens and whenever it grows past twice what they hold.
//
// Bounded: at most TermLedger::kMaxTerms terms per Lease, and at most max_leases Leases; past
// that, the Leases whose history changed longest ago are forgotten first. A Lease that was
// deleted is forgotten forget_deleted_after its deletion. One archive per file: a second one
// opening it (another dashboard) is refused (a lock on "<path>.lock"). Not thread-safe.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/types.h"
#include "dashboard/term_ledger.h"
#include "tenure/status.h"

namespace tenure::dashboard {

using LeaseKey = std::pair<std::string, std::string>;  // namespace, name

struct TermArchiveOptions {
  size_t max_leases = 20000;
  std::chrono::hours forget_deleted_after{24 * 7};
};

class TermArchive {
 public:
  // Opens `path` (created, mode 0600, when missing). A line that does not parse is skipped and
  // counted (skipped_lines); a file that cannot be read or written is an error.
  static Result<std::unique_ptr<TermArchive>> Open(std::string path,
                                                   TermArchiveOptions options = {});
  ~TermArchive();

  // The terms of each Lease as the file held them (once: the archive keeps only where their
  // lines are).
  std::map<LeaseKey, std::vector<Term>> TakeLoaded() { return std::move(loaded_); }
  size_t skipped_lines() const { return skipped_lines_; }
  // Leases whose line was no longer in the file when it was rewritten (someone else truncated,
  // replaced or deleted it): forgotten, and counted here.
  size_t lost_records() const { return lost_records_; }
  // The terms recorded for a Lease, or none.
  std::optional<std::vector<Term>> TermsOf(const LeaseKey& key) const;

  // Records the terms of a Lease (and when it was deleted, if it was), written by the next Flush.
  void Put(const LeaseKey& key, const std::vector<Term>& terms,
           std::optional<api::Timestamp> deleted_at = std::nullopt);
  // Appends what was Put since the last Flush, applies the bounds at `now`, and rewrites the
  // file when it holds more than twice the newest lines.
  Status Flush(api::Timestamp now);

  const std::string& path() const { return path_; }

 private:
  // Where a Lease's newest line is: in the file (it holds every Lease a dashboard ever saw, so
  // the lines are not kept in memory too), or in pending_ until the next Flush writes it.
  struct Record {
    uint64_t offset = 0;  // where the line starts in the file, when `written`
    uint32_t length = 0;  // the line's length, without its newline
    bool written = false;
    bool deleted = false;
    api::Timestamp last_change{};
  };
  // The record of one line; BadRequest when it is not one.
  static Result<std::pair<LeaseKey, std::vector<Term>>> ParseLine(const std::string& line,
                                                                  Record* record);
  TermArchive(std::string path, TermArchiveOptions options);
  Status Read();
  // The newest line of `key`'s record, from pending_ or read from the file at `fd` (an error when
  // the bytes there are not a whole line of that Lease).
  Result<std::string> LineOf(const LeaseKey& key, const Record& record, int fd) const;
  Status Rewrite();
  void ApplyBounds(api::Timestamp now);
  void Forget(std::map<LeaseKey, Record>::iterator it);

  std::string path_;
  TermArchiveOptions options_;
  std::map<LeaseKey, std::vector<Term>> loaded_;
  std::map<LeaseKey, Record> records_;
  std::map<LeaseKey, std::string> pending_;  // lines Put and not yet in the file
  bool rewrite_ = false;  // an append failed: the next Flush rewrites the whole file
  int lock_fd_ = -1;
  size_t skipped_lines_ = 0;
  size_t lost_records_ = 0;
  // The file as this archive last wrote it: anything else found there (replaced, truncated,
  // appended to) is rewritten from what can still be read.
  uint64_t file_bytes_ = 0;
  dev_t file_device_ = 0;
  ino_t file_inode_ = 0;
  uint64_t live_bytes_ = 0;
};

}  // namespace tenure::dashboard
