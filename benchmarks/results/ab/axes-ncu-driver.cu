// SPDX-License-Identifier: Apache-2.0
// Kernel durations of DeviceReduceAxes::Sum over axis 0 of a [2^24, 16] array (or another [rows, cols]), for ncu (issue
// 19): half (1.11x torch.sum's time in the committed results), float and int32 (an exact sum: HigherDimKernel, not the
// column tree), three calls each, and each call's time by events (the median of 21, driver_util.cuh's median_us).
// Build: nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -o axes-ncu-driver axes-ncu-driver.cu
#include <fold/device/device_reduce_axes.cuh>

#include <cuda_fp16.h>

#include "driver_util.cuh"

#include <cstdio>
#include <cstdlib>
#include <string>

template <typename T>
void run(const char* name, void* in_bytes, void* temp, std::size_t bytes, bool timed, long long rows, long long cols)
{
  auto* in = static_cast<T*>(in_bytes);
  T* out   = nullptr;
  CHECK(cudaMalloc(&out, cols * sizeof(T)));
  fill<<<1024, 256>>>(in, rows * cols, 0.5f);
  CHECK(cudaGetLastError());
  std::size_t need = 0;
  CHECK(fold::DeviceReduceAxes::Sum(nullptr, need, in, out, {rows, cols}, {0}));
  if (need > bytes)
  {
    std::printf("temp too small\n");
    std::exit(1);
  }
  auto call = [&] { CHECK(fold::DeviceReduceAxes::Sum(temp, bytes, in, out, {rows, cols}, {0})); };
  if (timed)
  {
    const float us = median_us(0, true, 1, call);
    std::printf(
        "%-6s [%lld, %lld] axis 0: %.1f us, %.1f GB/s\n", name, rows, cols, us, rows * cols * sizeof(T) / us / 1e3);
  }
  else
  {
    for (int k = 0; k < 3; ++k)
    {
      call();
    }
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(out));
}

// `axes-ncu-driver timed`: event timings of each type; `axes-ncu-driver [half|float|int32]`: three calls of that type
// (of each, without an argument), for ncu. Two more arguments set the rows and columns (2^24 and 16).
int main(int argc, char** argv)
{
  const std::string what = argc > 1 ? argv[1] : "";
  const bool timed       = what == "timed";
  const long long rows   = argc > 3 ? std::atoll(argv[2]) : 1ll << 24;
  const long long cols   = argc > 3 ? std::atoll(argv[3]) : 16;
  void* in               = nullptr;
  CHECK(cudaMalloc(&in, (1ll << 28) * 4));
  void* temp              = nullptr;
  const std::size_t bytes = 64 << 20;
  CHECK(cudaMalloc(&temp, bytes));
  const bool all = what.empty() || timed;
  if (all || what == "half")
  {
    run<__half>("half", in, temp, bytes, timed, rows, cols);
  }
  if (all || what == "float")
  {
    run<float>("float", in, temp, bytes, timed, rows, cols);
  }
  if (all || what == "int32")
  {
    run<int>("int32", in, temp, bytes, timed, rows, cols);
  }
  std::printf("done\n");
  return 0;
}
