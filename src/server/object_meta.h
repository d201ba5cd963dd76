// The object metadata the server reads and the fields it owns (kube-apiserver's
// FillObjectMetaSystemFields): a new object's uid and creationTimestamp, a generated name.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "tenure/clock.h"

namespace tenure::server {

// metadata.<field> of an object when it is a string, else "".
std::string MetadataString(const nlohmann::json& object, const char* field);

// Sets a new object's metadata.uid (a random UUID) and metadata.creationTimestamp (now).
// A random (version 4) UUID: an object's uid.
std::string NewUid();

void FillSystemFields(nlohmann::json& object, const Clock& clock);

// metadata.generateName followed by five random characters, as kube's names.SimpleNameGenerator.
std::string GeneratedName(const std::string& generate_name);

}  // namespace tenure::server
