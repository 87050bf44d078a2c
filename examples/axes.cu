// SPDX-License-Identifier: Apache-2.0
// fold::DeviceReduceAxes::Sum and Max: a float[N][H][W][C] array (NHWC, row-major) summed over N, H and W, one sum
// per channel, like torch.sum(x, dim=(0, 1, 2)), and the largest item per channel, like torch.amax. Checked against
// double sums and the exact maxima on the host.
#include <fold/fold.cuh>

#include "example_check.cuh"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

int main()
{
  if (!example_has_device())
  {
    return example_skipped;
  }

  const std::int64_t N = 4, H = 32, W = 32, C = 64, n = N * H * W * C;
  std::vector<float> h_x(n);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<double> expected(C), sum_abs(C);
  std::vector<float> expected_max(C, -INFINITY);
  for (std::int64_t i = 0; i < n; ++i)
  {
    h_x[i] = dist(rng);
    expected[i % C] += h_x[i]; // the channel is the innermost index
    sum_abs[i % C] += std::fabs(h_x[i]);
    expected_max[i % C] = std::max(expected_max[i % C], h_x[i]);
  }

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  float* d_x    = nullptr;
  float* d_sums = nullptr;
  float* d_maxs = nullptr;
  CHECK(cudaMallocAsync(&d_x, n * sizeof(float), stream));
  CHECK(cudaMallocAsync(&d_sums, C * sizeof(float), stream));
  CHECK(cudaMallocAsync(&d_maxs, C * sizeof(float), stream));
  CHECK(cudaMemcpyAsync(d_x, h_x.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemsetAsync(d_sums, 0xff, C * sizeof(float), stream)); // poison: NaNs
  CHECK(cudaMemsetAsync(d_maxs, 0xff, C * sizeof(float), stream));

  //! [axes]
  // x: float[N][H][W][C], row-major; summed over axes 0, 1 and 2 (N, H, W): sums is float[C].
  size_t bytes = 0;
  CHECK(fold::DeviceReduceAxes::Sum(nullptr, bytes, d_x, d_sums, {N, H, W, C}, {0, 1, 2}, stream));
  void* d_temp = nullptr;
  CHECK(cudaMallocAsync(&d_temp, bytes, stream));
  CHECK(fold::DeviceReduceAxes::Sum(d_temp, bytes, d_x, d_sums, {N, H, W, C}, {0, 1, 2}, stream));
  //! [axes]
  CHECK(cudaFreeAsync(d_temp, stream));

  // The largest item per channel, like torch.amax(x, dim=(0, 1, 2)); here in one call, its temporary storage taken
  // from and given back to the device's pool on the stream.
  CHECK(fold::DeviceReduceAxes::Max(d_x, d_maxs, {N, H, W, C}, {0, 1, 2}, stream));

  std::vector<float> h_sums(C), h_maxs(C);
  CHECK(cudaMemcpyAsync(h_sums.data(), d_sums, C * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaMemcpyAsync(h_maxs.data(), d_maxs, C * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaFreeAsync(d_maxs, stream));
  CHECK(cudaFreeAsync(d_sums, stream));
  CHECK(cudaFreeAsync(d_x, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaStreamDestroy(stream));

  // Any order of summing m floats is within (m - 1) * 2^-24 * sum |x| of the exact sum (to first order).
  const double m = static_cast<double>(N * H * W);
  for (std::int64_t c = 0; c < C; ++c)
  {
    const double error = std::fabs(h_sums[c] - expected[c]);
    if (!(error <= (m - 1) * std::ldexp(1.0, -24) * sum_abs[c])) // also fails for a NaN
    {
      std::fprintf(stderr, "channel %lld: fold gave %.9g, the host %.9g\n", (long long)c, h_sums[c], expected[c]);
      return 1;
    }
  }
  for (std::int64_t c = 0; c < C; ++c)
  {
    if (h_maxs[c] != expected_max[c]) // exact: the largest of the channel's items
    {
      std::fprintf(
          stderr, "channel %lld: fold's max %.9g, the host's %.9g\n", (long long)c, h_maxs[c], expected_max[c]);
      return 1;
    }
  }
  std::printf("per-channel sums and maxima of a {%lld, %lld, %lld, %lld} array: sums[0] = %.6f, maxima[0] = %.6f\n",
              (long long)N,
              (long long)H,
              (long long)W,
              (long long)C,
              h_sums[0],
              h_maxs[0]);
  return 0;
}
