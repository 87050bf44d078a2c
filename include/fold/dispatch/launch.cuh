// SPDX-License-Identifier: Apache-2.0
//! @file
//! What every dispatch shares: the facts of the device a call runs on, the occupancy of a kernel, and the launch.
//! Each is read once per device and kernel and cached lock-free (see `cached_per_device`).
#pragma once

#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/arch.cuh>
#include <fold/util/macros.cuh>

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <utility>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! The device a call runs on: the current device, the PTX version of the image loaded for it (`__CUDA_ARCH__`
//! spelling: what the kernels' `FOLD_ARCH` is, so host and device select the same policy) and its multiprocessors.
struct DeviceFacts
{
  int device = 0;
  int arch   = 0;
  int sms    = 0;
};

//! The facts of the current device: one `cudaGetDevice`, the rest from the per-device caches.
inline cudaError_t device_facts(DeviceFacts& facts)
{
  if (const cudaError_t error = cudaGetDevice(&facts.device); error != cudaSuccess)
  {
    return error;
  }
  if (const cudaError_t error = ptx_version(facts.device, facts.arch); error != cudaSuccess)
  {
    return error;
  }
  return sm_count(facts.device, facts.sms);
}

//! Resident blocks of `Kernel` per multiprocessor of `device` at `block_threads` threads (the kernel's one block
//! size on that device), read once per kernel and device; at least 1 (a kernel that cannot be resident fails at
//! launch, with its own error).
template <auto Kernel>
cudaError_t occupancy(int device, int block_threads, int& blocks)
{
  static DeviceCache cache;
  return cached_per_device(cache,
                           device,
                           blocks,
                           [block_threads](int& v)
                           {
                             const cudaError_t error =
                                 cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v, Kernel, block_threads, 0);
                             v = v < 1 ? 1 : v;
                             return error;
                           });
}

//! Whether this call's launches may overlap the previous kernel on the stream (programmatic dependent launch):
//! on images for architectures whose kernels wait for it (`has_dependent_launch`), unless a hook turns it off.
inline bool may_overlap(int arch, const DispatchHooks& hooks)
{
  return has_dependent_launch(arch) && !hooks.serial_launches;
}

//! Launches `kernel` on `stream` and returns the launch's own error (a bad configuration, a missing image).
//! With `overlap` (see `begin_dependent_kernel`), the launch carries the programmatic stream serialization
//! attribute: the kernel may be scheduled before the previous kernel on the stream has finished, and waits for it
//! in its first instruction.
template <typename... ParamsT, typename... ArgsT>
cudaError_t launch(void (*kernel)(ParamsT...), int grid, int block, cudaStream_t stream, bool overlap, ArgsT&&... args)
{
  cudaLaunchAttribute attribute[1]{};
  attribute[0].id                                         = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim  = dim3(static_cast<unsigned>(grid));
  config.blockDim = dim3(static_cast<unsigned>(block));
  config.stream   = stream;
  config.attrs    = attribute;
  config.numAttrs = overlap ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, std::forward<ArgsT>(args)...);
}

//! Whether `stream` is being captured into a CUDA graph. A captured call pays its host work once, at capture;
//! each replay then runs only the kernels, and there two launches back to back (pass 1, then pass 2 already
//! scheduled behind it through programmatic dependent launch) finish sooner than one single-pass launch, whose
//! ticket puts a fence and an atomic round trip before the last block's work: float Sum over 2^14 items replays
//! in 2.0 us two-pass against 2.9 us single-pass on an H200. Off a graph, the single pass's one launch saves more
//! host time than that (3.3 us against 4.6). Both paths give the same bits, so the choice changes only the time.
//! A stream whose status cannot be read counts as not captured; the launch then reports the stream's error.
inline bool is_capturing(cudaStream_t stream)
{
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  return cudaStreamIsCapturing(stream, &status) == cudaSuccess && status == cudaStreamCaptureStatusActive;
}

//! A process-wide sequence of call ids, which tell a call's own words from stale ones (the single-pass ticket,
//! ReduceByKey's slots, the segmented state's clear): 40 bits, never 0, started at a value that differs between
//! processes.
inline unsigned long long next_call_id()
{
  static std::atomic<unsigned long long> sequence{
      (reinterpret_cast<std::uintptr_t>(&sequence) ^
       static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count())) *
      0x9E3779B97F4A7C15ull};
  unsigned long long id = 0;
  while (id == 0)
  {
    id = sequence.fetch_add(1, std::memory_order_relaxed) & ((1ull << 40) - 1);
  }
  return id;
}

//! `ptr` rounded up to a multiple of `alignment` (a power of two).
inline void* align_up(void* ptr, std::size_t alignment)
{
  const auto address = reinterpret_cast<std::uintptr_t>(ptr);
  return reinterpret_cast<void*>((address + alignment - 1) & ~(static_cast<std::uintptr_t>(alignment) - 1));
}

} // namespace detail
FOLD_NAMESPACE_END
