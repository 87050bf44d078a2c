// SPDX-License-Identifier: Apache-2.0
// How much of a segmented call through offsets is the host's launches (issue 19): 1024 segments of 65536 floats,
// fold through offsets (three launches), fold through the fixed-size overload (one) and cub (one), timed three ways
// with CUDA events, the median of 21 calls each:
//   call   - one call between the events, as fold-segmented-bench times it;
//   queued - a 200 us spin kernel first, so every launch of the call is queued before the GPU reaches it (the GPU's
//            own time, the host's launches hidden);
//   graph  - the call captured once and replayed.
// Build: nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -o launches launches-driver.cu
#include <fold/device/device_segmented_reduce.cuh>

#include <cub/device/device_segmented_reduce.cuh>

#include "driver_util.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

int main()
{
  const int segments = 1024, length = 65536;
  const long long n = 1ll * segments * length;
  float *in, *out;
  int* offsets;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, segments * sizeof(float)));
  CHECK(cudaMalloc(&offsets, (segments + 1) * sizeof(int)));
  std::vector<int> h(segments + 1);
  for (int i = 0; i <= segments; ++i)
  {
    h[i] = i * length;
  }
  CHECK(cudaMemcpy(offsets, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
  fill<<<1024, 256>>>(in, n);
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  void* temp             = nullptr;
  std::size_t temp_bytes = 0;
  auto grow              = [&](std::size_t b)
  {
    if (b > temp_bytes)
    {
      if (temp)
        CHECK(cudaFree(temp));
      CHECK(cudaMalloc(&temp, b));
      temp_bytes = b;
    }
  };
  std::size_t b = 0;
  CHECK(fold::DeviceSegmentedReduce::Sum(nullptr, b, in, out, segments, offsets, offsets + 1, stream));
  grow(b);
  CHECK(fold::DeviceSegmentedReduce::Sum(nullptr, b, in, out, segments, length, stream));
  grow(b);
  CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, b, in, out, segments, offsets, offsets + 1, stream));
  grow(b);
  std::function<void()> calls[3] = {
      [&]
      { CHECK(fold::DeviceSegmentedReduce::Sum(temp, temp_bytes, in, out, segments, offsets, offsets + 1, stream)); },
      [&] { CHECK(fold::DeviceSegmentedReduce::Sum(temp, temp_bytes, in, out, segments, length, stream)); },
      [&]
      { CHECK(cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in, out, segments, offsets, offsets + 1, stream)); }};
  const char* names[3] = {"fold offsets", "fold fixed-size", "cub offsets"};
  std::printf("%-16s %9s %9s %9s  (us, median of 21; 1024 segments of 65536 floats)\n", "", "call", "queued", "graph");
  for (int round = 0; round < 2; ++round)
  {
    for (int c = 0; c < 3; ++c)
    {
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
      calls[c]();
      CHECK(cudaStreamEndCapture(stream, &graph));
      CHECK(cudaGraphInstantiate(&exec, graph, 0));
      const float med[3] = {median_us(stream, false, 1, calls[c]),
                            median_us(stream, true, 1, calls[c]),
                            median_us(stream, false, 1, [&] { CHECK(cudaGraphLaunch(exec, stream)); })};
      std::printf("%-16s %9.1f %9.1f %9.1f\n", names[c], med[0], med[1], med[2]);
      CHECK(cudaGraphExecDestroy(exec));
      CHECK(cudaGraphDestroy(graph));
    }
  }
  return 0;
}
