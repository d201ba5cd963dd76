// RunSupervisor: `tenure run`'s loop. It campaigns for the lock (Leadership) and runs the
// command only while leading:
// - on a granted term: starts the command (own process group) with TENURE_IDENTITY,
//   TENURE_FENCING_TOKEN, TENURE_LOCK_NAMESPACE, TENURE_LOCK_NAME and TENURE_ROLE set;
// - when the term ends (lost, or stopped): SIGTERM to the command's group, SIGKILL after the grace
//   period. The term's stop token fires at S + leaseDuration x 0.99 - (grace + 200 ms), S being
//   when the last successful renewal was sent, so the command is killed about 200 ms before
//   any other candidate can acquire the lease (which needs S + leaseDuration on its own clock,
//   counted from a later observation). Assumes this process is not frozen (SIGSTOP, VM pause).
//   If `tenure run` itself is killed, the kernel SIGKILLs the command (PR_SET_PDEATHSIG).
// - SIGINT/SIGTERM are forwarded to the command's group; once it exited, the lease is released
//   (with releaseOnCancel) and tenure run exits with the command's status;
// - when the command exits by itself: the lease is released (the command is gone, so this is
//   safe) and tenure run exits with the command's status, or, with campaignAgain, stays a
//   candidate and starts it again on its next term;
// - after a lost term it campaigns again after waitAfterRenewalFailure.
// Runs on the calling thread, which must be the process's main thread (see ChildProcess).
#pragma once

#include <string>
#include <vector>

#include "cli/run_settings.h"

namespace tenure::cli {

// Returns the process exit status.
int RunWhileLeader(const RunSettings& settings, const std::vector<std::string>& command);

}  // namespace tenure::cli
