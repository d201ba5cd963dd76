// Decoding of the Kubernetes protobuf envelope ("k8s\0" + runtime.Unknown) into JSON, for the
// request bodies real clients send that way: kubectl's imperative `create namespace` and
// `create configmap` POST protobuf and do not fall back to JSON on 415. Replies stay JSON (the
// clients accept it). The object is read by its kind's description: each wire field goes, by its
// number, to the described field of that number (FieldDescription::proto). A kind whose
// description numbers no field gets 415 UnsupportedMediaType.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string_view>

#include "api/description.h"
#include "tenure/status.h"

namespace tenure::server {

inline constexpr std::string_view kProtobufContentType = "application/vnd.kubernetes.protobuf";

// The object in `body` as Kubernetes JSON (apiVersion, kind, metadata, ...). BadRequest when the
// envelope or the object is malformed or holds a string that is not UTF-8; UnsupportedMediaType
// for kinds that take no protobuf.
Result<nlohmann::json> DecodeProtobufObject(std::string_view body);

// One protobuf message read into JSON by `description`: the numbered fields of types string,
// bool, int32, int64, string map, bytes map (base64 in JSON), string list and object. Empty
// strings and empty objects are left out (protobuf does not tell them from absent ones); fields
// of no number, of another type or of another wire type are skipped. BadRequest when the message
// is malformed.
Result<nlohmann::json> DecodeProtobufMessage(const api::ObjectDescription& description,
                                             std::string_view message);

}  // namespace tenure::server
