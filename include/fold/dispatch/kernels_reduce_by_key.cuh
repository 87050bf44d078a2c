// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reduce-by-key kernel: block `b` reduces tile `b` (AgentReduceByKey) and passes the runs that cross its
//! edges on through the look-back (RunTileState). Blocks start in index order, and a tile waits only for tiles
//! before it, which are all running or done.
#pragma once

#include <fold/agent/agent_reduce_by_key.cuh>
#include <fold/grid/run_tile_state.cuh>
#include <fold/util/arch.cuh>
#include <fold/util/macros.cuh>
#include <fold/util/type_traits.cuh>

FOLD_NAMESPACE_BEGIN
FOLD_KERNELS_BEGIN
namespace detail
{

//! The tile shape of reduce-by-key, the same on every architecture so that a `gpu_to_gpu` call's bits are the
//! same everywhere: about 384 bytes of keys and values per thread, at most 23 items (an odd count, so that
//! reading 4-byte items back from shared memory meets no bank conflicts); 256 threads while the tile fits in
//! 46 KiB of shared memory, else 128 and as many items as fit. Each tile pays one look-back, so long tiles win: on an
//! H200 at 2^26 items (int32 keys, float values), 23 items per thread against 15 took 207 against 220 us for runs of
//! 1024 items and 291 against 422 for a single run; 7 items per thread took 2-3x as long (docs/performance.md,
//! "ReduceByKey").
struct ReduceByKeyShape
{
  int block_threads;
  int items_per_thread;
};

template <typename KeyT, typename AccumT>
FOLD_HOST_DEVICE constexpr ReduceByKeyShape reduce_by_key_shape()
{
  constexpr int pair_bytes = static_cast<int>(sizeof(KeyT) + sizeof(AccumT));
  constexpr int tile_bytes = 46 * 1024;
  int items                = 384 / pair_bytes;
  items                    = items > 23 ? 23 : items;
  const int threads        = 256 * items * pair_bytes <= tile_bytes ? 256 : 128;
  items                    = threads * items * pair_bytes <= tile_bytes ? items : tile_bytes / (threads * pair_bytes);
  items                    = items < 1 ? 1 : items > 1 && items % 2 == 0 ? items - 1 : items;
  return {threads, items};
}

template <typename KeysInputIteratorT,
          typename UniqueOutputIteratorT,
          typename ValuesInputIteratorT,
          typename AggregatesOutputIteratorT,
          typename NumRunsOutputIteratorT,
          typename EqualityOpT,
          typename ReductionOpT,
          typename AccumT,
          typename OffsetT>
struct AgentReduceByKeyFor
{
  static constexpr ReduceByKeyShape shape = reduce_by_key_shape<value_t<KeysInputIteratorT>, AccumT>();
  using type                              = AgentReduceByKey<shape.block_threads,
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
};

template <typename KeysInputIteratorT,
          typename UniqueOutputIteratorT,
          typename ValuesInputIteratorT,
          typename AggregatesOutputIteratorT,
          typename NumRunsOutputIteratorT,
          typename EqualityOpT,
          typename ReductionOpT,
          typename AccumT,
          typename OffsetT>
FOLD_KERNEL __launch_bounds__(reduce_by_key_shape<value_t<KeysInputIteratorT>, AccumT>()
                                  .block_threads) void ReduceByKeyKernel(KeysInputIteratorT keys_in,
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
  using AgentT = typename AgentReduceByKeyFor<KeysInputIteratorT,
                                              UniqueOutputIteratorT,
                                              ValuesInputIteratorT,
                                              AggregatesOutputIteratorT,
                                              NumRunsOutputIteratorT,
                                              EqualityOpT,
                                              ReductionOpT,
                                              AccumT,
                                              OffsetT>::type;
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
