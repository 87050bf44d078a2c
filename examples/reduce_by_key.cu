// SPDX-License-Identifier: Apache-2.0
// ReduceByKey: the sum of each run of equal keys (say, the sales of each day in a log sorted by time), checked
// against the host.
#include <fold/fold.cuh>

#include "example_check.cuh"

#include <cmath>
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
  std::vector<int> h_keys(n);
  std::vector<float> h_values(n);
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> length(1, 40);
  std::uniform_int_distribution<int> cents(1, 10000);
  std::vector<int> expected_keys;
  std::vector<double> expected_sums;
  for (int i = 0, key = 0; i < n; ++key)
  {
    const int run = length(rng);
    expected_keys.push_back(key % 7); // a key may come back in a later run
    expected_sums.push_back(0.0);
    for (int j = 0; j < run && i < n; ++j, ++i)
    {
      h_keys[i]   = key % 7;
      h_values[i] = static_cast<float>(cents(rng)) / 100.0f;
      expected_sums.back() += h_values[i];
    }
  }

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  int* d_keys     = nullptr;
  float* d_values = nullptr;
  int* d_unique   = nullptr;
  float* d_sums   = nullptr;
  int* d_num_runs = nullptr;
  CHECK(cudaMallocAsync(&d_keys, n * sizeof(int), stream));
  CHECK(cudaMallocAsync(&d_values, n * sizeof(float), stream));
  CHECK(cudaMallocAsync(&d_unique, n * sizeof(int), stream));
  CHECK(cudaMallocAsync(&d_sums, n * sizeof(float), stream));
  CHECK(cudaMallocAsync(&d_num_runs, sizeof(int), stream));
  CHECK(cudaMemcpyAsync(d_keys, h_keys.data(), n * sizeof(int), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemcpyAsync(d_values, h_values.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemsetAsync(d_num_runs, 0xff, sizeof(int), stream)); // poison: a result never written shows

  //! [reduce-by-key]
  // Keys  1 1 2 2 2 1 ... : runs of equal keys, each summed; a key may come back in a later run.
  size_t bytes = 0;
  CHECK(fold::DeviceReduce::ReduceByKey(
      nullptr, bytes, d_keys, d_unique, d_values, d_sums, d_num_runs, fold::Sum{}, n, stream));
  void* d_temp = nullptr;
  CHECK(cudaMallocAsync(&d_temp, bytes, stream));
  CHECK(fold::DeviceReduce::ReduceByKey(
      d_temp, bytes, d_keys, d_unique, d_values, d_sums, d_num_runs, fold::Sum{}, n, stream));
  //! [reduce-by-key]

  int num_runs = 0;
  CHECK(cudaMemcpyAsync(&num_runs, d_num_runs, sizeof(int), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  bool ok = num_runs == static_cast<int>(expected_keys.size());
  std::vector<int> unique(ok ? num_runs : 0);
  std::vector<float> sums(ok ? num_runs : 0);
  if (ok)
  {
    CHECK(cudaMemcpy(unique.data(), d_unique, num_runs * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sums.data(), d_sums, num_runs * sizeof(float), cudaMemcpyDeviceToHost));
    for (int r = 0; r < num_runs; ++r)
    {
      // At most 40 items of at most 100 each: a float sum within 40 * 4000 * 2^-24 of the exact one.
      ok = ok && unique[r] == expected_keys[r] && std::abs(sums[r] - expected_sums[r]) < 0.01;
    }
  }
  CHECK(cudaFreeAsync(d_temp, stream));
  CHECK(cudaFreeAsync(d_keys, stream));
  CHECK(cudaFreeAsync(d_values, stream));
  CHECK(cudaFreeAsync(d_unique, stream));
  CHECK(cudaFreeAsync(d_sums, stream));
  CHECK(cudaFreeAsync(d_num_runs, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaStreamDestroy(stream));
  std::printf("%d runs, first %d: %.2f; %s\n", num_runs, ok ? unique[0] : -1, ok ? sums[0] : 0.0f, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
