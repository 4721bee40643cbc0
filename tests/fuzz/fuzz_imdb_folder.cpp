// The folder readers behind read_examples: an extracted aclImdb/ folder (or
// its parent) and a train.csv/val.csv/test.csv split folder. The input is a
// list of files, "relative/path\0contents\0" repeated; paths are kept inside
// the scratch folder (no "..", no leading "/") and limited to 8 levels.
#include <cstdlib>
#include <sstream>
#include <vector>

#include "core/base/files.h"
#include "core/text/text_data.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

// "" when the path cannot stay inside the folder.
std::string safe_relative_path(std::string_view raw) {
  std::string out;
  int depth = 0;
  std::stringstream ss{std::string(raw)};
  for (std::string part; std::getline(ss, part, '/');) {
    if (part.empty() || part == "." || part == "..") continue;
    if (++depth > 8) return "";
    out += (out.empty() ? "" : "/") + part;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string root = ftb::fuzz::scratch_dir() + "/folder";
  ftb::remove_tree(root);
  ftb::make_directories(root);
  std::string_view rest = ftb::fuzz::as_view(data, size);
  for (int files = 0; !rest.empty() && files < 64; ++files) {
    const std::size_t a = rest.find('\0');
    const std::string rel = safe_relative_path(rest.substr(0, a));
    rest = a == std::string_view::npos ? std::string_view() : rest.substr(a + 1);
    const std::size_t b = rest.find('\0');
    const std::string_view contents = rest.substr(0, b);
    rest = b == std::string_view::npos ? std::string_view() : rest.substr(b + 1);
    if (rel.empty()) continue;
    const std::string path = root + "/" + rel;
    // A path below a name that is already a file, or a folder's name again:
    // not a layout a reader can meet, skipped.
    if (!ftb::fuzz::accepts([&] { ftb::make_directories(path.substr(0, path.rfind('/'))); })) continue;
    std::ofstream(path, std::ios::binary).write(contents.data(), static_cast<std::streamsize>(contents.size()));
  }
  ftb::fuzz::accepts([&] {
    for (const auto& e : ftb::read_examples(root))
      if (e.label != 0 && e.label != 1) std::abort();
  });
  return 0;
}
