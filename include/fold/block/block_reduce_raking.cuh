// SPDX-License-Identifier: Apache-2.0
//! @file
//! BlockReduce by raking. Every thread stores its value to shared memory; each lane of warp 0 then reduces a
//! contiguous run of `BlockThreads / 32` values sequentially (rows padded by one slot against bank conflicts),
//! and warp 0 shuffle-reduces the runs. Order is kept, so any associative operator works.
//!
//! The commutative-only variant keeps warp 0's own values in registers: only the other warps store, and lane
//! `l` folds in the values of threads `l + 32, l + 64, ...` (conflict-free, coalesced). It reorders operands,
//! so it needs a commutative operator; partially full blocks take the order-keeping path.
#pragma once

#include <fold/util/macros.cuh>
#include <fold/util/uninitialized.cuh>
#include <fold/warp/warp_reduce.cuh>

FOLD_NAMESPACE_BEGIN
namespace detail
{

template <typename T, int BlockThreads>
struct BlockReduceRaking
{
  static constexpr int segment = BlockThreads / 32;             //!< values each raking lane reduces
  static constexpr int row     = segment > 1 ? segment + 1 : 1; //!< padded run length in shared memory
  using WarpReduceT            = WarpReduce<T, 32>;

  struct TempStorage
  {
    Uninitialized<T, 32 * row> runs;
    typename WarpReduceT::TempStorage warp;
  };

  TempStorage& storage;

  template <typename ReductionOpT>
  FOLD_DEVICE FOLD_FORCEINLINE T Reduce(T value, ReductionOpT op, int num_valid)
  {
    if constexpr (segment == 1)
    {
      return WarpReduceT(storage.warp).Reduce(value, op, num_valid);
    }
    else
    {
      const int tid = static_cast<int>(threadIdx.x);
      if (tid < num_valid)
      {
        construct_at(storage.runs.data() + (tid / segment) * row + tid % segment, value);
      }
      __syncthreads();
      if (tid < 32)
      {
        const int first = tid * segment;
        if (first < num_valid)
        {
          const T* run = storage.runs.data() + tid * row;
          value        = run[0];
#pragma unroll
          for (int j = 1; j < segment; ++j)
          {
            if (first + j < num_valid)
            {
              value = op(value, run[j]);
            }
          }
        }
        value = WarpReduceT(storage.warp).Reduce(value, op, (num_valid + segment - 1) / segment);
      }
      return value;
    }
  }
};

template <typename T, int BlockThreads>
struct BlockReduceRakingCommutativeOnly
{
  static constexpr int warps = BlockThreads / 32;
  using WarpReduceT          = WarpReduce<T, 32>;
  using FallbackT            = BlockReduceRaking<T, BlockThreads>;

  struct TempStorage
  {
    union
    {
      Uninitialized<T, (warps > 1 ? BlockThreads - 32 : 1)> others;
      typename FallbackT::TempStorage fallback;
    };
    typename WarpReduceT::TempStorage warp;
  };

  TempStorage& storage;

  template <typename ReductionOpT>
  FOLD_DEVICE FOLD_FORCEINLINE T Reduce(T value, ReductionOpT op, int num_valid)
  {
    if constexpr (warps == 1)
    {
      return WarpReduceT(storage.warp).Reduce(value, op, num_valid);
    }
    else
    {
      if (num_valid < BlockThreads) // uniform
      {
        return FallbackT{storage.fallback}.Reduce(value, op, num_valid);
      }
      const int tid = static_cast<int>(threadIdx.x);
      if (tid >= 32)
      {
        construct_at(storage.others.data() + (tid - 32), value);
      }
      __syncthreads();
      if (tid < 32)
      {
#pragma unroll
        for (int w = 0; w < warps - 1; ++w)
        {
          value = op(value, storage.others[w * 32 + tid]);
        }
        value = WarpReduceT(storage.warp).Reduce(value, op);
      }
      return value;
    }
  }
};

} // namespace detail
FOLD_NAMESPACE_END
