// AuditLogFile: where audit events go, one JSON line each, as kube-apiserver's log backend writes
// them (--audit-log-path, "-" for stdout): appended to a file that is created owner-only and,
// past max_size_mb, renamed to <name>-<UTC time><ext> (the lumberjack names kube uses) and
// started anew; of the renamed files, those beyond max_backups or older than max_age_days are
// removed. Thread-safe; a line is written whole or not at all.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tenure/status.h"

namespace tenure::server {

struct AuditLogOptions {
  std::string path;        // "-": standard output
  int max_size_mb = 100;   // 0: never rotated (kube 1.36's defaults: 100, 100, 366)
  int max_backups = 100;   // 0: every backup kept (subject to max_age_days)
  int max_age_days = 366;  // 0: backups kept whatever their age
};

// The rotated backups of the audit log at `path` (<name>-<UTC time>[-n]<ext> beside it, nothing
// else), oldest first.
std::vector<std::string> AuditLogBackups(const std::string& path);

class AuditLogFile {
 public:
  static Result<std::unique_ptr<AuditLogFile>> Open(AuditLogOptions options);
  ~AuditLogFile();

  // Appends `line` and a newline; errors are counted, not thrown (an audit log that cannot be
  // written must not take the API down).
  void Write(std::string_view line);
  uint64_t write_errors() const;

 private:
  explicit AuditLogFile(AuditLogOptions options) : options_(std::move(options)) {}
  Status OpenCurrent();
  void Rotate();
  void RemoveOldBackups();

  const AuditLogOptions options_;
  mutable std::mutex mu_;
  int fd_ = -1;
  uint64_t size_ = 0;
  uint64_t write_errors_ = 0;
};

}  // namespace tenure::server
