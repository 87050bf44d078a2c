// SPDX-License-Identifier: Apache-2.0
//! @file
//! Per-device facts the dispatch needs on every call, read once per device and cached lock-free: the PTX
//! version of the image the driver loaded for this code, and the number of multiprocessors. And programmatic
//! dependent launch: how fold's kernels let the next kernel on the stream start early, and wait for the previous.
#pragma once

#include <fold/util/macros.cuh>

#include <cuda_runtime_api.h>

#include <atomic>

FOLD_NAMESPACE_BEGIN
FOLD_KERNELS_BEGIN
namespace detail
{

//! Devices with an ordinal below this are cached; others are queried on every call.
inline constexpr int max_cached_devices = 64;

//! A cache of one positive `int` per device; 0 means "not read yet". Racing first readers may both query;
//! they store the same value, so no lock is needed.
using DeviceCache = std::atomic<int>[max_cached_devices];

//! `value` for `device`, from `cache` or, the first time, from `query(int& value)`.
template <typename QueryT>
cudaError_t cached_per_device(DeviceCache& cache, int device, int& value, QueryT query)
{
  const bool cacheable = device >= 0 && device < max_cached_devices;
  if (cacheable)
  {
    value = cache[device].load(std::memory_order_relaxed);
    if (value > 0)
    {
      return cudaSuccess;
    }
  }
  if (const cudaError_t error = query(value); error != cudaSuccess)
  {
    return error;
  }
  if (cacheable && value > 0)
  {
    cache[device].store(value, std::memory_order_relaxed);
  }
  return cudaSuccess;
}

template <int = 0>
FOLD_KERNEL void EmptyKernel()
{
}

//! The PTX version (`__CUDA_ARCH__` spelling: 900 for sm_90) of the image loaded for the current device,
//! `device`. This is what the kernels' `FOLD_ARCH` is, so host and device select the same policy.
inline cudaError_t ptx_version(int device, int& version)
{
  static DeviceCache cache;
  return cached_per_device(cache,
                           device,
                           version,
                           [](int& v)
                           {
                             cudaFuncAttributes attributes{};
                             const cudaError_t error = cudaFuncGetAttributes(&attributes, EmptyKernel<>);
                             v                       = attributes.ptxVersion * 10;
                             return error;
                           });
}

//! The number of streaming multiprocessors of `device`.
inline cudaError_t sm_count(int device, int& count)
{
  static DeviceCache cache;
  return cached_per_device(cache,
                           device,
                           count,
                           [device](int& v)
                           { return cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, device); });
}

//! Waits until the previous grid has completed and its memory is visible (the first half of
//! `begin_dependent_kernel`), alone for a kernel that lets the next one in only when its block's work is
//! done (`end_dependent_block`): one whose grid is a block per equal share of work, fewer blocks than the
//! multiprocessors hold. Let in at the start, the next call's blocks take the slots this grid leaves free as they
//! come, unevenly, and the multiprocessors that get the most finish last: 671 blocks of 100000 floats (the fixed-size
//! segmented overload) took 80.7 us a call back to back on an H200 against 68.1 for one call, and 63.9 with serial
//! launches (docs/performance.md, "Fixed-size segments: the next call let in at the end").
FOLD_DEVICE FOLD_FORCEINLINE void wait_for_previous_grid()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

//! Lets the next kernel be scheduled, after a block's last memory access (see `wait_for_previous_grid`).
FOLD_DEVICE FOLD_FORCEINLINE void end_dependent_block()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

//! Programmatic dependent launch (sm_90 and later). fold launches its kernels with the programmatic stream
//! serialization attribute (see `launch`), so a kernel may be scheduled while the kernel before it on the stream
//! is still running, once that kernel has called `launch_dependents`. Every fold kernel therefore starts with
//! `begin_dependent_kernel()` (or, where its comment says why, with `wait_for_previous_grid()` and ends each block with
//! `end_dependent_block()`): it waits until the previous grid has completed and its memory is visible, before
//! it touches any memory, then lets the next kernel be scheduled. What is saved is the launch latency between
//! dependent kernels (pass 1 -> pass 2, one call -> the next); the order of memory effects is the stream's, as
//! without the attribute. Waiting before letting the next kernel in keeps at most one grid waiting behind a
//! running one (letting it in first let a whole queue of calls park their blocks on the multiprocessors, and
//! made ArgMax at 2^18-2^19 items up to 1.4x slower under graph replay). Both are no-ops without a dependent
//! launch, and in code compiled for older architectures, which the dispatch then launches without the attribute.
FOLD_DEVICE FOLD_FORCEINLINE void begin_dependent_kernel()
{
  wait_for_previous_grid();
  end_dependent_block();
}

//! Whether code compiled for `arch` (`__CUDA_ARCH__` spelling) waits in `begin_dependent_kernel`, so that its
//! launches may carry the programmatic stream serialization attribute.
constexpr bool has_dependent_launch(int arch)
{
  return arch >= 900;
}

} // namespace detail
FOLD_KERNELS_END
FOLD_NAMESPACE_END
