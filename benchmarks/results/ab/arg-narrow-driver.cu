// SPDX-License-Identifier: Apache-2.0
// The driver behind arg-deferred-*.txt (not built by CMake):
//   nvcc -std=c++17 -O3 -arch=sm_90 --extended-lambda -I<tree>/include -Ibenchmarks -o arg-narrow arg-narrow-driver.cu
//   arg-narrow <log2 sizes; 0: the segmented cases>
// ArgMax and ArgMinMax over 1- and 2-byte items (int8, uint8, int16, half, bfloat16), MinMax over int8 and half, and
// Sum over int8 (a control): fold's and cub's time for one call and for 10 back to back (per call; `one/b2b` in us,
// each the median of driver_util.cuh's median_us), cub's ArgMin + ArgMax (Min + Max) beside ArgMinMax (MinMax); items
// from fold-bench's generator (bench::fill: integers over their whole range, half and bfloat16 uniform in [-1, 1)),
// or with "h" before the sizes from driver_util.cuh's fill_hashed (floats in [-1000, 1000)). "0": segmented
// ArgMax over int8 and half through offsets, 2^28 items in segments of one fixed length, beside cub's. Every result is
// checked against cub's (value bits and index, every segment's); a mismatch prints CHECK FAILED.
#include "driver_util.cuh"

#include <fold/fold.cuh>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace
{
bool hashed = false; //!< fill_hashed's items (CaseBuffers), not fold-bench's

//! fold-bench's items in place of CaseBuffers' hashed ones, unless `hashed`.
template <typename T>
void refill(CaseBuffers<T>& c, int log2)
{
  if (!hashed)
  {
    bench::fill(c.in, c.n, 1234 + static_cast<std::uint64_t>(log2));
    CHECK(cudaDeviceSynchronize());
  }
}

struct Timing
{
  float one, b2b;
};

template <typename CallT>
Timing timed(cudaStream_t stream, CallT&& call)
{
  Timing t{};
  t.one = median_us(stream, false, 1, [&] { CHECK(call()); });
  t.b2b = median_us(stream,
                    false,
                    10,
                    [&]
                    {
                      for (int c = 0; c < 10; ++c)
                      {
                        CHECK(call());
                      }
                    });
  return t;
}

void print(const char* call, const char* type, int log2, Timing fold, Timing cub, double bytes, bool ok)
{
  std::printf("%-9s %-8s 2^%-3d fold %8.1f/%-8.1f cub %8.1f/%-8.1f fold/cub %.3f/%.3f b2b %%peak %5.1f%s\n",
              call,
              type,
              log2,
              fold.one,
              fold.b2b,
              cub.one,
              cub.b2b,
              fold.one / cub.one,
              fold.b2b / cub.b2b,
              bytes / (fold.b2b * 1e3) / 48.14, // the H200's datasheet 4814 GB/s
              ok ? "" : "  CHECK FAILED");
}

template <typename T>
void whole(const char* type, int log2, bool minmax_only)
{
  CaseBuffers<T> c(std::size_t{1} << log2);
  refill(c, log2);
  const auto count = static_cast<long long>(c.n);
  long long* indices;
  CHECK(cudaMalloc(&indices, 8 * sizeof(long long)));
  T* v = c.out;
  T values[8];
  long long idx[8];
  auto fetch = [&]
  {
    CHECK(cudaStreamSynchronize(c.stream));
    CHECK(cudaMemcpy(values, v, sizeof(values), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(idx, indices, sizeof(idx), cudaMemcpyDeviceToHost));
  };
  const double bytes = static_cast<double>(c.n) * sizeof(T);
  if (!minmax_only)
  {
    const Timing f1 =
        timed(c.stream, [&] { return fold::DeviceReduce::ArgMax(c.temp, c.bytes, c.in, v, indices, count, c.stream); });
    const Timing c1 =
        timed(c.stream,
              [&] { return cub::DeviceReduce::ArgMax(c.temp, c.bytes, c.in, v + 4, indices + 4, count, c.stream); });
    fetch();
    print("ArgMax", type, log2, f1, c1, bytes, same(values[0], values[4]) && idx[0] == idx[4]);
    const Timing f2 = timed(c.stream,
                            [&] {
                              return fold::DeviceReduce::ArgMinMax(
                                  c.temp, c.bytes, c.in, v, indices, v + 1, indices + 1, count, c.stream);
                            });
    const Timing c2 =
        timed(c.stream,
              [&]
              {
                cudaError_t e = cub::DeviceReduce::ArgMin(c.temp, c.bytes, c.in, v + 4, indices + 4, count, c.stream);
                return e != cudaSuccess
                           ? e
                           : cub::DeviceReduce::ArgMax(c.temp, c.bytes, c.in, v + 5, indices + 5, count, c.stream);
              });
    fetch();
    print("ArgMinMax",
          type,
          log2,
          f2,
          c2,
          bytes,
          same(values[0], values[4]) && idx[0] == idx[4] && same(values[1], values[5]) && idx[1] == idx[5]);
  }
  else
  {
    const Timing f3 =
        timed(c.stream, [&] { return fold::DeviceReduce::MinMax(c.temp, c.bytes, c.in, v, v + 1, count, c.stream); });
    const Timing c3 =
        timed(c.stream,
              [&]
              {
                cudaError_t e = cub::DeviceReduce::Min(c.temp, c.bytes, c.in, v + 4, count, c.stream);
                return e != cudaSuccess ? e : cub::DeviceReduce::Max(c.temp, c.bytes, c.in, v + 5, count, c.stream);
              });
    fetch();
    print("MinMax", type, log2, f3, c3, bytes, same(values[0], values[4]) && same(values[1], values[5]));
  }
  CHECK(cudaFree(indices));
}

void sum_int8(int log2)
{
  CaseBuffers<std::int8_t> c(std::size_t{1} << log2);
  refill(c, log2);
  int* sums;
  CHECK(cudaMalloc(&sums, 2 * sizeof(int)));
  const auto count = static_cast<long long>(c.n);
  auto cast        = [] __host__ __device__(std::int8_t x) { return static_cast<int>(x); };
  const Timing f =
      timed(c.stream, [&] { return fold::DeviceReduce::Sum(c.temp, c.bytes, c.in, sums, count, c.stream); });
  const Timing g = timed(c.stream,
                         [&]
                         {
                           return cub::DeviceReduce::TransformReduce(
                               c.temp, c.bytes, c.in, sums + 1, count, ::cuda::std::plus<int>{}, cast, 0, c.stream);
                         });
  int s[2];
  CHECK(cudaStreamSynchronize(c.stream));
  CHECK(cudaMemcpy(s, sums, sizeof(s), cudaMemcpyDeviceToHost));
  print("Sum", "int8", log2, f, g, static_cast<double>(c.n), s[0] == s[1]);
  CHECK(cudaFree(sums));
}

template <typename T>
void segmented(const char* type, int length)
{
  const int log2 = 28;
  CaseBuffers<T> c(std::size_t{1} << log2);
  refill(c, log2);
  const int segments = static_cast<int>(c.n / static_cast<std::size_t>(length));
  int* offsets;
  CHECK(cudaMalloc(&offsets, (segments + 1) * sizeof(int)));
  fixed_offsets<<<256, 256>>>(offsets, segments, length);
  CHECK(cudaDeviceSynchronize());
  using Pair = cub::KeyValuePair<int, T>;
  Pair *fold_out, *cub_out;
  CHECK(cudaMalloc(&fold_out, segments * sizeof(Pair)));
  CHECK(cudaMalloc(&cub_out, segments * sizeof(Pair)));
  const Timing f = timed(c.stream,
                         [&]
                         {
                           return fold::DeviceSegmentedReduce::ArgMax(
                               c.temp, c.bytes, c.in, fold_out, segments, offsets, offsets + 1, c.stream);
                         });
  const Timing g = timed(c.stream,
                         [&]
                         {
                           return cub::DeviceSegmentedReduce::ArgMax(
                               c.temp, c.bytes, c.in, cub_out, segments, offsets, offsets + 1, c.stream);
                         });
  std::vector<Pair> a(segments), b(segments);
  CHECK(cudaStreamSynchronize(c.stream));
  CHECK(cudaMemcpy(a.data(), fold_out, segments * sizeof(Pair), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b.data(), cub_out, segments * sizeof(Pair), cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int s = 0; s < segments; ++s)
  {
    ok = ok && a[s].key == b[s].key && same(a[s].value, b[s].value);
  }
  char name[32];
  std::snprintf(name, sizeof(name), "Seg%d", length);
  const double moved = static_cast<double>(c.n) * sizeof(T) + 4.0 * segments + 1.0 * segments * sizeof(Pair);
  print(name, type, log2, f, g, moved, ok);
  CHECK(cudaFree(offsets));
  CHECK(cudaFree(fold_out));
  CHECK(cudaFree(cub_out));
}
} // namespace

int main(int argc, char** argv)
{
  for (int a = 1; a < argc; ++a)
  {
    if (argv[a][0] == 'h')
    {
      hashed = true;
      continue;
    }
    const int log2 = std::atoi(argv[a]);
    if (log2 == 0)
    {
      for (int length : {65536, 1 << 20})
      {
        segmented<std::int8_t>("int8", length);
        segmented<__half>("half", length);
      }
      continue;
    }
    whole<std::int8_t>("int8", log2, false);
    whole<std::uint8_t>("uint8", log2, false);
    whole<std::int16_t>("int16", log2, false);
    whole<__half>("half", log2, false);
    whole<__nv_bfloat16>("bfloat16", log2, false);
    whole<std::int8_t>("int8", log2, true);
    whole<__half>("half", log2, true);
    sum_int8(log2);
  }
}
