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
// Rank r's shard is always items [offset(r), offset(r) + count(r)) of the array GPU 0 sums whole.
// Flags (scripts/gpu-nccl-scaling.sh), beside Google Benchmark's; one GPU is enough for either:
// --strong               also nccl_sum_total/float: a fixed total of 2^10 to 2^32 items, cut at the granule
//                        (strong scaling; nccl_sum/float, a fixed count per GPU, is weak scaling);
// --bits[=MAX_LOG2]      no timing: Sum of float and double, ArgMax of float and a non-commutative operator over
//                        2^20 to 2^MAX_LOG2 items (default 32; and a ragged total below each), shards cut at the
//                        granule; one line per case with fold::nccl's bits in hex beside one GPU's fold::DeviceReduce
//                        over the whole array. Exits 2 when any differ.
#include <fold/device/device_reduce.cuh>
#include <fold/nccl/device_reduce_nccl.cuh>

#include "bench_common.cuh"

#include <benchmark/benchmark.h>
#include <cub/device/device_reduce.cuh>

#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
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

// Item i of the whole array, a hash of i: a float in [-1, 1) (23 bits), a double in [-256, 256) (53 bits, 16
// exponents), an Affine map of slope +-1 and offset in [-1, 1).
__device__ std::uint64_t mix(std::uint64_t i)
{
  const std::uint64_t z = i * 0x9E3779B97F4A7C15ull;
  return (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
}
// The map x -> a * x + b; `Then{}(f, g)` is f, then g: a user operator, not commutative.
struct Affine
{
  float a;
  float b;
};
struct Then
{
  __host__ __device__ Affine operator()(Affine f, Affine g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};
__device__ void make_item(std::uint64_t z, float& x)
{
  x = static_cast<float>(z >> 40) * 0x1.0p-23f - 1.0f;
}
__device__ void make_item(std::uint64_t z, double& x)
{
  x = ldexp(static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0, static_cast<int>(z & 15) - 7);
}
__device__ void make_item(std::uint64_t z, Affine& f)
{
  f = {(z >> 63) != 0 ? -1.0f : 1.0f, static_cast<float>((z >> 8) & 0xFFFFFF) * 0x1.0p-23f - 1.0f};
}

// Items [first, first + n) of the whole array.
template <typename T>
__global__ void fill(T* out, std::int64_t n, std::int64_t first)
{
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
  {
    make_item(mix(static_cast<std::uint64_t>(first + i)), out[i]);
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
constexpr std::int64_t max_per_rank     = std::int64_t{1} << 31; // nccl_sum/float: items per rank
constexpr std::int64_t max_total_strong = std::int64_t{1} << 32; // nccl_sum_total/float: items in all

// Per rank: room for its largest shard, its output and partial, and the temporary storage of the largest call.
struct RankBuffers
{
  float* in              = nullptr;
  float* out             = nullptr;
  float* partial         = nullptr;
  void* temp             = nullptr;
  std::size_t temp_bytes = 0;
};
std::vector<RankBuffers> buffers;
std::int64_t rank_capacity   = 0;       // items each rank's `in` holds
float* whole                 = nullptr; // the whole array on GPU 0, for the one-GPU sum
void* whole_temp             = nullptr;
std::size_t whole_temp_bytes = 0;

// At least `bytes` of storage at `temp` on the current device.
void grow(void*& temp, std::size_t& temp_bytes, std::size_t bytes)
{
  if (bytes > temp_bytes || temp == nullptr)
  {
    BENCH_CHECK(cudaFree(temp));
    BENCH_CHECK(cudaMalloc(&temp, std::max<std::size_t>(bytes, 1)));
    temp_bytes = std::max<std::size_t>(bytes, 1);
  }
}

// The granule of a float sum of `total` items, on the current device.
std::int64_t sum_granule(std::int64_t total)
{
  std::int64_t granule = 0;
  BENCH_CHECK(fold::nccl::DeviceReduce::Granule<const float*>(total, granule));
  return granule;
}

// nccl_sum_total/float's shards: `total` items cut at the granule.
fold::nccl::Shards strong_shards(std::int64_t total)
{
  return fold::nccl::Shards::even(total, ranks->count(), sum_granule(total));
}

// Room for `capacity` items on every rank (each case fills its shard) and the whole array on GPU 0.
void allocate(std::int64_t capacity, std::int64_t whole_items)
{
  buffers.resize(static_cast<std::size_t>(ranks->count()));
  rank_capacity = capacity;
  ranks->run(
      [&](int r)
      {
        RankBuffers& b = buffers[r];
        BENCH_CHECK(cudaMalloc(&b.in, capacity * sizeof(float)));
        BENCH_CHECK(cudaMalloc(&b.out, sizeof(float)));
        BENCH_CHECK(cudaMalloc(&b.partial, sizeof(float)));
      });
  BENCH_CHECK(cudaSetDevice(0));
  BENCH_CHECK(cudaMalloc(&whole, whole_items * sizeof(float)));
  fill<<<1024, 256>>>(whole, whole_items, 0);
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

void measure(benchmark::State& state, const fold::nccl::Shards& shards)
{
  const int p              = ranks->count();
  const std::int64_t total = shards.total();
  std::int64_t largest     = 0;
  for (int r = 0; r < p; ++r)
  {
    largest = std::max(largest, shards.count(r));
  }
  if (largest > rank_capacity)
  {
    std::fprintf(stderr,
                 "fold-nccl-bench: a shard of %lld items; room for %lld\n",
                 static_cast<long long>(largest),
                 static_cast<long long>(rank_capacity));
    std::exit(1);
  }
  const int calls = bench::calls_per_sample(static_cast<std::size_t>(largest));

  // Each rank's shard: its items of the array that GPU 0 sums whole; temporary storage for these shards.
  ranks->run(
      [&](int r)
      {
        RankBuffers& b      = buffers[r];
        cudaStream_t stream = ranks->stream(r);
        fill<<<1024, 256, 0, stream>>>(b.in, shards.count(r), shards.offset(r));
        BENCH_CHECK(cudaGetLastError());
        std::size_t fold_bytes = 0, cub_bytes = 0;
        BENCH_CHECK(fold::nccl::DeviceReduce::Sum(nullptr, fold_bytes, b.in, b.out, shards, ranks->comm(r), stream));
        BENCH_CHECK(cub::DeviceReduce::Sum(nullptr, cub_bytes, b.in, b.partial, shards.count(r), stream));
        grow(b.temp, b.temp_bytes, std::max(fold_bytes, cub_bytes));
        BENCH_CHECK(cudaStreamSynchronize(stream));
      });
  BENCH_CHECK(cudaSetDevice(0));
  std::size_t whole_bytes = 0;
  BENCH_CHECK(fold::DeviceReduce::Sum(nullptr, whole_bytes, whole, buffers[0].partial, total));
  grow(whole_temp, whole_temp_bytes, whole_bytes);

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
    BENCH_CHECK(cub::DeviceReduce::Sum(b.temp, bytes, b.in, b.partial, shards.count(r), ranks->stream(r)));
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
  float one_gpu               = 0;
  std::size_t whole_temp_left = whole_temp_bytes;
  BENCH_CHECK(fold::DeviceReduce::Sum(whole_temp, whole_temp_left, whole, buffers[0].partial, total));
  BENCH_CHECK(cudaMemcpy(&one_gpu, buffers[0].partial, sizeof(float), cudaMemcpyDeviceToHost));
  const std::int64_t granule = sum_granule(total);
  bool same                  = true;
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
  state.counters["items_per_rank"]       = static_cast<double>(largest);
  state.counters["total_items"]          = static_cast<double>(total);
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
  // 1 or 0 where the shards are whole granules (every rank but the last), -1 where one GPU's bits are not promised.
  bool on_granule = true;
  for (int r = 0; r + 1 < p; ++r)
  {
    on_granule = on_granule && shards.count(r) % granule == 0;
  }
  state.counters["same_bits_as_one_gpu"] = on_granule ? (same ? 1 : 0) : -1;
}

// Weak scaling: range(0) items on every rank.
void BM_sum(benchmark::State& state)
{
  measure(state,
          fold::nccl::Shards{std::vector<std::int64_t>(static_cast<std::size_t>(ranks->count()), state.range(0))});
}

// Strong scaling: range(0) items in all, cut at the granule.
void BM_sum_total(benchmark::State& state)
{
  BENCH_CHECK(cudaSetDevice(0));
  measure(state, strong_shards(state.range(0)));
}

// --bits: the result's bits, fold::nccl beside one GPU's fold::DeviceReduce. ---------------------------------------
struct ArgResult
{
  float value;
  std::int64_t index;
};

std::string hex(float x)
{
  std::uint32_t u = 0;
  std::memcpy(&u, &x, sizeof u);
  char text[16];
  std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(u));
  return text;
}
std::string hex(double x)
{
  std::uint64_t u = 0;
  std::memcpy(&u, &x, sizeof u);
  char text[24];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(u));
  return text;
}
std::string hex(const Affine& f)
{
  return hex(f.a) + ":" + hex(f.b);
}
std::string hex(const ArgResult& m)
{
  return hex(m.value) + "@" + std::to_string(m.index);
}

// Each case's call, over shards on one rank (fold::nccl) or over the whole array on one GPU (fold::DeviceReduce);
// `out` holds the result.
struct SumCall
{
  template <typename T>
  cudaError_t operator()(void* temp,
                         std::size_t& bytes,
                         const T* in,
                         void* out,
                         const fold::nccl::Shards& shards,
                         ncclComm_t comm,
                         cudaStream_t stream) const
  {
    return fold::nccl::DeviceReduce::Sum(temp, bytes, in, static_cast<T*>(out), shards, comm, stream);
  }
  template <typename T>
  cudaError_t
  operator()(void* temp, std::size_t& bytes, const T* in, void* out, std::int64_t n, cudaStream_t stream) const
  {
    return fold::DeviceReduce::Sum(temp, bytes, in, static_cast<T*>(out), n, stream);
  }
};
struct ArgMaxCall
{
  static float* value(void* out)
  {
    return reinterpret_cast<float*>(static_cast<char*>(out) + offsetof(ArgResult, value));
  }
  static std::int64_t* index(void* out)
  {
    return reinterpret_cast<std::int64_t*>(static_cast<char*>(out) + offsetof(ArgResult, index));
  }
  cudaError_t operator()(void* temp,
                         std::size_t& bytes,
                         const float* in,
                         void* out,
                         const fold::nccl::Shards& shards,
                         ncclComm_t comm,
                         cudaStream_t stream) const
  {
    return fold::nccl::DeviceReduce::ArgMax(temp, bytes, in, value(out), index(out), shards, comm, stream);
  }
  cudaError_t
  operator()(void* temp, std::size_t& bytes, const float* in, void* out, std::int64_t n, cudaStream_t stream) const
  {
    return fold::DeviceReduce::ArgMax(temp, bytes, in, value(out), index(out), n, stream);
  }
};
struct ThenCall
{
  cudaError_t operator()(void* temp,
                         std::size_t& bytes,
                         const Affine* in,
                         void* out,
                         const fold::nccl::Shards& shards,
                         ncclComm_t comm,
                         cudaStream_t stream) const
  {
    return fold::nccl::DeviceReduce::Reduce(
        temp, bytes, in, static_cast<Affine*>(out), shards, Then{}, Affine{1.0f, 0.0f}, comm, stream);
  }
  cudaError_t
  operator()(void* temp, std::size_t& bytes, const Affine* in, void* out, std::int64_t n, cudaStream_t stream) const
  {
    return fold::DeviceReduce::Reduce(
        temp, bytes, in, static_cast<Affine*>(out), n, Then{}, Affine{1.0f, 0.0f}, stream);
  }
};

// CUB's two calls of `call(temp, bytes, out)` on `stream`, into a poisoned output; the result.
template <typename R, typename CallT>
R two_calls(cudaStream_t stream, CallT&& call)
{
  void* out = nullptr;
  BENCH_CHECK(cudaMallocAsync(&out, sizeof(R), stream));
  BENCH_CHECK(cudaMemsetAsync(out, 0xA5, sizeof(R), stream));
  std::size_t bytes = 0;
  BENCH_CHECK(call(nullptr, bytes, out));
  void* temp = nullptr;
  BENCH_CHECK(cudaMallocAsync(&temp, std::max<std::size_t>(bytes, 1), stream));
  BENCH_CHECK(call(temp, bytes, out));
  R result{};
  BENCH_CHECK(cudaMemcpyAsync(&result, out, sizeof(R), cudaMemcpyDeviceToHost, stream));
  BENCH_CHECK(cudaFreeAsync(temp, stream));
  BENCH_CHECK(cudaFreeAsync(out, stream));
  BENCH_CHECK(cudaStreamSynchronize(stream));
  return result;
}

// One case: `total` items of T cut at `granule`, the whole array on GPU 0 (rank 0's shard is its head), each other
// rank's shard on its GPU. Prints one line; true when every rank has one GPU's bits.
template <typename T, typename R, typename CallT>
bool bits_case(const char* name, std::int64_t total, std::int64_t granule, CallT call)
{
  const int p                     = ranks->count();
  const fold::nccl::Shards shards = fold::nccl::Shards::even(total, p, granule);
  std::vector<std::string> got(static_cast<std::size_t>(p));
  std::string expected;
  ranks->run(
      [&](int r)
      {
        cudaStream_t stream  = ranks->stream(r);
        const std::int64_t n = r == 0 ? total : shards.count(r);
        T* in                = nullptr;
        BENCH_CHECK(cudaMalloc(&in, static_cast<std::size_t>(std::max<std::int64_t>(n, 1)) * sizeof(T)));
        fill<<<1024, 256, 0, stream>>>(in, n, shards.offset(r));
        BENCH_CHECK(cudaGetLastError());
        got[r] =
            hex(two_calls<R>(stream,
                             [&](void* temp, std::size_t& bytes, void* out) {
                               return call(temp, bytes, static_cast<const T*>(in), out, shards, ranks->comm(r), stream);
                             }));
        if (r == 0)
        {
          expected = hex(two_calls<R>(stream,
                                      [&](void* temp, std::size_t& bytes, void* out)
                                      { return call(temp, bytes, static_cast<const T*>(in), out, total, stream); }));
        }
        BENCH_CHECK(cudaFree(in));
      });
  bool agree = true;
  std::string counts;
  for (int r = 0; r < p; ++r)
  {
    agree = agree && got[r] == got[0];
    counts += (r > 0 ? "," : "") + std::to_string(shards.count(r));
  }
  const bool same = agree && got[0] == expected;
  std::printf("bits case=%s gpus=%d total=%lld granule=%lld shards=%s fold=%s one_gpu=%s ranks_agree=%s same=%s\n",
              name,
              p,
              static_cast<long long>(total),
              static_cast<long long>(granule),
              counts.c_str(),
              got[0].c_str(),
              expected.c_str(),
              agree ? "yes" : "no",
              same ? "yes" : "no");
  std::fflush(stdout);
  return same;
}

// Every case for 2^20 to 2^max_log2 items in all (even powers of two, and a ragged total below each).
bool run_bits(int max_log2)
{
  BENCH_CHECK(cudaSetDevice(0));
  bool all = true;
  for (int e = 20; e <= max_log2; e += 2)
  {
    for (const std::int64_t total : {(std::int64_t{1} << e) - (std::int64_t{1} << (e - 3)) + 9, std::int64_t{1} << e})
    {
      std::int64_t float_granule = 0, double_granule = 0, then_granule = 0;
      BENCH_CHECK(fold::nccl::DeviceReduce::Granule<const float*>(total, float_granule));
      BENCH_CHECK(fold::nccl::DeviceReduce::Granule<const double*>(total, double_granule));
      BENCH_CHECK((fold::nccl::DeviceReduce::Granule<const Affine*, Then, Affine>(total, then_granule)));
      all = bits_case<float, float>("sum_float", total, float_granule, SumCall{}) && all;
      all = bits_case<double, double>("sum_double", total, double_granule, SumCall{}) && all;
      all = bits_case<float, ArgResult>("argmax_float", total, 1, ArgMaxCall{}) && all; // exact: any cut
      all = bits_case<Affine, Affine>("reduce_affine", total, then_granule, ThenCall{}) && all;
    }
  }
  return all;
}

} // namespace

int main(int argc, char** argv)
{
  setenv("NCCL_NVLS_ENABLE", "0", 0); // NVLink multicast stays off unless the caller says otherwise
  benchmark::Initialize(&argc, argv);
  bool strong   = false;
  int bits_log2 = 0;
  for (int i = 1; i < argc; ++i)
  {
    const std::string arg = argv[i];
    if (arg == "--strong")
    {
      strong = true;
    }
    else if (arg == "--bits" || arg.rfind("--bits=", 0) == 0)
    {
      bits_log2 = arg == "--bits" ? 32 : std::atoi(arg.c_str() + 7);
      if (bits_log2 < 20 || bits_log2 > 34)
      {
        std::fprintf(stderr, "fold-nccl-bench: --bits=N takes N in [20, 34]\n");
        return 1;
      }
    }
    else
    {
      std::fprintf(stderr, "fold-nccl-bench: unknown argument %s\n", argv[i]);
      return 1;
    }
  }
  facts       = bench::device_facts();
  int devices = 0;
  BENCH_CHECK(cudaGetDeviceCount(&devices));
  benchmark::AddCustomContext("device", facts.name);
  benchmark::AddCustomContext("gpus", std::to_string(devices));
  int version = 0;
  ncclGetVersion(&version);
  benchmark::AddCustomContext("nccl", std::to_string(version));
  benchmark::AddCustomContext("NCCL_NVLS_ENABLE", std::getenv("NCCL_NVLS_ENABLE"));
  std::printf("%d x %s, NCCL %d\n", devices, facts.name.c_str(), version);

  Ranks all(devices);
  ranks = &all;
  if (bits_log2 > 0)
  {
    return run_bits(bits_log2) ? 0 : 2;
  }
  std::int64_t capacity = max_per_rank, whole_items = max_per_rank * devices;
  if (strong)
  {
    BENCH_CHECK(cudaSetDevice(0));
    const fold::nccl::Shards largest = strong_shards(max_total_strong);
    for (int r = 0; r < devices; ++r)
    {
      capacity = std::max(capacity, largest.count(r));
    }
    whole_items = std::max(whole_items, max_total_strong);
  }
  allocate(capacity, whole_items);
  auto* b = benchmark::RegisterBenchmark("nccl_sum/float", BM_sum);
  for (int e = 10; e <= 30; e += 2)
  {
    b->Arg(std::int64_t{1} << e);
  }
  b->Arg(max_per_rank)->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
  if (strong)
  {
    auto* s = benchmark::RegisterBenchmark("nccl_sum_total/float", BM_sum_total);
    for (int e = 10; e <= 32; e += 2)
    {
      s->Arg(std::int64_t{1} << e);
    }
    s->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
