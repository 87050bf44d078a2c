// SPDX-License-Identifier: Apache-2.0
//! @file
//! The one-call forms of the algorithms (`fold::DeviceReduce::Sum(d_in, d_out, n, stream)`): the size query, the
//! temporary storage allocated on the call's stream, the run, and the storage freed on the stream, so that the
//! whole call stays stream-ordered and can be captured into a CUDA graph (as allocation and free nodes).
#pragma once

#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/macros.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! The pool an option names (`from_pool`), or none: the device's current pool.
template <typename OptionT>
cudaMemPool_t pool_of(const OptionT&)
{
  return nullptr;
}
template <typename OptionT>
cudaMemPool_t pool_of(const from_pool_t<OptionT>& option)
{
  return option.pool;
}

//! The temporary storage a one-call form passes to have a run check what a size query does not (its pointers)
//! before anything is allocated: every dispatch returns `cudaSuccess` right after those checks when it is given this,
//! having queued nothing. Never dereferenced.
inline void* arguments_only()
{
  static char tag;
  return &tag;
}

//! Whether a call with this temporary storage runs: neither a size query nor a one-call form's check of its
//! arguments (the calls that show in Nsight Systems as an NVTX range).
inline bool is_run(const void* d_temp_storage)
{
  return d_temp_storage != nullptr && d_temp_storage != arguments_only();
}

//! Runs `call(d_temp_storage, temp_storage_bytes)`, a two-call form, as one call: the size query, the run's own
//! checks (`arguments_only`), then `cudaMallocAsync` (or `cudaMallocFromPoolAsync` from the option's pool) on
//! `stream`, the run, and `cudaFreeAsync` on `stream`. Bad arguments are returned before anything is allocated, so
//! a rejected call queues nothing, as a rejected two-call form does. When the allocation fails its error
//! (`cudaErrorMemoryAllocation`) is returned and nothing is launched; when the run fails the storage is still freed
//! and the run's error returned.
template <typename OptionT, typename CallT>
cudaError_t one_call(cudaStream_t stream, const OptionT& option, CallT&& call)
{
  std::size_t bytes = 0;
  if (const cudaError_t error = call(nullptr, bytes); error != cudaSuccess)
  {
    return error;
  }
  std::size_t no_bytes = 0;
  if (const cudaError_t error = call(arguments_only(), no_bytes); error != cudaSuccess)
  {
    return error;
  }
  void* temp               = nullptr;
  const cudaMemPool_t pool = pool_of(option);
  if (const cudaError_t error =
          pool != nullptr ? cudaMallocFromPoolAsync(&temp, bytes, pool, stream) : cudaMallocAsync(&temp, bytes, stream);
      error != cudaSuccess)
  {
    return error;
  }
  const cudaError_t run   = call(temp, bytes);
  const cudaError_t freed = cudaFreeAsync(temp, stream);
  return run != cudaSuccess ? run : freed;
}

//! Enables a one-call form for a count of integer type (so that a two-call form's arguments never match it).
template <typename NumItemsT>
using one_call_count_t = std::enable_if_t<std::is_integral_v<NumItemsT>>;

} // namespace detail
FOLD_NAMESPACE_END
