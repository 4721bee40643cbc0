#include "scenarios/parallel/communicator.h"

#include <ATen/record_function.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef USE_C10D_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#if defined(FTB_WITH_CUDA) && defined(USE_C10D_NCCL)
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "core/base/errors.h"
#include "core/base/host_name.h"
#include "scenarios/parallel/launcher.h"

namespace ftb::dist {
namespace {

using Clock = std::chrono::steady_clock;

// Each collective's issue and every wait is an operator range in a profile
// (`run --profile`), named as PyTorch's dispatcher names the c10d ops
// ("c10d::allreduce_"). The backend is called directly here, not through
// the dispatcher, so the calling thread records no c10d range of its own
// (Gloo does record gloo:all_reduce etc. as user annotations on its worker
// threads, but not the time this thread spends handing work over or blocked
// in wait()): with these ranges the host time blocked on Gloo/NCCL work and
// spent handing it over is communication in the summary, not untracked. A
// RecordFunction costs a branch when no profiler is on.
#define FTB_COMM_RANGE(name) RECORD_FUNCTION(name, c10::ArrayRef<const c10::IValue>{})

bool is_loopback(const std::string& addr) {
  return addr == "127.0.0.1" || addr == "localhost" || addr == "::1";
}

// torchrun's agent serves the store, and a torchrun of another torch version
// may speak another store protocol: LibTorch 1.13's client against a 2.x
// server gets "Broken pipe", or waits forever for a reply (its waits have no
// socket timeout). One request answered within a bounded time proves the
// store speaks ours; otherwise the rendezvous fails naming the cause. The
// request runs on a detached thread that keeps the store alive, since a
// client stuck in recv cannot be interrupted.
void check_agent_store(const c10::intrusive_ptr<c10d::Store>& store, const std::string& where, int rank,
                       std::chrono::milliseconds timeout) {
  auto answer = std::make_shared<std::promise<std::string>>();
  auto answered = answer->get_future();
  std::thread([store, answer] {
    try {
      store->getNumKeys();
      answer->set_value("");
    } catch (const std::exception& e) {
      answer->set_value(first_line(e.what()));
    }
  }).detach();
  const auto limit = std::min<std::chrono::milliseconds>(timeout, std::chrono::seconds(10));
  std::string what;
  if (answered.wait_for(limit) != std::future_status::ready) {
    what = "no answer in " + std::to_string(limit.count() / 1000) + " s";
  } else {
    what = answered.get();
    if (what.empty()) return;
  }
  throw std::runtime_error("rendezvous at " + where + " (rank " + std::to_string(rank) +
                           ") failed: torchrun's store does not answer this ftbench's requests (" + what +
                           "). This ftbench is built on LibTorch " + TORCH_VERSION +
                           "; a torchrun from another torch version may speak another store protocol "
                           "(1.13's and 2.x's differ): launch with a torchrun of the same LibTorch, "
                           "or let ftbench start the ranks itself (--world-size)");
}

// The listening socket our launcher handed to rank 0 (launcher.h,
// kListenFdVar), when it is one and bound to `port`: the store serves on it,
// so the port was never free for another process to take. Taken once.
std::optional<int> inherited_listen_fd(int port) {
  static std::atomic<bool> taken{false};
  const char* text = std::getenv(kListenFdVar);
  if (!text || taken) return std::nullopt;
  char* end = nullptr;
  const long fd = std::strtol(text, &end, 10);
  if (end == text || *end || fd < 0 || fd > 65535) return std::nullopt;
  int listening = 0;
  socklen_t len = sizeof listening;
  sockaddr_storage ss{};
  socklen_t ss_len = sizeof ss;
  if (getsockopt(static_cast<int>(fd), SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening ||
      getsockname(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&ss), &ss_len) != 0)
    return std::nullopt;
  const int bound = ss.ss_family == AF_INET    ? ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port)
                    : ss.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port)
                                               : -1;
  if (bound != port || taken.exchange(true)) return std::nullopt;
  return static_cast<int>(fd);
}

// One TCPStore per process and address: every group (one per distributed
// scenario) gets a PrefixStore on it. Rank 0 hosts it.
c10::intrusive_ptr<c10d::Store> shared_store(const DistEnv& env, std::chrono::milliseconds timeout) {
  static std::mutex mu;
  static std::map<std::string, c10::intrusive_ptr<c10d::Store>> stores;
  // Keyed by rank too: tests run several ranks as threads of one process,
  // each with its own client. Not locked while connecting: rank 0's server
  // waits for the other ranks' clients.
  const std::string where = env.master_addr + ":" + std::to_string(env.master_port);
  const std::string key = where + "#" + std::to_string(env.rank);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = stores.find(key); it != stores.end() && env.master_port != 0) return it->second;
  }
  // torchrun's agent already serves a store on MASTER_PORT and tells its
  // workers so: every rank is then a client (as torch.distributed does).
  const char* agent = std::getenv("TORCHELASTIC_USE_AGENT_STORE");
  const bool agent_store = agent && std::string(agent) == "True";
  c10d::TCPStoreOptions so;
  so.port = static_cast<uint16_t>(env.master_port);
  so.isServer = env.rank == 0 && !agent_store;
  so.numWorkers = static_cast<std::size_t>(env.world_size);
  so.waitWorkers = !agent_store;
  so.timeout = timeout;
  if (so.isServer) so.masterListenFd = inherited_listen_fd(env.master_port);
  c10::intrusive_ptr<c10d::Store> store;
  try {
    store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, so);
  } catch (const std::exception& e) {
    const std::string what = first_line(e.what());
    if (env.rank == 0 && (what.find("EADDRINUSE") != std::string::npos ||
                          what.find("already in use") != std::string::npos))
      input_error("MASTER_PORT", "port " + std::to_string(env.master_port) + " on " + env.master_addr +
                                     " is already in use (set MASTER_PORT to a free port)");
    throw std::runtime_error("rendezvous at " + where + " (rank " + std::to_string(env.rank) + " of " +
                             std::to_string(env.world_size) + ") failed: " + what);
  }
  if (agent_store) {  // torchrun's key space for this attempt of the job
    check_agent_store(store, where, env.rank, timeout);
    const char* attempt = std::getenv("TORCHELASTIC_RESTART_COUNT");
    store = c10::make_intrusive<c10d::PrefixStore>(std::string("/worker/attempt_") + (attempt ? attempt : "0"), store);
  }
  std::lock_guard<std::mutex> lock(mu);
  if (env.master_port != 0) stores[key] = store;  // port 0 (a world of one): a new store each time
  return store;
}

std::string host_key(int rank) { return "host/" + std::to_string(rank); }

}  // namespace

int node_count(const std::vector<std::string>& hosts) {
  return static_cast<int>(std::set<std::string>(hosts.begin(), hosts.end()).size());
}

void Communicator::read_hosts() {
  for (int r = 0; r < size_; ++r) {
    const std::vector<uint8_t> v = store_->get(host_key(r));
    hosts_.emplace_back(v.begin(), v.end());
  }
}

Pending::Pending(c10::intrusive_ptr<c10d::Work> work, std::function<void()> after)
    : work_(std::move(work)), after_(std::move(after)) {}

std::string backend_for(const torch::Device& device, std::string* why) {
  [[maybe_unused]] auto fail = [&](const std::string& reason) {  // unused when both backends are built
    if (why) *why = reason;
    return std::string();
  };
  if (device.is_cuda()) {
#if defined(FTB_WITH_CUDA) && defined(USE_C10D_NCCL)
    return "nccl";
#else
    return fail("this build of ftbench has no NCCL process group (LibTorch without USE_C10D_NCCL)");
#endif
  }
#ifdef USE_C10D_GLOO
  return "gloo";
#else
  return fail("this LibTorch has no Gloo process group (USE_C10D_GLOO is not defined)");
#endif
}

std::shared_ptr<Communicator> Communicator::create(const DistEnv& env, const torch::Device& device,
                                                   std::chrono::milliseconds timeout, const std::string& name) {
  std::string why;
  const std::string backend = backend_for(device, &why);
  if (backend.empty()) throw std::runtime_error(why);
  std::shared_ptr<Communicator> c(new Communicator());
  c->rank_ = env.rank;
  c->size_ = env.world_size;
  c->device_ = device;
  c->backend_name_ = backend;
  c->env_ = env;
  c->store_ = c10::make_intrusive<c10d::PrefixStore>(name, shared_store(env, timeout));
  c->store_->set(host_key(env.rank), host_name());
  if (backend == "gloo") {
#ifdef USE_C10D_GLOO
    using Gloo = c10d::ProcessGroupGloo;
    auto opts = Gloo::Options::create(timeout);
    if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"))
      opts->devices.push_back(Gloo::createDeviceForInterface(ifname));
    else if (is_loopback(env.master_addr))
      opts->devices.push_back(Gloo::createDeviceForHostname("127.0.0.1"));
    else
      opts->devices.push_back(Gloo::createDefaultDevice());
    c->pg_ = c10::make_intrusive<Gloo>(c->store_, env.rank, env.world_size, opts);
#endif
  } else {
#if defined(FTB_WITH_CUDA) && defined(USE_C10D_NCCL)
    c10::cuda::set_device(device.has_index() ? device.index() : 0);
    // The modes were set once at start-up, before any thread (main:
    // set_nccl_error_modes_in_environment); here they are only recorded.
    c->error_handling_ = nccl_error_modes_in_effect();
    auto opts = c10d::ProcessGroupNCCL::Options::create();
    opts->timeout = timeout;  // dist_timeout_s: after it the watchdog ends the process (ASYNC_ERROR_HANDLING=3)
    c->pg_ = c10::make_intrusive<c10d::ProcessGroupNCCL>(c->store_, env.rank, env.world_size, opts);
#endif
  }
  c->probe_collectives();
  // Every rank set its host before making the process group, which needs
  // them all: the keys are there (get waits up to the timeout regardless).
  if (c->rank_ == 0) c->read_hosts();
  return c;
}

Communicator::~Communicator() {
  // NCCL wants an explicit shutdown (its communicators and watchdog thread);
  // a no-op for Gloo.
  try {
    if (pg_) pg_->shutdown();
  } catch (...) {
  }
}

bool probe_collective(const std::string& backend, const std::string& op, const std::function<void()>& run) {
  try {
    run();
    return true;
  } catch (const std::exception& e) {
    // c10d::Backend's own answer for an op a back end lacks ("Backend nccl
    // does not support _reduce_scatter_base"): the one case with a fallback.
    const std::string said = e.what();
    if (said.find("does not support " + op) != std::string::npos) return false;
    // Anything else (the first NCCL collective also initialises the
    // communicator) fails the row with what the back end said.
    throw std::runtime_error(backend + " " + op + " (the group's first collectives) failed: " + first_line(said));
  }
}

void Communicator::probe_collectives() {
  // Same binary on every rank, so every rank takes the same branch; an
  // unsupported collective throws before sending anything.
  auto opts = torch::TensorOptions().device(device_).dtype(torch::kFloat);
  auto in = torch::ones({size_}, opts), out = torch::zeros({1}, opts);
  if (backend_name_ == "gloo") {
    // Gloo has no reduce-scatter: LibTorch's ProcessGroupGloo answers
    // _reduce_scatter_base (where it has it at all, 2.3+) with a clone of the
    // input, an all-reduce and a copy of the chunk. We do the same without
    // the clone, and say so.
    native_reduce_scatter_ = false;
    reduce_scatter_fallback_ = "reduce_scatter = all_reduce + chunk (gloo has no reduce-scatter; 2x the traffic)";
  } else if (!probe_collective(backend_name_, "_reduce_scatter_base",
                               [&] { pg_->_reduce_scatter_base(out, in)->wait(); })) {
    native_reduce_scatter_ = false;
    reduce_scatter_fallback_ =
        "reduce_scatter = all_reduce + chunk (" + backend_name_ + " has no _reduce_scatter_base here)";
  }
  auto one = torch::ones({1}, opts), all = torch::zeros({size_}, opts);
  if (!probe_collective(backend_name_, "_allgather_base", [&] { pg_->_allgather_base(all, one)->wait(); })) {
    native_all_gather_ = false;
    all_gather_fallback_ = "all_gather = list all_gather (" + backend_name_ + " has no _allgather_base here)";
  }
}

Pending Communicator::all_reduce_sum(torch::Tensor t) {
  FTB_COMM_RANGE("c10d::allreduce_");
  bytes_["all_reduce"] += static_cast<int64_t>(t.nbytes());
  std::vector<torch::Tensor> v{t};
  return {pg_->allreduce(v)};
}

Pending Communicator::all_reduce_max(torch::Tensor t) {
  FTB_COMM_RANGE("c10d::allreduce_");
  bytes_["all_reduce"] += static_cast<int64_t>(t.nbytes());
  std::vector<torch::Tensor> v{t};
  c10d::AllreduceOptions o;
  o.reduceOp = c10d::ReduceOp::MAX;
  return {pg_->allreduce(v, o)};
}

Pending Communicator::broadcast(torch::Tensor t, int root) {
  FTB_COMM_RANGE("c10d::broadcast_");
  bytes_["broadcast"] += static_cast<int64_t>(t.nbytes());
  std::vector<torch::Tensor> v{t};
  c10d::BroadcastOptions o;
  o.rootRank = root;
  return {pg_->broadcast(v, o)};
}

Pending Communicator::reduce_scatter_sum(torch::Tensor out, torch::Tensor in) {
  FTB_COMM_RANGE("c10d::_reduce_scatter_base_");
  TORCH_CHECK(in.numel() == out.numel() * size_, "reduce_scatter: input must be size x output");
  bytes_["reduce_scatter"] += static_cast<int64_t>(in.nbytes());
  if (native_reduce_scatter_) return {pg_->_reduce_scatter_base(out, in)};
  note_fallback(reduce_scatter_fallback_);
  // Emulation: every rank gets the whole sum and keeps its chunk (2x traffic).
  std::vector<torch::Tensor> v{in};
  const int64_t n = out.numel();
  const int64_t start = rank_ * n;
  return {pg_->allreduce(v), [out, in, start, n]() mutable { out.copy_(in.narrow(0, start, n)); }};
}

Pending Communicator::all_gather(torch::Tensor out, torch::Tensor in) {
  FTB_COMM_RANGE("c10d::_allgather_base_");
  TORCH_CHECK(out.numel() == in.numel() * size_, "all_gather: output must be size x input");
  bytes_["all_gather"] += static_cast<int64_t>(out.nbytes());
  if (native_all_gather_) return {pg_->_allgather_base(out, in)};
  note_fallback(all_gather_fallback_);
  std::vector<std::vector<torch::Tensor>> outs{out.chunk(size_)};
  std::vector<torch::Tensor> ins{in};
  return {pg_->allgather(outs, ins)};
}

void Communicator::note_fallback(const std::string& what) {
  if (fallback_.find(what) == std::string::npos) fallback_ += (fallback_.empty() ? "" : "; ") + what;
}

void Communicator::sum_in_place(torch::Tensor& t) {
  auto on_device = t.to(device_);
  run(all_reduce_sum(on_device));
  t.copy_(on_device);
}

void Communicator::barrier() {
  FTB_COMM_RANGE("c10d::barrier");
  c10d::BarrierOptions o;
  if (device_.is_cuda()) o.device_ids = {device_.index()};
  Pending p{pg_->barrier(o)};
  wait(p);
}

void Communicator::wait(Pending& p) {
  if (!p.work_) return;
  FTB_COMM_RANGE("c10d::wait");  // the wait and the fallback's epilogue (the chunk's copy: a child operator)
  const auto t0 = Clock::now();
  p.work_->wait();
  wait_s_ += std::chrono::duration<double>(Clock::now() - t0).count();
  if (p.after_) p.after_();
  p.work_.reset();
  p.after_ = nullptr;
}

}  // namespace ftb::dist
