// SPDX-License-Identifier: Apache-2.0
// The definitions behind <fold/precompiled.h>: each forwards to fold::DeviceReduce. A source file includes this,
// then instantiates the algorithms it owns for every type with FOLD_INSTANTIATE_FOR_TYPES (one file per group of
// algorithms, so that the build compiles them in parallel).
#pragma once

#include <fold/device/device_reduce.cuh>
#include <fold/precompiled.h>

#include <cstdint>

FOLD_VERSION_NAMESPACE_BEGIN
namespace precompiled
{

template <typename T>
cudaError_t DeviceReduce::Sum(void* d_temp_storage,
                              std::size_t& temp_storage_bytes,
                              const T* d_in,
                              T* d_out,
                              std::int64_t num_items,
                              cudaStream_t stream)
{
  return fold::DeviceReduce::Sum(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, stream);
}

template <typename T>
cudaError_t DeviceReduce::Min(void* d_temp_storage,
                              std::size_t& temp_storage_bytes,
                              const T* d_in,
                              T* d_out,
                              std::int64_t num_items,
                              cudaStream_t stream)
{
  return fold::DeviceReduce::Min(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, stream);
}

template <typename T>
cudaError_t DeviceReduce::Max(void* d_temp_storage,
                              std::size_t& temp_storage_bytes,
                              const T* d_in,
                              T* d_out,
                              std::int64_t num_items,
                              cudaStream_t stream)
{
  return fold::DeviceReduce::Max(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, stream);
}

template <typename T>
cudaError_t DeviceReduce::ArgMin(void* d_temp_storage,
                                 std::size_t& temp_storage_bytes,
                                 const T* d_in,
                                 T* d_min_out,
                                 std::int64_t* d_index_out,
                                 std::int64_t num_items,
                                 cudaStream_t stream)
{
  return fold::DeviceReduce::ArgMin(
      d_temp_storage, temp_storage_bytes, d_in, d_min_out, d_index_out, num_items, stream);
}

template <typename T>
cudaError_t DeviceReduce::ArgMax(void* d_temp_storage,
                                 std::size_t& temp_storage_bytes,
                                 const T* d_in,
                                 T* d_max_out,
                                 std::int64_t* d_index_out,
                                 std::int64_t num_items,
                                 cudaStream_t stream)
{
  return fold::DeviceReduce::ArgMax(
      d_temp_storage, temp_storage_bytes, d_in, d_max_out, d_index_out, num_items, stream);
}

} // namespace precompiled
FOLD_VERSION_NAMESPACE_END

// Applies INSTANTIATE(T) to every type <fold/precompiled.h> promises.
#define FOLD_INSTANTIATE_FOR_TYPES(INSTANTIATE)                                                                        \
  INSTANTIATE(std::int32_t)                                                                                            \
  INSTANTIATE(std::uint32_t)                                                                                           \
  INSTANTIATE(std::int64_t)                                                                                            \
  INSTANTIATE(std::uint64_t)                                                                                           \
  INSTANTIATE(float)                                                                                                   \
  INSTANTIATE(double)                                                                                                  \
  INSTANTIATE(__half)                                                                                                  \
  INSTANTIATE(__nv_bfloat16)
