// SPDX-License-Identifier: Apache-2.0
//! @file
//! AgentReduce: one thread block reduces a contiguous range of items, tile by tile. Full tiles are loaded whole
//! into registers before they are reduced (16-byte vectors when the input is an aligned raw pointer of a
//! primitive type, plain loads otherwise); the last tile of the range may be partial: it is loaded in whole
//! vectors as far as they go, then item by item, guarded. The item transform (`(item, global index) ->
//! accumulator`) is applied as the items are loaded. Each thread meets its items in increasing index order.
#pragma once

#include <fold/block/block_reduce.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/macros.cuh>
#include <fold/util/operators.cuh>
#include <fold/util/type_traits.cuh>

#include <cstdint>
#include <type_traits>

namespace fold
{

//! Whether items of `InputIteratorT` may be read with vector loads: raw pointers to primitive types.
template <typename InputIteratorT>
inline constexpr bool is_vectorizable_input_v =
    std::is_pointer_v<InputIteratorT>&& is_primitive_v<detail::value_t<InputIteratorT>>;

//! The tile shape the reduction kernels use on architecture `arch` for input read through `InputIteratorT` and
//! reduced in `AccumT`.
template <typename InputIteratorT, typename AccumT = detail::value_t<InputIteratorT>>
FOLD_HOST_DEVICE constexpr TileShape reduce_tile_shape(int arch)
{
  return make_tile_shape(select_reduce_policy(arch),
                         static_cast<int>(sizeof(detail::value_t<InputIteratorT>)),
                         is_vectorizable_input_v<InputIteratorT>,
                         static_cast<int>(sizeof(AccumT)));
}

//! @tparam BlockThreads, ItemsPerThread, VectorItems, Algorithm  the tile shape (see `TileShape`)
//! @tparam AccumT  the accumulator: default-constructible, copyable
//! @tparam TransformOpT  `(item, OffsetT index) -> AccumT`
template <int BlockThreads,
          int ItemsPerThread,
          int VectorItems,
          BlockReduceAlgorithm Algorithm,
          typename InputIteratorT,
          typename AccumT,
          typename OffsetT,
          typename ReductionOpT,
          typename TransformOpT>
class AgentReduce
{
  using InputT       = detail::value_t<InputIteratorT>;
  using BlockReduceT = BlockReduce<AccumT, BlockThreads, Algorithm>;

  static constexpr int tile_items = BlockThreads * ItemsPerThread;
  static constexpr int vectors    = ItemsPerThread / VectorItems;
  static_assert(ItemsPerThread % VectorItems == 0, "AgentReduce: ItemsPerThread must be a multiple of VectorItems");
  static_assert(VectorItems == 1 || is_vectorizable_input_v<InputIteratorT>,
                "AgentReduce: vector loads need a raw pointer to a primitive type");

  struct alignas(VectorItems > 1 ? sizeof(InputT) * VectorItems : alignof(InputT)) Vector
  {
    InputT items[VectorItems];
  };

public:
  using TempStorage = typename BlockReduceT::TempStorage;

  FOLD_DEVICE FOLD_FORCEINLINE
  AgentReduce(TempStorage& storage, InputIteratorT in, ReductionOpT op, TransformOpT transform)
      : storage_(storage)
      , in_(in)
      , op_(op)
      , thread_op_(detail::InOrder<ReductionOpT>::make(op))
      , transform_(transform)
  {
  }

  //! The reduction of items `[begin, end)` (`begin < end`), in a thread order that is the same on every run.
  //! Vector loads are used when `in + begin` is aligned to a vector. Valid in thread 0.
  FOLD_DEVICE FOLD_FORCEINLINE AccumT ConsumeRange(OffsetT begin, OffsetT end)
  {
    if constexpr (VectorItems > 1)
    {
      constexpr std::uintptr_t vector_bytes = sizeof(Vector);
      if (reinterpret_cast<std::uintptr_t>(in_ + begin) % vector_bytes == 0)
      {
        return ConsumeTiles<true>(begin, end);
      }
    }
    return ConsumeTiles<false>(begin, end);
  }

private:
  template <bool Vectorized>
  FOLD_DEVICE FOLD_FORCEINLINE AccumT ConsumeTiles(OffsetT begin, OffsetT end)
  {
    AccumT thread_aggregate{};
    if (end - begin < static_cast<OffsetT>(tile_items))
    {
      const int valid = ConsumePartialTile<true, Vectorized>(begin, static_cast<int>(end - begin), thread_aggregate);
      return BlockReduceT(storage_).Reduce(thread_aggregate, op_, valid);
    }
    ConsumeFullTile<true, Vectorized>(begin, thread_aggregate);
    OffsetT tile_base = begin + tile_items;
    while (end - tile_base >= static_cast<OffsetT>(tile_items))
    {
      ConsumeFullTile<false, Vectorized>(tile_base, thread_aggregate);
      tile_base += tile_items;
    }
    if (tile_base < end)
    {
      ConsumePartialTile<false, Vectorized>(tile_base, static_cast<int>(end - tile_base), thread_aggregate);
    }
    return BlockReduceT(storage_).Reduce(thread_aggregate, op_);
  }

  template <bool First>
  FOLD_DEVICE FOLD_FORCEINLINE void Accumulate(AccumT& aggregate, const InputT& item, OffsetT index, bool first)
  {
    if (First && first)
    {
      aggregate = transform_(item, index);
    }
    else
    {
      aggregate = thread_op_(aggregate, transform_(item, index));
    }
  }

  //! Thread `t` loads items (or vectors) `t, t + BlockThreads, ...` of the tile: coalesced across the warp.
  template <bool First, bool Vectorized>
  FOLD_DEVICE FOLD_FORCEINLINE void ConsumeFullTile(OffsetT tile_base, AccumT& aggregate)
  {
    const int tid = static_cast<int>(threadIdx.x);
    if constexpr (Vectorized)
    {
      Vector loaded[vectors];
      const Vector* tile = reinterpret_cast<const Vector*>(in_ + tile_base);
#pragma unroll
      for (int v = 0; v < vectors; ++v)
      {
        loaded[v] = tile[v * BlockThreads + tid];
      }
#pragma unroll
      for (int v = 0; v < vectors; ++v)
      {
#pragma unroll
        for (int j = 0; j < VectorItems; ++j)
        {
          const OffsetT index = tile_base + static_cast<OffsetT>((v * BlockThreads + tid) * VectorItems + j);
          Accumulate<First>(aggregate, loaded[v].items[j], index, v == 0 && j == 0);
        }
      }
    }
    else
    {
      InputT loaded[ItemsPerThread];
#pragma unroll
      for (int i = 0; i < ItemsPerThread; ++i)
      {
        loaded[i] = in_[tile_base + static_cast<OffsetT>(i * BlockThreads + tid)];
      }
#pragma unroll
      for (int i = 0; i < ItemsPerThread; ++i)
      {
        Accumulate<First>(aggregate, loaded[i], tile_base + static_cast<OffsetT>(i * BlockThreads + tid), i == 0);
      }
    }
  }

  //! Items `[tile_base, tile_base + valid)`, `valid < tile_items`: whole vectors first (thread `t` takes vectors
  //! `t, t + BlockThreads, ...`), then the items after the last whole vector. With `First`, `aggregate` starts
  //! from each thread's first item; returns how many threads (a prefix of the block) took any item.
  template <bool First, bool Vectorized>
  FOLD_DEVICE FOLD_FORCEINLINE int ConsumePartialTile(OffsetT tile_base, int valid, AccumT& aggregate)
  {
    const int tid    = static_cast<int>(threadIdx.x);
    bool first       = First;
    int vector_count = 0;
    if constexpr (Vectorized)
    {
      vector_count       = valid / VectorItems;
      const Vector* tile = reinterpret_cast<const Vector*>(in_ + tile_base);
      for (int v = tid; v < vector_count; v += BlockThreads)
      {
        const Vector loaded = tile[v];
#pragma unroll
        for (int j = 0; j < VectorItems; ++j)
        {
          Accumulate<First>(aggregate, loaded.items[j], tile_base + static_cast<OffsetT>(v * VectorItems + j), first);
          first = false;
        }
      }
    }
    const int rest_begin = vector_count * VectorItems;
    for (int i = rest_begin + tid; i < valid; i += BlockThreads)
    {
      const OffsetT index = tile_base + static_cast<OffsetT>(i);
      Accumulate<First>(aggregate, in_[index], index, first);
      first = false;
    }
    const int rest = valid - rest_begin;
    const int busy = vector_count > rest ? vector_count : rest;
    return busy < BlockThreads ? busy : BlockThreads;
  }

  TempStorage& storage_;
  InputIteratorT in_;
  ReductionOpT op_;
  typename detail::InOrder<ReductionOpT>::type thread_op_; //!< folds a thread's own items, met in index order
  TransformOpT transform_;
};

} // namespace fold
