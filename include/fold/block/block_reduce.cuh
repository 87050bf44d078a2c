// SPDX-License-Identifier: Apache-2.0
//! @file
//! BlockReduce: the reduction of one value per thread across a thread block.
#pragma once

#include <fold/block/block_reduce_raking.cuh>
#include <fold/block/block_reduce_warp_reductions.cuh>
#include <fold/util/macros.cuh>

#include <type_traits>

FOLD_NAMESPACE_BEGIN

//! How BlockReduce combines the threads' values.
enum class BlockReduceAlgorithm
{
  warp_reductions,         //!< shuffle-reduce each warp, then reduce the warp aggregates; keeps order
  raking,                  //!< one warp rakes contiguous runs from shared memory, then shuffle-reduces; keeps order
  raking_commutative_only, //!< the first warp folds in the others' values strided, then shuffle-reduces;
                           //!< needs a commutative operator (partial blocks fall back to `raking`)
};

//! @tparam T the value type
//! @tparam BlockThreads threads in the (one-dimensional) block: a multiple of 32, at most 1024
//! @tparam Algorithm how the threads' values are combined (see `BlockReduceAlgorithm`); `warp_reductions` and
//!   `raking` keep thread order, `raking_commutative_only` needs a commutative operator
//!
//! Every thread of the block must call the same member function. The result is valid in thread 0. To reuse
//! one `TempStorage` for another reduction, separate the two with `__syncthreads()`.
template <typename T, int BlockThreads, BlockReduceAlgorithm Algorithm = BlockReduceAlgorithm::warp_reductions>
class BlockReduce
{
  static_assert(BlockThreads >= 32 && BlockThreads <= 1024 && BlockThreads % 32 == 0,
                "BlockReduce: BlockThreads must be a multiple of 32 between 32 and 1024");

  using Impl = std::conditional_t<Algorithm == BlockReduceAlgorithm::warp_reductions,
                                  detail::BlockReduceWarpReductions<T, BlockThreads>,
                                  std::conditional_t<Algorithm == BlockReduceAlgorithm::raking,
                                                     detail::BlockReduceRaking<T, BlockThreads>,
                                                     detail::BlockReduceRakingCommutativeOnly<T, BlockThreads>>>;

public:
  //! Shared memory the reduction needs; declare it `__shared__` (or alias it in a union with other storage).
  using TempStorage = typename Impl::TempStorage;

  FOLD_DEVICE FOLD_FORCEINLINE explicit BlockReduce(TempStorage& storage)
      : impl_{storage}
  {
  }

  //! The reduction of every thread's `value`. Valid in thread 0.
  template <typename ReductionOpT>
  FOLD_DEVICE FOLD_FORCEINLINE T Reduce(T value, ReductionOpT op)
  {
    return impl_.Reduce(value, op, BlockThreads);
  }

  //! The reduction of the values of threads `[0, num_valid)`, 1 <= num_valid <= BlockThreads; other threads'
  //! values are never read. Valid in thread 0.
  template <typename ReductionOpT>
  FOLD_DEVICE FOLD_FORCEINLINE T Reduce(T value, ReductionOpT op, int num_valid)
  {
    return impl_.Reduce(value, op, num_valid);
  }

private:
  Impl impl_;
};

FOLD_NAMESPACE_END
