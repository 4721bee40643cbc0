#include "reports/analysis/suspects.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "core/base/errors.h"
#include "core/base/text_format.h"
#include "core/base/json_text.h"
#include "reports/analysis/profile.h"

namespace ftb {

using nlohmann::json;

namespace {

// A recorded value as text: strings as they are, booleans yes/no, arrays
// joined; null (unknown) is no value.
std::optional<std::string> text_of(const json* v) {
  if (!v || v->is_null()) return std::nullopt;
  if (v->is_string()) return v->get<std::string>();
  if (v->is_boolean()) return std::string(v->get<bool>() ? "yes" : "no");
  if (v->is_array()) {
    std::string s;
    for (const auto& x : *v) s += (s.empty() ? "" : ", ") + (x.is_string() ? x.get<std::string>() : json_text(x));
    return s.empty() ? std::string("none") : s;
  }
  return json_text(*v);
}

const json* at_pointer(const json& j, const char* pointer) {
  const json::json_pointer p(pointer);
  return j.contains(p) ? &j.at(p) : nullptr;
}

using Emit = std::function<void(const std::string& key, std::optional<std::string> value)>;

struct Entry {
  const char* group;
  std::function<void(const RunFacts&, const Emit&)> read;
};

// A fact at a JSON pointer into the environment, named by its dotted path.
Entry at(const char* group, const char* pointer) {
  return {group, [pointer](const RunFacts& r, const Emit& emit) {
            std::string key = std::string(pointer).substr(1);
            std::replace(key.begin(), key.end(), '/', '.');
            emit(key, text_of(at_pointer(r.environment.facts(), pointer)));
          }};
}

// Every key of an object in the environment (cpu.isa's flags): a key one run
// lacks is not recorded there.
Entry each_key(const char* group, const char* pointer, const char* prefix) {
  return {group, [pointer, prefix](const RunFacts& r, const Emit& emit) {
            const json* o = at_pointer(r.environment.facts(), pointer);
            if (!o || !o->is_object()) return;
            for (const auto& [k, v] : o->items()) emit(std::string(prefix) + k, text_of(&v));
          }};
}

// One value per GPU (NVML's, or the CUDA properties'), joined in index order.
Entry per_gpu(const char* group, const char* list, const char* field, const char* key) {
  return {group, [list, field, key](const RunFacts& r, const Emit& emit) {
            const json* gpus = at_pointer(r.environment.facts(), list);
            if (!gpus || !gpus->is_array() || gpus->empty()) return emit(key, std::nullopt);
            std::string joined;
            for (const auto& g : *gpus) {
              const json* v = g.is_object() ? at_pointer(g, field) : nullptr;
              const auto t = text_of(v);
              if (!t) return emit(key, std::nullopt);
              joined += (joined.empty() ? "" : ", ") + *t;
            }
            emit(key, joined);
          }};
}

// Recorded on every report (an empty list on a CPU machine).
void emit_gpus(const RunFacts& r, const Emit& emit) {
  const json* gpus = r.environment.find("gpus");
  emit("gpus.name", gpus && gpus->is_array() ? std::optional<std::string>(
                                                   gpu_summary(r.environment).empty() ? "none"
                                                                                      : gpu_summary(r.environment))
                                             : std::nullopt);
}

// Older reports have it inside os ("Linux 6.18.44-fc-v657 x86_64").
void emit_kernel(const RunFacts& r, const Emit& emit) {
  if (const json* k = r.environment.find("kernel")) return emit("kernel", text_of(k));
  const json* os = r.environment.find("os");
  std::optional<std::string> release;
  if (os && os->is_string()) {
    const std::string s = os->get<std::string>();
    const auto a = s.find(' ');
    if (a != std::string::npos) release = s.substr(a + 1, s.find(' ', a + 1) - a - 1);
  }
  emit("kernel", release);
}

// A watched name that is not set reads "not set"; where the report does not
// say which names it watched, only the set ones are known.
void emit_env_vars(const RunFacts& r, const Emit& emit) {
  const json* set = r.environment.find("env_vars");
  const json* watched = r.environment.find("env_vars_watched");
  std::set<std::string> names;
  if (set && set->is_object())
    for (const auto& [k, v] : set->items()) names.insert(k);
  if (watched && watched->is_array())
    for (const auto& n : *watched)
      if (n.is_string()) names.insert(n.get<std::string>());
  for (const auto& n : names) {
    const json* v = set && set->is_object() && set->contains(n) ? &set->at(n) : nullptr;
    emit("env_vars." + n, v ? text_of(v) : std::optional<std::string>("not set"));
  }
}

const std::vector<Entry>& table() {
  static const std::vector<Entry> entries = {
      at("processor", "/cpu/vendor"),
      at("processor", "/cpu/family"),
      at("processor", "/cpu/model_number"),
      at("processor", "/cpu/stepping"),
      at("processor", "/cpu/model"),
      each_key("processor", "/cpu/isa", "cpu.isa."),
      at("processor", "/libtorch/cpu_capability"),
      {"processor", emit_gpus},
      per_gpu("processor", "/gpus", "/capability", "gpus.capability"),
      at("processor", "/cpu/microcode"),
      at("compute", "/cpu/available_cores"),
      at("compute", "/cpu/logical_cores"),
      at("compute", "/threads/intra_op"),
      at("compute", "/threads/inter_op"),
      at("libraries", "/libtorch/version"),
      at("libraries", "/libtorch/cuda"),
      at("libraries", "/libtorch/cudnn"),
      at("libraries", "/libtorch/nccl"),
      at("libraries", "/libtorch/mkl"),
      at("libraries", "/libtorch/onednn"),
      at("libraries", "/blas"),
      at("libraries", "/attn_implementation"),
      at("libraries", "/build_type"),
      at("libraries", "/compiler"),
      at("driver", "/driver_version"),
      at("driver", "/cuda_driver"),
      {"kernel", emit_kernel},
      at("frequency", "/cpu/frequency_governor"),
      at("frequency", "/cpu/frequency_driver"),
      per_gpu("frequency", "/nvml/gpus", "/clocks_max_mhz/sm", "nvml.gpus.clocks_max_mhz.sm"),
      per_gpu("frequency", "/nvml/gpus", "/clocks_max_mhz/memory", "nvml.gpus.clocks_max_mhz.memory"),
      per_gpu("frequency", "/nvml/gpus", "/power_limit_w", "nvml.gpus.power_limit_w"),
      {"settings", emit_env_vars},
      at("settings", "/allocator/malloc"),
      at("settings", "/allocator/glibc_tunables"),
      {"data", [](const RunFacts& r, const Emit& emit) { emit("config.workload.data_hash", text_of(&r.data_hash)); }},
      at("ftbench", "/git_commit"),
      at("ftbench", "/git_tree"),
  };
  return entries;
}

// "a | b | c"; more than three values as "first | ... | last (N values)".
std::string joined(const std::vector<std::string>& values) {
  if (values.size() > 3)
    return values.front() + " | ... | " + values.back() + " (" + std::to_string(values.size()) + " values)";
  std::string s;
  for (const auto& v : values) s += (s.empty() ? "" : " | ") + v;
  return s;
}

}  // namespace

RunFacts run_facts(const Environment& environment, const json& config) {
  RunFacts r;
  r.environment = environment;
  const json* hash = config.is_object() ? at_pointer(config, "/workload/data_hash") : nullptr;
  r.data_hash = hash ? *hash : json(nullptr);
  return r;
}

std::vector<SpeedFact> speed_facts(const RunFacts& run) {
  std::vector<SpeedFact> out;
  for (const auto& e : table())
    e.read(run, [&](const std::string& key, std::optional<std::string> value) {
      out.push_back({key, e.group, std::move(value)});
    });
  return out;
}

std::string to_string(SuspectKind k) {
  switch (k) {
    case SuspectKind::environment: return "environment";
    case SuspectKind::operator_time: return "operator";
  }
  return "?";
}

std::string Suspect::text() const {
  if (kind == SuspectKind::operator_time)
    return "operator " + key + " (" + group + "): " + joined(before) + " -> " + joined(after) +
           " ms a profiled step (" + format_double("%+.1f", 1e3 * change_s) + " ms, " +
           format_double("%.0f", 100 * share) + " % of the step's change)";
  return key + " (" + group + "): " + joined(before) + " -> " + joined(after);
}

WhatChanged what_changed(const std::vector<RunFacts>& before, const std::vector<RunFacts>& after) {
  WhatChanged w;
  if (before.empty() || after.empty()) return w;
  // Every key any run has, in the table's order (first seen first within an entry).
  std::vector<std::pair<std::string, std::string>> keys;  // key, group
  std::vector<std::map<std::string, std::optional<std::string>>> b, a;
  auto collect = [&](const std::vector<RunFacts>& runs, auto& into) {
    for (const auto& r : runs) {
      into.emplace_back();
      for (auto& f : speed_facts(r)) {
        if (std::none_of(keys.begin(), keys.end(), [&](const auto& k) { return k.first == f.key; }))
          keys.emplace_back(f.key, f.group);
        into.back()[f.key] = std::move(f.value);
      }
    }
  };
  collect(before, b);
  collect(after, a);
  // Keys come out of the table in its order for each run; a key only a later
  // run has lands after its entry's others, still inside its group's place
  // once sorted by the table's group order.
  std::vector<std::string> groups;
  for (const auto& e : table())
    if (std::find(groups.begin(), groups.end(), e.group) == groups.end()) groups.push_back(e.group);
  std::stable_sort(keys.begin(), keys.end(), [&](const auto& x, const auto& y) {
    return std::find(groups.begin(), groups.end(), x.second) < std::find(groups.begin(), groups.end(), y.second);
  });
  for (const auto& [key, group] : keys) {
    bool all = true, any = false;
    std::vector<std::string> vb, va;
    auto read = [&](const auto& side, std::vector<std::string>& values) {
      for (const auto& run : side) {
        const auto it = run.find(key);
        if (it == run.end() || !it->second) {
          all = false;
          continue;
        }
        any = true;
        if (std::find(values.begin(), values.end(), *it->second) == values.end()) values.push_back(*it->second);
      }
    };
    read(b, vb);
    read(a, va);
    if (!any) continue;
    if (!all) {
      w.not_recorded.push_back(key);
      continue;
    }
    ++w.compared;
    const bool shared = std::any_of(va.begin(), va.end(),
                                    [&](const std::string& v) { return std::find(vb.begin(), vb.end(), v) != vb.end(); });
    if (!shared) w.suspects.push_back({SuspectKind::environment, key, group, vb, va});
  }
  return w;
}

std::vector<std::string> what_changed_lines(const WhatChanged& w) {
  std::vector<std::string> out;
  bool environment = false;
  for (const auto& s : w.suspects)
    if (s.kind == SuspectKind::environment) out.push_back("- " + s.text()), environment = true;
  if (!environment)
    out.push_back("- no recorded fact differs (" + std::to_string(w.compared) + " compared)");
  if (!w.not_recorded.empty())
    out.push_back("- not recorded on every side, so not compared: " + names_for_message(w.not_recorded, 6));
  bool operators = false;
  for (const auto& s : w.suspects)
    if (s.kind == SuspectKind::operator_time) {
      if (!operators && !w.profiles.empty()) out.push_back("- operators that grew, " + w.profiles + ":");
      operators = true;
      out.push_back("  - " + s.text());
    }
  if (!operators && !w.profiles.empty()) out.push_back("- operators: " + w.profiles);
  return out;
}

double step_time_growth(double change, bool rate) { return rate ? 1 / (1 + change) - 1 : change; }

void add_operator_suspects(WhatChanged& w, const OpProfile& before, const std::string& before_from,
                           const OpProfile& after, const std::string& after_from, double measured_growth) {
  const ProfileDiff d = profile_diff(before, after);
  const std::string steps = format_double("%.1f", 1e3 * d.a_step_s) + " -> " +
                            format_double("%.1f", 1e3 * d.b_step_s) + " ms a " +
                            (d.device ? "profiled step, device time" : "profiled step, host self time");
  const std::string from = "profiles of " + before_from + " and " + after_from;
  if (!d.comparable) {
    w.profiles = from + ": " + not_comparable_text(d);
    return;
  }
  // The profiled step must show the slowdown the repeats measured (at least
  // half of it): a profiled step that grew 0.1 % by noise names nothing.
  const double profiled_growth = d.a_step_s > 0 ? d.b_step_s / d.a_step_s - 1 : 0;
  if (!(d.change_s > 0) || !(profiled_growth >= kProfiledShareOfSlowdown * measured_growth)) {
    w.profiles = from + ": the profiled steps do not show the slowdown (" + steps + ", measured " +
                 format_double("%+.1f", 100 * measured_growth) + " % a step)";
    return;
  }
  w.profiles = from + ", " + steps;
  int added = 0;
  for (const auto& line : d.operators) {
    if (added == 3) break;
    if (!(line.change_s > 0)) continue;
    Suspect s;
    s.kind = SuspectKind::operator_time;
    s.key = line.name;
    s.group = to_string(op_category(line.name, "", d.device));
    s.before = {format_double("%.1f", 1e3 * line.a_step_s)};
    s.after = {format_double("%.1f", 1e3 * line.b_step_s)};
    s.before_s = line.a_step_s;
    s.after_s = line.b_step_s;
    s.change_s = line.change_s;
    s.share = line.share;
    w.suspects.push_back(std::move(s));
    ++added;
  }
}

std::optional<OpProfile> profile_in(const Report& report, const std::string& scenario) {
  const ScenarioResult* r = find_result(report, scenario);
  if (r && has_profile(r->profile)) return r->profile;
  return std::nullopt;
}

json what_changed_json(const WhatChanged& w) {
  json environment = json::array(), operators = json::array();
  for (const auto& s : w.suspects) {
    if (s.kind == SuspectKind::environment)
      environment.push_back({{"key", s.key}, {"group", s.group}, {"before", s.before}, {"after", s.after}});
    else
      operators.push_back({{"name", s.key},
                           {"category", s.group},
                           {"before_step_s", s.before_s},
                           {"after_step_s", s.after_s},
                           {"change_s", s.change_s},
                           {"share_of_change", s.share}});
  }
  return {{"environment", std::move(environment)},
          {"not_recorded", w.not_recorded},
          {"compared", w.compared},
          {"operators", std::move(operators)},
          {"profiles", w.profiles}};
}

}  // namespace ftb
