// The batch loader: batch counts with drop_last, per-epoch shuffling, rank
// shards, padding shapes and masks, prefetch equivalence, clean shutdown.
// The tokenized splits are built by hand so these tests do not depend on the
// tokenizer.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <vector>

#include "core/train/batching.h"
#include "core/train/warmup.h"
#include "core/train/workload.h"

#include <ATen/Parallel.h>
#include <thread>
#include "core/base/errors.h"
#include "tests/skip.h"

namespace {

// Row i: [101, 1000+i, ..., 102] with a length of 3 + i % 9 tokens, label i % 2.
ftb::TokenizedSplit make_split(int n) {
  ftb::TokenizedSplit s;
  for (int i = 0; i < n; ++i) {
    std::vector<int32_t> ids{101};
    for (int k = 0; k < 1 + i % 9; ++k) ids.push_back(1000 + i);
    ids.push_back(102);
    s.input_ids.push_back(ids);
    s.labels.push_back(i % 2);
  }
  return s;
}

// Which rows a batch holds, recovered from the marker token 1000 + row.
std::vector<int64_t> rows_of(const ftb::Batch& b) {
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < b.input_ids.size(0); ++i) rows.push_back(b.input_ids[i][1].item<int64_t>() - 1000);
  return rows;
}

std::vector<std::vector<int64_t>> epoch_rows(ftb::BatchLoader& loader, int64_t epoch) {
  loader.start_epoch(epoch);
  std::vector<std::vector<int64_t>> out;
  while (auto b = loader.next()) out.push_back(rows_of(*b));
  return out;
}

}  // namespace

TEST_CASE("batching: drop_last batch counts, as the reference's 2,916 per epoch") {
  ftb::TokenizedSplit big;
  big.input_ids.assign(35000, {101, 102});
  big.labels.assign(35000, 0);
  ftb::LoaderOptions o;  // batch 12, drop_last
  CHECK(ftb::BatchLoader(big, o).batches_per_epoch() == 2916);

  const auto s = make_split(50);
  o.batch_size = 8;
  o.max_length = 16;
  ftb::BatchLoader dropped(s, o);
  CHECK(dropped.batches_per_epoch() == 6);
  const auto e = epoch_rows(dropped, 0);
  CHECK(e.size() == 6);
  for (const auto& b : e) CHECK(b.size() == 8);

  o.drop_last = false;
  ftb::BatchLoader kept(s, o);
  CHECK(kept.batches_per_epoch() == 7);
  const auto k = epoch_rows(kept, 0);
  REQUIRE(k.size() == 7);
  CHECK(k.back().size() == 2);
  std::set<int64_t> all;
  for (const auto& b : k) all.insert(b.begin(), b.end());
  CHECK(all.size() == 50);
}

TEST_CASE("batching: shuffle differs per epoch, repeats for the same seed and epoch") {
  const auto s = make_split(60);
  ftb::LoaderOptions o;
  o.batch_size = 6;
  o.max_length = 16;
  ftb::BatchLoader a(s, o), b(s, o);
  const auto a0 = epoch_rows(a, 0), a1 = epoch_rows(a, 1);
  CHECK(a0 == epoch_rows(b, 0));
  CHECK(a1 == epoch_rows(b, 1));
  CHECK(a0 != a1);
  CHECK(a0 == epoch_rows(a, 0));  // restarting an epoch replays it
  o.seed = 7;
  ftb::BatchLoader c(s, o);
  CHECK(epoch_rows(c, 0) != a0);
  o.shuffle = false;
  ftb::BatchLoader plain(s, o);
  CHECK(epoch_rows(plain, 0)[0] == std::vector<int64_t>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("batching: rank shards are disjoint and cover the epoch") {
  const auto s = make_split(103);
  for (bool drop_last : {true, false}) {
    CAPTURE(drop_last);
    ftb::LoaderOptions o;
    o.batch_size = 4;
    o.max_length = 16;
    o.world_size = 3;
    o.drop_last = drop_last;
    std::vector<int64_t> all;
    std::set<int64_t> distinct;
    std::size_t steps = 0;
    for (int rank = 0; rank < 3; ++rank) {
      o.rank = rank;
      ftb::BatchLoader loader(s, o);
      const auto e = epoch_rows(loader, 2);
      CHECK(static_cast<int64_t>(e.size()) == loader.batches_per_epoch());
      if (rank == 0) steps = e.size();
      CHECK(e.size() == steps);  // every rank runs the same number of steps
      for (const auto& b : e) {
        all.insert(all.end(), b.begin(), b.end());
        distinct.insert(b.begin(), b.end());
      }
    }
    if (drop_last) {
      CHECK(steps == 8);                     // 103 / (3 * 4) = 8 full rounds
      CHECK(all.size() == 96);
      CHECK(distinct.size() == all.size());  // disjoint
    } else {
      CHECK(all.size() == 105);              // padded to a multiple of 3 by wrapping
      CHECK(distinct.size() == 103);         // covering
    }
  }
  ftb::LoaderOptions bad;
  bad.rank = 3;
  bad.world_size = 3;
  CHECK_THROWS_AS(ftb::BatchLoader(s, bad), ftb::InputError);
}

TEST_CASE("batching: padding to max_length or to the longest row, with a correct mask") {
  const auto s = make_split(20);
  ftb::LoaderOptions o;
  o.batch_size = 5;
  o.max_length = 32;
  o.pad_id = 0;
  o.shuffle = false;
  SUBCASE("max_length") {
    ftb::BatchLoader loader(s, o);
    const auto b = loader.next();
    REQUIRE(b);
    CHECK(b->input_ids.sizes() == torch::IntArrayRef({5, 32}));
    CHECK(b->attention_mask.sizes() == torch::IntArrayRef({5, 32}));
    CHECK(b->labels.sizes() == torch::IntArrayRef({5}));
    CHECK(b->input_ids.dtype() == torch::kLong);
    CHECK(b->attention_mask.dtype() == torch::kLong);
    CHECK(b->labels.dtype() == torch::kLong);
  }
  SUBCASE("longest") {
    o.padding = ftb::Padding::longest;
    ftb::BatchLoader loader(s, o);
    const auto b = loader.next();  // rows 0..4: lengths 3..7
    REQUIRE(b);
    CHECK(b->input_ids.sizes() == torch::IntArrayRef({5, 7}));
    for (int64_t i = 0; i < 5; ++i) {
      const int64_t len = 3 + i;
      CHECK(b->attention_mask[i].sum().item<int64_t>() == len);
      CHECK(b->attention_mask[i].slice(0, 0, len).min().item<int64_t>() == 1);
      CHECK(b->input_ids[i][0].item<int64_t>() == 101);
      CHECK(b->input_ids[i][len - 1].item<int64_t>() == 102);
      if (len < 7) CHECK(b->input_ids[i].slice(0, len).abs().sum().item<int64_t>() == 0);
      CHECK(b->labels[i].item<int64_t>() == i % 2);
    }
    CHECK(b->real_tokens == 3 + 4 + 5 + 6 + 7);
    CHECK(b->real_tokens == b->attention_mask.sum().item<int64_t>());
  }
  SUBCASE("rows longer than max_length are cut") {
    o.max_length = 4;
    o.padding = ftb::Padding::longest;
    ftb::BatchLoader loader(s, o);
    const auto b = loader.next();
    REQUIRE(b);
    CHECK(b->input_ids.size(1) == 4);
    CHECK(b->attention_mask.sum().item<int64_t>() == 3 + 4 + 4 + 4 + 4);
  }
  CHECK(ftb::parse_choice<ftb::Padding>("longest", "padding") == ftb::Padding::longest);
  CHECK(ftb::parse_choice<ftb::Padding>("max_length", "padding") == ftb::Padding::max_length);
  CHECK(ftb::to_string(ftb::Padding::longest) == "longest");
  CHECK(ftb::to_string(ftb::Padding::max_length) == "max_length");
  CHECK_THROWS_AS(ftb::parse_choice<ftb::Padding>("max", "padding"), ftb::InputError);
  CHECK(s.token_count() == 20 * 2 + (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9) * 2 + 1 + 2);
}

TEST_CASE("batching: prefetch on and off give identical batches") {
  const auto s = make_split(77);
  ftb::LoaderOptions o;
  o.batch_size = 5;
  o.max_length = 16;
  o.padding = ftb::Padding::longest;
  o.prefetch = 0;
  ftb::BatchLoader sync(s, o);
  o.prefetch = 3;
  ftb::BatchLoader async(s, o);
  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    sync.start_epoch(epoch);
    async.start_epoch(epoch);
    int64_t count = 0;
    for (;;) {
      auto a = sync.next();
      auto b = async.next();
      REQUIRE(a.has_value() == b.has_value());
      if (!a) break;
      ++count;
      CHECK(torch::equal(a->input_ids, b->input_ids));
      CHECK(torch::equal(a->attention_mask, b->attention_mask));
      CHECK(torch::equal(a->labels, b->labels));
      CHECK(a->real_tokens == b->real_tokens);
    }
    CHECK(count == sync.batches_per_epoch());
    CHECK_FALSE(async.next().has_value());  // stays at the end
  }
  CHECK(sync.wait_s() >= 0);
  CHECK(async.wait_s() >= 0);
}

TEST_CASE("batching: stopping mid-epoch never hangs") {
  const auto s = make_split(500);
  ftb::LoaderOptions o;
  o.batch_size = 4;
  o.max_length = 64;
  o.prefetch = 2;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) {
    ftb::BatchLoader loader(s, o);  // destroyed with the queue full or filling
    loader.start_epoch(i);
    if (i % 2) loader.next();
    if (i % 3 == 0) loader.start_epoch(i + 1);  // restart while prefetching
  }
  {
    ftb::BatchLoader never_started(s, o);  // no thread to join
  }
  ftb::BatchLoader lazy(s, o);
  CHECK(lazy.next().has_value());  // next() before start_epoch() starts epoch 0
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(elapsed_s < 10);
}

TEST_CASE("batching: tokenize_split keeps the order with any number of threads") {
  const auto tok = ftb::WordPieceTokenizer::from_tokens(
      {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b", "c", "##a", "##b", "##c"});
  std::vector<ftb::Example> examples;
  for (int i = 0; i < 101; ++i)
    examples.push_back({std::string(1 + i % 7, "abc"[i % 3]) + " b" + (i % 2 ? " c" : ""), i % 2});
  const ftb::TokenizedSplit one = ftb::tokenize_split(tok, examples, 8, 1);
  const ftb::TokenizedSplit many = ftb::tokenize_split(tok, examples, 8, 4);
  REQUIRE(one.size() == examples.size());
  CHECK(one.input_ids == many.input_ids);
  CHECK(one.labels == many.labels);
  for (std::size_t i = 0; i < examples.size(); ++i) {
    CHECK(one.input_ids[i] == tok.encode(examples[i].text, 8));
    CHECK(one.labels[i] == examples[i].label);
  }
  CHECK(ftb::tokenize_split(tok, {}, 8, 4).size() == 0);
}

namespace {
// Real over padded tokens of an epoch's batches (the cost padding adds).
double real_share(ftb::BatchLoader& loader, int64_t epoch) {
  loader.start_epoch(epoch);
  double real = 0, padded = 0;
  while (auto b = loader.next()) {
    real += static_cast<double>(b->real_tokens);
    padded += static_cast<double>(b->input_ids.numel());
  }
  return real / padded;
}
}  // namespace

TEST_CASE("batching: bucketing groups similar lengths, keeps every row once, shuffles batches per epoch") {
  const auto split = make_split(600);  // lengths 3..11
  ftb::LoaderOptions o;
  o.batch_size = 6;
  o.padding = ftb::Padding::longest;
  o.prefetch = 0;
  o.max_length = 64;
  ftb::BatchLoader plain(split, o);
  o.bucketing = true;
  ftb::BatchLoader bucketed(split, o);

  // Less padding than random batches of the same rows.
  const double plain_share = real_share(plain, 0), bucketed_share = real_share(bucketed, 0);
  CHECK(bucketed_share > plain_share);
  CHECK(bucketed_share > 0.95);  // 3 of the 9 lengths share a batch at most at a window's seams

  // Every row once per epoch; a batch spans at most two neighbouring lengths.
  const auto e0 = epoch_rows(bucketed, 0);
  std::multiset<int64_t> seen;
  for (const auto& batch : e0) {
    int64_t lo = 100, hi = 0;
    for (int64_t r : batch) {
      seen.insert(r);
      lo = std::min<int64_t>(lo, r % 9), hi = std::max<int64_t>(hi, r % 9);
    }
    CHECK(hi - lo <= 1);
  }
  CHECK(seen.size() == 600);
  CHECK(std::set<int64_t>(seen.begin(), seen.end()).size() == 600);

  // The batch order is random (not longest first) and new each epoch, yet the
  // same for the same seed and epoch.
  std::vector<int64_t> longest;
  for (const auto& batch : e0) longest.push_back(batch[0] % 9);
  CHECK_FALSE(std::is_sorted(longest.rbegin(), longest.rend()));
  CHECK(epoch_rows(bucketed, 1) != e0);
  CHECK(epoch_rows(bucketed, 0) == e0);
}

TEST_CASE("batching: bucketing with padding to max_length is an error naming bucketing") {
  const auto split = make_split(20);
  ftb::LoaderOptions o;
  o.bucketing = true;
  o.padding = ftb::Padding::max_length;
  CHECK_THROWS_WITH_AS(ftb::BatchLoader(split, o), doctest::Contains("bucketing"), ftb::InputError);
}

TEST_CASE("resolve_prefetch: as given, else a loader thread only where a core is left for it") {
  ftb::RunConfig c;
  c.device = "cpu";
  std::string why;
  c.prefetch = 3;
  CHECK(ftb::resolve_prefetch(c, &why) == 3);
  CHECK(why == "prefetch=3 as given");
  c.prefetch = -1;
  const int before = at::get_num_threads();
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  at::set_num_threads(cores);  // every core computes: the loader runs in the step's thread
  CHECK(ftb::resolve_prefetch(c, &why) == 0);
  CHECK(why.find("take all") != std::string::npos);
  if (cores > 1) {
    at::set_num_threads(cores - 1);  // one core left over
    CHECK(ftb::resolve_prefetch(c) == 2);
  }
  at::set_num_threads(before);
}

namespace {

// The first batch of 20 short rows, 4 a batch, on this thread (no prefetch); pinned or not.
std::optional<ftb::Batch> first_small_batch(bool pin_memory) {
  const auto s = make_split(20);
  ftb::LoaderOptions o;
  o.batch_size = 4;
  o.max_length = 16;
  o.prefetch = 0;
  o.pin_memory = pin_memory;
  ftb::BatchLoader loader(s, o);
  loader.start_epoch(0);
  return loader.next();
}

}  // namespace

TEST_CASE("batching: batches are pageable for a CPU step") {
  const auto a = first_small_batch(false);
  REQUIRE(a);
  CHECK_FALSE(a->input_ids.is_pinned());
  // What the workload asks for: pinned only where the step runs on CUDA.
  auto c = ftb::preset_config("smoke");
  c.device = "cpu";
  c.synthetic_count = 200;
  c.max_length = 32;
  CHECK_FALSE(ftb::build_workload(c).train_loader_options(c).pin_memory);
}

TEST_CASE("batching: batches are pinned for a GPU step and hold the pageable ones' values (CUDA)") {
  if (!torch::cuda::is_available()) FTB_SKIP_CASE("no CUDA device visible (the GPU check runs this)");
  const auto a = first_small_batch(false);
  const auto b = first_small_batch(true);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(b->input_ids.is_pinned());
  CHECK(b->attention_mask.is_pinned());
  CHECK(b->labels.is_pinned());
  CHECK(torch::equal(a->input_ids, b->input_ids));
  CHECK(torch::equal(a->labels, b->labels));
}

TEST_CASE("warm-up: the padded lengths a run will see are every batch's, over every epoch, capped by max_steps") {
  const auto s = make_split(40);  // row lengths 3 .. 11
  ftb::LoaderOptions o;
  o.batch_size = 4;
  o.max_length = 16;
  o.padding = ftb::Padding::longest;
  std::set<int64_t> want;
  ftb::BatchLoader loader(s, o);
  for (int64_t e = 0; e < 3; ++e) {
    loader.start_epoch(e);
    while (auto b = loader.next()) want.insert(b->input_ids.size(1));
  }
  const auto got = ftb::padded_lengths(s, o, 3);
  CHECK(std::vector<int64_t>(want.begin(), want.end()) == got);
  CHECK(got.size() > 1);
  CHECK(std::is_sorted(got.begin(), got.end()));
  loader.start_epoch(0);
  const int64_t first = loader.next()->input_ids.size(1);
  CHECK(ftb::padded_lengths(s, o, 1, 1) == std::vector<int64_t>{first});  // max_steps = 1: one batch
  o.padding = ftb::Padding::max_length;
  CHECK(ftb::padded_lengths(s, o, 3) == std::vector<int64_t>{16});  // one static shape: nothing more to warm
}
