// SPDX-License-Identifier: Apache-2.0
// fold::DeviceReduce::Sum with CUB's two calls: ask for the size of the temporary storage, allocate it on the
// stream, run. The sum of 2^20 random ints, checked against a sum on the host.
#include <fold/fold.cuh>

#include "example_check.cuh"

#include <cstddef>
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
  std::vector<int> h_in(n);
  std::mt19937 rng(2024);
  std::uniform_int_distribution<int> dist(-1000, 1000);
  long long expected = 0;
  for (int& x : h_in)
  {
    x = dist(rng);
    expected += x;
  }

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  int* d_in  = nullptr;
  int* d_out = nullptr;
  CHECK(cudaMallocAsync(&d_in, n * sizeof(int), stream));
  CHECK(cudaMallocAsync(&d_out, sizeof(int), stream));
  CHECK(cudaMemcpyAsync(d_in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemsetAsync(d_out, 0xff, sizeof(int), stream)); // poison: a result that was never written shows

  //! [two-call]
  size_t bytes = 0;
  CHECK(fold::DeviceReduce::Sum(nullptr, bytes, d_in, d_out, n, stream)); // 1. query the temporary storage
  void* d_temp = nullptr;
  CHECK(cudaMallocAsync(&d_temp, bytes, stream));
  CHECK(fold::DeviceReduce::Sum(d_temp, bytes, d_in, d_out, n, stream)); // 2. run, ordered on `stream`
  //! [two-call]

  int sum = 0;
  CHECK(cudaMemcpyAsync(&sum, d_out, sizeof(int), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaFreeAsync(d_temp, stream));
  CHECK(cudaFreeAsync(d_out, stream));
  CHECK(cudaFreeAsync(d_in, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaStreamDestroy(stream));

  if (sum != expected)
  {
    std::fprintf(stderr, "sum: fold gave %d, the host %lld\n", sum, expected);
    return 1;
  }
  std::printf("sum of %d ints: %d\n", n, sum);
  return 0;
}
