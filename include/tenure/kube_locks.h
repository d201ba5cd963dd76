// Locks kept in Kubernetes objects:
// - LeaseLock: a coordination.k8s.io/v1 Lease (what client-go uses); supports watch.
// - ConfigMapLock: the record as JSON in the ConfigMap annotation
//   control-plane.alpha.kubernetes.io/leader (the older client-go format, and the one the
//   official Python client uses; its non-standard record — leaseDurationSeconds as a string,
//   naive timestamps — is read tolerantly). Supports watch.
// Both write Events ("<id> became leader" / "stopped leading", reason LeaderElection) about the
// object when publish_events is set.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "tenure/cluster.h"
#include "tenure/lock.h"

namespace tenure {

struct KubeLockOptions {
  std::string namespace_;  // "" : the cluster's default namespace
  std::string name;
  std::string identity;
  bool publish_events = true;
  // Optional. An Event about the lock could not be posted (Forbidden names the missing right:
  // create on events); once per distinct error. Events are best effort: the election goes on.
  std::function<void(const Status& error)> on_event_error;
  // Labels the lock keeps on its object: set when it creates the object, put back on each of
  // its writes. With labels, the lock's watch asks only for objects that carry all of them (a
  // label selector) and is shared with the other locks of the Cluster that have the same
  // labels: a process leading thousands of Leases that carry a label of its own then receives
  // the events of those Leases only, not of every Lease in the namespace. Every candidate of
  // one election must use the same labels (a candidate watching for labels the object lacks
  // sees no change until it next reads the object; safety does not depend on it). Such a watch
  // cannot tell an object deleted from one that lost the labels, so a deletion is seen at the
  // next read, not at once. Keys and values as Kubernetes labels: with others every call of
  // the lock fails at once with the Invalid Status the server would send (naming the label),
  // and nothing is sent.
  std::map<std::string, std::string> labels;
};

std::shared_ptr<Lock> NewLeaseLock(std::shared_ptr<Cluster> cluster, KubeLockOptions options);
std::shared_ptr<Lock> NewConfigMapLock(std::shared_ptr<Cluster> cluster, KubeLockOptions options);

}  // namespace tenure
