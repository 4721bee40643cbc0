#include "reports/analysis/metrics.h"

#include "core/base/errors.h"

namespace ftb {

const std::vector<Metric>& all_metrics() {
  static const std::vector<Metric> all = {Metric::train_samples_per_s, Metric::steady_samples_per_s,
                                          Metric::wall_time_s,         Metric::step_ms_median,
                                          Metric::test_acc,            Metric::peak_bytes};
  return all;
}

std::string to_string(Metric m) {
  switch (m) {
    case Metric::train_samples_per_s: return "train_samples_per_s";
    case Metric::steady_samples_per_s: return "steady_samples_per_s";
    case Metric::wall_time_s: return "wall_time_s";
    case Metric::step_ms_median: return "step_ms_median";
    case Metric::test_acc: return "test_acc";
    case Metric::peak_bytes: return "peak_bytes";
  }
  return "?";
}

Metric parse_metric(const std::string& text, const std::string& flag) {
  std::vector<std::string> names;
  for (Metric m : all_metrics()) {
    if (to_string(m) == text) return m;
    names.push_back(to_string(m));
  }
  input_error(flag, "unknown metric '" + text + "' (one of " + names_for_message(names, names.size()) + ")");
}

std::string metric_unit(Metric m) {
  switch (m) {
    case Metric::train_samples_per_s:
    case Metric::steady_samples_per_s: return "samples/s";
    case Metric::wall_time_s: return "s";
    case Metric::step_ms_median: return "ms";
    case Metric::test_acc: return "fraction";
    case Metric::peak_bytes: return "bytes";
  }
  return "";
}

stats::Direction metric_direction(Metric m) {
  switch (m) {
    case Metric::train_samples_per_s:
    case Metric::steady_samples_per_s:
    case Metric::test_acc: return stats::Direction::higher_is_better;
    default: return stats::Direction::lower_is_better;
  }
}

double metric_value(const RepeatSample& s, Metric m) {
  switch (m) {
    case Metric::train_samples_per_s: return s.train_samples_per_s;
    case Metric::steady_samples_per_s: return s.steady_samples_per_s;
    case Metric::wall_time_s: return s.wall_time_s;
    case Metric::step_ms_median: return s.step_ms_median;
    case Metric::test_acc: return s.test_acc;
    case Metric::peak_bytes: return static_cast<double>(s.peak_bytes);
  }
  return 0;
}

std::vector<double> metric_values(const std::vector<RepeatSample>& repeats, Metric m) {
  std::vector<double> v;
  for (const auto& s : repeats) v.push_back(metric_value(s, m));
  return v;
}

}  // namespace ftb
