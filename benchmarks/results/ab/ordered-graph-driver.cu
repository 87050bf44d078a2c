// The driver of ordered-small-<base>.txt (not built by CMake): the GPU's own time of fold's order-preserving Reduce
// (a user operator not declared commutative), of the same operator declared commutative, and of cub's Reduce with it,
// with int and size_t counts (fold's 32- and 64-bit offsets). Build against any tree:
//   nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -o ordered-graph benchmarks/results/ab/ordered-graph-driver.cu
// and run `ordered-graph <log2 items>...`. "graph": 32 calls captured into one CUDA graph (each on its own slice of
// a pool of up to 4x the L2, so that the items come from memory where they can), the graph replayed, time per call,
// median of 21 replays; "one": one call between two events, the stream idle before, median of 21. The
// order-preserving result's bits are printed, so that trees can be compared.
#include "driver_util.cuh"

#include <fold/fold.cuh>

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

struct CustomSum
{
  template <typename T>
  __host__ __device__ T operator()(const T& a, const T& b) const
  {
    return static_cast<T>(a + b);
  }
};

constexpr int graph_calls = 32;

template <typename T>
void run(const char* type_name, int lg, cudaStream_t stream)
{
  const std::size_t n = std::size_t(1) << lg;
  const std::size_t bytes = n * sizeof(T);
  const int slices        = pool_slices(bytes, graph_calls);
  T* pool          = nullptr;
  T* out           = nullptr;
  CHECK(cudaMalloc(&pool, bytes * slices));
  fill<<<1024, 256, 0, stream>>>(pool, static_cast<long long>(n * slices), -0.5f);
  CHECK(cudaGetLastError());
  CHECK(cudaMalloc(&out, 8 * sizeof(T)));
  auto slice = [&](int i) { return pool + (i % slices) * n; };

  std::size_t bytes_of[5] = {};
  const int ni            = static_cast<int>(n);
  CHECK(fold::DeviceReduce::Reduce(nullptr, bytes_of[0], pool, out, ni, CustomSum{}, T{}, stream));
  CHECK(fold::DeviceReduce::Reduce(nullptr, bytes_of[1], pool, out, n, CustomSum{}, T{}, stream));
  CHECK(fold::DeviceReduce::Reduce(nullptr, bytes_of[2], pool, out, ni, fold::commutative(CustomSum{}), T{}, stream));
  CHECK(fold::DeviceReduce::Reduce(nullptr, bytes_of[3], pool, out, n, fold::commutative(CustomSum{}), T{}, stream));
  CHECK(cub::DeviceReduce::Reduce(nullptr, bytes_of[4], pool, out, ni, CustomSum{}, T{}, stream));
  void* temp[5];
  for (int k = 0; k < 5; ++k)
  {
    CHECK(cudaMalloc(&temp[k], bytes_of[k]));
  }
  auto ordered32 = [&](int i)
  { return fold::DeviceReduce::Reduce(temp[0], bytes_of[0], slice(i), out + 0, ni, CustomSum{}, T{}, stream); };
  auto ordered64 = [&](int i)
  { return fold::DeviceReduce::Reduce(temp[1], bytes_of[1], slice(i), out + 1, n, CustomSum{}, T{}, stream); };
  auto comm32 = [&](int i)
  {
    return fold::DeviceReduce::Reduce(
        temp[2], bytes_of[2], slice(i), out + 2, ni, fold::commutative(CustomSum{}), T{}, stream);
  };
  auto comm64 = [&](int i)
  {
    return fold::DeviceReduce::Reduce(
        temp[3], bytes_of[3], slice(i), out + 3, n, fold::commutative(CustomSum{}), T{}, stream);
  };
  auto cub_call = [&](int i)
  { return cub::DeviceReduce::Reduce(temp[4], bytes_of[4], slice(i), out + 4, ni, CustomSum{}, T{}, stream); };

  float g[5], o[5];
  // Two rounds, the lower of each: the order inside a round is the same, so any drift shows in both.
  for (int round = 0; round < 2; ++round)
  {
    float gr[5], orr[5];
    time_graph_and_one(stream, graph_calls, ordered32, gr[0], orr[0]);
    time_graph_and_one(stream, graph_calls, ordered64, gr[1], orr[1]);
    time_graph_and_one(stream, graph_calls, comm32, gr[2], orr[2]);
    time_graph_and_one(stream, graph_calls, comm64, gr[3], orr[3]);
    time_graph_and_one(stream, graph_calls, cub_call, gr[4], orr[4]);
    for (int k = 0; k < 5; ++k)
    {
      g[k] = round == 0 ? gr[k] : std::min(g[k], gr[k]);
      o[k] = round == 0 ? orr[k] : std::min(o[k], orr[k]);
    }
  }
  CHECK(cudaMemsetAsync(out, 0xff, 8 * sizeof(T), stream));
  CHECK(ordered32(0));
  CHECK(ordered64(0));
  CHECK(comm32(0));
  CHECK(cub_call(0));
  CHECK(cudaStreamSynchronize(stream));
  T h[5];
  CHECK(cudaMemcpy(h, out, 5 * sizeof(T), cudaMemcpyDeviceToHost));
  unsigned long long bits[2] = {};
  std::memcpy(&bits[0], &h[0], sizeof(T));
  std::memcpy(&bits[1], &h[1], sizeof(T));
  const double c    = static_cast<double>(h[4]);
  const double tol  = std::is_integral_v<T> ? 0.0 : 1e-3 * std::max(1.0, std::abs(c));
  const bool ok     = std::abs(static_cast<double>(h[0]) - c) <= tol && std::abs(static_cast<double>(h[1]) - c) <= tol &&
                  std::abs(static_cast<double>(h[2]) - c) <= tol;
  const char* mode[2] = {"graph", "one"};
  for (int m = 0; m < 2; ++m)
  {
    const float* t = m == 0 ? g : o;
    std::printf("%-6s 2^%-2d %-5s ord32 %8.2f ord64 %8.2f comm32 %8.2f comm64 %8.2f cub %8.2f us | ord32/comm32 %.3f "
                "ord64/comm64 %.3f ord32/cub %.3f ord64/cub %.3f | bits %016llx %016llx%s\n",
                type_name,
                lg,
                mode[m],
                t[0],
                t[1],
                t[2],
                t[3],
                t[4],
                t[0] / t[2],
                t[1] / t[3],
                t[0] / t[4],
                t[1] / t[4],
                bits[0],
                bits[1],
                ok ? "" : "  CHECK FAILED");
  }
  for (int k = 0; k < 5; ++k)
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
    run<int>("int32", lg, stream);
    run<float>("float", lg, stream);
    run<double>("double", lg, stream);
  }
  CHECK(cudaStreamDestroy(stream));
}
