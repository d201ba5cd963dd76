// Decoding of the Kubernetes protobuf envelope ("k8s\0" + runtime.Unknown) into JSON, for the
// request bodies real clients send that way: kubectl's imperative `create namespace` and
// `create configmap` POST protobuf and do not fall back to JSON on 415. Replies stay JSON (the
// clients accept it). Kinds without a decoder here get 415 UnsupportedMediaType.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string_view>

#include "tenure/status.h"

namespace tenure::server {

inline constexpr std::string_view kProtobufContentType = "application/vnd.kubernetes.protobuf";

// The object in `body` as Kubernetes JSON (apiVersion, kind, metadata, ...). BadRequest when the
// envelope or the object is malformed; UnsupportedMediaType for kinds not decoded here.
Result<nlohmann::json> DecodeProtobufObject(std::string_view body);

}  // namespace tenure::server
