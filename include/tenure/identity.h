// A candidate identity unique per process: "<hostname>_<16 random hex digits>", the shape
// client-go users build from the hostname and a UUID ("tenure" when the hostname is unknown).
#pragma once

#include <string>

namespace tenure {

std::string UniqueIdentity();

}  // namespace tenure
