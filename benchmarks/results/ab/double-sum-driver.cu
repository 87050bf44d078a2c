// SPDX-License-Identifier: Apache-2.0
// Where Sum over double loses to cub at 2^25 (issue 21): fold's Sum and its order-preserving Reduce (a user `+` not
// declared commutative) over double, and Sum over float for reference, under forced pass-1 waves and fewer units,
// beside cub, at 2^24-2^28 items. Times: the median of 21 event timings of one call ("call") and of 10 calls back
// to back ("b2b", per call), in us.
// Build: nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -I<tree>/benchmarks -o double-sum double-sum-driver.cu
#include <fold/fold.cuh>

#include "bench_forced.cuh"
#include "driver_util.cuh"

#include <cub/device/device_reduce.cuh>

#include <cstdio>

//! The default policy with at most `Units` units (the tree changes with it), under the forced hooks.
template <int Units>
struct FewerUnits
{
  __host__ __device__ static constexpr fold::ReducePolicy policy(int arch)
  {
    fold::ReducePolicy p = fold::DefaultTuning::policy(arch);
    p.max_units          = Units;
    return p;
  }
  static fold::detail::DispatchHooks hooks() { return bench::forced_hooks; }
};

template <typename T>
void run(const char* name, int log2, bool ordered)
{
  CaseBuffers<T> b(std::size_t{1} << log2);
  const int items = static_cast<int>(b.n);

  auto fold_call = [&](auto tuning)
  {
    return [&, tuning]
    {
      if (ordered)
      {
        return fold::DeviceReduce::Reduce(b.temp, b.bytes, b.in, b.out, items, Plus{}, T{}, b.stream, tuning);
      }
      return fold::DeviceReduce::Sum(b.temp, b.bytes, b.in, b.out, items, b.stream, tuning);
    };
  };
  auto cub_call = [&]
  {
    if (ordered)
    {
      return cub::DeviceReduce::Reduce(b.temp, b.bytes, b.in, b.out + 1, items, Plus{}, T{}, b.stream);
    }
    return cub::DeviceReduce::Sum(b.temp, b.bytes, b.in, b.out + 1, items, b.stream);
  };
  auto time = [&](auto call, int waves)
  {
    bench::forced_hooks.waves = waves;
    print_call_and_b2b(b.stream, call);
    bench::forced_hooks = {};
  };
  std::printf("%-7s %-8s 2^%d", ordered ? "Reduce" : "Sum", name, log2);
  time(cub_call, 0);
  time(fold_call(bench::forced), 0);
  for (int waves : {1, 2, 8})
  {
    time(fold_call(bench::forced), waves);
  }
  time(fold_call(fold::tuned_t<FewerUnits<4096>>{}), 0);
  time(fold_call(fold::tuned_t<FewerUnits<4096>>{}), 8);
  std::printf("\n");
}

int main()
{
  std::printf("us, one call / per call of 10 back to back; columns: cub, fold (policy), fold waves 1, 2, 8, "
              "fold 4096 units, fold 4096 units at 8 waves\n");
  for (int round = 0; round < 2; ++round)
  {
    for (int log2 : {24, 25, 26, 27, 28})
    {
      run<double>("double", log2, false);
      run<double>("double", log2, true);
      run<float>("float", log2 + 1, false);
    }
  }
  return 0;
}
