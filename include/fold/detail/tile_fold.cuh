// SPDX-License-Identifier: Apache-2.0
//! @file
//! `TileFold`: how a thread folds all the items it loaded from one tile in one step, where that costs less than
//! folding them one at a time. `AgentReduce` asks for it on its commutative path with vector loads (each thread's
//! slots strided over the tile); everywhere else, and for every other reduction, items are folded one by one.
//!
//! ArgMin and ArgMax over 1-, 2- and 4-byte items (`PackArg` pairs; ArgMinMax folds each half on its own) take
//! the winner first (`WinnerFirst`):
//! - the tile's extreme value, by min/max over the loaded 32-bit words: for 1- and 2-byte items two 16-bit lanes
//!   per instruction (`{min,max}.{s16,u16}x2`, `{min,max}.NaN.{f16,bf16}x2`), 1-byte items compared as the high
//!   bytes of 16-bit lanes (each word's odd bytes as they are, its even bytes shifted up by 8); 4-byte items one a
//!   word (`{min,max}.{s32,u32}`, `{min,max}.NaN.f32`);
//! - the extreme's index only when its rank beats the thread's running pair (always in the thread's first
//!   tile): the first item of that rank, searched in index order.
//! That is about one instruction per item (one a word for 4-byte items), where ranking, packing and comparing a
//! pair per item takes seven to ten, and the result is the same pair: the first item of the highest rank. Over 1-
//! and 2-byte items a block agent with a range of several tiles leaves even that search for the end
//! (`defers_index`: `fold_pending`, then `resolve` in AgentReduce's `ConsumeTilesDeferred`): a tile that wins costs
//! its extreme, and only the threads that can hold the range's first winner search one tile, loaded again.
//!
//! Min and Max over 1- and 2-byte items and float (MinMax folds each half on its own) take the tile's extreme the
//! same way, over double one `fmin`/`fmax` and one NaN test an item (`WideExtreme`), then one transform and one
//! operation for the tile (`ExtremumFirst`), where each item took an unpacking or an order key, a transform and an
//! operation. `AgentReduceColumns` keeps a thread's columns of 16-bit floats apart instead, two to a
//! word, and keys each column once (`PackedColumnExtremes`).
#pragma once

#include <fold/detail/extremum.cuh>
#include <fold/detail/fused.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/macros.cuh>
#include <fold/util/type_traits.cuh>

#include <cuda/std/bit>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! Folds a thread's loaded tile at once where `applies`; see the file comment.
template <typename ReductionOpT, typename TransformOpT, typename InputT>
struct TileFold
{
  static constexpr bool applies  = false;
  static constexpr bool any_load = false; //!< whether it also folds tiles loaded item by item (else vectors only)
  //! Whether the fold applies and a thread's first tile costs more than the others (winner first: the index search
  //! there), or, with the index left for the end (`defers_index`), each block's range ends with its own search.
  //! The dispatch then runs pass 1 in one wave, so that each thread meets as few first tiles, and each block as few
  //! range ends, as it can.
  static constexpr bool searches_first_tile = false;
  //! Whether a block agent may fold its full tiles without the winner's index and find that index once at the end
  //! of its range (`fold_pending`, `resolve`; see AgentReduce's `ConsumeTilesDeferred`).
  static constexpr bool defers_index = false;
  //! Whether such a block agent also searches each thread's first tile at once (see `TileFold<PackedArgMax>`).
  static constexpr bool exact_first_tile = false;
  //! Whether folding an item twice leaves the result as it is (Min, Max): a partial tile is then folded at once too,
  //! its slots past the last whole one taken as loaded, clamped to that slot (see AgentReduce's `ConsumePartialTile`).
  static constexpr bool idempotent = false;
  //! Whether a thread's whole slots of a partial tile are folded as one set too (`fold_prefix`: VarMean's items).
  static constexpr bool folds_prefix = false;
};

//! Items whose extreme the packed 16-bit min/max find: 1- and 2-byte integers, half and bfloat16.
template <typename T>
inline constexpr bool
    packs_in_lanes_v = (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 2) || is_16bit_float_v<T>;

//! Items whose ArgMin and ArgMax take the winner first (`WinnerFirst`): those of `packs_in_lanes_v`, and 4-byte
//! integers and float, one a word.
template <typename T>
inline constexpr bool
    finds_winner_first_v = packs_in_lanes_v<T> ||
                           (std::is_integral_v<T> && sizeof(T) == 4) || std::is_same_v<std::remove_cv_t<T>, float>;

//! Items whose Min and Max take the tile's extreme first (`ExtremumFirst`): those of `packs_in_lanes_v`, float
//! (`max.NaN.f32`/`min.NaN.f32` a word) and double (`WideExtreme`). 4- and 8-byte integers fold item by item: their
//! order is the integers' own, one min/max an item either way (int32 and int64 Min, Max and MinMax took 0.99-1.01 of
//! the time extreme first on an H200, docs/performance.md).
template <typename T>
inline constexpr bool finds_extreme_first_v =
    packs_in_lanes_v<T> || std::is_same_v<std::remove_cv_t<T>, float> || std::is_same_v<std::remove_cv_t<T>, double>;

//! The bits of +infinity in `T` (half, bfloat16 or float): a NaN's magnitude is above them.
template <typename T>
inline constexpr std::uint32_t infinity_bits_v = std::is_same_v<std::remove_cv_t<T>, __half> ? 0x7c00u
                                                 : sizeof(T) == 2                            ? 0x7f80u
                                                                                             : 0x7f800000u;

//! The 32-bit words of a thread's loaded tile, slot by slot (slots of `detail::SlotWords` where the agent loads them
//! so: then no byte is moved).
template <typename VectorT, int Slots, int Words>
FOLD_DEVICE FOLD_FORCEINLINE void tile_words(const VectorT (&loaded)[Slots], std::uint32_t (&words)[Words])
{
  constexpr int slot_words = static_cast<int>(sizeof(VectorT) / 4);
  static_assert(Words == Slots * slot_words, "tile_words: a word for each 4 bytes of the tile");
  struct Words32
  {
    std::uint32_t words[slot_words];
  };
#pragma unroll
  for (int v = 0; v < Slots; ++v)
  {
    const Words32 slot = ::cuda::std::bit_cast<Words32>(loaded[v]);
#pragma unroll
    for (int k = 0; k < slot_words; ++k)
    {
      words[v * slot_words + k] = slot.words[k];
    }
  }
}

//! The items of a thread's loaded tile, slot by slot: each slot's bytes (a vector, its 32-bit words, or one item)
//! taken as items of `T`.
template <typename T, typename VectorT, int Slots, int Count>
FOLD_DEVICE FOLD_FORCEINLINE void tile_items(const VectorT (&loaded)[Slots], T (&items)[Count])
{
  constexpr int per_slot = static_cast<int>(sizeof(VectorT) / sizeof(T));
  static_assert(Count == Slots * per_slot, "tile_items: an item for each sizeof(T) bytes of the tile");
#pragma unroll
  for (int v = 0; v < Slots; ++v)
  {
    const ItemSlot<T, per_slot> slot = ::cuda::std::bit_cast<ItemSlot<T, per_slot>>(loaded[v]);
#pragma unroll
    for (int k = 0; k < per_slot; ++k)
    {
      items[v * per_slot + k] = slot.items[k];
    }
  }
}

//! ArgMin (`ForMax` false) or ArgMax over a thread's tile of 1-, 2- or 4-byte items, winner first.
template <typename T, bool ForMax>
struct WinnerFirst
{
  using Reduction = PackedArgReduction<T, ForMax>;
  using RankT     = typename Reduction::RankT;
  using Bits      = std::
      conditional_t<sizeof(T) == 1, std::uint8_t, std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint32_t>>;
  static constexpr bool floating = is_floating_v<T>;                                  //!< half, bfloat16 or float
  static constexpr Bits sign     = static_cast<Bits>(Bits{1} << (8 * sizeof(T) - 1)); //!< a float's sign bit

  //! The lane-wise extreme (the minimum, or with `ForMax` the maximum) of two words: of two 16-bit lanes each, or
  //! one 4-byte item each. A float's NaN wins, as a canonical NaN.
  FOLD_DEVICE FOLD_FORCEINLINE static std::uint32_t extreme2(std::uint32_t a, std::uint32_t b)
  {
    if constexpr (sizeof(T) == 4 && floating)
    {
      const float x = ::cuda::std::bit_cast<float>(a), y = ::cuda::std::bit_cast<float>(b);
      float ext;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
      if constexpr (ForMax)
      {
        asm("max.NaN.f32 %0, %1, %2;" : "=f"(ext) : "f"(x), "f"(y));
      }
      else
      {
        asm("min.NaN.f32 %0, %1, %2;" : "=f"(ext) : "f"(x), "f"(y));
      }
#else
      ext = is_nan(x) || (ForMax ? x > y : x < y) ? x : y; // a NaN of either wins
#endif
      return ::cuda::std::bit_cast<std::uint32_t>(ext);
    }
    else if constexpr (sizeof(T) == 4)
    {
      using U   = std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>;
      const U x = static_cast<U>(a), y = static_cast<U>(b);
      return static_cast<std::uint32_t>(ForMax ? (x < y ? y : x) : (y < x ? y : x));
    }
    else if constexpr (is_16bit_float_v<T>)
    {
      using Pair = std::conditional_t<std::is_same_v<std::remove_cv_t<T>, __half>, __half2, __nv_bfloat162>;
      Pair x, y; // __half2 and __nv_bfloat162 are not trivially copyable: no bit_cast
      ::memcpy(&x, &a, sizeof(a));
      ::memcpy(&y, &b, sizeof(b));
      const Pair ext = ForMax ? __hmax2_nan(x, y) : __hmin2_nan(x, y);
      std::uint32_t result;
      ::memcpy(&result, &ext, sizeof(result));
      return result;
    }
    else if constexpr (std::is_signed_v<T>)
    {
      return ForMax ? __vmaxs2(a, b) : __vmins2(a, b);
    }
    else
    {
      return ForMax ? __vmaxu2(a, b) : __vminu2(a, b);
    }
  }

  //! The extreme item of the tile, given as 32-bit words. With floats, a NaN if any item is one; a zero of either
  //! sign when the extreme is a zero. Four running extremes per lane set (few registers, independent
  //! instructions); 1-byte items as the high bytes of 16-bit lanes: each word's odd bytes, then its even bytes
  //! shifted up.
  template <int Words>
  FOLD_DEVICE FOLD_FORCEINLINE static T extreme(const std::uint32_t (&words)[Words])
  {
    constexpr int chains = Words < 4 ? Words : 4;
    constexpr bool bytes = sizeof(T) == 1;
    std::uint32_t odd[chains], even[chains];
#pragma unroll
    for (int k = 0; k < Words; ++k)
    {
      const std::uint32_t shifted = bytes ? words[k] << 8 : 0;
      odd[k % chains]             = k < chains ? words[k] : extreme2(odd[k % chains], words[k]);
      even[k % chains]            = k < chains ? shifted : extreme2(even[k % chains], shifted);
    }
    std::uint32_t lanes = odd[0];
#pragma unroll
    for (int c = 1; c < chains; ++c)
    {
      lanes = extreme2(lanes, odd[c]);
    }
    if constexpr (bytes)
    {
#pragma unroll
      for (int c = 0; c < chains; ++c)
      {
        lanes = extreme2(lanes, even[c]);
      }
    }
    // lane 0: the extreme of the two lanes (a 4-byte item is a word's one lane)
    const std::uint32_t both = sizeof(T) == 4 ? lanes : extreme2(lanes, lanes >> 16);
    return ::cuda::std::bit_cast<T>(static_cast<Bits>(bytes ? both >> 8 : both));
  }

  //! 1-byte items: whether any item of `words` comes strictly before `running` (the running winner's value) in
  //! the operator's order, with three integer instructions per word (a byte-wise "greater than" on the order
  //! bytes, SWAR style), where finding the tile's extreme takes three, two of them packed min/max.
  template <int Words>
  FOLD_DEVICE FOLD_FORCEINLINE static bool any_beats(const std::uint32_t (&words)[Words], T running)
  {
    static_assert(sizeof(T) == 1, "any_beats: 1-byte items");
    // An item's order byte: 0 for the last item in the operator's order, 255 for the first.
    constexpr std::uint32_t flip = (std::is_signed_v<T> ? 0x80808080u : 0u) ^ (ForMax ? 0u : 0xffffffffu);
    const std::uint32_t n        = (static_cast<std::uint8_t>(running) ^ flip) & 0xffu;
    // Per byte, bit 7 of `low + add` is set iff the low 7 bits of the order byte exceed those of n; a byte beats n
    // iff that holds and its own bit 7 is set (n >= 128), or either holds (n < 128).
    const std::uint32_t add = (0x7fu - (n & 0x7fu)) * 0x01010101u;
    std::uint32_t any       = 0;
    if (n < 0x80u)
    {
#pragma unroll
      for (int k = 0; k < Words; ++k)
      {
        const std::uint32_t order = words[k] ^ flip;
        any |= ((order & 0x7f7f7f7fu) + add) | order;
      }
    }
    else
    {
#pragma unroll
      for (int k = 0; k < Words; ++k)
      {
        const std::uint32_t order = words[k] ^ flip;
        any |= ((order & 0x7f7f7f7fu) + add) & order;
      }
    }
    return (any & 0x80808080u) != 0;
  }

  FOLD_DEVICE FOLD_FORCEINLINE static Bits bits_of(T x)
  {
    return ::cuda::std::bit_cast<Bits>(x);
  }

  //! The rank of `x` (see `PackedArgReduction::rank`).
  FOLD_DEVICE FOLD_FORCEINLINE static RankT rank_of(T x)
  {
    return Reduction::rank(typename Reduction::Values{}(x));
  }

  static constexpr std::uint32_t lane_ones  = sizeof(T) == 1 ? 0x01010101u : sizeof(T) == 2 ? 0x00010001u : 1u;
  static constexpr std::uint32_t lane_highs = lane_ones * sign;

  //! The high bit of each lane of `word` that holds `target`, and maybe of lanes above such a lane: the lowest one
  //! set is exact (a SWAR zero-lane test; for 4-byte items, one comparison).
  FOLD_DEVICE FOLD_FORCEINLINE static std::uint32_t lanes_equal(std::uint32_t word, Bits target)
  {
    if constexpr (sizeof(T) == 4)
    {
      return word == target ? lane_highs : 0u;
    }
    const std::uint32_t x = word ^ (static_cast<std::uint32_t>(target) * lane_ones);
    return (x - lane_ones) & ~x & lane_highs;
  }

  //! The high bit of each lane of `word` that is a NaN of `T` (magnitude above the infinity's), exactly.
  FOLD_DEVICE FOLD_FORCEINLINE static std::uint32_t lanes_nan(std::uint32_t word)
  {
    constexpr std::uint32_t magnitude = sign - 1u;
    constexpr std::uint32_t past_inf  = magnitude - infinity_bits_v<T>; // carries where a magnitude passes infinity
    return ((word & (magnitude * lane_ones)) + past_inf * lane_ones) & lane_highs;
  }

  //! Where the first item whose lane `lanes` flags is (item `w * items per word + lane` of `words`), or -1. 4-byte
  //! items: a bit a word, the lowest set found at once (a chain of selects from the last word to the first took
  //! twice the instructions and 32 steps).
  template <int Words, typename LanesT>
  FOLD_DEVICE FOLD_FORCEINLINE static int first_where(const std::uint32_t (&words)[Words], LanesT lanes)
  {
    if constexpr (sizeof(T) == 4)
    {
      static_assert(Words <= 32, "first_where: a bit a word");
      std::uint32_t flagged = 0;
#pragma unroll
      for (int k = 0; k < Words; ++k)
      {
        flagged |= lanes(words[k]) != 0 ? std::uint32_t{1} << k : 0u;
      }
      return __ffs(static_cast<int>(flagged)) - 1;
    }
    else
    {
      constexpr int per_word = static_cast<int>(4 / sizeof(T));
      int position           = -1;
#pragma unroll
      for (int k = Words - 1; k >= 0; --k)
      {
        const std::uint32_t flags = lanes(words[k]);
        const int lane            = (__ffs(static_cast<int>(flags)) - 1) / static_cast<int>(8 * sizeof(T));
        position                  = flags != 0 ? k * per_word + lane : position;
      }
      return position;
    }
  }

  //! Whether any item of `words` is `target` (the lanes' flags of `lanes_equal`, or-ed: one set only where one
  //! holds it).
  template <int Words>
  FOLD_DEVICE FOLD_FORCEINLINE static bool holds(const std::uint32_t (&words)[Words], Bits target)
  {
    std::uint32_t any = 0;
#pragma unroll
    for (int k = 0; k < Words; ++k)
    {
      any |= lanes_equal(words[k], target);
    }
    return any != 0;
  }

  //! 16-bit floats: the tile's extreme `winner` as it is, unless it is a zero, which the packed min/max give of
  //! either sign: then the better zero (+0 for ArgMax) where the tile holds one, else the other.
  template <int Words>
  FOLD_DEVICE FOLD_FORCEINLINE static T exact_zero(const std::uint32_t (&words)[Words], T winner)
  {
    if ((bits_of(winner) & static_cast<Bits>(sign - 1)) != 0)
    {
      return winner;
    }
    constexpr Bits better = ForMax ? Bits{0} : sign;
    return ::cuda::std::bit_cast<T>(holds(words, better) ? better : static_cast<Bits>(better ^ sign));
  }

  //! The item of rank `r`.
  FOLD_DEVICE FOLD_FORCEINLINE static T value_of_rank(RankT r)
  {
    if constexpr (floating)
    {
      return from_order_key<T, ForMax>(Reduction::unrank(r));
    }
    else
    {
      return static_cast<T>(Reduction::unrank(r));
    }
  }

  //! Where in `words` the first item equal to `winner` is (any NaN for a NaN), or -1.
  template <int Words>
  FOLD_DEVICE FOLD_FORCEINLINE static int position_of(const std::uint32_t (&words)[Words], T winner)
  {
    if constexpr (floating)
    {
      if (is_nan(winner))
      {
        return first_where(words, [](std::uint32_t w) { return lanes_nan(w); });
      }
    }
    const Bits target = bits_of(winner);
    return first_where(words, [&](std::uint32_t w) { return lanes_equal(w, target); });
  }

  //! The index of item `position` of a thread's tile whose slot `v` holds the items from `first_index + v *
  //! SlotStride` on.
  template <int SlotStride, int SlotItems, typename OffsetT>
  FOLD_DEVICE FOLD_FORCEINLINE static OffsetT index_at(OffsetT first_index, int position)
  {
    return first_index + static_cast<OffsetT>(position / SlotItems) * static_cast<OffsetT>(SlotStride) +
           static_cast<OffsetT>(position % SlotItems);
  }

  //! Folds the tile `loaded` into `pending` without looking for the winner's index: `pending` is the packed pair
  //! of the thread's running winner's rank and the tile `ordinal` where it first met it (`ordinal` counts the
  //! thread's full tiles; unset with `First`). Every tile costs its extreme and its rank; 1-byte items take no
  //! `any_beats` test first, which costs what the extreme does (without it ArgMinMax over int8 took 0.97-0.99 of
  //! the time at 2^26-2^30 and segmented ArgMax over int8 0.92-0.94 at 65536 items a segment, docs/performance.md).
  template <bool First, typename VectorT, int Slots>
  FOLD_DEVICE FOLD_FORCEINLINE static void
  fold_pending(std::uint64_t& pending, const VectorT (&loaded)[Slots], std::uint32_t ordinal)
  {
    static_assert(packs_in_lanes_v<T>, "WinnerFirst::fold_pending: 1- and 2-byte items");
    std::uint32_t words[Slots * sizeof(VectorT) / 4];
    tile_words(loaded, words);
    const RankT running = static_cast<RankT>(pending >> 32);
    T winner            = extreme(words);
    if constexpr (floating)
    {
      winner = exact_zero(words, winner);
    }
    const RankT rank = rank_of(winner);
    if (First || rank > running)
    {
      pending = PackArg<T, ForMax>::pack(rank, ordinal);
    }
  }

  //! The packed pair of the first item of rank `rank` in the tile `loaded` (slot `v` holds the items from
  //! `first_index + v * SlotStride` on), which holds one; `pack(item, index)` packs it.
  template <int SlotStride, typename PackT, typename VectorT, int Slots, typename OffsetT>
  FOLD_DEVICE FOLD_FORCEINLINE static std::uint64_t
  find(RankT rank, const PackT& pack, const VectorT (&loaded)[Slots], OffsetT first_index)
  {
    constexpr int slot_items = static_cast<int>(sizeof(VectorT) / sizeof(T));
    std::uint32_t words[Slots * sizeof(VectorT) / 4];
    tile_words(loaded, words);
    const T winner     = value_of_rank(rank);
    const int position = position_of(words, winner);
    return pack(winner, index_at<SlotStride, slot_items>(first_index, position < 0 ? 0 : position));
  }

  //! Folds the tile `loaded` into `aggregate` (a packed pair; unset with `First`). Slot `v` holds the items from
  //! index `first_index + v * SlotStride` on. The winner's pair is `pack(winner, index)` (a `PackArg`, or one
  //! that shifts the index first).
  template <bool First, int SlotStride, typename PackT, typename VectorT, int Slots, typename OffsetT>
  FOLD_DEVICE FOLD_FORCEINLINE static void
  fold(std::uint64_t& aggregate, const PackT& pack, const VectorT (&loaded)[Slots], OffsetT first_index)
  {
    constexpr int slot_items = static_cast<int>(sizeof(VectorT) / sizeof(T));
    std::uint32_t words[Slots * sizeof(VectorT) / 4];
    tile_words(loaded, words);
    const RankT running = static_cast<RankT>(aggregate >> 32);
    if constexpr (sizeof(T) == 1)
    {
      if (!First && !any_beats(words, Reduction::unrank(running)))
      {
        return; // the common case once a thread has met a high winner: three instructions per word
      }
    }
    T winner = extreme(words);
    if constexpr (floating)
    {
      // The min/max returns either zero when both meet; the better one (+0 for ArgMax) may be there.
      if ((bits_of(winner) & static_cast<Bits>(sign - 1)) == 0)
      {
        winner = ::cuda::std::bit_cast<T>(static_cast<Bits>(ForMax ? 0 : sign));
      }
    }
    if (!First && rank_of(winner) <= running)
    {
      return; // no item of this tile beats the running pair, and a tie keeps the earlier item
    }
    int position = position_of(words, winner);
    if constexpr (floating)
    {
      if (position < 0) // a zero, and the better zero is not there: the first of the other
      {
        winner   = ::cuda::std::bit_cast<T>(static_cast<Bits>(bits_of(winner) ^ sign));
        position = position_of(words, winner);
      }
    }
    const RankT rank = rank_of(winner);
    if (First || rank > running)
    {
      aggregate = pack(winner, index_at<SlotStride, slot_items>(first_index, position));
    }
  }
};

//! The extreme of a thread's tile of doubles for Min and Max (`ExtremumFirst`): one min/max and one NaN test an item,
//! where item by item each took its order key and a 64-bit comparison.
template <typename T, bool ForMax>
struct WideExtreme
{
  static_assert(std::is_same_v<std::remove_cv_t<T>, double>, "WideExtreme: double");
  static constexpr std::uint64_t sign = std::uint64_t{1} << 63;

  FOLD_DEVICE FOLD_FORCEINLINE static std::uint64_t bits_of(T x) { return ::cuda::std::bit_cast<std::uint64_t>(x); }

  //! The extreme of two items (`fmax`/`fmin`: a NaN of either is lost; `extreme` tests for NaNs apart).
  FOLD_DEVICE FOLD_FORCEINLINE static T extreme2(T a, T b) { return ForMax ? fmax(a, b) : fmin(a, b); }

  //! The extreme item of `items`: a NaN if any item is one; a zero of either sign when the extreme is a zero. Four
  //! running extremes (independent instructions).
  template <int Count>
  FOLD_DEVICE FOLD_FORCEINLINE static T extreme(const T (&items)[Count])
  {
    constexpr int chains = Count < 4 ? Count : 4;
    T chain[chains];
    bool nan = false;
#pragma unroll
    for (int k = 0; k < Count; ++k)
    {
      nan               = nan || is_nan(items[k]);
      chain[k % chains] = k < chains ? items[k] : extreme2(chain[k % chains], items[k]);
    }
    T winner = chain[0];
#pragma unroll
    for (int c = 1; c < chains; ++c)
    {
      winner = extreme2(winner, chain[c]);
    }
    return nan ? quiet_nan<T>() : winner;
  }

  //! The tile's extreme `winner` as it is, unless it is a zero, which the min/max give of either sign: then
  //! the better zero (+0 for Max) where the tile holds one, else the other.
  template <int Count>
  FOLD_DEVICE FOLD_FORCEINLINE static T exact_zero(const T (&items)[Count], T winner)
  {
    if ((bits_of(winner) & ~sign) != 0)
    {
      return winner;
    }
    const std::uint64_t better = ForMax ? std::uint64_t{0} : sign;
    bool holds                 = false;
#pragma unroll
    for (int k = 0; k < Count; ++k)
    {
      holds = holds || bits_of(items[k]) == better;
    }
    return ::cuda::std::bit_cast<T>(holds ? better : better ^ sign);
  }
};

//! Min (`ForMax` false) or Max over a thread's tile of 1- or 2-byte items, float or double (`finds_extreme_first_v`),
//! as DeviceReduce runs them (`ExtremumReduction`: integers widened to 32 bits, floating-point items as order keys;
//! `applies` to its transform): the tile's extreme by packed min/max over its words, or one `min.NaN.f32` a float
//! (`WinnerFirst::extreme`), or one `fmin`/`fmax` and a NaN test a double (`WideExtreme`), then one item's transform
//! and one operation, where each item took its own. Floats: the min/max return either zero where two meet, so a
//! zero extreme is -0.0 for Min if any item is -0.0 (+0.0 for Max if any is +0.0); a NaN if any item is one (the
//! order key of every NaN is one). The same result as item by item: the operator is exact.
template <typename T, bool ForMax, typename TransformOpT>
struct ExtremumFirst
{
  static constexpr bool applies =
      finds_extreme_first_v<T> && std::is_same_v<TransformOpT, typename ExtremumReduction<T, ForMax>::ToValue>;
  static constexpr bool any_load            = false;
  static constexpr bool searches_first_tile = false;
  static constexpr bool defers_index        = false;
  static constexpr bool exact_first_tile    = false;
  static constexpr bool idempotent          = true;
  static constexpr bool folds_prefix        = false;
  using Extreme = std::conditional_t<sizeof(T) == 8, WideExtreme<T, ForMax>, WinnerFirst<T, ForMax>>;

  template <bool First, int SlotStride, typename AccumT, typename VectorT, int Slots, typename OffsetT>
  FOLD_DEVICE FOLD_FORCEINLINE static void
  fold(AccumT& aggregate, const TransformOpT& transform, const VectorT (&loaded)[Slots], OffsetT first_index)
  {
    T winner;
    if constexpr (sizeof(T) == 8)
    {
      T items[Slots * sizeof(VectorT) / sizeof(T)];
      tile_items(loaded, items);
      winner = Extreme::exact_zero(items, Extreme::extreme(items)); // -0.0 for Min where the tile holds one
    }
    else
    {
      std::uint32_t words[Slots * sizeof(VectorT) / 4];
      tile_words(loaded, words);
      winner = Extreme::extreme(words);
      if constexpr (is_floating_v<T>)
      {
        winner = Extreme::exact_zero(words, winner); // -0.0 for Min where the tile holds one, +0.0 for Max
      }
    }
    const AccumT value = transform(winner, first_index);
    using Op           = std::conditional_t<ForMax, Max, Min>;
    aggregate          = First ? value : Op{}(aggregate, value);
  }
};

template <typename TransformOpT, typename T>
struct TileFold<Min, TransformOpT, T> : ExtremumFirst<T, false, TransformOpT>
{
};
template <typename TransformOpT, typename T>
struct TileFold<Max, TransformOpT, T> : ExtremumFirst<T, true, TransformOpT>
{
};

//! Min or Max (`ForMax`) of two columns of 16-bit floats, the 16-bit lanes of the 32-bit words of raw bits a thread
//! of `AgentReduceColumns` folds in row by row, with three packed integer operations a word: the signed maximum, the
//! unsigned minimum and the unsigned maximum of the bits. Over non-negative items the bits order as the values; over
//! negative ones, as unsigned numbers, as the magnitudes. So a lane's largest value is its signed maximum where that
//! is non-negative (some item is +0.0 or above), else its unsigned minimum (all negative: the least magnitude, -0.0
//! first); its smallest is its unsigned maximum where that is negative (the greatest magnitude), else its unsigned
//! minimum; and it holds a NaN where the signed maximum is above +infinity's bits or the unsigned maximum above
//! -infinity's. That is the order of fold's Min and Max (NaN first, -0.0 below +0.0), where each item took its own
//! order key and comparison (`ExtremumReduction`); the agent keys each column's extreme once. A word a struct: one
//! struct over a thread's four words, its row read by one `bit_cast`, took half Max over axis 0 of [16384, 16384] to
//! 1.34x the time on an H200 (docs/performance.md, "Axes: Min and Max as order keys").
template <typename T, bool ForMax>
struct PackedColumnExtremes
{
  static_assert(is_16bit_float_v<T>, "PackedColumnExtremes: half or bfloat16");
  std::uint32_t smax;
  std::uint32_t umin;
  std::uint32_t umax;

  FOLD_DEVICE FOLD_FORCEINLINE void start(std::uint32_t word)
  {
    smax = word;
    umin = word;
    umax = word;
  }
  FOLD_DEVICE FOLD_FORCEINLINE void fold(std::uint32_t word)
  {
    smax = __vmaxs2(smax, word);
    umin = __vminu2(umin, word);
    umax = __vmaxu2(umax, word);
  }
  //! Lane `lane`'s extreme (a NaN with any payload where it holds a NaN: its order key is every NaN's).
  FOLD_DEVICE FOLD_FORCEINLINE T extreme(int lane) const
  {
    const std::uint32_t s    = (smax >> (16 * lane)) & 0xffffu;
    const std::uint32_t lo   = (umin >> (16 * lane)) & 0xffffu;
    const std::uint32_t hi   = (umax >> (16 * lane)) & 0xffffu;
    const bool negative_s    = (s & 0x8000u) != 0;
    const bool nan           = (!negative_s && s > infinity_bits_v<T>) || hi > (0x8000u | infinity_bits_v<T>);
    const std::uint16_t bits = static_cast<std::uint16_t>(nan      ? 0x7fffu
                                                          : ForMax ? (negative_s ? lo : s)
                                                                   : ((hi & 0x8000u) != 0 ? hi : lo));
    T value;
    ::memcpy(&value, &bits, sizeof(value));
    return value;
  }
};

//! Whether `AgentReduceColumns` folds its columns as `PackedColumnExtremes`: Min or Max over 16-bit floats as
//! `ExtremumReduction` runs them (`TransformOpT` its order keys).
template <typename T, typename ReductionOpT, typename TransformOpT>
inline constexpr bool packs_column_extremes_v = false;
template <typename T, typename TransformOpT>
inline constexpr bool packs_column_extremes_v<T, Max, TransformOpT> =
    is_16bit_float_v<T>&& std::is_same_v<TransformOpT, typename ExtremumReduction<T, true>::ToValue>;
template <typename T, typename TransformOpT>
inline constexpr bool packs_column_extremes_v<T, Min, TransformOpT> =
    is_16bit_float_v<T>&& std::is_same_v<TransformOpT, typename ExtremumReduction<T, false>::ToValue>;

//! The tile is uncapped for 1- and 2-byte items only. 4-byte items keep the cap: ArgMinMax's two packed pairs then
//! give a thread 16 items, where uncapped it took 32 and 1.07-1.16x the time at 2^24 on an H100 (docs/performance.md,
//! "ArgMin/ArgMax over 4-byte items, winner first").
template <typename T>
inline constexpr bool folds_whole_tiles_v<PackedArgMax, T> = packs_in_lanes_v<T>;
template <typename OpT1, typename OpT2, typename T>
inline constexpr bool folds_whole_tiles_v<Fused<OpT1, OpT2>, T> =
    folds_whole_tiles_v<OpT1, T>&& folds_whole_tiles_v<OpT2, T>;
//! MinMax: `Min` and `Max` alone keep the cap, since they also serve TransformReduce, whose transforms fold item by
//! item; their fused pair serves MinMax alone, with `ExtremumFirst`'s transforms, which fold whole tiles. Capped by
//! its two 4-byte accumulators, MinMax over 1-byte items took two 16-byte vectors a thread a tile where Min alone
//! takes four (docs/performance.md, "MinMax over 1-byte items: the whole tile"); 2-byte items fill the cap exactly.
template <typename T>
inline constexpr bool folds_whole_tiles_v<Fused<Min, Max>, T> = packs_in_lanes_v<T>;

//! The `PackArg` an item transform of ArgMin/ArgMax is, or wraps (`PackArgOf<ShiftIndex<...>>`, in
//! dispatch_reduce_distributed.cuh); `void` for any other transform.
template <typename TransformOpT>
struct PackArgOf
{
  using type = void;
};
template <typename T, bool ForMax>
struct PackArgOf<PackArg<T, ForMax>>
{
  using type = PackArg<T, ForMax>;
};

template <typename Pack, typename InputT>
struct PackedWinnerFirst
{
  static constexpr bool applies = false;
};
template <typename T, bool ForMax>
struct PackedWinnerFirst<PackArg<T, ForMax>, T>
{
  static constexpr bool applies = true;
  using type                    = WinnerFirst<T, ForMax>;
};

template <typename TransformOpT, typename T>
struct TileFold<PackedArgMax, TransformOpT, T>
{
  using Fold                                = PackedWinnerFirst<typename PackArgOf<TransformOpT>::type, T>;
  static constexpr bool applies             = finds_winner_first_v<T> && Fold::applies;
  static constexpr bool any_load            = false;
  static constexpr bool searches_first_tile = applies;
  //! 1- and 2-byte items leave their index for later (`WinnerFirst::fold_pending`): their tiles are 16 words, whose
  //! search takes some 10 instructions a word against about 3 for a tile that does not win, and early in a thread's
  //! range some lane of the warp wins nearly every tile.
  static constexpr bool defers_index = applies && packs_in_lanes_v<T>;
  //! The fewest full tiles of a block's range that leave the index for its end: below, the end's two block
  //! reductions and dependent load cost more than one half's searches save (ArgMax over int8 and uint8 about
  //! 1.08x the time at 2^24 with 2, docs/performance.md).
  static constexpr int min_deferred_tiles = 4;
  //! 1-byte items: a block agent deferring the index also searches each thread's first tile at once (`fold`), and
  //! where the range's winner is first met there it takes that pair instead of loading the tile again (`resolve`).
  //! A tile of 16384 such items holds nearly every value the items take, so the winner is nearly always there: on
  //! an H200 ArgMax and ArgMinMax over int8 and uint8 took 0.94-0.99 of the time at 2^26-2^28 and segmented ArgMax
  //! over int8 0.96-0.97. Over 2-byte items (8192 a tile) the search was mostly wasted: half ArgMinMax 1.03-1.09x
  //! at 2^24-2^26 (docs/performance.md, "the deferred range's end without the reload").
  static constexpr bool exact_first_tile = defers_index && sizeof(T) == 1;
  static constexpr bool idempotent       = false;
  static constexpr bool folds_prefix     = false;

  template <bool First, int SlotStride, typename VectorT, int Slots, typename OffsetT>
  FOLD_DEVICE FOLD_FORCEINLINE static void
  fold(std::uint64_t& aggregate, const TransformOpT& pack, const VectorT (&loaded)[Slots], OffsetT first_index)
  {
    Fold::type::template fold<First, SlotStride>(aggregate, pack, loaded, first_index);
  }

  //! Folds the tile without its winner's index (see `WinnerFirst::fold_pending`).
  template <bool First, typename VectorT, int Slots>
  FOLD_DEVICE FOLD_FORCEINLINE static void
  fold_pending(std::uint64_t& pending, const VectorT (&loaded)[Slots], std::uint32_t ordinal)
  {
    Fold::type::template fold_pending<First>(pending, loaded, ordinal);
  }

  //! The thread's exact packed pair if its `pending` one is the block's `best` (the highest rank, first met in
  //! the lowest tile ordinal): with `exact_first_tile`, `first` (its exact pair of its first tile) where that is
  //! the tile; else found by reloading that tile (`reload(ordinal, visit)` loads it and calls `visit(loaded,
  //! first_index)`). Threads whose pending pair is not the best give 0, which every pair beats.
  template <int SlotStride, typename ReloadT>
  FOLD_DEVICE FOLD_FORCEINLINE static std::uint64_t
  resolve(std::uint64_t pending, std::uint64_t best, std::uint64_t first, const TransformOpT& pack, ReloadT&& reload)
  {
    std::uint64_t exact = 0;
    if (exact_first_tile && pending == best && static_cast<std::uint32_t>(best) == ~std::uint32_t{0})
    {
      exact = first; // its first tile (ordinal 0) holds the winner: no reload
    }
    else if (pending == best)
    {
      reload(~static_cast<std::uint32_t>(best),
             [&](const auto& loaded, auto first_index)
             {
               exact = Fold::type::template find<SlotStride>(
                   static_cast<typename Fold::type::RankT>(best >> 32), pack, loaded, first_index);
             });
    }
    return exact;
  }
};

//! VarMean over floating-point items: a thread's tile is one set whose moments it finds in two passes over its
//! registers (the mean from the items, each scaled by `1 / count`, exact where `count` is a power of two, so the
//! sum cannot overflow where the items do not; then the squared deviations from that mean), merged into the running
//! moments once. Item by item each item took a Chan/Welford merge (a division and two integer-to-float conversions
//! among some 25 instructions); here it takes three. The grouping is still fixed by the tile shape, and the loads do
//! not enter it: the tile is folded so on both the vector and the item-by-item load paths (`any_load`), so that
//! the bits do not depend on the input's alignment.
template <typename AccT, typename T>
struct TileFold<MergeMoments, ToMoments<AccT>, T>
{
  static constexpr bool applies             = std::is_floating_point_v<T> || is_16bit_float_v<T>;
  static constexpr bool any_load            = true;
  static constexpr bool searches_first_tile = false;
  static constexpr bool defers_index        = false;
  static constexpr bool exact_first_tile    = false;
  static constexpr bool idempotent          = false;
  static constexpr bool folds_prefix        = true;

  template <bool First, int SlotStride, typename VectorT, int Slots, typename OffsetT>
  FOLD_DEVICE FOLD_FORCEINLINE static void
  fold(Moments<AccT>& aggregate, const ToMoments<AccT>&, const VectorT (&loaded)[Slots], OffsetT)
  {
    constexpr int count         = Slots * static_cast<int>(sizeof(VectorT) / sizeof(T));
    constexpr bool power_of_two = (count & (count - 1)) == 0;
    const AccT scale            = power_of_two ? AccT{1} / static_cast<AccT>(count) : AccT{1};
    const Moments<AccT> tile    = set_of(items_of(loaded), count, scale, !power_of_two);
    aggregate                   = First ? tile : MergeMoments{}(aggregate, tile);
  }

  //! A partial tile's share of a thread: its first `count` loaded items (`0 < count`, its whole slots; the rest as
  //! loaded, clamped, and left out) as one set, as `fold` takes a full tile's, the items scaled by `1/count`. An
  //! item at a time, each a Chan merge with a division, 16 items a thread took float VarMean over 2^12 items to
  //! 2.90 us under graph replay on an H200, against 2.11 as one set (docs/performance.md, "VarMean's partial tiles
  //! as sets").
  template <bool First, typename VectorT, int Slots>
  FOLD_DEVICE FOLD_FORCEINLINE static void
  fold_prefix(Moments<AccT>& aggregate, const ToMoments<AccT>&, const VectorT (&loaded)[Slots], int count)
  {
    const Moments<AccT> set = set_of(items_of(loaded), count, AccT{1} / static_cast<AccT>(count), false);
    aggregate               = First ? set : MergeMoments{}(aggregate, set);
  }

private:
  template <int Count>
  struct Items
  {
    AccT items[Count];
  };

  //! A thread's loaded tile as items in `AccT`.
  template <typename VectorT, int Slots, int Count = Slots* static_cast<int>(sizeof(VectorT) / sizeof(T))>
  FOLD_DEVICE FOLD_FORCEINLINE static Items<Count> items_of(const VectorT (&loaded)[Slots])
  {
    T loaded_items[Count];
    tile_items(loaded, loaded_items);
    Items<Count> items;
#pragma unroll
    for (int i = 0; i < Count; ++i)
    {
      items.items[i] = convert<AccT>(loaded_items[i]);
    }
    return items;
  }

  //! The moments of the first `count` of `items`: the mean from the items times `scale`, summed (then divided by
  //! `count` where `divide`), and M2 from the squared deviations from it, four independent sums each.
  template <int Count>
  FOLD_DEVICE FOLD_FORCEINLINE static Moments<AccT>
  set_of(const Items<Count>& items, int count, AccT scale, bool divide)
  {
    constexpr int lanes = Count >= 4 ? 4 : Count; // independent partial sums
    AccT sums[lanes]    = {};
#pragma unroll
    for (int i = 0; i < Count; ++i)
    {
      if (i < count)
      {
        sums[i % lanes] = fused_multiply_add(items.items[i], scale, sums[i % lanes]);
      }
    }
    AccT mean = sums[0];
#pragma unroll
    for (int k = 1; k < lanes; ++k)
    {
      mean = mean + sums[k];
    }
    if (divide)
    {
      mean = mean / static_cast<AccT>(count);
    }
    AccT squares[lanes] = {};
#pragma unroll
    for (int i = 0; i < Count; ++i)
    {
      if (i < count)
      {
        const AccT deviation = items.items[i] - mean;
        squares[i % lanes]   = fused_multiply_add(deviation, deviation, squares[i % lanes]);
      }
    }
    AccT m2 = squares[0];
#pragma unroll
    for (int k = 1; k < lanes; ++k)
    {
      m2 = m2 + squares[k];
    }
    return Moments<AccT>{mean, m2, count};
  }
};

//! VarMean's partials (pass 2, and the single-pass kernel's last block): a thread's tile of sets' moments merged as
//! one step, `n = sum n_i`, `mean = sum (n_i / n) mean_i`, `M2 = sum (M2_i + n_i (mean_i - mean)^2)`: one division
//! and a conversion a set, where merging them one by one took a division and two 64-bit conversions each on one
//! dependent chain. Empty sets weigh nothing. Folded so on every load path (`any_load`).
template <typename AccT>
struct TileFold<MergeMoments, CastTo<Moments<AccT>>, Moments<AccT>>
{
  static constexpr bool applies             = true;
  static constexpr bool any_load            = true;
  static constexpr bool searches_first_tile = false;
  static constexpr bool defers_index        = false;
  static constexpr bool exact_first_tile    = false;
  static constexpr bool idempotent          = false;
  static constexpr bool folds_prefix        = false;

  template <bool First, int SlotStride, typename VectorT, int Slots, typename OffsetT>
  FOLD_DEVICE FOLD_FORCEINLINE static void
  fold(Moments<AccT>& aggregate, const CastTo<Moments<AccT>>&, const VectorT (&loaded)[Slots], OffsetT)
  {
    using SetT          = Moments<AccT>;
    constexpr int count = Slots * static_cast<int>(sizeof(VectorT) / sizeof(SetT));
    SetT sets[count];
    tile_items(loaded, sets);
    std::int64_t n = 0;
#pragma unroll
    for (int i = 0; i < count; ++i)
    {
      n += sets[i].count;
    }
    const AccT inverse = n > 0 ? AccT{1} / static_cast<AccT>(n) : AccT{0};
    AccT mean{0};
#pragma unroll
    for (int i = 0; i < count; ++i)
    {
      mean = fused_multiply_add(static_cast<AccT>(sets[i].count) * inverse, sets[i].mean, mean);
    }
    AccT m2{0};
#pragma unroll
    for (int i = 0; i < count; ++i)
    {
      const AccT deviation = sets[i].mean - mean;
      m2 = fused_multiply_add(static_cast<AccT>(sets[i].count) * deviation, deviation, m2 + sets[i].m2);
    }
    const SetT tile{mean, m2, n};
    aggregate = First ? tile : MergeMoments{}(aggregate, tile);
  }
};

template <typename T>
inline constexpr bool folds_whole_tiles_v<MergeMoments, T> = std::is_floating_point_v<T> || is_16bit_float_v<T>;

//! VarMean's units are 16 times longer (at most 1024): each unit's block reduction is five warp steps of Chan merges
//! (a division and some 25 instructions, 16-byte shuffles) and a fold of the warps'. On an H100 against 16384 units
//! VarMean took 0.82-0.98 of the time at 2^24-2^28 and 0.99-1.0 at 2^30 (docs/performance.md, "VarMean: longer
//! units").
template <>
inline constexpr int unit_divisor_v<MergeMoments> = 16;

//! Two fused reductions (ArgMinMax): each half folds the tile on its own, where both can.
template <typename OpT1, typename OpT2, typename TransformT1, typename TransformT2, typename InputT>
struct TileFold<Fused<OpT1, OpT2>, Fused<TransformT1, TransformT2>, InputT>
{
  using FirstFold                = TileFold<OpT1, TransformT1, InputT>;
  using SecondFold               = TileFold<OpT2, TransformT2, InputT>;
  static constexpr bool applies  = FirstFold::applies && SecondFold::applies;
  static constexpr bool any_load = FirstFold::any_load && SecondFold::any_load;
  static constexpr bool searches_first_tile =
      applies && (FirstFold::searches_first_tile || SecondFold::searches_first_tile);
  static constexpr bool defers_index = applies && FirstFold::defers_index && SecondFold::defers_index;
  //! Two halves search twice as often: from 2 full tiles (ArgMinMax over 1- and 2-byte items 0.88-0.95 of the time
  //! at 2^24 against 4, docs/performance.md).
  static constexpr int min_deferred_tiles = 2;
  static constexpr bool exact_first_tile  = applies && FirstFold::exact_first_tile && SecondFold::exact_first_tile;
  //! MinMax: both halves idempotent, so a partial tile is folded at once as Min's is.
  static constexpr bool idempotent   = applies && FirstFold::idempotent && SecondFold::idempotent;
  static constexpr bool folds_prefix = false;

  template <bool First, int SlotStride, typename AccumT, typename VectorT, int Slots, typename OffsetT>
  FOLD_DEVICE FOLD_FORCEINLINE static void fold(AccumT& aggregate,
                                                const Fused<TransformT1, TransformT2>& transform,
                                                const VectorT (&loaded)[Slots],
                                                OffsetT first_index)
  {
    FirstFold::template fold<First, SlotStride>(aggregate.first, transform.first, loaded, first_index);
    SecondFold::template fold<First, SlotStride>(aggregate.second, transform.second, loaded, first_index);
  }

  template <bool First, typename AccumT, typename VectorT, int Slots>
  FOLD_DEVICE FOLD_FORCEINLINE static void
  fold_pending(AccumT& pending, const VectorT (&loaded)[Slots], std::uint32_t ordinal)
  {
    FirstFold::template fold_pending<First>(pending.first, loaded, ordinal);
    SecondFold::template fold_pending<First>(pending.second, loaded, ordinal);
  }

  //! Each half resolved on its own: the two may have met their winners in different tiles.
  template <int SlotStride, typename AccumT, typename ReloadT>
  FOLD_DEVICE FOLD_FORCEINLINE static AccumT resolve(const AccumT& pending,
                                                     const AccumT& best,
                                                     const AccumT& first,
                                                     const Fused<TransformT1, TransformT2>& transform,
                                                     ReloadT&& reload)
  {
    return {
        FirstFold::template resolve<SlotStride>(pending.first, best.first, first.first, transform.first, reload),
        SecondFold::template resolve<SlotStride>(pending.second, best.second, first.second, transform.second, reload)};
  }
};

} // namespace detail
FOLD_NAMESPACE_END
