// The safetensors reader rejects every malformed file with a one-line reason.
#include <doctest/doctest.h>
#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/base/errors.h"
#include "core/model/safetensors.h"

namespace {

std::string with_header(const std::string& header, const std::string& data) {
  std::string s(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return s + header + data;
}

std::string rejection(const std::string& bytes) {
  try {
    ftb::SafetensorsFile::parse(bytes, "bad.safetensors");
  } catch (const ftb::InputError& e) {
    std::string m = e.what();
    CHECK(m.rfind("bad.safetensors: ", 0) == 0);  // names the file
    CHECK(m.find('\n') == std::string::npos);      // one line
    return m;
  }
  FAIL("accepted a malformed file");
  return "";
}

}  // namespace

TEST_CASE("safetensors: write then read round-trips names, dtypes, shapes and bytes") {
  auto a = torch::randn({3, 5});
  auto b = torch::arange(7, torch::kLong);
  auto c = torch::randn({2, 2}).to(torch::kBFloat16);
  const auto path = (std::filesystem::temp_directory_path() / "ftb_rt.safetensors").string();
  ftb::write_safetensors(path, {{"w.a", a}, {"b", b}, {"c", c}});
  auto f = ftb::SafetensorsFile::read(path);
  CHECK(f.entries().size() == 3);
  CHECK(f.metadata().at("format") == "pt");
  CHECK(torch::equal(f.tensor("w.a"), a));
  CHECK(torch::equal(f.tensor("b"), b));
  CHECK(torch::equal(f.tensor("c"), c));
  CHECK(f.entries().at("c").dtype == "BF16");
  ::unlink(path.c_str());
}

TEST_CASE("safetensors: malformed files are rejected with a reason") {
  const std::string ok_entry = R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  CHECK_NOTHROW(ftb::SafetensorsFile::parse(with_header(ok_entry, std::string(8, 'x')), "x"));

  CHECK(rejection("abc").find("truncated") != std::string::npos);
  CHECK(rejection(std::string(8, '\0')).find("out of bounds") != std::string::npos);
  CHECK(rejection(with_header(ok_entry, "").substr(0, 20)).find("exceeds the file size") != std::string::npos);
  CHECK(rejection(with_header("{not json", "")).find("not valid JSON") != std::string::npos);
  CHECK(rejection(with_header("[1,2]", "")).find("not a JSON object") != std::string::npos);
  // data truncated: the range runs past the end of the file
  CHECK(rejection(with_header(ok_entry, std::string(4, 'x'))).find("outside the file") != std::string::npos);
  CHECK(rejection(with_header(R"({"t":{"dtype":"F33","shape":[2],"data_offsets":[0,8]}})", std::string(8, 'x')))
            .find("unsupported dtype") != std::string::npos);
  CHECK(rejection(with_header(R"({"t":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", std::string(12, 'x')))
            .find("byte range") != std::string::npos);
  CHECK(rejection(with_header(R"({"t":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", std::string(8, 'x')))
            .find("non-negative") != std::string::npos);
  CHECK(rejection(with_header(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", std::string(8, 'x')))
            .find("begin > end") != std::string::npos);
  CHECK(rejection(with_header(R"({"t":{"dtype":"F32","shape":[2]}})", std::string(8, 'x')))
            .find("data_offsets") != std::string::npos);
  CHECK(rejection(with_header(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                              R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                              std::string(12, 'x')))
            .find("overlap") != std::string::npos);
  CHECK(rejection(with_header(R"({"t":{"dtype":"F32","shape":[4611686018427387904,8],"data_offsets":[0,8]}})",
                              std::string(8, 'x')))
            .find("overflows") != std::string::npos);
  CHECK(rejection(with_header(R"({"__metadata__":{"format":1}})", "")).find("__metadata__") != std::string::npos);
}

TEST_CASE("safetensors: every truncation of a valid file is rejected, never a crash") {
  const auto path = (std::filesystem::temp_directory_path() / "ftb_trunc.safetensors").string();
  ftb::write_safetensors(path, {{"x", torch::randn({4, 4})}, {"y", torch::randn({3})}});
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  for (std::size_t n = 0; n < bytes.size(); ++n)
    CHECK_THROWS_AS(ftb::SafetensorsFile::parse(bytes.substr(0, n), "t"), ftb::InputError);
  ::unlink(path.c_str());
}
