// SPDX-License-Identifier: Apache-2.0
// fold::nccl::DeviceReduce::Sum over an array sharded across every visible GPU: one NCCL rank per GPU
// (ncclCommInitAll), one host thread per rank. Each rank holds its shard of 2^24 + 3 floats; every rank gets the
// sum, with the same bits as fold::DeviceReduce::Sum over the whole array on one GPU. Checked against the host.
// Built with fold::nccl only; exits 77 (skipped) without a GPU.
#include <fold/device/device_reduce.cuh>
#include <fold/nccl/device_reduce_nccl.cuh>

#include "example_check.cuh"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace
{
// Item i of the whole array, whichever rank holds it.
float item(std::int64_t i)
{
  return static_cast<float>(i % 1000) * 0.001f - 0.5f;
}

// One rank: its shard on its GPU, the sum of the whole array in *result.
void rank_main(int rank, ncclComm_t comm, const fold::nccl::Shards& shards, float* result)
{
  CHECK(cudaSetDevice(rank));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  std::vector<float> h_in(static_cast<std::size_t>(shards.count(rank)));
  for (std::size_t i = 0; i < h_in.size(); ++i)
  {
    h_in[i] = item(shards.offset(rank) + static_cast<std::int64_t>(i));
  }
  float* d_in  = nullptr;
  float* d_out = nullptr;
  CHECK(cudaMallocAsync(&d_in, h_in.size() * sizeof(float) + 1, stream));
  CHECK(cudaMallocAsync(&d_out, sizeof(float), stream));
  CHECK(cudaMemcpyAsync(d_in, h_in.data(), h_in.size() * sizeof(float), cudaMemcpyHostToDevice, stream));

  //! [nccl-sum]
  // Each rank holds its shard of the array: shards.count(rank) floats at d_in.
  size_t bytes = 0;
  CHECK(fold::nccl::DeviceReduce::Sum(nullptr, bytes, d_in, d_out, shards, comm, stream)); // 1. query
  void* d_temp = nullptr;
  CHECK(cudaMallocAsync(&d_temp, bytes, stream));
  CHECK(fold::nccl::DeviceReduce::Sum(d_temp, bytes, d_in, d_out, shards, comm, stream)); // 2. run, on every rank
  //! [nccl-sum]

  CHECK(cudaMemcpyAsync(result, d_out, sizeof(float), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaFreeAsync(d_temp, stream));
  CHECK(cudaFreeAsync(d_out, stream));
  CHECK(cudaFreeAsync(d_in, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaStreamDestroy(stream));
}
} // namespace

int main()
{
  if (!example_has_device())
  {
    return example_skipped;
  }
  int ranks = 0;
  CHECK(cudaGetDeviceCount(&ranks));
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(ranks));
  if (ncclCommInitAll(comms.data(), ranks, nullptr) != ncclSuccess)
  {
    std::fprintf(stderr, "ncclCommInitAll failed\n");
    return 1;
  }

  const std::int64_t n = (std::int64_t{1} << 24) + 3;
  //! [nccl-shards]
  // The same shards on every rank: equal shares of whole granules, so that the sum has one GPU's bits.
  std::int64_t granule = 0;
  CHECK(fold::nccl::DeviceReduce::Granule<const float*>(n, granule));
  const fold::nccl::Shards shards = fold::nccl::Shards::even(n, ranks, granule);
  //! [nccl-shards]

  std::vector<float> results(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
  {
    threads.emplace_back(rank_main, r, comms[r], std::cref(shards), &results[r]);
  }
  for (auto& thread : threads)
  {
    thread.join();
  }
  for (ncclComm_t comm : comms)
  {
    ncclCommDestroy(comm);
  }

  double expected = 0, magnitude = 0;
  for (std::int64_t i = 0; i < n; ++i)
  {
    expected += item(i);
    magnitude += std::fabs(item(i));
  }
  for (int r = 0; r < ranks; ++r)
  {
    if (std::memcmp(&results[r], &results[0], sizeof(float)) != 0 ||
        std::fabs(results[r] - expected) > 1e-5 * magnitude)
    {
      std::fprintf(stderr, "rank %d: %.9g, rank 0: %.9g, the host %.9g\n", r, results[r], results[0], expected);
      return 1;
    }
  }
  std::printf("sum of %lld floats over %d GPUs: %.9g on every rank\n", static_cast<long long>(n), ranks, results[0]);
  return 0;
}
