// SPDX-License-Identifier: Apache-2.0
// The driver behind arg-winner-first-86607f7.txt (not built by CMake):
//   nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -o arg arg-driver.cu; arg <log2 sizes; 0: the segmented cases>
// ArgMax and ArgMinMax over int32 and float, and ArgMax over double (a control): fold's and cub's time for one call
// (driver_util.cuh's median_us), cub's ArgMin + ArgMax beside ArgMinMax; values hashed from the index. "0": segmented
// ArgMax over float and int32 through offsets, 2^26 items in segments of one fixed length, fold beside cub's
// DeviceSegmentedReduce::ArgMax. Every result is checked against cub's (value bits and index, every segment's); a
// mismatch prints CHECK FAILED. Tables: arg-compare.py.
#include "driver_util.cuh"

#include <fold/fold.cuh>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

void* temp                     = nullptr;
constexpr std::size_t temp_cap = std::size_t{1} << 26; // ample for every call here

template <typename T>
T* filled(std::size_t n)
{
  T* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(T)));
  fill_hashed<<<1024, 256>>>(d, n); // floats in [-1000, 1000), integers over their whole range
  CHECK(cudaDeviceSynchronize());
  return d;
}

void print(const char* call, const char* type, const char* size, float fold_us, float cub_us, double bytes, bool ok)
{
  std::printf("%-9s %-6s %-9s fold %9.1f us cub %9.1f us fold/cub %.3f fold %5.1f %% peak%s\n",
              call,
              type,
              size,
              fold_us,
              cub_us,
              fold_us / cub_us,
              bytes / (fold_us * 1e3) / 33.5232, // the H100's datasheet 3352 GB/s
              ok ? "" : "  CHECK FAILED");
}

template <typename T>
void whole(const char* type, int log2, bool minmax)
{
  const std::size_t n = std::size_t{1} << log2;
  T* d_in             = filled<T>(n);
  T* values;
  long long* indices;
  CHECK(cudaMalloc(&values, 4 * sizeof(T)));
  CHECK(cudaMalloc(&indices, 4 * sizeof(long long)));
  const long long count = static_cast<long long>(n);
  std::size_t bytes     = temp_cap;
  auto fold_call        = [&]
  {
    CHECK(minmax ? fold::DeviceReduce::ArgMinMax(temp, bytes, d_in, values, indices, values + 1, indices + 1, count)
                 : fold::DeviceReduce::ArgMax(temp, bytes, d_in, values, indices, count));
  };
  auto cub_call = [&]
  {
    if (minmax)
    {
      CHECK(cub::DeviceReduce::ArgMin(temp, bytes, d_in, values + 2, indices + 2, count));
    }
    CHECK(cub::DeviceReduce::ArgMax(temp, bytes, d_in, values + 3, indices + 3, count));
  };
  const float fold_us = median_us(0, false, 1, fold_call);
  const float cub_us  = median_us(0, false, 1, cub_call);
  T v[4];
  long long i[4];
  CHECK(cudaMemcpy(v, values, sizeof(v), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(i, indices, sizeof(i), cudaMemcpyDeviceToHost));
  // fold's maximum is in slot 1 for ArgMinMax, 0 for ArgMax
  const bool ok =
      minmax ? same(v[0], v[2]) && i[0] == i[2] && same(v[1], v[3]) && i[1] == i[3] : same(v[0], v[3]) && i[0] == i[3];
  char size[16];
  std::snprintf(size, sizeof(size), "2^%d", log2);
  print(minmax ? "ArgMinMax" : "ArgMax", type, size, fold_us, cub_us, static_cast<double>(n) * sizeof(T), ok);
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(values));
  CHECK(cudaFree(indices));
}

template <typename T>
void segmented(const char* type, int length)
{
  const int n = 1 << 26, segments = n / length;
  T* d_in = filled<T>(n);
  int* offsets;
  CHECK(cudaMalloc(&offsets, (segments + 1) * sizeof(int)));
  fixed_offsets<<<256, 256>>>(offsets, segments, length);
  using Pair = cub::KeyValuePair<int, T>;
  Pair *fold_out, *cub_out;
  CHECK(cudaMalloc(&fold_out, segments * sizeof(Pair)));
  CHECK(cudaMalloc(&cub_out, segments * sizeof(Pair)));
  std::size_t bytes   = temp_cap;
  const float fold_us = median_us(
      0,
      false,
      1,
      [&] { CHECK(fold::DeviceSegmentedReduce::ArgMax(temp, bytes, d_in, fold_out, segments, offsets, offsets + 1)); });
  const float cub_us = median_us(
      0,
      false,
      1,
      [&] { CHECK(cub::DeviceSegmentedReduce::ArgMax(temp, bytes, d_in, cub_out, segments, offsets, offsets + 1)); });
  std::vector<Pair> f(segments), c(segments);
  CHECK(cudaMemcpy(f.data(), fold_out, segments * sizeof(Pair), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(c.data(), cub_out, segments * sizeof(Pair), cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int s = 0; s < segments; ++s)
  {
    ok = ok && f[s].key == c[s].key && same(f[s].value, c[s].value);
  }
  char size[16];
  std::snprintf(size, sizeof(size), "len %d", length);
  const double moved =
      static_cast<double>(n) * sizeof(T) + 4.0 * segments + static_cast<double>(segments) * sizeof(Pair);
  print("SegArgMax", type, size, fold_us, cub_us, moved, ok);
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(offsets));
  CHECK(cudaFree(fold_out));
  CHECK(cudaFree(cub_out));
}

int main(int argc, char** argv)
{
  CHECK(cudaMalloc(&temp, temp_cap));
  for (int a = 1; a < argc; ++a)
  {
    const int log2 = std::atoi(argv[a]);
    if (log2 == 0)
    {
      for (int length : {128, 1024, 4096, 65536})
      {
        segmented<float>("float", length);
        segmented<int>("int32", length);
      }
      continue;
    }
    whole<int>("int32", log2, false);
    whole<float>("float", log2, false);
    whole<double>("double", log2, false);
    whole<int>("int32", log2, true);
    whole<float>("float", log2, true);
  }
}
