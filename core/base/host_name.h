// This machine's host name, as `hostname` prints it: the environment record's
// "host" and each rank's entry in a distributed row's hosts.
#pragma once

#include <string>

namespace ftb {

// gethostname(2); "unknown" when it fails or gives an empty name.
std::string host_name();

}  // namespace ftb
