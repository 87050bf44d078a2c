// The driver of small-tile-<base>.txt (not built by CMake): the GPU's own time of one-tile calls (2^10-2^14 items),
// where fold's commutative tile (32 items a thread for 4-byte items on sm_90) is partly filled and cub's (16) is
// full. fold's Sum and Min under the default tuning, under `fold::tuned<Small>` (the same policy with a commutative
// tile of 16 items a thread) and under `SmallSingle` (`Small` forced to one block, whatever the count), the
// order-preserving `PlusAny`, and cub's Sum and Min. Build against any tree:
//   nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -o small-tile benchmarks/results/ab/small-tile-driver.cu
// (with -DSMALL_ITEMS=k, `Small` has both tiles of k 4-byte items a thread, as many bytes of narrower items; with
// -DSMALL_SERIAL, its calls are launched without programmatic dependent launch) and run
// `small-tile <log2 items>...`. "graph": 32 calls captured into one CUDA graph (each on its own slice of a pool),
// the graph replayed, time per call, median of 21 replays; "one": one call between two events, the stream idle
// before, median of 21; each the lower of two rounds. Every result is checked against cub's.
#include "driver_util.cuh"

#include <fold/fold.cuh>

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

//! The default policy with a commutative tile of 16 items a thread (4-byte items), the order-preserving one's.
struct Small
{
  __host__ __device__ static constexpr fold::ReducePolicy policy(int arch)
  {
    fold::ReducePolicy p = fold::DefaultTuning::policy(arch);
#ifdef SMALL_ITEMS // both tiles cut to this many 4-byte items a thread (narrow items: as many bytes)
    p.items_per_thread = SMALL_ITEMS;
#endif
    p.commutative_items_per_thread = p.items_per_thread;
    return p;
  }
#ifdef SMALL_SERIAL // `Small`'s calls launched without programmatic dependent launch
  static fold::detail::DispatchHooks hooks()
  {
    fold::detail::DispatchHooks h;
    h.serial_launches = true;
    return h;
  }
#endif
};

//! `+` not declared commutative (fold's order-preserving path), over mixed types.
struct PlusAny
{
  template <typename A, typename B>
  __host__ __device__ A operator()(const A& a, const B& b) const
  {
    return static_cast<A>(a + b);
  }
};

//! `Small` with every call a single tile (one block over up to two of its tiles at 2^13 items).
struct SmallSingle : Small
{
  static fold::detail::DispatchHooks hooks()
  {
    fold::detail::DispatchHooks h;
    h.path = fold::detail::ReducePath::single_tile;
    return h;
  }
};

constexpr int graph_calls = 32;

template <typename T>
void run(const char* type_name, int lg, cudaStream_t stream)
{
  using AccT          = std::conditional_t<(sizeof(T) < 4 && std::is_integral_v<T>), int, T>;
  const std::size_t n = std::size_t(1) << lg;
  const int ni        = static_cast<int>(n);
  const std::size_t bytes = n * sizeof(T);
  const int slices        = pool_slices(bytes, graph_calls);
  T* pool          = nullptr;
  AccT* out        = nullptr;
  CHECK(cudaMalloc(&pool, bytes * slices));
  fill_hashed<T><<<1024, 256, 0, stream>>>(pool, n * slices);
  CHECK(cudaGetLastError());
  constexpr int cases = 9;
  CHECK(cudaMalloc(&out, cases * sizeof(AccT)));
  auto slice               = [&](int i) { return pool + (i % slices) * n; };
  const char* names[cases] = {"sum", "sum16", "cub-sum", "min", "min16", "cub-min", "plus", "sum16s", "min16s"};

  // Each case: (temp, bytes, slice, out) -> error.
  using Call              = std::function<cudaError_t(void*, std::size_t&, const T*, AccT*)>;
  const Call calls[cases] = {
      [&](void* t, std::size_t& b, const T* in, AccT* o) { return fold::DeviceReduce::Sum(t, b, in, o, ni, stream); },
      [&](void* t, std::size_t& b, const T* in, AccT* o)
      { return fold::DeviceReduce::Sum(t, b, in, o, ni, stream, fold::tuned<Small>); },
      [&](void* t, std::size_t& b, const T* in, AccT* o) { return cub::DeviceReduce::Sum(t, b, in, o, ni, stream); },
      [&](void* t, std::size_t& b, const T* in, AccT* o) { return fold::DeviceReduce::Min(t, b, in, o, ni, stream); },
      [&](void* t, std::size_t& b, const T* in, AccT* o)
      { return fold::DeviceReduce::Min(t, b, in, o, ni, stream, fold::tuned<Small>); },
      [&](void* t, std::size_t& b, const T* in, AccT* o) { return cub::DeviceReduce::Min(t, b, in, o, ni, stream); },
      [&](void* t, std::size_t& b, const T* in, AccT* o)
      { return fold::DeviceReduce::Reduce(t, b, in, o, ni, PlusAny{}, AccT{}, stream); },
      [&](void* t, std::size_t& b, const T* in, AccT* o)
      { return fold::DeviceReduce::Sum(t, b, in, o, ni, stream, fold::tuned<SmallSingle>); },
      [&](void* t, std::size_t& b, const T* in, AccT* o)
      { return fold::DeviceReduce::Min(t, b, in, o, ni, stream, fold::tuned<SmallSingle>); },
  };
  std::size_t bytes_of[cases] = {};
  void* temp[cases]           = {};
  for (int k = 0; k < cases; ++k)
  {
    CHECK(calls[k](nullptr, bytes_of[k], pool, out + k));
    CHECK(cudaMalloc(&temp[k], std::max<std::size_t>(bytes_of[k], 1)));
  }
  float g[cases], o[cases];
  for (int round = 0; round < 2; ++round)
  {
    for (int k = 0; k < cases; ++k)
    {
      float gr, orr;
      time_graph_and_one(
          stream, graph_calls, [&](int i) { return calls[k](temp[k], bytes_of[k], slice(i), out + k); }, gr, orr);
      g[k] = round == 0 ? gr : std::min(g[k], gr);
      o[k] = round == 0 ? orr : std::min(o[k], orr);
    }
  }
  CHECK(cudaMemsetAsync(out, 0xff, cases * sizeof(AccT), stream));
  for (int k = 0; k < cases; ++k)
  {
    CHECK(calls[k](temp[k], bytes_of[k], pool, out + k));
  }
  CHECK(cudaStreamSynchronize(stream));
  AccT h[cases];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  const double sum = static_cast<double>(h[2]), mn = static_cast<double>(h[5]);
  const double tol = std::is_integral_v<T> ? 0.0 : 1e-3 * std::max(1.0, std::abs(sum));
  const bool ok    = std::abs(static_cast<double>(h[0]) - sum) <= tol &&
                  std::abs(static_cast<double>(h[1]) - sum) <= tol &&
                  std::abs(static_cast<double>(h[6]) - sum) <= tol && static_cast<double>(h[3]) == mn &&
                  static_cast<double>(h[4]) == mn && std::abs(static_cast<double>(h[7]) - sum) <= tol &&
                  static_cast<double>(h[8]) == mn;
  for (int m = 0; m < 2; ++m)
  {
    const float* t = m == 0 ? g : o;
    std::printf("%-6s 2^%-2d %-5s", type_name, lg, m == 0 ? "graph" : "one");
    for (int k = 0; k < cases; ++k)
    {
      std::printf(" %s %6.2f", names[k], t[k]);
    }
    std::printf(
        " | sum/cub %.3f sum16/cub %.3f sum16s/cub %.3f min/cub %.3f min16/cub %.3f min16s/cub %.3f plus/cub %.3f%s\n",
        t[0] / t[2],
        t[1] / t[2],
        t[7] / t[2],
        t[3] / t[5],
        t[4] / t[5],
        t[8] / t[5],
        t[6] / t[2],
        ok ? "" : "  CHECK FAILED");
  }
  for (int k = 0; k < cases; ++k)
  {
    CHECK(cudaFree(temp[k]));
  }
  CHECK(cudaFree(pool));
  CHECK(cudaFree(out));
}

int main(int argc, char** argv)
{
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int i = 1; i < argc; ++i)
  {
    const int lg = std::atoi(argv[i]);
    run<std::int8_t>("int8", lg, stream);
    run<std::int16_t>("int16", lg, stream);
    run<int>("int32", lg, stream);
    run<float>("float", lg, stream);
    run<double>("double", lg, stream);
  }
  CHECK(cudaStreamDestroy(stream));
}
