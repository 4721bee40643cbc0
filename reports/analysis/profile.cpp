#include "reports/analysis/profile.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "core/base/text_format.h"

namespace ftb {
namespace {

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

struct Rule {
  OpCategory category;
  std::vector<const char*> parts;  // any of these substrings (lower case)
};

// The rule table, first match wins. Order matters where names overlap: the
// loss's log_softmax is element-wise, attention's softmax is attention;
// batched matmuls (bmm) are attention's (the model's only batched matmuls:
// Q·Kᵀ and weights·V when SDPA takes its math path). Device kernel names
// (cuBLAS/CUTLASS gemms, flash/efficient attention, at::native's
// elementwise and reduce kernels, multi_tensor_apply for foreach/fused Adam)
// are covered by the same substrings.
const std::vector<Rule>& rules() {
  static const std::vector<Rule> r = {
      {OpCategory::communication,
       {"c10d::", "nccl", "gloo", "allreduce", "all_reduce", "allgather", "all_gather", "reduce_scatter",
        "reducescatter", "broadcast", "record_param_comms",
        // gradient hooks: ours (scenarios/parallel/grad_ready_hook.h), DDP's reducer, FSDP's
        "grad_ready_hook", "ddp.reducer", "_post_backward_hook"}},
      {OpCategory::copies,
       {"aten::copy_", "aten::to", "aten::_to_copy", "memcpy", "memset", "aten::contiguous", "aten::clone",
        "aten::index_put", "pin_memory"}},
      {OpCategory::optimizer, {"adam", "optimizer", "_foreach_", "multi_tensor_apply"}},
      {OpCategory::elementwise_norm, {"nll_loss", "log_softmax", "cross_entropy"}},
      {OpCategory::attention,
       {"attention", "sdpa", "softmax", "flash", "fmha", "aten::bmm", "aten::baddbmm", "bmm_"}},
      {OpCategory::matmul,
       {"aten::mm", "aten::addmm", "aten::matmul", "aten::linear", "gemm", "cutlass", "cublas", "aten::_addmm",
        "xmma", "mkldnn_matmul"}},
      {OpCategory::elementwise_norm,
       {"norm", "gelu", "relu", "tanh", "dropout", "bernoulli", "aten::add", "aten::mul", "aten::div", "aten::sub", "aten::sqrt",
        "aten::exp", "aten::fill_", "aten::zero", "aten::sum", "aten::mean", "aten::where", "masked_fill",
        "elementwise", "reduce_kernel", "aten::threshold", "aten::rsub", "aten::pow", "aten::neg", "aten::eq",
        "aten::argmax", "aten::max", "vectorized", "unrolled"}},
  };
  return r;
}

double per_step(double seconds, const OpProfile& p) { return p.steps > 0 ? seconds / static_cast<double>(p.steps) : 0; }
double step_wall(const OpProfile& p) { return per_step(p.wall_s, p); }
double share_of_step(double step_s, const OpProfile& p) { return step_wall(p) > 0 ? step_s / step_wall(p) : 0; }

const std::vector<OpStat>& ops_of(const OpProfile& p, bool device) { return device ? p.device_ops : p.host; }

// Per-step time by category, untracked/idle included.
std::map<OpCategory, double> category_step_s(const OpProfile& p, bool device) {
  std::map<OpCategory, double> by;
  for (const auto& o : ops_of(p, device)) by[op_category(o.name, o.phase, device)] += per_step(o.self_s, p);
  if (device) by[OpCategory::idle] += per_step(p.device_idle_s, p);
  else by[OpCategory::untracked] += std::max(0.0, per_step(p.wall_s - p.host_ops_s, p));
  return by;
}

// Per-step time and calls by operator name (phases summed).
std::map<std::string, OperatorTime> operator_step(const OpProfile& p, bool device) {
  std::map<std::string, OperatorTime> by;
  std::map<std::string, std::map<OpCategory, double>> cat_time;
  std::map<std::string, int64_t> calls;
  for (const auto& o : ops_of(p, device)) {
    OperatorTime& t = by[o.name];
    t.name = o.name;
    t.step_s += per_step(o.self_s, p);
    calls[o.name] += o.calls;
    cat_time[o.name][op_category(o.name, o.phase, device)] += o.self_s;
  }
  for (auto& [name, t] : by) {
    t.calls_per_step = p.steps > 0 ? calls[name] / p.steps : 0;
    t.share = share_of_step(t.step_s, p);
    // The category that holds most of its time (aten::mul: element-wise in
    // forward, optimizer in the optimizer phase).
    const auto& c = cat_time[name];
    t.category = std::max_element(c.begin(), c.end(), [](const auto& x, const auto& y) { return x.second < y.second; })
                     ->first;
  }
  return by;
}

std::string ms(double s) { return format_double("%.2f", s * 1000) + " ms"; }
std::string signed_ms(double s) { return (s >= 0 ? "+" : "") + format_double("%.2f", s * 1000) + " ms"; }

}  // namespace

const std::vector<OpCategory>& all_op_categories() {
  static const std::vector<OpCategory> all = {OpCategory::matmul,   OpCategory::attention,     OpCategory::elementwise_norm,
                                              OpCategory::optimizer, OpCategory::communication, OpCategory::copies,
                                              OpCategory::other,    OpCategory::untracked,     OpCategory::idle};
  return all;
}

std::string to_string(OpCategory c) {
  switch (c) {
    case OpCategory::matmul: return "matmul";
    case OpCategory::attention: return "attention";
    case OpCategory::elementwise_norm: return "elementwise_norm";
    case OpCategory::optimizer: return "optimizer";
    case OpCategory::communication: return "communication";
    case OpCategory::copies: return "copies";
    case OpCategory::other: return "other";
    case OpCategory::untracked: return "untracked";
    case OpCategory::idle: return "idle";
  }
  return "other";
}

OpCategory op_category(const std::string& name, const std::string& phase, bool device_kernel) {
  const std::string n = lower(name);
  for (const auto& rule : rules()) {
    // The phase decides before the element-wise and matmul rules: Adam's
    // arithmetic is optimizer time; copies and collectives stay what they are.
    if (!device_kernel && phase == "optimizer" && rule.category != OpCategory::communication &&
        rule.category != OpCategory::copies)
      return OpCategory::optimizer;
    for (const char* part : rule.parts)
      if (n.find(part) != std::string::npos) return rule.category;
  }
  if (!device_kernel && phase == "optimizer") return OpCategory::optimizer;
  return OpCategory::other;
}

std::vector<CategoryTime> profile_categories(const OpProfile& p, bool device) {
  const bool dev = device && p.device;
  const auto by = category_step_s(p, dev);
  std::vector<CategoryTime> out;
  for (OpCategory c : all_op_categories()) {
    auto it = by.find(c);
    if (it == by.end() || it->second <= 0) continue;
    out.push_back({c, it->second, share_of_step(it->second, p)});
  }
  return out;
}

std::vector<OperatorTime> top_operators(const OpProfile& p, bool device, std::size_t n) {
  const auto by = operator_step(p, device && p.device);
  std::vector<OperatorTime> out;
  for (const auto& [name, t] : by) out.push_back(t);
  std::stable_sort(out.begin(), out.end(), [](const OperatorTime& a, const OperatorTime& b) { return a.step_s > b.step_s; });
  if (out.size() > n) out.resize(n);
  return out;
}

namespace {

std::vector<DiffLine> diff_lines(const std::map<std::string, double>& a, const std::map<std::string, double>& b,
                                 double change) {
  std::map<std::string, DiffLine> by;
  for (const auto& [name, s] : a) by[name].a_step_s = s;
  for (const auto& [name, s] : b) by[name].b_step_s = s;
  std::vector<DiffLine> out;
  for (auto& [name, line] : by) {
    line.name = name;
    line.change_s = line.b_step_s - line.a_step_s;
    line.share = change != 0 ? line.change_s / change : 0;
    out.push_back(line);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const DiffLine& x, const DiffLine& y) { return std::abs(x.change_s) > std::abs(y.change_s); });
  return out;
}

}  // namespace

ProfileDiff profile_diff(const OpProfile& a, const OpProfile& b) {
  ProfileDiff d;
  d.device = a.device && b.device;
  d.a_step_s = step_wall(a);
  d.b_step_s = step_wall(b);
  d.change_s = d.b_step_s - d.a_step_s;
  d.a_version = a.summary_version;
  d.b_version = b.summary_version;
  d.comparable = a.summary_version == b.summary_version;
  if (!d.comparable) return d;
  std::map<std::string, double> oa, ob, ca, cb;
  for (const auto& [name, t] : operator_step(a, d.device)) oa[name] = t.step_s;
  for (const auto& [name, t] : operator_step(b, d.device)) ob[name] = t.step_s;
  for (const auto& [c, s] : category_step_s(a, d.device)) ca[to_string(c)] = s;
  for (const auto& [c, s] : category_step_s(b, d.device)) cb[to_string(c)] = s;
  d.operators = diff_lines(oa, ob, d.change_s);
  d.categories = diff_lines(ca, cb, d.change_s);
  return d;
}

std::string not_comparable_text(const ProfileDiff& d) {
  if (d.comparable) return "";
  return "the profiles are not comparable (summarised by different ftbench versions: summary_version " +
         std::to_string(d.a_version) + " and " + std::to_string(d.b_version) + ")";
}

std::string describe_diff(const ProfileDiff& d, std::size_t n) {
  auto lines = [&](const std::vector<DiffLine>& v) {
    std::string out;
    for (std::size_t i = 0; i < v.size() && i < n; ++i)
      out += (i ? ", " : "") + v[i].name + " " + signed_ms(v[i].change_s) + " (" +
             format_double("%.0f", 100 * v[i].share) + " %)";
    return out;
  };
  const std::string step = "step " + ms(d.a_step_s) + " -> " + ms(d.b_step_s) + " (" + signed_ms(d.change_s) + ", " +
                           (d.device ? "device time" : "host self time") + ")";
  if (!d.comparable) return step + "; " + not_comparable_text(d);
  return step + "; categories: " + lines(d.categories) +
         "; operators: " + lines(d.operators);
}

nlohmann::json profile_diff_json(const ProfileDiff& d) {
  auto lines = [](const std::vector<DiffLine>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& l : v)
      a.push_back({{"name", l.name}, {"reference_step_s", l.a_step_s}, {"other_step_s", l.b_step_s},
                   {"change_s", l.change_s}, {"share_of_change", l.share}});
    return a;
  };
  nlohmann::json j = {{"basis", d.device ? "device time" : "host self time"},
                      {"reference_step_s", d.a_step_s},
                      {"other_step_s", d.b_step_s},
                      {"change_s", d.change_s},
                      {"categories", lines(d.categories)},
                      {"operators", lines(d.operators)}};
  if (!d.comparable) j["not_comparable"] = not_comparable_text(d);
  return j;
}

nlohmann::json profile_report_json(const OpProfile& p) {
  nlohmann::json j = to_json(p);
  if (!has_profile(p)) return j;
  auto add_shares = [&](nlohmann::json& ops, bool device) {
    for (auto& o : ops) {
      o["share"] = share_of_step(per_step(o.at("self_s").get<double>(), p), p);
      o["category"] = to_string(op_category(o.at("name").get<std::string>(), o.value("phase", ""), device));
    }
  };
  add_shares(j["host"], false);
  auto categories = [&](bool device) {
    nlohmann::json c = nlohmann::json::object();
    for (const auto& t : profile_categories(p, device)) c[to_string(t.category)] = {{"step_s", t.step_s}, {"share", t.share}};
    return c;
  };
  j["categories"] = {{"host", categories(false)}};
  if (p.device) {
    add_shares(j["device_ops"], true);
    j["categories"]["device"] = categories(true);
  }
  return j;
}

}  // namespace ftb
