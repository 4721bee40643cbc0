// The reference's split: shuffle all 50,000 reviews with a fixed seed, then
// 35,000 train / 5,000 validation / 10,000 test (fractions 0.7 / 0.1 / 0.2).
// The reference shuffles with pandas (`df.sample(frac=1, random_state=123)`);
// its exact permutation is not reproduced, only the sizes and the method.
#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/base/errors.h"
#include "core/base/portable_random.h"
#include "core/text/text_data.h"

namespace ftb {

Splits split_reference(std::vector<Example> all, uint64_t seed, std::size_t limit) {
  std::mt19937_64 rng(seed);
  portable_shuffle(all, rng);  // the same permutation with every standard library
  if (limit > 0 && limit < all.size()) all.resize(limit);

  // Integer arithmetic so 50,000 gives exactly 35,000 / 5,000 / 10,000 and
  // smaller inputs are split in proportion (test takes the rounding remainder).
  const std::size_t n = all.size();
  const std::size_t n_train = n * 7 / 10, n_val = n / 10;
  Splits s;
  auto take = [&](std::size_t from, std::size_t to) {
    return std::vector<Example>(std::make_move_iterator(all.begin() + from),
                                std::make_move_iterator(all.begin() + to));
  };
  s.train = take(0, n_train);
  s.val = take(n_train, n_train + n_val);
  s.test = take(n_train + n_val, n);
  return s;
}

bool is_split_folder(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const char* name : {"train.csv", "val.csv", "test.csv"})
    if (!fs::is_regular_file(fs::path(path) / name, ec)) return false;
  return true;
}

Splits load_split_folder(const std::string& path) {
  if (!is_split_folder(path))
    input_error(path, "not a split folder (needs train.csv, val.csv and test.csv)");
  namespace fs = std::filesystem;
  Splits s;
  s.train = read_csv((fs::path(path) / "train.csv").string());
  s.val = read_csv((fs::path(path) / "val.csv").string());
  s.test = read_csv((fs::path(path) / "test.csv").string());
  return s;
}

}  // namespace ftb
