// SPDX-License-Identifier: Apache-2.0
// fold-bench --by-key (by_key_bench.cu): ReduceByKey beside cub's, compiled apart from fold_bench.cu so that the
// two build in parallel.
#pragma once

#include "bench_common.cuh"

#include <cuda_runtime_api.h>

//! Registers the ReduceByKey cases (`full`: every other power of two and six key/value pairs, else every fourth
//! and three) with Google Benchmark, timed on `stream`.
void register_by_key(const bench::DeviceFacts& facts, cudaStream_t stream, bool full);

//! The table of the ReduceByKey cases that ran.
void print_by_key_table();
