// The driver of by-key-lookback-257a479.txt (not built by CMake): fold and cub ReduceByKey on one stream, Sum over
// keys with runs of a given mean length (0: a single run). Per case: 21 (or argv[1]) calls per sample, the median,
// the lower of two samples each; then fold is checked against cub (keys exact, aggregates to 1e-3) and run twice
// (bits equal). Build it against any tree: nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -o prof <this file>;
// run `prof <calls> <log2 items>`. With -DFOLD_RBK_DEBUG (against a tree that defines fold_rbk_debug, see
// by-key-lookback.diff) it also prints the look-back's distances.
#include <fold/fold.cuh>
#include <cub/device/device_reduce.cuh>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <random>
#include <vector>
#include <algorithm>
#include <cstring>
#include <cmath>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
template <typename K, typename V>
void run(const char* name, size_t n, size_t mean, int reps)
{
  std::vector<K> hk(n); std::vector<V> hv(n);
  unsigned long long x = 0x9E3779B97F4A7C15ull;
  auto next = [&] { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x; };
  K key = 0;
  for (size_t i = 0; i < n; ++i) { const unsigned long long r = next(); if (mean != 0 && i > 0 && (r % mean) == 0) ++key; hk[i] = key; hv[i] = static_cast<V>(static_cast<double>(r >> 40) / (1 << 24) * 100); }
  K *dk, *du; V *dv, *da; int* dn;
  CK(cudaMalloc(&dk, n * sizeof(K))); CK(cudaMalloc(&du, n * sizeof(K))); CK(cudaMalloc(&dv, n * sizeof(V))); CK(cudaMalloc(&da, n * sizeof(V))); CK(cudaMalloc(&dn, 4));
  CK(cudaMemcpy(dk, hk.data(), n * sizeof(K), cudaMemcpyHostToDevice)); CK(cudaMemcpy(dv, hv.data(), n * sizeof(V), cudaMemcpyHostToDevice));
  size_t fb = 0, cb = 0; void *ft = nullptr, *ct = nullptr;
  CK(fold::DeviceReduce::ReduceByKey(nullptr, fb, dk, du, dv, da, dn, cuda::std::plus<>{}, (int)n, 0));
  CK(cub::DeviceReduce::ReduceByKey(nullptr, cb, dk, du, dv, da, dn, cuda::std::plus<>{}, (int)n, 0));
  CK(cudaMalloc(&ft, fb)); CK(cudaMalloc(&ct, cb));
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  auto time = [&](auto f) { std::vector<float> t; for (int r = 0; r < reps; ++r) { CK(cudaEventRecord(a)); CK(f()); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms); } std::sort(t.begin(), t.end()); return t[t.size() / 2] * 1000; };
  auto ff = [&] { return fold::DeviceReduce::ReduceByKey(ft, fb, dk, du, dv, da, dn, cuda::std::plus<>{}, (int)n, (cudaStream_t)0); };
  auto cf = [&] { return cub::DeviceReduce::ReduceByKey(ct, cb, dk, du, dv, da, dn, cuda::std::plus<>{}, (int)n, (cudaStream_t)0); };
#ifdef FOLD_RBK_DEBUG
  unsigned long long zero[8] = {}, dbg[8];
  CK(cudaMemcpyToSymbol(fold_rbk_debug, zero, sizeof(zero)));
  CK(ff()); CK(cudaDeviceSynchronize());
  CK(cudaMemcpyFromSymbol(dbg, fold_rbk_debug, sizeof(dbg)));
  printf("DEBUG %s mean %zu: tiles looking back %llu, mean distance to the value's start %.1f, to the inclusive pair %.1f, windows %.2f\n", name, mean, dbg[1], double(dbg[0]) / dbg[1], double(dbg[3]) / dbg[1], double(dbg[2]) / dbg[1]);
#endif
  float tf = time(ff), tc = time(cf), tf2 = time(ff), tc2 = time(cf);
  int runs; CK(cudaMemcpy(&runs, dn, 4, cudaMemcpyDeviceToHost));
  // check: fold twice (bits equal), against cub (keys exact, aggregates to 1e-3)
  std::vector<K> fk(runs), ck(runs); std::vector<V> fa(runs), fa2(runs), ca(runs); int fr = -1, cr = -2;
  CK(cudaMemset(du, 0xff, n * sizeof(K))); CK(cudaMemset(da, 0xff, n * sizeof(V)));
  CK(ff()); CK(cudaMemcpy(&fr, dn, 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(fk.data(), du, runs * sizeof(K), cudaMemcpyDeviceToHost)); CK(cudaMemcpy(fa.data(), da, runs * sizeof(V), cudaMemcpyDeviceToHost));
  CK(cudaMemset(da, 0xff, n * sizeof(V))); CK(ff()); CK(cudaMemcpy(fa2.data(), da, runs * sizeof(V), cudaMemcpyDeviceToHost));
  CK(cf()); CK(cudaMemcpy(&cr, dn, 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(ck.data(), du, runs * sizeof(K), cudaMemcpyDeviceToHost)); CK(cudaMemcpy(ca.data(), da, runs * sizeof(V), cudaMemcpyDeviceToHost));
  size_t bad = 0; bool same_bits = std::memcmp(fa.data(), fa2.data(), runs * sizeof(V)) == 0;
  for (int i = 0; i < runs; ++i) if (fk[i] != ck[i] || !(std::abs((double)fa[i] - (double)ca[i]) <= 1e-3 * std::max(1.0, std::abs((double)ca[i])))) ++bad; // a NaN (an aggregate never written over the poison) counts
  if (fr != cr || bad || !same_bits) printf("CHECK FAILED %s mean %zu: runs %d vs %d, %zu bad, bits %s\n", name, mean, fr, cr, bad, same_bits ? "same" : "DIFFER");
  double bytes = n * (sizeof(K) + sizeof(V)) + (double)runs * (sizeof(K) + sizeof(V));
  double fmin = std::min(tf, tf2), cmin = std::min(tc, tc2);
  printf("%-14s n=2^%d mean=%-8zu runs=%-9d fold %8.1f us (%.0f GB/s)  cub %8.1f us (%.0f GB/s)  fold/cub %.3f\n", name, (int)std::log2((double)n), mean, runs, fmin, bytes / fmin / 1e3, cmin, bytes / cmin / 1e3, fmin / cmin);
  CK(cudaFree(dk)); CK(cudaFree(du)); CK(cudaFree(dv)); CK(cudaFree(da)); CK(cudaFree(dn)); CK(cudaFree(ft)); CK(cudaFree(ct));
}
int main(int argc, char** argv)
{
  int reps = argc > 1 ? atoi(argv[1]) : 21;
  size_t n = size_t(1) << (argc > 2 ? atoi(argv[2]) : 26);
  if (argc > 3 && argv[3][0] == 'd') // "d<mean>": int64/double in runs of <mean> alone (for ncu)
  {
    run<std::int64_t, double>("int64,double", n, static_cast<size_t>(atoll(argv[3] + 1)), reps);
    return 0;
  }
  if (argc > 3 && argv[3][0] == 'w') // "w": int64/double in every run length, int32/float in runs of 2 and 8 only
  {                                    // (added for by-key-pause-6f09514.txt)
    for (size_t mean : {size_t(1), size_t(2), size_t(8), size_t(64), size_t(0)})
    {
      run<std::int64_t, double>("int64,double", n, mean, reps);
    }
    run<int, float>("int32,float", n, 2, reps);
    run<int, float>("int32,float", n, 8, reps);
    return 0;
  }
  if (argc > 3 && argv[3][0] == 'o') // "o": the bench's other pairs over the same run lengths (for by-key-dense-pause)
  {
    for (size_t mean : {size_t(1), size_t(2), size_t(4), size_t(8), size_t(16), size_t(32), size_t(64)})
    {
      run<std::int64_t, float>("int64,float", n, mean, reps);
      run<std::int64_t, int>("int64,int32", n, mean, reps);
      run<int, double>("int32,double", n, mean, reps);
      run<int, int>("int32,int32", n, mean, reps);
    }
    return 0;
  }
  // "u": all six pairs in runs of 1, 2 and 4 (added for by-key-short-calls-61fcc61.txt)
  if (argc > 3 && argv[3][0] == 'u')
  {
    for (size_t mean : {size_t(1), size_t(2), size_t(4)})
    {
      run<int, float>("int32,float", n, mean, reps);
      run<int, int>("int32,int32", n, mean, reps);
      run<std::int64_t, double>("int64,double", n, mean, reps);
      run<std::int64_t, float>("int64,float", n, mean, reps);
      run<std::int64_t, int>("int64,int32", n, mean, reps);
      run<int, double>("int32,double", n, mean, reps);
    }
    return 0;
  }
  if (argc > 3 && (argv[3][0] == 'r' || argv[3][0] == 'R')) // "r": both pairs over the run lengths around the
  { // pauses' crossover; "R": int64/double in runs of 1-8 and one run (mean 0 passes `mean <= 8`), int32/float in
    // runs of 2-8 (added for by-key-dense-pause)
    const bool all = argv[3][0] == 'r';
    for (size_t mean : {size_t(1), size_t(2), size_t(8), size_t(16), size_t(32), size_t(64), size_t(0)})
    {
      if (all || mean <= 8) run<std::int64_t, double>("int64,double", n, mean, reps);
    }
    for (size_t mean : {size_t(1), size_t(2), size_t(4), size_t(8), size_t(1024), size_t(0)})
    {
      if (all || (mean >= 2 && mean <= 8)) run<int, float>("int32,float", n, mean, reps);
    }
    return 0;
  }
  if (argc > 3) // any other third argument: runs of 1 and 2 too (added for by-key-counts-57500f5.txt)
  {
    run<int, float>("int32,float", n, 1, reps);
    run<int, float>("int32,float", n, 2, reps);
    run<std::int64_t, double>("int64,double", n, 1, reps);
  }
  run<int, float>("int32,float", n, 8, reps);
  run<int, float>("int32,float", n, 1024, reps);
  run<int, float>("int32,float", n, 0, reps);
  run<std::int64_t, double>("int64,double", n, 8, reps);
  run<std::int64_t, double>("int64,double", n, 0, reps);
}
