// SPDX-License-Identifier: Apache-2.0
// What the tests of sharded reductions share (test/nccl): one host thread and one stream per rank, CUB's two calls
// without Catch2 (which is not thread-safe), a non-commutative operator, and floats read through an iterator.
#pragma once

#include <cuda_runtime_api.h>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace fold_test
{

//! Runs `call(rank, stream)` for `ranks` ranks, each on its own host thread, on device `device_of(rank)` with a
//! stream of its own; waits for every stream and returns each rank's error (the call's, or the stream's).
template <typename DeviceOfT, typename CallT>
std::vector<cudaError_t> run_rank_threads(int ranks, DeviceOfT device_of, CallT call)
{
  std::vector<cudaError_t> errors(static_cast<std::size_t>(ranks), cudaSuccess);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
  {
    threads.emplace_back(
        [&, r]
        {
          cudaError_t& error  = errors[static_cast<std::size_t>(r)];
          cudaStream_t stream = nullptr;
          error               = cudaSetDevice(device_of(r));
          error = error != cudaSuccess ? error : cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
          error = error != cudaSuccess ? error : call(r, stream);
          const cudaError_t synced = stream != nullptr ? cudaStreamSynchronize(stream) : cudaSuccess;
          error                    = error != cudaSuccess ? error : synced;
          if (stream != nullptr)
          {
            cudaStreamDestroy(stream);
          }
        });
  }
  for (auto& thread : threads)
  {
    thread.join();
  }
  return errors;
}

//! The CUB two calls on `stream`: a size query, storage allocated on the stream (poisoned), the run, the storage
//! freed on the stream. Every error is returned.
template <typename CallT>
cudaError_t two_call_on(cudaStream_t stream, CallT&& call)
{
  std::size_t bytes = 0;
  if (const cudaError_t error = call(nullptr, bytes); error != cudaSuccess)
  {
    return error;
  }
  void* temp = nullptr;
  if (const cudaError_t error = cudaMallocAsync(&temp, bytes, stream); error != cudaSuccess)
  {
    return error;
  }
  cudaError_t error = cudaMemsetAsync(temp, 0xA5, bytes, stream);
  if (error == cudaSuccess)
  {
    error = call(temp, bytes);
  }
  const cudaError_t freed = cudaFreeAsync(temp, stream);
  return error != cudaSuccess ? error : freed;
}

//! The map x -> a * x + b over floats; `Then{}(f, g)` is f, then g: associative (up to rounding), not commutative.
struct Affine
{
  float a;
  float b;
};
struct Then
{
  __host__ __device__ Affine operator()(Affine f, Affine g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};

//! Item i of a float array read through an iterator, a function of i alone: a shard that starts at item `first`
//! reads the same values through a counting iterator started there (`counting_floats(first)`).
struct ItemValue
{
  __host__ __device__ float operator()(std::uint64_t i) const
  {
    return static_cast<float>((i * 2654435761ull) % 2047) * 0x1.0p-10f - 1.0f;
  }
};
using CountingFloats = thrust::transform_iterator<ItemValue, thrust::counting_iterator<std::uint64_t>>;
inline CountingFloats counting_floats(std::uint64_t first)
{
  return thrust::make_transform_iterator(thrust::counting_iterator<std::uint64_t>(first), ItemValue{});
}

} // namespace fold_test
