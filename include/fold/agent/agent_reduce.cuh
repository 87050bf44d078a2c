// SPDX-License-Identifier: Apache-2.0
//! @file
//! AgentReduce: one thread block reduces a contiguous range of items, tile by tile, along a tree that depends
//! only on the tile shape and the length of the range.
//!
//! A tile is cut into slots of `VectorItems` consecutive items. Which thread takes which slot depends on the
//! operator:
//! - commutative (`is_commutative`): thread `t` takes slots `t, t + BlockThreads, ...` (coalesced), folds them
//!   across all the tiles of the range, and the block reduces once at the end;
//! - otherwise (order-preserving): thread `t` takes slots `t * V, ..., t * V + V - 1` with `V` slots per
//!   thread: one contiguous run of `ItemsPerThread` items. A block splits its range into one contiguous share
//!   per warp (whole warp tiles), and each warp is an agent of its own: each of its tiles is warp-reduced in lane
//!   order and lane 0 folds them in tile order, with no block barrier between tiles; thread 0 then folds the
//!   warps' results in warp order. The result is `x[begin] op ... op x[end - 1]`. With `OrderedRows`
//!   (DeviceReduce's kernels), a warp's full tiles are read in rows instead: row `r` is the warp tile's slots
//!   `32 r` to `32 r + 31`, lane `t` takes slot `32 r + t` of each row and folds each slot on its own, and the rows
//!   are reduced in lane order and folded in row order (`detail::reduce_rows_in_order`). Each load of a row is
//!   coalesced, where a lane's run of 16 items put the lanes of one load 64 bytes apart: a tile then cost its
//!   multiprocessor's L1 four times the requests, which is what calls of a few tiles wait on. Partial tiles keep
//!   the runs.
//!
//! A slot is one 16-byte vector load when the input is a raw pointer of a primitive type and `in + begin` is
//! aligned, and `VectorItems` single loads otherwise: the same items go to the same threads either way, so the
//! result does not depend on the input's alignment. Full tiles are loaded whole into registers before they are
//! folded; the last tile of the range may be partial (whole slots, then the items after the last whole slot,
//! guarded). The item transform (`(item, global index) -> accumulator`) is applied as the items are loaded.
//! Each thread meets its items in increasing index order. Where `detail::TileFold` applies (ArgMin/ArgMax over
//! 1-, 2- and 4-byte items, vector loads, commutative path), a full tile's items are folded at once, winner first
//! (see detail/tile_fold.cuh); over 1- and 2-byte items a block's range of several tiles leaves the winner's index
//! for its end (`ConsumeTilesDeferred`). The result is the same.
//!
//! The "block" may also be one warp (`AgentScope::warp`, 32 threads): each warp of a block is then an agent of
//! its own, reducing its own range with WarpReduce (the segmented reductions give small segments a warp each).
#pragma once

#include <fold/block/block_reduce.cuh>
#include <fold/warp/warp_reduce.cuh>
#include <fold/util/macros.cuh>
#include <fold/detail/reduction.cuh>
#include <fold/detail/tile_fold.cuh>
#include <fold/util/operators.cuh>
#include <fold/util/type_traits.cuh>
#include <fold/util/uninitialized.cuh>

#include <cuda/std/bit>

#include <cstdint>
#include <type_traits>

FOLD_NAMESPACE_BEGIN

namespace detail
{
//! Whether a thread may fold the items of a vector four at a time with `__dp4a` (the sum of the four bytes of a
//! 32-bit word, plus an accumulator): `Sum` of 1-byte integers, cast as they are to a 32-bit integer accumulator.
//! Integer sums are exact, so the grouping does not change the result; it takes one instruction per four
//! items where extracting and adding each byte takes two per item.
template <typename ReductionOpT, typename InputT, typename AccumT, typename TransformOpT>
inline constexpr bool sums_bytes_v =
    std::is_same_v<ReductionOpT, Sum>&& std::is_integral_v<InputT> && !std::is_same_v<InputT, bool> &&
    sizeof(InputT) == 1 && std::is_integral_v<AccumT> && sizeof(AccumT) == 4 &&
    std::is_same_v<TransformOpT, CastTo<AccumT>>;

} // namespace detail

//! Who runs one AgentReduce: a whole thread block, or one warp of it.
enum class AgentScope
{
  block,
  warp,
};

//! @tparam BlockThreads, ItemsPerThread, VectorItems, Algorithm  the tile shape (see `TileShape`); with
//!   `AgentScope::warp`, `BlockThreads` is 32 and `Algorithm` is not used
//! @tparam AccumT  the accumulator: default-constructible, copyable
//! @tparam TransformOpT  `(item, OffsetT index) -> AccumT`
//! @tparam OrderedRows  whether an order-preserving warp agent (a block's warps included) reads its full tiles in
//!   rows (see above); the segmented kernels' agents keep each lane's run
template <int BlockThreads,
          int ItemsPerThread,
          int VectorItems,
          BlockReduceAlgorithm Algorithm,
          typename InputIteratorT,
          typename AccumT,
          typename OffsetT,
          typename ReductionOpT,
          typename TransformOpT,
          AgentScope Scope = AgentScope::block,
          bool OrderedRows = false>
class AgentReduce
{
  using InputT = detail::value_t<InputIteratorT>;

  //! Whether the items must be combined in index order: any operator not declared commutative.
  static constexpr bool ordered = !is_commutative_v<ReductionOpT>;
  static constexpr BlockReduceAlgorithm algorithm =
      ordered && Algorithm == BlockReduceAlgorithm::raking_commutative_only ? BlockReduceAlgorithm::raking : Algorithm;
  static constexpr bool warp_scope = Scope == AgentScope::warp;
  static_assert(!warp_scope || BlockThreads == 32, "AgentReduce: a warp-scope agent has 32 threads");
  using BlockReduceT =
      std::conditional_t<warp_scope, WarpReduce<AccumT, 32>, BlockReduce<AccumT, BlockThreads, algorithm>>;

  static constexpr int tile_items = BlockThreads * ItemsPerThread;
  static constexpr int vectors    = ItemsPerThread / VectorItems; //!< slots per thread per tile
  static_assert(ItemsPerThread % VectorItems == 0, "AgentReduce: ItemsPerThread must be a multiple of VectorItems");
  static_assert(VectorItems == 1 || detail::is_vectorizable_input_v<InputIteratorT>,
                "AgentReduce: vector loads need a raw pointer to a primitive type");
  //! Whether a vector's items are summed a 32-bit word at a time (see `sums_bytes_v`).
  static constexpr bool sums_words =
      detail::sums_bytes_v<ReductionOpT, InputT, AccumT, TransformOpT> && VectorItems % 4 == 0;

  //! Whether a thread folds each full tile's items at once (`detail::TileFold`; commutative path, vector loads).
  using TileFoldT                   = detail::TileFold<ReductionOpT, TransformOpT, InputT>;
  static constexpr bool folds_tiles = !ordered && TileFoldT::applies && (sizeof(InputT) * VectorItems) % 4 == 0;
  // The tile shape left out the cap on per-item accumulators where whole tiles are folded (`uncaps_tile`).
  static_assert(!(detail::folds_whole_tiles_v<ReductionOpT, InputT> && VectorItems > 1 &&
                  (sizeof(InputT) * VectorItems) % 4 == 0) ||
                    TileFoldT::applies,
                "AgentReduce: a reduction whose tile is not capped must fold whole tiles (detail::TileFold)");

  //! Whether a block agent's full tiles, on vector loads, leave their winner's index for the end of its range
  //! (`detail::TileFold::defers_index`: ArgMin, ArgMax and ArgMinMax over 1- and 2-byte items; see
  //! `ConsumeTilesDeferred`), where the range has `TileFold::min_deferred_tiles` full tiles or more.
  static constexpr bool defers = folds_tiles && TileFoldT::defers_index && !warp_scope;
  //! Whether a block agent folds a partial tile at once too (`TileFold::idempotent`: Min and Max over 1- and 2-byte
  //! items), on vector loads: its slots past the last whole one are clamped to that slot, which folding twice does
  //! not change. DeviceReduce's agents only (`OrderedRows`): int8 Min over 2^13 items, half a tile, took 1.07 us
  //! under graph replay on an H200 against 1.30 item by item (docs/performance.md, "Partial tiles of Min and Max
  //! folded at once"); the segmented kernels' block agents were not measured with it and keep the item-by-item fold.
  template <bool Vectorized>
  static constexpr bool folds_idempotent_tiles =
      folds_tiles && TileFoldT::idempotent && Vectorized && !warp_scope && OrderedRows;
  //! Whether a block agent folds each thread's whole slots of a partial tile as one set (`TileFold::folds_prefix`:
  //! VarMean's items), on either load path where the tile fold takes both (`any_load`), so that the bits still do
  //! not depend on the alignment; every kernel that reduces through a block agent takes it, so that they stay a
  //! function of the count and the tile.
  template <bool Vectorized>
  static constexpr bool folds_prefix_sets =
      folds_tiles && TileFoldT::folds_prefix && (Vectorized || TileFoldT::any_load) && !warp_scope;

  using Vector = detail::ItemSlot<InputT, VectorItems>;
  //! Whether a full tile's vectors are loaded as 32-bit words (`detail::SlotWords`): where their items are taken a
  //! word at a time (`sums_words`, `folds_tiles`), so that the loaded bytes need no unpacking.
  static constexpr bool word_slots = sums_words || folds_tiles;

  //! An order-preserving block splits its range among its warps, each an agent of its own (see `ConsumeInWarps`).
  static constexpr bool in_warps = ordered && !warp_scope;
  static constexpr int warps     = BlockThreads / 32;

  //! Whether this warp agent reads its full tiles in rows (see above): 2, 4 or 8 slots a lane (one slot a lane is a
  //! run and a row at once), and an accumulator that shuffles.
  static constexpr bool in_rows = OrderedRows && ordered && warp_scope && is_shuffleable_v<AccumT> &&
                                  (vectors == 2 || vectors == 4 || vectors == 8);
  //! The aggregates a thread holds for a full tile: one per row, or one.
  static constexpr int tile_rows = in_rows ? vectors : 1;

public:
  //! The warp-scope agent of the same tile shape, operator and input.
  using WarpAgent = AgentReduce<32,
                                ItemsPerThread,
                                VectorItems,
                                Algorithm,
                                InputIteratorT,
                                AccumT,
                                OffsetT,
                                ReductionOpT,
                                TransformOpT,
                                AgentScope::warp,
                                OrderedRows>;

private:
  struct InWarpsStorage
  {
    typename WarpAgent::TempStorage warp[warps];
    detail::Uninitialized<AccumT, warps> results;
  };

  struct DeferredStorage
  {
    typename BlockReduceT::TempStorage reduce;
    detail::Uninitialized<AccumT, 1> best; //!< the block's best pending pair, for every thread to see
  };

public:
  using TempStorage =
      std::conditional_t<in_warps,
                         InWarpsStorage,
                         std::conditional_t<defers, DeferredStorage, typename BlockReduceT::TempStorage>>;

  FOLD_DEVICE FOLD_FORCEINLINE
  AgentReduce(TempStorage& storage, InputIteratorT in, ReductionOpT op, TransformOpT transform)
      : storage_(storage)
      , in_(in)
      , op_(op)
      , thread_op_(detail::InOrder<ReductionOpT>::make(op))
      , transform_(transform)
  {
  }

  //! The reduction of items `[begin, end)` (`begin < end`), valid in thread 0 (lane 0 for a warp). The tree
  //! depends only on the tile shape, the operator's commutativity and `end - begin`. The shared storage may be
  //! reused after a `__syncthreads()` (`__syncwarp()` for a warp).
  FOLD_DEVICE FOLD_FORCEINLINE AccumT ConsumeRange(OffsetT begin, OffsetT end)
  {
    if constexpr (in_warps)
    {
      return ConsumeInWarps(begin, end);
    }
    else
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
  }

private:
  //! The block (or warp) reduction's storage.
  FOLD_DEVICE FOLD_FORCEINLINE typename BlockReduceT::TempStorage& reduce_storage()
  {
    if constexpr (defers)
    {
      return storage_.reduce;
    }
    else
    {
      return storage_;
    }
  }

  FOLD_DEVICE FOLD_FORCEINLINE static int thread_rank()
  {
    return static_cast<int>(threadIdx.x) % BlockThreads; // BlockThreads is the block's size, or 32
  }

  FOLD_DEVICE FOLD_FORCEINLINE static void sync()
  {
    if constexpr (warp_scope)
    {
      __syncwarp();
    }
    else
    {
      __syncthreads();
    }
  }

  //! The slot thread `tid` takes as its `v`-th of a tile: its run's, where the items are kept in order.
  FOLD_DEVICE FOLD_FORCEINLINE static constexpr int slot_of(int tid, int v)
  {
    return ordered ? tid * vectors + v : v * BlockThreads + tid;
  }

  //! The slot thread `tid` takes as its `v`-th of a full tile: row `v`'s, where the tile is read in rows.
  FOLD_DEVICE FOLD_FORCEINLINE static constexpr int full_slot_of(int tid, int v)
  {
    return in_rows ? v * BlockThreads + tid : slot_of(tid, v);
  }

  //! A full tile's reduction from the threads' aggregates (`ConsumeFullTile`), valid in thread 0.
  FOLD_DEVICE FOLD_FORCEINLINE AccumT ReduceFullTile(const AccumT (&aggregates)[tile_rows])
  {
    if constexpr (in_rows)
    {
      return detail::reduce_rows_in_order(aggregates, op_);
    }
    else
    {
      return BlockReduceT(reduce_storage()).Reduce(aggregates[0], op_, BlockThreads);
    }
  }

  //! Items `[tile_base + slot * VectorItems, ... + VectorItems)`: one vector load, or one load per item.
  template <bool Vectorized>
  FOLD_DEVICE FOLD_FORCEINLINE Vector LoadSlot(OffsetT tile_base, int slot) const
  {
    return detail::load_slot<Vectorized, VectorItems>(in_, tile_base, slot);
  }

  //! Order-preserving, block scope: warp `w` reduces the `w`-th contiguous share of `[begin, end)` (whole warp tiles
  //! of `32 * ItemsPerThread` items, the last share shorter or empty) as an agent of its own, its tiles in order
  //! with no block barrier between them; thread 0 then folds the warps' results in warp order.
  FOLD_DEVICE FOLD_FORCEINLINE AccumT ConsumeInWarps(OffsetT begin, OffsetT end)
  {
    // Divisions rather than `(a + b - 1) / b`, so that 32-bit offsets near 2^32 do not wrap.
    constexpr OffsetT warp_tile = 32 * ItemsPerThread;
    const OffsetT length        = end - begin;
    const OffsetT tiles         = length / warp_tile + (length % warp_tile != 0 ? 1 : 0);
    const OffsetT share         = (tiles / warps + (tiles % warps != 0 ? 1 : 0)) * warp_tile;
    const int used              = static_cast<int>(length / share + (length % share != 0 ? 1 : 0));
    const int warp              = static_cast<int>(threadIdx.x) / 32;
    if (warp < used)
    {
      const OffsetT offset = static_cast<OffsetT>(warp) * share; // below length
      const OffsetT own    = length - offset > share ? share : length - offset;
      const AccumT result =
          WarpAgent(storage_.warp[warp], in_, op_, transform_).ConsumeRange(begin + offset, begin + offset + own);
      if (threadIdx.x % 32 == 0)
      {
        detail::construct_at(storage_.results.data() + warp, result);
      }
    }
    __syncthreads();
    AccumT total{};
    if (threadIdx.x == 0)
    {
      total = storage_.results[0];
      for (int w = 1; w < used; ++w)
      {
        total = op_(total, storage_.results[w]);
      }
    }
    return total;
  }

  template <bool Vectorized>
  FOLD_DEVICE FOLD_FORCEINLINE AccumT ConsumeTiles(OffsetT begin, OffsetT end)
  {
    if constexpr (ordered && sizeof(OffsetT) == 4 && slots_in_flight<Vectorized>() == vectors)
    {
      return ConsumeTilesPipelined<Vectorized>(begin, end);
    }
    else if constexpr (ordered)
    {
      // (A warp agent: an order-preserving block splits its range among warp agents, `ConsumeInWarps`.)
      // Each tile reduced on its own, in thread order; thread 0 folds the tiles' results in tile order. (The loop
      // `ConsumeTilesPipelined` does not take: 64-bit offsets, and slots loaded in groups, see `slots_in_flight`.)
      AccumT total{};
      for (OffsetT tile_base = begin;; tile_base += tile_items)
      {
        const OffsetT left           = end - tile_base;
        AccumT aggregates[tile_rows] = {};
        const bool full              = left >= static_cast<OffsetT>(tile_items);
        int valid                    = BlockThreads;
        if (full)
        {
          ConsumeFullTile<true, Vectorized>(tile_base, aggregates);
        }
        else
        {
          valid = ConsumePartialTile<true, Vectorized>(tile_base, static_cast<int>(left), aggregates[0]);
        }
        const AccumT tile_aggregate = in_rows && full
                                          ? ReduceFullTile(aggregates)
                                          : BlockReduceT(reduce_storage()).Reduce(aggregates[0], op_, valid);
        if (thread_rank() == 0)
        {
          total = tile_base == begin ? tile_aggregate : op_(total, tile_aggregate);
        }
        if (left <= static_cast<OffsetT>(tile_items))
        {
          return total;
        }
        sync(); // the block reduction's storage is reused by the next tile
      }
    }
    else
    {
      if constexpr (defers && Vectorized)
      {
        if (end - begin >= static_cast<OffsetT>(TileFoldT::min_deferred_tiles) * static_cast<OffsetT>(tile_items))
        {
          return ConsumeTilesDeferred(begin, end);
        }
      }
      // Each thread folds its slots across every tile; one block reduction at the end.
      AccumT thread_aggregate[1] = {}; // (as `ConsumeFullTile` takes it: one row)
      if (end - begin < static_cast<OffsetT>(tile_items))
      {
        const int valid =
            ConsumePartialTile<true, Vectorized>(begin, static_cast<int>(end - begin), thread_aggregate[0]);
        return BlockReduceT(reduce_storage()).Reduce(thread_aggregate[0], op_, valid);
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
        ConsumePartialTile<false, Vectorized>(tile_base, static_cast<int>(end - tile_base), thread_aggregate[0]);
      }
      return BlockReduceT(reduce_storage()).Reduce(thread_aggregate[0], op_);
    }
  }

  //! Commutative, vector loads, a range of at least `TileFold::min_deferred_tiles` full tiles, where the tile fold can
  //! leave its winner's index for later (`defers`). Each thread folds its full tiles without looking for the index
  //! (`TileFold::fold_pending`): its pending pair is its winner's rank and the ordinal of the first of its tiles that
  //! holds it. Then one block reduction finds the best pending pair (the highest rank, first met in the lowest
  //! ordinal); only threads whose pending pair is that one can hold the range's first winner (the tiles are
  //! consecutive ranges of items), and they load that tile again and find their exact pair (`TileFold::resolve`),
  //! unless the tile is their first and `TileFold::exact_first_tile` had them search it at once (1-byte items).
  //! The partial tile is folded item by item into a pair of its own, and a second block reduction takes the best
  //! exact pair. A tile's search takes some 10 instructions a word, where a tile that does not win takes about 3, and
  //! early in a range some lane of a warp wins nearly every tile; here a tile that wins costs its extreme, and each
  //! range pays two block reductions and one tile loaded again by a few threads. The result is the same exact pair.
  FOLD_DEVICE FOLD_FORCEINLINE AccumT ConsumeTilesDeferred(OffsetT begin, OffsetT end)
  {
    using Loaded  = LoadedSlot<true>;
    const int tid = thread_rank();
    AccumT pending{}; // set by the first tile's fold
    AccumT first{};   // with `exact_first_tile`, the first tile's exact pair: the winner is nearly always there
    {
      Loaded loaded[vectors];
      LoadSlots<true>(begin, 0, loaded);
      TileFoldT::template fold_pending<true>(pending, loaded, 0u);
      if constexpr (TileFoldT::exact_first_tile)
      {
        TileFoldT::template fold<true, BlockThreads * VectorItems>(
            first, transform_, loaded, begin + static_cast<OffsetT>(slot_of(tid, 0) * VectorItems));
      }
    }
    std::uint32_t ordinal = 1; // below 2^32: the packed pairs apply to inputs of at most 2^32 items
    OffsetT tile_base     = begin + tile_items;
    for (; end - tile_base >= static_cast<OffsetT>(tile_items); tile_base += tile_items, ++ordinal)
    {
      Loaded loaded[vectors];
      LoadSlots<true>(tile_base, 0, loaded);
      TileFoldT::template fold_pending<false>(pending, loaded, ordinal);
    }
    AccumT tail{}; // below every pair: the threads with no item in the partial tile, or no partial tile
    if (tile_base < end)
    {
      ConsumePartialTile<true, true>(tile_base, static_cast<int>(end - tile_base), tail);
    }
    const AccumT best = BlockReduceT(storage_.reduce).Reduce(pending, op_);
    if (tid == 0)
    {
      detail::construct_at(storage_.best.data(), best);
    }
    __syncthreads(); // also ends the reduction's use of its storage
    const AccumT exact = TileFoldT::template resolve<BlockThreads * VectorItems>(
        pending,
        storage_.best[0],
        first,
        transform_,
        [&](std::uint32_t tile, auto&& visit)
        {
          const OffsetT base = begin + static_cast<OffsetT>(tile) * static_cast<OffsetT>(tile_items);
          Loaded loaded[vectors];
          LoadSlots<true>(base, 0, loaded);
          visit(loaded, base + static_cast<OffsetT>(slot_of(tid, 0) * VectorItems));
        });
    return BlockReduceT(storage_.reduce).Reduce(op_(exact, tail), op_);
  }

  //! Order-preserving, where a thread's slots of a tile are all loaded at once: as the ordered branch of
  //! `ConsumeTiles` (each tile reduced on its own, in thread order; thread 0 folds the tiles' results in tile order),
  //! but each full tile's loads are issued before the reduction of the tile before it, so that they are in flight
  //! while its shuffles run. The same items go to the same threads along the same tree, so the bits do not change.
  //! Taken with 32-bit offsets only: on an H100 it took 0.95-0.97 of the time there at 2^26-2^28 items (float,
  //! double), but 1.01-1.03 with 64-bit offsets, whose unpipelined loop was already as fast (docs/performance.md,
  //! "Order-preserving warps: the next tile's loads before the shuffles").
  template <bool Vectorized>
  FOLD_DEVICE FOLD_FORCEINLINE AccumT ConsumeTilesPipelined(OffsetT begin, OffsetT end)
  {
    using Loaded = LoadedSlot<Vectorized>;
    AccumT total{};
    bool started = false;
    auto close   = [&](const AccumT& tile_aggregate) // one tile's reduction, folded into `total`
    {
      if (thread_rank() == 0)
      {
        total = started ? op_(total, tile_aggregate) : tile_aggregate;
      }
      started = true;
      sync(); // the reduction's storage is reused by the next tile
    };
    OffsetT tile_base = begin;
    if (end - tile_base >= static_cast<OffsetT>(tile_items))
    {
      AccumT pending[tile_rows]; // the thread's fold of the tile before `tile_base`, not yet reduced
      {
        Loaded loaded[vectors];
        LoadSlots<Vectorized>(tile_base, 0, loaded);
        FoldSlots<true>(tile_base, 0, loaded, pending);
      }
      tile_base += tile_items;
      while (end - tile_base >= static_cast<OffsetT>(tile_items))
      {
        Loaded loaded[vectors];
        LoadSlots<Vectorized>(tile_base, 0, loaded);
        close(ReduceFullTile(pending));
        FoldSlots<true>(tile_base, 0, loaded, pending);
        tile_base += tile_items;
      }
      close(ReduceFullTile(pending));
    }
    if (tile_base < end)
    {
      AccumT thread_aggregate{};
      const int valid =
          ConsumePartialTile<true, Vectorized>(tile_base, static_cast<int>(end - tile_base), thread_aggregate);
      close(BlockReduceT(reduce_storage()).Reduce(thread_aggregate, op_, valid));
    }
    return total;
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

  //! Folds the items of one loaded slot (a `Vector`, or with `sums_words` its `detail::SlotWords`), the first of
  //! which is item `index`, into `aggregate` (which starts from them with `First && first`).
  template <bool First, typename SlotT>
  FOLD_DEVICE FOLD_FORCEINLINE void FoldSlot(AccumT& aggregate, const SlotT& slot, OffsetT index, bool first)
  {
    if constexpr (sums_words)
    {
      using Words        = detail::SlotWords<InputT, VectorItems>;
      const Words packed = ::cuda::std::bit_cast<Words>(slot);
      using SumT         = std::conditional_t<std::is_signed_v<InputT>, int, unsigned int>;
      SumT sum           = First && first ? SumT{0} : static_cast<SumT>(aggregate);
#pragma unroll
      for (int w = 0; w < VectorItems / 4; ++w)
      {
        sum = __dp4a(static_cast<SumT>(packed.words[w]), static_cast<SumT>(0x01010101), sum);
      }
      aggregate = static_cast<AccumT>(sum);
    }
    else
    {
#pragma unroll
      for (int j = 0; j < VectorItems; ++j)
      {
        Accumulate<First>(aggregate, slot.items[j], index + static_cast<OffsetT>(j), first && j == 0);
      }
    }
  }

  //! How many of its slots a thread loads before it folds them: all of them with vector loads; without, the
  //! most that divides them and is at most 32 items' worth, since each item then takes a register of its own
  //! (64 bytes of int8 items spilled).
  template <bool Vectorized>
  FOLD_HOST_DEVICE static constexpr int slots_in_flight()
  {
    int group = Vectorized || 32 / VectorItems >= vectors ? vectors : (32 / VectorItems < 1 ? 1 : 32 / VectorItems);
    while (vectors % group != 0)
    {
      --group;
    }
    return group;
  }

  //! A full tile's slot as loaded: its 32-bit words where they are folded a word at a time (`word_slots`, vector
  //! loads only), else a `Vector`.
  template <bool Vectorized>
  using LoadedSlot = std::conditional_t<Vectorized && word_slots, detail::SlotWords<InputT, VectorItems>, Vector>;

  //! Slot `slot` of a tile as a tile fold takes it (`LoadedSlot`).
  template <bool Vectorized>
  FOLD_DEVICE FOLD_FORCEINLINE LoadedSlot<Vectorized> LoadTileSlot(OffsetT tile_base, int slot) const
  {
    if constexpr (Vectorized && word_slots)
    {
      return detail::load_slot_words<VectorItems>(in_, tile_base, slot);
    }
    else
    {
      return LoadSlot<Vectorized>(tile_base, slot);
    }
  }

  //! Loads every slot the thread would take in a full tile at `tile_base`, those past the partial tile's last whole
  //! slot clamped to it (a line already being read), for a tile fold; returns how many are its own whole slots (a
  //! prefix of its slots).
  template <bool Vectorized>
  FOLD_DEVICE FOLD_FORCEINLINE int
  LoadPartialSlots(OffsetT tile_base, int whole_slots, LoadedSlot<Vectorized> (&loaded)[vectors]) const
  {
    const int tid = thread_rank();
    int own       = 0;
#pragma unroll
    for (int v = 0; v < vectors; ++v)
    {
      const int slot = slot_of(tid, v);
      own += slot < whole_slots ? 1 : 0;
      loaded[v] = LoadTileSlot<Vectorized>(tile_base, slot < whole_slots ? slot : whole_slots - 1);
    }
    return own;
  }

  //! Loads the thread's slots `group, ..., group + N - 1` of the full tile at `tile_base`.
  template <bool Vectorized, int N>
  FOLD_DEVICE FOLD_FORCEINLINE void LoadSlots(OffsetT tile_base, int group, LoadedSlot<Vectorized> (&loaded)[N]) const
  {
    const int tid = thread_rank();
#pragma unroll
    for (int v = 0; v < N; ++v)
    {
      loaded[v] = LoadTileSlot<Vectorized>(tile_base, full_slot_of(tid, group + v));
    }
  }

  //! Folds the loaded slots `group, ...` (see `LoadSlots`) into the thread's aggregate, which starts from its first
  //! item with `First` where `group` is 0; in rows, each slot into its row's aggregate, which it starts.
  template <bool First, int N, typename SlotT>
  FOLD_DEVICE FOLD_FORCEINLINE void
  FoldSlots(OffsetT tile_base, int group, const SlotT (&loaded)[N], AccumT (&aggregates)[tile_rows])
  {
    const int tid = thread_rank();
#pragma unroll
    for (int v = 0; v < N; ++v)
    {
      const OffsetT index = tile_base + static_cast<OffsetT>(full_slot_of(tid, group + v) * VectorItems);
      if constexpr (in_rows)
      {
        FoldSlot<true>(aggregates[group + v], loaded[v], index, true);
      }
      else
      {
        FoldSlot<First>(aggregates[0], loaded[v], index, group + v == 0);
      }
    }
  }

  //! Every slot of the thread in a full tile, all loaded before any is folded (see `slots_in_flight`). With
  //! `First`, the aggregate starts from the thread's first item; in rows, each row's starts from its slot.
  template <bool First, bool Vectorized>
  FOLD_DEVICE FOLD_FORCEINLINE void ConsumeFullTile(OffsetT tile_base, AccumT (&aggregates)[tile_rows])
  {
    const int tid           = thread_rank();
    constexpr int in_flight = slots_in_flight<Vectorized>();
    static_assert(vectors % in_flight == 0, "AgentReduce: slots are loaded in equal groups");
#pragma unroll
    for (int group = 0; group < vectors; group += in_flight)
    {
      LoadedSlot<Vectorized> loaded[in_flight];
      LoadSlots<Vectorized>(tile_base, group, loaded);
      if constexpr (folds_tiles && (Vectorized || TileFoldT::any_load))
      {
        static_assert(in_flight == vectors, "AgentReduce: a tile fold takes the whole tile in one group");
        TileFoldT::template fold<First, BlockThreads * VectorItems>(
            aggregates[0], transform_, loaded, tile_base + static_cast<OffsetT>(slot_of(tid, 0) * VectorItems));
      }
      else
      {
        FoldSlots<First>(tile_base, group, loaded, aggregates);
      }
    }
  }

  //! Items `[tile_base, tile_base + valid)`, `valid < tile_items`: the whole slots each thread would take in a
  //! full tile, then, one by one, the items after the last whole slot (commutative: thread `t` takes the `t`-th
  //! of them; order-preserving: the thread whose run they are in). Returns how many threads (a prefix of the
  //! block) took any item. Like a full tile, the thread's whole slots are all loaded before any is folded, so
  //! that a partial tile costs one memory round trip too.
  template <bool First, bool Vectorized>
  FOLD_DEVICE FOLD_FORCEINLINE int ConsumePartialTile(OffsetT tile_base, int valid, AccumT& aggregate)
  {
    const int tid         = thread_rank();
    const int whole_slots = valid / VectorItems;
    const int rest_begin  = whole_slots * VectorItems;
    bool first            = First;
    if constexpr (folds_idempotent_tiles<Vectorized>)
    {
      if (whole_slots > 0)
      {
        // Every thread folds its slots at once as in a full tile, those past the last whole slot clamped to it:
        // items folded twice change nothing, so every thread holds a result.
        LoadedSlot<true> loaded[vectors];
        LoadPartialSlots<true>(tile_base, whole_slots, loaded);
        TileFoldT::template fold<First, BlockThreads * VectorItems>(
            aggregate, transform_, loaded, tile_base + static_cast<OffsetT>(slot_of(tid, 0) * VectorItems));
        first = false;
        if (rest_begin + tid < valid)
        {
          const OffsetT index = tile_base + static_cast<OffsetT>(rest_begin + tid);
          Accumulate<false>(aggregate, in_[index], index, false);
        }
        return BlockThreads;
      }
    }
    if constexpr (folds_prefix_sets<Vectorized>)
    {
      if (whole_slots > 0)
      {
        // As below, every load issued, clamped; the thread's whole slots (a prefix of its slots) folded as one set.
        LoadedSlot<Vectorized> loaded[vectors];
        const int slots = LoadPartialSlots<Vectorized>(tile_base, whole_slots, loaded);
        if (slots > 0)
        {
          TileFoldT::template fold_prefix<First>(aggregate, transform_, loaded, slots * VectorItems);
          first = false;
        }
      }
    }
    else if (whole_slots > 0)
    {
      // Every load is issued, the slots past the last whole one clamped to it (a line already being read), so
      // that they are in flight together as in a full tile; only the thread's own whole slots are folded.
      constexpr int in_flight = slots_in_flight<Vectorized>();
#pragma unroll
      for (int group = 0; group < vectors; group += in_flight)
      {
        Vector loaded[in_flight];
#pragma unroll
        for (int v = 0; v < in_flight; ++v)
        {
          const int slot = slot_of(tid, group + v);
          loaded[v]      = LoadSlot<Vectorized>(tile_base, slot < whole_slots ? slot : whole_slots - 1);
        }
#pragma unroll
        for (int v = 0; v < in_flight; ++v)
        {
          const int slot = slot_of(tid, group + v);
          if (slot < whole_slots)
          {
            FoldSlot<First>(aggregate, loaded[v], tile_base + static_cast<OffsetT>(slot * VectorItems), first);
            first = false;
          }
        }
      }
    }
    auto accumulate_item = [&](int i)
    {
      const OffsetT index = tile_base + static_cast<OffsetT>(i);
      Accumulate<First>(aggregate, in_[index], index, first);
      first = false;
    };
    if constexpr (ordered)
    {
      const int run_begin = tid * vectors; // in slots
      if (run_begin <= whole_slots && whole_slots < run_begin + vectors)
      {
        for (int i = rest_begin; i < valid; ++i)
        {
          accumulate_item(i);
        }
      }
      const int busy = (valid + ItemsPerThread - 1) / ItemsPerThread;
      return busy;
    }
    else
    {
      if (rest_begin + tid < valid)
      {
        accumulate_item(rest_begin + tid);
      }
      const int rest = valid - rest_begin;
      const int busy = whole_slots > rest ? whole_slots : rest;
      return busy < BlockThreads ? busy : BlockThreads;
    }
  }

  TempStorage& storage_;
  InputIteratorT in_;
  ReductionOpT op_;
  typename detail::InOrder<ReductionOpT>::type thread_op_; //!< folds a thread's own items, met in index order
  TransformOpT transform_;
};

FOLD_NAMESPACE_END
