// SPDX-License-Identifier: Apache-2.0
//! @file
//! fold::precompiled::DeviceReduce — the DeviceReduce algorithms, compiled once into the `fold::precompiled`
//! library, for raw device pointers of the common types and the built-in operations. This header is plain
//! C++17: a `.cpp` file compiled by g++ or clang (with the CUDA include directory on its path) can include it
//! and call these functions, linking `fold::precompiled` instead of compiling any kernel itself.
//!
//! `T` is one of `std::int32_t`, `std::uint32_t`, `std::int64_t`, `std::uint64_t`, `float`, `double`, `__half`,
//! `__nv_bfloat16`; other types fail to link. The semantics, errors and two-call protocol are those of
//! `fold::DeviceReduce` (`<fold/device/device_reduce.cuh>`); `num_items` is an `int64_t`.
#pragma once

#include <fold/version.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

FOLD_VERSION_NAMESPACE_BEGIN
namespace precompiled
{

struct DeviceReduce
{
  //! The sum of `d_in[0, num_items)` to `*d_out` (16-bit floats accumulate in `float`).
  template <typename T>
  static cudaError_t Sum(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         const T* d_in,
                         T* d_out,
                         std::int64_t num_items,
                         cudaStream_t stream = 0);

  //! The smallest item to `*d_out` (+infinity or the largest value for empty input).
  template <typename T>
  static cudaError_t Min(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         const T* d_in,
                         T* d_out,
                         std::int64_t num_items,
                         cudaStream_t stream = 0);

  //! The largest item to `*d_out` (-infinity or the lowest value for empty input).
  template <typename T>
  static cudaError_t Max(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         const T* d_in,
                         T* d_out,
                         std::int64_t num_items,
                         cudaStream_t stream = 0);

  //! The smallest item to `*d_min_out` and its first index to `*d_index_out` (identity and -1 when empty).
  template <typename T>
  static cudaError_t ArgMin(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            const T* d_in,
                            T* d_min_out,
                            std::int64_t* d_index_out,
                            std::int64_t num_items,
                            cudaStream_t stream = 0);

  //! The largest item to `*d_max_out` and its first index to `*d_index_out` (identity and -1 when empty).
  template <typename T>
  static cudaError_t ArgMax(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            const T* d_in,
                            T* d_max_out,
                            std::int64_t* d_index_out,
                            std::int64_t num_items,
                            cudaStream_t stream = 0);
};

} // namespace precompiled
FOLD_VERSION_NAMESPACE_END
