// SPDX-License-Identifier: Apache-2.0
// The one-call forms (no size query; temporary storage allocated and freed on the stream): the same bits as the
// two-call forms for every DeviceReduce algorithm and for segmented and axis sums, with the device's pool and a
// pool of one's own; cudaErrorMemoryAllocation and nothing written when the pool cannot serve; captured into a
// CUDA graph and replayed.
#include <fold/fold.cuh>

#include "device_test_util.cuh"
#include "test_util.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace
{
//! Every byte of `value` holds the poison pattern.
template <typename T>
bool is_poison(const T& value)
{
  const auto* bytes = reinterpret_cast<const unsigned char*>(&value);
  return std::all_of(bytes, bytes + sizeof(T), [](unsigned char b) { return b == fold_test::poison_byte; });
}

struct Square
{
  __host__ __device__ float operator()(float x) const { return x * x; }
};

//! A pool of the current device (released by its destructor); `max_bytes` 0: no limit but the device's.
class Pool
{
public:
  explicit Pool(std::size_t max_bytes = 0)
  {
    int device = 0;
    CUDA_REQUIRE(cudaGetDevice(&device));
    cudaMemPoolProps props{};
    props.allocType     = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id   = device;
    props.maxSize       = max_bytes;
    CUDA_REQUIRE(cudaMemPoolCreate(&pool_, &props));
  }
  Pool(const Pool&)            = delete;
  Pool& operator=(const Pool&) = delete;
  ~Pool() { cudaMemPoolDestroy(pool_); }
  cudaMemPool_t get() const { return pool_; }

private:
  cudaMemPool_t pool_ = nullptr;
};

//! Fills `pool` on `stream`: allocations of every power of two from 64 KiB down to a byte, each until it fails.
//! Returns them, to be freed on the stream.
std::vector<void*> fill(const Pool& pool, cudaStream_t stream)
{
  std::vector<void*> held;
  for (std::size_t chunk = std::size_t{1} << 16; chunk > 0; chunk /= 2)
  {
    for (void* p = nullptr; cudaMallocFromPoolAsync(&p, chunk, pool.get(), stream) == cudaSuccess; p = nullptr)
    {
      held.push_back(p);
    }
    (void)cudaGetLastError(); // the failure that ends each size is expected
  }
  REQUIRE(!held.empty());
  return held;
}

//! The eight results of DeviceReduce over `d_in` (Sum, Min, Max, ArgMin value and index, ArgMax value and index,
//! Reduce, TransformReduce), by the two-call forms (`one_call` false) or the one-call forms with `option`.
template <typename OptionT>
std::vector<float> reduce_all(const float* d_in, int n, bool one_call, OptionT option, cudaStream_t stream)
{
  fold_test::DeviceBuffer<float> d_out(7);
  fold_test::DeviceBuffer<std::int64_t> d_index(2);
  d_out.poison();
  d_index.poison();
  float* out = d_out.get();
  if (one_call)
  {
    using fold::DeviceReduce;
    CUDA_REQUIRE(DeviceReduce::Sum(d_in, out, n, stream, option));
    CUDA_REQUIRE(DeviceReduce::Min(d_in, out + 1, n, stream, option));
    CUDA_REQUIRE(DeviceReduce::Max(d_in, out + 2, n, stream, option));
    CUDA_REQUIRE(DeviceReduce::ArgMin(d_in, out + 3, d_index.get(), n, stream, option));
    CUDA_REQUIRE(DeviceReduce::ArgMax(d_in, out + 4, d_index.get() + 1, n, stream, option));
    CUDA_REQUIRE(DeviceReduce::Reduce(d_in, out + 5, n, fold::Sum{}, 1.5f, stream, option));
    CUDA_REQUIRE(DeviceReduce::TransformReduce(d_in, out + 6, n, fold::Sum{}, Square{}, 0.0f, stream, option));
    CUDA_REQUIRE(cudaStreamSynchronize(stream));
  }
  else
  {
    using fold::DeviceReduce;
    auto run = [&](auto call) { fold_test::two_call(call, stream); };
    run([&](void* t, std::size_t& b) { return DeviceReduce::Sum(t, b, d_in, out, n, stream, option); });
    run([&](void* t, std::size_t& b) { return DeviceReduce::Min(t, b, d_in, out + 1, n, stream, option); });
    run([&](void* t, std::size_t& b) { return DeviceReduce::Max(t, b, d_in, out + 2, n, stream, option); });
    run([&](void* t, std::size_t& b)
        { return DeviceReduce::ArgMin(t, b, d_in, out + 3, d_index.get(), n, stream, option); });
    run([&](void* t, std::size_t& b)
        { return DeviceReduce::ArgMax(t, b, d_in, out + 4, d_index.get() + 1, n, stream, option); });
    run([&](void* t, std::size_t& b)
        { return DeviceReduce::Reduce(t, b, d_in, out + 5, n, fold::Sum{}, 1.5f, stream, option); });
    run([&](void* t, std::size_t& b)
        { return DeviceReduce::TransformReduce(t, b, d_in, out + 6, n, fold::Sum{}, Square{}, 0.0f, stream, option); });
  }
  std::vector<float> results = d_out.to_host();
  for (std::int64_t index : d_index.to_host())
  {
    results.push_back(static_cast<float>(index));
  }
  return results;
}

void check_same_bits(const std::vector<float>& got, const std::vector<float>& want)
{
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
  {
    INFO("result " << i << ": " << got[i] << ", expected " << want[i]);
    CHECK(fold_test::same_bits(got[i], want[i]));
  }
}
} // namespace

TEST_CASE("One call gives the two-call results bit for bit, from the device's pool or one's own", "[device][one_call]")
{
  const int n       = (1 << 20) + 17;
  const auto values = fold_test::random_values<float>(n, 11, fold_test::Values::full_range);
  fold_test::DeviceBuffer<float> d_in(values);
  cudaStream_t stream = nullptr;
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  Pool pool;

  const auto two_call = reduce_all(d_in.get(), n, false, fold::run_to_run, stream);
  check_same_bits(reduce_all(d_in.get(), n, true, fold::run_to_run, stream), two_call);
  check_same_bits(reduce_all(d_in.get(), n, true, fold::from_pool(pool.get()), stream), two_call);

  const auto canonical = reduce_all(d_in.get(), n, false, fold::gpu_to_gpu, stream);
  check_same_bits(reduce_all(d_in.get(), n, true, fold::from_pool(pool.get(), fold::gpu_to_gpu), stream), canonical);

  // The host's sum of the same floats, to the error bound of the tests of Sum.
  const fold_test::SumReference reference = fold_test::sum_reference(values);
  CHECK(std::fabs(two_call[0] - reference.sum) <= fold_test::sum_error_bound<float, float, float>(n, reference));
  CUDA_REQUIRE(cudaStreamDestroy(stream));
}

TEST_CASE("One call: segmented and axis sums give the two-call results", "[device][one_call]")
{
  const int rows = 1000, cols = 1037;
  const auto values = fold_test::random_values<float>(rows * cols, 12, fold_test::Values::full_range);
  fold_test::DeviceBuffer<float> d_in(values);
  std::vector<int> offsets(rows + 1);
  for (int r = 0; r <= rows; ++r)
  {
    offsets[r] = r * cols;
  }
  fold_test::DeviceBuffer<int> d_offsets(offsets);
  fold_test::DeviceBuffer<float> d_two(2 * rows + cols), d_one(2 * rows + cols);
  d_two.poison();
  d_one.poison();
  const int* begins = d_offsets.get();
  const int* ends   = d_offsets.get() + 1;
  float* two        = d_two.get();
  using fold::DeviceReduceAxes;
  using fold::DeviceSegmentedReduce;
  fold_test::two_call([&](void* t, std::size_t& b)
                      { return DeviceSegmentedReduce::Sum(t, b, d_in.get(), two, rows, begins, ends); });
  fold_test::two_call([&](void* t, std::size_t& b)
                      { return DeviceSegmentedReduce::Sum(t, b, d_in.get(), two + rows, rows, std::int64_t{cols}); });
  fold_test::two_call(
      [&](void* t, std::size_t& b) {
        return DeviceReduceAxes::Sum(t, b, d_in.get(), two + 2 * rows, {rows, cols}, {0});
      });
  float* one = d_one.get();
  CUDA_REQUIRE(DeviceSegmentedReduce::Sum(d_in.get(), one, rows, begins, ends));
  CUDA_REQUIRE(DeviceSegmentedReduce::Sum(d_in.get(), one + rows, rows, std::int64_t{cols}));
  CUDA_REQUIRE(DeviceReduceAxes::Sum(d_in.get(), one + 2 * rows, {rows, cols}, {0}));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  check_same_bits(d_one.to_host(), d_two.to_host());
}

TEST_CASE("One call: a pool that cannot serve gives cudaErrorMemoryAllocation, and nothing is written",
          "[device][one_call][errors]")
{
  const int n       = 1 << 20;
  const auto values = fold_test::random_values<float>(n, 13, fold_test::Values::full_range);
  fold_test::DeviceBuffer<float> d_in(values);
  fold_test::DeviceBuffer<float> d_out(1);
  d_out.poison();
  cudaStream_t stream = nullptr;
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  Pool pool(std::size_t{1} << 21);

  const std::vector<void*> held = fill(pool, stream);

  CHECK(fold::DeviceReduce::Sum(d_in.get(), d_out.get(), n, stream, fold::from_pool(pool.get())) ==
        cudaErrorMemoryAllocation);
  (void)cudaGetLastError();
  CUDA_REQUIRE(cudaStreamSynchronize(stream));
  CHECK(is_poison(d_out.front()));

  // Once the pool has room again, the same call runs.
  for (void* p : held)
  {
    CUDA_REQUIRE(cudaFreeAsync(p, stream));
  }
  CUDA_REQUIRE(fold::DeviceReduce::Sum(d_in.get(), d_out.get(), n, stream, fold::from_pool(pool.get())));
  CUDA_REQUIRE(cudaStreamSynchronize(stream));
  CHECK(!is_poison(d_out.front()));
  CUDA_REQUIRE(cudaStreamDestroy(stream));
}

TEST_CASE("One call: captured into a CUDA graph, replayed", "[device][one_call][graph]")
{
  const int n        = 3 << 18;
  const auto values  = fold_test::random_values<std::int32_t>(n, 14, fold_test::Values::full_range);
  long long expected = 0;
  for (std::int32_t x : values)
  {
    expected += x;
  }
  fold_test::DeviceBuffer<std::int32_t> d_in(values);
  fold_test::DeviceBuffer<long long> d_out(1);
  cudaStream_t stream = nullptr;
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph    = nullptr;
  cudaGraphExec_t exec = nullptr;
  CUDA_REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const cudaError_t captured = fold::DeviceReduce::Sum(d_in.get(), d_out.get(), n, stream);
  CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
  CUDA_REQUIRE(captured);
  CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay)
  {
    d_out.poison();
    CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
    CUDA_REQUIRE(cudaStreamSynchronize(stream));
    CHECK(d_out.front() == expected);
  }
  CUDA_REQUIRE(cudaGraphExecDestroy(exec));
  CUDA_REQUIRE(cudaGraphDestroy(graph));
  CUDA_REQUIRE(cudaStreamDestroy(stream));
}

TEST_CASE("One call: bad arguments are reported as by the two-call form", "[device][one_call][errors]")
{
  fold_test::DeviceBuffer<float> d_in(16);
  float* null_out = nullptr;
  CHECK(fold::DeviceReduce::Sum(d_in.get(), null_out, 16) == cudaErrorInvalidValue);
  CHECK(fold::DeviceReduce::Sum(d_in.get(), d_in.get(), -1) == cudaErrorInvalidValue);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  CUDA_REQUIRE(cudaGetLastError());
}

TEST_CASE("One call: a null pointer is refused before the storage is allocated, so nothing is queued",
          "[device][one_call][errors]")
{
  // A size query does not look at the pointers; the one-call form has the run check them before it allocates
  // (`detail::arguments_only`), so a rejected call leaves a captured graph empty (no allocation or free node), as the
  // two-call form does, and a pool that cannot serve does not hide the bad pointer.
  fold_test::DeviceBuffer<float> d_in(16);
  fold_test::DeviceBuffer<int> d_keys(16), d_count(1);
  fold_test::DeviceBuffer<int> d_offsets(std::vector<int>{0, 8, 16});
  float* null_out     = nullptr;
  const int* begins   = d_offsets.get();
  cudaStream_t stream = nullptr;
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::vector<std::pair<const char*, std::function<cudaError_t(cudaStream_t)>>> calls = {
      {"DeviceReduce::Sum", [&](cudaStream_t s) { return fold::DeviceReduce::Sum(d_in.get(), null_out, 16, s); }},
      {"DeviceReduce::MinMax",
       [&](cudaStream_t s) { return fold::DeviceReduce::MinMax(d_in.get(), d_in.get(), null_out, 16, s); }},
      {"DeviceSegmentedReduce::Sum (offsets)",
       [&](cudaStream_t s)
       { return fold::DeviceSegmentedReduce::Sum(d_in.get(), null_out, 2, begins, begins + 1, s); }},
      {"DeviceSegmentedReduce::Sum (fixed size)",
       [&](cudaStream_t s) { return fold::DeviceSegmentedReduce::Sum(d_in.get(), null_out, 2, 8, s); }},
      {"DeviceReduceAxes::Sum",
       [&](cudaStream_t s) {
         return fold::DeviceReduceAxes::Sum(d_in.get(), null_out, {4, 4}, {0}, s);
       }},
      {"DeviceReduce::ReduceByKey",
       [&](cudaStream_t s)
       {
         return fold::DeviceReduce::ReduceByKey(
             d_keys.get(), d_keys.get(), d_in.get(), null_out, d_count.get(), fold::Sum{}, 16, s);
       }},
  };
  for (const auto& [name, call] : calls)
  {
    INFO(name);
    CUDA_REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    const cudaError_t error = call(stream);
    cudaGraph_t graph       = nullptr;
    CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
    std::size_t nodes = 1;
    CUDA_REQUIRE(cudaGraphGetNodes(graph, nullptr, &nodes));
    CUDA_REQUIRE(cudaGraphDestroy(graph));
    CHECK(error == cudaErrorInvalidValue);
    CHECK(nodes == 0);
    CHECK(call(stream) == cudaErrorInvalidValue); // and outside a capture
  }
  // From a pool that cannot serve (filled first): the bad pointer is still what is reported.
  Pool pool(std::size_t{1} << 21);
  const std::vector<void*> held = fill(pool, stream);
  CHECK(fold::DeviceReduce::Sum(d_in.get(), null_out, 16, stream, fold::from_pool(pool.get())) ==
        cudaErrorInvalidValue);
  for (void* p : held)
  {
    CUDA_REQUIRE(cudaFreeAsync(p, stream));
  }
  CUDA_REQUIRE(cudaStreamSynchronize(stream));
  CUDA_REQUIRE(cudaStreamDestroy(stream));
  CUDA_REQUIRE(cudaGetLastError());
}
