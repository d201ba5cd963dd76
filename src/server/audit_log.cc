// AuditLogFile: JSON lines appended to an owner-only file, rotated by size, pruned by count and
// age.
#include "server/audit_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <regex>
#include <vector>

namespace tenure::server {
namespace {

namespace fs = std::filesystem;

// "2026-12-02T15-04-05.123": lumberjack's backup time format, in UTC.
std::string BackupTime(std::chrono::system_clock::time_point now) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch());
  const std::time_t seconds = static_cast<std::time_t>(ms.count() / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[96];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d-%02d-%02d.%03d", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms.count() % 1000));
  return text;
}

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

std::vector<std::string> AuditLogBackups(const std::string& path) {
  const fs::path current(path);
  const std::string stem = current.stem().string();
  const std::string ext = current.extension().string();
  // Exactly what Rotate names: <stem>-YYYY-MM-DDTHH-MM-SS.mmm, maybe -<n>, then <ext>.
  static const std::regex kTime(R"(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}(-\d+)?)");
  std::vector<std::string> out;
  std::error_code ec;
  const fs::path dir = current.parent_path().empty() ? fs::path(".") : current.parent_path();
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= stem.size() + 1 + ext.size() ||
        name.compare(0, stem.size() + 1, stem + "-") != 0 ||
        name.compare(name.size() - ext.size(), ext.size(), ext) != 0) {
      continue;
    }
    const std::string time =
        name.substr(stem.size() + 1, name.size() - stem.size() - 1 - ext.size());
    if (std::regex_match(time, kTime)) out.push_back(entry.path().string());
  }
  // The time sorts as text; a same-millisecond counter sorts after its first backup.
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::unique_ptr<AuditLogFile>> AuditLogFile::Open(AuditLogOptions options) {
  if (options.path.empty()) return Status::BadRequest("no audit log path");
  if (options.max_size_mb < 0 || options.max_backups < 0 || options.max_age_days < 0) {
    return Status::BadRequest("audit log limits must not be negative");
  }
  std::unique_ptr<AuditLogFile> log(new AuditLogFile(std::move(options)));
  if (log->options_.path == "-") {
    log->fd_ = STDOUT_FILENO;
    return log;
  }
  if (Status s = log->OpenCurrent(); !s.ok()) return s;
  return log;
}

AuditLogFile::~AuditLogFile() {
  if (fd_ > STDERR_FILENO) ::close(fd_);
}

Status AuditLogFile::OpenCurrent() {
  fd_ = ::open(options_.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    return Status::Internal("cannot open the audit log " + options_.path + ": " +
                            std::strerror(errno));
  }
  ::fchmod(fd_, 0600);  // also one an older run left looser
  struct stat st {};
  size_ = ::fstat(fd_, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  return Status::Ok();
}

void AuditLogFile::Rotate() {
  ::close(fd_);
  fd_ = -1;
  const fs::path current(options_.path);
  const std::string base =
      current.stem().string() + "-" + BackupTime(std::chrono::system_clock::now());
  fs::path backup = current.parent_path() / (base + current.extension().string());
  std::error_code ec;
  // Two rotations in one millisecond must not overwrite each other.
  for (int n = 1; fs::exists(backup, ec); ++n) {
    backup =
        current.parent_path() / (base + "-" + std::to_string(n) + current.extension().string());
  }
  fs::rename(current, backup, ec);
  if (ec) ++write_errors_;
  if (!OpenCurrent().ok()) ++write_errors_;
  RemoveOldBackups();
}

void AuditLogFile::RemoveOldBackups() {
  std::vector<std::string> backups = AuditLogBackups(options_.path);
  const auto now = fs::file_time_type::clock::now();
  std::error_code ec;
  for (size_t i = 0; i < backups.size(); ++i) {
    const bool beyond_count =
        options_.max_backups > 0 && backups.size() - i > static_cast<size_t>(options_.max_backups);
    bool too_old = false;
    if (options_.max_age_days > 0) {
      auto written = fs::last_write_time(backups[i], ec);
      too_old = !ec && now - written > std::chrono::hours(24) * options_.max_age_days;
    }
    if (beyond_count || too_old) fs::remove(backups[i], ec);
  }
}

void AuditLogFile::Write(std::string_view line) {
  std::string record(line);
  record += '\n';
  std::lock_guard<std::mutex> lock(mu_);
  if (options_.path != "-" && options_.max_size_mb > 0 && size_ > 0 &&
      size_ + record.size() > static_cast<uint64_t>(options_.max_size_mb) * 1024 * 1024) {
    Rotate();
  }
  if (fd_ < 0 || !WriteAll(fd_, record)) {
    ++write_errors_;
    return;
  }
  size_ += record.size();
}

uint64_t AuditLogFile::write_errors() const {
  std::lock_guard<std::mutex> lock(mu_);
  return write_errors_;
}

}  // namespace tenure::server
