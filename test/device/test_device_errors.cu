// SPDX-License-Identifier: Apache-2.0
// The bad-input matrix of docs/errors.md, for DeviceReduce, DeviceSegmentedReduce and DeviceReduceAxes: each bad
// call returns its documented error, queues nothing (the call, made again while its stream is being captured,
// leaves the graph empty), and leaves the poisoned output and temporary storage as they were. A size query with
// a null temporary pointer writes the size and nothing else, whatever `temp_storage_bytes` held.
#include <fold/device/device_reduce.cuh>
#include <fold/device/device_reduce_axes.cuh>
#include <fold/device/device_segmented_reduce.cuh>

#include "test_util.cuh"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

namespace
{
using fold_test::DeviceBuffer;

//! A call under test: `(d_temp_storage, temp_storage_bytes, stream) -> cudaError_t`.
using Call = std::function<cudaError_t(void*, std::size_t&, cudaStream_t)>;

constexpr std::size_t slack = 256; // temporary storage beyond what a call asks for, poisoned like the rest

//! Every byte of `buffer` still holds the poison pattern.
template <typename T>
bool still_poisoned(const DeviceBuffer<T>& buffer)
{
  const std::vector<T> host = buffer.to_host();
  const auto* bytes         = reinterpret_cast<const unsigned char*>(host.data());
  return std::all_of(
      bytes, bytes + host.size() * sizeof(T), [](unsigned char b) { return b == fold_test::poison_byte; });
}

//! The number of nodes the call queues while `stream` is captured (0 for a call that launches nothing).
std::size_t nodes_queued(const Call& call, void* temp, std::size_t& bytes, cudaStream_t stream, cudaError_t& error)
{
  CUDA_REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  error = call(temp, bytes, stream);
  cudaGraph_t graph{};
  CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
  std::size_t nodes = 0;
  CUDA_REQUIRE(cudaGraphGetNodes(graph, nullptr, &nodes));
  CUDA_REQUIRE(cudaGraphDestroy(graph));
  return nodes;
}

//! Poisons `out` and `temp`, runs `call` with `bytes` of temporary storage (`temp` itself, or null), and checks
//! that it returns `expected`, queues nothing and leaves both buffers poisoned.
template <typename OutT>
void expect_rejected(const Call& call,
                     DeviceBuffer<OutT>& out,
                     DeviceBuffer<unsigned char>& temp,
                     std::size_t bytes,
                     cudaError_t expected,
                     bool null_temp = false)
{
  cudaStream_t stream{};
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  out.poison();
  temp.poison();
  void* const storage = null_temp ? nullptr : temp.get();

  std::size_t given = bytes;
  cudaError_t error = cudaSuccess;
  CHECK(nodes_queued(call, storage, given, stream, error) == 0);
  INFO("captured: " << cudaGetErrorName(error) << ", expected " << cudaGetErrorName(expected));
  CHECK(error == expected);
  CHECK(given == bytes); // a rejected size query writes nothing either

  error = call(storage, given, stream);
  INFO("plain: " << cudaGetErrorName(error));
  CHECK(error == expected);
  CUDA_REQUIRE(cudaStreamSynchronize(stream));
  CUDA_REQUIRE(cudaStreamDestroy(stream));
  CUDA_REQUIRE(cudaGetLastError()); // nothing the library did left an error behind

  CHECK(still_poisoned(out));
  CHECK(still_poisoned(temp));
}

//! A size query (null temporary pointer, `temp_storage_bytes` holding junk): returns cudaSuccess, writes a
//! non-zero size, queues nothing, leaves the output poisoned. Returns the size.
template <typename OutT>
std::size_t expect_query(const Call& call, DeviceBuffer<OutT>& out)
{
  cudaStream_t stream{};
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  out.poison();
  std::size_t bytes = 0x5EED;
  cudaError_t error = cudaSuccess;
  CHECK(nodes_queued(call, nullptr, bytes, stream, error) == 0);
  CUDA_REQUIRE(error);
  CHECK(bytes != 0x5EED);
  CHECK(bytes > 0);
  const std::size_t queried = bytes;
  bytes                     = 1;
  CUDA_REQUIRE(call(nullptr, bytes, stream));
  CHECK(bytes == queried);
  CUDA_REQUIRE(cudaStreamSynchronize(stream));
  CUDA_REQUIRE(cudaStreamDestroy(stream));
  CHECK(still_poisoned(out));
  return queried;
}

//! Runs `call` for real with `bytes` of storage on a fresh stream; returns its error after a sync.
cudaError_t run(const Call& call, DeviceBuffer<unsigned char>& temp, std::size_t bytes)
{
  cudaStream_t stream{};
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const cudaError_t error = call(temp.get(), bytes, stream);
  CUDA_REQUIRE(cudaStreamSynchronize(stream));
  CUDA_REQUIRE(cudaStreamDestroy(stream));
  return error;
}

//! A call that must succeed: `out` poisoned, the size query (`expect_query`), then a run with exactly that storage;
//! returns `out` as it left it.
template <typename OutT>
std::vector<OutT> run_accepted(const Call& call, DeviceBuffer<OutT>& out)
{
  out.poison();
  const std::size_t bytes = expect_query(call, out);
  DeviceBuffer<unsigned char> temp(bytes);
  CHECK(run(call, temp, bytes) == cudaSuccess);
  return out.to_host();
}

//! The stream-independent half of the matrix for a call of `n` items: a size query, then one byte too little
//! storage, then (to show the call itself is good) a run with exactly the size asked for.
template <typename OutT>
void check_storage_rows(const std::function<cudaError_t(void*, std::size_t&, cudaStream_t)>& call,
                        DeviceBuffer<OutT>& out)
{
  const std::size_t bytes = expect_query(call, out);
  DeviceBuffer<unsigned char> temp(bytes + slack);
  expect_rejected(call, out, temp, bytes - 1, cudaErrorInvalidValue);
  CHECK(run(call, temp, bytes) == cudaSuccess);
}

//! A stream CUDA reports as unusable: while a blocking stream is being captured (global mode), the legacy default
//! stream may not be used (cudaErrorStreamCaptureImplicit), and that error invalidates the capture, so the captured
//! stream then refuses work too (cudaErrorStreamCaptureInvalidated). fold returns those errors, queues nothing and
//! writes nothing; once the capture has ended, the same call works. (A destroyed or made-up stream handle cannot be
//! tested: CUDA leaves its use undefined, and the runtime crashes on it.)
template <typename OutT>
void expect_stream_rejected(const Call& call, DeviceBuffer<OutT>& out)
{
  std::size_t bytes = 0;
  CUDA_REQUIRE(call(nullptr, bytes, 0));
  DeviceBuffer<unsigned char> temp(bytes + slack);
  out.poison();
  temp.poison();
  cudaStream_t capturing{};
  CUDA_REQUIRE(cudaStreamCreate(&capturing)); // blocking: it synchronises with the legacy default stream
  CUDA_REQUIRE(cudaStreamBeginCapture(capturing, cudaStreamCaptureModeGlobal));
  const cudaError_t legacy = call(temp.get(), bytes, cudaStreamLegacy);
  INFO("the legacy stream during a capture: " << cudaGetErrorName(legacy));
  CHECK(legacy == cudaErrorStreamCaptureImplicit);
  const cudaError_t invalidated = call(temp.get(), bytes, capturing);
  INFO("the invalidated capturing stream: " << cudaGetErrorName(invalidated));
  CHECK(invalidated == cudaErrorStreamCaptureInvalidated);
  cudaGraph_t graph{};
  CHECK(cudaStreamEndCapture(capturing, &graph) == cudaErrorStreamCaptureInvalidated);
  CHECK(graph == nullptr);
  (void)cudaGetLastError(); // the failed runtime calls also set the thread's last error, as every failing call does
  CUDA_REQUIRE(cudaStreamDestroy(capturing));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(still_poisoned(out));
  CHECK(still_poisoned(temp));
  CHECK(run(call, temp, bytes) == cudaSuccess);
}

struct Square
{
  __host__ __device__ float operator()(float x) const { return x * x; }
};

constexpr std::int64_t big_n = 3 << 20; // multi-block: every dispatch path but the single tile
} // namespace

TEST_CASE("DeviceReduce: each bad input returns its error, queues nothing and leaves the output alone",
          "[device][errors]")
{
  const auto values = fold_test::random_values<float>(big_n, 7, fold_test::Values::full_range);
  DeviceBuffer<float> in(values);
  DeviceBuffer<float> out(1);
  DeviceBuffer<std::int64_t> index(1);
  const float* d_in = in.get();
  float* d_out      = out.get();

  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1000}, big_n})
  {
    INFO("n " << n);
    // Every algorithm, good arguments: only the storage rows apply.
    const std::vector<std::pair<const char*, Call>> calls = {
        {"Sum",
         [&](void* t, std::size_t& b, cudaStream_t s) { return fold::DeviceReduce::Sum(t, b, d_in, d_out, n, s); }},
        {"Min",
         [&](void* t, std::size_t& b, cudaStream_t s) { return fold::DeviceReduce::Min(t, b, d_in, d_out, n, s); }},
        {"Max",
         [&](void* t, std::size_t& b, cudaStream_t s) { return fold::DeviceReduce::Max(t, b, d_in, d_out, n, s); }},
        {"Reduce",
         [&](void* t, std::size_t& b, cudaStream_t s)
         { return fold::DeviceReduce::Reduce(t, b, d_in, d_out, n, fold::Max{}, -1.0f, s); }},
        {"TransformReduce",
         [&](void* t, std::size_t& b, cudaStream_t s)
         { return fold::DeviceReduce::TransformReduce(t, b, d_in, d_out, n, fold::Sum{}, Square{}, 0.0f, s); }},
        {"ArgMax",
         [&](void* t, std::size_t& b, cudaStream_t s)
         { return fold::DeviceReduce::ArgMax(t, b, d_in, d_out, index.get(), n, s); }},
    };
    for (const auto& [name, call] : calls)
    {
      INFO(name);
      check_storage_rows(call, out);
    }
  }

  std::size_t bytes = 0;
  CUDA_REQUIRE(fold::DeviceReduce::Sum(nullptr, bytes, d_in, d_out, big_n));
  DeviceBuffer<unsigned char> temp(bytes + slack);
  auto sum = [&](const float* i, float* o, auto n)
  { return Call([=](void* t, std::size_t& b, cudaStream_t s) { return fold::DeviceReduce::Sum(t, b, i, o, n, s); }); };
  SECTION("null input with items, null output")
  {
    expect_rejected(sum(nullptr, d_out, big_n), out, temp, bytes, cudaErrorInvalidValue);
    expect_rejected(sum(nullptr, d_out, 1), out, temp, bytes, cudaErrorInvalidValue);
    expect_rejected(sum(d_in, nullptr, big_n), out, temp, bytes, cudaErrorInvalidValue);
    expect_rejected(sum(d_in, nullptr, 0), out, temp, bytes, cudaErrorInvalidValue);
    expect_rejected(
        Call([&](void* t, std::size_t& b, cudaStream_t s)
             { return fold::DeviceReduce::ArgMin(t, b, d_in, d_out, static_cast<std::int64_t*>(nullptr), big_n, s); }),
        out,
        temp,
        bytes,
        cudaErrorInvalidValue);
    expect_rejected(
        Call([&](void* t, std::size_t& b, cudaStream_t s)
             { return fold::DeviceReduce::ArgMin(t, b, d_in, static_cast<float*>(nullptr), index.get(), big_n, s); }),
        out,
        temp,
        bytes,
        cudaErrorInvalidValue);
  }
  SECTION("a negative count, as a run and as a size query")
  {
    for (std::int64_t n : {std::int64_t{-1}, std::numeric_limits<std::int64_t>::min()})
    {
      expect_rejected(sum(d_in, d_out, n), out, temp, bytes, cudaErrorInvalidValue);
      expect_rejected(sum(d_in, d_out, n), out, temp, bytes, cudaErrorInvalidValue, /*null_temp=*/true);
    }
    expect_rejected(sum(d_in, d_out, -5), out, temp, bytes, cudaErrorInvalidValue); // int
  }
  SECTION("a count above max_num_items (2^63 - 1), as a run and as a size query")
  {
    for (std::uint64_t n : {fold::max_num_items + 1, std::numeric_limits<std::uint64_t>::max()})
    {
      expect_rejected(sum(d_in, d_out, n), out, temp, bytes, cudaErrorInvalidValue);
      expect_rejected(sum(d_in, d_out, n), out, temp, bytes, cudaErrorInvalidValue, /*null_temp=*/true);
    }
  }
}

TEST_CASE("DeviceReduce::ReduceByKey: each bad input returns its error, queues nothing and leaves the outputs alone",
          "[device][by_key][errors]")
{
  const auto values = fold_test::random_values<float>(big_n, 17, fold_test::Values::full_range);
  std::vector<int> keys(big_n);
  for (std::int64_t i = 0; i < big_n; ++i)
  {
    keys[i] = static_cast<int>(i / 7); // runs of 7
  }
  DeviceBuffer<float> in(values), aggregates(big_n);
  DeviceBuffer<int> d_keys(keys), unique(big_n), runs(1);
  const int* k   = d_keys.get();
  const float* v = in.get();
  auto by_key    = [&](const int* keys_in,
                    int* unique_out,
                    const float* values_in,
                    float* aggregates_out,
                    int* runs_out,
                    std::int64_t n)
  {
    return Call(
        [=](void* t, std::size_t& b, cudaStream_t s)
        {
          return fold::DeviceReduce::ReduceByKey(
              t, b, keys_in, unique_out, values_in, aggregates_out, runs_out, fold::Sum{}, n, s);
        });
  };
  check_storage_rows(by_key(k, unique.get(), v, aggregates.get(), runs.get(), big_n), aggregates);

  std::size_t bytes = 0;
  CUDA_REQUIRE(by_key(k, unique.get(), v, aggregates.get(), runs.get(), big_n)(nullptr, bytes, 0));
  DeviceBuffer<unsigned char> temp(bytes + slack);
  SECTION("null pointers with items; a null run count always")
  {
    for (const auto& [name, call] : std::vector<std::pair<const char*, Call>>{
             {"keys", by_key(nullptr, unique.get(), v, aggregates.get(), runs.get(), big_n)},
             {"unique keys", by_key(k, nullptr, v, aggregates.get(), runs.get(), big_n)},
             {"values", by_key(k, unique.get(), nullptr, aggregates.get(), runs.get(), big_n)},
             {"aggregates", by_key(k, unique.get(), v, nullptr, runs.get(), big_n)},
             {"run count", by_key(k, unique.get(), v, aggregates.get(), nullptr, big_n)},
             {"run count, no items", by_key(k, unique.get(), v, aggregates.get(), nullptr, 0)},
         })
    {
      INFO("null " << name);
      expect_rejected(call, aggregates, temp, bytes, cudaErrorInvalidValue);
    }
  }
  SECTION("a negative count, as a run and as a size query")
  {
    for (bool query : {false, true})
    {
      expect_rejected(by_key(k, unique.get(), v, aggregates.get(), runs.get(), -1),
                      aggregates,
                      temp,
                      bytes,
                      cudaErrorInvalidValue,
                      query);
    }
  }
}

TEST_CASE("DeviceSegmentedReduce: each bad input returns its error, queues nothing and leaves the output alone",
          "[device][segmented][errors]")
{
  constexpr std::int64_t segments = 1000, size = 3000; // a mix of classes is not needed: every check is on the host
  const auto values = fold_test::random_values<float>(segments * size, 9, fold_test::Values::full_range);
  DeviceBuffer<float> in(values);
  std::vector<int> offsets(segments + 1);
  for (std::int64_t i = 0; i <= segments; ++i)
  {
    offsets[i] = static_cast<int>(i * size);
  }
  DeviceBuffer<int> d_offsets(offsets);
  DeviceBuffer<float> out(segments);
  DeviceBuffer<fold::KeyValuePair<int, float>> pairs(segments);
  const float* d_in = in.get();
  float* d_out      = out.get();
  const int* begins = d_offsets.get();
  const int* ends   = d_offsets.get() + 1;

  auto sum = [&](const float* i, float* o, std::int64_t count, const int* b_off, const int* e_off)
  {
    return Call([=](void* t, std::size_t& b, cudaStream_t s)
                { return fold::DeviceSegmentedReduce::Sum(t, b, i, o, count, b_off, e_off, s); });
  };
  auto fixed = [&](std::int64_t count, std::int64_t length)
  {
    return Call([=](void* t, std::size_t& b, cudaStream_t s)
                { return fold::DeviceSegmentedReduce::Sum(t, b, d_in, d_out, count, length, s); });
  };
  const Call arg_max = [&](void* t, std::size_t& b, cudaStream_t s)
  { return fold::DeviceSegmentedReduce::ArgMax(t, b, d_in, pairs.get(), segments, begins, ends, s); };

  check_storage_rows(sum(d_in, d_out, segments, begins, ends), out);
  check_storage_rows(fixed(segments, size), out);
  check_storage_rows(arg_max, pairs);

  std::size_t bytes = 0;
  CUDA_REQUIRE(sum(d_in, d_out, segments, begins, ends)(nullptr, bytes, 0));
  DeviceBuffer<unsigned char> temp(bytes + slack);
  SECTION("null pointers with segments to reduce")
  {
    expect_rejected(sum(nullptr, d_out, segments, begins, ends), out, temp, bytes, cudaErrorInvalidValue);
    expect_rejected(sum(d_in, nullptr, segments, begins, ends), out, temp, bytes, cudaErrorInvalidValue);
    expect_rejected(sum(d_in, d_out, segments, nullptr, ends), out, temp, bytes, cudaErrorInvalidValue);
    expect_rejected(sum(d_in, d_out, segments, begins, nullptr), out, temp, bytes, cudaErrorInvalidValue);
    // ArgMax: either half of the pair output, or the input.
    auto arg_max_of = [&](const float* i, fold::KeyValuePair<int, float>* o)
    {
      return Call([=](void* t, std::size_t& b, cudaStream_t s)
                  { return fold::DeviceSegmentedReduce::ArgMax(t, b, i, o, segments, begins, ends, s); });
    };
    expect_rejected(arg_max_of(nullptr, pairs.get()), pairs, temp, bytes, cudaErrorInvalidValue);
    expect_rejected(arg_max_of(d_in, nullptr), pairs, temp, bytes, cudaErrorInvalidValue);
  }
  SECTION("a negative count or size; fixed-size segments of more than 2^63 - 1 items in all")
  {
    for (bool query : {false, true})
    {
      expect_rejected(sum(d_in, d_out, -1, begins, ends), out, temp, bytes, cudaErrorInvalidValue, query);
      expect_rejected(fixed(-1, size), out, temp, bytes, cudaErrorInvalidValue, query);
      expect_rejected(fixed(segments, -1), out, temp, bytes, cudaErrorInvalidValue, query);
      expect_rejected(
          fixed(std::int64_t{1} << 40, std::int64_t{1} << 23), out, temp, bytes, cudaErrorInvalidValue, query);
    }
  }
  SECTION("fixed-size segments of no items read nothing: a null input is accepted, and every segment gets init")
  {
    const Call empty = [&](void* t, std::size_t& b, cudaStream_t s)
    { return fold::DeviceSegmentedReduce::Sum(t, b, static_cast<const float*>(nullptr), d_out, segments, 0, s); };
    const auto got = run_accepted(empty, out);
    CHECK(std::all_of(got.begin(), got.end(), [](float x) { return x == 0.0f; }));
  }
  SECTION("zero segments: success, a size, nothing queued, even with null pointers")
  {
    CHECK(expect_query(sum(nullptr, nullptr, 0, nullptr, nullptr), out) > 0);
    cudaStream_t stream{};
    CUDA_REQUIRE(cudaStreamCreate(&stream));
    temp.poison();
    cudaError_t error = cudaErrorUnknown;
    CHECK(nodes_queued(sum(nullptr, nullptr, 0, nullptr, nullptr), temp.get(), bytes, stream, error) == 0);
    CHECK(error == cudaSuccess);
    CUDA_REQUIRE(cudaStreamDestroy(stream));
  }
}

TEST_CASE("DeviceReduceAxes: each bad input returns its error, queues nothing and leaves the output alone",
          "[device][axes][errors]")
{
  const auto values = fold_test::random_values<float>(64 * 96 * 40, 11, fold_test::Values::full_range);
  DeviceBuffer<float> in(values);
  DeviceBuffer<float> out(64 * 96 * 40);
  const float* d_in = in.get();
  float* d_out      = out.get();
  auto sum          = [&](const float* i, float* o, fold::Extents shape, fold::Axes axes)
  {
    return Call([=](void* t, std::size_t& b, cudaStream_t s)
                { return fold::DeviceReduceAxes::Sum(t, b, i, o, shape, axes, s); });
  };
  // Reduce-last, reduce-higher-dim and both in sequence: every step kind's storage.
  for (const fold::Axes& axes : {fold::Axes{2}, fold::Axes{0}, fold::Axes{0, 2}})
  {
    check_storage_rows(sum(d_in, d_out, {64, 96, 40}, axes), out);
  }

  std::size_t bytes = 0;
  CUDA_REQUIRE(sum(d_in, d_out, {64, 96, 40}, {0, 2})(nullptr, bytes, 0));
  DeviceBuffer<unsigned char> temp(bytes + slack);
  SECTION("shapes and axes that make no sense, as runs and as size queries")
  {
    const std::int64_t nine[9]                                  = {1, 1, 1, 1, 1, 1, 1, 1, 2};
    const int axis[2]                                           = {0, -1};
    const std::int64_t huge                                     = std::int64_t{1} << 32;
    const std::vector<std::pair<fold::Extents, fold::Axes>> bad = {
        {fold::Extents(nine, 9), fold::Axes{0}},                // rank above max_rank
        {fold::Extents{64, -1, 40}, fold::Axes{0}},             // a negative extent
        {fold::Extents{huge, huge, 2}, fold::Axes{0}},          // 2^65 items
        {fold::Extents{huge << 30, 4, 0}, fold::Axes{2}},       // no item, but 2^64 outputs (wrapped to 0 before)
        {fold::Extents{(huge << 30) + 1, 4, 0}, fold::Axes{2}}, // and 2^64 + 4 (wrapped to 4 outputs)
        {fold::Extents{64, 96, 40}, fold::Axes{3}},             // an axis beyond the rank
        {fold::Extents{64, 96, 40}, fold::Axes(axis, 2)},       // a negative axis
        {fold::Extents{64, 96, 40}, fold::Axes{9}},             // an axis beyond max_rank
        {fold::Extents{64, 96, 40}, fold::Axes{1, 1}},          // an axis named twice
    };
    for (const auto& [shape, axes] : bad)
    {
      for (bool query : {false, true})
      {
        expect_rejected(sum(d_in, d_out, shape, axes), out, temp, bytes, cudaErrorInvalidValue, query);
      }
    }
  }
  SECTION("null pointers with something to read or write")
  {
    expect_rejected(sum(nullptr, d_out, {64, 96, 40}, {0, 2}), out, temp, bytes, cudaErrorInvalidValue);
    expect_rejected(sum(d_in, nullptr, {64, 96, 40}, {0, 2}), out, temp, bytes, cudaErrorInvalidValue);
    expect_rejected(sum(d_in, nullptr, {64, 0, 40}, {1}), out, temp, bytes, cudaErrorInvalidValue); // writes init
    // Max and Reduce take other kernels (order keys; an operator of the caller's): the same checks.
    const Call max_to_null = [&](void* t, std::size_t& b, cudaStream_t s) {
      return fold::DeviceReduceAxes::Max(t, b, d_in, static_cast<float*>(nullptr), {64, 96, 40}, {0, 2}, s);
    };
    const Call reduce_from_null = [&](void* t, std::size_t& b, cudaStream_t s)
    {
      const auto* none = static_cast<const float*>(nullptr);
      return fold::DeviceReduceAxes::Reduce(t, b, none, d_out, {64, 96, 40}, {0, 2}, fold::Min{}, 1.0f, s);
    };
    expect_rejected(max_to_null, out, temp, bytes, cudaErrorInvalidValue);
    expect_rejected(reduce_from_null, out, temp, bytes, cudaErrorInvalidValue);
  }
  SECTION("an empty reduced axis reads no item: a null input is accepted, and every output gets init")
  {
    const Call empty = sum(nullptr, d_out, {64, 0, 40}, {1});
    const auto got   = run_accepted(empty, out);
    CHECK(std::all_of(got.begin(), got.begin() + 64 * 40, [](float x) { return x == 0.0f; }));
    const auto* past = reinterpret_cast<const unsigned char*>(got.data() + 64 * 40); // the rest of `out`: untouched
    CHECK(std::all_of(past,
                      reinterpret_cast<const unsigned char*>(got.data() + got.size()),
                      [](unsigned char x) { return x == fold_test::poison_byte; }));
  }
}

// Its own test case, so that scripts/gpu-sanitize.sh can run it without the sanitizer's reports of the failing
// CUDA calls it makes on purpose.
TEST_CASE("A stream CUDA refuses: the runtime's error, nothing queued or written, the next call works",
          "[device][errors][invalid-stream]")
{
  const auto values = fold_test::random_values<float>(big_n, 13, fold_test::Values::full_range);
  DeviceBuffer<float> in(values);
  DeviceBuffer<float> out(96 * 40);
  const float* d_in = in.get();
  float* d_out      = out.get();
  for (std::int64_t n : {std::int64_t{1000}, big_n}) // single tile; multi-block
  {
    INFO("DeviceReduce::Sum, n " << n);
    expect_stream_rejected(
        Call([=](void* t, std::size_t& b, cudaStream_t s) { return fold::DeviceReduce::Sum(t, b, d_in, d_out, n, s); }),
        out);
  }
  {
    INFO("DeviceSegmentedReduce::Sum");
    expect_stream_rejected(Call([=](void* t, std::size_t& b, cudaStream_t s)
                                { return fold::DeviceSegmentedReduce::Sum(t, b, d_in, d_out, 1000, 3000, s); }),
                           out);
  }
  {
    INFO("DeviceSegmentedReduce::Sum through offsets (a clear, then two kernels)");
    std::vector<int> offsets(1001);
    for (int i = 0; i <= 1000; ++i)
    {
      offsets[i] = i * 3000;
    }
    DeviceBuffer<int> d_offsets(offsets);
    const int* begins = d_offsets.get();
    expect_stream_rejected(
        Call([=](void* t, std::size_t& b, cudaStream_t s)
             { return fold::DeviceSegmentedReduce::Sum(t, b, d_in, d_out, 1000, begins, begins + 1, s); }),
        out);
  }
  {
    INFO("DeviceReduce::ReduceByKey (a memset of its tile states under capture)");
    std::vector<int> keys(big_n);
    for (std::int64_t i = 0; i < big_n; ++i)
    {
      keys[i] = static_cast<int>(i / 5);
    }
    DeviceBuffer<int> d_keys(keys), unique(big_n), runs(1);
    DeviceBuffer<float> aggregates(big_n);
    const int* k = d_keys.get();
    int* u       = unique.get();
    int* r       = runs.get();
    float* a     = aggregates.get();
    expect_stream_rejected(
        Call([=](void* t, std::size_t& b, cudaStream_t s)
             { return fold::DeviceReduce::ReduceByKey(t, b, k, u, d_in, a, r, fold::Sum{}, big_n, s); }),
        aggregates);
  }
  for (const fold::Axes& axes : {fold::Axes{0}, fold::Axes{2}})
  {
    INFO("DeviceReduceAxes::Sum");
    expect_stream_rejected(Call(
                               [=](void* t, std::size_t& b, cudaStream_t s) {
                                 return fold::DeviceReduceAxes::Sum(t, b, d_in, d_out, {64, 96, 40}, axes, s);
                               }),
                           out);
  }
}
