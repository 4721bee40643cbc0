// Ranks as threads of this process (the distributed tests): each thread is
// one rank with its own store client, process group and model, exactly as
// separate processes would be. One definition for every test file of
// ftb_dist_tests (its unity batches would clash on two copies).
#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "scenarios/parallel/communicator.h"
#include "scenarios/parallel/launcher.h"
#include "scenarios/parallel/rank_env.h"

namespace ftb_test {

// Runs fn(env) for ranks 0..world-1 in threads; rethrows the first failure.
inline void run_ranks(int world, const std::function<void(const ftb::DistEnv&)>& fn) {
  const int port = ftb::pick_free_port("127.0.0.1");
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(world));
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      ftb::DistEnv e;
      e.launched = true;
      e.rank = e.local_rank = r;
      e.world_size = e.local_world_size = world;
      e.master_port = port;
      try {
        fn(e);
      } catch (...) {
        errors[static_cast<std::size_t>(r)] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// This rank's CPU (Gloo) group.
inline std::shared_ptr<ftb::dist::Communicator> join(const ftb::DistEnv& e, const std::string& name,
                                                     double timeout_s = 30) {
  return ftb::dist::Communicator::create(e, torch::kCPU,
                                         std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)), name);
}

}  // namespace ftb_test
