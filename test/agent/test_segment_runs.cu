// SPDX-License-Identifier: Apache-2.0
// Which fold of a small segment's lane runs `SegmentedFixedTileKernel` instantiates for each length, on the host (no
// GPU): `with_segment_runs` names exactly one (run length, most runs) for every small length, the run length the lane
// groups' tree gives it, and room for all its runs.
#include <fold/agent/agent_segmented_reduce.cuh>

#include "test_util.cuh"

namespace
{
//! Records what `with_segment_runs` calls it with (host and device, as `with_segment_runs` is).
struct Record
{
  int* calls;
  int* run;
  int* max_runs;
  template <typename RunT, typename MaxRunsT>
  FOLD_HOST_DEVICE void operator()(RunT, MaxRunsT) const
  {
    ++*calls;
    *run      = RunT::value;
    *max_runs = MaxRunsT::value;
  }
};

template <int LaneItems>
void check_every_small_length()
{
  fold::detail::SegmentClasses sizes{};
  sizes.lane_items = LaneItems;
  for (int items = 2; items <= 32 * LaneItems; ++items) // one item takes a kernel of its own
  {
    INFO(items << " items, lane runs of at most " << LaneItems);
    const int lanes = sizes.lanes(static_cast<std::uint64_t>(items));
    const int run   = (items + lanes - 1) / lanes;
    int calls = 0, chosen_run = 0, max_runs = 0;
    fold::detail::with_segment_runs<LaneItems>(items, lanes, Record{&calls, &chosen_run, &max_runs});
    REQUIRE(calls == 1);
    REQUIRE(chosen_run == run);
    REQUIRE(max_runs == (lanes == 1 ? 1 : 32));
    REQUIRE((items + run - 1) / run <= max_runs); // the segment's runs, the last one shorter
    REQUIRE((items + run - 1) / run <= lanes);
  }
}
} // namespace

TEST_CASE("Every small length names one fold of its lane runs, of its run length, with room for its runs",
          "[segmented]")
{
  check_every_small_length<4>(); // 4-byte items (and 1- and 8-byte ones)
  check_every_small_length<8>(); // 2-byte items
}
