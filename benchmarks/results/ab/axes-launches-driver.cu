// SPDX-License-Identifier: Apache-2.0
// Where an axis reduction's time goes beside the whole-array reduce of the same items (issue 19): for a [rows, cols]
// array reduced over axis 0 (or 1), DeviceReduceAxes::Sum timed as one call queued behind a spin (the GPU's own
// time), one call, and 10 calls back to back (per call), beside DeviceReduce::Sum over the same rows * cols items
// (one kernel's floor for those bytes). `axes-launches-driver ncu <type> <rows> <cols> <axis>` makes three calls of
// the axis reduction only, for ncu.
// Build: nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -o axes-launches-driver axes-launches-driver.cu
#include <fold/device/device_reduce.cuh>
#include <fold/device/device_reduce_axes.cuh>

#include <cuda_fp16.h>

#include "driver_util.cuh"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

template <typename T, bool Max = false>
void run(const char* name, bool ncu, long long rows, long long cols, int axis)
{
  T* in           = nullptr;
  float* whole    = nullptr;
  T* out          = nullptr;
  const long long n = rows * cols;
  CHECK(cudaMalloc(&in, n * sizeof(T)));
  CHECK(cudaMalloc(&out, (rows > cols ? rows : cols) * sizeof(T)));
  CHECK(cudaMalloc(&whole, sizeof(float)));
  fill<<<1024, 256>>>(in, n, 0.5f);
  CHECK(cudaGetLastError());
  std::size_t axes_bytes = 0, sum_bytes = 0;
  // DeviceReduceAxes::Sum, or with `Max` Reduce with fold::Max (an exact operator, as an integer sum is).
  auto reduce_axes = [&](void* storage)
  {
    if constexpr (Max)
    {
      return fold::DeviceReduceAxes::Reduce(
          storage, axes_bytes, in, out, {rows, cols}, {axis}, fold::Max{}, std::numeric_limits<T>::lowest());
    }
    else
    {
      return fold::DeviceReduceAxes::Sum(storage, axes_bytes, in, out, {rows, cols}, {axis});
    }
  };
  CHECK(reduce_axes(nullptr));
  CHECK(fold::DeviceReduce::Sum(nullptr, sum_bytes, in, whole, n));
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, (axes_bytes > sum_bytes ? axes_bytes : sum_bytes) + 16));
  auto axes = [&] { return reduce_axes(temp); };
  auto sum  = [&] { return fold::DeviceReduce::Sum(temp, sum_bytes, in, whole, n); };
  if (ncu)
  {
    for (int k = 0; k < 3; ++k)
    {
      CHECK(axes());
    }
  }
  else
  {
    std::printf("%-5s [%lld, %lld] axis %d, %.0f MiB:", name, rows, cols, axis, n * sizeof(T) / 1048576.0);
    const float queued_axes = median_us(0, true, 1, [&] { CHECK(axes()); });
    const float queued_sum  = median_us(0, true, 1, [&] { CHECK(sum()); });
    std::printf(" axes queued %.1f us (%.1f%% of 4814 GB/s), one/b2b", queued_axes,
                n * sizeof(T) / queued_axes / 4814e3 * 100);
    print_call_and_b2b(0, axes);
    std::printf(" | whole-array Sum queued %.1f us, one/b2b", queued_sum);
    print_call_and_b2b(0, sum);
    std::printf(" | axes/sum queued %.3f\n", queued_axes / queued_sum);
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(temp));
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(whole));
}

// `axes-launches-driver <type> <rows> <cols> <axis>` or `axes-launches-driver ncu <type> <rows> <cols> <axis>`; a type of
// `float-max` reduces floats with fold::Max instead of summing them.
int main(int argc, char** argv)
{
  const bool ncu         = argc > 1 && std::string(argv[1]) == "ncu";
  const int a            = ncu ? 2 : 1;
  if (argc < a + 4)
  {
    std::printf("usage: axes-launches-driver [ncu] half|float|float-max|int32 rows cols axis\n");
    return 2;
  }
  const std::string type = argv[a];
  const long long rows   = std::atoll(argv[a + 1]);
  const long long cols   = std::atoll(argv[a + 2]);
  const int axis         = std::atoi(argv[a + 3]);
  if (type == "half")
  {
    run<__half>("half", ncu, rows, cols, axis);
  }
  else if (type == "float")
  {
    run<float>("float", ncu, rows, cols, axis);
  }
  else if (type == "float-max")
  {
    run<float, true>("float-max", ncu, rows, cols, axis);
  }
  else
  {
    run<int>("int32", ncu, rows, cols, axis);
  }
  return 0;
}
