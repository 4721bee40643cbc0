# The sources of the libraries (and library members) that need no LibTorch,
# one list each, read by the normal build (core/, scenarios/, reports/) and by
# the libFuzzer build (tests/fuzz, standalone), which compiles the same lists
# with the fuzzing flags: a parser that moves or gains a source cannot break
# one build without the other. FTB_ROOT: the repository root.
set(FTB_BASE_SOURCES
  ${FTB_ROOT}/core/base/files.cpp ${FTB_ROOT}/core/base/subprocess.cpp ${FTB_ROOT}/core/base/text_format.cpp
  ${FTB_ROOT}/core/base/interrupt.cpp ${FTB_ROOT}/core/base/allocator.cpp ${FTB_ROOT}/core/base/host_name.cpp
  ${FTB_ROOT}/core/base/bit_pack.cpp)
set(FTB_TEXT_SOURCES
  ${FTB_ROOT}/core/text/tokenizer.cpp ${FTB_ROOT}/core/text/wordpiece_trainer.cpp
  ${FTB_ROOT}/core/text/tokenizer_json.cpp ${FTB_ROOT}/core/text/imdb_reader.cpp
  ${FTB_ROOT}/core/text/csv_reader.cpp ${FTB_ROOT}/core/text/split.cpp ${FTB_ROOT}/core/text/synthetic.cpp)
set(FTB_RECORDS_SOURCES ${FTB_ROOT}/core/measure/phases.cpp ${FTB_ROOT}/core/measure/op_profile.cpp)
# The torch-free members of ftb_model and ftb_train (compiled alone there:
# ftb_torch_free).
set(FTB_MODEL_TORCH_FREE_SOURCES ${FTB_ROOT}/core/model/hf_config.cpp ${FTB_ROOT}/core/model/safetensors_layout.cpp)
set(FTB_TRAIN_TORCH_FREE_SOURCES ${FTB_ROOT}/core/train/run_config.cpp)
set(FTB_LAUNCH_SOURCES ${FTB_ROOT}/scenarios/parallel/rank_env.cpp ${FTB_ROOT}/scenarios/parallel/launcher.cpp
  ${FTB_ROOT}/scenarios/parallel/launcher_ports.cpp)
set(FTB_RESULT_SOURCES ${FTB_ROOT}/scenarios/result.cpp)
set(FTB_STATS_SOURCES
  ${FTB_ROOT}/reports/analysis/statistics.cpp ${FTB_ROOT}/reports/analysis/two_level.cpp
  ${FTB_ROOT}/reports/analysis/resolution.cpp ${FTB_ROOT}/reports/analysis/verdict.cpp
  ${FTB_ROOT}/reports/analysis/change_points.cpp
  ${FTB_ROOT}/reports/analysis/moderated_variance.cpp ${FTB_ROOT}/reports/analysis/nightly.cpp
  ${FTB_ROOT}/reports/analysis/power.cpp ${FTB_ROOT}/reports/analysis/accuracy.cpp
  ${FTB_ROOT}/reports/analysis/duet.cpp ${FTB_ROOT}/reports/analysis/duet_power.cpp)
set(FTB_REPORT_UPGRADE_SOURCES ${FTB_ROOT}/reports/record/report_upgrade.cpp)
# ftb_reports also compiles render_paths.cpp, configured from reports/views/render_paths.cpp.in.
set(FTB_REPORTS_SOURCES
  ${FTB_ROOT}/reports/record/report.cpp ${FTB_ROOT}/reports/record/environment.cpp
  ${FTB_ROOT}/reports/record/report_values.cpp ${FTB_ROOT}/reports/record/run_report.cpp ${FTB_ROOT}/reports/analysis/report_json.cpp
  ${FTB_ROOT}/reports/analysis/parity.cpp ${FTB_ROOT}/reports/analysis/compare.cpp
  ${FTB_ROOT}/reports/analysis/compare_output.cpp ${FTB_ROOT}/reports/analysis/run_differences.cpp
  ${FTB_ROOT}/reports/analysis/environment_facts.cpp
  ${FTB_ROOT}/reports/analysis/profile.cpp ${FTB_ROOT}/reports/analysis/intervals.cpp
  ${FTB_ROOT}/reports/analysis/accuracy_verdict.cpp
  ${FTB_ROOT}/reports/analysis/metrics.cpp ${FTB_ROOT}/reports/analysis/history.cpp
  ${FTB_ROOT}/reports/analysis/history_series.cpp ${FTB_ROOT}/reports/analysis/history_duets.cpp
  ${FTB_ROOT}/reports/analysis/noise.cpp
  ${FTB_ROOT}/reports/analysis/regress.cpp ${FTB_ROOT}/reports/analysis/regress_steps.cpp
  ${FTB_ROOT}/reports/analysis/regress_history.cpp ${FTB_ROOT}/reports/analysis/regress_baseline.cpp
  ${FTB_ROOT}/reports/analysis/regress_output.cpp ${FTB_ROOT}/reports/analysis/suspects.cpp
  ${FTB_ROOT}/reports/analysis/trend.cpp ${FTB_ROOT}/reports/views/table.cpp
  ${FTB_ROOT}/reports/views/phase_table.cpp ${FTB_ROOT}/reports/views/profile_views.cpp
  ${FTB_ROOT}/reports/views/memory_table.cpp ${FTB_ROOT}/reports/views/console_table.cpp
  ${FTB_ROOT}/reports/views/ladder.cpp ${FTB_ROOT}/reports/views/vega.cpp
  ${FTB_ROOT}/reports/views/compare_chart.cpp ${FTB_ROOT}/reports/views/trend_chart.cpp
  ${FTB_ROOT}/reports/views/exports.cpp ${FTB_ROOT}/reports/views/report_labels.cpp
  ${FTB_ROOT}/reports/views/html_page.cpp ${FTB_ROOT}/reports/views/render.cpp
  ${FTB_ROOT}/reports/views/views.cpp ${FTB_ROOT}/reports/views/run_outputs.cpp)
