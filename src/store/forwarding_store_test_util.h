// ForwardingStore: a Store that passes every call to an inner SqliteStore, for tests that change
// only some of its behaviour (reads that block, versions known without a read) by overriding
// those calls.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "store/sqlite_store.h"
#include "store/store.h"

namespace tenure::store::test_util {

class ForwardingStore : public Store {
 public:
  explicit ForwardingStore(std::unique_ptr<SqliteStore> inner) : inner_(std::move(inner)) {}

  Result<KeyValue> Get(std::string_view key) override { return inner_->Get(key); }
  using Store::List;
  Result<ListResult> List(std::string_view prefix, const ListOptions& options) override {
    return inner_->List(prefix, options);
  }
  int64_t CurrentRevision() override { return inner_->CurrentRevision(); }
  void Write(WriteOp op, WriteCallback done) override {
    inner_->Write(std::move(op), std::move(done));
  }
  Result<std::unique_ptr<WatchHandle>> Watch(std::string_view prefix, int64_t from,
                                             EventCallback on_events) override {
    return inner_->Watch(prefix, from, std::move(on_events));
  }
  void Close() override { inner_->Close(); }

  SqliteStore& inner() { return *inner_; }

 private:
  std::unique_ptr<SqliteStore> inner_;
};

// A T (a ForwardingStore) over a new SqliteStore at `path`, holding the "default" Namespace as
// the server stores it.
template <typename T>
Result<std::shared_ptr<T>> OpenWithDefaultNamespace(const std::string& path) {
  auto sqlite = SqliteStore::Open({.path = path});
  if (!sqlite.ok()) return sqlite.status();
  auto store = std::make_shared<T>(std::move(*sqlite));
  auto created = store->WriteSync(
      {WriteOp::Kind::kCreate, "/registry/namespaces/default",
       R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}})", 0});
  if (!created.ok()) return created.status();
  return store;
}

}  // namespace tenure::store::test_util
