// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reduce-by-key dispatch: validates the arguments, sizes the tiles' look-back slots and launches one kernel
//! (one block per tile) on the caller's stream. It never synchronises, allocates, prints or throws.
#pragma once

#include <fold/util/macros.cuh>

#include <fold/detail/output.cuh>
#include <fold/dispatch/dispatch_reduce.cuh>
#include <fold/dispatch/kernels_reduce_by_key.cuh>
#include <fold/dispatch/launch.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/type_traits.cuh>

#include <cuda/std/functional>
#include <cuda_runtime_api.h>

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

//! The temporary storage of `num_tiles` tiles: their look-back slots and their groups' (`run_tile_slots`), after
//! room to align the base. Never 0, and it grows with the number of items.
template <typename SlotT>
constexpr std::size_t reduce_by_key_storage_bytes(std::size_t num_tiles)
{
  return alignof(SlotT) - 1 + static_cast<std::size_t>(run_tile_slots(num_tiles > 1 ? num_tiles : 1)) * sizeof(SlotT);
}

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
  using SlotT                      = RunTileSlot<OffsetT, AccumT>;
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
  const std::size_t storage = reduce_by_key_storage_bytes<SlotT>(static_cast<std::size_t>(num_tiles));
  if (d_temp_storage == nullptr)
  {
    temp_storage_bytes = storage;
    return cudaSuccess;
  }
  if (temp_storage_bytes < storage || is_null(num_runs_out) ||
      (items > 0 && (is_null(keys_in) || is_null(values_in) || is_null(unique_out) || is_null(aggregates_out))))
  {
    return cudaErrorInvalidValue;
  }
  DeviceFacts facts;
  if (const cudaError_t error = device_facts(facts); error != cudaSuccess)
  {
    return error;
  }
  auto* slots         = static_cast<SlotT*>(align_up(d_temp_storage, alignof(SlotT)));
  const bool captured = num_tiles > 1 && is_capturing(stream);
  if (captured)
  {
    // Every replay of a graph carries the same tag: its slots are cleared first, in the graph.
    if (const cudaError_t error =
            cudaMemsetAsync(slots, 0, static_cast<std::size_t>(run_tile_slots(num_tiles)) * sizeof(SlotT), stream);
        error != cudaSuccess)
    {
      return error;
    }
  }
  const DispatchHooks forced = hooks_of<TuningT>();
  return launch(kernel,
                static_cast<int>(num_tiles > 0 ? num_tiles : 1),
                shape.block_threads,
                stream,
                may_overlap(facts.arch, forced),
                keys_in,
                unique_out,
                values_in,
                aggregates_out,
                num_runs_out,
                equal,
                op,
                items,
                num_tiles,
                RunTileState<OffsetT, AccumT>(slots, num_tiles, captured ? 0 : next_call_id(), captured));
}

} // namespace detail
FOLD_NAMESPACE_END
