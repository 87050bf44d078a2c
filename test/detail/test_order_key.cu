// SPDX-License-Identifier: Apache-2.0
// The order keys of Min, Max, ArgMin and ArgMax over floating-point items, on the host (no GPU): one integer
// comparison of two keys orders their values as `<` does, -0.0 below +0.0, every NaN at `nan_key`; a key gives its
// value back bit for bit; `flip_negative` is its own inverse and flips the magnitude bits of negative words only.
#include <fold/detail/order_key.cuh>

#include "test_util.cuh"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace
{
//! Special values, then random bit patterns (NaNs left out: they are checked apart).
template <typename T, typename Bits>
std::vector<T> values_of(std::uint64_t seed)
{
  using L           = std::numeric_limits<T>;
  std::vector<T> xs = {T(0),
                       -T(0),
                       T(1),
                       -T(1),
                       L::infinity(),
                       -L::infinity(),
                       L::max(),
                       L::lowest(),
                       L::min(),
                       -L::min(),
                       L::denorm_min(),
                       -L::denorm_min(),
                       L::epsilon(),
                       -L::epsilon(),
                       T(0.5),
                       T(-0.5)};
  fold_test::Random random{seed};
  while (xs.size() < 600)
  {
    const Bits bits = static_cast<Bits>(random.next());
    T x;
    std::memcpy(&x, &bits, sizeof(T));
    if (!std::isnan(x))
    {
      xs.push_back(x);
    }
  }
  return xs;
}

//! `a` before `b` in the order of `<` with -0.0 below +0.0 (neither a NaN).
template <typename T>
bool before(T a, T b)
{
  return a < b || (a == b && std::signbit(a) && !std::signbit(b));
}

template <typename T, typename Bits, bool ForMax>
void check_keys(std::uint64_t seed)
{
  using fold::detail::from_order_key;
  using fold::detail::nan_key;
  using fold::detail::order_key;
  const std::vector<T> xs = values_of<T, Bits>(seed);
  for (const T a : xs)
  {
    INFO("a = " << a);
    REQUIRE(fold_test::same_bits(from_order_key<T, ForMax>(order_key<ForMax>(a)), a));
    REQUIRE(order_key<ForMax>(a) != nan_key<T, ForMax>);
    for (const T b : xs)
    {
      INFO("b = " << b);
      REQUIRE((order_key<ForMax>(a) < order_key<ForMax>(b)) == before(a, b));
    }
  }
  // NaNs of both signs: every bit set, the positive one below it, and the limits' quiet and signalling ones.
  std::vector<T> nans = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::signaling_NaN()};
  for (const Bits bits : {static_cast<Bits>(~Bits{0}), static_cast<Bits>(~Bits{0} >> 1)})
  {
    T nan;
    std::memcpy(&nan, &bits, sizeof(T));
    nans.push_back(nan);
  }
  for (const T nan : nans)
  {
    REQUIRE(std::isnan(nan));
    REQUIRE(order_key<ForMax>(nan) == nan_key<T, ForMax>);
    REQUIRE(order_key<ForMax>(-nan) == nan_key<T, ForMax>);
  }
  REQUIRE(std::isnan(from_order_key<T, ForMax>(nan_key<T, ForMax>)));
}

template <typename KeyT>
void check_flip(std::uint64_t seed)
{
  using Unsigned = std::make_unsigned_t<KeyT>;
  fold_test::Random random{seed};
  for (int i = 0; i < 10000; ++i)
  {
    const auto bits      = static_cast<KeyT>(random.next());
    const KeyT magnitude = std::numeric_limits<KeyT>::max();
    const KeyT expected =
        bits < 0 ? static_cast<KeyT>(static_cast<Unsigned>(bits) ^ static_cast<Unsigned>(magnitude)) : bits;
    INFO("bits " << bits);
    REQUIRE(fold::detail::flip_negative(bits) == expected);
    REQUIRE(fold::detail::flip_negative(fold::detail::flip_negative(bits)) == bits);
  }
  REQUIRE(fold::detail::flip_negative(KeyT{0}) == KeyT{0});
  REQUIRE(fold::detail::flip_negative(KeyT{-1}) == std::numeric_limits<KeyT>::min());
  REQUIRE(fold::detail::flip_negative(std::numeric_limits<KeyT>::min()) == KeyT{-1});
}
} // namespace

TEST_CASE("Order keys order float and double as < does, -0.0 below +0.0, NaNs at the NaN key", "[order-key]")
{
  check_keys<float, std::uint32_t, false>(11);
  check_keys<float, std::uint32_t, true>(12);
  check_keys<double, std::uint64_t, false>(13);
  check_keys<double, std::uint64_t, true>(14);
}

TEST_CASE("flip_negative flips the magnitude bits of negative words, and is its own inverse", "[order-key]")
{
  check_flip<std::int8_t>(23);
  check_flip<std::int16_t>(24);
  check_flip<std::int32_t>(21);
  check_flip<std::int64_t>(22);
}
