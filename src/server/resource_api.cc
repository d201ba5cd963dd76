// ResourceApi: the REST verbs of every served kind over the Store, as kube-apiserver serves them.
#include "server/resource_api.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "api/client_json.h"
#include "api/go_duration.h"
#include "api/json_text.h"
#include "api/resource_version.h"
#include "api/status_object.h"
#include "api/validation.h"
#include "server/before_write.h"
#include "server/continue_token.h"
#include "server/field_manager.h"
#include "server/kind_strategy.h"
#include "server/list_page.h"
#include "server/object_meta.h"
#include "server/object_text.h"
#include "server/patch.h"
#include "server/query_options.h"
#include "server/request_body.h"
#include "server/resource_errors.h"
#include "server/response_format.h"
#include "server/routes.h"
#include "server/selectors.h"
#include "server/storage_key.h"
#include "server/warnings.h"
#include "server/watch_session.h"
#include "server/yaml_json.h"

namespace tenure::server {

using nlohmann::json;

namespace {

// A client timeout at least this long is no shorter than the server's own request timeout (60 s
// by default, 504 from the HTTP server), and would not fit in a time point: no deadline.
constexpr auto kLongestClientTimeout = std::chrono::hours(24);
// The longest watch timeoutSeconds taken as asked.
constexpr int64_t kLongestWatch = 24 * 3600;

// A request's resourceVersion: "" is none (0), else digits only up to 9223372036854775799 (store
// revisions are int64; this bound, a digit short of INT64_MAX, is the one the server always had).
Result<int64_t> ParseResourceVersion(const std::string& text) {
  if (text.empty()) return int64_t{0};
  auto value = api::ParseResourceVersion(text);
  if (!value || *value > uint64_t{INT64_MAX} / 10 * 10 - 1) {
    return Status::BadRequest("invalid resource version: \"" + text + "\"");
  }
  return static_cast<int64_t>(*value);
}

// The resourceVersion of a list, with kube's ValidateListOptions message for a bad one:
// `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing
// "abc": invalid syntax`.
Result<int64_t> ListResourceVersion(const std::string& text) {
  auto rv = ParseResourceVersion(text);
  if (rv.ok()) return rv;
  bool digits = !text.empty();
  for (char ch : text) digits = digits && ch >= '0' && ch <= '9';
  return Status::BadRequest("invalid resource version: " +
                            api::Invalid("resourceVersion", text,
                                         "strconv.ParseUint: parsing " + api::GoQuote(text) + ": " +
                                             (digits ? "value out of range" : "invalid syntax"))
                                .ToString());
}

}  // namespace

struct ResourceApi::Call {
  Clock::TimePoint received;
  // When the client stops waiting (its `?timeout=`): the store gives up then, and shares what is
  // left among the members it may try (a hung etcd member must not take all of it).
  store::Deadline deadline = store::kNoDeadline;
  RequestInfo info;
  const api::KindInfo* kind = nullptr;
  const KindStrategy* strategy = nullptr;
  HttpRequest request;
  std::shared_ptr<Responder> responder;
  ResponseFormat format;
  bool dry_run = false;
  // The manager of the write (its fieldManager, else the User-Agent's first word) and an apply's
  // ?force.
  std::string field_manager;
  bool force = false;
  // fieldValidation Warn (or unset): the unknown fields of the objects decoded, sent back as
  // Warning headers with the answer.
  bool warn_unknown_fields = false;
  std::vector<std::string> unknown_fields;
  std::vector<std::string> warnings;  // sent with any answer, before the unknown fields
  WriteAdmission admit;
  // A read of a version the store had not reached has waited for it once (RevisionWaiter).
  bool waited = false;

  WriteContext write_context(store::Store& store, const Clock& clock) const {
    return {info, store, deadline, clock, &admit};
  }
  // The managedFields of this request's writes.
  FieldManager field_manager_of(const Clock& clock) const {
    return FieldManager(*kind, info.version, info.subresource,
                        strategy->ResetFields(info.subresource), clock);
  }
  // The field manager's name (kube's managerOrUserAgent).
  std::string manager() const {
    return ManagerOrUserAgent(field_manager, request.header("user-agent"));
  }
  // For the one decode of an attempt: an update or patch tried again reports its fields anew.
  api::DecodeOptions decode_options() {
    api::DecodeOptions options = DecodeOptionsOf(request);
    unknown_fields.clear();
    if (warn_unknown_fields) options.unknown_fields = &unknown_fields;
    return options;
  }
  // Every warning of the answer: the request's, then the unknown fields.
  std::vector<std::pair<std::string, std::string>> warning_headers() const {
    if (warnings.empty() && unknown_fields.empty()) return {};
    std::vector<std::string> texts = warnings;
    for (std::string& w : UnknownFieldWarnings(unknown_fields)) texts.push_back(std::move(w));
    return WarningHeaders(texts);
  }
  void Reply(HttpResponse r) {
    for (auto& header : warning_headers()) r.headers.push_back(std::move(header));
    responder->Reply(std::move(r));
  }
  void Fail(const Status& status) { Reply(ErrorResponse(status)); }
  // Fail for an update attempt: the attempt ends the request.
  UpdateStep FailStep(const Status& status) {
    Fail(status);
    return UpdateStep::Answered();
  }
  void ReplyObject(int code, std::string body) {
    HttpResponse r;
    r.status = code;
    r.body = std::move(body);
    Reply(std::move(r));
  }
  // Replies with one stored object in the representation the client asked for.
  void ReplyStored(int code, const std::string& stored, int64_t revision, Clock& clock) {
    ReplyObject(code, RenderObject(format, *kind, info.version, stored, revision, clock));
  }
  // ReplyStored for a store callback: the reply is rendered on the connection's thread, not on
  // the store's writer. Captures no Call (the responder holds the closure: no cycle).
  void ReplyStoredLater(int code, store::KeyValue kv, std::shared_ptr<Clock> clock) {
    responder->ReplyWith([code, kv = std::move(kv), clock = std::move(clock), format = format,
                          kind = kind, version = info.version, warnings = warning_headers()] {
      HttpResponse r;
      r.status = code;
      r.body = RenderObject(format, *kind, version, kv.value, kv.mod_revision, *clock);
      r.headers = warnings;
      return r;
    });
  }
};

ResourceApi::ResourceApi(std::shared_ptr<store::Store> store, std::shared_ptr<Clock> clock,
                         std::shared_ptr<RequestMetrics> metrics)
    : store_(std::move(store)),
      clock_(std::move(clock)),
      metrics_(std::move(metrics)),
      waiter_(store_, clock_) {}

void ResourceApi::Handle(const RequestInfo& info, const api::KindInfo& kind, HttpRequest request,
                         std::shared_ptr<Responder> responder, WriteAdmission admit,
                         std::vector<std::string> warnings) {
  auto call = std::make_shared<Call>();
  call->admit = std::move(admit);
  call->warnings = std::move(warnings);
  call->received = clock_->now();
  call->info = info;
  call->kind = &kind;
  call->strategy = &StrategyFor(kind);
  call->request = std::move(request);
  call->responder = std::move(responder);
  // Routing comes first, as in kube-apiserver: a verb the kind does not declare reaches no
  // handler.
  if (Status routed = CheckRoute(kind, info, call->request.method); !routed.ok()) {
    return call->Fail(routed);
  }
  // As kube's PatchResource: an unsupported patch type (415) before the response format (406)
  // and the options (422).
  const std::string content_type = call->request.header("content-type");
  const auto patch_type = PatchTypeFromContentType(content_type);
  if (info.verb == Verb::kPatch && !patch_type) {
    return call->Fail(UnsupportedBodyType(content_type, true));
  }
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
      // The server's 504 at that time too, on a connection the client keeps (kube-apiserver's
      // timeout filter): a request waiting in a queue does not make the client drop it.
      call->responder->AnswerBy(call->deadline);
    }
  }
  if (!IsReadOnly(*info.verb)) {
    const bool apply = patch_type == std::optional<PatchType>(PatchType::kApply);
    auto write = ParseWriteQuery(call->request, *info.verb, apply);
    if (!write.ok()) return call->Fail(write.status());
    call->dry_run = write->dry_run;
    call->field_manager = write->field_manager;
    call->force = write->force;
    call->warn_unknown_fields =
        write->field_validation.empty() || write->field_validation == "Warn";
  }
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
  call->Fail(MethodNotAllowed());
}

void ResourceApi::Get(std::shared_ptr<Call> call) {
  auto kv = store_->GetBefore(StorageKey(*call->kind, call->info.namespace_, call->info.name),
                              call->deadline);
  if (!kv.ok()) return call->Fail(StoreError(kv.status(), *call->kind, call->info.name));
  call->ReplyStored(200, kv->value, kv->mod_revision, *clock_);
}

void ResourceApi::List(std::shared_ptr<Call> call) {
  // Selectors are read while the options are converted (400), before the options are
  // validated (422).
  auto filter = ObjectFilter::FromRequest(*call->kind, call->request);
  if (!filter.ok()) return call->Fail(filter.status());
  auto query = ParseListQuery(call->request, /*watch=*/false);
  if (!query.ok()) return call->Fail(query.status());
  const std::string rv_text = call->request.param("resourceVersion");
  auto rv = ListResourceVersion(rv_text);
  if (!rv.ok()) return call->Fail(rv.status());
  const std::string prefix = StoragePrefix(*call->kind, call->info.namespace_);
  const ListRead read = ListReadOf(*query, *rv);

  store::ListOptions options;
  const std::string continue_text = call->request.param("continue");
  if (!continue_text.empty()) {
    auto token = DecodeContinue(continue_text, prefix);
    if (!token.ok()) return call->Fail(token.status());
    if (*rv != 0) {
      return call->Fail(
          Status::BadRequest("specifying resource version is not allowed when using continue"));
    }
    options.revision = std::max<int64_t>(token->revision, 0);  // -1: at the latest revision
    options.start_key = std::move(token->start_key);
  } else if (read == ListRead::kExact) {
    options.revision = *rv;
  }
  // resourceVersion "0" is served whole, as kube-apiserver's watch cache does (limit ignored).
  const int64_t limit =
      (continue_text.empty() && !rv_text.empty() && *rv == 0) ? 0 : query->limit.value_or(0);
  auto page =
      ReadListPage(*store_, *call->kind, prefix, *filter, options, std::max<int64_t>(limit, 0));
  if (!page.ok()) {
    if (page.status().IsGone()) {
      return call->Fail(
          !continue_text.empty()
              ? ExpiredContinue(prefix, options.start_key)
              : Status::Gone("The resourceVersion for the provided list is too old."));
    }
    return call->Fail(page.status());
  }
  // A version the store has not reached: as kube-apiserver's watch cache, wait up to 3 s for
  // it, then 504 with Retry-After.
  if (read != ListRead::kCurrent && continue_text.empty() && *rv > page->revision) {
    if (!call->waited) {
      call->waited = true;
      return waiter_.Wait(*rv, clock_->now() + RevisionWaiter::kWait, [this, call](bool) {
        call->responder->Post([this, call] { List(call); });
      });
    }
    Status too_large = TooLargeResourceVersion(*rv, page->revision);
    too_large.set_details({.retry_after_seconds = 1});
    return call->Fail(too_large);
  }
  std::vector<const store::KeyValue*> items;
  items.reserve(page->items.size());
  for (const auto& kv : page->items) items.push_back(&kv);
  call->ReplyObject(200, RenderList(call->format, *call->kind, call->info.version, items,
                                    page->revision, *clock_, page->meta));
}

void ResourceApi::Watch(std::shared_ptr<Call> call) {
  auto filter = ObjectFilter::FromRequest(*call->kind, call->request);
  if (!filter.ok()) return call->Fail(filter.status());
  auto query = ParseListQuery(call->request, /*watch=*/true);
  if (!query.ok()) return call->Fail(query.status());
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
  options.metrics = metrics_;
  // sendInitialEvents (watch-list) says whether the current state comes first; without it, a
  // watch from "" or "0" starts with it (the legacy form).
  options.send_initial_state = query->send_initial_events.value_or(rv_text.empty() || *rv == 0);
  options.initial_events_end_bookmark =
      query->send_initial_events.value_or(false) && query->allow_watch_bookmarks;
  options.from_revision = *rv;
  options.bookmarks = query->allow_watch_bookmarks;
  // As kube's handleWatch: 0 is the server's own timeout; a negative one ends the watch at once.
  // Longer than a day is a day (a deadline past the clock's range would wrap).
  if (const auto seconds = query->timeout_seconds; seconds && *seconds != 0) {
    options.timeout = std::chrono::seconds(std::clamp<int64_t>(*seconds, 0, kLongestWatch));
  }
  // Watch-list from a version the store has not reached: wait for it as a list does; StartWatch
  // then answers with the 504 ERROR event if it did not come.
  if (options.send_initial_state && options.from_revision > 0 && !call->waited &&
      options.from_revision > store_->CurrentRevision()) {
    call->waited = true;
    return waiter_.Wait(
        options.from_revision, clock_->now() + RevisionWaiter::kWait,
        [this, call](bool) { call->responder->Post([this, call] { Watch(call); }); });
  }
  StartWatch(store_, clock_, std::move(options), call->responder);
}

void ResourceApi::CreateObject(const std::shared_ptr<Call>& call, json object) {
  Status s = BeforeCreate(*call->strategy, call->write_context(*store_, *clock_), object);
  if (!s.ok()) return call->Fail(s);
  std::string name = object["metadata"]["name"].get<std::string>();
  std::string value = StoredValue(*call->kind, object);
  const std::string key = StorageKey(*call->kind, call->info.namespace_, name);
  if (call->dry_run) {
    // As kube's dry-run storage: AlreadyExists if the key is taken; otherwise never stored, so
    // no resourceVersion (kube leaves it empty).
    auto existing = store_->GetBefore(key, call->deadline);
    if (existing.ok()) return call->Fail(StoreError(Status::AlreadyExists(""), *call->kind, name));
    if (!existing.status().IsNotFound()) {
      return call->Fail(StoreError(existing.status(), *call->kind, name));
    }
    return call->ReplyStored(201, value, 0, *clock_);
  }
  store::WriteOp op{store::WriteOp::Kind::kCreate, key, value, 0, call->deadline};
  store_->Write(std::move(op), [call, name, clock = clock_](Result<store::KeyValue> r) {
    if (!r.ok()) return call->Fail(StoreError(r.status(), *call->kind, name));
    call->ReplyStoredLater(201, std::move(*r), clock);
  });
}

Result<json> ResourceApi::DecodedObject(Call& call) {
  auto body = DecodeBody(call.request);
  if (!body.ok()) return body.status();
  return api::Canonicalize(*call.kind, *body, call.decode_options());
}

void ResourceApi::Create(std::shared_ptr<Call> call) {
  auto object = DecodedObject(*call);
  if (!object.ok()) return call->Fail(object.status());
  RecordCreate(*call, *object);
  CreateObject(call, std::move(*object));
}

void ResourceApi::RecordCreate(const Call& call, json& object) const {
  // Defaults first, as kube applies them while decoding: the writer owns them.
  call.strategy->Default(object);
  FieldManager manager = call.field_manager_of(*clock_);
  manager.Update(manager.EmptyObject(), object, call.manager());
}

void ResourceApi::RunUpdate(const std::shared_ptr<Call>& call,
                            std::function<UpdateStep(bool first)> attempt) {
  GuaranteedUpdate({.store = store_.get(),
                    .clock = clock_,
                    .received = call->received,
                    .responder = call->responder,
                    .attempt = std::move(attempt),
                    .written = [call, clock = clock_](Result<store::KeyValue> r) {
                      if (!r.ok()) {
                        return call->Fail(StoreError(r.status(), *call->kind, call->info.name));
                      }
                      call->ReplyStoredLater(200, std::move(*r), clock);
                    }});
}

UpdateStep ResourceApi::WriteStep(Call& call, std::string value, store::KeyValue existing,
                                  int64_t expected_revision, bool again_on_conflict,
                                  bool again_on_not_found) {
  if (value == existing.value) {
    // A no-op write keeps the resourceVersion (kubectl prints "unchanged" / "no change").
    if (expected_revision != 0 && expected_revision != existing.mod_revision) {
      call.Fail(ConflictError(*call.kind, call.info.name));
    } else {
      call.ReplyStored(200, existing.value, existing.mod_revision, *clock_);
    }
    return UpdateStep::Answered();
  }
  if (call.dry_run) {
    call.ReplyStored(200, value, existing.mod_revision, *clock_);
    return UpdateStep::Answered();
  }
  return UpdateStep::Write({store::WriteOp::Kind::kUpdate, existing.key, std::move(value),
                            expected_revision, call.deadline},
                           again_on_conflict, again_on_not_found);
}

void ResourceApi::Update(std::shared_ptr<Call> call) {
  auto object = DecodedObject(*call);
  if (!object.ok()) return call->Fail(object.status());
  auto rv = ParseResourceVersion(MetadataString(*object, "resourceVersion"));
  if (!rv.ok()) return call->Fail(rv.status());
  RunUpdate(call, [this, call, body = std::optional<json>(std::move(*object)),
                   rv = *rv](bool first) mutable { return UpdateAttempt(call, body, rv, first); });
}

UpdateStep ResourceApi::UpdateAttempt(const std::shared_ptr<Call>& call, std::optional<json>& body,
                                      int64_t rv, bool first) {
  const KindStrategy& strategy = *call->strategy;
  const api::KindInfo& kind = *call->kind;
  const std::string key = StorageKey(kind, call->info.namespace_, call->info.name);
  // The version the client names, when the store knows it without a read (an etcd replica that
  // wrote or watched it). Whatever happened since, the write's compare-and-swap on that version
  // gives the answer a read would have: Conflict, or NotFound (then the update is done again
  // from a read, as a kind created on update creates the object).
  std::optional<store::KeyValue> known;
  if (first && rv != 0 && !call->dry_run) known = store_->KnownValue(key, rv);
  // The first attempt may run on the connection's thread (admission.h): a read that blocks is
  // done by the next attempt, posted off it.
  if (first && !known && store_->ReadsBlock()) return UpdateStep::ReadAgain();
  Result<store::KeyValue> existing =
      known ? Result<store::KeyValue>(std::move(*known)) : store_->GetBefore(key, call->deadline);
  json object;
  if (body) {
    object = std::move(*body);
    body.reset();
  } else {
    auto again = DecodedObject(*call);
    if (!again.ok()) return call->FailStep(again.status());
    object = std::move(*again);
  }
  if (!existing.ok()) {
    if (!existing.status().IsNotFound() || !strategy.AllowCreateOnUpdate()) {
      return call->FailStep(StoreError(existing.status(), kind, call->info.name));
    }
    object["metadata"].erase("resourceVersion");
    if (Status s = CheckNameIsTheUrls(call->info, object); !s.ok()) return call->FailStep(s);
    RecordCreate(*call, object);
    CreateObject(call, std::move(object));
    return UpdateStep::Answered();
  }
  if (rv == 0 && !strategy.AllowUnconditionalUpdate()) {
    Status s(Reason::kInvalid,
             kind.qualified_kind() + " \"" + call->info.name +
                 "\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified "
                 "for an update",
             {{"FieldValueInvalid", "Invalid value: 0x0: must be specified for an update",
               "metadata.resourceVersion"}});
    return call->FailStep(WithDetails(s, kind, call->info.name));
  }
  json old_object;
  std::string_view old_meta =
      strategy.UpdateReadsOnlyOldMetadata() ? StoredMetadata(existing->value) : std::string_view();
  if (!old_meta.empty() && old_meta.find("\"managedFields\":") == std::string_view::npos &&
      !object["metadata"].contains("managedFields")) {
    // Hot path (updates of objects no manager is recorded on): decode only what BeforeUpdate
    // and the field manager read.
    old_object["metadata"] = api::ParseJsonOrThrow(old_meta);
  } else {
    old_object = ServedObject(kind, existing->value);
  }
  {
    strategy.Default(object);  // as kube's decoding: before the field manager
    FieldManager manager = call->field_manager_of(*clock_);
    manager.Update(old_object, object, call->manager());
    KeepManagedFieldsTimesOfNoOp(old_object, object);
  }
  Status s = BeforeUpdate(strategy, call->write_context(*store_, *clock_), old_object, object);
  // Judged against a known version that may no longer be current: decide it from a read.
  if (!s.ok()) return known ? UpdateStep::ReadAgain() : call->FailStep(s);
  std::string value = StoredValue(kind, object);
  // A no-op keeps the resourceVersion only if nothing changed since: decide it from a read.
  if (known && value == existing->value) return UpdateStep::ReadAgain();
  // An unconditional update (a kind that allows it, no resourceVersion sent) is still written on
  // the version it was prepared from (server-owned fields such as uid came from it, and a no-op
  // was judged against it); after a concurrent write it is redone on the newer object, as
  // kube-apiserver's GuaranteedUpdate does. A write on a known version that finds nothing is
  // redone from a read.
  int64_t expected = rv != 0 ? rv : existing->mod_revision;
  return WriteStep(*call, std::move(value), std::move(*existing), expected,
                   /*again_on_conflict=*/rv == 0, /*again_on_not_found=*/known.has_value());
}

void ResourceApi::Patch(std::shared_ptr<Call> call) {
  std::string content_type = call->request.header("content-type");
  auto type = PatchTypeFromContentType(content_type);
  if (!type) return call->Fail(UnsupportedBodyType(content_type, true));
  auto patch = api::ParseClientJson(call->request.body);
  const size_t first = call->request.body.find_first_not_of(" \t\r\n");
  const bool json_text = first != std::string::npos &&
                         (call->request.body[first] == '{' || call->request.body[first] == '[');
  if (!patch.ok() && *type == PatchType::kApply && !json_text) {
    // An apply body may be YAML (a JSON one is read as JSON, with its nesting limit): read
    // with limits on depth and aliases.
    patch = YamlToJson(call->request.body);
    if (!patch.ok()) {
      // kube: its handler's prefix, then sigs.k8s.io/yaml's.
      return call->Fail(Status::BadRequest("error decoding YAML: error converting YAML to JSON: " +
                                           patch.status().message()));
    }
  }
  if (!patch.ok()) return call->Fail(patch.status());
  RunUpdate(call, [this, call, type = *type, patch = std::move(*patch)](bool) {
    return PatchAttempt(call, type, patch);
  });
}

UpdateStep ResourceApi::PatchAttempt(const std::shared_ptr<Call>& call, PatchType type,
                                     const json& patch) {
  const api::KindInfo& kind = *call->kind;
  auto existing =
      store_->GetBefore(StorageKey(kind, call->info.namespace_, call->info.name), call->deadline);
  if (!existing.ok() && !(existing.status().IsNotFound() && type == PatchType::kApply)) {
    return call->FailStep(StoreError(existing.status(), kind, call->info.name));
  }
  api::DecodeOptions options = call->decode_options();
  FieldManager manager = call->field_manager_of(*clock_);
  if (!existing.ok()) {
    // Server-side apply of a missing object creates it.
    auto applied = manager.Apply(manager.EmptyObject(), patch, call->field_manager, call->force);
    if (!applied.ok()) return call->FailStep(applied.status());  // kube: without details
    auto object = api::Canonicalize(kind, *applied, options);
    if (!object.ok()) return call->FailStep(object.status());
    if (Status s = CheckNameIsTheUrls(call->info, *object); !s.ok()) return call->FailStep(s);
    CreateObject(call, std::move(*object));
    return UpdateStep::Answered();
  }
  json current = ServedObject(kind, existing->value);
  current["metadata"]["resourceVersion"] = std::to_string(existing->mod_revision);
  Result<json> patched = Status::Internal("unreachable");
  switch (type) {
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
      patched = manager.Apply(current, patch, call->field_manager, call->force);
      break;
  }
  if (!patched.ok()) {
    // An apply's errors (conflicts included) carry no details, as kube's.
    return call->FailStep(type == PatchType::kApply
                              ? patched.status()
                              : WithDetails(patched.status(), kind, call->info.name));
  }
  auto object = api::Canonicalize(kind, *patched, options);
  if (!object.ok()) return call->FailStep(object.status());
  if (type != PatchType::kApply) {
    call->strategy->Default(*object);  // as kube's decoding of the patched object
    manager.Update(current, *object, call->manager());
  }
  KeepManagedFieldsTimesOfNoOp(current, *object);
  // A resourceVersion in the patched object is a precondition, as in kube-apiserver.
  auto rv = ParseResourceVersion(MetadataString(*object, "resourceVersion"));
  if (!rv.ok()) return call->FailStep(rv.status());
  bool precondition = *rv != existing->mod_revision;
  json old_object = ServedObject(kind, existing->value);
  Status s =
      BeforeUpdate(*call->strategy, call->write_context(*store_, *clock_), old_object, *object);
  if (!s.ok()) return call->FailStep(s);
  // Without a precondition a concurrent write just means: patch the newer object again.
  int64_t expected = precondition ? *rv : existing->mod_revision;
  return WriteStep(*call, StoredValue(kind, *object), std::move(*existing), expected,
                   /*again_on_conflict=*/!precondition, /*again_on_not_found=*/false);
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
    if (auto p = options->find("propagationPolicy"); p != options->end() && p->is_string()) {
      auto orphan = options->find("orphanDependents");
      api::FieldErrors errs =
          DeleteOptionErrors(p->get<std::string>(), orphan != options->end() && !orphan->is_null());
      if (Status s = api::InvalidStatus("DeleteOptions.meta.k8s.io", "", errs); !s.ok()) {
        return call->Fail(s);
      }
    }
    // With a body, kube reads the DeleteOptions from the body only.
    call->dry_run = false;
    if (options->contains("dryRun")) {
      const json& d = (*options)["dryRun"];
      if (d.is_array() && !d.empty()) call->dry_run = true;
    }
  }
  std::string key = StorageKey(kind, call->info.namespace_, call->info.name);
  auto existing = store_->GetBefore(key, call->deadline);
  if (!existing.ok()) return call->Fail(StoreError(existing.status(), kind, call->info.name));
  json old_object = ServedObject(kind, existing->value);
  std::string uid = MetadataString(old_object, "uid");
  if (!expected_uid.empty() && expected_uid != uid) {
    return call->Fail(WithDetails(Status::Conflict("Precondition failed: UID in precondition: " +
                                                   expected_uid + ", UID in object meta: " + uid),
                                  kind, call->info.name));
  }
  if (Status s = call->strategy->ValidateDelete(call->info.name); !s.ok()) return call->Fail(s);
  auto instead = call->strategy->DeleteInstead(old_object, *clock_);
  if (!instead.ok()) return call->Fail(instead.status());
  if (*instead) {
    // Graceful: the object is marked (a Namespace Terminating) and answered as stored.
    if (expected != 0 && expected != existing->mod_revision) {
      return call->Fail(StoreError(Status::Conflict(""), kind, call->info.name));
    }
    std::string value = StoredValue(kind, **instead);
    if (call->dry_run) return call->ReplyStored(200, value, existing->mod_revision, *clock_);
    store::WriteOp op{store::WriteOp::Kind::kUpdate, key, std::move(value), existing->mod_revision,
                      call->deadline};
    return store_->Write(std::move(op), [this, call](Result<store::KeyValue> r) {
      // Changed meanwhile: decided again on what is there now, as kube's GuaranteedUpdate.
      if (!r.ok() && r.status().IsConflict()) {
        return call->responder->Post([this, call] { Delete(call); });
      }
      if (!r.ok()) return call->Fail(StoreError(r.status(), *call->kind, call->info.name));
      call->ReplyStoredLater(200, std::move(*r), clock_);
    });
  }
  Status success;
  success.set_details({.name = call->info.name,
                       .group = std::string(kind.group),
                       .kind = std::string(kind.resource),
                       .uid = uid});
  if (call->dry_run) {
    // The resourceVersion precondition is checked as the delete itself would (a conflict).
    if (expected != 0 && expected != existing->mod_revision) {
      return call->Fail(StoreError(Status::Conflict(""), kind, call->info.name));
    }
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
  return Reconcile(kind, object_json, nullptr);
}

Status ResourceApi::Reconcile(const api::KindInfo& kind, const std::string& object_json,
                              const Reconciler& reconcile) {
  auto body = ParseBody(object_json);
  if (!body.ok()) return body.status();
  auto object = api::Canonicalize(kind, *body, {});
  if (!object.ok()) return object.status();
  std::string key =
      StorageKey(kind, MetadataString(*object, "namespace"), MetadataString(*object, "name"));
  const KindStrategy& strategy = StrategyFor(kind);
  // The server's own writes are recorded in managedFields as its (kube-apiserver's are).
  const FieldManager manager(kind, kind.versions.front(), "", strategy.ResetFields(""), *clock_);
  constexpr std::string_view kServer = "tenure";
  // A write that races another (a client's) is tried again on what that one left.
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto stored = store_->Get(key);
    if (stored.ok()) {
      if (!reconcile) return Status::Ok();
      json current = json::parse(stored->value, nullptr, false);
      if (current.is_discarded()) return Status::Internal("stored object " + key + " is corrupt");
      const json before = current;
      if (!reconcile(current, *object)) return Status::Ok();
      strategy.Default(current);
      manager.Update(before, current, kServer);
      auto r = store_->WriteSync(
          {store::WriteOp::Kind::kUpdate, key, current.dump(), stored->mod_revision});
      if (r.ok()) return Status::Ok();
      if (!r.status().IsConflict() && !r.status().IsNotFound()) return r.status();
      continue;
    }
    if (!stored.status().IsNotFound()) return stored.status();
    json created = *object;
    strategy.Default(created);
    manager.Update(manager.EmptyObject(), created, kServer);
    FillSystemFields(created, *clock_);
    strategy.PrepareForCreate(created);
    auto r = store_->WriteSync({store::WriteOp::Kind::kCreate, key, created.dump(), 0});
    if (r.ok()) return Status::Ok();
    if (!r.status().IsAlreadyExists()) return r.status();
  }
  return Status::Conflict("could not reconcile " + key + ": it keeps changing");
}

}  // namespace tenure::server
