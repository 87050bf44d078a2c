// SPDX-License-Identifier: Apache-2.0
//! @file
//! BlockReduce by warp reductions: every warp shuffle-reduces its 32 values, lane 0 of each warp publishes the
//! warp's aggregate, and warp 0 reduces the aggregates. Warps and lanes are combined in thread order.
#pragma once

#include <fold/util/macros.cuh>
#include <fold/util/uninitialized.cuh>
#include <fold/warp/warp_reduce.cuh>

FOLD_NAMESPACE_BEGIN
namespace detail
{

template <typename T, int BlockThreads>
struct BlockReduceWarpReductions
{
  static constexpr int warps = BlockThreads / 32;
  using WarpReduceT          = WarpReduce<T, 32>;

  struct TempStorage
  {
    typename WarpReduceT::TempStorage warp[warps];
    Uninitialized<T, warps> aggregates;
  };

  TempStorage& storage;

  template <typename ReductionOpT>
  FOLD_DEVICE FOLD_FORCEINLINE T Reduce(T value, ReductionOpT op, int num_valid)
  {
    const int warp       = static_cast<int>(threadIdx.x) / 32;
    const int lane       = static_cast<int>(threadIdx.x) % 32;
    const int warp_valid = num_valid - warp * 32;
    if (warp_valid > 0) // uniform across the warp
    {
      value = WarpReduceT(storage.warp[warp]).Reduce(value, op, warp_valid < 32 ? warp_valid : 32);
    }
    if constexpr (warps == 1)
    {
      return value;
    }
    else
    {
      if (lane == 0 && warp_valid > 0)
      {
        construct_at(storage.aggregates.data() + warp, value);
      }
      __syncthreads();
      const int valid_warps = (num_valid + 31) / 32;
      if (warp == 0 && valid_warps > 1)
      {
        const T aggregate = storage.aggregates[lane < valid_warps ? lane : 0];
        value             = WarpReduceT(storage.warp[0]).Reduce(aggregate, op, valid_warps);
      }
      return value;
    }
  }
};

} // namespace detail
FOLD_NAMESPACE_END
