// Raw etcd compare-and-swap from C++ over gRPC: the baseline tenure's etcd backend is compared
// with. Each client thread has its own key and, by default, its own gRPC channel (its own TCP
// connection; `connections` > 0 shares that many among the clients), and updates it the way
// kube-apiserver's GuaranteedUpdate does: Txn(mod_revision(key) == last → put value, else get key),
// taking the new revision from the reply. The value is a Lease as tenure stores it (about the same
// size), so etcd does the same work per write as under tenure.
#pragma once

#include <string>

#include "bench/bench_util.h"

namespace tenure::bench {

// Closed loop of `clients` threads against the etcd at `target` ("127.0.0.1:PORT", plain gRPC)
// for `seconds`; keys are "<key_prefix><clients>-<i>". Prints and returns the figures.
LoopResult EtcdGrpcCas(const std::string& target, const std::string& key_prefix, int clients,
                       int seconds, int connections = 0);

}  // namespace tenure::bench
