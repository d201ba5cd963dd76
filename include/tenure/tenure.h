// tenure: Kubernetes-style leader election for C++. This header includes the whole public API;
// each header it names states its own contract:
//   status.h      Status and Result: every fallible call's outcome
//   cluster.h     a connection to a Kubernetes API server (kubeconfig, in-cluster, exec plugins)
//   kube_locks.h  Lease and ConfigMap locks; lock.h the interface for your own
//   elector.h     the election: configuration, guarantees, Elector and ElectionHandle
//   election_pool.h  many elections in one process on a few threads
//   leadership.h  Spring Cloud Kubernetes' granted / revoked API on an elector
//   candidate.h   coordinated leader election: this process's LeaseCandidate
//   fencing.h     fencing tokens checked by a downstream system
//   health.h      a health check of a leader that stopped renewing
//   metrics.h     Prometheus metrics of electors
//   log.h         where the library's log lines go
//   clock.h       the injected clock; memory_lock.h, fake_clock.h and testing/ for tests
//   version.h     the version of the headers and of the library
#pragma once

#include "tenure/candidate.h"
#include "tenure/clock.h"
#include "tenure/cluster.h"
#include "tenure/election_pool.h"
#include "tenure/elector.h"
#include "tenure/fencing.h"
#include "tenure/health.h"
#include "tenure/identity.h"
#include "tenure/kube_locks.h"
#include "tenure/leader_election_record.h"
#include "tenure/leadership.h"
#include "tenure/lock.h"
#include "tenure/log.h"
#include "tenure/memory_lock.h"
#include "tenure/metrics.h"
#include "tenure/status.h"
#include "tenure/version.h"
