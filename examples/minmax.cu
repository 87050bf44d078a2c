// SPDX-License-Identifier: Apache-2.0
// The fused reductions, each one pass over the data: fold::DeviceReduce::MinMax (the smallest and the largest
// reading), ArgMinMax (both with the index of their first occurrence) and VarMean (the variance and the mean, like
// torch.var_mean). The readings are random floats around 20; each result is checked against the host.
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

  const int n = 1 << 20;
  std::vector<float> h_readings(n);
  std::mt19937 rng(11);
  std::normal_distribution<float> dist(20.0f, 3.0f);
  for (float& x : h_readings)
  {
    x = dist(rng);
  }
  const auto first_min      = std::min_element(h_readings.begin(), h_readings.end()); // the first on ties
  const auto first_max      = std::max_element(h_readings.begin(), h_readings.end());
  const std::int64_t min_at = first_min - h_readings.begin();
  const std::int64_t max_at = first_max - h_readings.begin();
  double mean = 0, m2 = 0; // two passes in double on the host
  for (float x : h_readings)
  {
    mean += x;
  }
  mean /= n;
  for (float x : h_readings)
  {
    m2 += (x - mean) * (x - mean);
  }
  const double var = m2 / (n - 1);

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  float* d_readings         = nullptr;
  float* d_out              = nullptr; // min, max, arg-min value, arg-max value, var, mean
  std::int64_t* d_index_out = nullptr;
  CHECK(cudaMallocAsync(&d_readings, n * sizeof(float), stream));
  CHECK(cudaMallocAsync(&d_out, 6 * sizeof(float), stream));
  CHECK(cudaMallocAsync(&d_index_out, 2 * sizeof(std::int64_t), stream));
  CHECK(cudaMemcpyAsync(d_readings, h_readings.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemsetAsync(d_out, 0xff, 6 * sizeof(float), stream)); // poison: a result never written shows as NaN
  CHECK(cudaMemsetAsync(d_index_out, 0xff, 2 * sizeof(std::int64_t), stream));
  float* d_min           = d_out;
  float* d_max           = d_out + 1;
  float* d_var           = d_out + 4;
  float* d_mean          = d_out + 5;
  std::int64_t* d_min_at = d_index_out;
  std::int64_t* d_max_at = d_index_out + 1;

  //! [minmax]
  // The smallest and the largest reading, both in one pass over the data.
  size_t bytes = 0;
  CHECK(fold::DeviceReduce::MinMax(nullptr, bytes, d_readings, d_min, d_max, n, stream));
  void* d_temp = nullptr;
  CHECK(cudaMallocAsync(&d_temp, bytes, stream));
  CHECK(fold::DeviceReduce::MinMax(d_temp, bytes, d_readings, d_min, d_max, n, stream));
  //! [minmax]

  // ArgMinMax, cub 3.6's outputs in cub's order: minimum, its index, maximum, its index (one call, no size query).
  CHECK(fold::DeviceReduce::ArgMinMax(d_readings, d_out + 2, d_min_at, d_out + 3, d_max_at, n, stream));

  //! [var-mean]
  // The unbiased variance (correction 1, torch's default) and the mean, in one pass; here in one call, which
  // allocates its temporary storage on the stream.
  CHECK(fold::DeviceReduce::VarMean(d_readings, d_var, d_mean, n, 1.0, stream));
  //! [var-mean]

  float out[6]          = {};
  std::int64_t index[2] = {};
  CHECK(cudaMemcpyAsync(out, d_out, sizeof(out), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaMemcpyAsync(index, d_index_out, sizeof(index), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaFreeAsync(d_temp, stream));
  CHECK(cudaFreeAsync(d_index_out, stream));
  CHECK(cudaFreeAsync(d_out, stream));
  CHECK(cudaFreeAsync(d_readings, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaStreamDestroy(stream));

  // The extremes are exact.
  const bool extremes_ok = out[0] == *first_min && out[1] == *first_max && out[2] == *first_min &&
                           out[3] == *first_max && index[0] == min_at && index[1] == max_at;
  // A float merge of 2^20 items: within 1e-5 of the double two-pass values, relatively.
  const bool moments_ok = std::fabs(out[4] - var) <= 1e-5 * var && std::fabs(out[5] - mean) <= 1e-5 * mean;
  if (!extremes_ok || !moments_ok)
  {
    std::fprintf(stderr,
                 "minmax: fold gave min %g at %lld, max %g at %lld, var %g, mean %g; the host min %g at %lld, max %g "
                 "at %lld, var %g, mean %g\n",
                 out[2],
                 (long long)index[0],
                 out[3],
                 (long long)index[1],
                 out[4],
                 out[5],
                 *first_min,
                 (long long)min_at,
                 *first_max,
                 (long long)max_at,
                 var,
                 mean);
    return 1;
  }
  std::printf("%d readings: min %g (first at %lld), max %g (first at %lld), var %g, mean %g\n",
              n,
              out[0],
              (long long)index[0],
              out[1],
              (long long)index[1],
              out[4],
              out[5]);
  return 0;
}
