// SPDX-License-Identifier: Apache-2.0
// Dispatch decisions and argument checks that need no GPU: the plan (path, grid, temporary storage) as a pure
// function of the sizes, and the errors returned before any device is touched.
#include <fold/device/device_reduce.cuh>
#include <fold/dispatch/dispatch_reduce_axes.cuh>
#include <fold/dispatch/kernels_segmented_reduce.cuh>

#include "test_util.cuh"

#include <thrust/iterator/counting_iterator.h>

#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace
{
struct Twice
{
  __host__ __device__ float operator()(float x) const { return 2 * x; }
};
} // namespace

TEST_CASE("plan: single tile up to one tile; beyond, single pass for small grids and two passes for large ones",
          "[dispatch]")
{
  using fold::detail::make_reduce_plan;
  using fold::detail::ReducePath;
  const int tile = 4096, grain = 1024, max_grid = 132 * 6, single_pass_max = 132;
  auto plan = [&](std::uint64_t n, ReducePath path = ReducePath::automatic)
  { return make_reduce_plan<std::uint64_t>(n, tile, grain, 0, max_grid, single_pass_max, 4, 4, path); };
  CHECK(plan(0).path == ReducePath::single_tile);
  CHECK(plan(1).path == ReducePath::single_tile);
  CHECK(plan(tile).path == ReducePath::single_tile);
  CHECK(plan(tile).temp_storage_bytes == 1);

  const auto just_over = plan(tile + 1);
  CHECK(just_over.path == ReducePath::single_pass);
  CHECK(just_over.share.grid_size == 1); // never more blocks than whole tiles
  CHECK(plan(16 * tile).share.grid_size == 16);
  CHECK(plan(16 * tile).path == ReducePath::single_pass);
  CHECK(plan(std::uint64_t{single_pass_max} * tile).path == ReducePath::single_pass);
  CHECK(plan(std::uint64_t{single_pass_max + 1} * tile).path == ReducePath::two_pass);

  const auto big = plan(1ull << 34);
  CHECK(big.path == ReducePath::two_pass);
  CHECK(big.share.grid_size == max_grid);
  CHECK(big.partials_offset % big.storage_align == 0);
  CHECK(big.partials_offset >= sizeof(fold::detail::Ticket)); // the ticket comes first
  CHECK(big.temp_storage_bytes >= big.partials_offset + static_cast<std::size_t>(max_grid) * 4);
  CHECK(big.partials == max_grid); // exact: one partial per block

  // Empty input is always a single tile (there is no grid to launch); any other forced path is taken as it is,
  // for small inputs too, with the same grid and storage.
  CHECK(plan(0, ReducePath::two_pass).path == ReducePath::single_tile);
  CHECK(plan(0, ReducePath::single_pass).path == ReducePath::single_tile);
  CHECK(plan(100, ReducePath::single_pass).path == ReducePath::single_pass);
  CHECK(plan(1 << 20, ReducePath::single_tile).path == ReducePath::single_tile);
  const auto forced_two = plan(16 * tile, ReducePath::two_pass);
  CHECK(forced_two.path == ReducePath::two_pass);
  CHECK(forced_two.share.grid_size == plan(16 * tile).share.grid_size);
  CHECK(forced_two.temp_storage_bytes == plan(16 * tile).temp_storage_bytes);
}

TEST_CASE("plan: inexact reductions are cut into units that depend on num_items and the tile only", "[dispatch]")
{
  using fold::detail::make_reduce_plan;
  using fold::detail::ReducePath;
  const int tile = 4096, max_units = 1024;
  fold_test::Random random{11};
  for (int i = 0; i < 300; ++i)
  {
    const std::uint64_t n = tile + 1 + random.next() % (1ull << (14 + i % 24));
    INFO("n " << n);
    const auto reference      = make_reduce_plan<std::uint64_t>(n, tile, 1024, max_units, 100000, 132, 4, 4);
    const std::uint64_t unit  = reference.share.grain_items;
    const std::uint64_t tiles = (n + tile - 1) / tile;
    // Whole tiles, a power of two of them, the fewest that give at most max_units units.
    REQUIRE(unit % tile == 0);
    const std::uint64_t k = unit / tile;
    REQUIRE((k & (k - 1)) == 0);
    REQUIRE(reference.partials == static_cast<int>((n + unit - 1) / unit));
    REQUIRE(reference.partials <= max_units);
    if (k > 1)
    {
      REQUIRE((tiles + k / 2 - 1) / (k / 2) > static_cast<std::uint64_t>(max_units));
    }
    for (int max_grid : {1, 3, 132, 792, 5000})
    {
      for (ReducePath path : {ReducePath::single_pass, ReducePath::two_pass})
      {
        const auto plan = make_reduce_plan<std::uint64_t>(n, tile, 1024, max_units, max_grid, 132, 4, 4, path);
        INFO("max grid " << max_grid);
        CHECK(plan.share.grain_items == unit); // the same units whatever the grid
        CHECK(plan.partials == reference.partials);
        CHECK(plan.share.grid_size == std::min<std::int64_t>(max_grid, reference.partials));
        // Every block's range is whole units, and together they cover the input in order.
        std::uint64_t next = 0;
        for (int b = 0; b < plan.share.grid_size; b += 1 + plan.share.grid_size / 50)
        {
          const auto grains = plan.share.block_grains(b);
          CHECK(grains.begin < grains.end);
          CHECK(plan.share.block_range(b).begin == grains.begin * unit);
        }
        for (int b = 0; b < plan.share.grid_size; ++b)
        {
          const auto range = plan.share.block_range(b);
          REQUIRE(range.begin == next);
          next = range.end;
        }
        CHECK(next == n);
      }
    }
  }
}

TEST_CASE("plan: temporary storage is never 0 and never shrinks as num_items grows", "[dispatch]")
{
  using fold::detail::make_reduce_plan;
  fold_test::Random random{7};
  for (int tile : {256, 4096, 16384})
  {
    for (int max_grid : {1, 7, 132, 5280})
    {
      for (int max_units : {0, 100, 16384})
      {
        for (std::size_t accum_bytes : {1u, 4u, 12u, 16u})
        {
          std::size_t previous = 0;
          std::uint64_t n      = 0;
          while (n < (1ull << 36))
          {
            const std::size_t align = accum_bytes % 8 ? 4 : 8;
            const auto plan =
                make_reduce_plan<std::uint64_t>(n, tile, tile / 4, max_units, max_grid, 132, accum_bytes, align);
            INFO("tile " << tile << ", max grid " << max_grid << ", max units " << max_units << ", n " << n);
            REQUIRE(plan.temp_storage_bytes > 0);
            REQUIRE(plan.temp_storage_bytes >= previous);
            if (plan.path != fold::detail::ReducePath::single_tile)
            {
              REQUIRE(plan.temp_storage_bytes >= plan.partials_offset + plan.partials * accum_bytes);
              REQUIRE(plan.partials_offset % 16 == 0); // vector-aligned partials
            }
            previous = plan.temp_storage_bytes;
            n += 1 + random.next() % (n / 3 + 2);
          }
        }
      }
    }
  }
}

TEST_CASE("plan: units of at most 16 tiles beyond the partials' cap; the storage still never shrinks", "[dispatch]")
{
  using fold::detail::make_reduce_plan;
  using fold::detail::max_units_of;
  using fold::detail::tiles_of;
  const fold::ReducePolicy sm90 = fold::select_reduce_policy(900);
  // Sum over double on sm_90: tiles of 2048, at most 4096 units (two tiles of partials) up to 16 tiles a unit.
  const int tile = 2048;
  auto plan      = [&](std::uint64_t n, int max_grid)
  {
    return make_reduce_plan<std::uint64_t>(
        n, tile, 512, max_units_of<fold::Sum, double>(sm90, tiles_of(n, tile)), max_grid, 132, 8, 8);
  };
  CHECK(plan(std::uint64_t{1} << 27, 2112).share.total_grains == 4096); // 65536 tiles: 16 a unit
  CHECK(plan(std::uint64_t{1} << 28, 2112).share.total_grains == 8192); // 16 a unit, not 32
  CHECK(plan(std::uint64_t{1} << 28, 2112).share.grain_items == 16 * tile);
  CHECK(plan(std::uint64_t{1} << 30, 2112).share.total_grains == 16384); // the policy's most: 32 a unit
  CHECK(plan(std::uint64_t{1} << 30, 2112).share.grain_items == 32 * tile);
  fold_test::Random random{5};
  std::size_t previous = 0;
  std::uint64_t n      = 1;
  while (n < (1ull << 38))
  {
    INFO("n " << n);
    const auto p = plan(n, 8448);
    REQUIRE(p.temp_storage_bytes >= previous);
    if (p.path != fold::detail::ReducePath::single_tile)
    {
      REQUIRE(p.temp_storage_bytes >= p.partials_offset + p.partials * sizeof(double));
      // More than 16 tiles a unit only where half as many would make more than the policy's 16384 units.
      const std::uint64_t k = p.share.grain_items / tile;
      if (k > 16)
      {
        REQUIRE(tiles_of(tiles_of(n, tile), static_cast<int>(k / 2)) > 16384);
      }
    }
    previous = p.temp_storage_bytes;
    n += 1 + random.next() % (n / 3 + 2);
  }
}

namespace
{
//! Whether DeviceReduce::Reduce with `OpT` over `T` on sm_90 runs pass 1 in `ordered_runs_waves` for `n` items.
template <typename OpT, typename T>
bool many_ordered_units(std::uint64_t n)
{
  using Dispatch                      = fold::detail::DispatchReduce<const T*,
                                                T*,
                                                std::int64_t,
                                                OpT,
                                                fold::detail::InitialValue<T>,
                                                T,
                                                fold::detail::CastTo<T>,
                                                fold::DefaultTuning>;
  const fold::detail::TileShape shape = fold::detail::reduce_tile_shape<const T*, T, fold::DefaultTuning, OpT>(900);
  return Dispatch::many_ordered_units(Dispatch::reads_rows(n, shape), n, fold::select_reduce_policy(900), shape);
}
} // namespace

TEST_CASE("plan: order-preserving reductions read in runs get more waves from 8192 units on", "[dispatch]")
{
  REQUIRE(fold::detail::ordered_runs_min_units == 8192);
  // Over double (tiles of 2048, 4096 units up to 16 tiles a unit): 4096 units at 2^25-2^27, 8192 at 2^28.
  CHECK_FALSE(many_ordered_units<fold_test::OrderedPlus, double>(std::uint64_t{1} << 25));
  CHECK_FALSE(many_ordered_units<fold_test::OrderedPlus, double>(std::uint64_t{1} << 27));
  CHECK(many_ordered_units<fold_test::OrderedPlus, double>(std::uint64_t{1} << 28));
  CHECK(many_ordered_units<fold_test::OrderedPlus, double>(std::uint64_t{1} << 33));
  // Over float (tiles of 4096, 8192 units): rows up to 4096 tiles; 8192 units of one tile at 2^25, 4097 just above.
  CHECK_FALSE(many_ordered_units<fold_test::OrderedPlus, float>(std::uint64_t{1} << 24));
  CHECK(many_ordered_units<fold_test::OrderedPlus, float>(std::uint64_t{1} << 25));
  CHECK_FALSE(many_ordered_units<fold_test::OrderedPlus, float>((std::uint64_t{1} << 25) + 1));
  CHECK(many_ordered_units<fold_test::OrderedPlus, float>(std::uint64_t{1} << 26));
  CHECK(many_ordered_units<fold_test::OrderedPlus, float>(std::uint64_t{1} << 30));
  // Commutative operators keep the policy's waves.
  CHECK_FALSE(many_ordered_units<fold::Sum, float>(std::uint64_t{1} << 30));
}

namespace
{
//! `DispatchReduce::one_wave_scale` of `OpT` over `T` items reduced in `AccumT`.
template <typename OpT, typename T, typename AccumT>
constexpr int one_wave_scale = fold::detail::DispatchReduce<const T*,
                                                            T*,
                                                            std::int64_t,
                                                            OpT,
                                                            fold::detail::InitialValue<AccumT>,
                                                            AccumT,
                                                            fold::detail::CastTo<AccumT>,
                                                            fold::DefaultTuning>::one_wave_scale;
} // namespace

TEST_CASE("plan: exact reductions stay in one wave up to one_wave_max_mib a 4-byte word of their partial", "[dispatch]")
{
  // Exact: the pass-1 grid sets how many partials pass 2 folds.
  CHECK(one_wave_scale<fold::Min, float, std::int32_t> == 1);
  CHECK(one_wave_scale<fold::Min, double, std::int64_t> == 2);
  CHECK(one_wave_scale<fold::Sum, std::int64_t, std::int64_t> == 2);
  CHECK(one_wave_scale<fold::detail::PackedArgMax, double, fold::detail::PackedPair96> == 3);
  // Inexact: fixed units, whatever the grid.
  CHECK(one_wave_scale<fold::Sum, double, double> == 1);
  CHECK(one_wave_scale<fold_test::OrderedPlus, double, double> == 1);
}

TEST_CASE("bad input is rejected before the device is touched", "[dispatch][errors]")
{
  // A non-null pointer that is never dereferenced: the checks must fail before anything reads or launches.
  void* temp        = reinterpret_cast<void*>(0x1000);
  float* in         = reinterpret_cast<float*>(0x2000);
  float* out        = reinterpret_cast<float*>(0x3000);
  std::int64_t* idx = reinterpret_cast<std::int64_t*>(0x4000);
  std::size_t bytes = 1 << 20;
  using fold::DeviceReduce;

  SECTION("negative num_items, when querying and when running")
  {
    std::size_t query = 12345;
    CHECK(DeviceReduce::Sum(nullptr, query, in, out, -1) == cudaErrorInvalidValue);
    CHECK(query == 12345);
    CHECK(DeviceReduce::Sum(temp, bytes, in, out, -1) == cudaErrorInvalidValue);
    CHECK(DeviceReduce::Min(temp, bytes, in, out, std::numeric_limits<std::int64_t>::min()) == cudaErrorInvalidValue);
    CHECK(DeviceReduce::ArgMax(temp, bytes, in, out, idx, static_cast<short>(-5)) == cudaErrorInvalidValue);
    CHECK(DeviceReduce::ArgMin(temp, bytes, in, out, idx, std::int64_t{-1}) == cudaErrorInvalidValue);
    CHECK(DeviceReduce::Reduce(temp, bytes, in, out, -3, fold::Sum{}, 0.0f) == cudaErrorInvalidValue);
  }
  SECTION("null input with num_items > 0")
  {
    const float* null_in = nullptr;
    CHECK(DeviceReduce::Sum(temp, bytes, null_in, out, 10) == cudaErrorInvalidValue);
    CHECK(DeviceReduce::Max(temp, bytes, null_in, out, 1u) == cudaErrorInvalidValue);
    CHECK(DeviceReduce::ArgMin(temp, bytes, null_in, out, idx, 1ll << 40) == cudaErrorInvalidValue);
    CHECK(DeviceReduce::ArgMin(temp, bytes, null_in, out, idx, 10) == cudaErrorInvalidValue);
    CHECK(DeviceReduce::TransformReduce(temp, bytes, null_in, out, 5, fold::Sum{}, Twice{}, 0.f) ==
          cudaErrorInvalidValue);
  }
  SECTION("null output")
  {
    float* null_out            = nullptr;
    std::int64_t* null_indices = nullptr;
    CHECK(DeviceReduce::Sum(temp, bytes, in, null_out, 10) == cudaErrorInvalidValue);
    CHECK(DeviceReduce::Sum(temp, bytes, in, null_out, 0) == cudaErrorInvalidValue); // empty input writes init
    CHECK(DeviceReduce::ArgMin(temp, bytes, in, null_out, idx, 10) == cudaErrorInvalidValue);
    CHECK(DeviceReduce::ArgMax(temp, bytes, in, out, null_indices, 10) == cudaErrorInvalidValue);
  }
}

namespace
{
//! Every pair of (value, index) pairs drawn from `values` and `indices`: the packed pairs compare under their
//! operator (and, in index order, under a thread's in-order one) as the (int64 index, value) pairs do under
//! ArgMin/ArgMax, and unpack to them.
template <typename T, bool ForMax>
void check_packed_pairs(const std::vector<T>& values)
{
  using Packed    = fold::detail::PackedArgReduction<T, ForMax>;
  using Pair      = typename Packed::PairT;
  using ArgOp     = std::conditional_t<ForMax, fold::ArgMax, fold::ArgMin>;
  using InOrderOp = typename fold::detail::InOrder<typename Packed::Op>::type;
  static_assert(Packed::applies, "values of primitive types pack");
  const std::uint64_t indices[] = {0, 1, 2, 1ull << 31, (1ull << 32) - 2, (1ull << 32) - 1};
  auto same                     = [](const Pair& a, const Pair& b) { return a.key == b.key && a.value == b.value; };
  for (const T& a : values)
  {
    for (const T& b : values)
    {
      for (std::uint64_t i : indices)
      {
        for (std::uint64_t j : indices)
        {
          if (i == j)
          {
            continue;
          }
          const auto pa = typename Packed::Pack{}(a, i), pb = typename Packed::Pack{}(b, j);
          const Pair ua = Packed::unpack(pa), ub = Packed::unpack(pb);
          const Pair wa{static_cast<std::int64_t>(i), typename Packed::Values{}(a)};
          const Pair wb{static_cast<std::int64_t>(j), typename Packed::Values{}(b)};
          INFO("values " << fold_test::to_double(a) << ", " << fold_test::to_double(b) << " at " << i << ", " << j);
          REQUIRE(same(ua, wa));
          REQUIRE(same(ub, wb));
          const Pair expected = ArgOp{}(wa, wb);
          REQUIRE(same(Packed::unpack(typename Packed::Op{}(pa, pb)), expected));
          const InOrderOp in_order_op{};
          const auto in_order = i < j ? in_order_op(pa, pb) : in_order_op(pb, pa);
          REQUIRE(same(Packed::unpack(in_order), expected));
        }
      }
    }
  }
}

template <typename T>
std::vector<T> integer_probes()
{
  using L          = std::numeric_limits<T>;
  std::vector<T> v = {L::lowest(), static_cast<T>(L::lowest() + 1), T(0), T(1), static_cast<T>(L::max() - 1), L::max()};
  if constexpr (std::is_signed_v<T>)
  {
    v.push_back(T(-1));
  }
  return v;
}

template <typename T>
std::vector<T> float_probes()
{
  using L = std::numeric_limits<float>;
  std::vector<T> v;
  for (float f : {-L::infinity(),
                  -65504.f,
                  -1.f,
                  -L::denorm_min(),
                  -0.f,
                  0.f,
                  L::denorm_min(),
                  1.f,
                  65504.f,
                  L::infinity(),
                  L::quiet_NaN(),
                  -L::quiet_NaN()})
  {
    v.push_back(static_cast<T>(f));
  }
  if constexpr (std::is_same_v<T, double>)
  {
    using D = std::numeric_limits<double>;
    for (double d : {-D::max(), -D::denorm_min(), D::denorm_min(), 1.0 + D::epsilon(), D::max()})
    {
      v.push_back(d);
    }
  }
  return v;
}

template <typename T>
void check_packed_pairs_both(const std::vector<T>& values)
{
  check_packed_pairs<T, false>(values);
  check_packed_pairs<T, true>(values);
}
} // namespace

TEST_CASE("ArgMin/ArgMax's packed pairs order and unpack as the (int64 index, value) pairs do", "[dispatch][arg]")
{
  check_packed_pairs_both(integer_probes<std::int8_t>());
  check_packed_pairs_both(integer_probes<std::uint8_t>());
  check_packed_pairs_both(integer_probes<std::int16_t>());
  check_packed_pairs_both(integer_probes<std::uint16_t>());
  check_packed_pairs_both(integer_probes<std::int32_t>());
  check_packed_pairs_both(integer_probes<std::uint32_t>());
  check_packed_pairs_both(std::vector<bool>{false, true});
  check_packed_pairs_both(float_probes<float>());
  check_packed_pairs_both(float_probes<__half>());
  check_packed_pairs_both(float_probes<__nv_bfloat16>());
  check_packed_pairs_both(integer_probes<std::int64_t>());
  check_packed_pairs_both(integer_probes<std::uint64_t>());
  check_packed_pairs_both(float_probes<double>());
  STATIC_REQUIRE(sizeof(fold::detail::PackedArgReduction<float, true>::PackedPair) == 8);
  STATIC_REQUIRE(sizeof(fold::detail::PackedArgReduction<double, true>::PackedPair) == 12);
  STATIC_REQUIRE(sizeof(fold::detail::PackedArgReduction<std::int64_t, false>::PackedPair) == 12);
}

TEST_CASE("fixed-size segments: lane runs are loaded whole where each is 2 or lane_items items and aligned",
          "[dispatch][segmented]")
{
  // SegmentedFixedKernel's VectorRun instantiations load each lane run with one vector load; the host picks them
  // with fixed_vector_run, which must name a run only where every run of the segment is that long and starts
  // aligned (a wrong yes reads past a segment or misaligned; a wrong no only loses speed). lane_items is 4.
  using fold::detail::fixed_vector_run;
  const auto classes = fold::detail::SegmentClasses::make(fold::detail::segmented_policy(),
                                                          fold::detail::reduce_tile_shape<const float*, float>(900));
  REQUIRE(classes.lane_items == 4);
  const auto at = [](std::uintptr_t address) { return reinterpret_cast<const float*>(address); };
  // Whole runs of 4: 4 items (one lane), 8 (two), 16, 28 (7 of 8 lanes), 32, 64, 100 (25 of 32), 128; runs of 2:
  // 2 items.
  for (std::uint64_t length : {4, 8, 16, 28, 32, 64, 100, 128})
  {
    INFO(length << " floats");
    CHECK(fixed_vector_run(classes, at(256), length) == 4);
    CHECK(fixed_vector_run(classes, at(256 + 16), length) == 4);
    CHECK(fixed_vector_run(classes, at(256 + 8), length) == 0); // runs 8 bytes off a 16-byte boundary
    CHECK(fixed_vector_run(classes, at(256 + 4), length) == 0);
  }
  CHECK(fixed_vector_run(classes, at(256), 2) == 2);
  CHECK(fixed_vector_run(classes, at(256 + 8), 2) == 2);
  CHECK(fixed_vector_run(classes, at(256 + 4), 2) == 0);
  // Runs that are not all whole, or not 2 or 4 items: 1, 3 (one run of 3), 5 and 6 (runs of 3), 7 (4 and 3), 12
  // (runs of 3), 33 (runs of 3), 127 (the last run 3).
  for (std::uint64_t length : {1, 3, 5, 6, 7, 12, 33, 127})
  {
    INFO(length << " floats");
    CHECK(fixed_vector_run(classes, at(256), length) == 0);
  }
  // Not small (a warp segment or longer), or empty.
  for (std::uint64_t length : {0, 129, 1000, 1 << 20})
  {
    CHECK(fixed_vector_run(classes, at(256), length) == 0);
  }
  // 8-byte items in runs of 4 need 32-byte alignment; 1-byte items 4-byte alignment.
  CHECK(fixed_vector_run(classes, reinterpret_cast<const double*>(256), 16) == 4);
  CHECK(fixed_vector_run(classes, reinterpret_cast<const double*>(256 + 16), 16) == 0);
  CHECK(fixed_vector_run(classes, reinterpret_cast<const std::int8_t*>(256 + 4), 16) == 4);
  CHECK(fixed_vector_run(classes, reinterpret_cast<const std::int8_t*>(256 + 2), 16) == 0);
  // An iterator that is not a raw pointer never takes them.
  CHECK(fixed_vector_run(classes, thrust::counting_iterator<int>(0), 16) == 0);
}

TEST_CASE("segmented temporary storage: the state alone is cleared, and every part fits its caps apart",
          "[dispatch][segmented]")
{
  using fold::detail::SegmentedLayout;
  const auto policy = fold::detail::segmented_policy();
  // The partials' room: every listed segment's units, up to the policy's total.
  CHECK(SegmentedLayout::unit_room(3, policy.max_units, policy.max_split_units) == 3u * policy.max_units);
  CHECK(SegmentedLayout::unit_room(policy.max_split_segments, policy.max_units, policy.max_split_units) ==
        static_cast<std::uint64_t>(policy.max_split_units));
  CHECK(SegmentedLayout::unit_room(1030, 256, 2059) == 2059u);
  for (int large_cap : {1, 1030, policy.max_split_segments})
  {
    for (std::size_t bytes : {std::size_t{4}, std::size_t{16}})
    {
      INFO(large_cap << " large segments, partials of " << bytes << " bytes");
      const std::uint64_t units = SegmentedLayout::unit_room(large_cap, policy.max_units, policy.max_split_units);
      const int block_cap       = 5000;
      const int grid            = 528;
      const auto l = SegmentedLayout::make(large_cap, units, block_cap, grid, policy.max_units, bytes, bytes);
      // The clear covers the state only; the unit counters (zeroed by the warp kernel as it lists a segment) follow.
      CHECK(l.clear_bytes == sizeof(fold::detail::SegmentedState));
      CHECK(l.unit_counts >= l.clear_bytes);
      CHECK(l.ready >= l.unit_counts + static_cast<std::size_t>(large_cap) * sizeof(unsigned));
      CHECK(l.ready % sizeof(unsigned long long) == 0);
      CHECK(l.large_list >= l.ready + sizeof(unsigned long long));
      CHECK(l.block_list >= l.large_list + static_cast<std::size_t>(large_cap) * sizeof(fold::detail::LargeSegment));
      CHECK(l.warp_list >= l.block_list + static_cast<std::size_t>(block_cap) * sizeof(std::int64_t));
      CHECK(l.partials >= l.warp_list + static_cast<std::size_t>(block_cap) * sizeof(std::int64_t));
      CHECK(l.partials % l.align == 0);
      CHECK(l.scratch >= l.partials + static_cast<std::size_t>(units) * bytes);
      CHECK(l.scratch % l.align == 0);
      CHECK(l.bytes >= l.align - 1 + l.scratch + static_cast<std::size_t>(grid) * policy.max_units * bytes);
    }
  }
}

TEST_CASE("without a usable device a query returns the runtime's error", "[dispatch][errors]")
{
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0)
  {
    SUCCEED("a device is present: covered by the device tests");
    return;
  }
  std::size_t bytes        = 777;
  const int* in            = nullptr;
  int* out                 = nullptr;
  const cudaError_t status = fold::DeviceReduce::Sum(nullptr, bytes, in, out, 100);
  CHECK(status != cudaSuccess);
  CHECK(bytes == 777);
}

TEST_CASE("Axis plans merge dimensions and remove reduced groups innermost first", "[dispatch][axes]")
{
  using fold::detail::make_axes_plan;
  SECTION("NHWC over N, H, W: one higher-dimension step, then its partial rows twice")
  {
    const auto plan = make_axes_plan({64, 56, 56, 256}, {0, 1, 2});
    REQUIRE(plan.valid);
    CHECK(plan.outputs == 256);
    REQUIRE(plan.steps == 3);
    CHECK(!plan.step[0].last_dim);
    CHECK(plan.step[0].rows == 64 * 56 * 56);
    CHECK(plan.step[0].cols == 256);
    CHECK(plan.step[0].rows_per_unit == 128);
    CHECK(plan.step[0].units == 1568);
    CHECK(plan.step[1].rows == 1568);
    CHECK(plan.step[1].units == 13);
    CHECK(plan.step[2].rows == 13);
    CHECK(plan.step[2].units == 1);
  }
  SECTION("the last dimension first, then a batched higher one")
  {
    const auto plan = make_axes_plan({3, 4000, 1, 5, 9}, {1, 2, 4});
    REQUIRE(plan.steps == 2);
    CHECK(plan.step[0].last_dim);
    CHECK(plan.step[0].batch == 3 * 4000 * 5);
    CHECK(plan.step[0].rows == 9);
    CHECK(!plan.step[1].last_dim);
    CHECK(plan.step[1].batch == 3);
    CHECK(plan.step[1].rows == 4000);
    CHECK(plan.step[1].cols == 5);
    CHECK(plan.step[1].units == 1);
  }
  SECTION("adjacent kept axes merge once the reduced group between them is gone")
  {
    const auto plan = make_axes_plan({6, 10, 7, 8}, {1});
    REQUIRE(plan.steps == 1);
    CHECK(plan.step[0].batch == 6);
    CHECK(plan.step[0].rows == 10);
    CHECK(plan.step[0].cols == 56);
  }
  SECTION("nothing to reduce, an empty reduced axis, an empty kept axis")
  {
    const auto none = make_axes_plan({4, 1, 5}, {1});
    REQUIRE(none.steps == 1);
    CHECK(none.step[0].last_dim);
    CHECK(none.step[0].rows == 1);
    CHECK(none.step[0].batch == 20);
    const auto empty = make_axes_plan({4, 0, 5}, {1});
    REQUIRE(empty.steps == 1);
    CHECK(empty.step[0].rows == 0);
    CHECK(make_axes_plan({0, 5}, {1}).outputs == 0);
    CHECK(make_axes_plan({0, 5}, {1}).steps == 0);
  }
  SECTION("an exact commutative operator over rows of 16384 column groups or more: one unit")
  {
    // wide_vector_items = 4 (int32): 16 column groups a block, so 16384 groups give 1024 blocks.
    const auto wide = make_axes_plan({4096, 65536}, {0}, false, 4);
    REQUIRE(wide.steps == 1);
    CHECK(wide.step[0].units == 1);
    const auto batched = make_axes_plan({3, 5000, 65533}, {1}, false, 4);
    REQUIRE(batched.steps == 1);
    CHECK(batched.step[0].batch == 3);
    CHECK(batched.step[0].units == 1);
    const auto narrower = make_axes_plan({4096, 65532}, {0}, false, 4); // 16383 groups: 128-row units
    REQUIRE(narrower.steps == 2);
    CHECK(narrower.step[0].rows_per_unit == 128);
    CHECK(narrower.step[0].units == 32);
    const auto other = make_axes_plan({4096, 65536}, {0}); // any other operator: 128-row units
    REQUIRE(other.steps == 2);
    CHECK(other.step[0].units == 32);
  }
  SECTION("bad shapes and axes")
  {
    const std::int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    CHECK(!make_axes_plan(fold::Extents(nine, 9), {0}).valid);
    CHECK(!make_axes_plan({2, -1}, {0}).valid);
    CHECK(!make_axes_plan({2, 3}, {0, 0}).valid);
    CHECK(!make_axes_plan({2, 3}, {2}).valid);
    CHECK(!make_axes_plan({2, 3}, {-1}).valid);
  }
}

TEST_CASE("Columns of an inexact commutative axis reduction take the tree the segmented reduction gives a row",
          "[dispatch][axes]")
{
  using fold::detail::AxesLaunch;
  using fold::detail::AxesStep;
  using fold::detail::ColumnRule;
  using Float = fold::detail::DispatchReduceAxes<const float*,
                                                 float*,
                                                 fold::Sum,
                                                 fold::detail::InitialValue<float>,
                                                 float,
                                                 fold::DefaultTuning>;
  using Int   = fold::detail::
      DispatchReduceAxes<const int*, int*, fold::Sum, fold::detail::InitialValue<int>, int, fold::DefaultTuning>;
  using Int8 = fold::detail::DispatchReduceAxes<const std::int8_t*,
                                                int*,
                                                fold::Sum,
                                                fold::detail::InitialValue<int>,
                                                int,
                                                fold::DefaultTuning>;
  STATIC_REQUIRE(Float::emulates_rows);
  STATIC_REQUIRE(!Int::emulates_rows);
  // An exact operator over 4-byte items goes along the trees too (any tree gives its bits), over narrower ones not.
  STATIC_REQUIRE(Int::tree_steps);
  STATIC_REQUIRE(!Int8::tree_steps);
  // The classes and tile of a float segment on sm_90, as the segmented kernels compute them.
  const fold::detail::TileShape shape = fold::detail::reduce_tile_shape<const float*, float, fold::DefaultTuning>(900);
  const auto classes                  = fold::detail::SegmentClasses::make(fold::detail::segmented_policy(), shape);
  auto expand                         = [](std::int64_t rows, std::int64_t cols, int& count)
  {
    static AxesLaunch launches[3];
    count = 0;
    Float::expand<const float*>(AxesStep{false, 1, rows, cols, rows, 1}, 900, launches, count);
    return launches;
  };
  int count = 0;
  SECTION("a small segment: its lane runs, a thread a whole column")
  {
    const AxesLaunch* l = expand(100, 1 << 20, count);
    REQUIRE(count == 1);
    CHECK(l[0].along_tree());
    CHECK(l[0].tree.rule.slot_rows == 0);
    CHECK(l[0].tree.rule.leaves == classes.lanes(100));
    CHECK(l[0].tree.rule.valid_leaves(100) == 25); // runs of 4: (100 + 4 - 1) / 4
    CHECK(l[0].tree.groups == 1);
  }
  SECTION("a warp segment: the warp agent's vector slots over 32 leaves")
  {
    const AxesLaunch* l = expand(1000, 1 << 16, count);
    REQUIRE(count == 1);
    CHECK(l[0].tree.rule.leaves == 32);
    CHECK(l[0].tree.rule.slot_rows == shape.vector_items);
    CHECK(l[0].tree.groups == 1);
  }
  SECTION("a block segment over many columns: 256 leaves in groups, then the groups combined")
  {
    REQUIRE(classes.of(40000) == fold::detail::SegmentClass::block);
    const AxesLaunch* l = expand(40000, 1000, count);
    REQUIRE(count == 2);
    CHECK(l[0].tree.rule.leaves == shape.block_threads);
    CHECK(l[0].tree.groups * (256 / l[0].tree.col_threads) == 256);
    CHECK(l[1].step.rows == l[0].tree.groups);
    CHECK(l[1].tree.rule.slot_rows == 1);
    CHECK(l[1].tree.parent.leaves == 256);
    CHECK(l[1].tree.parent_group == 256 / l[0].tree.col_threads);
    CHECK(l[1].tree.groups == 1);
  }
  SECTION("a large segment: its units, then their partials along fold_partials' tree")
  {
    const std::int64_t rows = std::int64_t{1} << 24;
    const AxesLaunch* l     = expand(rows, 4, count);
    REQUIRE(count == 2);
    CHECK(l[0].tree.rule.unit_rows == static_cast<std::int64_t>(classes.unit_items(rows)));
    CHECK(l[0].tree.rule.units == static_cast<std::int64_t>(classes.units(rows)));
    CHECK(l[1].step.rows == l[0].tree.rule.units);
    CHECK(l[1].tree.rule.leaves == 256);
    CHECK(l[1].tree.rule.slot_rows == 4);
  }
  SECTION("a warp segment over many columns: a thread a whole column group, its 32 leaves joined in registers")
  {
    const AxesLaunch* l = expand(256, 1 << 18, count); // [256, 256, 1024] over 1 has as many column groups
    REQUIRE(count == 1);
    CHECK(l[0].tree.rule.leaves == 32);
    CHECK(l[0].tree.rule.slot_rows == shape.vector_items);
    CHECK(l[0].tree.whole);
    CHECK(l[0].tree.groups == 1);
    // Fewer column groups: a leaf a thread.
    CHECK(!expand(256, 1 << 17, count)[0].tree.whole);
    // Runs always take whole columns; a block segment's 256 leaves never do.
    CHECK(expand(100, 1 << 20, count)[0].tree.whole);
    CHECK(!expand(40000, 1 << 20, count)[0].tree.whole);
  }
  SECTION("slots whose leaves alone leave the GPU short of blocks: narrower columns, the same tree")
  {
    // [16, 56, 56, 256] over axes 0-2 (a block segment's rows): 256 leaves over 256 columns, 64 blocks of vectors.
    REQUIRE(classes.of(16 * 56 * 56) == fold::detail::SegmentClass::block);
    const AxesLaunch* l = expand(16 * 56 * 56, 256, count);
    REQUIRE(count == 2);
    CHECK(l[0].tree.rule.leaves == 256);
    CHECK(l[0].tree.thread_cols == fold::detail::narrow_tree_cols<const float*>());
    CHECK(l[0].tree.thread_cols == 1);
    CHECK(l[0].tree.slot_blocks(1, 256) == 256);
    CHECK(l[1].tree.parent_group == 256 / l[0].tree.col_threads);
    CHECK(l[1].tree.thread_cols == 4); // the partials keep their vectors
    // Many columns: vectors.
    CHECK(expand(1000, 1 << 16, count)[0].tree.thread_cols == 4);
  }
  SECTION("slots: the items after the last whole slot go one to a leaf")
  {
    const ColumnRule rule{70, 70, 1, 32, 4};
    CHECK(rule.valid_leaves(70) == 17); // 17 whole slots, 2 rows left over
    CHECK(rule.valid_leaves(6) == 2);   // one whole slot, rows 4 and 5 to leaves 0 and 1
    CHECK(rule.valid_leaves(3) == 3);   // no whole slot: a row to each of leaves 0-2
  }
  SECTION("a main launch of few blocks takes its two trailing launches in as its tail")
  {
    // The last block of a column tile's leaf groups combines them, the last of its units folds theirs
    // (`ColumnTail`): on 132 multiprocessors, for launches of at most 8 blocks a multiprocessor with both trailing
    // launches, whose folds take at most two passes over a column tile.
    const AxesLaunch* l = expand(std::int64_t{1} << 20, 64, count); // 8 groups, 16 units, 256 blocks
    REQUIRE(count == 3);
    CHECK(l[0].trailing == 2);
    CHECK(Float::takes_tail(l, 0, 132));
    CHECK(!Float::takes_tail(l, 0, 16));         // 16 blocks a multiprocessor
    l = expand(std::int64_t{1} << 24, 4, count); // units only: one trailing launch
    REQUIRE(count == 2);
    CHECK(l[0].trailing == 1);
    CHECK(!Float::takes_tail(l, 0, 132));
    l = expand(300001, 64, count); // 32 groups over 32 columns a tile: four passes
    REQUIRE(count == 3);
    CHECK(!Float::takes_tail(l, 0, 132));
    l = expand(256, 1 << 18, count); // whole columns: no trailing launch
    CHECK(l[0].trailing == 0);
    CHECK(!Float::takes_tail(l, 0, 132));
  }
  SECTION("an exact reduction over 4-byte items goes along the rows' tree, wide rows too; over 1-byte items it keeps "
          "the plan's step")
  {
    AxesLaunch launches[3];
    count = 0;
    Int::expand<const int*>(AxesStep{false, 1, 70000, 1000, 70000, 1}, 900, launches, count);
    REQUIRE(count >= 1);
    CHECK(launches[0].along_tree());
    CHECK(launches[0].tree.rule.rows == 70000);
    count = 0;
    Int::expand<const int*>(AxesStep{false, 1, 4096, 65536, 4096, 1}, 900, launches, count);
    REQUIRE(count >= 1);
    CHECK(launches[0].along_tree());
    count = 0;
    Int8::expand<const std::int8_t*>(AxesStep{false, 1, 70000, 1000, 128, 547}, 900, launches, count);
    REQUIRE(count == 1);
    CHECK(!launches[0].along_tree());
    CHECK(launches[0].step.units == 547);
  }
}
