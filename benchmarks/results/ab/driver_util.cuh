// SPDX-License-Identifier: Apache-2.0
// What the timing drivers in this folder share, on top of the benchmarks' own helpers (benchmarks/bench_common.cuh):
// a check of every CUDA call, a spin kernel that holds the stream while the host queues a call's launches behind it,
// fills of the input with values that are never all zero, fixed-length segment offsets, a median of event timings, and
// for the A/B drivers a pool of input slices (`PoolBuffers`) with a three-mode comparison of two calls (`compare`).
#pragma once

#include "../../bench_common.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

#define CHECK(x) BENCH_CHECK(x)

//! Whether `a` and `b` have the same bits (floating-point results compared exactly, NaNs and zeros included).
template <typename T>
bool same(const T& a, const T& b)
{
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

//! Spins for `ns` nanoseconds of the GPU's global timer.
__global__ void spin(unsigned long long ns)
{
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do
  {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

//! `x[i] = (i * 2654435761 mod 1000) / 1000 + offset`, computed in float and converted to `T`, grid-stride (blocks of
//! 256 threads).
template <typename T>
__global__ void fill(T* x, long long n, float offset = 0.0f)
{
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x)
  {
    x[i] = static_cast<T>(static_cast<float>((i * 2654435761ull) % 1000) / 1000.0f + offset);
  }
}

//! `x[i]`: a hash of `i`; floating-point items (half and bfloat16 too) `scale * u + offset` with `u` uniform in [0, 1)
//! (24 bits), integers the hash's top 63 bits converted to `T` (their whole range for 4-byte ones).
template <typename T>
__global__ void fill_hashed(T* x, std::size_t n, double scale = 2000.0, double offset = -1000.0)
{
  for (std::size_t i = blockIdx.x * std::size_t{256} + threadIdx.x; i < n; i += std::size_t{256} * gridDim.x)
  {
    unsigned long long h = i * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    if constexpr (std::is_floating_point_v<T>)
    {
      x[i] = static_cast<T>(static_cast<double>(h & 0xffffffull) / 16777216.0 * scale + offset);
    }
    else if constexpr (!std::is_integral_v<T>) // half and bfloat16, through float
    {
      x[i] = static_cast<T>(static_cast<float>(static_cast<double>(h & 0xffffffull) / 16777216.0 * scale + offset));
    }
    else
    {
      x[i] = static_cast<T>(h >> 1);
    }
  }
}

//! `offsets[s] = s * length` for `s` in `[0, segments]`: segments of one fixed length, grid-stride (blocks of 256).
__global__ void fixed_offsets(int* offsets, int segments, int length)
{
  for (int s = blockIdx.x * 256 + threadIdx.x; s <= segments; s += 256 * gridDim.x)
  {
    offsets[s] = s * length;
  }
}

//! `body()` timed between two CUDA events on `stream`, the stream idle before (behind a 200 us `spin` with
//! `queued`, so that the host has queued every launch before the GPU reaches them), 22 times: the median of the last
//! 21, in microseconds, divided by `calls` (the calls `body` makes).
template <typename BodyT>
float median_us(cudaStream_t stream, bool queued, int calls, BodyT&& body)
{
  bench::EventTimer timer;
  std::vector<double> t;
  for (int i = 0; i < 22; ++i)
  {
    CHECK(cudaStreamSynchronize(stream));
    if (queued)
    {
      spin<<<1, 1, 0, stream>>>(200000);
    }
    const double seconds = timer.seconds(body, stream);
    if (i > 0)
    {
      t.push_back(seconds * 1e6 / calls);
    }
  }
  return static_cast<float>(bench::median(t));
}

//! How many slices of `bytes` a timing pool holds so that `calls` calls, each on slice `i % slices`, read from memory
//! where they can: up to `calls` slices within 4x the current device's L2, at least one.
inline int pool_slices(std::size_t bytes, int calls)
{
  int device = 0, l2 = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  const std::size_t fit = 4 * static_cast<std::size_t>(l2) / bytes;
  return static_cast<int>(fit < 1 ? 1 : fit < static_cast<std::size_t>(calls) ? fit : calls);
}

//! The GPU's time per call of `call(i)` (a `cudaError_t`, checked) for `i` in `[0, calls)`, captured into one CUDA
//! graph and replayed (`graph_us`), and of `call(0)` alone behind a spin (`one_us`); each the median of `median_us`.
template <typename CallT>
void time_graph_and_one(cudaStream_t stream, int calls, CallT&& call, float& graph_us, float& one_us)
{
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < calls; ++i)
  {
    CHECK(call(i));
  }
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, stream));
  graph_us = median_us(stream, false, calls, [&] { CHECK(cudaGraphLaunch(exec, stream)); });
  one_us   = median_us(stream, true, 1, [&] { CHECK(call(0)); });
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
}

//! Prints `call()` (a `cudaError_t`, checked) timed as one call and as 10 back to back (per call), "one/b2b" in us,
//! each the median of `median_us`.
template <typename CallT>
void print_call_and_b2b(cudaStream_t stream, CallT&& call)
{
  float t[2];
  for (int m = 0; m < 2; ++m)
  {
    const int calls = m == 0 ? 1 : 10;
    t[m]            = median_us(stream,
                     false,
                     calls,
                     [&]
                     {
                       for (int c = 0; c < calls; ++c)
                       {
                         CHECK(call());
                       }
                     });
  }
  std::printf(" %7.1f/%-7.1f", t[0], t[1]);
}

//! A `+` fold is not told is commutative: the order-preserving path.
struct Plus
{
  template <typename T>
  __host__ __device__ T operator()(T a, T b) const
  {
    return a + b;
  }
};

//! What a whole-array driver's case needs: `n` items of `fill_hashed` input, 64 outputs, 16 MiB of temporary storage
//! and a non-blocking stream, freed at the end of the case.
template <typename T>
struct CaseBuffers
{
  std::size_t n;
  T* in             = nullptr;
  T* out            = nullptr;
  void* temp        = nullptr;
  std::size_t bytes = std::size_t{1} << 24;
  cudaStream_t stream{};

  explicit CaseBuffers(std::size_t items)
      : n(items)
  {
    CHECK(cudaMalloc(&in, n * sizeof(T)));
    CHECK(cudaMalloc(&out, 64 * sizeof(T)));
    fill_hashed<<<1024, 256>>>(in, n);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMalloc(&temp, bytes));
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  CaseBuffers(const CaseBuffers&)            = delete;
  CaseBuffers& operator=(const CaseBuffers&) = delete;
  ~CaseBuffers()
  {
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    CHECK(cudaFree(temp));
  }
};

//! The buffers of one type and size: a pool of input slices, outputs for 32 calls (4 values and indices each),
//! 16 MiB of temporary storage, a non-blocking stream.
template <typename T>
struct PoolBuffers
{
  std::size_t n;
  int slices;
  T* pool                    = nullptr;
  T* values                  = nullptr;
  std::int64_t* indices      = nullptr;
  void* temp                 = nullptr;
  const std::size_t bytes    = std::size_t{1} << 24;
  static constexpr int calls = 32;
  cudaStream_t stream{};

  explicit PoolBuffers(int log2)
      : n(std::size_t{1} << log2)
      , slices(pool_slices(n * sizeof(T), calls))
  {
    CHECK(cudaMalloc(&pool, n * slices * sizeof(T)));
    fill_hashed<<<1024, 256>>>(pool, n * slices);
    CHECK(cudaMalloc(&values, 4 * calls * sizeof(T)));
    CHECK(cudaMalloc(&indices, 4 * calls * sizeof(std::int64_t)));
    CHECK(cudaMalloc(&temp, bytes));
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaDeviceSynchronize());
  }
  ~PoolBuffers()
  {
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(pool));
    CHECK(cudaFree(values));
    CHECK(cudaFree(indices));
    CHECK(cudaFree(temp));
  }
  const T* in(int i) const { return pool + (i % slices) * n; }
  //! Every call's values and indices set to 0xff bytes, on the stream.
  void poison() const
  {
    CHECK(cudaMemsetAsync(values, 0xff, 4 * calls * sizeof(T), stream));
    CHECK(cudaMemsetAsync(indices, 0xff, 4 * calls * sizeof(std::int64_t), stream));
  }
};

//! Times `a(i)` and `b(i)` (each a `cudaError_t`; fold's call and its rival's) in three modes: "graph", 32 calls
//! captured into one CUDA graph and replayed (`time_graph_and_one`; only with `graph`), "one", one call behind a spin,
//! "b2b", 10 calls back to back; then poisons the outputs (`poison()`), runs call 0 of each and asks `check()` whether
//! their results agree. Prints one
//! line: `name type 2^log2`, each mode's "a/b ratio" (graph 0 when not timed), the % of the H200's datasheet peak
//! `bytes` make back to back, and CHECK FAILED where they disagree (`ab-summary.py` reads these lines).
template <typename A, typename B, typename Check, typename Poison>
void compare(const char* name,
             const char* type,
             int log2,
             double bytes,
             cudaStream_t stream,
             bool graph,
             A&& a,
             B&& b,
             Check&& check,
             Poison&& poison)
{
  float g[2] = {0, 0}, one[2], b2b[2];
  if (graph)
  {
    time_graph_and_one(stream, PoolBuffers<char>::calls, a, g[0], one[0]);
    time_graph_and_one(stream, PoolBuffers<char>::calls, b, g[1], one[1]);
  }
  else
  {
    one[0] = median_us(stream, true, 1, [&] { CHECK(a(0)); });
    one[1] = median_us(stream, true, 1, [&] { CHECK(b(0)); });
  }
  auto ten = [&](auto& call)
  {
    return median_us(stream,
                     false,
                     10,
                     [&]
                     {
                       for (int k = 0; k < 10; ++k)
                       {
                         CHECK(call(k));
                       }
                     });
  };
  b2b[0] = ten(a);
  b2b[1] = ten(b);
  poison();
  CHECK(a(0));
  CHECK(b(0));
  CHECK(cudaStreamSynchronize(stream));
  const bool ok = check();
  std::printf(
      "%-12s %-6s 2^%-2d graph %8.2f/%-8.2f %.3f  one %8.2f/%-8.2f %.3f  b2b %8.2f/%-8.2f %.3f  b2b %5.1f %% peak%s\n",
      name,
      type,
      log2,
      g[0],
      g[1],
      graph ? g[0] / g[1] : 0.0,
      one[0],
      one[1],
      one[0] / one[1],
      b2b[0],
      b2b[1],
      b2b[0] / b2b[1],
      bytes / 1e3 / b2b[0] / 48.143, // the H200's datasheet 4814.3 GB/s
      ok ? "" : "  CHECK FAILED");
}
