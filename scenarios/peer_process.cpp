#include "scenarios/peer_process.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>

#include <torch/version.h>

#include "core/model/attention.h"
#include "core/model/checkpoint.h"
#include "core/model/safetensors.h"
#include "core/base/errors.h"
#include "core/base/files.h"
#include "core/base/json_fields.h"
#include "core/base/subprocess.h"
#include "core/measure/device.h"
#include "scenarios/common.h"
#include "scenarios/result.h"

namespace ftb {

// Set at configure time (scenarios/peer_paths.cpp.in).
const char* build_peer_python();
const char* build_peer_script();

namespace {

constexpr int kPeerSkips = 3;              // tools/peer.py: the variant cannot run here
constexpr double kProbeTimeoutS = 60;      // reading two package versions
constexpr double kPeerTimeoutS = 7 * 86400;  // a full paper run of the peer is hours on a CPU

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// "2.11.0+cu130" -> "2.11.0": the build tag names the wheel's CUDA, not the release.
std::string release_of(const std::string& version) { return version.substr(0, version.find('+')); }

// Why `python` cannot run the peer ("" when it can); probed once per python
// (package metadata only: importing torch and transformers takes seconds).
std::string python_unusable(const PeerCommand& cmd) {
  static std::mutex mu;
  static std::map<std::string, std::string> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(cmd.python); it != cache.end()) return it->second;
  const std::string fix = " (tools/setup.sh --peer installs it, or set FTB_PEER_PYTHON)";
  std::string why;
  if (::access(cmd.python.c_str(), X_OK) != 0) {
    why = "no python at " + cmd.python + fix;
  } else if (::access(cmd.script.c_str(), R_OK) != 0) {
    why = "no peer script at " + cmd.script;
  } else {
    const Finished f = run_captured(
        {cmd.python, "-c",
         "import importlib.metadata as m\n"
         "for p in ('torch', 'transformers', 'safetensors'):\n"
         "    try: print(p, m.version(p))\n"
         "    except m.PackageNotFoundError: print(p, '-')\n"},
        kProbeTimeoutS);
    std::map<std::string, std::string> have;
    for (size_t at = 0; at < f.out.size();) {
      const size_t end = f.out.find('\n', at), space = f.out.find(' ', at);
      if (space < end) have[f.out.substr(at, space - at)] = f.out.substr(space + 1, end - space - 1);
      at = end == std::string::npos ? f.out.size() : end + 1;
    }
    if (!f.started || f.timed_out || !WIFEXITED(f.status) || WEXITSTATUS(f.status) != 0) {
      why = "cannot run " + cmd.python + ": " + (f.spawn_error.empty() ? last_line(f.err) : f.spawn_error);
    } else {
      for (const char* p : {"torch", "transformers", "safetensors"})
        if (have[p].empty() || have[p] == "-") {
          why = std::string(p) + " is not installed for " + cmd.python + fix;
          break;
        }
      if (why.empty() && release_of(have["torch"]) != release_of(TORCH_VERSION))
        why = cmd.python + " has torch " + have["torch"] + ", ftbench is built on LibTorch " + TORCH_VERSION +
              ": the two sides would not run the same library";
    }
  }
  cache[cmd.python] = why;
  return why;
}

using Tensors = std::vector<std::pair<std::string, torch::Tensor>>;

void add_batch(Tensors& out, const std::string& prefix, const Batch& b) {
  out.emplace_back(prefix + ".input_ids", b.input_ids);
  out.emplace_back(prefix + ".attention_mask", b.attention_mask);
  out.emplace_back(prefix + ".labels", b.labels);
}

// The batches of this run in the order the loop consumes them (see
// run_fine_tuning and evaluate): each epoch's first max_steps training batches,
// the first eval_max_batches of val and of test. Returns the test batches'
// rows (each example's place in the split), to place the peer's hits.
std::vector<std::vector<int64_t>> write_batches(const Workload& w, const RunConfig& c, const std::string& path) {
  RunLoaders loaders(w, c);
  std::vector<std::vector<int64_t>> test_rows;
  Tensors tensors;
  for (int epoch = 0; epoch < c.epochs; ++epoch) {
    loaders.train.start_epoch(epoch);
    for (int i = 0; c.max_steps == 0 || i < c.max_steps; ++i) {
      auto b = loaders.train.next();
      if (!b) break;
      add_batch(tensors, "train." + std::to_string(epoch) + "." + std::to_string(i), *b);
    }
  }
  for (auto [name, loader] : {std::pair<const char*, BatchLoader*>{"val", &loaders.val}, {"test", &loaders.test}}) {
    loader->start_epoch(0);
    for (int i = 0; c.eval_max_batches == 0 || i < c.eval_max_batches; ++i) {
      auto b = loader->next();
      if (!b) break;
      add_batch(tensors, std::string(name) + "." + std::to_string(i), *b);
      if (loader == &loaders.test) test_rows.push_back(loader->epoch_rows()[static_cast<std::size_t>(i)]);
    }
  }
  write_safetensors(path, tensors);
  return test_rows;
}

// The peer's test hits ("1"/"0" an example, in the batches' order) at each
// example's place in the split, as ftbench's own rows keep them; none where
// the peer sent none or scored only part of the split (eval_max_batches).
std::vector<bool> peer_test_hits(const nlohmann::json& test, const std::vector<std::vector<int64_t>>& rows,
                                 std::size_t split_size) {
  if (!test.contains("hits")) return {};
  const std::string hits = test.at("hits").get<std::string>();
  std::size_t scored = 0;
  for (const auto& b : rows) scored += b.size();
  if (hits.size() != scored)
    throw std::runtime_error("the peer's output: " + std::to_string(hits.size()) + " test hits for " +
                             std::to_string(scored) + " examples");
  if (scored != split_size) return {};
  std::vector<bool> correct(split_size);
  std::size_t at = 0;
  for (const auto& b : rows)
    for (const int64_t row : b) correct.at(static_cast<std::size_t>(row)) = hits[at++] == '1';
  return correct;
}

// The peer's JSON as the loop's result (what ftbench's own rows measure).
LoopResult loop_from_peer(const nlohmann::json& j, int64_t warmup_steps) {
  LoopResult loop;
  for (const auto& s : j.at("steps")) {
    StepRecord r;
    r.step = s.at("step").get<int64_t>();
    r.epoch = s.at("epoch").get<int64_t>();
    r.step_ms = s.at("step_ms").get<double>();
    r.loss = s.at("loss").get<double>();
    r.samples = s.at("samples").get<int64_t>();
    r.tokens = s.at("tokens").get<int64_t>();
    r.seq_len = s.at("seq_len").get<int64_t>();
    loop.steps.push_back(r);
  }
  // Read as a report's epochs are; a bad one fails this row (the peer's
  // output is not the user's input, so no InputError leaves here).
  const nlohmann::json& epochs = j.at("epochs");
  try {
    for (size_t i = 0; i < epochs.size(); ++i) loop.epochs.push_back(epoch_from_json(epochs[i], indexed("epochs", i)));
  } catch (const InputError& e) {
    throw std::runtime_error(std::string("the peer's output: ") + e.what());
  }
  loop.wall_time_s = j.at("wall_time_s").get<double>();
  loop.train_time_s = j.at("train_time_s").get<double>();
  loop.train_samples = loop.rank_train_samples = j.at("train_samples").get<int64_t>();
  loop.train_tokens = j.at("train_tokens").get<int64_t>();
  loop.step_ms_median = j.at("step_ms_median").get<double>();
  loop.steady_samples_per_s = steady_throughput(loop.steps, warmup_steps);
  loop.test.loss = j.at("test").at("loss").get<double>();
  loop.test.acc = j.at("test").at("acc").get<double>();
  loop.test.samples = j.at("test").at("samples").get<int64_t>();
  return loop;
}

// tools/peer.py's command line: the files in `dir` and the settings this row
// shares with ftbench's own (device, threads, lr, Adam kernel, warmup, seed).
std::vector<std::string> peer_argv(const PeerCommand& cmd, const std::string& dir, const torch::Device& device,
                                   const RunConfig& c, AdamKernel kernel, const PeerVariant& v) {
  std::vector<std::string> argv = {cmd.python, cmd.script,
                                   "--model", dir + "/model",
                                   "--batches", dir + "/batches.safetensors",
                                   "--out", dir + "/peer.json",
                                   "--device", device.str(),
                                   "--threads", std::to_string(at::get_num_threads()),
                                   "--lr", std::to_string(c.lr),
                                   "--foreach", kernel == AdamKernel::foreach ? "on" : "off",
                                   "--warmup-steps", std::to_string(c.warmup_steps),
                                   "--seed", std::to_string(c.seed)};
  if (v != PeerVariant::fp32) argv.insert(argv.end(), {"--amp", "fp16"});
  if (v == PeerVariant::amp_compiled) argv.push_back("--compile");
  return argv;
}

// Throws unless the peer ran to a 0 exit; kPeerSkips says it cannot run here.
void check_peer_finished(const PeerCommand& cmd, const Finished& f) {
  if (!f.started) throw std::runtime_error("cannot start " + cmd.python + ": " + f.spawn_error);
  if (f.timed_out) throw std::runtime_error("the peer ran out of time and was stopped");
  if (WIFSIGNALED(f.status)) throw std::runtime_error("the peer was killed by signal " + std::to_string(WTERMSIG(f.status)));
  if (WEXITSTATUS(f.status) != 0) {
    const std::string why = last_line(f.err);
    throw std::runtime_error((WEXITSTATUS(f.status) == kPeerSkips ? "the peer cannot run here: " : "the peer failed: ") +
                             (why.empty() ? "exit status " + std::to_string(WEXITSTATUS(f.status)) : why));
  }
}

}  // namespace

PeerCommand peer_command() {
  return {env_or("FTB_PEER_PYTHON", env_or("FTB_PYTHON", build_peer_python())), build_peer_script()};
}

std::string peer_unavailable(const RunConfig& c, const PeerVariant& v) {
  if (c.model_type == ModelType::bert)
    return "the peer runs Hugging Face's DistilBertForSequenceClassification; this run's model is BERT (model_type=bert)";
  if (c.adam == AdamKernel::fused)
    return "the peer steps torch.optim.Adam's loop or foreach kernel, as baseline; this run asks for adam=fused";
  if (c.accumulate > 1)
    return "accumulate=" + std::to_string(c.accumulate) +
           " is not passed to the peer: its loop steps once per batch it is handed (no gradient accumulation)";
  const bool cuda = resolve_device(c.device).is_cuda();
  if (v != PeerVariant::fp32 && !cuda)
    return std::string("the peer's ") + (v == PeerVariant::amp_compiled ? "torch.compile + fp16 AMP" : "fp16 AMP") +
           " variant is measured on CUDA (device \"" + c.device + "\" is the CPU), as ftbench's amp row";
  return python_unusable(peer_command());
}

ScenarioResult run_peer(const Workload& w, const RunConfig& c, const ScenarioContext& ctx,
                        const std::string& scenario, const PeerVariant& v) {
  const PeerCommand cmd = peer_command();
  const torch::Device device = resolve_device(c.device);
  const AdamKernel kernel = resolve_adam_kernel(c.adam, device);
  if (kernel == AdamKernel::fused) throw std::runtime_error("the peer runs torch.optim.Adam's loop or foreach kernels, not adam=fused");

  // The hand-over files can be large (the paper preset's batches are ~1 GB):
  // below the report folder, removed after the repeat; a temporary folder
  // without one.
  std::optional<TempDir> tmp;
  std::string dir;
  if (ctx.out_dir.empty()) {
    dir = tmp.emplace("ftb-peer-").path();
  } else {
    dir = ctx.out_dir + "/peer-work";
    make_directories(dir);
  }
  struct Cleanup {
    std::string dir;
    bool own;
    ~Cleanup() {
      if (own) remove_tree(dir);
    }
  } cleanup{dir, !tmp};

  auto model = w.make_model();  // the initial weights every row starts from
  save_model_dir(model, dir + "/model");
  const auto test_rows = write_batches(w, c, dir + "/batches.safetensors");

  const std::vector<std::string> argv = peer_argv(cmd, dir, device, c, kernel, v);
  const Finished f = run_captured(argv, kPeerTimeoutS);
  check_peer_finished(cmd, f);

  const auto j = nlohmann::json::parse(read_text_file(dir + "/peer.json"));
  LoopResult loop = loop_from_peer(j, c.warmup_steps);
  loop.test.correct = peer_test_hits(j.at("test"), test_rows, w.test.size());
  auto r = result_from_loop(scenario, loop, device,
                            v != PeerVariant::fp32 ? Precision::fp16_mixed : Precision::fp32, optimizer_label(kernel));
  // Memory of the Python process, not of ftbench's.
  r.peak_bytes = j.at("peak_bytes").get<int64_t>();
  r.peak_bytes_source = j.at("peak_bytes_source").get<std::string>();
  r.repeats.back().peak_bytes = r.peak_bytes;
  r.skipped_steps = j.at("skipped_steps").get<int64_t>();
  r.extra["runtime"] = "python";
  r.extra["attn_implementation"] = j.at("attn_implementation");
  r.extra["ftbench_attn_implementation"] = kAttnImplementation;
  r.extra["torch_version"] = j.at("torch_version");
  r.extra["transformers_version"] = j.at("transformers_version");
  r.extra["python_version"] = j.at("python_version");
  r.extra["peer_optimizer"] = j.at("optimizer");
  r.extra["peer_threads"] = j.at("threads");
  // The malloc rule the peer ran under (environment.allocator says ftbench's).
  r.extra["peer_glibc_tunables"] = j.value("glibc_tunables", nlohmann::json(nullptr));
  r.extra["compiled"] = j.at("compiled");
  r.extra["step_ms_median_ci95"] = j.at("step_ms_median_ci95");
  r.extra["warmup_pass_s"] = j.at("warmup_pass_s");  // untimed, as environment.warmup for ftbench
  return r;
}

ScenarioInfo peer_row(const std::string& name, PeerVariant v, std::string technique) {
  ScenarioInfo s;
  s.name = name;
  s.technique = std::move(technique);
  if (v != PeerVariant::fp32) {
    s.technique_settings = {RowSetting::precision};
    s.precision = Precision::fp16_mixed;
  }
  s.unavailable = [v](const RunConfig& c) { return peer_unavailable(c, v); };
  s.run = [name, v](const Workload& w, const RunConfig& c, const ScenarioContext& ctx) {
    return run_peer(w, c, ctx, name, v);
  };
  return s;
}

}  // namespace ftb
