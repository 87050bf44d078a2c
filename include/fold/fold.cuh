// SPDX-License-Identifier: Apache-2.0
//! @file
//! Everything fold offers, in one include.
#pragma once

#include <fold/agent/agent_reduce.cuh>
#include <fold/agent/agent_reduce_by_key.cuh>
#include <fold/block/block_reduce.cuh>
#include <fold/block/block_scan.cuh>
#include <fold/device/device_reduce.cuh>
#include <fold/device/device_reduce_axes.cuh>
#include <fold/device/device_segmented_reduce.cuh>
#include <fold/grid/grid_even_share.cuh>
#include <fold/grid/run_tile_state.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/operators.cuh>
#include <fold/warp/warp_reduce.cuh>
#include <fold/warp/warp_scan.cuh>
