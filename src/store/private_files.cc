// EnsurePrivateFolder, EnsurePrivateFile, WritePrivateFileAtomically: 0700 folders and 0600
// files whatever the umask.
#include "store/private_files.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

namespace tenure::store {
namespace {

Status Errno(const std::string& what, const std::string& path) {
  return Status::Internal("cannot " + what + " " + path + ": " + std::strerror(errno));
}

// The umask only removes bits from the mode open() and mkdir() are given: fchmod sets it exactly.
Status SetMode(int fd, unsigned mode, const std::string& path) {
  if (::fchmod(fd, mode) != 0) return Errno("set the mode of", path);
  return Status::Ok();
}

}  // namespace

Status EnsurePrivateFolder(const std::string& path) {
  std::error_code ec;
  std::filesystem::path folder(path);
  if (folder.has_parent_path() && !folder.parent_path().empty()) {
    std::filesystem::create_directories(folder.parent_path(), ec);
    if (ec)
      return Status::Internal("cannot create " + folder.parent_path().string() + ": " +
                              ec.message());
  }
  if (::mkdir(path.c_str(), kPrivateFolderMode) != 0 && errno != EEXIST) {
    return Errno("create the folder", path);
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOTDIR) return Status::BadRequest(path + " exists and is not a folder");
    return Errno("open the folder", path);
  }
  Status s = SetMode(fd, kPrivateFolderMode, path);
  ::close(fd);
  return s;
}

Status EnsurePrivateFile(const std::string& path, bool create) {
  int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0);
  int fd = ::open(path.c_str(), flags, kPrivateFileMode);
  if (fd < 0) {
    if (!create && errno == ENOENT) return Status::Ok();
    return Errno("open", path);
  }
  Status s = SetMode(fd, kPrivateFileMode, path);
  ::close(fd);
  return s;
}

Status WritePrivateFileAtomically(const std::string& path, std::string_view content) {
  const std::string tmp = path + ".tmp";
  ::unlink(tmp.c_str());  // a leftover of a crash: it may have another mode or owner
  int fd =
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, kPrivateFileMode);
  if (fd < 0) return Errno("create", tmp);
  Status s = SetMode(fd, kPrivateFileMode, tmp);
  for (size_t written = 0; s.ok() && written < content.size();) {
    ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      s = Errno("write", tmp);
    else
      written += static_cast<size_t>(n);
  }
  if (s.ok() && ::fsync(fd) != 0) s = Errno("sync", tmp);
  ::close(fd);
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) s = Errno("rename " + tmp + " to", path);
  if (!s.ok()) ::unlink(tmp.c_str());
  return s;
}

}  // namespace tenure::store
