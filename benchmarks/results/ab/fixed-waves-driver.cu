// SPDX-License-Identifier: Apache-2.0
// Why the fixed-size overload at 671 segments of 100000 floats is slower back to back than one call (issue 19):
// fold's fixed-size Sum, through offsets, and cub, at segment lengths around it (2^26 items a call), each with
// programmatic dependent launch (fold's default) and with serial launches (a hook). Times: the median of 21 event
// timings of one call ("call") and of 10 calls back to back ("b2b", per call), in us.
// Build: nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -I<tree>/benchmarks -o fixed-waves fixed-waves-driver.cu
#include <fold/device/device_segmented_reduce.cuh>

#include "bench_forced.cuh"
#include "driver_util.cuh"

#include <cub/device/device_segmented_reduce.cuh>

#include <cstdio>
#include <vector>

int main()
{
  const long long n = 1ll << 26;
  float *in, *out;
  int* offsets;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, (n / 1000 + 1) * sizeof(float)));
  CHECK(cudaMalloc(&offsets, (n / 1000 + 2) * sizeof(int)));
  fill<<<1024, 256>>>(in, n);
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  void* temp             = nullptr;
  std::size_t temp_bytes = std::size_t{1} << 24;
  CHECK(cudaMalloc(&temp, temp_bytes));
  std::printf("us, one call / per call of 10 back to back\n%-8s %6s %15s %15s %15s %15s %15s\n",
              "length",
              "segs",
              "cub",
              "fixed",
              "fixed serial",
              "offsets",
              "offsets serial");
  for (int round = 0; round < 2; ++round)
  {
    for (int length : {65536, 81920, 90000, 100000, 110000, 120000, 131072})
    {
      const int segments = static_cast<int>(n / length);
      std::vector<int> h(segments + 1);
      for (int i = 0; i <= segments; ++i)
      {
        h[i] = i * length;
      }
      CHECK(cudaMemcpy(offsets, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
      auto time = [&](auto call, bool serial)
      {
        bench::forced_hooks.serial_launches = serial;
        print_call_and_b2b(stream, call);
        bench::forced_hooks = {};
      };
      std::printf("%-8d %6d", length, segments);
      time(
          [&] {
            return cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in, out, segments, offsets, offsets + 1, stream);
          },
          false);
      for (bool serial : {false, true})
      {
        time(
            [&] {
              return fold::DeviceSegmentedReduce::Sum(
                  temp, temp_bytes, in, out, segments, length, stream, bench::forced);
            },
            serial);
      }
      for (bool serial : {false, true})
      {
        time(
            [&]
            {
              return fold::DeviceSegmentedReduce::Sum(
                  temp, temp_bytes, in, out, segments, offsets, offsets + 1, stream, bench::forced);
            },
            serial);
      }
      std::printf("\n");
    }
  }
  return 0;
}
