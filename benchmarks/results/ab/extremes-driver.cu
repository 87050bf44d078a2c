// SPDX-License-Identifier: Apache-2.0
// The driver of extremes-<base>.txt (not built by CMake). Build against any tree:
//   nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -Ibenchmarks -o extremes benchmarks/results/ab/extremes-driver.cu
// - `extremes <log2 items>...`: Min, Max and MinMax over float, double, int32 and int64, fold beside cub (cub's Min +
//   Max beside MinMax), timed three ways: "graph", 32 calls captured into one CUDA graph (each on its own slice of a
//   pool of up to 4x the L2), replayed, time per call (below 2^26 items only); "one", one call between two events
//   behind a spin; "b2b", 10 calls back to back, time per call; each the median of 21 (driver_util.cuh).
// - `segmented`: Min over float and double through offsets, 2^26 items in segments of one fixed length, one call and
//   back to back, fold beside cub's DeviceSegmentedReduce::Min.
// - `waves <log2 items>...`: Sum, Min and ArgMax over float and double under the default policy and under
//   `fold::tuned<OneWave>` (pass 1 in one wave up to 2 GiB), beside cub, one call and back to back.
// - `blocks <log2 items>...`: MinMax, ArgMax and ArgMinMax over double and int64 under the default policy (4 blocks a
//   multiprocessor) and compiled for 5 and 6 (`Blocks<B>`), beside cub, one call and back to back.
// Every result is checked against cub's (bits, and the index; sums within n * 1000 * epsilon); a mismatch prints
// CHECK FAILED.
#include "driver_util.cuh"

#include <fold/fold.cuh>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

//! The default policy with pass 1 in one wave below 2 GiB.
struct OneWave
{
  __host__ __device__ static constexpr fold::ReducePolicy policy(int arch)
  {
    fold::ReducePolicy p = fold::DefaultTuning::policy(arch);
    p.one_wave_max_mib   = 2048;
    return p;
  }
};

//! The default policy compiled for `B` blocks a multiprocessor (`__launch_bounds__`; fewer registers a thread).
template <int B>
struct Blocks
{
  __host__ __device__ static constexpr fold::ReducePolicy policy(int arch)
  {
    fold::ReducePolicy p = fold::DefaultTuning::policy(arch);
    p.min_blocks_per_sm  = B;
    return p;
  }
};

template <typename T>
void extremes(const char* type, int log2)
{
  PoolBuffers<T> buf(log2);
  const auto n = static_cast<std::int64_t>(buf.n);
  // fold's results in slots 0-1 of each call's four, cub's in 2-3
  auto check = [&](int halves)
  {
    T v[4];
    CHECK(cudaMemcpy(v, buf.values, sizeof(v), cudaMemcpyDeviceToHost));
    return same(v[0], v[2]) && (halves == 1 || same(v[1], v[3]));
  };
  for (int c = 0; c < 3; ++c)
  {
    auto fold_call = [&](int i)
    {
      std::size_t b = buf.bytes;
      T* v          = buf.values + 4 * i;
      return c == 0   ? fold::DeviceReduce::Min(buf.temp, b, buf.in(i), v, n, buf.stream)
             : c == 1 ? fold::DeviceReduce::Max(buf.temp, b, buf.in(i), v, n, buf.stream)
                      : fold::DeviceReduce::MinMax(buf.temp, b, buf.in(i), v, v + 1, n, buf.stream);
    };
    auto cub_call = [&](int i)
    {
      std::size_t b = buf.bytes;
      T* v          = buf.values + 4 * i + 2;
      if (c == 0)
      {
        return cub::DeviceReduce::Min(buf.temp, b, buf.in(i), v, n, buf.stream);
      }
      if (c == 1)
      {
        return cub::DeviceReduce::Max(buf.temp, b, buf.in(i), v, n, buf.stream);
      }
      const cudaError_t e = cub::DeviceReduce::Min(buf.temp, b, buf.in(i), v, n, buf.stream);
      return e != cudaSuccess ? e : cub::DeviceReduce::Max(buf.temp, b, buf.in(i), v + 1, n, buf.stream);
    };
    compare(
        c == 0   ? "Min"
        : c == 1 ? "Max"
                 : "MinMax",
        type,
        log2,
        static_cast<double>(buf.n * sizeof(T)),
        buf.stream,
        log2 < 26,
        fold_call,
        cub_call,
        [&] { return check(c == 2 ? 2 : 1); },
        [&] { buf.poison(); });
  }
}

template <typename T>
void waves(const char* type, int log2)
{
  PoolBuffers<T> buf(log2);
  const auto n = static_cast<std::int64_t>(buf.n);
  for (int c = 0; c < 3; ++c)
  {
    for (int tuned = 0; tuned < 2; ++tuned)
    {
      auto fold_call = [&](int i) -> cudaError_t
      {
        std::size_t b       = buf.bytes;
        T* v                = buf.values + 4 * i;
        std::int64_t* index = buf.indices + 4 * i;
        if (tuned)
        {
          return c == 0   ? fold::DeviceReduce::Sum(buf.temp, b, buf.in(i), v, n, buf.stream, fold::tuned<OneWave>)
                 : c == 1 ? fold::DeviceReduce::Min(buf.temp, b, buf.in(i), v, n, buf.stream, fold::tuned<OneWave>)
                          : fold::DeviceReduce::ArgMax(
                                buf.temp, b, buf.in(i), v, index, n, buf.stream, fold::tuned<OneWave>);
        }
        return c == 0   ? fold::DeviceReduce::Sum(buf.temp, b, buf.in(i), v, n, buf.stream)
               : c == 1 ? fold::DeviceReduce::Min(buf.temp, b, buf.in(i), v, n, buf.stream)
                        : fold::DeviceReduce::ArgMax(buf.temp, b, buf.in(i), v, index, n, buf.stream);
      };
      auto cub_call = [&](int i) -> cudaError_t
      {
        std::size_t b       = buf.bytes;
        T* v                = buf.values + 4 * i + 2;
        std::int64_t* index = buf.indices + 4 * i + 2;
        return c == 0   ? cub::DeviceReduce::Sum(buf.temp, b, buf.in(i), v, n, buf.stream)
               : c == 1 ? cub::DeviceReduce::Min(buf.temp, b, buf.in(i), v, n, buf.stream)
                        : cub::DeviceReduce::ArgMax(buf.temp, b, buf.in(i), v, index, n, buf.stream);
      };
      auto check = [&]
      {
        T v[4];
        std::int64_t index[4];
        CHECK(cudaMemcpy(v, buf.values, sizeof(v), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(index, buf.indices, sizeof(index), cudaMemcpyDeviceToHost));
        if (c == 0)
        {
          const double tol = static_cast<double>(buf.n) * 1000.0 * std::numeric_limits<T>::epsilon();
          return std::abs(static_cast<double>(v[0]) - static_cast<double>(v[2])) <= tol;
        }
        return same(v[0], v[2]) && (c == 1 || index[0] == index[2]);
      };
      const std::string name = std::string(c == 0   ? "Sum"
                                           : c == 1 ? "Min"
                                                    : "ArgMax") +
                               (tuned ? "/1wave" : "/default");
      compare(name.c_str(),
              type,
              log2,
              static_cast<double>(buf.n * sizeof(T)),
              buf.stream,
              false,
              fold_call,
              cub_call,
              check,
              [&] { buf.poison(); });
    }
  }
}

//! MinMax, ArgMax and ArgMinMax under the default policy (4 blocks a multiprocessor) and under `Blocks<5>`,
//! `Blocks<6>`, beside cub's calls, one call and back to back.
template <typename T>
void blocks(const char* type, int log2)
{
  PoolBuffers<T> buf(log2);
  const auto n = static_cast<std::int64_t>(buf.n);
  for (int c = 0; c < 3; ++c)
  {
    for (int b : {4, 5, 6})
    {
      auto run = [&](auto tuning, int i) -> cudaError_t
      {
        std::size_t bytes   = buf.bytes;
        T* v                = buf.values + 4 * i;
        std::int64_t* index = buf.indices + 4 * i;
        return c == 0   ? fold::DeviceReduce::MinMax(buf.temp, bytes, buf.in(i), v, v + 1, n, buf.stream, tuning)
               : c == 1 ? fold::DeviceReduce::ArgMax(buf.temp, bytes, buf.in(i), v, index, n, buf.stream, tuning)
                        : fold::DeviceReduce::ArgMinMax(
                              buf.temp, bytes, buf.in(i), v, index, v + 1, index + 1, n, buf.stream, tuning);
      };
      auto fold_call = [&](int i) -> cudaError_t
      {
        return b == 4   ? run(fold::tuned<fold::DefaultTuning>, i)
               : b == 5 ? run(fold::tuned<Blocks<5>>, i)
                        : run(fold::tuned<Blocks<6>>, i);
      };
      auto cub_call = [&](int i) -> cudaError_t
      {
        std::size_t bytes   = buf.bytes;
        T* v                = buf.values + 4 * i + 2;
        std::int64_t* index = buf.indices + 4 * i + 2;
        if (c == 1)
        {
          return cub::DeviceReduce::ArgMax(buf.temp, bytes, buf.in(i), v, index, n, buf.stream);
        }
        const cudaError_t e = c == 0 ? cub::DeviceReduce::Min(buf.temp, bytes, buf.in(i), v, n, buf.stream)
                                     : cub::DeviceReduce::ArgMin(buf.temp, bytes, buf.in(i), v, index, n, buf.stream);
        return e != cudaSuccess ? e
               : c == 0         ? cub::DeviceReduce::Max(buf.temp, bytes, buf.in(i), v + 1, n, buf.stream)
                        : cub::DeviceReduce::ArgMax(buf.temp, bytes, buf.in(i), v + 1, index + 1, n, buf.stream);
      };
      auto check = [&]
      {
        T v[4];
        std::int64_t index[4];
        CHECK(cudaMemcpy(v, buf.values, sizeof(v), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(index, buf.indices, sizeof(index), cudaMemcpyDeviceToHost));
        return same(v[0], v[2]) && (c == 1 || same(v[1], v[3])) && (c == 0 || index[0] == index[2]) &&
               (c != 2 || index[1] == index[3]);
      };
      const std::string name = std::string(c == 0   ? "MinMax"
                                           : c == 1 ? "ArgMax"
                                                    : "ArgMinMax") +
                               "/b" + std::to_string(b);
      compare(name.c_str(),
              type,
              log2,
              static_cast<double>(buf.n * sizeof(T)),
              buf.stream,
              false,
              fold_call,
              cub_call,
              check,
              [&] { buf.poison(); });
    }
  }
}

template <typename T>
void segmented(const char* type)
{
  const int n = 1 << 26;
  PoolBuffers<T> buf(26);
  for (int length : {16, 128, 1024, 4096, 65536})
  {
    const int segments = n / length;
    int* offsets       = nullptr;
    T *fold_out = nullptr, *cub_out = nullptr;
    CHECK(cudaMalloc(&offsets, (segments + 1) * sizeof(int)));
    CHECK(cudaMalloc(&fold_out, segments * sizeof(T)));
    CHECK(cudaMalloc(&cub_out, segments * sizeof(T)));
    fixed_offsets<<<256, 256>>>(offsets, segments, length);
    CHECK(cudaDeviceSynchronize());
    std::size_t fold_bytes = 0;
    CHECK(fold::DeviceSegmentedReduce::Min(nullptr, fold_bytes, buf.in(0), fold_out, segments, offsets, offsets + 1));
    void* fold_temp = nullptr;
    CHECK(cudaMalloc(&fold_temp, fold_bytes));
    auto fold_call = [&](int)
    {
      std::size_t b = fold_bytes;
      return fold::DeviceSegmentedReduce::Min(
          fold_temp, b, buf.in(0), fold_out, segments, offsets, offsets + 1, buf.stream);
    };
    auto cub_call = [&](int)
    {
      std::size_t b = buf.bytes;
      return cub::DeviceSegmentedReduce::Min(
          buf.temp, b, buf.in(0), cub_out, segments, offsets, offsets + 1, buf.stream);
    };
    auto check = [&]
    {
      std::vector<T> f(segments), c(segments);
      CHECK(cudaMemcpy(f.data(), fold_out, segments * sizeof(T), cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(c.data(), cub_out, segments * sizeof(T), cudaMemcpyDeviceToHost));
      return std::memcmp(f.data(), c.data(), segments * sizeof(T)) == 0;
    };
    const std::string name = "SegMin/" + std::to_string(length);
    const double moved =
        static_cast<double>(n) * sizeof(T) + 4.0 * segments + static_cast<double>(segments) * sizeof(T);
    auto poison = [&]
    {
      CHECK(cudaMemsetAsync(fold_out, 0xff, segments * sizeof(T), buf.stream));
      CHECK(cudaMemsetAsync(cub_out, 0xff, segments * sizeof(T), buf.stream));
    };
    compare(name.c_str(), type, 26, moved, buf.stream, false, fold_call, cub_call, check, poison);
    CHECK(cudaFree(fold_temp));
    CHECK(cudaFree(offsets));
    CHECK(cudaFree(fold_out));
    CHECK(cudaFree(cub_out));
  }
}

int main(int argc, char** argv)
{
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "segmented")
  {
    segmented<float>("float");
    segmented<double>("double");
    return 0;
  }
  for (int a = 2; a < argc; ++a)
  {
    const int log2 = std::atoi(argv[a]);
    if (mode == "extremes")
    {
      extremes<float>("float", log2);
      extremes<double>("double", log2);
      extremes<std::int32_t>("int32", log2);
      extremes<std::int64_t>("int64", log2);
    }
    else if (mode == "blocks")
    {
      blocks<double>("double", log2);
      blocks<std::int64_t>("int64", log2);
    }
    else if (mode == "waves")
    {
      waves<float>("float", log2);
      waves<double>("double", log2);
    }
  }
}
