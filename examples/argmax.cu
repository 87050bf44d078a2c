// SPDX-License-Identifier: Apache-2.0
// fold::DeviceReduce::ArgMax: the largest item to one output and its index, an int64_t, to another. The scores
// are random ints in [0, 999], so the largest appears about a thousand times: the index is its first occurrence.
#include <fold/fold.cuh>

#include "example_check.cuh"

#include <algorithm>
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
  std::vector<int> h_scores(n);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> dist(0, 999);
  for (int& x : h_scores)
  {
    x = dist(rng);
  }
  const auto first_max        = std::max_element(h_scores.begin(), h_scores.end()); // the first on ties
  const std::int64_t expected = first_max - h_scores.begin();

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  int* d_scores         = nullptr;
  int* d_max            = nullptr;
  std::int64_t* d_index = nullptr;
  CHECK(cudaMallocAsync(&d_scores, n * sizeof(int), stream));
  CHECK(cudaMallocAsync(&d_max, sizeof(int), stream));
  CHECK(cudaMallocAsync(&d_index, sizeof(std::int64_t), stream));
  CHECK(cudaMemcpyAsync(d_scores, h_scores.data(), n * sizeof(int), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemsetAsync(d_max, 0xff, sizeof(int), stream)); // poison both outputs
  CHECK(cudaMemsetAsync(d_index, 0xff, sizeof(std::int64_t), stream));

  //! [argmax]
  // The largest score to *d_max (an int), the index of its first occurrence to *d_index (an int64_t).
  size_t bytes = 0;
  CHECK(fold::DeviceReduce::ArgMax(nullptr, bytes, d_scores, d_max, d_index, n, stream));
  void* d_temp = nullptr;
  CHECK(cudaMallocAsync(&d_temp, bytes, stream));
  CHECK(fold::DeviceReduce::ArgMax(d_temp, bytes, d_scores, d_max, d_index, n, stream));
  //! [argmax]

  int max            = 0;
  std::int64_t index = 0;
  CHECK(cudaMemcpyAsync(&max, d_max, sizeof(int), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaMemcpyAsync(&index, d_index, sizeof(std::int64_t), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaFreeAsync(d_temp, stream));
  CHECK(cudaFreeAsync(d_index, stream));
  CHECK(cudaFreeAsync(d_max, stream));
  CHECK(cudaFreeAsync(d_scores, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaStreamDestroy(stream));

  if (max != *first_max || index != expected)
  {
    std::fprintf(stderr,
                 "argmax: fold gave %d at %lld, the host %d at %lld\n",
                 max,
                 (long long)index,
                 *first_max,
                 (long long)expected);
    return 1;
  }
  std::printf("argmax of %d scores: %d, first at index %lld\n", n, max, (long long)index);
  return 0;
}
