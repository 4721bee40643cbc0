// IMDB readers: a tiny archive written here (and truncated / corrupted), the
// same reviews as an extracted folder, read_examples dispatch, and the shared
// development archive when this checkout has it.
#include <archive.h>
#include <archive_entry.h>
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "core/base/errors.h"
#include "core/text/text_data.h"
#include "tests/data_fixtures.h"
#include "tests/skip.h"

namespace fs = std::filesystem;
using ftb_test::TempDir;

namespace {

using Members = std::vector<std::pair<std::string, std::string>>;  // path, bytes

// Reviews plus the other members of the real layout, which must be ignored.
// The long review is pseudo-random text, so that it compresses badly and a
// truncation lands inside review data rather than in the gzip trailer.
Members tiny_layout() {
  std::string noise;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 40000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    noise.push_back(static_cast<char>('a' + x % 26));
    if (x % 7 == 0) noise.push_back(' ');
  }
  return {
      {"aclImdb/README", "Large Movie Review Dataset v1.0"},
      {"aclImdb/imdb.vocab", "the\nand\n"},
      {"aclImdb/train/pos/12_9.txt", "A wonderful film.<br /><br />Loved it."},
      {"aclImdb/train/pos/3_10.txt", noise},
      {"aclImdb/train/neg/7_2.txt", "Dull, \"slow\" and long.\nNever again."},
      {"aclImdb/train/unsup/5_0.txt", "unlabelled, ignored"},
      {"aclImdb/train/labeledBow.feat", "0 0:1"},
      {"aclImdb/train/urls_pos.txt", "http://www.imdb.com/title/tt0453418/usercomments"},
      {"aclImdb/test/neg/0_3.txt", "Caf\xC3\xA9 scenes aside, bad."},
      {"aclImdb/test/pos/1_8.txt", "Great."},
  };
}

// Expected examples in path order below aclImdb/ (test/ before train/).
std::vector<ftb::Example> tiny_expected() {
  const Members m = tiny_layout();
  auto text = [&](const std::string& p) {
    for (const auto& kv : m)
      if (kv.first == p) return kv.second;
    return std::string();
  };
  return {{text("aclImdb/test/neg/0_3.txt"), 0},
          {text("aclImdb/test/pos/1_8.txt"), 1},
          {text("aclImdb/train/neg/7_2.txt"), 0},
          {text("aclImdb/train/pos/12_9.txt"), 1},
          {text("aclImdb/train/pos/3_10.txt"), 1}};
}

void write_tar_gz(const std::string& path, const Members& members) {
  archive* a = archive_write_new();
  archive_write_add_filter_gzip(a);
  archive_write_set_format_pax_restricted(a);
  REQUIRE(archive_write_open_filename(a, path.c_str()) == ARCHIVE_OK);
  for (const auto& [name, bytes] : members) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_size(e, static_cast<la_int64_t>(bytes.size()));
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    REQUIRE(archive_write_header(a, e) == ARCHIVE_OK);
    REQUIRE(archive_write_data(a, bytes.data(), bytes.size()) ==
            static_cast<la_ssize_t>(bytes.size()));
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void check_same(const std::vector<ftb::Example>& got, const std::vector<ftb::Example>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i].text == want[i].text);
    CHECK(got[i].label == want[i].label);
  }
}

std::string error_of(const std::string& path) {
  try {
    ftb::read_imdb_archive(path);
  } catch (const ftb::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("imdb: reads reviews and labels from a tar.gz, ignoring other members") {
  TempDir dir("imdb");
  const std::string path = (dir.path / "tiny.tar.gz").string();
  write_tar_gz(path, tiny_layout());
  check_same(ftb::read_imdb_archive(path), tiny_expected());
  check_same(ftb::read_examples(path), tiny_expected());
}

TEST_CASE("imdb: a truncated or corrupt archive is an InputError naming the file") {
  TempDir dir("imdb");
  const std::string good = (dir.path / "tiny.tar.gz").string();
  write_tar_gz(good, tiny_layout());
  const std::string bytes = read_bytes(good);
  REQUIRE(bytes.size() > 10000);
  for (double frac : {0.0, 0.001, 0.25, 0.5, 0.75, 0.95}) {
    CAPTURE(frac);
    const std::string cut = dir.file("cut.tar.gz", bytes.substr(0, std::size_t(bytes.size() * frac)));
    const std::string msg = error_of(cut);
    CHECK(msg.find(cut) != std::string::npos);
  }
  std::string corrupt = bytes;
  for (std::size_t i = bytes.size() / 2; i < bytes.size() / 2 + 64; ++i) corrupt[i] ^= 0x5A;
  const std::string bad = dir.file("corrupt.tar.gz", corrupt);
  CHECK(error_of(bad).find(bad) != std::string::npos);
  const std::string junk = dir.file("junk.tar.gz", "this is not an archive at all");
  CHECK(error_of(junk).find(junk) != std::string::npos);
  CHECK(error_of((dir.path / "absent.tar.gz").string()).find("absent.tar.gz") != std::string::npos);
}

TEST_CASE("imdb: an extracted folder reads the same as the archive") {
  TempDir dir("imdb");
  for (const auto& [name, bytes] : tiny_layout()) dir.file(name, bytes);
  check_same(ftb::read_imdb_folder((dir.path / "aclImdb").string()), tiny_expected());
  check_same(ftb::read_imdb_folder(dir.path.string()), tiny_expected());  // its parent
  check_same(ftb::read_examples(dir.path.string()), tiny_expected());
  CHECK_THROWS_AS(ftb::read_imdb_folder((dir.path / "aclImdb" / "train" / "pos").string()),
                  ftb::InputError);
}

TEST_CASE("imdb: read_examples dispatch and its errors") {
  TempDir dir("imdb");
  const std::string csv = (dir.path / "d.csv").string();
  ftb::write_csv(csv, {{"x", 1}, {"y", 0}});
  CHECK(ftb::read_examples(csv).size() == 2);
  CHECK_THROWS_AS(ftb::read_examples((dir.path / "none.csv").string()), ftb::InputError);
  CHECK_THROWS_AS(ftb::read_examples(dir.file("data.json", "{}")), ftb::InputError);
  fs::create_directories(dir.path / "empty" / "aclImdb" / "train");
  CHECK_THROWS_AS(ftb::read_examples((dir.path / "empty").string()), ftb::InputError);
}

TEST_CASE("imdb: the development archive or the official one (skipped when neither is there)") {
  // The project's development copy (24,904 reviews), else the official
  // archive tools/download_imdb.py downloads (50,000 reviews, half positive).
  const bool development = fs::exists(ftb_test::development_archive());
  const std::string path = development ? ftb_test::development_archive() : ftb_test::official_archive();
  if (!fs::exists(path)) FTB_SKIP_CASE(ftb_test::data_absent_reason(path));
  const std::vector<ftb::Example> all = ftb::read_imdb_archive(path);
  int positives = 0;
  for (const auto& e : all) positives += e.label;
  if (!development) {
    CHECK(all.size() == 50000);  // train/unsup left out
    CHECK(positives == 25000);
    return;
  }
  CHECK(all.size() == 24904);  // train 12,463 + test 12,441
  CHECK(positives == 12472);
  // First in path order: aclImdb/test/neg/0_3.txt, byte for byte.
  REQUIRE(!all.empty());
  CHECK(all[0].label == 0);
  CHECK(all[0].text.rfind("Story of a man who has unnatural feelings for a pig.", 0) == 0);
}
