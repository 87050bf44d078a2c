// SPDX-License-Identifier: Apache-2.0
// fold::DeviceSegmentedReduce::Sum, twice over the same rows x cols ints: segments of random lengths given by
// begin and end offsets (CUB's call), then the rows of the matrix with the fixed-size overload.
#include <fold/fold.cuh>

#include "example_check.cuh"

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

int main()
{
  if (!example_has_device())
  {
    return example_skipped;
  }

  const int rows = 1000, cols = 500, n = rows * cols, num_segments = 1000;
  std::mt19937 rng(99);
  std::vector<int> h_in(n), expected_row_sums(rows), h_offsets(num_segments + 1), expected_sums(num_segments);
  for (int i = 0; i < n; ++i)
  {
    h_in[i] = std::uniform_int_distribution<int>(-100, 100)(rng);
    expected_row_sums[i / cols] += h_in[i];
  }
  // Sorted offsets from 0 to n: segment i is [h_offsets[i], h_offsets[i + 1]), of random length.
  std::generate(h_offsets.begin(), h_offsets.end(), [&] { return std::uniform_int_distribution<int>(0, n)(rng); });
  h_offsets.front() = 0;
  h_offsets.back()  = n;
  std::sort(h_offsets.begin(), h_offsets.end());
  for (int i = 0; i < num_segments; ++i)
  {
    expected_sums[i] = std::accumulate(h_in.begin() + h_offsets[i], h_in.begin() + h_offsets[i + 1], 0);
  }

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  int *d_in = nullptr, *d_offsets = nullptr, *d_sums = nullptr, *d_row_sums = nullptr;
  CHECK(cudaMallocAsync(&d_in, n * sizeof(int), stream));
  CHECK(cudaMallocAsync(&d_offsets, (num_segments + 1) * sizeof(int), stream));
  CHECK(cudaMallocAsync(&d_sums, num_segments * sizeof(int), stream));
  CHECK(cudaMallocAsync(&d_row_sums, rows * sizeof(int), stream));
  CHECK(cudaMemcpyAsync(d_in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemcpyAsync(d_offsets, h_offsets.data(), (num_segments + 1) * sizeof(int), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemsetAsync(d_sums, 0xff, num_segments * sizeof(int), stream)); // poison both outputs
  CHECK(cudaMemsetAsync(d_row_sums, 0xff, rows * sizeof(int), stream));

  //! [offsets]
  // Segment i is [d_offsets[i], d_offsets[i + 1]): the begins are d_offsets, the ends d_offsets + 1.
  const int* d_begins = d_offsets;
  const int* d_ends   = d_offsets + 1;
  size_t bytes        = 0;
  CHECK(fold::DeviceSegmentedReduce::Sum(nullptr, bytes, d_in, d_sums, num_segments, d_begins, d_ends, stream));
  void* d_temp = nullptr;
  CHECK(cudaMallocAsync(&d_temp, bytes, stream));
  CHECK(fold::DeviceSegmentedReduce::Sum(d_temp, bytes, d_in, d_sums, num_segments, d_begins, d_ends, stream));
  //! [offsets]

  //! [fixed-size]
  // The rows of a row-major rows x cols matrix: segment i is [i * cols, (i + 1) * cols).
  size_t row_bytes = 0;
  CHECK(fold::DeviceSegmentedReduce::Sum(nullptr, row_bytes, d_in, d_row_sums, rows, cols, stream));
  void* d_row_temp = nullptr;
  CHECK(cudaMallocAsync(&d_row_temp, row_bytes, stream));
  CHECK(fold::DeviceSegmentedReduce::Sum(d_row_temp, row_bytes, d_in, d_row_sums, rows, cols, stream));
  //! [fixed-size]

  std::vector<int> h_sums(num_segments), h_row_sums(rows);
  CHECK(cudaMemcpyAsync(h_sums.data(), d_sums, num_segments * sizeof(int), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaMemcpyAsync(h_row_sums.data(), d_row_sums, rows * sizeof(int), cudaMemcpyDeviceToHost, stream));
  for (void* p : std::initializer_list<void*>{d_in, d_offsets, d_sums, d_row_sums, d_temp, d_row_temp})
  {
    CHECK(cudaFreeAsync(p, stream));
  }
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaStreamDestroy(stream));

  if (h_sums != expected_sums || h_row_sums != expected_row_sums)
  {
    std::fprintf(
        stderr, "segmented: fold's sums by %s differ from the host's\n", h_sums != expected_sums ? "offsets" : "rows");
    return 1;
  }
  std::printf("segmented sums: %d segments by offsets and %d rows of %d ints, all match\n", num_segments, rows, cols);
  return 0;
}
