// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reduce-by-key dispatch: validates the arguments, lays out the tiles' count slots, their records and the
//! chunks' slots, and launches the tile kernel (one block per tile) and, beyond one tile, the fix-up (one block per
//! chunk of tiles) on the caller's stream. It never synchronises, allocates, prints or throws.
#pragma once

#include <fold/util/macros.cuh>

#include <fold/detail/one_call.cuh>
#include <fold/detail/output.cuh>
#include <fold/dispatch/dispatch_reduce.cuh>
#include <fold/dispatch/kernels_reduce_by_key.cuh>
#include <fold/dispatch/launch.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/type_traits.cuh>

#include <cuda/std/functional>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <type_traits>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! Enables the overloads that take an equality operator only for one (so that a stream in its place never
//! matches them).
template <typename EqualityOpT, typename KeysInputIteratorT>
using equality_op_t = std::enable_if_t<
    std::is_invocable_v<EqualityOpT, const value_t<KeysInputIteratorT>&, const value_t<KeysInputIteratorT>&>>;

//! Where each part of the temporary storage starts, from an aligned base, for `num_tiles` tiles: their count
//! slots, their records, then one slot per chunk of the fix-up. `bytes`: all of it, with room to align the base;
//! never 0, and it grows with the number of items.
struct ReduceByKeyLayout
{
  std::size_t num_chunks; //!< the fix-up's chunks of tiles, a block each
  std::size_t align;
  std::size_t records;
  std::size_t chunks;
  std::size_t end; //!< one past the chunks' slots
  std::size_t bytes;

  template <typename CountSlotT, typename RecordT, typename ChunkSlotT>
  static constexpr ReduceByKeyLayout make(std::size_t num_tiles)
  {
    auto round                        = [](std::size_t x, std::size_t a) { return (x + a - 1) / a * a; };
    constexpr std::size_t chunk_tiles = static_cast<std::size_t>(run_fix_up_threads) * run_fix_up_tiles;
    ReduceByKeyLayout l{};
    l.align      = std::max({alignof(CountSlotT), alignof(RecordT), alignof(ChunkSlotT)});
    l.records    = round(num_tiles * sizeof(CountSlotT), alignof(RecordT));
    l.chunks     = round(l.records + num_tiles * sizeof(RecordT), alignof(ChunkSlotT));
    l.num_chunks = (num_tiles + chunk_tiles - 1) / chunk_tiles;
    l.end        = l.chunks + l.num_chunks * sizeof(ChunkSlotT);
    l.bytes      = l.align - 1 + (l.end > 0 ? l.end : 1);
    return l;
  }
};

template <typename TuningT,
          typename AccumT,
          typename KeysInputIteratorT,
          typename UniqueOutputIteratorT,
          typename ValuesInputIteratorT,
          typename AggregatesOutputIteratorT,
          typename NumRunsOutputIteratorT,
          typename EqualityOpT,
          typename ReductionOpT,
          typename NumItemsT>
cudaError_t reduce_by_key(void* d_temp_storage,
                          std::size_t& temp_storage_bytes,
                          KeysInputIteratorT keys_in,
                          UniqueOutputIteratorT unique_out,
                          ValuesInputIteratorT values_in,
                          AggregatesOutputIteratorT aggregates_out,
                          NumRunsOutputIteratorT num_runs_out,
                          EqualityOpT equal,
                          ReductionOpT op,
                          NumItemsT num_items,
                          cudaStream_t stream)
{
  static_assert(std::is_integral_v<NumItemsT> && !std::is_same_v<NumItemsT, bool> && sizeof(NumItemsT) <= 8,
                "fold::DeviceReduce::ReduceByKey: num_items must be of an integer type of at most 64 bits");
  using KeyT = value_t<KeysInputIteratorT>;
  static_assert(std::is_invocable_r_v<bool, EqualityOpT, const KeyT&, const KeyT&>,
                "fold::DeviceReduce::ReduceByKey: equality_op must be callable as equality_op(key, key) -> bool");
  static_assert(std::is_trivially_copyable_v<AccumT> && std::is_default_constructible_v<AccumT>,
                "fold::DeviceReduce::ReduceByKey: the accumulator type must be trivially copyable and "
                "default-constructible (it crosses tiles through the look-back)");
  static_assert(std::is_trivially_copyable_v<KeyT>,
                "fold::DeviceReduce::ReduceByKey: the key type must be trivially copyable");
  using OffsetT                    = offset_t<NumItemsT>;
  using CountsT                    = RunCountState<OffsetT>;
  using ChunksT                    = RunChunkState<OffsetT, AccumT>;
  using RecordT                    = RunTileRecord<OffsetT, AccumT>;
  constexpr ReduceByKeyShape shape = reduce_by_key_shape<KeyT, AccumT>();
  static_assert(static_cast<std::size_t>(shape.block_threads) * shape.items_per_thread *
                        (sizeof(KeyT) + sizeof(AccumT)) <=
                    46 * 1024,
                "fold::DeviceReduce::ReduceByKey: a key and an accumulator of more than 368 bytes together are not "
                "supported (a tile would not fit in shared memory)");
  static constexpr auto kernel = ReduceByKeyKernel<KeysInputIteratorT,
                                                   UniqueOutputIteratorT,
                                                   ValuesInputIteratorT,
                                                   AggregatesOutputIteratorT,
                                                   NumRunsOutputIteratorT,
                                                   EqualityOpT,
                                                   ReductionOpT,
                                                   AccumT,
                                                   OffsetT>;
  static constexpr auto fix_up = ReduceByKeyFixUpKernel<AggregatesOutputIteratorT, ReductionOpT, AccumT, OffsetT>;

  if (!valid_num_items(num_items))
  {
    return cudaErrorInvalidValue;
  }
  const auto items        = static_cast<OffsetT>(num_items);
  const OffsetT tile      = static_cast<OffsetT>(shape.block_threads * shape.items_per_thread);
  const OffsetT num_tiles = items / tile + (items % tile != 0);
  if (num_tiles > static_cast<OffsetT>(INT32_MAX)) // one block per tile
  {
    return cudaErrorInvalidValue;
  }
  const ReduceByKeyLayout layout = ReduceByKeyLayout::make<typename CountsT::SlotT, RecordT, typename ChunksT::SlotT>(
      static_cast<std::size_t>(num_tiles));
  if (d_temp_storage == nullptr)
  {
    temp_storage_bytes = layout.bytes;
    return cudaSuccess;
  }
  if (is_null(num_runs_out) ||
      (items > 0 && (is_null(keys_in) || is_null(values_in) || is_null(unique_out) || is_null(aggregates_out))))
  {
    return cudaErrorInvalidValue;
  }
  if (d_temp_storage == arguments_only())
  {
    return cudaSuccess; // a one-call form's check of the pointers, before it allocates
  }
  if (temp_storage_bytes < layout.bytes)
  {
    return cudaErrorInvalidValue;
  }
  DeviceFacts facts;
  if (const cudaError_t error = device_facts(facts); error != cudaSuccess)
  {
    return error;
  }
  char* base          = static_cast<char*>(align_up(d_temp_storage, layout.align));
  const bool captured = num_tiles > 1 && is_capturing(stream);
  if (captured)
  {
    // Every replay of a graph carries the same tag: its slots are cleared first, in the graph.
    if (const cudaError_t error = cudaMemsetAsync(base, 0, layout.end, stream); error != cudaSuccess)
    {
      return error;
    }
  }
  const unsigned int call     = run_call_tag(captured ? 0 : next_call_id(), captured);
  auto* records               = reinterpret_cast<RecordT*>(base + layout.records);
  const DispatchHooks forced  = hooks_of<TuningT>();
  const bool overlap          = may_overlap(facts.arch, forced);
  const auto wave             = static_cast<OffsetT>(facts.sms) * static_cast<OffsetT>(shape.min_blocks);
  const unsigned int pause_ns = num_tiles > run_look_back_pause_waves * wave ? run_look_back_pause_ns : 0u;
  const int dense_factor      = num_tiles > run_dense_pause_waves * wave ? 1 : run_short_call_dense_factor;
  if (const cudaError_t error = launch(kernel,
                                       static_cast<int>(num_tiles > 0 ? num_tiles : 1),
                                       shape.block_threads,
                                       stream,
                                       overlap,
                                       keys_in,
                                       unique_out,
                                       values_in,
                                       aggregates_out,
                                       num_runs_out,
                                       equal,
                                       op,
                                       items,
                                       num_tiles,
                                       CountsT(reinterpret_cast<typename CountsT::SlotT*>(base),
                                               call,
                                               pause_ns,
                                               static_cast<OffsetT>(dense_factor * shape.dense_heads)),
                                       records);
      error != cudaSuccess || num_tiles <= 1)
  {
    return error;
  }
  return launch(fix_up,
                static_cast<int>(layout.num_chunks),
                run_fix_up_threads,
                stream,
                overlap,
                static_cast<const RecordT*>(records),
                aggregates_out,
                op,
                num_tiles,
                ChunksT(reinterpret_cast<typename ChunksT::SlotT*>(base + layout.chunks), call));
}

} // namespace detail
FOLD_NAMESPACE_END
