#include "core/measure/op_profile.h"

#include <algorithm>
#include <map>

#include "core/base/json_fields.h"

namespace ftb {
namespace {

constexpr const char* kStepPrefix = "ProfilerStep#";

struct Interval {
  int64_t start, end;
};

template <class Key>
std::vector<OpStat> sorted(const std::map<Key, OpStat>& by_key) {
  std::vector<OpStat> out;
  for (const auto& [key, s] : by_key) out.push_back(s);
  std::stable_sort(out.begin(), out.end(), [](const OpStat& a, const OpStat& b) { return a.self_s > b.self_s; });
  return out;
}

// Host events inside `step` on every thread (on a GPU the autograd engine
// runs backward on a thread of its own), each thread's nested by time: a
// child lies inside its parent; an operator's self = own time - its child
// operators'; a range (ours) is no operator, it names the phase inside it.
// Ranges are transparent: an operator inside a range inside an operator
// (a phase opened in a gradient hook) is the outer operator's child, and the
// range's own time is no operator's child, so the self times of a thread add
// up to the time its outermost operators cover, never more (nothing counted
// twice, nothing lost inside a range that an operator encloses).
void add_host(const std::vector<const ProfileEvent*>& events, std::map<std::pair<std::string, std::string>, OpStat>& ops,
              double& total) {
  std::map<uint64_t, std::vector<const ProfileEvent*>> by_thread;
  for (const auto* e : events) by_thread[e->thread].push_back(e);
  for (auto& [thread, list] : by_thread) {
    std::sort(list.begin(), list.end(), [](const ProfileEvent* a, const ProfileEvent* b) {
      return a->start_ns != b->start_ns ? a->start_ns < b->start_ns : a->end_ns > b->end_ns;
    });
    std::vector<double> child_ns(list.size(), 0);
    std::vector<std::string> phase(list.size());
    std::vector<std::size_t> open;  // indices of the enclosing events
    for (std::size_t i = 0; i < list.size(); ++i) {
      while (!open.empty() && list[open.back()]->end_ns <= list[i]->start_ns) open.pop_back();
      for (auto it = open.rbegin(); it != open.rend(); ++it)
        if (list[*it]->range && list[i]->end_ns <= list[*it]->end_ns) {
          phase[i] = list[*it]->name;
          break;
        }
      if (!list[i]->range)
        for (auto it = open.rbegin(); it != open.rend(); ++it)
          if (!list[*it]->range && list[i]->end_ns <= list[*it]->end_ns) {  // the innermost operator around it
            child_ns[*it] += static_cast<double>(list[i]->end_ns - list[i]->start_ns);
            break;
          }
      open.push_back(i);
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (list[i]->range) continue;
      const double self_s = std::max(0.0, static_cast<double>(list[i]->end_ns - list[i]->start_ns) - child_ns[i]) / 1e9;
      OpStat& s = ops[{list[i]->name, phase[i]}];
      s.name = list[i]->name;
      s.phase = phase[i];
      ++s.calls;
      s.self_s += self_s;
      total += self_s;
    }
  }
}

// The length of the union of `spans` (sorted here).
int64_t union_ns(std::vector<Interval> spans) {
  std::sort(spans.begin(), spans.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  int64_t total = 0, cur_start = 0, cur_end = -1;
  bool open = false;
  for (const auto& s : spans) {
    if (!open || s.start > cur_end) {
      if (open) total += cur_end - cur_start;
      cur_start = s.start;
      cur_end = s.end;
      open = true;
    } else {
      cur_end = std::max(cur_end, s.end);
    }
  }
  if (open) total += cur_end - cur_start;
  return total;
}

}  // namespace

std::string profiler_step_name(int64_t step) { return kStepPrefix + std::to_string(step); }
bool is_profiler_step(const std::string& name) { return name.rfind(kStepPrefix, 0) == 0; }

OpProfile summarize_profile(const std::vector<ProfileEvent>& events, bool device) {
  OpProfile p;
  p.device = device;
  std::vector<Interval> steps;
  for (const auto& e : events)
    if (!e.on_device && is_profiler_step(e.name)) steps.push_back({e.start_ns, e.end_ns});
  std::sort(steps.begin(), steps.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::map<std::pair<std::string, std::string>, OpStat> host;
  std::map<std::string, OpStat> kernels;
  for (const auto& step : steps) {
    p.wall_s += static_cast<double>(step.end - step.start) / 1e9;
    std::vector<const ProfileEvent*> ops;
    std::vector<Interval> busy;
    for (const auto& e : events) {
      if (e.on_device) {
        const int64_t s = std::max(e.start_ns, step.start), t = std::min(e.end_ns, step.end);
        if (t <= s) continue;
        busy.push_back({s, t});
        OpStat& k = kernels[e.name];
        k.name = e.name;
        ++k.calls;
        k.self_s += static_cast<double>(t - s) / 1e9;
      } else if (!is_profiler_step(e.name) && e.start_ns >= step.start && e.end_ns <= step.end) {
        ops.push_back(&e);
      }
    }
    add_host(ops, host, p.host_ops_s);
    if (device) {
      const int64_t b = union_ns(busy);
      p.device_busy_s += static_cast<double>(b) / 1e9;
      p.device_idle_s += static_cast<double>(step.end - step.start - b) / 1e9;
    }
  }
  p.steps = static_cast<int64_t>(steps.size());
  p.host = sorted(host);
  p.device_ops = sorted(kernels);
  return p;
}

namespace {

nlohmann::json ops_to_json(const std::vector<OpStat>& ops) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& o : ops) {
    nlohmann::json j = {{"name", o.name}, {"calls", o.calls}, {"self_s", o.self_s}};
    if (!o.phase.empty()) j["phase"] = o.phase;
    a.push_back(std::move(j));
  }
  return a;
}

std::vector<OpStat> ops_from_json(const nlohmann::json& a, const std::string& where) {
  std::vector<OpStat> out;
  for (std::size_t i = 0; i < a.size(); ++i) {
    JsonFields f(a[i], where + "[" + std::to_string(i) + "]");
    out.push_back({f.string("name"), f.has("phase") ? f.string("phase") : "", f.integer("calls"), f.number("self_s")});
  }
  return out;
}

}  // namespace

nlohmann::json to_json(const OpProfile& p) {
  nlohmann::json j = {{"steps", p.steps},
                      {"wall_s", p.wall_s},
                      {"host_ops_s", p.host_ops_s},
                      {"device", p.device},
                      {"host", ops_to_json(p.host)},
                      {"trace", p.trace},
                      {"note", p.note},
                      {"summary_version", p.summary_version}};
  if (p.cpu_wait_s) j["cpu_wait_s"] = *p.cpu_wait_s;
  if (p.device) {
    j["device_busy_s"] = p.device_busy_s;
    j["device_idle_s"] = p.device_idle_s;
    j["device_ops"] = ops_to_json(p.device_ops);
  }
  return j;
}

OpProfile op_profile_from_json(const nlohmann::json& j, const std::string& where) {
  JsonFields f(j, where);
  OpProfile p;
  p.steps = f.integer("steps");
  p.wall_s = f.number("wall_s");
  p.host_ops_s = f.number("host_ops_s");
  p.device = f.at("device").get<bool>();
  p.host = ops_from_json(f.array("host"), f.name("host"));
  p.trace = f.string("trace");
  p.note = f.string("note");
  if (f.has("cpu_wait_s")) p.cpu_wait_s = f.number("cpu_wait_s");
  p.summary_version = f.has("summary_version") ? static_cast<int>(f.integer("summary_version")) : 1;
  if (p.device) {
    p.device_busy_s = f.number("device_busy_s");
    p.device_idle_s = f.number("device_idle_s");
    p.device_ops = ops_from_json(f.array("device_ops"), f.name("device_ops"));
  }
  return p;
}

}  // namespace ftb
