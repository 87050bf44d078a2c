// SPDX-License-Identifier: Apache-2.0
// Axis reductions whose one call takes far longer than their calls back to back (issue 19): for an array of up to 4
// dimensions reduced over an axis set, DeviceReduceAxes::Sum or Max timed as one call queued behind a spin (the GPU's
// own time), one call, and 10 calls back to back (per call), beside DeviceReduce::Sum over the same items.
// `axes-one-call-driver ncu <case>` makes three calls of one case only, for ncu.
// Build: nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -o axes-one-call-driver axes-one-call-driver.cu
#include <fold/device/device_reduce.cuh>
#include <fold/device/device_reduce_axes.cuh>

#include <cuda_fp16.h>

#include "driver_util.cuh"

#include <cstdio>
#include <string>
#include <vector>

struct Case
{
  const char* name;
  const char* type; // float, half or int32
  bool max;
  std::vector<std::int64_t> shape;
  std::vector<int> axes;
};

// The three cases of 8955454's committed run whose one call took 17-37 us more than a call back to back (the others
// 3.5-8.8), each beside a case of the same shape that did not.
const std::vector<Case> cases = {
  {"64x4096x256/axis1", "float", false, {64, 4096, 256}, {1}},
  {"64x4096x256/axis1/max", "float", true, {64, 4096, 256}, {1}},
  {"64x56x56x256/axes012", "float", false, {64, 56, 56, 256}, {0, 1, 2}},
  {"64x56x56x256/axes012/max", "float", true, {64, 56, 56, 256}, {0, 1, 2}},
  {"16777216x16/axis0", "float", false, {1 << 24, 16}, {0}},
  {"16777216x16/axis0/half", "half", false, {1 << 24, 16}, {0}},
};

//! `x[i]` in [-1, 1) from a hash of `i`, through float (so half items are never infinite).
template <typename T>
__global__ void fill_signed(T* x, std::size_t n)
{
  for (std::size_t i = blockIdx.x * std::size_t{256} + threadIdx.x; i < n; i += std::size_t{256} * gridDim.x)
  {
    unsigned long long h = i * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    x[i] = static_cast<T>(static_cast<float>(h & 0xffffffull) / 8388608.0f - 1.0f);
  }
}

template <typename T>
void run(const Case& c, bool ncu)
{
  std::size_t n = 1, outputs = 1;
  unsigned mask = 0;
  for (int a : c.axes)
  {
    mask |= 1u << a;
  }
  for (std::size_t d = 0; d < c.shape.size(); ++d)
  {
    n *= c.shape[d];
    outputs *= (mask >> d & 1u) ? 1 : c.shape[d];
  }
  T* in        = nullptr;
  T* out       = nullptr;
  float* whole = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(T)));
  CHECK(cudaMalloc(&out, outputs * sizeof(T)));
  CHECK(cudaMalloc(&whole, sizeof(float)));
  fill_signed<<<1024, 256>>>(in, n);
  CHECK(cudaGetLastError());
  const fold::Extents extents(c.shape.data(), static_cast<int>(c.shape.size()));
  const fold::Axes reduced(c.axes.data(), static_cast<int>(c.axes.size()));
  std::size_t axes_bytes = 0, sum_bytes = 0;
  auto reduce_axes = [&](void* storage)
  {
    return c.max ? fold::DeviceReduceAxes::Max(storage, axes_bytes, in, out, extents, reduced)
                 : fold::DeviceReduceAxes::Sum(storage, axes_bytes, in, out, extents, reduced);
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
    const double mib = n * sizeof(T) / 1048576.0;
    std::printf("%-26s %4.0f MiB:", c.name, mib);
    const float queued_axes = median_us(0, true, 1, [&] { CHECK(axes()); });
    const float queued_sum  = median_us(0, true, 1, [&] { CHECK(sum()); });
    std::printf(" axes queued %7.1f one/b2b", queued_axes);
    print_call_and_b2b(0, axes);
    std::printf(" | whole Sum queued %7.1f one/b2b", queued_sum);
    print_call_and_b2b(0, sum);
    std::printf("\n");
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(temp));
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(whole));
}

void run(const Case& c, bool ncu)
{
  const std::string type = c.type;
  if (type == "half")
  {
    run<__half>(c, ncu);
  }
  else if (type == "int32")
  {
    run<int>(c, ncu);
  }
  else
  {
    run<float>(c, ncu);
  }
}

// `axes-one-call-driver` times every case; `axes-one-call-driver ncu <case>` calls one case three times.
int main(int argc, char** argv)
{
  const bool ncu = argc > 2 && std::string(argv[1]) == "ncu";
  for (const Case& c : cases)
  {
    if (!ncu || std::string(argv[2]) == c.name)
    {
      run(c, ncu);
    }
  }
  return 0;
}
