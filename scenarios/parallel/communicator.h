// One rank's view of a c10d process group: PyTorch's own distributed engine
// (ProcessGroupGloo on CPU, ProcessGroupNCCL on CUDA, rendezvous through a
// TCPStore at MASTER_ADDR:MASTER_PORT), with what a benchmark needs on top:
//   - the host time spent blocked in wait() (the report's collective wait),
//   - reduce-scatter / all-gather of flat buffers with a fallback where the
//     backend lacks the collective (recorded, and reported as comm_fallback),
//   - timeouts on the store and every collective, so a dead or hung peer turns
//     into an exception within dist_timeout_s instead of a hang.
// The backend is held as the concrete class's base (c10d::Backend in 2.x,
// ProcessGroup in 1.13); calls skip the dispatcher (LIBTORCH-NOTES §4).
#pragma once

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>  // Work, Store, Backend (2.x)
#include <torch/torch.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/model/compat.h"
#include "scenarios/parallel/rank_env.h"


namespace ftb::dist {

using BackendBase = c10d::Backend;

// An issued collective. wait() blocks until it is done (on NCCL: until the
// current stream is ordered after it) and then runs the fallback's epilogue.
class Pending {
 public:
  Pending() = default;
  Pending(c10::intrusive_ptr<c10d::Work> work, std::function<void()> after = nullptr);
  bool valid() const { return static_cast<bool>(work_); }
  c10::intrusive_ptr<c10d::Work> work_;
  std::function<void()> after_;
};

// Runs one collective of a group's first probe: true when it ran, false
// when the back end lacks `op` (c10d::Backend's "does not support <op>": the
// caller falls back to another collective); any other error (NCCL's first
// collective also creates its communicator) throws, naming the back end, the
// op and what it said, so the row fails instead of silently doubling traffic.
bool probe_collective(const std::string& backend, const std::string& op, const std::function<void()>& run);

class Communicator {
 public:
  // Joins the process group of env (a world of 1 is fine). Rank 0 hosts the
  // store. `name` prefixes every key, so several groups can share one store.
  // Throws InputError naming MASTER_PORT when rank 0 cannot listen on it.
  static std::shared_ptr<Communicator> create(const DistEnv& env, const torch::Device& device,
                                              std::chrono::milliseconds timeout, const std::string& name);
  ~Communicator();

  int rank() const { return rank_; }
  int size() const { return size_; }
  const std::string& backend() const { return backend_name_; }  // "gloo" | "nccl"
  const torch::Device& device() const { return device_; }
  // The environment this rank joined by (its launcher, MASTER_ADDR...).
  const DistEnv& env() const { return env_; }
  // Each rank's host name (gethostname), by rank, on rank 0; empty on the
  // other ranks. Every rank leaves its own in the group's store before the
  // process group is made; rank 0 reads them in create(), right after it is
  // made (every rank has joined and is alive then), never at a row's end,
  // when the rank serving the store may already have left.
  const std::vector<std::string>& hosts() const { return hosts_; }
  // NCCL: the error-handling and watchdog modes its process group was made
  // with, and who set each (nccl_error_modes_in_effect, rank_env.h); empty on
  // Gloo.
  const NcclModes& error_handling() const { return error_handling_; }

  // Asynchronous collectives, in place unless stated. Every rank must issue
  // the same collectives in the same order.
  Pending all_reduce_sum(torch::Tensor t);
  Pending all_reduce_max(torch::Tensor t);
  Pending broadcast(torch::Tensor t, int root);
  // out (n) = this rank's chunk of the sum over ranks of in (n * size).
  Pending reduce_scatter_sum(torch::Tensor out, torch::Tensor in);
  // out (n * size) = concatenation of every rank's in (n).
  Pending all_gather(torch::Tensor out, torch::Tensor in);
  void barrier();
  // Sums t over the ranks in place, whatever its device (metrics): copied to
  // this group's device and back.
  void sum_in_place(torch::Tensor& t);

  void wait(Pending& p);                        // timed: adds to wait_s()
  void run(Pending p) { wait(p); }              // issue + wait in one line
  double wait_s() const { return wait_s_; }     // host time blocked in wait() since reset
  // Bytes this rank handed to each collective since reset ("all_reduce",
  // "reduce_scatter" (its input), "all_gather" (its output), "broadcast").
  const std::map<std::string, int64_t>& bytes_by_collective() const { return bytes_; }
  void reset_wait() {
    wait_s_ = 0;
    bytes_.clear();
  }
  // The emulated collectives this group has used, e.g. "reduce_scatter =
  // all_reduce + chunk (gloo has no reduce-scatter; 2x the traffic)"; empty
  // when every collective it ran was the backend's own.
  const std::string& fallback() const { return fallback_; }

 private:
  Communicator() = default;
  void probe_collectives();
  void note_fallback(const std::string& what);
  void read_hosts();  // rank 0, in create()

  int rank_ = 0, size_ = 1;
  DistEnv env_;
  std::vector<std::string> hosts_;
  NcclModes error_handling_;
  torch::Device device_ = torch::kCPU;
  std::string backend_name_;
  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<BackendBase> pg_;
  bool native_reduce_scatter_ = true, native_all_gather_ = true;
  std::string reduce_scatter_fallback_, all_gather_fallback_, fallback_;
  double wait_s_ = 0;
  std::map<std::string, int64_t> bytes_;
};

// How many machines `hosts` (one name a rank) span: ranks whose hosts have
// one name count as one node.
int node_count(const std::vector<std::string>& hosts);

// The backend a device uses: "nccl" on CUDA, "gloo" on CPU; "" when this
// build has no such backend (reason in *why).
std::string backend_for(const torch::Device& device, std::string* why = nullptr);

}  // namespace ftb::dist
