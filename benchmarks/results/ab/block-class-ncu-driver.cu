// SPDX-License-Identifier: Apache-2.0
// Kernel durations of a segmented call through offsets beside cub's, for ncu (issue 19): Sum over float, int
// offsets, 16384 x 4096 and 1024 x 65536 items, five calls each of fold and cub.
// Build: nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -o ncu-driver block-class-ncu-driver.cu
#include <fold/device/device_segmented_reduce.cuh>

#include <cub/device/device_segmented_reduce.cuh>

#include "driver_util.cuh"

#include <vector>

int main()
{
  const int shapes[2][2] = {{16384, 4096}, {1024, 65536}};
  const long long n      = 1ll << 26;
  float *in, *out;
  int* offsets;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, 16384 * sizeof(float)));
  CHECK(cudaMalloc(&offsets, 16385 * sizeof(int)));
  fill<<<1024, 256>>>(in, n, 0.5f); // the values do not change the time
  CHECK(cudaGetLastError());
  void* temp        = nullptr;
  std::size_t bytes = 0;
  for (const auto& s : shapes)
  {
    std::size_t b = 0;
    CHECK(fold::DeviceSegmentedReduce::Sum(nullptr, b, in, out, s[0], offsets, offsets + 1));
    bytes = b > bytes ? b : bytes;
    CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, b, in, out, s[0], offsets, offsets + 1));
    bytes = b > bytes ? b : bytes;
  }
  CHECK(cudaMalloc(&temp, bytes));
  for (const auto& s : shapes)
  {
    std::vector<int> h(s[0] + 1);
    for (int i = 0; i <= s[0]; ++i)
    {
      h[i] = i * s[1];
    }
    CHECK(cudaMemcpy(offsets, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
    for (int k = 0; k < 5; ++k)
    {
      CHECK(fold::DeviceSegmentedReduce::Sum(temp, bytes, in, out, s[0], offsets, offsets + 1));
    }
    for (int k = 0; k < 5; ++k)
    {
      CHECK(cub::DeviceSegmentedReduce::Sum(temp, bytes, in, out, s[0], offsets, offsets + 1));
    }
  }
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
  return 0;
}
