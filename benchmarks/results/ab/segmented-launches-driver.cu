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

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CHECK(x)                                                                                                       \
  do                                                                                                                   \
  {                                                                                                                    \
    cudaError_t e_ = (x);                                                                                              \
    if (e_ != cudaSuccess)                                                                                             \
    {                                                                                                                  \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));                                   \
      std::exit(1);                                                                                                    \
    }                                                                                                                  \
  } while (0)

__global__ void spin(unsigned long long ns)
{
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do
  {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

__global__ void fill(float* x, long long n)
{
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x)
  {
    x[i] = static_cast<float>((i * 2654435761ull) % 1000) / 1000.0f + 0.5f;
  }
}

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
  fill<<<1024, 256>>>(in, most);
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
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
        float med[3];
        for (int mode = 0; mode < 3; ++mode)
        {
          std::vector<float> t;
          for (int i = 0; i < 22; ++i)
          {
            CHECK(cudaStreamSynchronize(stream));
            if (mode == 1)
            {
              spin<<<1, 1, 0, stream>>>(200000);
            }
            CHECK(cudaEventRecord(start, stream));
            for (int k = 0; k < (mode == 2 ? 10 : 1); ++k)
            {
              calls[w]();
            }
            CHECK(cudaEventRecord(stop, stream));
            CHECK(cudaEventSynchronize(stop));
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, start, stop));
            if (i > 0)
            {
              t.push_back(ms * 1000 / (mode == 2 ? 10 : 1));
            }
          }
          std::sort(t.begin(), t.end());
          med[mode] = t[t.size() / 2];
        }
        char shape[32];
        std::snprintf(shape, sizeof shape, "%dx%d", s.segments, s.length);
        std::printf("%-14s %-5s %9.2f %9.2f %9.2f\n", shape, names[w], med[0], med[1], med[2]);
      }
    }
  }
  return 0;
}
