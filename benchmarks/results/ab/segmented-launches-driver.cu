// SPDX-License-Identifier: Apache-2.0
// A segmented call through offsets, by shape, beside cub (issue 19): Sum over float with int offsets, fold and cub
// on the same buffers, timed three ways with CUDA events, the median of 21 calls each:
//   call   - one call between the events, the stream idle before it (as fold-segmented-bench times it);
//   queued - a 200 us spin kernel first, so every launch of the call is queued before the GPU reaches it (the GPU's
//            own time, the host's launches hidden);
//   stream - 10 calls back to back between the events, the time per call.
// Each fold result is checked against cub's (relative 1e-4) before it is timed.
// Build: nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -o launches segmented-launches-driver.cu
// Run:   launches [rounds]
#include <fold/device/device_segmented_reduce.cuh>

#include <cub/device/device_segmented_reduce.cuh>

#include "driver_util.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

int main(int argc, char** argv)
{
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 2;
  struct Shape
  {
    int segments, length;
  };
  const Shape shapes[] = {{1024, 65536},
                          {16384, 4096},
                          {256, 262144},
                          {64, 1 << 20},
                          {4096, 4096},
                          {1000, 1000},
                          {100, 10000},
                          {10000, 100},
                          {65536, 16},
                          {1 << 22, 1},
                          {1 << 20, 64}};
  const long long most = 1ll << 26;
  float *in, *out, *ref;
  int* offsets;
  CHECK(cudaMalloc(&in, most * sizeof(float)));
  CHECK(cudaMalloc(&out, most * sizeof(float)));
  CHECK(cudaMalloc(&ref, most * sizeof(float)));
  CHECK(cudaMalloc(&offsets, (most + 1) * sizeof(int)));
  fill<<<1024, 256>>>(in, most, 0.5f);
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  void* temp             = nullptr;
  std::size_t temp_bytes = 0;
  std::printf("%-14s %-5s %9s %9s %9s   (us, median of 21)\n", "shape", "who", "call", "queued", "stream");
  for (int round = 0; round < rounds; ++round)
  {
    for (const Shape& s : shapes)
    {
      std::vector<int> h(s.segments + 1);
      for (int i = 0; i <= s.segments; ++i)
      {
        h[i] = i * s.length;
      }
      CHECK(cudaMemcpy(offsets, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
      std::size_t b = 0;
      CHECK(fold::DeviceSegmentedReduce::Sum(nullptr, b, in, out, s.segments, offsets, offsets + 1, stream));
      std::size_t c = 0;
      CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, c, in, ref, s.segments, offsets, offsets + 1, stream));
      b = std::max(b, c);
      if (b > temp_bytes)
      {
        if (temp)
          CHECK(cudaFree(temp));
        CHECK(cudaMalloc(&temp, b));
        temp_bytes = b;
      }
      std::function<void()> calls[2] = {
          [&] {
            CHECK(
                fold::DeviceSegmentedReduce::Sum(temp, temp_bytes, in, out, s.segments, offsets, offsets + 1, stream));
          },
          [&] {
            CHECK(cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in, ref, s.segments, offsets, offsets + 1, stream));
          }};
      CHECK(cudaMemsetAsync(out, 0xFF, s.segments * sizeof(float), stream));
      calls[0]();
      calls[1]();
      CHECK(cudaStreamSynchronize(stream));
      std::vector<float> a(s.segments), r(s.segments);
      CHECK(cudaMemcpy(a.data(), out, s.segments * sizeof(float), cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(r.data(), ref, s.segments * sizeof(float), cudaMemcpyDeviceToHost));
      for (int i = 0; i < s.segments; ++i)
      {
        if (!(std::fabs(a[i] - r[i]) <= 1e-4f * std::fabs(r[i])))
        {
          std::printf("MISMATCH %dx%d segment %d: fold %g cub %g\n", s.segments, s.length, i, a[i], r[i]);
          return 1;
        }
      }
      const char* names[2] = {"fold", "cub"};
      for (int w = 0; w < 2; ++w)
      {
        const float call   = median_us(stream, false, 1, calls[w]);
        const float queued = median_us(stream, true, 1, calls[w]);
        const float back   = median_us(stream,
                                     false,
                                     10,
                                     [&]
                                     {
                                       for (int k = 0; k < 10; ++k)
                                       {
                                         calls[w]();
                                       }
                                     });
        char shape[32];
        std::snprintf(shape, sizeof shape, "%dx%d", s.segments, s.length);
        std::printf("%-14s %-5s %9.2f %9.2f %9.2f\n", shape, names[w], call, queued, back);
      }
    }
  }
  return 0;
}
