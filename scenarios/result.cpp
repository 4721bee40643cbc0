#include "scenarios/result.h"

#include <algorithm>
#include <cmath>

#include "core/base/errors.h"
#include "core/base/bit_pack.h"
#include "core/base/json_fields.h"

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
std::string to_string(RowSetting s) {
  switch (s) {
    case RowSetting::optimizer: return "optimizer";
    case RowSetting::precision: return "precision";
    case RowSetting::world_size: return "ranks";
    case RowSetting::threads: return "threads";
    case RowSetting::device: return "device";
    case RowSetting::batch_size: return "batch_size";
  }
  return "?";
}

RowSetting row_setting_from_string(const std::string& s, const std::string& where) {
  for (RowSetting r : {RowSetting::optimizer, RowSetting::precision, RowSetting::world_size, RowSetting::threads,
                       RowSetting::device, RowSetting::batch_size})
    if (to_string(r) == s) return r;
  throw InputError(where + ": unknown setting '" + s +
                   "' (expected optimizer, precision, ranks, threads, device or batch_size)");
}

namespace {

// Steps as arrays (compact: the rank protocol carries thousands).
json steps_to_json(const std::vector<StepRecord>& steps) {
  json a = json::array();
  for (const auto& s : steps) a.push_back({s.step, s.epoch, s.step_ms, s.loss, s.wait_ms, s.samples, s.tokens, s.seq_len});
  return a;
}

std::vector<StepRecord> steps_from_json(const json& a, const std::string& where) {
  std::vector<StepRecord> out;
  for (size_t i = 0; i < a.size(); ++i) {
    const json& j = a[i];
    // JSON integers only: nlohmann converts 1e30 to int64_t with undefined
    // behaviour (found by tests/fuzz).
    auto integer = [&](size_t k) {
      const json& v = j.at(k);
      if (!v.is_number_integer())
        throw InputError(indexed(where, i) + "[" + std::to_string(k) + "]: expected an integer, got " + v.type_name());
      return v.get<int64_t>();
    };
    StepRecord s;
    s.step = integer(0);
    s.epoch = integer(1);
    s.step_ms = j.at(2).get<double>();
    s.loss = j.at(3).is_null() ? std::nan("") : j.at(3).get<double>();
    s.wait_ms = j.at(4).get<double>();
    s.samples = integer(5);
    s.tokens = integer(6);
    s.seq_len = integer(7);
    out.push_back(s);
  }
  return out;
}

json epoch_to_json(const EpochRecord& e) {
  return {{"epoch", e.epoch},         {"train_loss", e.train_loss}, {"train_acc", e.train_acc},
          {"val_loss", e.val_loss},   {"val_acc", e.val_acc},       {"time_s", e.time_s}};
}

json phases_to_json(const PhaseTimes& p);
PhaseTimes phases_from_json(const json& j, const std::string& path);

json sample_to_json(const RepeatSample& s) {
  json j = {{"wall_time_s", s.wall_time_s},
          {"train_samples_per_s", s.train_samples_per_s},
          {"train_tokens_per_s", s.train_tokens_per_s},
          {"val_acc", s.val_acc},
          {"test_acc", s.test_acc},
          {"peak_bytes", s.peak_bytes},
          {"step_ms_median", s.step_ms_median},
          {"train_samples", s.train_samples},
          {"steady_samples_per_s", s.steady_samples_per_s}};
  if (!s.phases.empty()) j["phases"] = phases_to_json(s.phases);
  if (!s.test_correct.empty())
    j["test_correct"] = {{"examples", s.test_correct.size()}, {"base64", pack_bits_base64(s.test_correct)}};
  return j;
}

RepeatSample sample_from_json(const json& j, const std::string& path) {
  JsonFields f(j, path);
  RepeatSample s;
  s.wall_time_s = f.number("wall_time_s");
  s.train_samples_per_s = f.number("train_samples_per_s");
  s.train_tokens_per_s = f.number("train_tokens_per_s");
  s.val_acc = f.number("val_acc");
  s.test_acc = f.number("test_acc");
  s.peak_bytes = f.integer("peak_bytes");
  // Added with the restructuring: optional, older reports lack them.
  if (f.has("step_ms_median")) s.step_ms_median = f.number("step_ms_median");
  if (f.has("train_samples")) s.train_samples = f.integer("train_samples");
  if (f.has("steady_samples_per_s")) s.steady_samples_per_s = f.number("steady_samples_per_s");
  if (f.has("phases")) s.phases = phases_from_json(f.at("phases"), f.name("phases"));
  if (f.has("test_correct")) {
    const JsonFields bits = f.object("test_correct");
    const int64_t n = bits.integer("examples");
    if (n < 1) throw InputError(bits.name("examples") + ": must be at least 1");
    s.test_correct = unpack_bits_base64(bits.string("base64"), static_cast<std::size_t>(n), bits.name("base64"));
  }
  return s;
}
// "memory": the row's peak, the parameter count, the per-phase held bytes.
json held_phase_to_json(const ScenarioResult::HeldPhase& p) {
  return {{"peak_bytes", p.peak_bytes()}, {"per_rank", p.per_rank}, {"modelled_bytes", p.modelled_bytes}};
}

ScenarioResult::HeldPhase held_phase_from_json(const JsonFields& f) {
  ScenarioResult::HeldPhase p;
  const json& ranks = f.array("per_rank");
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (!ranks[i].is_number_integer())
      throw InputError(f.name("per_rank") + "[" + std::to_string(i) + "]: expected an integer");
    p.per_rank.push_back(ranks[i].get<int64_t>());
  }
  p.modelled_bytes = f.integer("modelled_bytes");
  return p;
}

json memory_to_json(const ScenarioResult& r) {
  json j = {{"peak_bytes", r.peak_bytes}, {"source", r.peak_bytes_source}};
  if (r.parameter_count > 0) j["parameter_count"] = r.parameter_count;
  const auto& m = r.memory_phases;
  if (!m.source.empty())
    j["phases"] = {{"source", m.source},
                   {"training", held_phase_to_json(m.training)},
                   {"evaluation", held_phase_to_json(m.evaluation)}};
  return j;
}

ScenarioResult::HeldPhases held_phases_from_json(const JsonFields& f) {
  ScenarioResult::HeldPhases m;
  m.source = f.string("source");
  m.training = held_phase_from_json(f.object("training"));
  m.evaluation = held_phase_from_json(f.object("evaluation"));
  return m;
}

json distributed_to_json(const ScenarioResult::Distributed& d) {
  json j = {{"backend", d.backend},
          {"strategy", d.strategy},
          {"bucket_cap_bytes", d.bucket_cap_bytes},
          {"buckets", d.buckets},
          {"collective_wait_s", d.collective_wait_s},
          {"optimizer_state_bytes_per_rank", d.optimizer_state_bytes_per_rank},
          {"grad_bytes_per_rank", d.grad_bytes_per_rank},
          {"grad_staging_bytes", d.grad_staging_bytes},
          {"per_rank_samples_per_s", d.per_rank_samples_per_s},
          {"comm_fallback", d.comm_fallback},
          {"param_bytes_per_rank", d.param_bytes_per_rank},
          {"host_bytes_per_rank", d.host_bytes_per_rank},
          {"offload_bytes_per_step", d.offload_bytes_per_step},
          {"offload_wait_s", d.offload_wait_s},
          {"collective_bytes_per_step", d.collective_bytes_per_step},
          {"evaluation_collective_bytes", d.evaluation_collective_bytes},
          {"evaluation_collective_wait_s", d.evaluation_collective_wait_s}};
  if (!d.launcher.empty()) j["launcher"] = d.launcher;
  if (d.nodes > 0) j["nodes"] = d.nodes;
  if (!d.hosts.empty()) j["hosts"] = d.hosts;
  for (const auto& [name, e] : d.error_handling) j["error_handling"][name] = {{"value", e.value}, {"set_by", e.set_by}};
  if (!d.gather_dtype.empty()) j["gather_dtype"] = d.gather_dtype;
  if (!d.reduce_dtype.empty()) j["reduce_dtype"] = d.reduce_dtype;
  return j;
}

std::map<std::string, int64_t> bytes_by_name(const JsonFields& f, const char* key) {
  std::map<std::string, int64_t> out;
  JsonFields c = f.object(key);
  for (const auto& [name, value] : f.at(key).items()) {
    (void)value;
    out[name] = c.integer(name.c_str());
  }
  return out;
}

ScenarioResult::Distributed distributed_from_json(const json& j, const std::string& path) {
  JsonFields f(j, path);
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
  // Added with the offload rows: optional, older reports lack them.
  if (f.has("param_bytes_per_rank")) d.param_bytes_per_rank = f.integer("param_bytes_per_rank");
  if (f.has("host_bytes_per_rank")) d.host_bytes_per_rank = f.integer("host_bytes_per_rank");
  if (f.has("offload_bytes_per_step")) d.offload_bytes_per_step = f.integer("offload_bytes_per_step");
  if (f.has("offload_wait_s")) d.offload_wait_s = f.number("offload_wait_s");
  if (f.has("collective_bytes_per_step")) d.collective_bytes_per_step = bytes_by_name(f, "collective_bytes_per_step");
  // Added with ftbench.report/5 (evaluation's traffic apart): optional, older reports lack them.
  if (f.has("evaluation_collective_bytes")) d.evaluation_collective_bytes = bytes_by_name(f, "evaluation_collective_bytes");
  if (f.has("evaluation_collective_wait_s")) d.evaluation_collective_wait_s = f.number("evaluation_collective_wait_s");
  // Added with the multi-node run (v5): optional, older reports lack them.
  if (f.has("launcher")) d.launcher = f.string("launcher");
  if (f.has("nodes")) d.nodes = f.integer("nodes");
  if (f.has("hosts")) {
    const json& hosts = f.array("hosts");
    for (std::size_t i = 0; i < hosts.size(); ++i) {
      if (!hosts[i].is_string()) throw InputError(f.name("hosts") + "[" + std::to_string(i) + "]: expected a string");
      d.hosts.push_back(hosts[i].get<std::string>());
    }
  }
  if (f.has("error_handling")) {
    JsonFields e = f.object("error_handling");
    for (const auto& [name, value] : f.at("error_handling").items()) {
      (void)value;
      JsonFields one = e.object(name.c_str());
      d.error_handling[name] = {one.string("value"), one.string("set_by")};
    }
  }
  // Added with zero3's mixed precision (v5, optional).
  if (f.has("gather_dtype")) d.gather_dtype = f.string("gather_dtype");
  if (f.has("reduce_dtype")) d.reduce_dtype = f.string("reduce_dtype");
  return d;
}
// {"clock": ..., "times": {phase: {"seconds", "share"}}}; share of the sum of
// every phase (train phases, validation, test).
json phases_to_json(const PhaseTimes& p) {
  json times = json::object();
  for (Phase ph : all_phases()) times[phase_name(ph)] = {{"seconds", p[ph]}, {"share", p.share(ph)}};
  return {{"clock", to_string(p.clock)}, {"times", std::move(times)}};
}

PhaseTimes phases_from_json(const json& j, const std::string& path) {
  JsonFields f(j, path);
  PhaseTimes p;
  p.clock = phase_clock_from_string(f.string("clock"), f.name("clock"));
  JsonFields times = f.object("times");
  for (const auto& [name, value] : f.at("times").items()) {
    const Phase ph = phase_from_name(name, times.name(name));
    p[ph] = JsonFields(value, times.name(name)).number("seconds");
  }
  return p;
}
}  // namespace

EpochRecord epoch_from_json(const json& j, const std::string& path) {
  JsonFields f(j, path);
  EpochRecord e;
  e.epoch = f.integer("epoch");
  e.train_loss = f.number("train_loss");
  e.train_acc = f.number("train_acc");
  e.val_loss = f.number("val_loss");
  e.val_acc = f.number("val_acc");
  e.time_s = f.number("time_s");
  return e;
}

namespace {

json settings_to_json(const std::vector<RowSetting>& settings) {
  json a = json::array();
  for (RowSetting s : settings) a.push_back(to_string(s));
  return a;
}

}  // namespace

json to_json(const ScenarioResult& r, bool with_steps) {
  json epochs = json::array();
  for (const auto& e : r.epochs) epochs.push_back(epoch_to_json(e));
  json samples = json::array();
  for (const auto& s : r.repeats) samples.push_back(sample_to_json(s));
  json j = {
      {"scenario", r.scenario},
      {"status", to_string(r.status)},
      {"reason", r.reason},
      {"world_size", r.world_size},
      {"device", r.device},
      {"precision", r.precision},
      {"optimizer", r.optimizer},
      {"wall_time_s", r.wall_time_s},
      {"throughput",
       {{"train_samples_per_s", r.train_samples_per_s},
        {"train_tokens_per_s", r.train_tokens_per_s},
        {"train_samples", r.train_samples}}},
      {"accuracy", {{"val", r.val_acc}, {"test", r.test_acc}}},
      {"loss", {{"test", r.test_loss}}},
      {"epochs", std::move(epochs)},
      {"memory", memory_to_json(r)},
      {"repeats", static_cast<int64_t>(r.repeats.size())},
      {"samples", std::move(samples)},
      {"efficiency",
       {{"step_ms_median", r.step_ms_median},
        {"warmup_steps", r.warmup_steps},
        {"model_tflops_per_s", r.model_tflops_per_s},
        {"mfu", r.mfu},
        {"peak_tflops_per_device", r.mfu_peak_tflops}}},
      {"data", {{"loader_wait_s", r.loader_wait_s}, {"real_token_share", r.real_token_share}}},
      {"technique",
       {{"skipped_steps", r.skipped_steps},
        {"capture_time_s", r.capture_time_s},
        {"checkpoint_epoch", r.checkpoint_epoch}}},
      {"extra", r.extra.is_null() ? json::object() : r.extra},
      {"threads", r.threads},
      {"technique_settings", settings_to_json(r.technique_settings)},
      {"stack", r.stack},
      {"distributed", r.distributed.backend.empty() ? json(nullptr) : distributed_to_json(r.distributed)},
      {"aggregate",
       {{"statistic", "median over repeats: times, throughputs, accuracy, the step time behind MFU (peak memory: max)"},
        {"detail_from", "last repeat (epochs, loss, technique counters, step percentiles); phases: each phase's median over repeats"}}},
  };
  if (!r.phases.empty()) j["phases"] = phases_to_json(r.phases);
  if (r.profile) j["profile"] = to_json(*r.profile);
  if (with_steps) j["steps"] = steps_to_json(r.steps);
  return j;
}

namespace {

// The "memory" object: the row's peak and its source; the parameter count and
// the per-phase held bytes when the report has them.
void read_memory(const JsonFields& f, ScenarioResult& r) {
  JsonFields memory = f.object("memory");
  r.peak_bytes = memory.integer("peak_bytes");
  r.peak_bytes_source = memory.string("source");
  // Added with ftbench.report/5 (memory measured per phase): optional, older reports lack them.
  if (memory.has("parameter_count")) r.parameter_count = memory.integer("parameter_count");
  if (memory.has("phases")) r.memory_phases = held_phases_from_json(memory.object("phases"));
}

// "repeats" and "samples": the count must match the samples the row holds.
void read_repeats(const JsonFields& f, ScenarioResult& r) {
  const int64_t repeats = f.integer("repeats");
  const json& samples = f.array("samples");
  if (repeats != static_cast<int64_t>(samples.size())) {
    throw InputError(f.name("repeats") + ": is " + std::to_string(repeats) + " but samples holds " +
                     std::to_string(samples.size()));
  }
  for (size_t i = 0; i < samples.size(); ++i) r.repeats.push_back(sample_from_json(samples[i], f.name(indexed("samples", i))));
}

// "technique_settings", when present: each the name of a RowSetting.
void read_technique_settings(const JsonFields& f, ScenarioResult& r) {
  if (f.has("technique_settings")) {
    const json& a = f.array("technique_settings");
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string where = f.name(indexed("technique_settings", i));
      if (!a[i].is_string()) throw InputError(where + ": expected a string, got " + std::string(a[i].type_name()));
      r.technique_settings.push_back(row_setting_from_string(a[i].get<std::string>(), where));
    }
  }
}

// "stack", when present: an array of strings.
void read_stack(const JsonFields& f, ScenarioResult& r) {
  if (f.has("stack")) {
    const json& a = f.array("stack");
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_string())
        throw InputError(f.name(indexed("stack", i)) + ": expected a string, got " + std::string(a[i].type_name()));
      r.stack.push_back(a[i].get<std::string>());
    }
  }
}

}  // namespace

ScenarioResult result_from_json(const json& j, const std::string& path) {
  JsonFields f(j, path);
  ScenarioResult r;
  r.scenario = f.string("scenario");
  try {
    r.status = status_from_string(f.string("status"));
  } catch (const InputError& e) {
    throw InputError(f.name("status") + ": " + e.what());
  }
  r.reason = f.string("reason");
  r.world_size = static_cast<int>(f.integer("world_size"));
  r.device = f.string("device");
  r.precision = parse_choice<Precision>(f.string("precision"), f.name("precision"));
  if (f.has("optimizer")) r.optimizer = f.string("optimizer");
  r.wall_time_s = f.number("wall_time_s");
  JsonFields throughput = f.object("throughput");
  r.train_samples_per_s = throughput.number("train_samples_per_s");
  r.train_tokens_per_s = throughput.number("train_tokens_per_s");
  if (j.at("throughput").contains("train_samples")) r.train_samples = throughput.integer("train_samples");
  JsonFields accuracy = f.object("accuracy");
  r.val_acc = accuracy.number("val");
  r.test_acc = accuracy.number("test");
  r.test_loss = f.object("loss").number("test");
  const json& epochs = f.array("epochs");
  for (size_t i = 0; i < epochs.size(); ++i) r.epochs.push_back(epoch_from_json(epochs[i], f.name(indexed("epochs", i))));
  read_memory(f, r);
  read_repeats(f, r);
  JsonFields efficiency = f.object("efficiency");
  r.step_ms_median = efficiency.number("step_ms_median");
  r.warmup_steps = efficiency.integer("warmup_steps");
  r.model_tflops_per_s = efficiency.number("model_tflops_per_s");
  r.mfu = efficiency.number("mfu");
  if (efficiency.has("peak_tflops_per_device")) r.mfu_peak_tflops = efficiency.number("peak_tflops_per_device");
  r.loader_wait_s = f.object("data").number("loader_wait_s");
  // Added with length bucketing: optional, older reports lack it.
  if (f.object("data").has("real_token_share")) r.real_token_share = f.object("data").number("real_token_share");
  JsonFields technique = f.object("technique");
  r.skipped_steps = technique.integer("skipped_steps");
  r.capture_time_s = technique.number("capture_time_s");
  r.checkpoint_epoch = technique.integer("checkpoint_epoch");
  f.object("extra");  // must be an object
  r.extra = f.at("extra");
  // Added with the distributed scenarios: optional, older reports lack them.
  if (j.contains("threads")) r.threads = static_cast<int>(f.integer("threads"));
  // Required since ftbench.report/4 (the upgrade fills older reports').
  read_technique_settings(f, r);
  read_stack(f, r);
  if (j.contains("distributed") && !j.at("distributed").is_null()) r.distributed = distributed_from_json(j.at("distributed"), f.name("distributed"));
  if (f.has("steps")) r.steps = steps_from_json(f.array("steps"), f.name("steps"));
  // Added with the phase breakdown: optional, older reports lack it.
  if (f.has("phases")) r.phases = phases_from_json(f.at("phases"), f.name("phases"));
  // Added with operator profiles (`run --profile`): optional.
  if (f.has("profile")) r.profile = op_profile_from_json(f.at("profile"), f.name("profile"));
  return r;
}
int64_t ScenarioResult::HeldPhase::peak_bytes() const {
  int64_t n = 0;
  for (int64_t b : per_rank) n = std::max(n, b);
  return n;
}

void aggregate_repeats(ScenarioResult& r) {
  auto med = [&](double RepeatSample::*f) {
    std::vector<double> v;
    for (const auto& s : r.repeats) v.push_back(s.*f);
    return median(v);
  };
  r.wall_time_s = med(&RepeatSample::wall_time_s);
  r.train_samples_per_s = med(&RepeatSample::train_samples_per_s);
  r.train_tokens_per_s = med(&RepeatSample::train_tokens_per_s);
  r.step_ms_median = med(&RepeatSample::step_ms_median);
  // Accuracy is a figure over repeats like the rest (a report read back from
  // an old version without per-repeat accuracy keeps its own).
  bool accuracies = false;
  for (const auto& s : r.repeats) accuracies = accuracies || s.test_acc > 0 || s.val_acc > 0;
  if (accuracies) {
    r.val_acc = med(&RepeatSample::val_acc);
    r.test_acc = med(&RepeatSample::test_acc);
  }
  r.peak_bytes = 0;
  for (const auto& s : r.repeats) r.peak_bytes = std::max(r.peak_bytes, s.peak_bytes);
  // Phases: each phase's median, where every repeat measured them on one clock
  // (otherwise the row keeps what it has: the last repeat's, or an old report's).
  const bool phased = !r.repeats.empty() && std::all_of(r.repeats.begin(), r.repeats.end(), [&](const RepeatSample& s) {
    return !s.phases.empty() && s.phases.clock == r.repeats.front().phases.clock;
  });
  if (phased) {
    PhaseTimes p;
    p.clock = r.repeats.front().phases.clock;
    for (Phase ph : all_phases()) {
      std::vector<double> v;
      for (const auto& s : r.repeats) v.push_back(s.phases[ph]);
      p[ph] = median(v);
    }
    r.phases = p;
  }
}

}  // namespace ftb
