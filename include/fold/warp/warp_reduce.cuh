// SPDX-License-Identifier: Apache-2.0
//! @file
//! WarpReduce: the reduction of one value per lane across a logical warp of 1..32 lanes (a power of two).
//! Types that can be shuffled (`fold::is_shuffleable`) move between lanes with `__shfl_down_sync`, 32 bits at a
//! time; others go through shared memory. Both paths combine neighbours lower-lane-first, so the result is
//! `x0 op x1 op ... op x(n-1)` in lane order: an associative operator need not be commutative.
#pragma once

#include <fold/util/macros.cuh>
#include <fold/util/operators.cuh>
#include <fold/util/type_traits.cuh>
#include <fold/util/uninitialized.cuh>

#include <cstring>

FOLD_NAMESPACE_BEGIN

namespace detail
{
//! A warp shuffle of any trivially copyable value, one 32-bit word at a time: `shuffle(word)` is the
//! `__shfl_*_sync` of one word (arithmetic types of 4 or 8 bytes go whole).
template <typename T, typename ShuffleT>
FOLD_DEVICE FOLD_FORCEINLINE T shuffle_words(const T& value, ShuffleT shuffle)
{
  if constexpr ((sizeof(T) == 4 || sizeof(T) == 8) && std::is_arithmetic_v<T>)
  {
    return shuffle(value);
  }
  else
  {
    constexpr int words        = (sizeof(T) + 3) / 4;
    unsigned int buffer[words] = {};
    std::memcpy(buffer, &value, sizeof(T));
#pragma unroll
    for (int i = 0; i < words; ++i)
    {
      buffer[i] = shuffle(buffer[i]);
    }
    T result;
    std::memcpy(&result, buffer, sizeof(T));
    return result;
  }
}

//! A pair member by member: its padding (the 4 bytes beside an 8-byte key and a 4-byte value, as in the
//! arg-reductions' accumulators) is not shuffled, so such a pair takes 3 shuffles, not 4.
template <typename KeyT, typename ValueT, typename ShuffleT>
FOLD_DEVICE FOLD_FORCEINLINE KeyValuePair<KeyT, ValueT> shuffle_words(const KeyValuePair<KeyT, ValueT>& pair,
                                                                      ShuffleT shuffle)
{
  return {shuffle_words(pair.key, shuffle), shuffle_words(pair.value, shuffle)};
}

//! `__shfl_down_sync` for any trivially copyable type.
template <typename T>
FOLD_DEVICE FOLD_FORCEINLINE T shuffle_down(const T& value, int offset, int width)
{
  return shuffle_words(value, [=](auto word) { return __shfl_down_sync(0xffffffffu, word, offset, width); });
}

//! `__shfl_up_sync` across the whole warp, for any trivially copyable type.
template <typename T>
FOLD_DEVICE FOLD_FORCEINLINE T shuffle_up(const T& value, int offset)
{
  return shuffle_words(value, [=](auto word) { return __shfl_up_sync(0xffffffffu, word, offset); });
}

//! `__shfl_sync` (lane `source`'s value) across the whole warp, for any trivially copyable type.
template <typename T>
FOLD_DEVICE FOLD_FORCEINLINE T shuffle_idx(const T& value, int source)
{
  return shuffle_words(value, [=](auto word) { return __shfl_sync(0xffffffffu, word, source); });
}
} // namespace detail

//! @tparam T the value type
//! @tparam LogicalWarpThreads lanes per logical warp: a power of two from 1 to 32. Every lane of the hardware
//!   warp must call the same member function together.
template <typename T, int LogicalWarpThreads = 32>
class WarpReduce
{
  static_assert(LogicalWarpThreads >= 1 && LogicalWarpThreads <= 32 &&
                    (LogicalWarpThreads & (LogicalWarpThreads - 1)) == 0,
                "WarpReduce: LogicalWarpThreads must be a power of two from 1 to 32");

  static constexpr bool use_shuffles = is_shuffleable_v<T>;

  struct SharedStorage
  {
    detail::Uninitialized<T, LogicalWarpThreads> values;
  };
  struct NoStorage
  {
  };

public:
  //! Shared memory the reduction needs: empty for shuffle-able types. One per logical warp.
  using TempStorage = std::conditional_t<use_shuffles, NoStorage, SharedStorage>;

  FOLD_DEVICE FOLD_FORCEINLINE explicit WarpReduce(TempStorage& storage)
      : storage_(storage)
      , lane_(static_cast<int>(threadIdx.x) % LogicalWarpThreads)
  {
  }

  //! The reduction of every lane's `value` in lane order. The result is valid in lane 0 of the logical warp.
  template <typename ReductionOpT>
  FOLD_DEVICE FOLD_FORCEINLINE T Reduce(T value, ReductionOpT op)
  {
    return Reduce(value, op, LogicalWarpThreads);
  }

  //! The reduction of the values of lanes `[0, num_valid)` in lane order (1 <= num_valid <= LogicalWarpThreads);
  //! the other lanes' values are never read. The result is valid in lane 0.
  template <typename ReductionOpT>
  FOLD_DEVICE FOLD_FORCEINLINE T Reduce(T value, ReductionOpT op, int num_valid)
  {
    // After the step with offset `o`, lane `i` (a multiple of 2o) holds lanes [i, min(i + 2o, num_valid)).
    if constexpr (use_shuffles)
    {
#pragma unroll
      for (int offset = 1; offset < LogicalWarpThreads; offset *= 2)
      {
        const T other = detail::shuffle_down(value, offset, LogicalWarpThreads);
        if (lane_ + offset < num_valid)
        {
          value = op(value, other);
        }
      }
      return value;
    }
    else
    {
      T* slots = storage_.values.data();
      detail::construct_at(slots + lane_, value);
      __syncwarp();
#pragma unroll
      for (int offset = 1; offset < LogicalWarpThreads; offset *= 2)
      {
        if (lane_ % (2 * offset) == 0 && lane_ + offset < num_valid)
        {
          slots[lane_] = op(slots[lane_], slots[lane_ + offset]);
        }
        __syncwarp();
      }
      const T result = slots[lane_];
      __syncwarp(); // the storage may be reused as soon as this returns
      return result;
    }
  }

private:
  TempStorage& storage_;
  int lane_;
};

namespace detail
{
//! The reduction, in lane order, of the values of lanes `[0, num_valid)` of each aligned group of `width` lanes
//! (a power of two from 1 to 32, the same in every lane; `1 <= num_valid <= width`, per group). Every lane of the
//! warp must call it; the result is valid in each group's first lane. The same tree as `WarpReduce` of `width`
//! lanes; any trivially copyable `T` moves with shuffles.
template <typename T, typename ReductionOpT>
FOLD_DEVICE FOLD_FORCEINLINE T reduce_lane_groups(T value, ReductionOpT op, int width, int num_valid)
{
  static_assert(std::is_trivially_copyable_v<T>, "reduce_lane_groups: the value type must be trivially copyable");
  const int rank = static_cast<int>(threadIdx.x) % width;
  for (int offset = 1; offset < width; offset *= 2)
  {
    const T other = shuffle_down(value, offset, width);
    if (rank + offset < num_valid)
    {
      value = op(value, other);
    }
  }
  return value;
}

//! `Rows` reductions in one warp: row `r` is the warp's values `rows[r]` in lane order, and the result, valid in
//! lane 0, is the fold of the rows' reductions in row order, each row reduced in lane order (`Rows` a power of two
//! from 2 to 32; any trivially copyable `T`). Only XOR shuffles, each step combining lanes `l` and `l ^ o` lower
//! lane first: at `o = 1, ..., Rows / 2` the two split the rows they hold, the one with bit `o` clear keeping the
//! first half (each step halves the rows a lane holds, one shuffle per row kept); then each lane holds one row over
//! `Rows` aligned lanes (its row is its lane's low bits reversed), `o = Rows, ..., 16` reduce that over the warp, and
//! `o = Rows / 2, ..., 1` fold the rows pairwise, rows `2k` and `2k + 1` first. `Rows - 1 + 5` shuffles of a `T` (8
//! for 4 rows, where four `WarpReduce`s take 20). The tree depends only on `Rows`.
template <int Rows, typename T, typename ReductionOpT>
FOLD_DEVICE FOLD_FORCEINLINE T reduce_rows_in_order(const T (&rows)[Rows], ReductionOpT op)
{
  static_assert(Rows >= 2 && Rows <= 32 && (Rows & (Rows - 1)) == 0,
                "reduce_rows_in_order: 2 to 32 rows, a power of two");
  static_assert(std::is_trivially_copyable_v<T>, "reduce_rows_in_order: the value type must be trivially copyable");
  const int lane = static_cast<int>(threadIdx.x) % 32;
  // `mine` and the value lane `lane ^ offset` sent, combined lower lane first.
  auto step = [&](const T& mine, const T& sent, int offset)
  {
    const bool upper = (lane & offset) != 0;
    const T theirs   = shuffle_words(sent, [=](auto word) { return __shfl_xor_sync(0xffffffffu, word, offset); });
    return op(upper ? theirs : mine, upper ? mine : theirs);
  };
  T held[Rows];
#pragma unroll
  for (int r = 0; r < Rows; ++r)
  {
    held[r] = rows[r];
  }
#pragma unroll
  for (int offset = 1; offset < Rows; offset *= 2) // before this step, held[0, Rows / offset): the rows this lane holds
  {
    const bool upper = (lane & offset) != 0;
    const int half   = Rows / offset / 2;
#pragma unroll
    for (int j = 0; j < Rows / 2; ++j)
    {
      if (j < half)
      {
        const T first = held[j], second = held[j + half]; // (values: selected lvalues would put `held` in memory)
        held[j] = step(upper ? second : first, upper ? first : second, offset);
      }
    }
  }
  T value = held[0];
#pragma unroll
  for (int offset = Rows; offset < 32; offset *= 2)
  {
    value = step(value, value, offset);
  }
#pragma unroll
  for (int offset = Rows / 2; offset >= 1; offset /= 2)
  {
    value = step(value, value, offset);
  }
  return value;
}
} // namespace detail

FOLD_NAMESPACE_END
