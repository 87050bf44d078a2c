// SPDX-License-Identifier: Apache-2.0
// Non-commutative operators through DeviceReduce::Reduce: the result must be init op x[0] op ... op x[n - 1] in
// index order, on every path (single tile, single pass, two passes), at every grid size, from aligned and
// misaligned pointers and from iterators, against a sequential fold on the host. Operators declared commutative
// (fold::commutative, fold::is_commutative) take the fast path and must be right too.
#include <fold/device/device_reduce.cuh>

#include "device_test_util.cuh"
#include "ops_util.cuh"
#include "test_util.cuh"

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>
#include <vector>

namespace
{
using fold::detail::ReducePath;

//! The affine map x -> a * x + b (mod 2^32). Composition is associative and not commutative. A uint32 item `v`
//! is the map x -> (2v + 1) x + v, so DeviceReduce reads 4-byte primitive items with vector loads and reduces
//! them in an 8-byte accumulator.
struct Affine
{
  std::uint32_t a = 1, b = 0;
  Affine() = default;
  __host__ __device__ constexpr Affine(std::uint32_t a_, std::uint32_t b_)
      : a(a_)
      , b(b_)
  {
  }
  //! Item `v` as the map x -> (2v + 1) x + (v^2 + 0x6a09e667). Two such maps commute only where
  //! (v - w)(v w - 0x6a09e667) is 0 mod 2^31, and each is invertible (2v + 1 is odd), so trading any two items changes
  //! a composition. (x -> (2v + 1) x + v, the map these tests had, fixes x = -1/2 for every v: such maps commute,
  //! and a composition of them showed only where `init` went, not the items' order.)
  __host__ __device__ constexpr Affine(std::uint32_t v) // NOLINT: items convert implicitly
      : a(2 * v + 1)
      , b(v * v + 0x6a09e667u)
  {
  }
  friend bool operator==(const Affine& x, const Affine& y) { return x.a == y.a && x.b == y.b; }
  friend std::ostream& operator<<(std::ostream& os, const Affine& f) { return os << "(" << f.a << ", " << f.b << ")"; }
};

//! `g` after `f`: first f, then g.
struct Then
{
  __host__ __device__ Affine operator()(const Affine& f, const Affine& g) const { return {f.a * g.a, f.b * g.a + g.b}; }
};
static_assert(!fold::is_commutative_v<Then>);

//! An item that may be absent; `First` keeps the first present one, `Last` the last.
struct Tagged
{
  std::uint32_t value;
  std::uint32_t present;
  friend bool operator==(const Tagged& x, const Tagged& y) { return x.value == y.value && x.present == y.present; }
  friend std::ostream& operator<<(std::ostream& os, const Tagged& t)
  {
    return os << "{" << t.value << ", " << t.present << "}";
  }
};
struct First
{
  __host__ __device__ Tagged operator()(const Tagged& x, const Tagged& y) const { return x.present ? x : y; }
};
struct Last
{
  __host__ __device__ Tagged operator()(const Tagged& x, const Tagged& y) const { return y.present ? y : x; }
};

//! Items of the iterator test: present only where index % 1000 == 999.
struct Make
{
  __host__ __device__ Tagged operator()(std::uint64_t i) const
  {
    return {static_cast<std::uint32_t>(i >> 8), i % 1000 == 999 ? 1u : 0u};
  }
};

//! The larger absolute value: commutative, but fold cannot know unless told.
struct MaxAbs
{
  __host__ __device__ std::int32_t operator()(std::int32_t a, std::int32_t b) const
  {
    const std::int32_t x = a < 0 ? -a : a, y = b < 0 ? -b : b;
    return x < y ? y : x;
  }
};

template <typename T, typename OpT>
T host_fold(const std::vector<T>& values, std::size_t offset, std::size_t n, T init, OpT op)
{
  T result = init;
  for (std::size_t i = 0; i < n; ++i)
  {
    result = op(result, values[offset + i]);
  }
  return result;
}

//! DeviceReduce::Reduce of `[d_in, d_in + n)` on `path` with the grid capped at `max_grid` (0: no cap).
template <typename OutT, typename InputIteratorT, typename OpT, typename InitT>
OutT device_fold(InputIteratorT d_in, std::size_t n, OpT op, InitT init, ReducePath path, int max_grid)
{
  fold_test::ForceDispatch force(path, max_grid);
  fold_test::DeviceBuffer<OutT> d_out(1);
  d_out.poison();
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      { return fold::DeviceReduce::Reduce(temp, bytes, d_in, d_out.get(), n, op, init, 0, fold_test::forced); });
  return d_out.front();
}

//! The sizes of every class: empty, one item, a warp, around one tile, many tiles (single pass), more than
//! one block per SM (two passes), and more than `max_units` tiles (units of several tiles).
std::vector<std::size_t> order_sizes(std::size_t tile)
{
  return {0, 1, 2, 31, 33, tile - 1, tile, tile + 1, 3 * tile + 5, 100 * tile + 77, 3000 * tile + 1};
}

struct PathCase
{
  ReducePath path;
  int max_grid;
};
const PathCase path_cases[] = {{ReducePath::automatic, 0},
                               {ReducePath::single_pass, 0},
                               {ReducePath::two_pass, 0},
                               {ReducePath::single_pass, 1},
                               {ReducePath::two_pass, 3},
                               {ReducePath::two_pass, 131}};
} // namespace

TEST_CASE("Affine maps compose in index order on every path, from aligned and misaligned pointers", "[device][order]")
{
  const std::size_t tile = fold_test::tile_items<Then, std::uint32_t, Affine>();
  const Affine init{3, 7};
  for (std::size_t n : order_sizes(tile))
  {
    const auto values = fold_test::random_values<std::uint32_t>(n + 3, n, fold_test::Values::full_range);
    fold_test::DeviceBuffer<std::uint32_t> d_in(values);
    for (std::size_t offset : {0, 1, 3}) // 16-byte aligned, then not
    {
      const Affine expected = host_fold<Affine>({values.begin(), values.end()}, offset, n, init, Then{});
      for (const PathCase& c : path_cases)
      {
        if (n <= tile && c.path != ReducePath::automatic)
        {
          continue; // a single tile: the dispatch's own choice is the only one that matters
        }
        INFO("n " << n << ", offset " << offset << ", path " << static_cast<int>(c.path) << ", max grid "
                  << c.max_grid);
        CHECK(device_fold<Affine>(d_in.get() + offset, n, Then{}, init, c.path, c.max_grid) == expected);
      }
    }
  }
}

TEST_CASE("Affine maps compose in index order over many units", "[device][order]")
{
  // Beyond max_units tiles a unit is several tiles: each is block-reduced in order and the tiles folded in order.
  const std::size_t tile = fold_test::tile_items<Then, std::uint32_t, Affine>();
  const std::size_t n    = 2 * tile * fold::select_reduce_policy(fold_test::current_ptx_version()).max_units + 12345;
  const auto values      = fold_test::random_values<std::uint32_t>(n, 17, fold_test::Values::full_range);
  fold_test::DeviceBuffer<std::uint32_t> d_in(values);
  const Affine expected = host_fold<Affine>({values.begin(), values.end()}, 0, n, Affine{}, Then{});
  for (int max_grid : {0, 7, 1000})
  {
    INFO("max grid " << max_grid);
    CHECK(device_fold<Affine>(d_in.get(), n, Then{}, Affine{}, ReducePath::automatic, max_grid) == expected);
  }
}

TEST_CASE("Affine maps compose in index order on both sides of ordered_rows_max_tiles", "[device][order]")
{
  // Up to that many tiles pass 1 reads a full tile in rows of 32 vectors, beyond it each lane's run: both trees, on
  // every path, from an aligned pointer and a misaligned one.
  const std::size_t tile = fold_test::tile_items<Then, std::uint32_t, Affine>();
  const std::size_t edge = fold::detail::ordered_rows_max_tiles * tile;
  const auto values      = fold_test::random_values<std::uint32_t>(edge + tile + 1, 29, fold_test::Values::full_range);
  fold_test::DeviceBuffer<std::uint32_t> d_in(values);
  const Affine init{9, 4};
  for (std::size_t n : {edge, edge + 1, edge + tile / 2})
  {
    for (std::size_t offset : {0, 1})
    {
      const Affine expected = host_fold<Affine>({values.begin(), values.end()}, offset, n, init, Then{});
      for (const PathCase& c : path_cases)
      {
        INFO("n " << n << ", offset " << offset << ", path " << static_cast<int>(c.path) << ", max grid "
                  << c.max_grid);
        CHECK(device_fold<Affine>(d_in.get() + offset, n, Then{}, init, c.path, c.max_grid) == expected);
      }
    }
  }
}

namespace
{
//! Item `v`, cut to 32 bits, as an `Affine` map.
struct ItemMap
{
  template <typename T>
  __host__ __device__ Affine operator()(const T& item) const
  {
    return Affine(static_cast<std::uint32_t>(item));
  }
};

//! TransformReduce of items of `T` into `Affine` maps (`ItemMap`) over whole tiles from an aligned pointer: every
//! warp tile is full and vector-loaded (each lane's run a few 16-byte slots). A slot loaded into the wrong place, or
//! a run given to the wrong lane, changes the composition.
template <typename T>
void check_whole_vector_tiles()
{
  const std::size_t tile = fold_test::tile_items<Then, T, Affine>();
  const Affine init{5, 11};
  for (std::size_t tiles : {std::size_t{1}, std::size_t{37}, std::size_t{3000}})
  {
    const std::size_t n = tiles * tile;
    const auto values   = fold_test::random_values<T>(n, n + sizeof(T), fold_test::Values::full_range);
    fold_test::DeviceBuffer<T> d_in(values);
    Affine expected = init;
    for (const T& v : values)
    {
      expected = Then{}(expected, ItemMap{}(v));
    }
    for (const PathCase& c : path_cases)
    {
      if (tiles == 1 && c.path != ReducePath::automatic)
      {
        continue;
      }
      INFO("item bytes " << sizeof(T) << ", tiles " << tiles << ", path " << static_cast<int>(c.path) << ", max grid "
                         << c.max_grid);
      fold_test::ForceDispatch force(c.path, c.max_grid);
      fold_test::DeviceBuffer<Affine> d_out(1);
      d_out.poison();
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes)
          {
            return fold::DeviceReduce::TransformReduce(
                temp, bytes, d_in.get(), d_out.get(), n, Then{}, ItemMap{}, init, 0, fold_test::forced);
          });
      CHECK(d_out.front() == expected);
    }
  }
}
} // namespace

TEST_CASE("Affine maps of 1-, 2-, 4- and 8-byte items compose in index order over whole vector-loaded tiles",
          "[device][order]")
{
  // 16-byte vectors of 16, 8, 4 and 2 items; with an 8-byte accumulator a lane's run is 2, 4, 4 and 4 of them.
  check_whole_vector_tiles<std::uint8_t>();
  check_whole_vector_tiles<std::uint16_t>();
  check_whole_vector_tiles<std::uint32_t>();
  check_whole_vector_tiles<std::uint64_t>();
}

TEST_CASE("2x2 matrix products mod p in index order, shuffled and through shared memory", "[device][order]")
{
  const std::size_t tile = fold_test::tile_items<fold_test::MatMul, fold_test::Mat2>();
  const fold_test::Mat2 identity{1, 0, 0, 1};
  for (std::size_t n : {std::size_t{1}, std::size_t{33}, tile + 1, 50 * tile + 3, 2000 * tile + 9})
  {
    const auto values = fold_test::random_matrices(n, n + 5);
    fold_test::DeviceBuffer<fold_test::Mat2> d_in(values);
    const fold_test::Mat2 expected = host_fold(values, 0, n, identity, fold_test::MatMul{});
    for (const PathCase& c : path_cases)
    {
      INFO("n " << n << ", path " << static_cast<int>(c.path) << ", max grid " << c.max_grid);
      CHECK(device_fold<fold_test::Mat2>(d_in.get(), n, fold_test::MatMul{}, identity, c.path, c.max_grid) == expected);
    }
    if (n < 100 * tile) // not trivially copyable: the warp reductions go through shared memory
    {
      std::vector<fold_test::BoxedMat2> boxed(values.begin(), values.end());
      fold_test::DeviceBuffer<fold_test::BoxedMat2> d_boxed(boxed);
      INFO("boxed, n " << n);
      CHECK(device_fold<fold_test::BoxedMat2>(
                d_boxed.get(), n, fold_test::MatMul{}, fold_test::BoxedMat2(identity), ReducePath::automatic, 0)
                .m == expected);
    }
  }
}

TEST_CASE("First and last present item, with items missing at random", "[device][order]")
{
  const std::size_t tile = fold_test::tile_items<First, Tagged>();
  for (std::size_t n : order_sizes(tile))
  {
    fold_test::Random random{n + 99};
    std::vector<Tagged> values(n);
    for (std::size_t i = 0; i < n; ++i)
    {
      values[i] = {static_cast<std::uint32_t>(random.next()), random.next() % 8 == 0 ? 1u : 0u};
    }
    fold_test::DeviceBuffer<Tagged> d_in(values);
    const Tagged none{0xDEADu, 0};
    const Tagged first = host_fold(values, 0, n, none, First{});
    const Tagged last  = host_fold(values, 0, n, none, Last{});
    for (const PathCase& c : path_cases)
    {
      if (n <= tile && c.path != ReducePath::automatic)
      {
        continue;
      }
      INFO("n " << n << ", path " << static_cast<int>(c.path) << ", max grid " << c.max_grid);
      CHECK(device_fold<Tagged>(d_in.get(), n, First{}, none, c.path, c.max_grid) == first);
      CHECK(device_fold<Tagged>(d_in.get(), n, Last{}, none, c.path, c.max_grid) == last);
    }
  }
}

TEST_CASE("First item of an iterator with 64-bit offsets", "[device][order]")
{
  // A transform of a counting iterator: items tagged present only where index % 1000 == 999, over 2^32 + 5 items.
  const std::uint64_t n = (1ull << 32) + 5;
  auto in               = thrust::make_transform_iterator(thrust::counting_iterator<std::uint64_t>(0), Make{});
  const Tagged none{0, 0};
  CHECK(device_fold<Tagged>(in, n, First{}, none, ReducePath::automatic, 0) == Make{}(999));
  const std::uint64_t last_index = (n - 1 - 999) / 1000 * 1000 + 999;
  CHECK(device_fold<Tagged>(in, n, Last{}, none, ReducePath::automatic, 0) == Make{}(last_index));
}

TEST_CASE("Operators declared commutative take the fast path and are right", "[device][order]")
{
  static_assert(!fold::is_commutative_v<MaxAbs>);
  static_assert(fold::is_commutative_v<decltype(fold::commutative(MaxAbs{}))>);
  static_assert(fold::is_commutative_v<fold::Sum> && fold::is_commutative_v<cuda::std::plus<>> &&
                fold::is_commutative_v<cuda::maximum<int>> && fold::is_commutative_v<cuda::std::bit_xor<unsigned>>);

  const std::size_t tile = fold_test::tile_items<decltype(fold::commutative(MaxAbs{})), std::int32_t>();
  for (std::size_t n : {std::size_t{1}, tile + 1, 100 * tile + 1, 3000 * tile})
  {
    auto values = fold_test::random_values<std::int32_t>(n, n, fold_test::Values::full_range);
    for (auto& v : values)
    {
      v /= 2; // no INT_MIN, whose absolute value overflows
    }
    fold_test::DeviceBuffer<std::int32_t> d_in(values);
    const std::int32_t expected = host_fold(values, 0, n, 0, MaxAbs{});
    INFO("n " << n);
    CHECK(device_fold<std::int32_t>(d_in.get(), n, fold::commutative(MaxAbs{}), 0, ReducePath::automatic, 0) ==
          expected);
    CHECK(device_fold<std::int32_t>(d_in.get() + 1, n - 1, fold::commutative(MaxAbs{}), 0, ReducePath::two_pass, 5) ==
          host_fold(values, 1, n - 1, 0, MaxAbs{}));
  }
}
