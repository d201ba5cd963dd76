// SqliteStore's WAL write coalescing: a VFS over SQLite's default one (see the header).
#include "store/sqlite_coalescing_vfs.h"

#include <sqlite3.h>

#include <algorithm>
#include <mutex>
#include <string>

namespace tenure::store {
namespace {

constexpr const char* kCoalescingVfsName = "tenure-wal-coalesce";
constexpr size_t kMaxCoalesced = 4 << 20;
// The unix VFS writes at most 128 KiB per call (it masks the size to 17 bits: a larger write
// comes back short, as SQLITE_FULL, "database or disk is full"), so collected bytes go out in
// pieces of this size.
constexpr size_t kMaxVfsWrite = 64 << 10;

sqlite3_vfs* g_base_vfs = nullptr;

struct CoalescingFile {
  sqlite3_file base;     // pMethods = kCoalescingMethods
  sqlite3_file* real;    // the base VFS's file, allocated right after this struct
  std::string* pending;  // collected bytes, written at pending_offset
  sqlite3_int64 pending_offset;
};

CoalescingFile* AsCoalescing(sqlite3_file* f) { return reinterpret_cast<CoalescingFile*>(f); }

// Writes `size` bytes at `offset` through the base VFS in pieces it accepts.
int WriteInPieces(sqlite3_file* real, const char* data, size_t size, sqlite3_int64 offset) {
  for (size_t done = 0; done < size;) {
    size_t piece = std::min(kMaxVfsWrite, size - done);
    int rc = real->pMethods->xWrite(real, data + done, static_cast<int>(piece),
                                    offset + static_cast<sqlite3_int64>(done));
    if (rc != SQLITE_OK) return rc;
    done += piece;
  }
  return SQLITE_OK;
}

int FlushPending(CoalescingFile* f) {
  if (f->pending->empty()) return SQLITE_OK;
  int rc = WriteInPieces(f->real, f->pending->data(), f->pending->size(), f->pending_offset);
  f->pending->clear();
  return rc;
}

int CoalescingClose(sqlite3_file* file) {
  CoalescingFile* f = AsCoalescing(file);
  int rc = FlushPending(f);
  int close_rc = f->real->pMethods != nullptr ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
  delete f->pending;
  f->pending = nullptr;
  return rc != SQLITE_OK ? rc : close_rc;
}

int CoalescingRead(sqlite3_file* file, void* out, int amount, sqlite3_int64 offset) {
  CoalescingFile* f = AsCoalescing(file);
  if (int rc = FlushPending(f); rc != SQLITE_OK) return rc;
  return f->real->pMethods->xRead(f->real, out, amount, offset);
}

int CoalescingWrite(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
  CoalescingFile* f = AsCoalescing(file);
  std::string& pending = *f->pending;
  size_t n = static_cast<size_t>(amount);
  if (!pending.empty() &&
      (offset != f->pending_offset + static_cast<sqlite3_int64>(pending.size()) ||
       pending.size() + n > kMaxCoalesced)) {
    if (int rc = FlushPending(f); rc != SQLITE_OK) return rc;
  }
  if (n > kMaxCoalesced) return WriteInPieces(f->real, static_cast<const char*>(data), n, offset);
  if (pending.empty()) f->pending_offset = offset;
  pending.append(static_cast<const char*>(data), n);
  return SQLITE_OK;
}

int CoalescingTruncate(sqlite3_file* file, sqlite3_int64 size) {
  CoalescingFile* f = AsCoalescing(file);
  if (int rc = FlushPending(f); rc != SQLITE_OK) return rc;
  return f->real->pMethods->xTruncate(f->real, size);
}

int CoalescingSync(sqlite3_file* file, int flags) {
  CoalescingFile* f = AsCoalescing(file);
  if (int rc = FlushPending(f); rc != SQLITE_OK) return rc;
  return f->real->pMethods->xSync(f->real, flags);
}

int CoalescingFileSize(sqlite3_file* file, sqlite3_int64* size) {
  CoalescingFile* f = AsCoalescing(file);
  if (int rc = FlushPending(f); rc != SQLITE_OK) return rc;
  return f->real->pMethods->xFileSize(f->real, size);
}

int CoalescingLock(sqlite3_file* file, int level) {
  sqlite3_file* real = AsCoalescing(file)->real;
  return real->pMethods->xLock(real, level);
}

int CoalescingUnlock(sqlite3_file* file, int level) {
  sqlite3_file* real = AsCoalescing(file)->real;
  return real->pMethods->xUnlock(real, level);
}

int CoalescingCheckReservedLock(sqlite3_file* file, int* out) {
  sqlite3_file* real = AsCoalescing(file)->real;
  return real->pMethods->xCheckReservedLock(real, out);
}

int CoalescingFileControl(sqlite3_file* file, int op, void* arg) {
  CoalescingFile* f = AsCoalescing(file);
  if (int rc = FlushPending(f); rc != SQLITE_OK) return rc;
  return f->real->pMethods->xFileControl(f->real, op, arg);
}

int CoalescingSectorSize(sqlite3_file* file) {
  sqlite3_file* real = AsCoalescing(file)->real;
  return real->pMethods->xSectorSize(real);
}

int CoalescingDeviceCharacteristics(sqlite3_file* file) {
  sqlite3_file* real = AsCoalescing(file)->real;
  return real->pMethods->xDeviceCharacteristics(real);
}

// Version 1: the WAL file is never memory-mapped and has no shared memory of its own.
const sqlite3_io_methods kCoalescingMethods = {
    1,
    CoalescingClose,
    CoalescingRead,
    CoalescingWrite,
    CoalescingTruncate,
    CoalescingSync,
    CoalescingFileSize,
    CoalescingLock,
    CoalescingUnlock,
    CoalescingCheckReservedLock,
    CoalescingFileControl,
    CoalescingSectorSize,
    CoalescingDeviceCharacteristics,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
};

int CoalescingOpen(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags,
                   int* out_flags) {
  if ((flags & SQLITE_OPEN_WAL) == 0) {
    // Every other file is the base VFS's own (it fits: szOsFile is larger than the base's).
    return g_base_vfs->xOpen(g_base_vfs, name, file, flags, out_flags);
  }
  CoalescingFile* f = AsCoalescing(file);
  f->base.pMethods = nullptr;
  f->real = reinterpret_cast<sqlite3_file*>(f + 1);
  f->real->pMethods = nullptr;
  int rc = g_base_vfs->xOpen(g_base_vfs, name, f->real, flags, out_flags);
  if (rc != SQLITE_OK) {
    // SQLite calls xClose only when pMethods is set; the base file may need closing itself.
    if (f->real->pMethods != nullptr) f->real->pMethods->xClose(f->real);
    return rc;
  }
  f->pending = new std::string();
  f->pending->reserve(64 * 1024);
  f->pending_offset = 0;
  f->base.pMethods = &kCoalescingMethods;
  return SQLITE_OK;
}

}  // namespace

const char* CoalescingVfs() {
  static std::once_flag once;
  static sqlite3_vfs vfs;
  static const char* registered = nullptr;
  std::call_once(once, [] {
    g_base_vfs = sqlite3_vfs_find(nullptr);
    if (g_base_vfs == nullptr) return;
    vfs = *g_base_vfs;  // same pAppData, path and helper functions as the base
    vfs.pNext = nullptr;
    vfs.zName = kCoalescingVfsName;
    vfs.szOsFile = static_cast<int>(sizeof(CoalescingFile)) + g_base_vfs->szOsFile;
    vfs.xOpen = CoalescingOpen;
    if (sqlite3_vfs_register(&vfs, 0) == SQLITE_OK) registered = kCoalescingVfsName;
  });
  return registered;  // null: the default VFS
}

}  // namespace tenure::store
