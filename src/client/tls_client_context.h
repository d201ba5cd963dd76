// TlsClientContext: the OpenSSL client context for a set of TlsOptions, built once and shared by
// every connection made with the same options. Building one costs about a millisecond of CPU
// with OpenSSL 3 (the CA bundle is decoded anew), which a process with thousands of electors
// would otherwise pay for every connection it opens: after each failed request, all through an
// outage, and in a burst of takeovers.
//
// The files the options name are part of what must be the same (their inode, size and
// modification time): a CA or client certificate replaced on disk gives the next connections a
// context read from the new files, while open connections keep theirs. The cache keeps the
// contexts in use and the last few used. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "client/http_connection.h"
#include "tenure/status.h"

typedef struct ssl_ctx_st SSL_CTX;

namespace tenure::client {

// The context for `options` (`options.enabled` is not looked at). Errors: BadRequest naming
// what cannot be loaded ("cannot load the CA: ...", "cannot load the client certificate: ...").
Result<std::shared_ptr<SSL_CTX>> SharedTlsClientContext(const TlsOptions& options);

// Contexts built so far by this process: for tests.
uint64_t TlsClientContextsBuilt();

// The reason of the oldest OpenSSL error queued on this thread, which it clears.
std::string OpenSslError();

}  // namespace tenure::client
