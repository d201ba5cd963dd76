// ResourceApi: the REST verbs of every served kind over the Store, as kube-apiserver serves them.
#include "server/resource_api.h"

#include <nlohmann/json.hpp>
#include <random>

#include "api/client_json.h"
#include "api/go_duration.h"
#include "api/status_object.h"
#include "api/time.h"
#include "server/object_text.h"
#include "server/patch.h"
#include "server/protobuf_body.h"
#include "server/response_format.h"
#include "server/selectors.h"
#include "server/watch_session.h"

namespace tenure::server {

using nlohmann::json;

namespace {

constexpr std::string_view kNamespacesResource = "namespaces";
// How long a patch without a resourceVersion is redone after conflicts (kube-apiserver: until
// its request timeout, 60 s by default).
constexpr auto kConflictRetryWindow = std::chrono::seconds(30);
// A client timeout at least this long is no shorter than the server's own request timeout (60 s
// by default, 504 from the HTTP server), and would not fit in a time point: no deadline.
constexpr auto kLongestClientTimeout = std::chrono::hours(24);

std::string NewUid() {
  thread_local std::mt19937_64 rng(std::random_device{}());
  uint64_t a = rng(), b = rng();
  a = (a & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 10
  char out[37];
  std::snprintf(out, sizeof out, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xffff),
                static_cast<unsigned>(b >> 48),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return out;
}

std::string RandomSuffix() {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";  // as kube's rand.String
  thread_local std::mt19937 rng(std::random_device{}());
  std::string out;
  for (int i = 0; i < 5; ++i) out.push_back(kAlphabet[rng() % (sizeof kAlphabet - 1)]);
  return out;
}

std::string JsonString(const json& object, const char* section, const char* field) {
  auto s = object.find(section);
  if (s == object.end() || !s->is_object()) return "";
  auto f = s->find(field);
  return f != s->end() && f->is_string() ? f->get<std::string>() : "";
}

Status WithDetails(Status status, const api::KindInfo& kind, const std::string& name) {
  StatusDetails d;
  d.name = name;
  d.group = std::string(kind.group);
  d.kind =
      status.reason() == Reason::kInvalid ? std::string(kind.kind) : std::string(kind.resource);
  status.set_details(std::move(d));
  return status;
}

Status NotFoundError(const api::KindInfo& kind, const std::string& name) {
  return WithDetails(Status::NotFound(kind.qualified_resource() + " \"" + name + "\" not found"),
                     kind, name);
}

Status NamespaceNotFound(const std::string& ns) {
  Status s = Status::NotFound("namespaces \"" + ns + "\" not found");
  s.set_details({.name = ns, .group = "", .kind = "namespaces"});
  return s;
}

Status ConflictError(const api::KindInfo& kind, const std::string& name) {
  return WithDetails(Status::Conflict("Operation cannot be fulfilled on " +
                                      kind.qualified_resource() + " \"" + name +
                                      "\": the object has been modified; please apply your "
                                      "changes to the latest version and try again"),
                     kind, name);
}

// Rewrites a store error into kube-apiserver's wording for this object.
Status StoreError(const Status& s, const api::KindInfo& kind, const std::string& name) {
  switch (s.reason()) {
    case Reason::kNotFound:
      return NotFoundError(kind, name);
    case Reason::kConflict:
      return ConflictError(kind, name);
    case Reason::kAlreadyExists:
      return WithDetails(
          Status::AlreadyExists(kind.qualified_resource() + " \"" + name + "\" already exists"),
          kind, name);
    default:
      return s;
  }
}

Result<json> ParseBody(const std::string& body) {
  auto parsed = api::ParseClientJson(body);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_object()) {
    return Status::BadRequest("the body of the request must be a JSON object");
  }
  return parsed;
}

bool IsJsonContentType(const std::string& content_type) {
  std::string_view ct = content_type;
  ct = ct.substr(0, ct.find(';'));
  while (!ct.empty() && ct.back() == ' ') ct.remove_suffix(1);
  return ct.empty() || ct == "application/json" || ct == "*/*";
}

Status UnsupportedBodyType(const std::string& content_type, bool patch) {
  return Status(Reason::kUnsupportedMediaType,
                "the body of the request was in an unknown format (" + content_type +
                    ") - accepted media types include: " +
                    (patch ? "application/json-patch+json, application/merge-patch+json, "
                             "application/apply-patch+yaml, application/strategic-merge-patch+json"
                           : "application/json"));
}

// The object in a create or update body: JSON, or the protobuf some kubectl commands send.
Result<json> DecodeBody(const HttpRequest& request) {
  std::string content_type = request.header("content-type");
  if (content_type.rfind(kProtobufContentType, 0) == 0) {
    return DecodeProtobufObject(request.body);
  }
  if (!IsJsonContentType(content_type)) return UnsupportedBodyType(content_type, false);
  return ParseBody(request.body);
}

Result<int64_t> ParseResourceVersion(const std::string& text) {
  if (text.empty()) return int64_t{0};
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || value > (INT64_MAX - 9) / 10) {
      return Status::BadRequest("invalid resource version: \"" + text + "\"");
    }
    value = value * 10 + (c - '0');
  }
  return value;
}

// Namespaces carry their name as the label kubernetes.io/metadata.name (kube-apiserver sets it
// on every write, so selectors can pick namespaces by name).
void ApplyNamespaceLabel(const api::KindInfo& kind, json& object) {
  if (kind.resource != kNamespacesResource) return;
  const json& name = object["metadata"]["name"];
  if (name.is_string()) object["metadata"]["labels"]["kubernetes.io/metadata.name"] = name;
}

// Kind-specific defaults applied on create (kube-apiserver's PrepareForCreate + defaulting).
void ApplyCreateDefaults(const api::KindInfo& kind, json& object) {
  ApplyNamespaceLabel(kind, object);
  if (kind.resource == kNamespacesResource) {
    object["spec"]["finalizers"] = json::array({"kubernetes"});
    object["status"]["phase"] = "Active";
  }
}

}  // namespace

struct ResourceApi::Call {
  Clock::TimePoint received;
  // When the client stops waiting (its `?timeout=`): the store gives up then, and shares what is
  // left among the members it may try (a hung etcd member must not take all of it).
  store::Deadline deadline = store::kNoDeadline;
  RequestInfo info;
  const api::KindInfo* kind = nullptr;
  HttpRequest request;
  std::shared_ptr<Responder> responder;
  ResponseFormat format;
  bool dry_run = false;

  void Fail(const Status& status) { responder->Reply(ErrorResponse(status)); }
  void ReplyObject(int code, std::string body) {
    HttpResponse r;
    r.status = code;
    r.body = std::move(body);
    responder->Reply(std::move(r));
  }
  // Replies with one stored object in the representation the client asked for.
  void ReplyStored(int code, const std::string& stored, int64_t revision, Clock& clock) {
    ReplyObject(code, RenderObject(format, *kind, info.version, stored, revision, clock));
  }
  // ReplyStored for a store callback: the reply is rendered on the connection's thread, not on
  // the store's writer. Captures no Call (the responder holds the closure: no cycle).
  void ReplyStoredLater(int code, store::KeyValue kv, std::shared_ptr<Clock> clock) {
    responder->ReplyWith([code, kv = std::move(kv), clock = std::move(clock), format = format,
                          kind = kind, version = info.version] {
      HttpResponse r;
      r.status = code;
      r.body = RenderObject(format, *kind, version, kv.value, kv.mod_revision, *clock);
      return r;
    });
  }
};

ResourceApi::ResourceApi(std::shared_ptr<store::Store> store, std::shared_ptr<Clock> clock)
    : store_(std::move(store)), clock_(std::move(clock)) {}

std::string ResourceApi::StoragePrefix(const api::KindInfo& kind, const std::string& ns) {
  std::string key = "/registry/";
  key += kind.resource;
  key += '/';
  if (kind.namespaced && !ns.empty()) {
    key += ns;
    key += '/';
  }
  return key;
}

std::string ResourceApi::StorageKey(const api::KindInfo& kind, const std::string& ns,
                                    const std::string& name) {
  return StoragePrefix(kind, ns) + name;
}

void ResourceApi::Handle(const RequestInfo& info, const api::KindInfo& kind, HttpRequest request,
                         std::shared_ptr<Responder> responder) {
  auto call = std::make_shared<Call>();
  call->received = clock_->now();
  call->info = info;
  call->kind = &kind;
  call->request = std::move(request);
  call->responder = std::move(responder);
  auto format = NegotiateFormat(call->request);
  if (!format.ok()) return call->Fail(format.status());
  call->format = *format;
  if (std::string text = call->request.param("timeout");
      info.verb != Verb::kWatch && !text.empty()) {
    // kube-apiserver's request deadline: a client's timeout can only shorten the server's own
    // (0, or more than it, means none), counted from the request's arrival; long-running
    // requests (watches) do not take it.
    auto timeout = api::ParseGoDuration(text);
    if (!timeout.ok()) {
      return call->Fail(Status::BadRequest("invalid timeout specified in the request URL: " +
                                           timeout.status().message()));
    }
    if (timeout->count() > 0 && *timeout < kLongestClientTimeout) {
      auto arrived = call->request.received == std::chrono::steady_clock::time_point{}
                         ? std::chrono::steady_clock::now()
                         : call->request.received;
      call->deadline = arrived + *timeout;
    }
  }
  std::string dry_run = call->request.param("dryRun");
  if (!dry_run.empty()) {
    if (dry_run != "All") {
      return call->Fail(Status::BadRequest("unsupported dry run option \"" + dry_run + "\""));
    }
    call->dry_run = true;
  }
  if (!info.subresource.empty()) {
    return call->Fail(Status::NotFound("the server could not find the requested resource"));
  }
  if (kind.namespaced && info.namespace_.empty() && !info.name.empty()) {
    return call->Fail(Status::NotFound("the server could not find the requested resource"));
  }
  if (kind.namespaced && info.namespace_.empty() && info.verb != Verb::kList &&
      info.verb != Verb::kWatch) {
    return call->Fail(Status::NotFound("the server could not find the requested resource"));
  }
  if (info.verb) {
    switch (*info.verb) {
      case Verb::kGet:
        return Get(call);
      case Verb::kList:
        return List(call);
      case Verb::kWatch:
        return Watch(call);
      case Verb::kCreate:
        return Create(call);
      case Verb::kUpdate:
        return Update(call);
      case Verb::kPatch:
        return Patch(call);
      case Verb::kDelete:
        return Delete(call);
      case Verb::kDeleteCollection:
        return DeleteCollection(call);
    }
  }
  call->Fail(Status(Reason::kMethodNotAllowed,
                    "the server does not allow this method on the requested resource"));
}

void ResourceApi::Get(std::shared_ptr<Call> call) {
  auto kv = store_->GetBefore(StorageKey(*call->kind, call->info.namespace_, call->info.name),
                              call->deadline);
  if (!kv.ok()) return call->Fail(StoreError(kv.status(), *call->kind, call->info.name));
  call->ReplyStored(200, kv->value, kv->mod_revision, *clock_);
}

void ResourceApi::List(std::shared_ptr<Call> call) {
  auto filter = ObjectFilter::FromRequest(*call->kind, call->request);
  if (!filter.ok()) return call->Fail(filter.status());
  auto listed = store_->List(StoragePrefix(*call->kind, call->info.namespace_));
  if (!listed.ok()) return call->Fail(listed.status());
  std::vector<const store::KeyValue*> items;
  items.reserve(listed->items.size());
  for (const auto& kv : listed->items) {
    if (filter->Matches(*call->kind, kv.value)) items.push_back(&kv);
  }
  call->ReplyObject(200, RenderList(call->format, *call->kind, call->info.version, items,
                                    listed->revision, *clock_));
}

void ResourceApi::Watch(std::shared_ptr<Call> call) {
  auto filter = ObjectFilter::FromRequest(*call->kind, call->request);
  if (!filter.ok()) return call->Fail(filter.status());
  std::string rv_text = call->request.param("resourceVersion");
  auto rv = ParseResourceVersion(rv_text);
  if (!rv.ok()) return call->Fail(rv.status());
  WatchOptions options;
  options.kind = call->kind;
  options.version = call->info.version;
  options.prefix = StoragePrefix(*call->kind, call->info.namespace_);
  if (!call->info.name.empty()) {
    // GET .../leases/NAME?watch=true and /watch/.../leases/NAME watch one object.
    filter->RequireName(call->info.name);
  }
  options.filter = std::move(*filter);
  options.format = call->format;
  options.send_initial_state = rv_text.empty() || *rv == 0;
  options.from_revision = *rv;
  options.bookmarks = call->request.param("allowWatchBookmarks") == "true";
  std::string timeout = call->request.param("timeoutSeconds");
  if (!timeout.empty()) {
    auto seconds = ParseResourceVersion(timeout);
    if (!seconds.ok()) return call->Fail(Status::BadRequest("invalid timeoutSeconds: " + timeout));
    options.timeout = std::chrono::seconds(*seconds);
  }
  StartWatch(store_, clock_, std::move(options), call->responder);
}

void ResourceApi::StoreCreate(std::shared_ptr<Call> call, json object) {
  std::string name = object["metadata"]["name"].get<std::string>();
  std::string value = object.dump();
  if (call->dry_run) {
    return call->ReplyStored(201, value, store_->CurrentRevision(), *clock_);
  }
  store::WriteOp op{store::WriteOp::Kind::kCreate,
                    StorageKey(*call->kind, call->info.namespace_, name), value, 0, call->deadline};
  store_->Write(std::move(op), [call, name, clock = clock_](Result<store::KeyValue> r) {
    if (!r.ok()) return call->Fail(StoreError(r.status(), *call->kind, name));
    call->ReplyStoredLater(201, std::move(*r), clock);
  });
}

// A namespaced object takes the URL's namespace; a different one in the body is an error.
static Status ClaimNamespace(const api::KindInfo& kind, const RequestInfo& info, json& object) {
  if (!kind.namespaced) return Status::Ok();
  std::string ns = JsonString(object, "metadata", "namespace");
  if (!ns.empty() && ns != info.namespace_) {
    return Status::BadRequest(
        "the namespace of the provided object does not match the namespace sent on the request");
  }
  object["metadata"]["namespace"] = info.namespace_;
  return Status::Ok();
}

// Checks namespace, fills server-owned metadata, defaults and validates a new object.
static Status PrepareCreate(const api::KindInfo& kind, const RequestInfo& info, store::Store& store,
                            store::Deadline deadline, Clock& clock, json& object) {
  json& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object();
  if (Status s = ClaimNamespace(kind, info, object); !s.ok()) return s;
  if (kind.namespaced) {
    const api::KindInfo* ns_kind = api::FindByResource("", kNamespacesResource);
    if (!store.GetBefore(ResourceApi::StorageKey(*ns_kind, "", info.namespace_), deadline).ok()) {
      return NamespaceNotFound(info.namespace_);
    }
  } else {
    meta.erase("namespace");
  }
  if (meta.contains("resourceVersion")) {
    return Status::BadRequest("resourceVersion should not be set on objects to be created");
  }
  std::string name = JsonString(object, "metadata", "name");
  std::string generate = JsonString(object, "metadata", "generateName");
  if (name.empty() && !generate.empty()) meta["name"] = generate + RandomSuffix();
  meta["uid"] = NewUid();
  meta["creationTimestamp"] = api::FormatTime(clock.wall_now());
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  meta.erase("generation");
  ApplyCreateDefaults(kind, object);
  return WithDetails(api::ValidateCreate(kind, object), kind,
                     JsonString(object, "metadata", "name"));
}

void ResourceApi::Create(std::shared_ptr<Call> call) {
  if (!call->info.name.empty()) {
    return call->Fail(Status(Reason::kMethodNotAllowed,
                             "the server does not allow this method on the requested resource"));
  }
  auto body = DecodeBody(call->request);
  if (!body.ok()) return call->Fail(body.status());
  api::DecodeOptions options{.strict = call->request.param("fieldValidation") == "Strict"};
  auto object = api::Canonicalize(*call->kind, *body, options);
  if (!object.ok()) return call->Fail(object.status());
  Status s = PrepareCreate(*call->kind, call->info, *store_, call->deadline, *clock_, *object);
  if (!s.ok()) return call->Fail(s);
  StoreCreate(call, std::move(*object));
}

void ResourceApi::StoreUpdate(std::shared_ptr<Call> call, std::string value,
                              store::KeyValue existing, int64_t expected_revision,
                              std::function<void()> on_conflict,
                              std::function<void()> on_not_found) {
  if (value == existing.value) {
    // A no-op write keeps the resourceVersion (kubectl prints "unchanged" / "no change").
    if (expected_revision != 0 && expected_revision != existing.mod_revision) {
      return call->Fail(ConflictError(*call->kind, call->info.name));
    }
    return call->ReplyStored(200, existing.value, existing.mod_revision, *clock_);
  }
  if (call->dry_run) return call->ReplyStored(200, value, existing.mod_revision, *clock_);
  store::WriteOp op{store::WriteOp::Kind::kUpdate, existing.key, std::move(value),
                    expected_revision, call->deadline};
  store_->Write(std::move(op), [call, clock = clock_, on_conflict = std::move(on_conflict),
                                on_not_found = std::move(on_not_found)](Result<store::KeyValue> r) {
    if (!r.ok()) {
      if (r.status().IsConflict() && on_conflict) return on_conflict();
      if (r.status().IsNotFound() && on_not_found) return on_not_found();
      return call->Fail(StoreError(r.status(), *call->kind, call->info.name));
    }
    call->ReplyStoredLater(200, std::move(*r), clock);
  });
}

// Keeps what the server owns from the stored object; validates the update.
static Status PrepareUpdate(const api::KindInfo& kind, const RequestInfo& info,
                            const json& old_object, json& object) {
  json& meta = object["metadata"];
  std::string name = JsonString(object, "metadata", "name");
  if (name != info.name) {
    return Status::BadRequest("the name of the object (" + name +
                              ") does not match the name on the URL (" + info.name + ")");
  }
  if (Status s = ClaimNamespace(kind, info, object); !s.ok()) return s;
  const json& old_meta = old_object["metadata"];
  for (const char* owned : {"uid", "creationTimestamp"}) {
    if (old_meta.contains(owned)) meta[owned] = old_meta[owned];
  }
  meta.erase("resourceVersion");
  meta.erase("deletionTimestamp");
  meta.erase("generation");
  ApplyNamespaceLabel(kind, object);
  if (kind.resource == kNamespacesResource && !object.contains("status")) {
    object["status"] = old_object.value("status", json::object());
  }
  return WithDetails(api::ValidateUpdate(kind, object, old_object), kind, name);
}

void ResourceApi::Update(std::shared_ptr<Call> call, bool use_known) {
  auto body = DecodeBody(call->request);
  if (!body.ok()) return call->Fail(body.status());
  api::DecodeOptions options{.strict = call->request.param("fieldValidation") == "Strict"};
  auto object = api::Canonicalize(*call->kind, *body, options);
  if (!object.ok()) return call->Fail(object.status());
  auto rv = ParseResourceVersion(JsonString(*object, "metadata", "resourceVersion"));
  if (!rv.ok()) return call->Fail(rv.status());
  const api::KindInfo& kind = *call->kind;
  const std::string key = StorageKey(kind, call->info.namespace_, call->info.name);
  // The version the client names, when the store knows it without a read (an etcd replica that
  // wrote or watched it). Whatever happened since, the write's compare-and-swap on that version
  // gives the answer a read would have: Conflict, or NotFound (then the update is done again
  // from a read, as a kind created on update creates the object).
  std::optional<store::KeyValue> known;
  if (use_known && *rv != 0 && !call->dry_run) known = store_->KnownValue(key, *rv);
  Result<store::KeyValue> existing =
      known ? Result<store::KeyValue>(std::move(*known)) : store_->GetBefore(key, call->deadline);
  if (!existing.ok()) {
    if (existing.status().IsNotFound() && kind.allow_create_on_update) {
      (*object)["metadata"].erase("resourceVersion");
      if (JsonString(*object, "metadata", "name") != call->info.name) {
        return call->Fail(Status::BadRequest(
            "the name of the object does not match the name on the URL (" + call->info.name + ")"));
      }
      Status s = PrepareCreate(kind, call->info, *store_, call->deadline, *clock_, *object);
      if (!s.ok()) return call->Fail(s);
      return StoreCreate(call, std::move(*object));
    }
    return call->Fail(StoreError(existing.status(), kind, call->info.name));
  }
  if (*rv == 0 && !kind.allow_unconditional_update) {
    Status s(Reason::kInvalid,
             kind.qualified_kind() + " \"" + call->info.name +
                 "\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified "
                 "for an update",
             {{"FieldValueInvalid", "Invalid value: 0x0: must be specified for an update",
               "metadata.resourceVersion"}});
    return call->Fail(WithDetails(s, kind, call->info.name));
  }
  json old_object;
  std::string_view old_meta =
      api::UpdateReadsOnlyOldMetadata(kind) ? StoredMetadata(existing->value) : std::string_view();
  if (!old_meta.empty()) {
    // Hot path (lease renewals): decode only what PrepareUpdate and ValidateUpdate read.
    old_object["metadata"] = json::parse(old_meta);
  } else {
    old_object = json::parse(existing->value);
  }
  Status s = PrepareUpdate(kind, call->info, old_object, *object);
  // Judged against a known version that may no longer be current: decide it from a read.
  if (!s.ok()) return known ? Update(call, /*use_known=*/false) : call->Fail(s);
  std::string value = object->dump();
  // A no-op keeps the resourceVersion only if nothing changed since: decide it from a read.
  if (known && value == existing->value) return Update(call, /*use_known=*/false);
  std::function<void()> on_not_found;
  if (known) {
    on_not_found = [this, call] {
      call->responder->Post([this, call] { Update(call, /*use_known=*/false); });
    };
  }
  // An unconditional update (a kind that allows it, no resourceVersion sent) is still written on
  // the version it was prepared from (server-owned fields such as uid came from it, and a no-op
  // was judged against it); after a concurrent write it is redone on the newer object, as
  // kube-apiserver's GuaranteedUpdate does, for as long as kConflictRetryWindow.
  int64_t expected = *rv;
  std::function<void()> on_conflict;
  if (*rv == 0) {
    expected = existing->mod_revision;
    if (clock_->now() - call->received < kConflictRetryWindow) {
      on_conflict = [this, call] {
        call->responder->Post([this, call] { Update(call, /*use_known=*/false); });
      };
    }
  }
  StoreUpdate(call, std::move(value), std::move(*existing), expected, std::move(on_conflict),
              std::move(on_not_found));
}

void ResourceApi::Patch(std::shared_ptr<Call> call) {
  std::string content_type = call->request.header("content-type");
  auto type = PatchTypeFromContentType(content_type);
  if (!type) return call->Fail(UnsupportedBodyType(content_type, true));
  auto parsed_patch = api::ParseClientJson(call->request.body);
  if (!parsed_patch.ok()) return call->Fail(parsed_patch.status());
  json patch = std::move(*parsed_patch);
  const api::KindInfo& kind = *call->kind;
  auto existing =
      store_->GetBefore(StorageKey(kind, call->info.namespace_, call->info.name), call->deadline);
  if (!existing.ok() && !(existing.status().IsNotFound() && *type == PatchType::kApply)) {
    return call->Fail(StoreError(existing.status(), kind, call->info.name));
  }
  if (*type == PatchType::kApply && call->request.param("fieldManager").empty()) {
    return call->Fail(Status::BadRequest(
        "PATCH, application/apply-patch+yaml requests require fieldManager to be set"));
  }
  api::DecodeOptions options{.strict = call->request.param("fieldValidation") == "Strict"};
  if (!existing.ok()) {
    // Server-side apply of a missing object creates it.
    auto applied = ApplyServerSideApply(nullptr, patch);
    if (!applied.ok()) return call->Fail(applied.status());
    auto object = api::Canonicalize(kind, *applied, options);
    if (!object.ok()) return call->Fail(object.status());
    if (JsonString(*object, "metadata", "name") != call->info.name) {
      return call->Fail(
          Status::BadRequest("the name of the object does not match the name on "
                             "the URL (" +
                             call->info.name + ")"));
    }
    Status s = PrepareCreate(kind, call->info, *store_, call->deadline, *clock_, *object);
    if (!s.ok()) return call->Fail(s);
    return StoreCreate(call, std::move(*object));
  }
  json current = json::parse(existing->value);
  current["metadata"]["resourceVersion"] = std::to_string(existing->mod_revision);
  Result<json> patched = Status::Internal("unreachable");
  switch (*type) {
    case PatchType::kMerge:
      patched = ApplyMergePatch(current, patch);
      break;
    case PatchType::kStrategicMerge:
      patched = ApplyStrategicMergePatch(current, patch);
      break;
    case PatchType::kJson:
      patched = ApplyJsonPatch(current, patch);
      break;
    case PatchType::kApply:
      patched = ApplyServerSideApply(&current, patch);
      break;
  }
  if (!patched.ok()) return call->Fail(WithDetails(patched.status(), kind, call->info.name));
  auto object = api::Canonicalize(kind, *patched, options);
  if (!object.ok()) return call->Fail(object.status());
  // A resourceVersion in the patched object is a precondition, as in kube-apiserver.
  auto rv = ParseResourceVersion(JsonString(*object, "metadata", "resourceVersion"));
  if (!rv.ok()) return call->Fail(rv.status());
  bool precondition = *rv != existing->mod_revision;
  json old_object = json::parse(existing->value);
  Status s = PrepareUpdate(kind, call->info, old_object, *object);
  if (!s.ok()) return call->Fail(s);
  int64_t expected = precondition ? *rv : existing->mod_revision;
  // Without a precondition a concurrent write just means: patch the newer object again, as
  // kube-apiserver's GuaranteedUpdate does without a limit (someone's write wins each round),
  // here for as long as kConflictRetryWindow after the request arrived. On a request thread.
  std::function<void()> retry;
  if (!precondition && clock_->now() - call->received < kConflictRetryWindow) {
    retry = [this, call] { call->responder->Post([this, call] { Patch(call); }); };
  }
  StoreUpdate(call, object->dump(), std::move(*existing), expected, std::move(retry));
}

void ResourceApi::Delete(std::shared_ptr<Call> call) {
  const api::KindInfo& kind = *call->kind;
  int64_t expected = 0;
  std::string expected_uid;
  if (!call->request.body.empty()) {
    auto options = ParseBody(call->request.body);
    if (!options.ok()) return call->Fail(options.status());
    if (auto pre = options->find("preconditions"); pre != options->end() && pre->is_object()) {
      if (auto rv = pre->find("resourceVersion"); rv != pre->end() && rv->is_string()) {
        auto parsed = ParseResourceVersion(rv->get<std::string>());
        if (!parsed.ok()) return call->Fail(parsed.status());
        expected = *parsed;
      }
      if (auto uid = pre->find("uid"); uid != pre->end() && uid->is_string()) {
        expected_uid = uid->get<std::string>();
      }
    }
    if (options->contains("dryRun")) {
      const json& d = (*options)["dryRun"];
      if (d.is_array() && !d.empty()) call->dry_run = true;
    }
  }
  std::string key = StorageKey(kind, call->info.namespace_, call->info.name);
  auto existing = store_->GetBefore(key, call->deadline);
  if (!existing.ok()) return call->Fail(StoreError(existing.status(), kind, call->info.name));
  json old_object = json::parse(existing->value);
  std::string uid = JsonString(old_object, "metadata", "uid");
  if (!expected_uid.empty() && expected_uid != uid) {
    return call->Fail(WithDetails(Status::Conflict("Precondition failed: UID in precondition: " +
                                                   expected_uid + ", UID in object meta: " + uid),
                                  kind, call->info.name));
  }
  if (kind.resource == kNamespacesResource) {
    const std::string& ns = call->info.name;
    if (ns == "default" || ns == "kube-system" || ns == "kube-public") {
      return call->Fail(WithDetails(
          Status(Reason::kForbidden,
                 "namespaces \"" + ns + "\" is forbidden: this namespace may not be deleted"),
          kind, ns));
    }
    if (!call->dry_run) {
      // Namespace deletion removes what it contains (kube does it through the namespace
      // controller, asynchronously; here it is done before the namespace goes).
      for (const api::KindInfo* k : api::AllKinds()) {
        if (!k->namespaced) continue;
        auto contents = store_->List(StoragePrefix(*k, ns));
        if (!contents.ok()) continue;
        for (const auto& kv : contents->items) {
          store_->Write({store::WriteOp::Kind::kDelete, kv.key, "", 0}, [](auto) {});
        }
      }
    }
  }
  Status success;
  success.set_details({.name = call->info.name,
                       .group = std::string(kind.group),
                       .kind = std::string(kind.resource),
                       .uid = uid});
  if (call->dry_run) {
    return call->ReplyObject(200, api::StatusToJsonText(success));
  }
  // Without a precondition kube deletes whatever is there now: an unconditional delete.
  store::WriteOp op{store::WriteOp::Kind::kDelete, key, "", expected, call->deadline};
  store_->Write(std::move(op), [call, success](Result<store::KeyValue> r) {
    if (!r.ok()) return call->Fail(StoreError(r.status(), *call->kind, call->info.name));
    call->ReplyObject(200, api::StatusToJsonText(success));
  });
}

void ResourceApi::DeleteCollection(std::shared_ptr<Call> call) {
  auto filter = ObjectFilter::FromRequest(*call->kind, call->request);
  if (!filter.ok()) return call->Fail(filter.status());
  auto listed = store_->List(StoragePrefix(*call->kind, call->info.namespace_));
  if (!listed.ok()) return call->Fail(listed.status());
  std::vector<const store::KeyValue*> deleted;
  for (const auto& kv : listed->items) {
    if (!filter->Matches(*call->kind, kv.value)) continue;
    if (!call->dry_run) {
      auto r = store_->WriteSync({store::WriteOp::Kind::kDelete, kv.key, "", kv.mod_revision});
      if (!r.ok()) continue;  // changed or gone meanwhile: kube's deletecollection skips it too
    }
    deleted.push_back(&kv);
  }
  call->ReplyObject(200, RenderList(ResponseFormat{}, *call->kind, call->info.version, deleted,
                                    store_->CurrentRevision(), *clock_));
}

Status ResourceApi::EnsureExists(const api::KindInfo& kind, const std::string& object_json) {
  auto body = ParseBody(object_json);
  if (!body.ok()) return body.status();
  auto object = api::Canonicalize(kind, *body, {});
  if (!object.ok()) return object.status();
  std::string name = JsonString(*object, "metadata", "name");
  std::string ns = JsonString(*object, "metadata", "namespace");
  std::string key = StorageKey(kind, ns, name);
  if (store_->Get(key).ok()) return Status::Ok();
  json& meta = (*object)["metadata"];
  meta["uid"] = NewUid();
  meta["creationTimestamp"] = api::FormatTime(clock_->wall_now());
  ApplyCreateDefaults(kind, *object);
  auto r = store_->WriteSync({store::WriteOp::Kind::kCreate, key, object->dump(), 0});
  if (!r.ok() && !r.status().IsAlreadyExists()) return r.status();
  return Status::Ok();
}

}  // namespace tenure::server
