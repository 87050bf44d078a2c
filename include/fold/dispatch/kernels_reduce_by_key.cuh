// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reduce-by-key kernels: in `ReduceByKeyKernel` block `b` reduces tile `b` (AgentReduceByKey), learning where
//! its runs go from the look-back over the head counts (RunCountState); blocks start in index order, and a tile
//! waits only for tiles before it, which are all running or done. Where there is more than one tile,
//! `ReduceByKeyFixUpKernel` then closes the runs that cross tile edges from the tiles' records, a block per chunk of
//! tiles (AgentRunFixUp, RunChunkState), in the same way: a chunk waits only for chunks before it.
#pragma once

#include <fold/agent/agent_reduce_by_key.cuh>
#include <fold/grid/run_tile_state.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/arch.cuh>
#include <fold/util/macros.cuh>
#include <fold/util/type_traits.cuh>

FOLD_NAMESPACE_BEGIN
FOLD_KERNELS_BEGIN
namespace detail
{

template <typename KeysInputIteratorT,
          typename UniqueOutputIteratorT,
          typename ValuesInputIteratorT,
          typename AggregatesOutputIteratorT,
          typename NumRunsOutputIteratorT,
          typename EqualityOpT,
          typename ReductionOpT,
          typename AccumT,
          typename OffsetT>
FOLD_KERNEL __launch_bounds__(reduce_by_key_shape<value_t<KeysInputIteratorT>, AccumT>().block_threads,
                              reduce_by_key_shape<value_t<KeysInputIteratorT>, AccumT>()
                                  .min_blocks) void ReduceByKeyKernel(KeysInputIteratorT keys_in,
                                                                      UniqueOutputIteratorT unique_out,
                                                                      ValuesInputIteratorT values_in,
                                                                      AggregatesOutputIteratorT aggregates_out,
                                                                      NumRunsOutputIteratorT num_runs_out,
                                                                      EqualityOpT equal,
                                                                      ReductionOpT op,
                                                                      OffsetT num_items,
                                                                      OffsetT num_tiles,
                                                                      RunCountState<OffsetT> counts,
                                                                      RunTileRecord<OffsetT, AccumT>* records)
{
  begin_dependent_kernel();
  constexpr ReduceByKeyShape shape = reduce_by_key_shape<value_t<KeysInputIteratorT>, AccumT>();
  using AgentT                     = AgentReduceByKey<shape.block_threads,
                                  shape.items_per_thread,
                                  KeysInputIteratorT,
                                  UniqueOutputIteratorT,
                                  ValuesInputIteratorT,
                                  AggregatesOutputIteratorT,
                                  NumRunsOutputIteratorT,
                                  EqualityOpT,
                                  ReductionOpT,
                                  AccumT,
                                  OffsetT>;
  if (num_items == 0)
  {
    if (threadIdx.x == 0)
    {
      *num_runs_out = static_cast<non_void_value_t<NumRunsOutputIteratorT, OffsetT>>(0);
    }
    return;
  }
  __shared__ typename AgentT::TempStorage storage;
  AgentT(storage, keys_in, unique_out, values_in, aggregates_out, num_runs_out, equal, op, num_items)
      .ConsumeTile(static_cast<OffsetT>(blockIdx.x), num_tiles, counts, records);
}

template <typename AggregatesOutputIteratorT, typename ReductionOpT, typename AccumT, typename OffsetT>
FOLD_KERNEL
__launch_bounds__(run_fix_up_threads) void ReduceByKeyFixUpKernel(const RunTileRecord<OffsetT, AccumT>* records,
                                                                  AggregatesOutputIteratorT aggregates_out,
                                                                  ReductionOpT op,
                                                                  OffsetT num_tiles,
                                                                  RunChunkState<OffsetT, AccumT> chunks)
{
  begin_dependent_kernel();
  using AgentT =
      AgentRunFixUp<run_fix_up_threads, run_fix_up_tiles, AggregatesOutputIteratorT, ReductionOpT, AccumT, OffsetT>;
  __shared__ typename AgentT::TempStorage storage;
  AgentT(storage, records, aggregates_out, op, num_tiles).ConsumeChunk(static_cast<OffsetT>(blockIdx.x), chunks);
}

} // namespace detail
FOLD_KERNELS_END
FOLD_NAMESPACE_END
