// SPDX-License-Identifier: Apache-2.0
//! @file
//! BlockScan: the exclusive scan of one value per thread across a block, in thread order, for any associative
//! operator without an identity (thread 0's exclusive value is left undefined, as there is nothing before it).
#pragma once

#include <fold/util/macros.cuh>
#include <fold/util/uninitialized.cuh>
#include <fold/warp/warp_scan.cuh>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! @tparam T a trivially copyable value type
//! @tparam BlockThreads the block's threads, a multiple of 32
template <typename T, int BlockThreads>
struct BlockScan
{
  static_assert(BlockThreads % 32 == 0, "BlockScan: BlockThreads must be a multiple of 32");
  static constexpr int warps = BlockThreads / 32;

  struct TempStorage
  {
    Uninitialized<T, warps> warp_aggregates;
  };

  //! Thread `t` gets `x0 op ... op x(t-1)` in `exclusive` (undefined in thread 0) and every thread the block's
  //! `x0 op ... op x(BlockThreads-1)` in `aggregate`. The grouping: a warp scan (see `warp_inclusive_scan`),
  //! then the warps' aggregates combined from warp 0 up. Every thread must call it; it synchronises the block
  //! once, and `storage` may be reused after the next `__syncthreads()`.
  template <typename ScanOpT>
  static FOLD_DEVICE FOLD_FORCEINLINE void
  ExclusiveScan(TempStorage& storage, const T& value, T& exclusive, T& aggregate, ScanOpT op)
  {
    const int lane      = static_cast<int>(threadIdx.x) % 32;
    const int warp      = static_cast<int>(threadIdx.x) / 32;
    const T inclusive   = warp_inclusive_scan(value, op);
    const T warp_before = shuffle_up(inclusive, 1);
    if (lane == 31)
    {
      construct_at(storage.warp_aggregates.data() + warp, inclusive);
    }
    __syncthreads();
    T warp_prefix = storage.warp_aggregates[0];
    aggregate     = warp_prefix;
#pragma unroll
    for (int w = 1; w < warps; ++w)
    {
      if (w == warp)
      {
        warp_prefix = aggregate;
      }
      aggregate = op(aggregate, storage.warp_aggregates[w]);
    }
    exclusive = warp == 0 ? warp_before : lane == 0 ? warp_prefix : op(warp_prefix, warp_before);
  }
};

} // namespace detail
FOLD_NAMESPACE_END
