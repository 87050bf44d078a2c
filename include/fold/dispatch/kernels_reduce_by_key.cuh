// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reduce-by-key kernel: block `b` reduces tile `b` (AgentReduceByKey) and passes the runs that cross its
//! edges on through the look-back (RunTileState). Blocks start in index order, and a tile waits only for tiles
//! before it, which are all running or done.
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
                                                                      RunTileState<OffsetT, AccumT> state)
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
      .ConsumeTile(static_cast<OffsetT>(blockIdx.x), num_tiles, state);
}

} // namespace detail
FOLD_KERNELS_END
FOLD_NAMESPACE_END
