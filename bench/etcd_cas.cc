// EtcdGrpcCas: the raw etcd compare-and-swap baseline over gRPC for the server benchmark.
#include "bench/etcd_cas.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "etcd_rpc.grpc.pb.h"

namespace tenure::bench {
namespace {

namespace pb = etcdserverpb;

// A Lease as the server stores it (metadata with uid and creationTimestamp, spec with holder and
// times); `holder` changes per write so that every put carries a new value.
std::string StoredLease(const std::string& name, const std::string& holder) {
  return "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{"
         "\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"name\":\"" +
         name +
         "\",\"namespace\":\"default\",\"uid\":\"7a1c7a36-2c1e-4d55-9b1f-6f4b1c0e2a11\"},"
         "\"spec\":{\"acquireTime\":\"2026-01-01T00:00:00.000000Z\",\"holderIdentity\":\"" +
         holder +
         "\",\"leaseDurationSeconds\":15,\"leaseTransitions\":0,"
         "\"renewTime\":\"2026-01-01T00:00:00.000000Z\"}}";
}

// One client: its channel, its key and the mod_revision of its last write (0: not created yet,
// which is what etcd reports for a missing key).
struct CasClient {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<pb::KV::Stub> kv;
  std::string key;
  std::string name;
  int64_t revision = 0;

  bool Update(long n) {
    pb::TxnRequest txn;
    pb::Compare* compare = txn.add_compare();
    compare->set_key(key);
    compare->set_target(pb::Compare::MOD);
    compare->set_result(pb::Compare::EQUAL);
    compare->set_mod_revision(revision);
    pb::PutRequest* put = txn.add_success()->mutable_request_put();
    put->set_key(key);
    put->set_value(StoredLease(name, name + "-" + std::to_string(n)));
    txn.add_failure()->mutable_request_range()->set_key(key);
    pb::TxnResponse reply;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    grpc::Status s = kv->Txn(&context, txn, &reply);
    if (!s.ok() || !reply.succeeded()) return false;
    revision = reply.header().revision();  // the put's revision is the key's new mod_revision
    return true;
  }
};

}  // namespace

LoopResult EtcdGrpcCas(const std::string& target, const std::string& key_prefix, int clients,
                       int seconds, int connections) {
  // Channels made up front: client i uses channel i % connections (each its own TCP connection).
  int count = connections > 0 ? std::min(connections, clients) : clients;
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int i = 0; i < count; ++i) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // not shared with the other channels
    channels.push_back(grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args));
  }
  std::string label = "raw etcd CAS over gRPC (" + std::to_string(count) + " conns)";
  return ClosedLoop(label, "txn", clients, seconds, [&](int i) -> Step {
    auto c = std::make_shared<CasClient>();
    c->channel = channels[static_cast<size_t>(i % count)];
    c->kv = pb::KV::NewStub(c->channel);
    c->name = "raw-" + std::to_string(clients) + "-" + std::to_string(i);
    c->key = key_prefix + c->name;
    if (!c->Update(0)) return nullptr;  // creates the key (mod_revision 0 == missing)
    return [c](long n) { return c->Update(n); };
  });
}

}  // namespace tenure::bench
