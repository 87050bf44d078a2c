// SPDX-License-Identifier: Apache-2.0
//! @file
//! GridClear: words a grid counts on (atomics, tickets a tile at a time), cleared under a call's id without a launch
//! of their own. Block 0 of the kernel clears them as it starts and then publishes the call's id; every block waits
//! for that id before its first atomic on them, which it mostly reaches long after. Under graph capture every replay
//! carries the same arguments, so there `call` is 0 and a kernel launched before (`GridClearKernel`,
//! dispatch/kernels_segmented_reduce.cuh) clears them instead. Used by `SegmentedWarpKernel` (the state it shares with
//! `SegmentedBlockKernel`) and by `ColumnTreeKernel`'s tail (`ColumnTail`).
#pragma once

#include <fold/util/macros.cuh>

#include <cuda/atomic>

FOLD_NAMESPACE_BEGIN
namespace detail
{

struct GridClear
{
  unsigned* words;
  int count;
  unsigned long long* ready;
  unsigned long long call; //!< a `next_call_id`, or 0: cleared before the kernel

  //! Block 0 clears the words and then publishes `call` at `ready`. Every thread of the grid calls it as it starts.
  FOLD_DEVICE FOLD_FORCEINLINE void clear_from_block0() const
  {
    if (call == 0 || blockIdx.x != 0)
    {
      return;
    }
    for (int i = static_cast<int>(threadIdx.x); i < count; i += static_cast<int>(blockDim.x))
    {
      words[i] = 0u;
    }
    __syncthreads();
    if (threadIdx.x == 0)
    {
      __threadfence(); // the block's clearing stores, before the call that vouches for them
      ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>(*ready).store(call,
                                                                                        ::cuda::memory_order_release);
    }
  }

  //! Whether the words are this call's to count on (an acquire); spin on it before the first atomic on them.
  FOLD_DEVICE FOLD_FORCEINLINE bool cleared() const
  {
    return call == 0 || ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>(*ready).load(
                            ::cuda::memory_order_acquire) == call;
  }
};

} // namespace detail
FOLD_NAMESPACE_END
