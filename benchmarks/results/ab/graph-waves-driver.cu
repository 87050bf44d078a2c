// The driver of graph-waves-<base>.txt (not built by CMake): under graph replay fold's multi-tile calls take two
// launches (pass 1, then the partials; `is_capturing`), pass 1 in one wave below the policy's `one_wave_max_mib`
// (128 MiB). This times Min, Sum and ArgMax over double and float at 2^18-2^24 items under the default policy and
// under two `fold::tuned` policies (`Second`, `Third`), beside cub's:
// - by default (graph-waves-473eb4c.txt) pass 1 in more waves at every size (`Waves<k>`: `one_wave_max_mib` 0 and
//   `oversubscription` k; w2, w4);
// - with -DTILES_VARIANT (graph-tiles-b756189.txt, pass-two-tile-b756189.txt) half the tile (`Half<0>`: 8 four-byte
//   items a thread, 16 for commutative operators over 4-byte items; h) and the same at 8 blocks a multiprocessor
//   (`Half<8>`; h8), or, with -DSERIAL_VARIANT too, the default policy launched without programmatic dependent launch
//   in the h8 columns (`Serial`).
// ArgMax under `Second` was added with the tiles variant (473eb4c's record has no argmax-w2 column). Build against any
// tree:
//   nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -o graph-waves benchmarks/results/ab/graph-waves-driver.cu
// and run `graph-waves <log2 items>...`. "graph": 32 calls captured into one CUDA graph (each on its own slice of a
// pool of up to 4x the L2), replayed, time per call, median of 21 replays; "one": one call between two events behind
// a spin, median of 21; each the lower of two rounds. Every result is checked against cub's (the sums within
// n * 1000 * epsilon).
#include "driver_util.cuh"

#include <fold/fold.cuh>

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>

//! The default policy with pass 1 in `K` waves at every size.
template <int K>
struct Waves
{
  __host__ __device__ static constexpr fold::ReducePolicy policy(int arch)
  {
    fold::ReducePolicy p = fold::DefaultTuning::policy(arch);
    p.one_wave_max_mib   = 0;
    p.oversubscription   = K;
    return p;
  }
};

//! The default policy with half the tile, at `MinBlocks` blocks a multiprocessor (0: the default's).
template <int MinBlocks>
struct Half
{
  __host__ __device__ static constexpr fold::ReducePolicy policy(int arch)
  {
    fold::ReducePolicy p           = fold::DefaultTuning::policy(arch);
    p.items_per_thread             = p.items_per_thread / 2;
    p.commutative_items_per_thread = p.commutative_items_per_thread / 2;
    p.min_blocks_per_sm            = MinBlocks > 0 ? MinBlocks : p.min_blocks_per_sm;
    return p;
  }
};

//! The default policy, its calls launched without programmatic dependent launch.
struct Serial : fold::DefaultTuning
{
  static fold::detail::DispatchHooks hooks()
  {
    fold::detail::DispatchHooks h;
    h.serial_launches = true;
    return h;
  }
};

#ifdef TILES_VARIANT
using Second = Half<0>;
#ifdef SERIAL_VARIANT
using Third = Serial;
#else
using Third = Half<8>;
#endif
#define SECOND_LABEL "h"
#define THIRD_LABEL "h8"
#else
using Second = Waves<2>;
using Third  = Waves<4>;
#define SECOND_LABEL "w2"
#define THIRD_LABEL "w4"
#endif

constexpr int graph_calls = 32;

template <typename T>
void run(const char* type_name, int lg, cudaStream_t stream)
{
  const std::size_t n = std::size_t(1) << lg;
  const int ni        = static_cast<int>(n);
  const std::size_t bytes = n * sizeof(T);
  const int slices        = pool_slices(bytes, graph_calls);
  T* pool             = nullptr;
  T* out              = nullptr;
  std::int64_t* index = nullptr;
  CHECK(cudaMalloc(&pool, bytes * slices));
  fill_hashed<T><<<1024, 256, 0, stream>>>(pool, n * slices);
  CHECK(cudaGetLastError());
  constexpr int cases = 12;
  CHECK(cudaMalloc(&out, cases * sizeof(T)));
  CHECK(cudaMalloc(&index, cases * sizeof(std::int64_t)));
  auto slice               = [&](int i) { return pool + (i % slices) * n; };
  const char* names[cases] = {
      "min",    "min-" SECOND_LABEL,    "min-" THIRD_LABEL, "cub-min",    "sum", "sum-" SECOND_LABEL,
      "sum-" THIRD_LABEL, "cub-sum", "argmax", "argmax-" THIRD_LABEL, "cub-argmax", "argmax-" SECOND_LABEL};
  using Call              = std::function<cudaError_t(void*, std::size_t&, const T*, int)>;
  const Call calls[cases] = {
      [&](void* t, std::size_t& b, const T* in, int k)
      { return fold::DeviceReduce::Min(t, b, in, out + k, ni, stream); },
      [&](void* t, std::size_t& b, const T* in, int k)
      { return fold::DeviceReduce::Min(t, b, in, out + k, ni, stream, fold::tuned<Second>); },
      [&](void* t, std::size_t& b, const T* in, int k)
      { return fold::DeviceReduce::Min(t, b, in, out + k, ni, stream, fold::tuned<Third>); },
      [&](void* t, std::size_t& b, const T* in, int k)
      { return cub::DeviceReduce::Min(t, b, in, out + k, ni, stream); },
      [&](void* t, std::size_t& b, const T* in, int k)
      { return fold::DeviceReduce::Sum(t, b, in, out + k, ni, stream); },
      [&](void* t, std::size_t& b, const T* in, int k)
      { return fold::DeviceReduce::Sum(t, b, in, out + k, ni, stream, fold::tuned<Second>); },
      [&](void* t, std::size_t& b, const T* in, int k)
      { return fold::DeviceReduce::Sum(t, b, in, out + k, ni, stream, fold::tuned<Third>); },
      [&](void* t, std::size_t& b, const T* in, int k)
      { return cub::DeviceReduce::Sum(t, b, in, out + k, ni, stream); },
      [&](void* t, std::size_t& b, const T* in, int k)
      { return fold::DeviceReduce::ArgMax(t, b, in, out + k, index + k, ni, stream); },
      [&](void* t, std::size_t& b, const T* in, int k)
      { return fold::DeviceReduce::ArgMax(t, b, in, out + k, index + k, ni, stream, fold::tuned<Third>); },
      [&](void* t, std::size_t& b, const T* in, int k)
      { return cub::DeviceReduce::ArgMax(t, b, in, out + k, index + k, ni, stream); },
      [&](void* t, std::size_t& b, const T* in, int k)
      { return fold::DeviceReduce::ArgMax(t, b, in, out + k, index + k, ni, stream, fold::tuned<Second>); },
  };
  std::size_t bytes_of[cases] = {};
  void* temp[cases]           = {};
  for (int k = 0; k < cases; ++k)
  {
    CHECK(calls[k](nullptr, bytes_of[k], pool, k));
    CHECK(cudaMalloc(&temp[k], std::max<std::size_t>(bytes_of[k], 1)));
  }
  float g[cases], o[cases];
  for (int round = 0; round < 2; ++round)
  {
    for (int k = 0; k < cases; ++k)
    {
      float gr, orr;
      time_graph_and_one(
          stream, graph_calls, [&](int i) { return calls[k](temp[k], bytes_of[k], slice(i), k); }, gr, orr);
      g[k] = round == 0 ? gr : std::min(g[k], gr);
      o[k] = round == 0 ? orr : std::min(o[k], orr);
    }
  }
  CHECK(cudaMemsetAsync(out, 0xff, cases * sizeof(T), stream));
  CHECK(cudaMemsetAsync(index, 0xff, cases * sizeof(std::int64_t), stream));
  for (int k = 0; k < cases; ++k)
  {
    CHECK(calls[k](temp[k], bytes_of[k], pool, k));
  }
  CHECK(cudaStreamSynchronize(stream));
  T h[cases];
  std::int64_t hi[cases];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hi, index, sizeof hi, cudaMemcpyDeviceToHost));
  // Min and ArgMax exactly; sums within n ulps of the largest item (|x| < 1000) of each other, whatever the tree.
  const double tol  = static_cast<double>(n) * 1000.0 * std::numeric_limits<T>::epsilon();
  const bool min_ok = h[0] == h[3] && h[1] == h[3] && h[2] == h[3];
  const bool arg_ok =
      h[8] == h[10] && h[9] == h[10] && h[11] == h[10] && hi[8] == hi[10] && hi[9] == hi[10] && hi[11] == hi[10];
  bool sum_ok       = true;
  for (int k = 4; k < 7; ++k)
  {
    sum_ok = sum_ok && std::abs(static_cast<double>(h[k]) - static_cast<double>(h[7])) <= tol;
  }
  const bool ok = min_ok && sum_ok && arg_ok;
  for (int m = 0; m < 2; ++m)
  {
    const float* t = m == 0 ? g : o;
    std::printf("%-6s 2^%-2d %-5s", type_name, lg, m == 0 ? "graph" : "one");
    for (int k = 0; k < cases; ++k)
    {
      std::printf(" %s %6.2f", names[k], t[k]);
    }
    std::printf(" | /cub: min %.3f " SECOND_LABEL " %.3f " THIRD_LABEL " %.3f sum %.3f " SECOND_LABEL " %.3f " THIRD_LABEL
                " %.3f argmax %.3f " SECOND_LABEL " %.3f " THIRD_LABEL " %.3f%s\n",
                t[0] / t[3],
                t[1] / t[3],
                t[2] / t[3],
                t[4] / t[7],
                t[5] / t[7],
                t[6] / t[7],
                t[8] / t[10],
                t[11] / t[10],
                t[9] / t[10],
                ok       ? ""
                : min_ok ? (sum_ok ? "  CHECK FAILED: argmax" : "  CHECK FAILED: sum")
                         : "  CHECK FAILED: min");
  }
  for (int k = 0; k < cases; ++k)
  {
    CHECK(cudaFree(temp[k]));
  }
  CHECK(cudaFree(pool));
  CHECK(cudaFree(out));
  CHECK(cudaFree(index));
}

int main(int argc, char** argv)
{
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int i = 1; i < argc; ++i)
  {
    const int lg = std::atoi(argv[i]);
    run<double>("double", lg, stream);
    run<float>("float", lg, stream);
  }
  CHECK(cudaStreamDestroy(stream));
}
