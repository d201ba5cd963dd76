// A VFS over the default one that coalesces the writes to the WAL file. SQLite writes every
// WAL frame as two pwrite() calls (frame header, then page), so a commit of a batch is ten or
// more system calls before its fsync; here consecutive writes are collected in memory and
// written with one pwrite() before anything else touches the file (sync, read, truncate, size,
// close, or a write that does not extend the collected run). Durability is unchanged: every
// byte reaches the file before the xSync that makes the commit durable, and an error of the
// delayed write is returned by the call that flushes (for a commit: its sync, so it fails).
// Every other file of the database is the default VFS's own.
#pragma once

namespace tenure::store {

// Registers the VFS (once per process) and returns its name for sqlite3_open_v2; null when it
// could not be registered: then the default VFS.
const char* CoalescingVfs();

}  // namespace tenure::store
