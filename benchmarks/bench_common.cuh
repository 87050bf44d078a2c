// SPDX-License-Identifier: Apache-2.0
// What every benchmark here shares: device facts (datasheet peak bandwidth from the memory clock and bus width,
// L2 size), a measured read ceiling (a streaming-read kernel), random inputs generated on the device (never
// zeros), and event timing.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

namespace bench
{

//! Prints the failed call and exits: benchmarks are programs, not library code.
inline void check(cudaError_t status, const char* what, int line)
{
  if (status != cudaSuccess)
  {
    std::fprintf(stderr, "benchmark: %s (line %d) failed: %s\n", what, line, cudaGetErrorString(status));
    std::exit(1);
  }
}
#define BENCH_CHECK(expr) ::bench::check((expr), #expr, __LINE__)

struct DeviceFacts
{
  std::string name;
  int sms              = 0;
  std::size_t l2_bytes = 0;
  std::size_t memory   = 0;
  double peak_gbps     = 0; //!< datasheet: 2 x memory clock x bus width
  double ceiling_gbps  = 0; //!< measured by `measure_read_ceiling`
};

//! Exits with a clear message when there is no CUDA device.
inline DeviceFacts device_facts()
{
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
  {
    std::fprintf(stderr, "benchmark: no CUDA device found; the benchmarks need a GPU\n");
    std::exit(1);
  }
  int device = 0, clock_khz = 0, bus_bits = 0, l2 = 0;
  BENCH_CHECK(cudaGetDevice(&device));
  cudaDeviceProp properties{};
  BENCH_CHECK(cudaGetDeviceProperties(&properties, device));
  BENCH_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device));
  BENCH_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
  BENCH_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  DeviceFacts facts;
  facts.name      = properties.name;
  facts.sms       = properties.multiProcessorCount;
  facts.l2_bytes  = static_cast<std::size_t>(l2);
  facts.memory    = properties.totalGlobalMem;
  facts.peak_gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  return facts;
}

//! Median of `samples` (reorders them).
inline double median(std::vector<double>& samples)
{
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

//! Times device work with a pair of events on `stream`.
class EventTimer
{
public:
  EventTimer()
  {
    BENCH_CHECK(cudaEventCreate(&start_));
    BENCH_CHECK(cudaEventCreate(&stop_));
  }
  ~EventTimer()
  {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  //! Seconds taken by what `work()` queues on `stream`.
  template <typename WorkT>
  double seconds(WorkT&& work, cudaStream_t stream = 0)
  {
    BENCH_CHECK(cudaEventRecord(start_, stream));
    work();
    BENCH_CHECK(cudaEventRecord(stop_, stream));
    BENCH_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    BENCH_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms * 1e-3;
  }

private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

//! How many slices of a pool hold inputs of `bytes` bytes: enough for 4x the L2 (at most 64), so that a rotation
//! over them reads from memory, not from cache.
inline int slices_for(const DeviceFacts& facts, std::size_t bytes)
{
  const std::size_t target = 4 * facts.l2_bytes;
  return static_cast<int>(std::min<std::size_t>(64, std::max<std::size_t>(1, (target + bytes - 1) / bytes)));
}

//! Calls per timing sample back to back (or per graph) for inputs of `n` items: enough to hide the events.
inline int calls_per_sample(std::size_t n)
{
  return n <= (1u << 20) ? 200 : n <= (1u << 24) ? 50 : n <= (1u << 28) ? 8 : 3;
}

//! Takes timing samples of `call(slice, stream)`: seconds per call, `calls` calls per sample on `stream`, rotating
//! over `slices` inputs. With `graph`, the calls of one sample are captured once into a CUDA graph (the stream
//! must not be the legacy one) and each sample replays it: the time per call without the host's launch work.
//! The rotation starts at slice `first_slice`: samplers timed in turn start a third of the pool apart, so that a
//! call never finds its input in the L2 because another sampler's call has just read it.
template <typename CallT>
class Sampler
{
public:
  Sampler(CallT call, int slices, int calls, bool graph, cudaStream_t stream, int first_slice = 0)
      : call_(call)
      , slices_(slices)
      , calls_(calls)
      , stream_(stream)
      , slice_(first_slice % slices)
  {
    if (graph)
    {
      cudaGraph_t captured = nullptr;
      BENCH_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
      queue();
      BENCH_CHECK(cudaStreamEndCapture(stream_, &captured));
      BENCH_CHECK(cudaGraphInstantiate(&exec_, captured, 0));
      BENCH_CHECK(cudaGraphDestroy(captured));
      BENCH_CHECK(cudaGraphUpload(exec_, stream_));
      BENCH_CHECK(cudaGraphLaunch(exec_, stream_)); // warm-up
      BENCH_CHECK(cudaStreamSynchronize(stream_));
    }
  }
  ~Sampler()
  {
    if (exec_ != nullptr)
    {
      cudaGraphExecDestroy(exec_);
    }
  }
  Sampler(const Sampler&)            = delete;
  Sampler& operator=(const Sampler&) = delete;

  double sample()
  {
    const double seconds = timer_.seconds(
        [&]
        {
          if (exec_ != nullptr)
          {
            BENCH_CHECK(cudaGraphLaunch(exec_, stream_));
          }
          else
          {
            queue();
            slice_ = (slice_ + calls_) % slices_;
          }
        },
        stream_);
    return seconds / calls_;
  }
  //! The first error any call returned.
  cudaError_t status() const { return status_; }

private:
  void queue()
  {
    for (int k = 0; k < calls_; ++k)
    {
      const cudaError_t s = call_((slice_ + k) % slices_, stream_);
      status_             = status_ == cudaSuccess ? s : status_;
    }
  }

  CallT call_;
  int slices_, calls_;
  cudaStream_t stream_;
  cudaGraphExec_t exec_ = nullptr;
  int slice_            = 0;
  cudaError_t status_   = cudaSuccess;
  EventTimer timer_;
};

// ---- random inputs, generated on the device -------------------------------------------------------------

__host__ __device__ inline std::uint64_t mix(std::uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

//! Item `i` of a seeded random sequence of `T`: integers over their whole range (8- and 16-bit) or in
//! [-2^20, 2^20] (wider, so that sums do not overflow into meaninglessness), floats uniform in [-1, 1).
template <typename T>
__host__ __device__ T random_item(std::uint64_t seed, std::uint64_t i)
{
  const std::uint64_t bits = mix(seed * 0x9E3779B97F4A7C15ull + i);
  if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>)
  {
    return T(static_cast<float>(bits >> 40) * 0x1.0p-23f - 1.0f);
  }
  else if constexpr (std::is_floating_point_v<T>)
  {
    return static_cast<T>(static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0);
  }
  else if constexpr (sizeof(T) <= 2)
  {
    return static_cast<T>(bits);
  }
  else
  {
    return static_cast<T>(static_cast<std::int64_t>(bits % (2u << 20)) - (1 << 20));
  }
}

template <typename T>
__global__ void fill_random(T* data, std::size_t n, std::uint64_t seed)
{
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
  {
    data[i] = random_item<T>(seed, i);
  }
}

template <typename T>
void fill(T* data, std::size_t n, std::uint64_t seed)
{
  fill_random<<<1024, 256>>>(data, n, seed);
  BENCH_CHECK(cudaGetLastError());
}

// ---- the measured ceiling ----------------------------------------------------------------------------------

//! Reads `n` 16-byte words once, grid-stride, `Unroll` independent loads in flight per thread; writes only if an
//! impossible value turns up (so nothing is optimised away and nothing is written).
template <int Unroll>
__global__ void stream_read(const int4* data, std::size_t n, int* sink)
{
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  std::size_t i            = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  int acc                  = 0;
  for (; i + (Unroll - 1) * stride < n; i += Unroll * stride)
  {
    int4 v[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
      v[u] = data[i + u * stride];
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
      acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < n; i += stride)
  {
    const int4 v = data[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7FFFFFFF)
  {
    *sink = acc;
  }
}

//! The best bandwidth (GB/s) of a streaming read of `bytes` over several grid shapes and unroll depths, each the
//! median of 11 runs: the "measured ceiling" the benchmarks compare against.
inline double measure_read_ceiling(const DeviceFacts& facts, std::size_t bytes = std::size_t{4} << 30)
{
  bytes      = std::min(bytes, facts.memory / 4);
  int4* data = nullptr;
  int* sink  = nullptr;
  BENCH_CHECK(cudaMalloc(&data, bytes));
  BENCH_CHECK(cudaMalloc(&sink, sizeof(int)));
  BENCH_CHECK(cudaMemset(data, 1, bytes));
  EventTimer timer;
  double best = 0;
  for (int unroll : {1, 4})
  {
    for (int blocks_per_sm : {2, 4, 8, 16})
    {
      for (int threads : {256, 512})
      {
        std::vector<double> samples;
        for (int r = 0; r < 11; ++r)
        {
          samples.push_back(timer.seconds(
              [&]
              {
                const unsigned grid = static_cast<unsigned>(facts.sms * blocks_per_sm);
                if (unroll == 1)
                  stream_read<1><<<grid, threads>>>(data, bytes / sizeof(int4), sink);
                else
                  stream_read<4><<<grid, threads>>>(data, bytes / sizeof(int4), sink);
              }));
        }
        best = std::max(best, bytes / median(samples) / 1e9);
      }
    }
  }
  BENCH_CHECK(cudaGetLastError());
  cudaFree(data);
  cudaFree(sink);
  return best;
}

//! Type names for tables.
template <typename T>
const char* type_name()
{
  if constexpr (std::is_same_v<T, std::int8_t>)
    return "int8";
  else if constexpr (std::is_same_v<T, std::uint8_t>)
    return "uint8";
  else if constexpr (std::is_same_v<T, std::int16_t>)
    return "int16";
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return "int32";
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return "int64";
  else if constexpr (std::is_same_v<T, float>)
    return "float";
  else if constexpr (std::is_same_v<T, double>)
    return "double";
  else if constexpr (std::is_same_v<T, __half>)
    return "half";
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return "bfloat16";
  else
    return "?";
}

//! An array of `shape` reduced over `axes`: its items, its outputs, and the reduced axes as a bit mask.
struct AxesCounts
{
  std::size_t items = 1, outputs = 1;
  unsigned mask = 0;
};

inline AxesCounts axes_counts(const std::vector<std::int64_t>& shape, const std::vector<int>& axes)
{
  AxesCounts c;
  for (int a : axes)
  {
    c.mask |= 1u << a;
  }
  for (std::size_t d = 0; d < shape.size(); ++d)
  {
    c.items *= static_cast<std::size_t>(shape[d]);
    c.outputs *= (c.mask >> d & 1u) ? 1 : static_cast<std::size_t>(shape[d]);
  }
  return c;
}

} // namespace bench
