// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reduction policy chain: one constexpr policy per architecture, and the one selector that both the host
//! (with the PTX version of the loaded image) and the kernels (with `__CUDA_ARCH__`) call. A *tuning* is a type
//! with `static constexpr ReducePolicy policy(int arch)`: `DefaultTuning` selects from the chain, `CanonicalTuning`
//! fixes the reduction tree across architectures, and a user's own may be passed to any algorithm as the trailing
//! `fold::tuned<MyTuning>` argument.
#pragma once

#include <fold/block/block_reduce.cuh>
#include <fold/util/macros.cuh>
#include <fold/util/operators.cuh>
#include <fold/util/type_traits.cuh>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

FOLD_NAMESPACE_BEGIN

//! The shape of the reduction kernels on one architecture.
struct ReducePolicy
{
  int block_threads;    //!< threads per block (a multiple of 32)
  int items_per_thread; //!< items each thread loads per tile, for 4-byte items (scaled to keep bytes constant),
                        //!< where a thread loads one contiguous run: order-preserving operators, and the
                        //!< segmented reductions whatever their operator
  int commutative_items_per_thread; //!< the same for DeviceReduce with a commutative operator over 4-byte items,
                                    //!< whose threads load their slots strided over the tile (one coalesced vector
                                    //!< per lane per load); other item sizes keep `items_per_thread`
  int vector_bytes;                 //!< width of one vector load for primitive types read through aligned raw pointers
  BlockReduceAlgorithm block_algorithm;
  int min_blocks_per_sm;         //!< the occupancy the kernels are compiled for (`__launch_bounds__`)
  int oversubscription;          //!< waves of pass 1 for large inputs: up to occupancy x SMs x this many blocks
  int one_wave_max_mib;          //!< inputs below this many MiB get one wave (occupancy x SMs blocks) at most
  int single_pass_blocks_per_sm; //!< one launch (single-pass) while pass 1 has at most this many blocks per SM;
                                 //!< two launches beyond, where the ticket costs more than the second launch
  int max_units; //!< inexact reductions (floating-point sums, user operators) are cut into at most this many
                 //!< fixed units of whole tiles, one partial each, so that their result does not depend on the
                 //!< grid; more units balance the grid better, fewer make pass 2 shorter
};

//! One link of the chain: the policy for architectures from `arch` up to the next entry.
struct ReducePolicyEntry
{
  int arch; //!< as `__CUDA_ARCH__` spells it: 900 for sm_90
  ReducePolicy policy;
};

//! The chain: its entries in ascending architecture order.
struct ReducePolicyChain
{
  static constexpr int size = 5;
  ReducePolicyEntry entries[size];
};

// clang-format off
//! The chain. The sm_60..sm_80 entries carry CUB 3.0.1's sm_60 shape (256 threads, 16 four-byte items,
//! 16-byte vectors, 5 waves), which CUB runs on every later architecture; they are not tuned. The sm_90 entry is
//! tuned on an H200 by `fold-tune` (tile shapes) and `fold-bench --sweep` (paths and waves); docs/performance.md
//! has the tables (us per call, back to back on one stream, cub in the same run):
//! - min blocks/SM 4 (64 registers) with 16 four-byte items per thread (64 bytes: 4 vector loads in flight):
//!   double Sum 2^30 1894 us against 1951 at 6 blocks/SM (whose 40-register cap left double sums 3% behind cub's
//!   1892), 2^28 482 against 517 (cub 477). 8 blocks/SM (32 registers) spills; 512 threads x 16 was no better.
//! - commutative operators over 4-byte items: 32 items per thread (`commutative_items_per_thread`). Their lanes
//!   load strided slots, so the longer tile keeps coalescing and doubles the bytes in flight: float Sum 2^26
//!   63.1 us against 66.7 with 16 (cub 65.3), 2^28 240.1 against 250.4 (cub 240.8), int32 Min 2^26 62.7 against
//!   66.4; it costs ~0.3 us from 2^14 to 2^18 (3.5 against 3.2 at 2^16; cub 6.2). Order-preserving operators keep
//!   16: a 128-byte run per lane halves their coalescing (0.71-0.76 of the commutative path's throughput; with
//!   warp agents on an H100, 1.05-1.13x the time of 16 from 2^24, docs/performance.md "Order-preserving warps").
//! - one wave below 128 MiB, 4 waves above: at 2^22 floats 1 wave 11.8 us, 2 waves 14.9, 3 waves 18.5 (each
//!   wave adds a block lifetime); at 2^30 floats 1 wave 972 us, 4 waves 944 (cub 945); int8 2^30: 289 vs 246.
//! - single-pass up to 1 block per SM: above it the ticket's tail costs more than the second launch (float 2^21,
//!   512 blocks: single-pass 5.8 us, two-pass 5.2).
//! sm_100 has not been measured; it starts from sm_90's values.
FOLD_HOST_DEVICE constexpr ReducePolicyChain reduce_policy_chain()
{
  return {{
    // arch  threads items comm. vector block algorithm                       min blocks/SM waves 1-wave MiB 1-pass/SM units
    {600,   {256,    16,   16,   16,    BlockReduceAlgorithm::warp_reductions, 1,            5,    0,         1,        16384}},
    {700,   {256,    16,   16,   16,    BlockReduceAlgorithm::warp_reductions, 1,            5,    0,         1,        16384}},
    {800,   {256,    16,   16,   16,    BlockReduceAlgorithm::warp_reductions, 1,            5,    0,         1,        16384}},
    {900,   {256,    16,   32,   16,    BlockReduceAlgorithm::warp_reductions, 4,            4,    128,       1,        16384}},
    {1000,  {256,    16,   32,   16,    BlockReduceAlgorithm::warp_reductions, 4,            4,    128,       1,        16384}},
  }};
}
// clang-format on

//! The policy of the highest chain entry not above `arch`; the lowest entry for anything older (and for the
//! host compilation pass, where `FOLD_ARCH` is 0).
FOLD_HOST_DEVICE constexpr ReducePolicy select_reduce_policy(int arch)
{
  const ReducePolicyChain chain = reduce_policy_chain();
  ReducePolicy selected         = chain.entries[0].policy;
  for (int i = 0; i < ReducePolicyChain::size; ++i)
  {
    if (chain.entries[i].arch <= arch)
    {
      selected = chain.entries[i].policy;
    }
  }
  return selected;
}

//! The tuning the kernels and the dispatch take their policy from, `policy(arch)` (a `constexpr __host__
//! __device__` static member of any tuning type): by default each architecture's
//! own entry of the chain.
struct DefaultTuning
{
  FOLD_HOST_DEVICE static constexpr ReducePolicy policy(int arch) { return select_reduce_policy(arch); }
};

namespace detail
{
//! The fields of a policy that decide the reduction tree (with the input's type and `num_items`): the tile and
//! how it is reduced, and the unit size rule. Whatever the grid, the waves or the occupancy, the same values
//! give the same tree.
struct TreeShape
{
  int block_threads;
  int items_per_thread;
  int commutative_items_per_thread;
  int vector_bytes;
  BlockReduceAlgorithm block_algorithm;
  int max_units;
};

//! The tree of `fold::gpu_to_gpu`: the same on every architecture, whatever the architecture's tuned tile.
inline constexpr TreeShape canonical_tree{256, 16, 16, 16, BlockReduceAlgorithm::warp_reductions, 16384};

//! The kernels a DeviceReduce call runs.
enum class ReducePath
{
  automatic,   //!< let the dispatch choose
  single_tile, //!< one block, one launch: up to one tile
  single_pass, //!< one launch: every block writes a partial, the last one reduces them
  two_pass,    //!< pass 1 writes the partials, a single-tile launch reduces them (the single-pass path's reference)
};

//! What a tuning may force on the host side of a call, for tests and benchmarks (not for production use): a
//! tuning with `static DispatchHooks hooks()` has the dispatch call it on every call. The defaults force
//! nothing. A different path or grid never changes a result's bits, only how it is computed.
struct DispatchHooks
{
  ReducePath path         = ReducePath::automatic;
  int max_grid_size       = 0;     //!< 0: no cap
  int waves               = 0;     //!< 0: the policy's
  int max_listed_segments = 0;     //!< segmented reductions: caps both lists (0: the policy's caps)
  int max_split_units     = 0;     //!< segmented reductions: caps the listed units (0: the policy's cap)
  bool serial_launches    = false; //!< launch without programmatic dependent launch
};

template <typename TuningT, typename = void>
struct has_hooks : std::false_type
{
};
template <typename TuningT>
struct has_hooks<TuningT, std::void_t<decltype(TuningT::hooks())>> : std::true_type
{
};

//! `TuningT::hooks()`, or no hooks at all.
template <typename TuningT>
DispatchHooks hooks_of()
{
  if constexpr (has_hooks<TuningT>::value)
  {
    return TuningT::hooks();
  }
  else
  {
    return {};
  }
}
} // namespace detail

//! The tuning of `fold::gpu_to_gpu`: `BaseT`'s policy with its tree fields replaced by `detail::canonical_tree`, so
//! that every architecture reduces along the same tree. Only the launch fields (occupancy, waves, single-pass or
//! two-pass) stay the architecture's, and they do not change the result.
template <typename BaseT = DefaultTuning>
struct CanonicalTuning
{
  FOLD_HOST_DEVICE static constexpr ReducePolicy policy(int arch)
  {
    ReducePolicy p = BaseT::policy(arch);
    // Keep the architecture's resident threads per SM with the canonical block size.
    const int resident             = p.min_blocks_per_sm * p.block_threads / detail::canonical_tree.block_threads;
    p.min_blocks_per_sm            = resident > 0 ? resident : 1;
    p.block_threads                = detail::canonical_tree.block_threads;
    p.items_per_thread             = detail::canonical_tree.items_per_thread;
    p.commutative_items_per_thread = detail::canonical_tree.commutative_items_per_thread;
    p.vector_bytes                 = detail::canonical_tree.vector_bytes;
    p.block_algorithm              = detail::canonical_tree.block_algorithm;
    p.max_units                    = detail::canonical_tree.max_units;
    return p;
  }
  //! The base's dispatch hooks, if it has any (see `detail::DispatchHooks`).
  static detail::DispatchHooks hooks() { return detail::hooks_of<BaseT>(); }
};

namespace detail
{
//! `BaseT`'s policy with both tiles cut to `items_per_thread` items of `ItemBytes` bytes a thread (at least one): the
//! tile of an exact reduction's single-tile call that fits in it (see `DispatchReduce::has_short_tile`). For
//! items of 4 bytes or more the order-preserving tile; for narrower ones as many items, so fewer bytes.
template <typename BaseT, int ItemBytes>
struct ShortTileTuning
{
  FOLD_HOST_DEVICE static constexpr ReducePolicy policy(int arch)
  {
    ReducePolicy p                 = BaseT::policy(arch);
    const int units                = ItemBytes < 4 ? p.items_per_thread * ItemBytes / 4 : p.items_per_thread;
    p.items_per_thread             = units > 0 ? units : 1;
    p.commutative_items_per_thread = p.items_per_thread;
    return p;
  }
  static DispatchHooks hooks() { return hooks_of<BaseT>(); }
};

//! `ShortTileTuning` of `TuningT` for the items `InputIteratorT` reads.
template <typename InputIteratorT, typename TuningT>
using short_tile_tuning_t = ShortTileTuning<TuningT, static_cast<int>(sizeof(value_t<InputIteratorT>))>;

//! The tile in which an exact reduction (any tree gives its bits) folds its partials in pass 2
//! (`DispatchReduce::partials_kernel`): `BaseT`'s policy with both tiles cut to half its `items_per_thread`, which is
//! `ShortTileTuning`'s cut for 2-byte items. Pass 1's grid is a wave or a few, so its partials number a few hundred to
//! a few thousand, and in the policy's tiles (16 four-byte units a thread, 32 for commutative operators over 4-byte
//! items) they are a partial tile: every slot loaded, clamped past the end, and the guarded warp reductions. On an H200
//! under graph replay, 8 units a thread took Min over float at 2^19-2^21 items from 0.98-1.02 of cub's time to
//! 0.93-0.97 and ArgMax over double at 2^20 from 1.08-1.12 to 1.06, and cost 1 % at 2^24 over double, where the
//! partials are more; over the matrix's exact reductions 0.98 of the time under graph replay, one call and back to
//! back unchanged (docs/performance.md, "Exact reductions' second pass in a shorter tile").
template <typename BaseT>
using PartialsTuning = ShortTileTuning<BaseT, 2>;

//! The tile shape of reduce-by-key, the same on every architecture so that a `gpu_to_gpu` call's bits are the
//! same everywhere: about 384 bytes of keys and values per thread, at most 23 items (an odd count, so that
//! reading 4-byte items back from shared memory meets no bank conflicts); 256 threads while the tile fits in
//! 46 KiB of shared memory, else 128 and as many items as fit. Each tile pays one look-back, so long tiles win: on an
//! H200 at 2^26 items (int32 keys, float values), 23 items per thread against 15 took 207 against 220 us for runs of
//! 1024 items and 291 against 422 for a single run; 7 items per thread took 2-3x as long (docs/performance.md,
//! "ReduceByKey").
struct ReduceByKeyShape
{
  int block_threads;
  int items_per_thread;
  int min_blocks; //!< blocks a multiprocessor must hold (`__launch_bounds__`): 3 of 256 threads, as cub's; 4 of 128
  //! A tile of at least this many run heads (their keys and values `run_dense_head_bytes` a thread) pauses twice as
  //! long before its look-back (`run_look_back_pause_ns`). Timing only.
  int dense_heads;
};

//! The chunks of ReduceByKey's fix-up (`AgentRunFixUp`): a block of this many threads, each on this many tiles'
//! records. Part of the grouping of a long run's value (chunks are folded left to right), so the same everywhere.
//! One record a thread (chunks of 256 tiles): on an H100 against 4 a thread, 0.95-0.98x the time at 2^22 items
//! (int64/double 0.95-0.97), within 1 % at 2^26-2^28; 8 and 16 a thread 1.02-1.15x, and 1024 threads of one record
//! each 1.00-1.04x (docs/performance.md, "the fix-up overlapped with the tiles").
inline constexpr int run_fix_up_threads = 256;
inline constexpr int run_fix_up_tiles   = 1;

//! ReduceByKey's look-back over the head counts pauses this long before its first read, once a call has more than
//! `run_look_back_pause_waves` waves of tiles (a pause only delays the few tiles of a short call), and twice as long in
//! a tile whose heads' keys and values come to at least `run_dense_head_bytes` a thread (`ReduceByKeyShape::
//! dense_heads`). Timing only: the counts, and so the bits, are the same without it. On an H100 at 2^26-2^28 items,
//! against no pause: 350 ns 0.93-1.0 of the time, 1500 ns 0.89-0.96, 2500 ns and more 0.94-1.07 (docs/performance.md,
//! "ReduceByKey: counts only"). Twice the pause in the dense tiles, against 1500 ns everywhere (an H100, the bench's
//! six pairs of key and value types): 0.962-0.993 of the time where runs average 1-2 items, 0.972-0.994 at 4
//! (int32/float 0.990 at 2^28, 1.009 at 2^26 within cub's spread), int64/double 0.980-0.986 at 8; 3000 ns everywhere
//! took runs of 8 and longer (16 for int64/double) 1.035-1.22 (docs/performance.md, "ReduceByKey: twice the pause in
//! tiles dense in heads"). In a call of at most `run_dense_pause_waves` waves a tile needs
//! `run_short_call_dense_factor` times the heads to be dense: at 2^24 items on an H100, 0.955-0.985 of the time in
//! runs of 2-4 (int32 keys with 4-byte values) and of 8 (int64/double), the densest tiles' long pause kept
//! (docs/performance.md, "ReduceByKey: the dense pause in short calls").
inline constexpr unsigned int run_look_back_pause_ns = 1500;
inline constexpr int run_look_back_pause_waves       = 4;
inline constexpr int run_dense_head_bytes            = 40;
inline constexpr int run_dense_pause_waves           = 16;
inline constexpr int run_short_call_dense_factor     = 4;

template <typename KeyT, typename AccumT>
FOLD_HOST_DEVICE constexpr ReduceByKeyShape reduce_by_key_shape()
{
  constexpr int pair_bytes = static_cast<int>(sizeof(KeyT) + sizeof(AccumT));
  constexpr int tile_bytes = 46 * 1024;
  int items                = 384 / pair_bytes;
  items                    = items > 23 ? 23 : items;
  const int threads        = 256 * items * pair_bytes <= tile_bytes ? 256 : 128;
  items                    = threads * items * pair_bytes <= tile_bytes ? items : tile_bytes / (threads * pair_bytes);
  items                    = items < 1 ? 1 : items > 1 && items % 2 == 0 ? items - 1 : items;
  return {threads, items, threads == 256 ? 3 : 4, (run_dense_head_bytes * threads + pair_bytes - 1) / pair_bytes};
}

//! DeviceReduce with an order-preserving operator reads each full tile in rows (one coalesced vector a lane per
//! load, the rows reduced by shuffles that transpose as they reduce) in calls of up to this many tiles, and as each
//! thread's contiguous run beyond (the kernels as they were before rows). On an H100 rows took 0.87-0.96 of the runs'
//! time for a single tile and 0.94-1.00 at 2^14-2^22 items, where a call waits on its multiprocessors' L1 requests;
//! at 2^26-2^28 they took 1.01-1.03 for int32 with 32-bit offsets and double with 64-bit ones (docs/performance.md,
//! "Order-preserving reductions at small sizes"). The same on every architecture: it sets the tree.
inline constexpr std::uint64_t ordered_rows_max_tiles = 4096;

//! The waves of pass 1 for an order-preserving operator beyond `ordered_rows_max_tiles` tiles in at least
//! `ordered_runs_min_units` units, where the policy gives more than one (its `oversubscription` elsewhere): its blocks
//! fold whole units in order, and more, shorter blocks ended closer together. On an H200 16 waves took, of 4 waves'
//! time, 0.97 / 0.99 / 0.99 over float at 2^26 / 2^28 / 2^30 items (8192, 8192 and 16384 units) and 0.985 over double
//! at 2^30 (16384); 1.00 over double at 2^26 and 2^28 (4096 and 8192), but 1.04 over double at 2^25 (4096 units of 4
//! tiles), hence the floor (docs/performance.md, "Units of at most 16 tiles"). A launch field: it does not change the
//! tree.
inline constexpr int ordered_runs_waves     = 16;
inline constexpr int ordered_runs_min_units = 8192;

//! The size classes of the segmented reductions (and of the axis reductions' last-dimension case). With the tile
//! shape they decide each segment's tree, so a segment's result depends only on its items; the values are the
//! same on every architecture. They were set on an H200 from the segment-length sweep of `fold-bench`
//! (docs/performance.md, "Segmented"); the block class then went from 64 tiles to 16, so that no block takes more
//! than 16 tiles of a call in one piece: with block segments of up to 64 tiles a block read up to 1 MB of floats
//! alone, and skewed mixes (log-normal, power-law lengths) waited on those blocks at 43-50 % of peak. At 16 tiles
//! they took 0.67-0.91 of the time, and segments of 65537-262144 items (now 2-4 units) 1.03-1.07
//! (docs/performance.md, "Segmented: the block class at 16 tiles"). The large list holds 2^17 segments, as many as
//! the partials' room (2^18) holds segments of two units or more, so that only calls past 2^18 units (some 2^34 items)
//! or 2^20 block segments take the range fallback (at 16384, 16385 segments of 65537 floats, 4 GiB, took it: 256
//! segments a block, 65 blocks busy). The calls that list no more than 16384 ran in the same times on an H200
//! (docs/performance.md, "Segmented: where the block kernel's time goes").
struct SegmentedPolicy
{
  int lane_items;         //!< small: up to 32 x this many items, groups of 1..32 lanes, each a run of at most this many
                          //!< (twice as many 2-byte items, see `segment_lane_items`)
  int warp_tiles;         //!< warp: up to this many warp tiles (32 threads' share of a tile), one warp per segment
  int block_tiles;        //!< block: up to this many tiles, one block per segment
  int min_unit_tiles;     //!< large: units of K tiles, K the smallest power of two from this that gives at most
  int max_units;          //!< this many units per segment, one partial each
  int max_split_segments; //!< while a call has at most this many large segments with at most
  int max_split_units;    //!< this many units in all (their partials' room in the temporary storage), and at most
  int max_listed_segments; //!< this many block segments, every unit and block segment is dealt out one by one over
                           //!< the whole grid; beyond, blocks take the recorded range 256 segments at a time, and a
                           //!< large segment all its units (the same tree)
  int min_blocks_per_sm;   //!< the block kernel's `__launch_bounds__` occupancy (it holds three agents)
};

FOLD_HOST_DEVICE constexpr SegmentedPolicy segmented_policy()
{
  return {4, 8, 16, 16, 256, 1 << 17, 1 << 18, 1 << 20, 4};
}

//! The items of a small segment's lane run for items of `item_bytes` bytes: the policy's `lane_items`, twice that
//! for 2-byte items, so that a lane run of `__half` holds 16 bytes as one of float does. A small segment's cost is a
//! warp's round trips for its rounds of lane runs, so runs of 8 bytes read half the bytes a round trip (an H100
//! read 128-item half segments through offsets at 34 % of peak, float at 63 %; docs/performance.md, "Small
//! segments: lane runs of 16 bytes for 2-byte items"). The same on every architecture: it sets the trees.
FOLD_HOST_DEVICE constexpr int segment_lane_items(const SegmentedPolicy& policy, int item_bytes)
{
  return item_bytes == 2 ? 2 * policy.lane_items : policy.lane_items;
}

//! A policy made concrete for one item type.
struct TileShape
{
  int block_threads;
  int items_per_thread; //!< a multiple of `vector_items`
  int vector_items;     //!< items per vector load; 1 when the type is not loaded with vectors
  int tile_items;       //!< `block_threads * items_per_thread`
  BlockReduceAlgorithm block_algorithm;
  int grain_items; //!< `block_threads * vector_items`: the unit the grid's ranges are balanced in
  int item_bytes;  //!< the size of an item
};

//! Whether `AgentReduce` folds each full tile of `InputT` items reduced by `ReductionOpT` at once, holding no
//! accumulator per item: specialized by detail/tile_fold.cuh, where `TileFold` says how (ArgMin/ArgMax over 1- and
//! 2-byte items).
template <typename ReductionOpT, typename InputT>
inline constexpr bool folds_whole_tiles_v = false;

//! How many times fewer units than the policy's `max_units` an inexact reduction by `ReductionOpT` is cut into (see
//! `make_reduce_plan`). Each unit ends in a block reduction of its partial; where that costs many times a sum's, longer
//! units pay it less often. Part of the tree, so the same on every architecture and for sharded reductions:
//! specialized by detail/tile_fold.cuh for VarMean's Chan merges (`MergeMoments`).
template <typename ReductionOpT>
inline constexpr int unit_divisor_v = 1;

//! The most bytes of accumulator values one thread's tile may turn into (16 items of a 16-byte pair): beyond it,
//! wide accumulators (the index-value pairs of ArgMin/ArgMax over 1-byte items) run out of registers.
inline constexpr int max_accumulator_bytes_per_thread = 256;

//! The tile shape of `policy` for items of `item_bytes` bytes reduced into accumulators of `accum_bytes`, by
//! an operator that is `commutative` (`commutative_items_per_thread`) or not (`items_per_thread`). The items
//! per thread are scaled so that every thread loads the same number of bytes whatever the type (64 int8, 16
//! float, 8 double for 16 four-byte items), but holds at most `max_accumulator_bytes_per_thread` of
//! accumulators (and at least one vector; `accum_bytes` 0: at most `max_accumulator_bytes_per_thread` items,
//! for threads that fold whole tiles at once, see `uncaps_tile`). The commutative tile differs only for 4-byte items:
//! narrower items are unpacked one per register (128 int8 or 64 __half items per thread spilled at 64 registers), and
//! with 16 doubles per thread the order-preserving path fell to 0.87 of the commutative one's throughput at 2^24 items
//! (issue 5 promises at least 0.90).
FOLD_HOST_DEVICE constexpr TileShape make_tile_shape(
    const ReducePolicy& policy, int item_bytes, bool vectorizable, int accum_bytes = 4, bool commutative = false)
{
  const int bytes_per_thread =
      (commutative && item_bytes == 4 ? policy.commutative_items_per_thread : policy.items_per_thread) * 4;
  const int vector_items = (vectorizable && policy.vector_bytes % item_bytes == 0 && policy.vector_bytes > item_bytes)
                               ? policy.vector_bytes / item_bytes
                               : 1;
  int items              = bytes_per_thread / item_bytes;
  const int accum_cap    = max_accumulator_bytes_per_thread / (accum_bytes > 0 ? accum_bytes : 1);
  items                  = items > accum_cap ? accum_cap : items;
  items                  = items < 1 ? 1 : items;
  items                  = (items + vector_items - 1) / vector_items * vector_items;
  return {policy.block_threads,
          items,
          vector_items,
          policy.block_threads * items,
          policy.block_algorithm,
          policy.block_threads * vector_items,
          item_bytes};
}

//! Whether the tile of `policy` is left uncapped by accumulator bytes: where a thread folds its whole tile at
//! once (`folds_whole_tiles_v`), which it does only with vector loads of whole 32-bit words; it then holds no
//! accumulator per item. Everywhere else items are folded one by one and the cap stays.
template <typename InputIteratorT, typename ReductionOpT>
FOLD_HOST_DEVICE constexpr bool uncaps_tile(const ReducePolicy& policy)
{
  constexpr int item_bytes = static_cast<int>(sizeof(value_t<InputIteratorT>));
  return folds_whole_tiles_v<ReductionOpT, value_t<InputIteratorT>> && is_vectorizable_input_v<InputIteratorT> &&
         policy.vector_bytes > item_bytes && policy.vector_bytes % 4 == 0;
}

//! The tile shape of `policy` for input read through `InputIteratorT`, reduced in `AccumT` by `ReductionOpT` (see
//! `reduce_tile_shape`, which takes the policy of an architecture under a tuning).
template <typename InputIteratorT, typename AccumT, typename ReductionOpT>
FOLD_HOST_DEVICE constexpr TileShape tile_shape_of(const ReducePolicy& policy)
{
  return make_tile_shape(policy,
                         static_cast<int>(sizeof(value_t<InputIteratorT>)),
                         is_vectorizable_input_v<InputIteratorT>,
                         uncaps_tile<InputIteratorT, ReductionOpT>(policy) ? 0 : static_cast<int>(sizeof(AccumT)),
                         is_commutative_v<ReductionOpT>);
}

//! The tile shape the reduction kernels use on architecture `arch` under `TuningT` for input read through
//! `InputIteratorT` and reduced in `AccumT`. `ReductionOpT` is the operator of a DeviceReduce call: a
//! commutative one gets the policy's commutative tile. `void` (the default) asks for the tile of threads that
//! load contiguous runs, which the segmented reductions use with every operator.
template <typename InputIteratorT,
          typename AccumT       = value_t<InputIteratorT>,
          typename TuningT      = DefaultTuning,
          typename ReductionOpT = void>
FOLD_HOST_DEVICE constexpr TileShape reduce_tile_shape(int arch)
{
  return tile_shape_of<InputIteratorT, AccumT, ReductionOpT>(TuningT::policy(arch));
}

//! Whether `ShortTileTuning`'s tile is shorter than `TuningT`'s for input read through `InputIteratorT` and reduced in
//! `AccumT` by `ReductionOpT`, on some architecture of the default policy chain (sm_90: 1-, 2- and 4-byte items).
template <typename InputIteratorT, typename AccumT, typename ReductionOpT, typename TuningT>
FOLD_HOST_DEVICE constexpr bool short_tile_is_shorter()
{
  using ShortT                  = short_tile_tuning_t<InputIteratorT, TuningT>;
  const ReducePolicyChain chain = reduce_policy_chain();
  for (const ReducePolicyEntry& entry : chain.entries)
  {
    if (reduce_tile_shape<InputIteratorT, AccumT, ShortT, ReductionOpT>(entry.arch).tile_items <
        reduce_tile_shape<InputIteratorT, AccumT, TuningT, ReductionOpT>(entry.arch).tile_items)
    {
      return true;
    }
  }
  return false;
}

//! The most tiles of partials pass 2 folds (one block, one tile after another, a round trip each): an inexact
//! reduction is cut into no more units than that many tiles of its partials hold. At 16384 units a sum over double
//! was 8 tiles of 2048 partials, 5-6 us of a 2^25-item call on an H200 (1.04x cub's time; 0.96x at 4096 units,
//! docs/performance.md "Units within two tiles of partials").
inline constexpr int max_partial_tiles = 2;

//! The most tiles a unit is made of only to keep the partials within `max_partial_tiles` tiles: beyond, a call
//! gets more units of this many tiles (up to the policy's `max_units`). A unit is folded by one block, so the last
//! blocks of a call end up to a unit apart; at 2^30 items an order-preserving `+` over float in 8192 units of 32
//! tiles took 1.027x cub's time on an H200, 1.001-1.002x in 16384 of 16 (with `ordered_runs_waves`), and over double at
//! 2^28 in 4096 units of 32 tiles 1.025x, in 8192 of 16 1.011x (docs/performance.md, "Units of at most 16 tiles").
inline constexpr int max_unit_tiles = 16;

//! The tiles of `tile_items` items that `num_items` items fill, the last one partly.
FOLD_HOST_DEVICE constexpr std::uint64_t tiles_of(std::uint64_t num_items, int tile_items)
{
  return (num_items + static_cast<std::uint64_t>(tile_items) - 1) / static_cast<std::uint64_t>(tile_items);
}

//! The tiles of each unit when `tiles` tiles are cut into at most `max_units` units: the smallest power of two that
//! makes that many at most (see `make_reduce_plan`).
FOLD_HOST_DEVICE constexpr std::uint64_t unit_tiles(std::uint64_t tiles, int max_units)
{
  std::uint64_t k = 1;
  while (tiles / k + (tiles % k != 0) > static_cast<std::uint64_t>(max_units))
  {
    k *= 2;
  }
  return k;
}

//! The most units an inexact reduction by `ReductionOpT` into `AccumT` of `tiles` tiles is cut into under `policy`:
//! the policy's `max_units` over `unit_divisor_v`, and within that at most what `max_partial_tiles` tiles of its
//! partials hold (pass 2's tile, `reduce_tile_shape<AccumT*, AccumT, TuningT, ReductionOpT>`) unless that would make
//! units of more than `max_unit_tiles` tiles. A function of the types, the tile count and the policy's tree fields
//! only, so the same on every architecture under `fold::gpu_to_gpu`, and for sharded reductions (which count the
//! tiles of all ranks).
template <typename ReductionOpT, typename AccumT>
FOLD_HOST_DEVICE constexpr int max_units_of(const ReducePolicy& policy, std::uint64_t tiles = 0)
{
  const int units                = policy.max_units / unit_divisor_v<ReductionOpT>;
  const int held                 = max_partial_tiles * tile_shape_of<AccumT*, AccumT, ReductionOpT>(policy).tile_items;
  const std::uint64_t long_units = tiles_of(tiles, max_unit_tiles);
  const std::uint64_t wanted =
      long_units > static_cast<std::uint64_t>(held) ? long_units : static_cast<std::uint64_t>(held);
  return wanted < static_cast<std::uint64_t>(units) ? static_cast<int>(wanted) : units;
}

//! Whether `TuningT` is a tuning: `TuningT::policy(arch)` is a `ReducePolicy` usable in constant expressions.
template <typename TuningT, typename = void>
struct is_tuning : std::false_type
{
};
template <typename TuningT>
struct is_tuning<TuningT, std::void_t<std::integral_constant<int, TuningT::policy(0).block_threads>>>
    : std::is_same<std::remove_cv_t<decltype(TuningT::policy(0))>, ReducePolicy>
{
};

//! `TuningT`'s policy for kernels compiled for `Arch`, checked where it enters the kernel, so that a tuning of
//! the user's own fails to compile with a sentence rather than a wall of template errors.
template <typename TuningT, int Arch>
struct KernelPolicy
{
  static constexpr ReducePolicy value = TuningT::policy(Arch);
  static_assert(value.block_threads >= 32 && value.block_threads <= 1024 && value.block_threads % 32 == 0,
                "fold: a tuning's block_threads must be a multiple of 32 from 32 to 1024");
  static_assert(value.items_per_thread >= 1 && value.commutative_items_per_thread >= 1,
                "fold: a tuning's items_per_thread and commutative_items_per_thread must be at least 1");
  static_assert(value.vector_bytes == 1 || value.vector_bytes == 2 || value.vector_bytes == 4 ||
                    value.vector_bytes == 8 || value.vector_bytes == 16,
                "fold: a tuning's vector_bytes must be 1, 2, 4, 8 or 16");
  static_assert(value.min_blocks_per_sm >= 1, "fold: a tuning's min_blocks_per_sm must be at least 1");
  static_assert(value.oversubscription >= 1 && value.one_wave_max_mib >= 0 && value.single_pass_blocks_per_sm >= 0,
                "fold: a tuning's oversubscription must be at least 1, one_wave_max_mib and "
                "single_pass_blocks_per_sm at least 0");
  static_assert(value.max_units >= 1, "fold: a tuning's max_units must be at least 1");
};

//! The checked policy kernels compiled for `Arch` run under (see `KernelPolicy`).
template <typename TuningT, int Arch>
inline constexpr ReducePolicy kernel_policy = KernelPolicy<TuningT, Arch>::value;
} // namespace detail

//! @name The trailing argument of every algorithm: how its result's bits are fixed, and its tuning
//! @{

//! `run_to_run` (the default): the same values give the same bits on every run on one architecture, whatever
//! the stream, the grid, the temporary storage's address or the input's alignment. See docs/semantics.md.
struct run_to_run_t
{
  using tuning = DefaultTuning;
};

//! `gpu_to_gpu`: as `run_to_run`, and also the same bits on every architecture fold supports: the reduction
//! follows one canonical tree instead of the architecture's tuned tile. It makes a difference only to inexact
//! reductions (floating-point sums, user operators); it may cost throughput where an architecture's tuned tile
//! differs from the canonical one (on sm_90 it does not).
struct gpu_to_gpu_t
{
  using tuning = CanonicalTuning<>;
};

//! `tuned<TuningT>`: run with a tuning of your own, a type with `static constexpr ReducePolicy policy(int arch)`
//! (`fold::CanonicalTuning<TuningT>` keeps `gpu_to_gpu`'s guarantee with it). Bits are reproducible run to run
//! for one tuning; they may differ between tunings.
template <typename TuningT>
struct tuned_t
{
  using tuning = TuningT;
};

inline constexpr run_to_run_t run_to_run{};
inline constexpr gpu_to_gpu_t gpu_to_gpu{};
template <typename TuningT>
inline constexpr tuned_t<TuningT> tuned{};

//! `from_pool(pool)`, `from_pool(pool, option)`: the one-call forms (those without `d_temp_storage`) take their
//! temporary storage from `pool` (`cudaMallocFromPoolAsync` on the call's stream) instead of the device's current
//! pool; `option` counts as if it were passed alone. The two-call forms never allocate and ignore the pool.
template <typename OptionT = run_to_run_t>
struct from_pool_t
{
  using tuning = typename OptionT::tuning;
  cudaMemPool_t pool;
};

inline from_pool_t<> from_pool(cudaMemPool_t pool)
{
  return {pool};
}
template <typename OptionT>
from_pool_t<OptionT> from_pool(cudaMemPool_t pool, OptionT)
{
  return {pool};
}
//! @}

namespace detail
{
template <typename OptionT>
inline constexpr bool is_option_v = std::is_same_v<OptionT, run_to_run_t> || std::is_same_v<OptionT, gpu_to_gpu_t>;
template <typename TuningT>
inline constexpr bool is_option_v<tuned_t<TuningT>> = true;
template <typename OptionT>
inline constexpr bool is_option_v<from_pool_t<OptionT>> = is_option_v<OptionT>;

template <typename OptionT, typename = void>
struct tuning_member
{
  using type = void;
};
template <typename OptionT>
struct tuning_member<OptionT, std::void_t<typename OptionT::tuning>>
{
  using type = typename OptionT::tuning;
};

//! The tuning of `OptionT`; with a readable error (and `DefaultTuning`, so that no other error follows) when it
//! is not an option or its tuning is not a tuning.
template <typename OptionT>
struct tuning_of
{
  static_assert(is_option_v<OptionT>,
                "fold: the argument after the stream must be fold::run_to_run, fold::gpu_to_gpu or fold::tuned<T>");
  using given = typename tuning_member<OptionT>::type;
  static_assert(!is_option_v<OptionT> || is_tuning<given>::value,
                "fold::tuned<T>: T must be a tuning, with 'static constexpr fold::ReducePolicy policy(int arch)' "
                "usable in constant expressions (see fold::DefaultTuning)");
  using type = std::conditional_t<is_option_v<OptionT> && is_tuning<given>::value, given, DefaultTuning>;
};

//! The tuning a call with trailing argument `OptionT` runs with.
template <typename OptionT>
using tuning_t = typename tuning_of<OptionT>::type;
} // namespace detail

FOLD_NAMESPACE_END
