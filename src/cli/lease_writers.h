// LeaseWriters: who changed a lease, from an audit log `tenure serve --audit-log-path` writes
// (audit.k8s.io/v1 Event lines): every create, update, patch and delete of it that succeeded, at
// ResponseComplete, newest last, with the user (the impersonated one when there is one), the
// verb and, when the log recorded the request body (level Request or more), the holder it set.
// Reads the log and its rotated backups (<name>-<time><ext> beside it), oldest first.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tenure/status.h"

namespace tenure::cli {

struct LeaseWrite {
  std::string time;  // stageTimestamp
  std::string user;
  std::string verb;
  int code = 0;
  std::optional<std::string> holder;  // spec.holderIdentity as written ("" released)
};

// The writes of lease `ns`/`name` in these audit log lines (any other line is skipped).
std::vector<LeaseWrite> LeaseWritesIn(const std::vector<std::string>& lines, const std::string& ns,
                                      const std::string& name);

// The lines of the audit log at `path` and of its rotated backups, oldest first.
Result<std::vector<std::string>> ReadAuditLog(const std::string& path);

}  // namespace tenure::cli
