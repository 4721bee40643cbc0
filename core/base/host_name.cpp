#include "core/base/host_name.h"

#include <unistd.h>

namespace ftb {

std::string host_name() {
  char buf[256] = {};  // HOST_NAME_MAX is 64 on Linux; NUL-terminated below
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "unknown";
  return buf;
}

}  // namespace ftb
