// SPDX-License-Identifier: Apache-2.0
// The driver of arg-wide-<base>.txt (not built by CMake): ArgMax, ArgMin, ArgMinMax and Min over double and int64
// (8-byte items), Min over float and int32, and ArgMax over float as a control, fold beside cub (cub's ArgMin + ArgMax
// beside ArgMinMax), timed three ways: "graph", 32 calls captured into one CUDA graph (each on its own slice of a pool
// of up to 4x the L2), replayed, time per call (below 2^26 items only); "one", one call between two events behind a
// spin; "b2b", 10 calls back to back, time per call. Each the median of 21 (driver_util.cuh's `PoolBuffers` and
// `compare`). Every result is checked against cub's (value bits and index); a mismatch prints CHECK FAILED. Build
// against any tree:
//   nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -Ibenchmarks -o arg-wide benchmarks/results/ab/arg-wide-driver.cu
// and run `arg-wide <log2 items>...`.
#include "driver_util.cuh"

#include <fold/fold.cuh>

#include <cub/device/device_reduce.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

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
  PoolBuffers<T> buf(log2);
  const auto count = static_cast<std::int64_t>(buf.n);
  for (Call c : cases)
  {
    // fold's results in slots 0-1 of each call's four, cub's in 2-3
    auto fold_call = [&](int i)
    {
      T* v              = buf.values + 4 * i;
      std::int64_t* idx = buf.indices + 4 * i;
      std::size_t b     = buf.bytes;
      switch (c)
      {
      case Call::arg_max:
        return fold::DeviceReduce::ArgMax(buf.temp, b, buf.in(i), v, idx, count, buf.stream);
      case Call::arg_min:
        return fold::DeviceReduce::ArgMin(buf.temp, b, buf.in(i), v, idx, count, buf.stream);
      case Call::arg_min_max:
        return fold::DeviceReduce::ArgMinMax(buf.temp, b, buf.in(i), v, idx, v + 1, idx + 1, count, buf.stream);
      default:
        return fold::DeviceReduce::Min(buf.temp, b, buf.in(i), v, count, buf.stream);
      }
    };
    auto cub_call = [&](int i)
    {
      T* v              = buf.values + 4 * i + 2;
      std::int64_t* idx = buf.indices + 4 * i + 2;
      std::size_t b     = buf.bytes;
      switch (c)
      {
      case Call::arg_max:
        return cub::DeviceReduce::ArgMax(buf.temp, b, buf.in(i), v, idx, count, buf.stream);
      case Call::arg_min:
        return cub::DeviceReduce::ArgMin(buf.temp, b, buf.in(i), v, idx, count, buf.stream);
      case Call::arg_min_max:
      {
        const cudaError_t e = cub::DeviceReduce::ArgMin(buf.temp, b, buf.in(i), v, idx, count, buf.stream);
        return e != cudaSuccess ? e
                                : cub::DeviceReduce::ArgMax(buf.temp, b, buf.in(i), v + 1, idx + 1, count, buf.stream);
      }
      default:
        return cub::DeviceReduce::Min(buf.temp, b, buf.in(i), v, count, buf.stream);
      }
    };
    auto check = [&]
    {
      T v[4];
      std::int64_t idx[4];
      CHECK(cudaMemcpy(v, buf.values, sizeof(v), cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(idx, buf.indices, sizeof(idx), cudaMemcpyDeviceToHost));
      bool ok = true;
      for (int h = 0; h < (c == Call::arg_min_max ? 2 : 1); ++h)
      {
        ok = ok && same(v[h], v[2 + h]) && (c == Call::min || idx[h] == idx[2 + h]);
      }
      return ok;
    };
    const char* name = c == Call::arg_max       ? "ArgMax"
                       : c == Call::arg_min     ? "ArgMin"
                       : c == Call::arg_min_max ? "ArgMinMax"
                                                : "Min";
    compare(name,
            type,
            log2,
            static_cast<double>(buf.n * sizeof(T)),
            buf.stream,
            log2 < 26,
            fold_call,
            cub_call,
            check,
            [&] { buf.poison(); });
  }
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
