// SPDX-License-Identifier: Apache-2.0
//! @file
//! AgentReduce: one thread block reduces a contiguous range of items, tile by tile. Full tiles are loaded whole
//! into registers before they are reduced (16-byte vectors when the input is an aligned raw pointer of a
//! primitive type, plain loads otherwise); the last tile of the range may be partial and is guarded. The item
//! transform (`(item, global index) -> accumulator`) is applied as the items are loaded.
#pragma once

#include <fold/block/block_reduce.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/macros.cuh>
#include <fold/util/type_traits.cuh>

#include <cstdint>
#include <type_traits>

namespace fold
{

//! Whether items of `InputIteratorT` may be read with vector loads: raw pointers to primitive types.
template <typename InputIteratorT>
inline constexpr bool is_vectorizable_input_v =
  std::is_pointer_v<InputIteratorT> && is_primitive_v<detail::value_t<InputIteratorT>>;

//! The tile shape the reduction kernels use on architecture `arch` for input read through `InputIteratorT`.
template <typename InputIteratorT>
FOLD_HOST_DEVICE constexpr TileShape reduce_tile_shape(int arch)
{
  return make_tile_shape(select_reduce_policy(arch),
                         static_cast<int>(sizeof(detail::value_t<InputIteratorT>)),
                         is_vectorizable_input_v<InputIteratorT>);
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
      , transform_(transform)
  {}

  //! The reduction of items `[begin, end)` (`begin < end`, `begin` on a tile boundary), in a thread order that
  //! is the same on every run. Valid in thread 0.
  FOLD_DEVICE FOLD_FORCEINLINE AccumT ConsumeRange(OffsetT begin, OffsetT end)
  {
    if (end - begin < static_cast<OffsetT>(tile_items))
    {
      const int valid = static_cast<int>(end - begin);
      AccumT thread_aggregate{};
      ConsumePartialTile<true>(begin, valid, thread_aggregate);
      return BlockReduceT(storage_).Reduce(thread_aggregate, op_, valid < BlockThreads ? valid : BlockThreads);
    }
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
    ConsumeFullTile<true, Vectorized>(begin, thread_aggregate);
    OffsetT tile_base = begin + tile_items;
    while (end - tile_base >= static_cast<OffsetT>(tile_items))
    {
      ConsumeFullTile<false, Vectorized>(tile_base, thread_aggregate);
      tile_base += tile_items;
    }
    if (tile_base < end)
    {
      ConsumePartialTile<false>(tile_base, static_cast<int>(end - tile_base), thread_aggregate);
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
      aggregate = op_(aggregate, transform_(item, index));
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

  //! Items `[tile_base, tile_base + valid)`, `valid < tile_items`; thread `t` takes `t, t + BlockThreads, ...`.
  //! With `First`, threads `>= valid` take nothing and leave `aggregate` unset.
  template <bool First>
  FOLD_DEVICE FOLD_FORCEINLINE void ConsumePartialTile(OffsetT tile_base, int valid, AccumT& aggregate)
  {
    const int tid = static_cast<int>(threadIdx.x);
    for (int i = tid; i < valid; i += BlockThreads)
    {
      const OffsetT index = tile_base + static_cast<OffsetT>(i);
      Accumulate<First>(aggregate, in_[index], index, i == tid);
    }
  }

  TempStorage& storage_;
  InputIteratorT in_;
  ReductionOpT op_;
  TransformOpT transform_;
};

} // namespace fold
