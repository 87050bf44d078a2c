// SPDX-License-Identifier: Apache-2.0
//! @file
//! Where a reduction's result goes. `store_result(out, result)` writes one result through an output iterator or
//! an output adapter; `store_segment(out, i, result)` writes the `i`-th of a segmented reduction. The adapters
//! turn what the kernels reduce into what the caller asked for: two outputs from one pair (`ArgOutput`), a packed
//! pair unpacked (`UnpackArg`), an order key turned back into its value (`FromOrderKey`), a segment's
//! `KeyValuePair` (`PairOutput`). Each says itself whether it is null (`is_null`), so the dispatch checks any
//! output with one call.
#pragma once

#include <fold/detail/extremum.cuh>
#include <fold/detail/order_key.cuh>
#include <fold/util/macros.cuh>
#include <fold/util/operators.cuh>
#include <fold/util/type_traits.cuh>

#include <cstdint>
#include <type_traits>
#include <utility>

FOLD_NAMESPACE_BEGIN
namespace detail
{

template <typename T, typename = void>
struct has_is_null : std::false_type
{
};
template <typename T>
struct has_is_null<T, std::void_t<decltype(std::declval<const T&>().is_null())>> : std::true_type
{
};

//! Whether an input or output is a null pointer: a raw pointer that is `nullptr`, or an output adapter whose
//! underlying outputs are (its `is_null()`). Any other iterator is never null.
template <typename IteratorT>
bool is_null(const IteratorT& it)
{
  if constexpr (std::is_pointer_v<IteratorT>)
  {
    return it == nullptr;
  }
  else if constexpr (has_is_null<IteratorT>::value)
  {
    return it.is_null();
  }
  else
  {
    return false;
  }
}

//! Writes `result` to `*out`, converted to the output's value type where it has one.
template <typename OutputIteratorT, typename T>
FOLD_DEVICE FOLD_FORCEINLINE void store_result(OutputIteratorT out, const T& result)
{
  using OutputT = non_void_value_t<OutputIteratorT, T>;
  *out          = convert<OutputT>(result);
}

//! Writes `result` as the `i`-th result of a segmented reduction.
template <typename OutputIteratorT, typename T>
FOLD_DEVICE FOLD_FORCEINLINE void store_segment(OutputIteratorT out, std::int64_t i, const T& result)
{
  store_result(out + i, result);
}

//! Two outputs written from one key-value result: the value to `values`, the key (index) to `keys`.
template <typename ValueOutputIteratorT, typename KeyOutputIteratorT>
struct ArgOutput
{
  ValueOutputIteratorT values;
  KeyOutputIteratorT keys;

  bool is_null() const { return detail::is_null(values) || detail::is_null(keys); }
};

template <typename ValueOutputIteratorT, typename KeyOutputIteratorT, typename K, typename V>
FOLD_DEVICE FOLD_FORCEINLINE void store_result(ArgOutput<ValueOutputIteratorT, KeyOutputIteratorT> out,
                                               const KeyValuePair<K, V>& result)
{
  store_result(out.values, result.value);
  store_result(out.keys, result.key);
}

//! The outputs of ArgMin/ArgMax reduced as packed pairs (`PackedArgReduction` `PackedT`): a packed result is
//! unpacked into `out`; an unpacked pair (the result for empty input) is written as it is.
template <typename ArgOutputT, typename PackedT>
struct UnpackArg
{
  ArgOutputT out;

  bool is_null() const { return detail::is_null(out); }
};

template <typename ArgOutputT, typename PackedT>
FOLD_DEVICE FOLD_FORCEINLINE void store_result(UnpackArg<ArgOutputT, PackedT> out,
                                               const typename PackedT::PackedPair& packed)
{
  store_result(out.out, PackedT::unpack(packed));
}

template <typename ArgOutputT, typename PackedT, typename K, typename V>
FOLD_DEVICE FOLD_FORCEINLINE void store_result(UnpackArg<ArgOutputT, PackedT> out, const KeyValuePair<K, V>& pair)
{
  store_result(out.out, pair);
}

template <typename ArgOutputT, typename PackedT>
FOLD_DEVICE FOLD_FORCEINLINE void
store_segment(UnpackArg<ArgOutputT, PackedT> out, std::int64_t i, const typename PackedT::PackedPair& packed)
{
  store_segment(out.out, i, PackedT::unpack(packed));
}

template <typename ArgOutputT, typename PackedT, typename K, typename V>
FOLD_DEVICE FOLD_FORCEINLINE void
store_segment(UnpackArg<ArgOutputT, PackedT> out, std::int64_t i, const KeyValuePair<K, V>& pair)
{
  store_segment(out.out, i, pair);
}

//! An output written through an order key: the key is turned back into the `T` it came from (Min, Max, ArgMin
//! and ArgMax over floating-point input reduce keys, see `order_key_t`).
template <typename OutputIteratorT, typename T, bool ForMax>
struct FromOrderKey
{
  OutputIteratorT out;

  bool is_null() const { return detail::is_null(out); }
};

template <typename OutputIteratorT, typename T, bool ForMax, typename KeyT>
FOLD_DEVICE FOLD_FORCEINLINE void store_result(FromOrderKey<OutputIteratorT, T, ForMax> out, const KeyT& key)
{
  store_result(out.out, from_order_key<T, ForMax>(key));
}

template <typename OutputIteratorT, typename T, bool ForMax, typename KeyT>
FOLD_DEVICE FOLD_FORCEINLINE void
store_segment(FromOrderKey<OutputIteratorT, T, ForMax> out, std::int64_t i, const KeyT& result)
{
  store_result(FromOrderKey<OutputIteratorT, T, ForMax>{out.out + i}, result);
}

//! Where Min, Max, ArgMin and ArgMax over `T` write their value: `out` itself, or through `FromOrderKey` when
//! the values travel as order keys (`ExtremumValues`).
template <typename T, bool ForMax, typename OutputIteratorT>
constexpr auto extremum_output(OutputIteratorT out)
{
  if constexpr (ExtremumValues<T, ForMax>::keyed)
  {
    return FromOrderKey<OutputIteratorT, T, ForMax>{out};
  }
  else
  {
    return out;
  }
}

//! The `KeyValuePair` output of the segmented ArgMin and ArgMax (and of DeviceReduce's single-output ones): the index
//! within the segment and the value, turned back from an order key where the values travel as keys.
template <typename OutputIteratorT, typename T, bool ForMax>
struct PairOutput
{
  OutputIteratorT out;

  bool is_null() const { return detail::is_null(out); }
};

template <typename OutputIteratorT, typename T, bool ForMax, typename V>
FOLD_DEVICE FOLD_FORCEINLINE void
store_segment(PairOutput<OutputIteratorT, T, ForMax> out, std::int64_t i, const KeyValuePair<std::int64_t, V>& result)
{
  using PairT = non_void_value_t<OutputIteratorT, KeyValuePair<int, T>>;
  using KeyT  = decltype(PairT::key);
  using ValT  = decltype(PairT::value);
  if constexpr (ExtremumValues<T, ForMax>::keyed)
  {
    out.out[i] = PairT{static_cast<KeyT>(result.key), convert<ValT>(from_order_key<T, ForMax>(result.value))};
  }
  else
  {
    out.out[i] = PairT{static_cast<KeyT>(result.key), convert<ValT>(result.value)};
  }
}

//! The one result of the single-output `DeviceReduce::ArgMin`/`ArgMax`, as the first segment's.
template <typename OutputIteratorT, typename T, bool ForMax, typename K, typename V>
FOLD_DEVICE FOLD_FORCEINLINE void store_result(PairOutput<OutputIteratorT, T, ForMax> out,
                                               const KeyValuePair<K, V>& result)
{
  store_segment(out, 0, KeyValuePair<std::int64_t, V>{static_cast<std::int64_t>(result.key), result.value});
}

} // namespace detail
FOLD_NAMESPACE_END
