#include "reports/record/report_values.h"

#include <cmath>
#include <string>

#include "core/base/errors.h"
#include "core/base/json_fields.h"
#include "core/base/json_path.h"
#include "core/base/text_format.h"

namespace ftb {

using nlohmann::json;

namespace {

// Paths inside one result object; losses are not here (a diverged loss is
// NaN by right), nor the row's accuracies (a row that does not evaluate has
// none); each repeat's test_acc is (history and regress judge it).
constexpr const char* kResultKeys[] = {
    "wall_time_s", "throughput.train_samples_per_s", "throughput.train_tokens_per_s", "throughput.train_samples",
    "memory.peak_bytes", "efficiency.step_ms_median", "efficiency.model_tflops_per_s", "data.loader_wait_s",
    "technique.capture_time_s"};
constexpr const char* kSampleKeys[] = {"wall_time_s",    "train_samples_per_s", "train_tokens_per_s", "peak_bytes",
                                       "step_ms_median", "train_samples",       "steady_samples_per_s", "test_acc"};

void check(const json& parent, const std::string& parent_path, const std::string& key) {
  const json* v = json_at_path(parent, key);
  if (!v) return;  // optional keys; required ones were checked by the reader
  const std::string where = parent_path + "." + key;
  if (v->is_null()) {
    throw InputError(where + ": is NaN (null in the file); times, throughputs and byte counts must be finite and >= 0");
  }
  if (!v->is_number()) return;  // the reader checked types
  const double x = v->get<double>();
  if (!std::isfinite(x) || x < 0) {
    throw InputError(where + ": is " + shortest_double(x) +
                     "; times, throughputs and byte counts must be finite and >= 0");
  }
}

}  // namespace

void check_measurements(const json& results) {
  if (!results.is_array()) return;
  for (size_t i = 0; i < results.size(); ++i) {
    const json& r = results[i];
    if (!r.is_object()) continue;
    const std::string path = indexed("results", i);
    for (const char* key : kResultKeys) check(r, path, key);
    auto samples = r.find("samples");
    if (samples != r.end() && samples->is_array())
      for (size_t k = 0; k < samples->size(); ++k)
        for (const char* key : kSampleKeys) check((*samples)[k], path + "." + indexed("samples", k), key);
    auto epochs = r.find("epochs");
    if (epochs != r.end() && epochs->is_array())
      for (size_t k = 0; k < epochs->size(); ++k) check((*epochs)[k], path + "." + indexed("epochs", k), "time_s");
  }
}

}  // namespace ftb
