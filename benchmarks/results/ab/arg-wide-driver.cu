// SPDX-License-Identifier: Apache-2.0
// The driver of arg-wide-<base>.txt (not built by CMake): ArgMax, ArgMin, ArgMinMax and Min over double and int64
// (8-byte items), Min over float and int32, and ArgMax over float as a control, fold beside cub (cub's ArgMin + ArgMax
// beside ArgMinMax), timed three ways: "graph", 32 calls captured into one CUDA graph (each on its own slice of a pool
// of up to 4x the L2), replayed, time per call (below 2^26 items only); "one", one call between two events behind a
// spin; "b2b", 10 calls back to back, time per call. Each the median of 21 (driver_util.cuh). Every result is checked
// against cub's (value bits and index); a mismatch prints CHECK FAILED. Build against any tree:
//   nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -o arg-wide benchmarks/results/ab/arg-wide-driver.cu
// and run `arg-wide <log2 items>...`.
#include "driver_util.cuh"

#include <fold/fold.cuh>

#include <cub/device/device_reduce.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

template <typename T>
bool same(const T& a, const T& b)
{
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

enum class Call
{
  arg_max,
  arg_min,
  arg_min_max,
  min,
};

template <typename T>
void run(const char* type, int log2, std::initializer_list<Call> cases)
{
  const std::size_t n = std::size_t{1} << log2;
  const int calls     = 32;
  const int slices    = pool_slices(n * sizeof(T), calls);
  T* pool             = nullptr;
  CHECK(cudaMalloc(&pool, n * slices * sizeof(T)));
  fill_hashed<<<1024, 256>>>(pool, n * slices);
  CHECK(cudaDeviceSynchronize());
  T* values             = nullptr;
  std::int64_t* indices = nullptr;
  CHECK(cudaMalloc(&values, 4 * calls * sizeof(T)));
  CHECK(cudaMalloc(&indices, 4 * calls * sizeof(std::int64_t)));
  void* temp              = nullptr;
  const std::size_t bytes = std::size_t{1} << 24;
  CHECK(cudaMalloc(&temp, bytes));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::int64_t count = static_cast<std::int64_t>(n);

  for (Call c : cases)
  {
    auto fold_call = [&](int i)
    {
      const T* in       = pool + (i % slices) * n;
      T* v              = values + 4 * i;
      std::int64_t* idx = indices + 4 * i;
      std::size_t b     = bytes;
      switch (c)
      {
      case Call::arg_max:
        return fold::DeviceReduce::ArgMax(temp, b, in, v, idx, count, stream);
      case Call::arg_min:
        return fold::DeviceReduce::ArgMin(temp, b, in, v, idx, count, stream);
      case Call::arg_min_max:
        return fold::DeviceReduce::ArgMinMax(temp, b, in, v, idx, v + 1, idx + 1, count, stream);
      default:
        return fold::DeviceReduce::Min(temp, b, in, v, count, stream);
      }
    };
    auto cub_call = [&](int i)
    {
      const T* in       = pool + (i % slices) * n;
      T* v              = values + 4 * i + 2;
      std::int64_t* idx = indices + 4 * i + 2;
      std::size_t b     = bytes;
      switch (c)
      {
      case Call::arg_max:
        return cub::DeviceReduce::ArgMax(temp, b, in, v, idx, count, stream);
      case Call::arg_min:
        return cub::DeviceReduce::ArgMin(temp, b, in, v, idx, count, stream);
      case Call::arg_min_max:
      {
        const cudaError_t e = cub::DeviceReduce::ArgMin(temp, b, in, v, idx, count, stream);
        return e != cudaSuccess ? e : cub::DeviceReduce::ArgMax(temp, b, in, v + 1, idx + 1, count, stream);
      }
      default:
        return cub::DeviceReduce::Min(temp, b, in, v, count, stream);
      }
    };
    float graph[2] = {0, 0}, one[2], b2b[2];
    if (log2 < 26)
    {
      time_graph_and_one(stream, calls, fold_call, graph[0], one[0]);
      time_graph_and_one(stream, calls, cub_call, graph[1], one[1]);
    }
    else // no graph replay from 2^26 (its two launches are a small share of a call there)
    {
      one[0] = median_us(stream, true, 1, [&] { CHECK(fold_call(0)); });
      one[1] = median_us(stream, true, 1, [&] { CHECK(cub_call(0)); });
    }
    b2b[0] = median_us(stream,
                       false,
                       10,
                       [&]
                       {
                         for (int k = 0; k < 10; ++k)
                         {
                           CHECK(fold_call(k));
                         }
                       });
    b2b[1] = median_us(stream,
                       false,
                       10,
                       [&]
                       {
                         for (int k = 0; k < 10; ++k)
                         {
                           CHECK(cub_call(k));
                         }
                       });
    // The results of call 0 (fold's in slots 0-1, cub's in 2-3), after every timing.
    CHECK(cudaMemsetAsync(values, 0xff, 4 * sizeof(T), stream));
    CHECK(cudaMemsetAsync(indices, 0xff, 4 * sizeof(std::int64_t), stream));
    CHECK(fold_call(0));
    CHECK(cub_call(0));
    CHECK(cudaStreamSynchronize(stream));
    T v[4];
    std::int64_t idx[4];
    CHECK(cudaMemcpy(v, values, sizeof(v), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(idx, indices, sizeof(idx), cudaMemcpyDeviceToHost));
    const int halves = c == Call::arg_min_max ? 2 : 1;
    bool ok          = true;
    for (int h = 0; h < halves; ++h)
    {
      ok = ok && same(v[h], v[2 + h]) && (c == Call::min || idx[h] == idx[2 + h]);
    }
    const char* name = c == Call::arg_max       ? "ArgMax"
                       : c == Call::arg_min     ? "ArgMin"
                       : c == Call::arg_min_max ? "ArgMinMax"
                                                : "Min";
    const double gb  = static_cast<double>(n * sizeof(T)) / 1e3; // bytes / us -> GB/s
    std::printf(
        "%-9s %-6s 2^%-2d graph %8.2f/%-8.2f %.3f  one %8.2f/%-8.2f %.3f  b2b %8.2f/%-8.2f %.3f  b2b %5.1f %% peak%s\n",
        name,
        type,
        log2,
        graph[0],
        graph[1],
        log2 < 26 ? graph[0] / graph[1] : 0.0,
        one[0],
        one[1],
        one[0] / one[1],
        b2b[0],
        b2b[1],
        b2b[0] / b2b[1],
        gb / b2b[0] / 48.143, // the H200's datasheet 4814.3 GB/s
        ok ? "" : "  CHECK FAILED");
  }
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(pool));
  CHECK(cudaFree(values));
  CHECK(cudaFree(indices));
  CHECK(cudaFree(temp));
}

int main(int argc, char** argv)
{
  for (int a = 1; a < argc; ++a)
  {
    const int log2 = std::atoi(argv[a]);
    run<double>("double", log2, {Call::arg_max, Call::arg_min, Call::arg_min_max, Call::min});
    run<std::int64_t>("int64", log2, {Call::arg_max, Call::arg_min, Call::arg_min_max, Call::min});
    run<float>("float", log2, {Call::min, Call::arg_max});
    run<std::int32_t>("int32", log2, {Call::min});
  }
}
