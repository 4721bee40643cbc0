// The reference's shuffle-and-split: exact sizes, proportions, determinism,
// disjointness, and the train.csv/val.csv/test.csv folder round-trip.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/text/text_data.h"
#include "tests/data_fixtures.h"

namespace {

// Example i has text "r<i>", so every example is identifiable.
std::vector<ftb::Example> numbered(std::size_t n) {
  std::vector<ftb::Example> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back({"r" + std::to_string(i), int(i % 2)});
  return v;
}

std::vector<std::string> texts(const std::vector<ftb::Example>& v) {
  std::vector<std::string> t;
  for (const auto& e : v) t.push_back(e.text);
  return t;
}

}  // namespace

TEST_CASE("split: 50,000 reviews give exactly 35,000 / 5,000 / 10,000, disjoint and covering") {
  const ftb::Splits s = ftb::split_reference(numbered(50000), 123);
  CHECK(s.train.size() == 35000);
  CHECK(s.val.size() == 5000);
  CHECK(s.test.size() == 10000);
  std::set<std::string> seen;
  for (const auto* part : {&s.train, &s.val, &s.test})
    for (const auto& e : *part) seen.insert(e.text);
  CHECK(seen.size() == 50000);  // no example lost or duplicated
  // Shuffled: the first training examples are not the first inputs.
  int in_place = 0;
  for (int i = 0; i < 100; ++i) in_place += s.train[i].text == "r" + std::to_string(i);
  CHECK(in_place < 5);
}

TEST_CASE("split: smaller inputs and limit split in proportion") {
  auto sizes = [](const ftb::Splits& s) {
    return std::vector<std::size_t>{s.train.size(), s.val.size(), s.test.size()};
  };
  CHECK(sizes(ftb::split_reference(numbered(1000), 1)) == std::vector<std::size_t>{700, 100, 200});
  CHECK(sizes(ftb::split_reference(numbered(24904), 1)) ==
        std::vector<std::size_t>{17432, 2490, 4982});
  CHECK(sizes(ftb::split_reference(numbered(7), 1)) == std::vector<std::size_t>{4, 0, 3});
  CHECK(sizes(ftb::split_reference(numbered(0), 1)) == std::vector<std::size_t>{0, 0, 0});
  // limit keeps the first `limit` shuffled examples, then splits those.
  const ftb::Splits full = ftb::split_reference(numbered(5000), 9);
  const ftb::Splits lim = ftb::split_reference(numbered(5000), 9, 1000);
  CHECK(sizes(lim) == std::vector<std::size_t>{700, 100, 200});
  const std::vector<std::string> full_train = texts(full.train);
  CHECK(texts(lim.train) == std::vector<std::string>(full_train.begin(), full_train.begin() + 700));
  // A limit above the input size changes nothing.
  CHECK(texts(ftb::split_reference(numbered(100), 9, 1000).test) ==
        texts(ftb::split_reference(numbered(100), 9).test));
}

TEST_CASE("split: deterministic for a seed, different across seeds") {
  const auto a = ftb::split_reference(numbered(2000), 123);
  const auto b = ftb::split_reference(numbered(2000), 123);
  const auto c = ftb::split_reference(numbered(2000), 124);
  CHECK(texts(a.train) == texts(b.train));
  CHECK(texts(a.val) == texts(b.val));
  CHECK(texts(a.test) == texts(b.test));
  CHECK(texts(a.train) != texts(c.train));
  // Pinned: the permutation is ours (mt19937_64 + rejection sampling), the
  // same with every standard library; a change here changes every split.
  const auto small = ftb::split_reference(numbered(10), 123);
  std::string order;
  for (const auto* part : {&small.train, &small.val, &small.test})
    for (const auto& e : *part) order += e.text + " ";
  MESSAGE("split of 10 with seed 123: " << order);
  CHECK(order == "r9 r2 r1 r7 r8 r6 r0 r5 r3 r4 ");
}

TEST_CASE("split: a folder of train/val/test CSVs round-trips") {
  ftb_test::TempDir dir("split");
  const std::string root = dir.path.string();
  CHECK_FALSE(ftb::is_split_folder(root));
  const ftb::Splits s = ftb::split_reference(numbered(50), 5);
  ftb::write_csv(root + "/train.csv", s.train);
  ftb::write_csv(root + "/val.csv", s.val);
  CHECK_FALSE(ftb::is_split_folder(root));
  CHECK_THROWS_AS(ftb::load_split_folder(root), ftb::InputError);
  ftb::write_csv(root + "/test.csv", s.test);
  CHECK(ftb::is_split_folder(root));
  const ftb::Splits back = ftb::load_split_folder(root);
  CHECK(texts(back.train) == texts(s.train));
  CHECK(texts(back.val) == texts(s.val));
  CHECK(texts(back.test) == texts(s.test));
  // read_examples on the folder concatenates train, val, test.
  CHECK(ftb::read_examples(root).size() == 50);
}
