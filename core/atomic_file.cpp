#include "core/atomic_file.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "core/errors.h"

namespace ftb {

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) input_error(path, "cannot write (folder missing or not writable?)");
    write(out);
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      input_error(path, "write failed (disk full?)");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    input_error(path, "cannot rename the temporary file into place");
  }
}

}  // namespace ftb
