#include "reports/report.h"

#include "core/errors.h"
#include "reports/table.h"
#include "reports/vega.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ftb {

using nlohmann::json;

std::string to_string(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::skipped: return "skipped";
    case Status::failed: return "failed";
  }
  return "unknown";
}

Status status_from_string(const std::string& s) {
  if (s == "ok") return Status::ok;
  if (s == "skipped") return Status::skipped;
  if (s == "failed") return Status::failed;
  throw InputError("unknown status '" + s + "' (expected ok, skipped or failed)");
}

namespace {

// ---- writing ---------------------------------------------------------------

json epoch_to_json(const EpochRecord& e) {
  return {{"epoch", e.epoch},         {"train_loss", e.train_loss}, {"train_acc", e.train_acc},
          {"val_loss", e.val_loss},   {"val_acc", e.val_acc},       {"time_s", e.time_s}};
}

json sample_to_json(const RepeatSample& s) {
  return {{"wall_time_s", s.wall_time_s},
          {"train_samples_per_s", s.train_samples_per_s},
          {"train_tokens_per_s", s.train_tokens_per_s},
          {"val_acc", s.val_acc},
          {"test_acc", s.test_acc},
          {"peak_bytes", s.peak_bytes}};
}

// ---- reading ---------------------------------------------------------------
// Read access to one JSON object whose errors name the full key path
// ("throughput.train_samples_per_s: missing key"), as j.at() would name the key
// but with its parents, so a user can find it in a 2,000-line report.
class Fields {
 public:
  Fields(const json& j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j_.is_object()) throw InputError(where() + "expected an object, got " + j_.type_name());
  }

  const json& at(const char* key) const {
    auto it = j_.find(key);
    if (it == j_.end()) throw InputError("missing key '" + name(key) + "'");
    return *it;
  }
  // null reads back as NaN: non-finite numbers are written as null by nlohmann.
  double number(const char* key) const {
    const json& v = at(key);
    if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!v.is_number()) throw type(key, "a number", v);
    return v.get<double>();
  }
  int64_t integer(const char* key) const {
    const json& v = at(key);
    if (!v.is_number_integer()) throw type(key, "an integer", v);
    return v.get<int64_t>();
  }
  std::string string(const char* key) const {
    const json& v = at(key);
    if (!v.is_string()) throw type(key, "a string", v);
    return v.get<std::string>();
  }
  Fields object(const char* key) const { return Fields(at(key), name(key)); }
  const json& array(const char* key) const {
    const json& v = at(key);
    if (!v.is_array()) throw type(key, "an array", v);
    return v;
  }
  std::string name(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

 private:
  std::string where() const { return path_.empty() ? "" : path_ + ": "; }
  InputError type(const char* key, const char* want, const json& v) const {
    return InputError("key '" + name(key) + "': expected " + want + ", got " + v.type_name());
  }
  const json& j_;
  std::string path_;
};

std::string indexed(const std::string& name, size_t i) { return name + "[" + std::to_string(i) + "]"; }

EpochRecord epoch_from_json(const json& j, const std::string& path) {
  Fields f(j, path);
  EpochRecord e;
  e.epoch = f.integer("epoch");
  e.train_loss = f.number("train_loss");
  e.train_acc = f.number("train_acc");
  e.val_loss = f.number("val_loss");
  e.val_acc = f.number("val_acc");
  e.time_s = f.number("time_s");
  return e;
}

RepeatSample sample_from_json(const json& j, const std::string& path) {
  Fields f(j, path);
  RepeatSample s;
  s.wall_time_s = f.number("wall_time_s");
  s.train_samples_per_s = f.number("train_samples_per_s");
  s.train_tokens_per_s = f.number("train_tokens_per_s");
  s.val_acc = f.number("val_acc");
  s.test_acc = f.number("test_acc");
  s.peak_bytes = f.integer("peak_bytes");
  return s;
}

// Strips nlohmann's "[json.exception.parse_error.101] " prefix: the user needs
// the position and the reason, not the exception id.
std::string json_message(const json::exception& e) {
  std::string m = e.what();
  if (m.rfind("[json.exception.", 0) == 0) {
    auto close = m.find("] ");
    if (close != std::string::npos) m = m.substr(close + 2);
  }
  return m;
}

// Shortest text that reads back as the same double ("nan"/"inf" as such).
std::string format_double(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// The report must be written even when a scenario's error text carries bytes
// that are not UTF-8 (a torch message quoting a file name): replace, not throw.
std::string dump(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n"; }

}  // namespace

namespace {

json distributed_to_json(const ScenarioResult::Distributed& d) {
  return {{"backend", d.backend},
          {"strategy", d.strategy},
          {"bucket_cap_bytes", d.bucket_cap_bytes},
          {"buckets", d.buckets},
          {"collective_wait_s", d.collective_wait_s},
          {"optimizer_state_bytes_per_rank", d.optimizer_state_bytes_per_rank},
          {"grad_bytes_per_rank", d.grad_bytes_per_rank},
          {"grad_staging_bytes", d.grad_staging_bytes},
          {"per_rank_samples_per_s", d.per_rank_samples_per_s},
          {"comm_fallback", d.comm_fallback}};
}

ScenarioResult::Distributed distributed_from_json(const json& j) {
  Fields f(j, "distributed");
  ScenarioResult::Distributed d;
  d.backend = f.string("backend");
  d.strategy = f.string("strategy");
  d.bucket_cap_bytes = f.integer("bucket_cap_bytes");
  d.buckets = f.integer("buckets");
  d.collective_wait_s = f.number("collective_wait_s");
  d.optimizer_state_bytes_per_rank = f.integer("optimizer_state_bytes_per_rank");
  d.grad_bytes_per_rank = f.integer("grad_bytes_per_rank");
  d.grad_staging_bytes = f.integer("grad_staging_bytes");
  d.per_rank_samples_per_s = f.number("per_rank_samples_per_s");
  d.comm_fallback = f.string("comm_fallback");
  return d;
}

}  // namespace

json to_json(const ScenarioResult& r) {
  json epochs = json::array();
  for (const auto& e : r.epochs) epochs.push_back(epoch_to_json(e));
  json samples = json::array();
  for (const auto& s : r.repeats) samples.push_back(sample_to_json(s));
  return {
      {"scenario", r.scenario},
      {"status", to_string(r.status)},
      {"reason", r.reason},
      {"world_size", r.world_size},
      {"device", r.device},
      {"precision", r.precision},
      {"wall_time_s", r.wall_time_s},
      {"throughput",
       {{"train_samples_per_s", r.train_samples_per_s},
        {"train_tokens_per_s", r.train_tokens_per_s},
        {"train_samples", r.train_samples}}},
      {"accuracy", {{"val", r.val_acc}, {"test", r.test_acc}}},
      {"loss", {{"test", r.test_loss}}},
      {"epochs", std::move(epochs)},
      {"memory", {{"peak_bytes", r.peak_bytes}, {"source", r.peak_bytes_source}}},
      {"repeats", static_cast<int64_t>(r.repeats.size())},
      {"samples", std::move(samples)},
      {"efficiency",
       {{"step_ms_median", r.step_ms_median},
        {"warmup_steps", r.warmup_steps},
        {"model_tflops_per_s", r.model_tflops_per_s},
        {"mfu", r.mfu}}},
      {"data", {{"loader_wait_s", r.loader_wait_s}}},
      {"technique",
       {{"skipped_steps", r.skipped_steps},
        {"capture_time_s", r.capture_time_s},
        {"checkpoint_epoch", r.checkpoint_epoch}}},
      {"extra", r.extra.is_null() ? json::object() : r.extra},
      {"threads", r.threads},
      {"distributed", r.distributed.backend.empty() ? json(nullptr) : distributed_to_json(r.distributed)},
  };
}

ScenarioResult result_from_json(const json& j) {
  Fields f(j, "");
  ScenarioResult r;
  r.scenario = f.string("scenario");
  r.status = status_from_string(f.string("status"));
  r.reason = f.string("reason");
  r.world_size = static_cast<int>(f.integer("world_size"));
  r.device = f.string("device");
  r.precision = f.string("precision");
  r.wall_time_s = f.number("wall_time_s");
  Fields throughput = f.object("throughput");
  r.train_samples_per_s = throughput.number("train_samples_per_s");
  r.train_tokens_per_s = throughput.number("train_tokens_per_s");
  if (j.at("throughput").contains("train_samples")) r.train_samples = throughput.integer("train_samples");
  Fields accuracy = f.object("accuracy");
  r.val_acc = accuracy.number("val");
  r.test_acc = accuracy.number("test");
  r.test_loss = f.object("loss").number("test");
  const json& epochs = f.array("epochs");
  for (size_t i = 0; i < epochs.size(); ++i) r.epochs.push_back(epoch_from_json(epochs[i], indexed("epochs", i)));
  Fields memory = f.object("memory");
  r.peak_bytes = memory.integer("peak_bytes");
  r.peak_bytes_source = memory.string("source");
  const int64_t repeats = f.integer("repeats");
  const json& samples = f.array("samples");
  if (repeats != static_cast<int64_t>(samples.size())) {
    throw InputError("repeats is " + std::to_string(repeats) + " but samples holds " +
                     std::to_string(samples.size()));
  }
  for (size_t i = 0; i < samples.size(); ++i) r.repeats.push_back(sample_from_json(samples[i], indexed("samples", i)));
  Fields efficiency = f.object("efficiency");
  r.step_ms_median = efficiency.number("step_ms_median");
  r.warmup_steps = efficiency.integer("warmup_steps");
  r.model_tflops_per_s = efficiency.number("model_tflops_per_s");
  r.mfu = efficiency.number("mfu");
  r.loader_wait_s = f.object("data").number("loader_wait_s");
  Fields technique = f.object("technique");
  r.skipped_steps = technique.integer("skipped_steps");
  r.capture_time_s = technique.number("capture_time_s");
  r.checkpoint_epoch = technique.integer("checkpoint_epoch");
  f.object("extra");  // must be an object
  r.extra = f.at("extra");
  // Added with the distributed scenarios: optional, older reports lack them.
  if (j.contains("threads")) r.threads = static_cast<int>(f.integer("threads"));
  if (j.contains("distributed") && !j.at("distributed").is_null()) r.distributed = distributed_from_json(j.at("distributed"));
  return r;
}

json report_to_json(const Report& report) {
  json results = json::array();
  for (const auto& r : report.results) results.push_back(to_json(r));
  return {{"schema", kReportSchema},
          {"environment", report.environment},
          {"config", report.config},
          {"results", std::move(results)}};
}

Report report_from_json(const json& j, const std::string& where) {
  Report report;
  try {
    Fields f(j, "");
    const std::string schema = f.string("schema");
    if (schema != kReportSchema) {
      throw InputError("schema is '" + schema + "', expected '" + kReportSchema + "'");
    }
    f.object("environment");
    f.object("config");
    report.environment = f.at("environment");
    report.config = f.at("config");
    const json& results = f.array("results");
    for (size_t i = 0; i < results.size(); ++i) {
      try {
        report.results.push_back(result_from_json(results[i]));
      } catch (const InputError& e) {
        throw InputError(indexed("results", i) + ": " + e.what());
      }
    }
  } catch (const InputError& e) {
    input_error(where, e.what());
  } catch (const json::exception& e) {
    input_error(where, json_message(e));
  }
  return report;
}

Report read_report(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) input_error(path, std::string("cannot open: ") + std::strerror(errno));
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    input_error(path, "not valid JSON: " + json_message(e));
  }
  return report_from_json(j, path);
}

void write_file_atomic(const std::string& path, const std::string& content) {
  // pid in the name: two ranks or two runs writing beside each other never
  // share a temporary file.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = -1;
  auto fail = [&](const char* what) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    throw std::runtime_error(path + ": " + what + " failed: " + std::strerror(err));
  };
  fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("creating the temporary file");
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write");
    }
    done += static_cast<size_t>(n);
  }
  // Without fsync a crash after the rename can leave an empty file under the
  // new name on some file systems; the cost is one flush per file.
  if (::fsync(fd) != 0) fail("fsync");
  const int rc = ::close(fd);
  fd = -1;
  if (rc != 0) fail("close");
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail("rename");
}

void write_report(const std::string& path, const Report& report) {
  write_file_atomic(path, dump(report_to_json(report)));
}

std::string steps_csv(const std::vector<ScenarioResult>& results) {
  std::string out = "scenario,step,epoch,step_ms,loss,wait_ms,samples,tokens,seq_len\n";
  for (const auto& r : results) {
    const std::string name = csv_field(r.scenario);
    for (const auto& s : r.steps) {
      out += name;
      out += ',' + std::to_string(s.step) + ',' + std::to_string(s.epoch);
      out += ',' + format_double(s.step_ms) + ',' + format_double(s.loss) + ',' + format_double(s.wait_ms);
      out += ',' + std::to_string(s.samples) + ',' + std::to_string(s.tokens);
      out += ',' + std::to_string(s.seq_len) + '\n';
    }
  }
  return out;
}

void write_steps_csv(const std::string& path, const std::vector<ScenarioResult>& results) {
  write_file_atomic(path, steps_csv(results));
}

// mkdir -p. POSIX rather than std::filesystem: the pip LibTorch exports its own
// copy of libstdc++'s filesystem code, and some of it (remove_all) crashes when
// called from a program linked against it (pytorch/pytorch#133437).
void make_directories(const std::string& dir) {
  std::string partial;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    partial = dir.substr(0, pos);
    if (partial.empty() || ::mkdir(partial.c_str(), 0755) == 0 || errno == EEXIST) continue;
    throw std::runtime_error(partial + ": cannot create directory: " + std::strerror(errno));
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw std::runtime_error(dir + ": not a directory");
  }
}

void write_run_outputs(const std::string& dir, const Report& report) {
  const std::string root = dir.empty() ? "." : dir;
  make_directories(root + "/charts");
  for (const auto& [name, spec] : vega_specs(report)) {
    write_file_atomic(root + "/charts/" + name + ".vl.json", dump(spec));
  }
  write_file_atomic(root + "/table.md", speedup_table_markdown(report));
  write_steps_csv(root + "/steps.csv", report.results);
  // Last, so that a report.json beside the other files means they are complete.
  write_report(root + "/report.json", report);
}

}  // namespace ftb
