// SPDX-License-Identifier: Apache-2.0
// fold-nccl-bench: a float sum over an array sharded across every visible GPU (one NCCL rank per GPU, one host
// thread each), 2^10 to 2^31 items per GPU. Side by side in one run, per size:
// - fold:   fold::nccl::DeviceReduce::Sum (pass 1, one ncclAllGather of the partials, pass 2), the result on every
//           rank with the bits of one GPU's fold::DeviceReduce::Sum;
// - cub:    cub::DeviceReduce::Sum on each rank, then ncclAllReduce of the partial sums (what users do today);
// - allreduce1: one ncclAllReduce of a single float: the latency floor of any reduction across GPUs;
// - one GPU: fold::DeviceReduce::Sum over the whole array (ranks x items) on GPU 0.
// The issue's targets: fold within 1.2x of allreduce1 at small sizes, and at least 1.9x the throughput of one GPU at
// large sizes (counters fold_over_allreduce1 and speedup_vs_one_gpu). Times are the median of 5 samples, each
// `calls` calls back to back per rank, the slowest rank's events. NCCL_NVLS_ENABLE=0 is set unless it is set.
#include <fold/device/device_reduce.cuh>
#include <fold/nccl/device_reduce_nccl.cuh>

#include "bench_common.cuh"

#include <benchmark/benchmark.h>
#include <cub/device/device_reduce.cuh>

#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace
{

#define NCCL_BENCH_CHECK(expr)                                                                                         \
  do                                                                                                                   \
  {                                                                                                                    \
    const ncclResult_t nccl_result_ = (expr);                                                                          \
    if (nccl_result_ != ncclSuccess)                                                                                   \
    {                                                                                                                  \
      std::fprintf(stderr, "benchmark: %s (line %d): %s\n", #expr, __LINE__, ncclGetErrorString(nccl_result_));        \
      std::exit(1);                                                                                                    \
    }                                                                                                                  \
  } while (0)

// Item i of the whole array: a float in [-1, 1), a hash of i.
__global__ void fill(float* out, std::int64_t n, std::int64_t first)
{
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
  {
    std::uint64_t z = static_cast<std::uint64_t>(first + i) * 0x9E3779B97F4A7C15ull;
    z               = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
    out[i]          = static_cast<float>(z >> 40) * 0x1.0p-23f - 1.0f;
  }
}

// One host thread per rank, each on its GPU with its stream and communicator; `run(job)` runs `job(rank)` on every
// rank at once and waits for all of them.
class Ranks
{
public:
  explicit Ranks(int count)
      : comms_(static_cast<std::size_t>(count))
      , streams_(static_cast<std::size_t>(count))
  {
    NCCL_BENCH_CHECK(ncclCommInitAll(comms_.data(), count, nullptr));
    for (int r = 0; r < count; ++r)
    {
      threads_.emplace_back([this, r] { loop(r); });
    }
    run([this](int r) { BENCH_CHECK(cudaStreamCreateWithFlags(&streams_[r], cudaStreamNonBlocking)); });
  }
  ~Ranks()
  {
    run([this](int r) { cudaStreamDestroy(streams_[r]); });
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& thread : threads_)
    {
      thread.join();
    }
    for (ncclComm_t comm : comms_)
    {
      ncclCommDestroy(comm);
    }
  }

  int count() const { return static_cast<int>(comms_.size()); }
  ncclComm_t comm(int r) const { return comms_[static_cast<std::size_t>(r)]; }
  cudaStream_t stream(int r) const { return streams_[static_cast<std::size_t>(r)]; }

  void run(std::function<void(int)> job)
  {
    std::unique_lock<std::mutex> lock(mutex_);
    job_  = std::move(job);
    done_ = 0;
    ++generation_;
    wake_.notify_all();
    finished_.wait(lock, [&] { return done_ == count(); });
  }

  // Seconds per call of `call(rank)`, `calls` calls back to back on every rank: the slowest rank's events.
  double seconds(int calls, const std::function<void(int)>& call)
  {
    std::vector<double> per_rank(comms_.size(), 0);
    run(
        [&](int r)
        {
          bench::EventTimer timer;
          per_rank[r] = timer.seconds(
              [&]
              {
                for (int i = 0; i < calls; ++i)
                {
                  call(r);
                }
              },
              stream(r));
        });
    return *std::max_element(per_rank.begin(), per_rank.end()) / calls;
  }

private:
  void loop(int r)
  {
    BENCH_CHECK(cudaSetDevice(r));
    long seen = 0;
    for (;;)
    {
      std::function<void(int)> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_)
        {
          return;
        }
        seen = generation_;
        job  = job_;
      }
      job(r);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ++done_;
      }
      finished_.notify_all();
    }
  }

  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  std::function<void(int)> job_;
  long generation_ = 0;
  int done_        = 0;
  bool stop_       = false;
};

Ranks* ranks = nullptr;
bench::DeviceFacts facts;
constexpr std::int64_t max_per_rank = std::int64_t{1} << 31;

// Per rank: its shard (the largest size), its output and partial, and the temporary storage of the largest call.
struct RankBuffers
{
  float* in              = nullptr;
  float* out             = nullptr;
  float* partial         = nullptr;
  void* temp             = nullptr;
  std::size_t temp_bytes = 0;
};
std::vector<RankBuffers> buffers;
float* whole                 = nullptr; // the whole array on GPU 0, for the one-GPU sum
void* whole_temp             = nullptr;
std::size_t whole_temp_bytes = 0;

void allocate()
{
  buffers.resize(static_cast<std::size_t>(ranks->count()));
  const std::int64_t total = max_per_rank * ranks->count();
  const fold::nccl::Shards shards{std::vector<std::int64_t>(buffers.size(), max_per_rank)};
  ranks->run(
      [&](int r)
      {
        RankBuffers& b      = buffers[r];
        cudaStream_t stream = ranks->stream(r);
        BENCH_CHECK(cudaMalloc(&b.in, max_per_rank * sizeof(float)));
        BENCH_CHECK(cudaMalloc(&b.out, sizeof(float)));
        BENCH_CHECK(cudaMalloc(&b.partial, sizeof(float)));
        fill<<<1024, 256, 0, stream>>>(b.in, max_per_rank, max_per_rank * r);
        std::size_t fold_bytes = 0, cub_bytes = 0;
        BENCH_CHECK(fold::nccl::DeviceReduce::Sum(nullptr, fold_bytes, b.in, b.out, shards, ranks->comm(r), stream));
        BENCH_CHECK(cub::DeviceReduce::Sum(nullptr, cub_bytes, b.in, b.partial, max_per_rank, stream));
        b.temp_bytes = std::max(fold_bytes, cub_bytes);
        BENCH_CHECK(cudaMalloc(&b.temp, b.temp_bytes));
        BENCH_CHECK(cudaStreamSynchronize(stream));
      });
  BENCH_CHECK(cudaSetDevice(0));
  BENCH_CHECK(cudaMalloc(&whole, total * sizeof(float)));
  fill<<<1024, 256>>>(whole, total, 0);
  BENCH_CHECK(fold::DeviceReduce::Sum(nullptr, whole_temp_bytes, whole, buffers[0].out, total));
  BENCH_CHECK(cudaMalloc(&whole_temp, whole_temp_bytes));
  BENCH_CHECK(cudaDeviceSynchronize());
}

double median_of(int samples, const std::function<double()>& sample)
{
  std::vector<double> times;
  for (int i = 0; i < samples; ++i)
  {
    times.push_back(sample());
  }
  return bench::median(times);
}

void BM_sum(benchmark::State& state)
{
  const std::int64_t n     = state.range(0); // per rank
  const int p              = ranks->count();
  const std::int64_t total = n * p;
  const fold::nccl::Shards shards{std::vector<std::int64_t>(static_cast<std::size_t>(p), n)};
  const int calls = bench::calls_per_sample(static_cast<std::size_t>(n));

  auto fold_call = [&](int r)
  {
    RankBuffers& b    = buffers[r];
    std::size_t bytes = b.temp_bytes;
    BENCH_CHECK(fold::nccl::DeviceReduce::Sum(b.temp, bytes, b.in, b.out, shards, ranks->comm(r), ranks->stream(r)));
  };
  auto cub_call = [&](int r)
  {
    RankBuffers& b    = buffers[r];
    std::size_t bytes = b.temp_bytes;
    BENCH_CHECK(cub::DeviceReduce::Sum(b.temp, bytes, b.in, b.partial, n, ranks->stream(r)));
    NCCL_BENCH_CHECK(ncclAllReduce(b.partial, b.out, 1, ncclFloat, ncclSum, ranks->comm(r), ranks->stream(r)));
  };
  auto allreduce1 = [&](int r)
  {
    RankBuffers& b = buffers[r];
    NCCL_BENCH_CHECK(ncclAllReduce(b.partial, b.out, 1, ncclFloat, ncclSum, ranks->comm(r), ranks->stream(r)));
  };

  // Warm up, and check: every rank's fold result has the bits of one GPU's over the whole array when the shards
  // are whole granules.
  ranks->seconds(1, fold_call);
  std::vector<float> results(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r)
  {
    BENCH_CHECK(cudaMemcpy(&results[r], buffers[r].out, sizeof(float), cudaMemcpyDeviceToHost));
  }
  BENCH_CHECK(cudaSetDevice(0));
  float one_gpu           = 0;
  std::size_t whole_bytes = whole_temp_bytes;
  BENCH_CHECK(fold::DeviceReduce::Sum(whole_temp, whole_bytes, whole, buffers[0].partial, total));
  BENCH_CHECK(cudaMemcpy(&one_gpu, buffers[0].partial, sizeof(float), cudaMemcpyDeviceToHost));
  std::int64_t granule = 0;
  BENCH_CHECK(fold::nccl::DeviceReduce::Granule<const float*>(total, granule));
  bool same = true;
  for (float x : results)
  {
    same = same && std::memcmp(&x, &one_gpu, sizeof(float)) == 0;
  }
  ranks->seconds(1, cub_call);
  ranks->seconds(10, allreduce1);

  double fold_s = 0, cub_s = 0, allreduce1_s = 0, one_gpu_s = 0;
  for (auto _ : state)
  {
    fold_s       = median_of(5, [&] { return ranks->seconds(calls, fold_call); });
    cub_s        = median_of(5, [&] { return ranks->seconds(calls, cub_call); });
    allreduce1_s = median_of(5, [&] { return ranks->seconds(200, allreduce1); });
    BENCH_CHECK(cudaSetDevice(0));
    one_gpu_s = median_of(
        5,
        [&]
        {
          bench::EventTimer timer;
          const int one_calls = bench::calls_per_sample(static_cast<std::size_t>(total));
          return timer.seconds(
                     [&]
                     {
                       for (int i = 0; i < one_calls; ++i)
                       {
                         std::size_t bytes = whole_temp_bytes;
                         BENCH_CHECK(fold::DeviceReduce::Sum(whole_temp, bytes, whole, buffers[0].partial, total));
                       }
                     }) /
                 one_calls;
        });
    state.SetIterationTime(fold_s);
  }
  const double bytes                     = static_cast<double>(total) * sizeof(float);
  state.counters["ranks"]                = p;
  state.counters["items_per_rank"]       = static_cast<double>(n);
  state.counters["fold_us"]              = fold_s * 1e6;
  state.counters["cub_nccl_us"]          = cub_s * 1e6;
  state.counters["allreduce1_us"]        = allreduce1_s * 1e6;
  state.counters["one_gpu_us"]           = one_gpu_s * 1e6;
  state.counters["fold_over_cub_nccl"]   = fold_s / cub_s;
  state.counters["fold_over_allreduce1"] = fold_s / allreduce1_s;
  state.counters["speedup_vs_one_gpu"]   = one_gpu_s / fold_s;
  state.counters["fold_GBps"]            = bytes / fold_s / 1e9;
  state.counters["fold_peak_frac"]       = bytes / fold_s / 1e9 / (facts.peak_gbps * p);
  state.counters["granule"]              = static_cast<double>(granule);
  state.counters["same_bits_as_one_gpu"] = same ? 1 : 0;
}

} // namespace

int main(int argc, char** argv)
{
  setenv("NCCL_NVLS_ENABLE", "0", 0); // NVLink multicast stays off unless the caller says otherwise
  benchmark::Initialize(&argc, argv);
  facts       = bench::device_facts();
  int devices = 0;
  BENCH_CHECK(cudaGetDeviceCount(&devices));
  if (devices < 2)
  {
    std::fprintf(stderr, "fold-nccl-bench: %d GPU(s); two or more needed\n", devices);
    return 1;
  }
  benchmark::AddCustomContext("device", facts.name);
  benchmark::AddCustomContext("gpus", std::to_string(devices));
  int version = 0;
  ncclGetVersion(&version);
  benchmark::AddCustomContext("nccl", std::to_string(version));
  benchmark::AddCustomContext("NCCL_NVLS_ENABLE", std::getenv("NCCL_NVLS_ENABLE"));
  std::printf("%d x %s, NCCL %d\n", devices, facts.name.c_str(), version);

  Ranks all(devices);
  ranks = &all;
  allocate();
  auto* b = benchmark::RegisterBenchmark("nccl_sum/float", BM_sum);
  for (int e = 10; e <= 30; e += 2)
  {
    b->Arg(std::int64_t{1} << e);
  }
  b->Arg(max_per_rank)->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
