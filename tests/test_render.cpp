// The views of a report: Vega-Lite specs (placeholders for skipped and failed
// rows, subtitles, error bars, loss per sample seen, step-time boxes, the
// "*" marker, the machine comparison), the table's MFU peak and reference
// columns, index.html (escaping, the whole environment, the renderer note),
// steps.csv read back, and the renderer's missing-python path.
#include "core/base/errors.h"
#include "core/base/files.h"
#include "reports/views/console_table.h"
#include "reports/views/html_page.h"
#include "reports/views/render.h"
#include "reports/record/report.h"
#include "reports/views/report_labels.h"
#include "reports/views/table.h"
#include "reports/views/vega.h"
#include "reports/views/views.h"

#include <doctest/doctest.h>

namespace {
// A chart's subtitle lines as one text (titles wrap at spaces: a phrase may span two lines).
std::string title_lines(const nlohmann::json& lines) {
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : " ") + l.get<std::string>();
  return out;
}
}  // namespace
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <string>

#include <sys/stat.h>

using nlohmann::json;

namespace {

ftb::ScenarioResult ok_result(const std::string& name, ftb::Precision p, int world_size, double wall_s,
                              int64_t samples_per_step) {
  ftb::ScenarioResult r;
  r.scenario = name;
  r.precision = p;
  r.world_size = world_size;
  r.wall_time_s = wall_s;
  r.train_samples_per_s = 1000 / wall_s;
  r.train_samples = 10 * samples_per_step * world_size;
  r.test_acc = 0.9;
  r.mfu = 0.14;
  r.warmup_steps = 2;
  r.epochs = {{1, 0.6, 0.7, 0.5, 0.75, 1.0}, {2, 0.4, 0.85, 0.45, 0.8, 1.0}};
  for (int64_t i = 1; i <= 10; ++i) {
    ftb::StepRecord s;
    s.step = i;
    s.epoch = 1 + (i - 1) / 5;
    s.step_ms = i <= 2 ? 500.0 : 10.0 + static_cast<double>(i);  // two slow warm-up steps
    s.loss = 1.0 / static_cast<double>(i);
    s.samples = samples_per_step;
    s.tokens = 100;
    s.seq_len = 64;
    r.steps.push_back(s);
  }
  r.repeats = {{wall_s * 1.05, 950 / wall_s, 1, 0.75, 0.9, 1 << 20, 12, r.train_samples, 1},
               {wall_s, 1000 / wall_s, 1, 0.8, 0.9, 1 << 20, 11, r.train_samples, 1},
               {wall_s * 0.97, 1020 / wall_s, 1, 0.8, 0.9, 1 << 20, 11.5, r.train_samples, 1}};
  return r;
}

ftb::ScenarioResult not_run(const std::string& name, ftb::Status status, const std::string& reason) {
  ftb::ScenarioResult r;
  r.scenario = name;
  r.status = status;
  r.reason = reason;
  return r;
}

// baseline, amp_bf16, ddp on 2 ranks with a step cap (twice the samples:
// end-to-end from samples/s, "*"), a skipped and a failed row.
ftb::Report fixture_report() {
  ftb::Report report;
  report.environment = nlohmann::json{{"host", "box"},
                        {"cpu", {{"model", "AMD EPYC"}, {"logical_cores", 2}}},
                        {"gpus", json::array()},
                        {"timestamp", "2026-11-30T22:00:29Z"},
                        {"peak_matmul_tflops", {{"by_precision", {{"fp32", 0.2264}}}}},
                        {"threads", {{"intra_op", 2}, {"parallel_info", "line one\nline two"}}}};
  report.config = {{"preset", "smoke"}};
  report.results.push_back(ok_result("baseline", ftb::Precision::fp32, 1, 20, 32));
  report.results.push_back(ok_result("amp_bf16", ftb::Precision::bf16_mixed, 1, 18, 32));
  report.results.push_back(not_run("cuda_graph", ftb::Status::skipped, "needs CUDA: no CUDA device visible"));
  report.results.push_back(ok_result("ddp", ftb::Precision::fp32, 2, 16, 32));
  report.results.push_back(not_run("fabric", ftb::Status::failed, "rank 1 <crashed> & \"died\""));
  return report;
}

const json* find_row(const json& values, const std::string& scenario, const std::string& series = "") {
  for (const auto& v : values)
    if (v.at("scenario") == scenario && (series.empty() || v.value("series", "") == series)) return &v;
  return nullptr;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("chart specs: every row on the axis, skipped and failed rows as labelled placeholders") {
  const auto specs = ftb::vega_specs(fixture_report());
  for (const char* name : ftb::kChartOrder) REQUIRE(specs.count(name) == 1);
  for (const char* name : {"speedup", "wall_time", "throughput", "test_accuracy", "step_time"}) {
    CAPTURE(name);
    const json& spec = specs.at(name);
    CHECK(spec.at("$schema") == ftb::kVegaLiteSchema);
    const json& values = spec.at("data").at("values");
    const json* skipped = find_row(values, "cuda_graph");
    const json* failed = find_row(values, "fabric");
    REQUIRE(skipped != nullptr);
    REQUIRE(failed != nullptr);
    CHECK(skipped->at("placeholder") == "skipped");
    CHECK(skipped->at("reason") == "needs CUDA: no CUDA device visible");
    CHECK(failed->at("placeholder") == "failed");
    CHECK(find_row(values, "baseline")->at("placeholder") == "");
    // The scenario axis lists all five rows in report order.
    const json& x = spec.at("layer")[0].at("encoding").at("x");
    CHECK(x.at("sort") == json::array({"baseline", "amp_bf16", "cuda_graph", "ddp", "fabric"}));
    // A text layer draws the placeholders.
    bool text_layer = false;
    for (const auto& layer : spec.at("layer"))
      text_layer |= layer.at("mark").at("type") == "text" && layer.at("encoding").at("text").at("field") == "placeholder";
    CHECK(text_layer);
  }
  // The line charts name what they cannot draw.
  for (const char* name : {"epochs", "loss"}) {
    CAPTURE(name);
    CHECK(title_lines(specs.at(name).at("title").at("subtitle")).find("not plotted: cuda_graph (skipped), fabric (failed)") !=
          std::string::npos);
  }
}

TEST_CASE("chart specs: the subtitle names machine, preset and date, and bars are coloured by precision") {
  const ftb::Report report = fixture_report();
  CHECK(ftb::report_subtitle(report) == "AMD EPYC, 2 cores · preset smoke · 2026-11-30");
  for (const auto& [name, spec] : ftb::vega_specs(report)) {
    CAPTURE(name);
    CHECK(spec.at("title").at("subtitle")[0] == ftb::report_subtitle(report));
  }
  const json bars = ftb::vega_specs(report).at("wall_time").at("layer")[0];
  CHECK(bars.at("mark").at("type") == "bar");
  CHECK(bars.at("encoding").at("color").at("field") == "precision");

  ftb::Report gpu = report;
  gpu.environment["gpus"] = json::array({{{"name", "NVIDIA H200"}}, {{"name", "NVIDIA H200"}}});
  CHECK(ftb::report_machine(gpu) == "2x NVIDIA H200");
  gpu.environment.facts().erase("timestamp");
  gpu.config.erase("preset");
  CHECK(ftb::report_subtitle(gpu) == "2x NVIDIA H200 · preset preset unknown · date unknown");
}

TEST_CASE("chart specs: wall time and speed-ups carry their 95 % interval as error bars") {
  const ftb::Report report = fixture_report();
  const auto specs = ftb::vega_specs(report);
  const json& wall = specs.at("wall_time");
  const json* base = find_row(wall.at("data").at("values"), "baseline");
  REQUIRE(base != nullptr);
  CHECK(base->at("value").get<double>() == doctest::Approx(20));  // median of 21, 20, 19.4
  CHECK(base->at("low").get<double>() <= base->at("value").get<double>());
  CHECK(base->at("high").get<double>() >= base->at("value").get<double>());
  CHECK(base->at("high").get<double>() > base->at("low").get<double>());
  const json& errorbar = wall.at("layer")[1];
  CHECK(errorbar.at("mark").at("type") == "errorbar");
  CHECK(errorbar.at("encoding").at("y").at("field") == "low");
  CHECK(errorbar.at("encoding").at("y2").at("field") == "high");
  CHECK(find_row(wall.at("data").at("values"), "cuda_graph")->at("value").is_null());

  // Both speed-ups per row; ddp's end-to-end came from samples/s: marked "*", and the subtitle says why.
  const json& speedup = specs.at("speedup");
  const json& values = speedup.at("data").at("values");
  REQUIRE(find_row(values, "ddp", "end-to-end") != nullptr);
  REQUIRE(find_row(values, "ddp", "steady-state") != nullptr);
  CHECK(find_row(values, "ddp", "end-to-end")->at("label").get<std::string>().back() == '*');
  CHECK(find_row(values, "amp_bf16", "end-to-end")->at("label").get<std::string>().back() == 'x');
  CHECK(find_row(values, "amp_bf16", "end-to-end")->at("value").get<double>() == doctest::Approx(20.0 / 18));
  CHECK(title_lines(speedup.at("title").at("subtitle")).find("* end-to-end from the samples/s ratio") != std::string::npos);
  CHECK(speedup.at("layer")[0].at("encoding").at("xOffset").at("field") == "series");
}

TEST_CASE("chart specs: loss is plotted per sample seen over all ranks, step times as boxes after warm-up") {
  const auto specs = ftb::vega_specs(fixture_report());
  const json& loss = specs.at("loss");
  CHECK(loss.at("encoding").at("x").at("field") == "samples_seen");
  int64_t base_last = 0, ddp_last = 0, ddp_first = 0;
  for (const auto& v : loss.at("data").at("values")) {
    if (v.at("scenario") == "baseline") base_last = v.at("samples_seen");
    if (v.at("scenario") == "ddp") {
      if (ddp_first == 0) ddp_first = v.at("samples_seen");
      ddp_last = v.at("samples_seen");
    }
  }
  CHECK(base_last == 10 * 32);  // 10 steps of 32
  CHECK(ddp_first == 2 * 32);   // one step on 2 ranks: 2 batches
  CHECK(ddp_last == 10 * 32 * 2);

  const json* box = find_row(specs.at("step_time").at("data").at("values"), "baseline");
  REQUIRE(box != nullptr);
  CHECK(box->at("steps") == 8);  // the 2 warm-up steps (500 ms) left out
  CHECK(box->at("p99").get<double>() < 100);
  CHECK(box->at("median").get<double>() == doctest::Approx(16.5));
  CHECK(box->at("p1").get<double>() <= box->at("p25").get<double>());
  CHECK(box->at("p75").get<double>() <= box->at("p99").get<double>());

  const json& epochs = specs.at("epochs").at("data").at("values");
  CHECK(epochs.size() == 3 * 2 * 4);  // 3 ok rows x 2 epochs x {train, val} x {loss, accuracy}
}

TEST_CASE("chart specs: rows without recorded steps (report.json alone) are named, not dropped") {
  ftb::Report report = fixture_report();
  for (auto& r : report.results) r.steps.clear();
  const auto specs = ftb::vega_specs(report);
  CHECK(specs.at("loss").at("data").at("values").empty());
  CHECK(contains(title_lines(specs.at("loss").at("title").at("subtitle")), "baseline (no steps recorded)"));
  CHECK(find_row(specs.at("step_time").at("data").at("values"), "baseline")->at("placeholder") == "no steps");
}

TEST_CASE("machine comparison: one colour per label, every report's rows, placeholders for rows that did not run") {
  ftb::Report a = fixture_report();
  ftb::Report b = fixture_report();
  b.environment["gpus"] = json::array({{{"name", "NVIDIA H200"}}});
  b.results[2] = ok_result("cuda_graph", ftb::Precision::fp32, 1, 5, 32);
  const auto labels = ftb::comparison_labels({&a, &b, &a});
  REQUIRE(labels.size() == 3);
  CHECK(labels[0] == "AMD EPYC, 2 cores (2026-11-30)");
  CHECK(labels[1] == "NVIDIA H200 (2026-11-30)");
  CHECK(labels[2] == "AMD EPYC, 2 cores (2026-11-30) #2");
  const json spec = ftb::machine_comparison_spec({{labels[0], &a}, {labels[1], &b}});
  const json& values = spec.at("data").at("values");
  CHECK(values.size() == 10);
  CHECK(spec.at("layer")[0].at("encoding").at("color").at("field") == "machine");
  CHECK(spec.at("layer")[0].at("encoding").at("color").at("scale").at("domain") == json::array({labels[0], labels[1]}));
  int placeholders = 0, bars = 0;
  for (const auto& v : values) {
    if (v.at("scenario") != "cuda_graph") continue;
    if (v.at("machine") == labels[0]) placeholders += v.at("placeholder") == "skipped";
    if (v.at("machine") == labels[1]) bars += v.at("value").is_number();
  }
  CHECK(placeholders == 1);
  CHECK(bars == 1);
}

TEST_CASE("table: MFU names the peak it is a fraction of, and the paper preset shows the reference's A100 figures") {
  ftb::Report report = fixture_report();
  std::string table = ftb::speedup_table_markdown(report);
  CAPTURE(table);
  CHECK(contains(table, "MFU (of peak TFLOP/s)"));
  CHECK(contains(table, "14.0 % of 0.226 fp32"));  // a CPU measures fp32 only: bf16 rows too
  CHECK_FALSE(contains(table, "reference A100"));
  {
    // A peak measured while a build held the cores: achieved above "peak".
    auto loaded = report;
    for (auto& r : loaded.results)
      if (r.mfu > 0) r.mfu *= 12;
    const auto t = ftb::speedup_table_markdown(loaded);
    CAPTURE(t);
    CHECK_FALSE(contains(t, "168.0 %"));
    CHECK(contains(t, "- (peak 0.226 fp32 below the achieved "));
    CHECK(contains(t, ": measured under load)"));
  }

  report.environment["peak_matmul_tflops"]["by_precision"]["bf16-mixed"] = 788.3;
  report.config["preset"] = "paper";
  table = ftb::speedup_table_markdown(report);
  CHECK(contains(table, "14.0 % of 788 bf16-mixed"));
  CHECK(contains(table, "reference A100 (docs/reference.md)"));
  CHECK(contains(table, "21.33 min, 89.92 %"));  // baseline: the tutorial's step 1 (docs/reference.md)
  // Every line has as many cells as the header.
  std::istringstream in(table);
  std::string header, line;
  std::getline(in, header);
  const auto pipes = [](const std::string& s) { return std::count(s.begin(), s.end(), '|'); };
  while (std::getline(in, line) && !line.empty()) CHECK(pipes(line) == pipes(header));
}

TEST_CASE("index.html: escaped table, the whole environment as nested lists, the renderer's note, nothing fetched") {
  ftb::Report report = fixture_report();
  report.environment["added_later"] = {{"nested", {{"deeper", "<value>"}}}, {"list", {1, 2}}};
  const std::string html = ftb::report_page_html(report, {{"speedup", "<?xml version=\"1.0\"?><svg width=\"10\"></svg>"},
                                                          {"loss", ""}},
                                                 "no python at /nonexistent", {});
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(contains(html, "<title>ftbench: AMD EPYC, 2 cores · preset smoke · 2026-11-30</title>"));
  CHECK(contains(html, "rank 1 &lt;crashed&gt; &amp; &quot;died&quot;"));  // the failed row's reason, escaped
  CHECK_FALSE(contains(html, "<crashed>"));
  CHECK(contains(html, "<dt>added_later</dt><dd><dl class=\"kv\"><dt>list</dt><dd><ol class=\"kv\"><li>1</li>"));
  CHECK(contains(html, "<dt>deeper</dt><dd>&lt;value&gt;</dd>"));
  CHECK(contains(html, "<pre>line one\nline two</pre>"));
  CHECK(contains(html, "Charts not rendered to SVG/PNG: no python at /nonexistent"));
  CHECK(contains(html, "<figure class=\"chart\" id=\"chart-speedup\" data-chart=\"speedup\">\n<svg width=\"10\">"));
  CHECK(contains(html, "loss: not rendered"));
  CHECK(contains(html, "14.0 % of 0.226 fp32"));  // the table's own cells
  CHECK(contains(html, "speed-up: baseline&#39;s wall time"));  // and its notes
  // Footnotes and the "Not run here" list are lists, not paragraphs that
  // begin with "- " (the old table_html made every line a <p>: these fail).
  CHECK(contains(html, "<p class=\"notes\">Not run here:</p>\n<ul class=\"notes\">\n<li>cuda_graph: "));
  CHECK(contains(html, "<ul class=\"notes\">\n<li>[1] "));
  CHECK_FALSE(contains(html, "<p class=\"notes\">- "));
  CHECK_FALSE(contains(html, "<script"));
  CHECK_FALSE(contains(html, "src=\"http"));
  CHECK_FALSE(contains(html, "href=\"http"));
}

TEST_CASE("steps.csv reads back into the results it was written from") {
  ftb::Report report = fixture_report();
  const std::string csv = ftb::steps_csv(report.results);
  ftb::TempDir dir("ftb_test_render");
  ftb::write_file_atomic(dir.path() + "/steps.csv", csv);
  std::vector<ftb::ScenarioResult> back = report.results;
  for (auto& r : back) r.steps.clear();
  ftb::read_steps_csv(dir.path() + "/steps.csv", back);
  REQUIRE(back[0].steps.size() == 10);
  CHECK(back[0].steps[3].step == 4);
  CHECK(back[0].steps[3].step_ms == report.results[0].steps[3].step_ms);
  CHECK(back[0].steps[3].loss == report.results[0].steps[3].loss);
  CHECK(back[0].steps[3].samples == 32);
  CHECK(back[0].steps[3].seq_len == 64);
  CHECK(back[2].steps.empty());
  CHECK(ftb::steps_csv(back) == csv);

  ftb::write_file_atomic(dir.path() + "/bad.csv", "scenario,step,epoch,step_ms,loss,samples\nbaseline,1,1,x,0.5,32\n");
  try {
    ftb::read_steps_csv(dir.path() + "/bad.csv", back);
    FAIL("no error");
  } catch (const ftb::InputError& e) {
    CHECK(contains(e.what(), "bad.csv: line 2: column 'step_ms' is not a number: 'x'"));
  }
}

TEST_CASE("views without a renderer: specs, table and index.html are written, and the outcome says why") {
  const ftb::Report report = fixture_report();
  ftb::TempDir dir("ftb_test_render");
  ftb::Renderer renderer;
  renderer.python = "/nonexistent/python";
  renderer.script = ftb::build_render_script();
  const ftb::RenderOutcome o = ftb::write_report_views({dir.path(), &report, false}, renderer);
  CHECK_FALSE(o.rendered);
  CHECK(contains(o.why_not, "no python at /nonexistent/python"));
  struct stat st {};
  for (const char* f : {"table.md", "index.html", "charts/speedup.vl.json", "charts/step_time.vl.json"}) {
    CAPTURE(f);
    CHECK(::stat((dir.path() + "/" + f).c_str(), &st) == 0);
  }
  CHECK(::stat((dir.path() + "/charts/speedup.svg").c_str(), &st) != 0);
  CHECK(contains(ftb::read_text_file(dir.path() + "/index.html"), "no python at /nonexistent/python"));
}

TEST_CASE("console table: every committed report's fits 120 columns, notes as footnotes, skipped rows listed") {
  for (const char* dir : {"cpu-smoke-2026-12-01", "gpu-2026-11-29/full", "cpu-dist4-zero-2026-12-01",
                          "peer-cpu-quiet-2026-12-01/smoke-b"}) {
    CAPTURE(dir);
    const ftb::Report r = ftb::read_report(std::string(FTB_RESULTS_DIR) + "/" + dir + "/report.json");
    const std::string text = ftb::console_table(r);
    std::istringstream lines(text);
    std::size_t longest = 0;
    for (std::string line; std::getline(lines, line);) {
      std::size_t n = 0;
      for (unsigned char c : line) n += (c & 0xC0) != 0x80;
      longest = std::max(longest, n);
    }
    CHECK(longest <= ftb::kConsoleWidth);
    for (const auto& row : r.results) {
      if (row.status == ftb::Status::skipped) {
        CHECK(text.find("- " + row.scenario + ": ") != std::string::npos);
        CHECK(text.find("| " + row.scenario + " ") == std::string::npos);
      } else {
        CHECK(text.find("| " + row.scenario + " ") != std::string::npos);
      }
    }
  }
  // A note on two rows is one footnote, referenced by both.
  const ftb::Report smoke = ftb::read_report(std::string(FTB_RESULTS_DIR) + "/cpu-dist4-zero-2026-12-01/report.json");
  const std::string text = ftb::console_table(smoke);
  CHECK(text.find("[1] ") != std::string::npos);
  CHECK(text.find("Not run here") == std::string::npos);  // every row of that run ran
}
