// Files and folders that only the server's own user can read, whatever the umask: the data
// folder is 0700 and every file in it 0600 (the database and its WAL, the keys, the token, the
// kubeconfig, the certificates). Files are created with those modes from the start, never
// widened and then narrowed, and existing ones from an older, looser run are narrowed.
#pragma once

#include <string>
#include <string_view>

#include "tenure/status.h"

namespace tenure::store {

inline constexpr unsigned kPrivateFolderMode = 0700;
inline constexpr unsigned kPrivateFileMode = 0600;

// Creates `path` (and missing parents, those with the usual mode) as a folder with mode 0700,
// or sets an existing folder's mode to 0700. InvalidArgument-like BadRequest when it exists and
// is no folder.
Status EnsurePrivateFolder(const std::string& path);

// Creates `path` as an empty file with mode 0600 when it does not exist; sets an existing file's
// mode to 0600 (a missing file with `create` false is left missing).
Status EnsurePrivateFile(const std::string& path, bool create = true);

// Replaces `path` with `content` (written to `path`.tmp created 0600, fsynced, renamed over it):
// a reader sees the old content or the new, never part of it.
Status WritePrivateFileAtomically(const std::string& path, std::string_view content);

}  // namespace tenure::store
