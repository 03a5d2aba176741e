// JITK_TUNE and TuneOnDevice: modes, once per key, thread safety.
#include "tuner/in_library.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fake_backend.h"
#include "tests/testing/status_matchers.h"

namespace jitk::tuner {
namespace {

// Nothing in this test binary may write to the user's real cache: point
// JITK_CACHE_DIR at a scratch directory before any test runs.
struct ScratchCache {
  ScratchCache()
      : dir(std::filesystem::temp_directory_path() /
            ("jitk_tuner_tests_cache_" + std::to_string(getpid()))) {
    std::filesystem::create_directories(dir);
    setenv("JITK_CACHE_DIR", dir.c_str(), 1);
  }
  ~ScratchCache() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  std::filesystem::path dir;
};
const ScratchCache kScratch;
const std::filesystem::path& ScratchCacheDir() { return kScratch.dir; }

using ::jitk::testing::FakeBackend;
using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;

TEST(TuneModeTest, ParsesTheThreeModes) {
  EXPECT_EQ(*ParseTuneMode("off"), TuneMode::kOff);
  EXPECT_EQ(*ParseTuneMode("LAZY"), TuneMode::kLazy);
  EXPECT_EQ(*ParseTuneMode(" force "), TuneMode::kForce);
  EXPECT_EQ(*ParseTuneMode("1"), TuneMode::kLazy);
  EXPECT_EQ(*ParseTuneMode(""), TuneMode::kOff);
  EXPECT_THAT(ParseTuneMode("sometimes"),
              StatusIs(absl::StatusCode::kInvalidArgument, "off, lazy, force"));
  EXPECT_EQ(TuneModeName(TuneMode::kForce), "force");
}

TEST(TuneModeTest, ReadsJitkTuneAndTreatsBadValuesAsOff) {
  unsetenv("JITK_TUNE");
  EXPECT_EQ(TuneModeFromEnv(), TuneMode::kOff);
  setenv("JITK_TUNE", "lazy", 1);
  EXPECT_EQ(TuneModeFromEnv(), TuneMode::kLazy);
  setenv("JITK_TUNE", "bogus", 1);
  EXPECT_EQ(TuneModeFromEnv(), TuneMode::kOff);
  unsetenv("JITK_TUNE");
  EXPECT_TRUE(InLibraryTuneOptions(TuneMode::kLazy).resume);
  EXPECT_FALSE(InLibraryTuneOptions(TuneMode::kForce).resume);
}

TuneOptions Fast(ResultStore* store) {
  TuneOptions options;
  options.strategy = "guided";
  options.store = store;
  options.compile_threads = 2;
  options.measure.min_repetitions = 3;
  options.measure.max_repetitions = 4;
  options.measure.rotate_bytes = 1 << 16;
  return options;
}

TEST(TuneOnDeviceTest, ConcurrentCallersShareOneTuningPerKey) {
  ResetInLibraryTuning();
  FakeBackend fake;
  Device device = fake.OpenDevice();
  std::unique_ptr<ResultStore> store = NewMemoryResultStore();
  const Shape shape = Shape(DType::kF32).Set("n", 1 << 12);
  std::vector<absl::StatusOr<TuneResult>> results(8, absl::UnknownError("unset"));
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back(
        [&, i] { results[i] = TuneOnDevice(device, "scaled_add", shape, Fast(store.get())); });
  }
  for (std::thread& t : threads) t.join();
  const int compiles = fake.compiles();
  for (const auto& r : results) {
    ASSERT_THAT(r, IsOk());
    ASSERT_TRUE(r->best.has_value());
    EXPECT_EQ(r->best->config, results[0]->best->config);
  }
  EXPECT_EQ(size_t(compiles), results[0]->evaluated());  // one tuning run's worth of compiles
  // Later calls are answered from memory.
  ASSERT_THAT(TuneOnDevice(device, "scaled_add", shape, Fast(store.get())), IsOk());
  EXPECT_EQ(fake.compiles(), compiles);
  // Another shape tunes again (its code objects come from the store).
  const int launches = fake.launches();
  ASSERT_THAT(
      TuneOnDevice(device, "scaled_add", Shape(DType::kF32).Set("n", 1 << 13), Fast(store.get())),
      IsOk());
  EXPECT_GT(fake.launches(), launches);
  // Failures are memoized too.
  EXPECT_THAT(TuneOnDevice(device, "saxpy", shape, Fast(store.get())),
              StatusIs(absl::StatusCode::kInvalidArgument, "saxpy"));
  ResetInLibraryTuning();
}

TEST(TuneOnDeviceTest, LazyModeUsesAStoredWinnerWithoutTuning) {
  ResetInLibraryTuning();
  FakeBackend fake;
  Device device = fake.OpenDevice();
  std::unique_ptr<ResultStore> store = NewMemoryResultStore();
  const Shape shape = Shape(DType::kF16).Set("n", 1 << 12);
  TuneOptions first = Fast(store.get());
  ASSERT_THAT(Tune("scaled_add", shape, {.device = device}, first), IsOk());
  const int launches = fake.launches();
  TuneOptions lazy = Fast(store.get());
  lazy.resume = true;  // what InLibraryTuneOptions(kLazy) sets
  absl::StatusOr<TuneResult> r = TuneOnDevice(device, "scaled_add", shape, lazy);
  ASSERT_THAT(r, IsOk());
  EXPECT_TRUE(r->skipped);
  EXPECT_EQ(fake.launches(), launches);
  ResetInLibraryTuning();
}

TEST(TunedConfigForMissTest, OffMeansNoTuning) {
  unsetenv("JITK_TUNE");
  FakeBackend fake;
  absl::StatusOr<std::optional<KernelConfig>> config =
      TunedConfigForMiss(fake.OpenDevice(), "scaled_add", Shape(DType::kF32).Set("n", 64));
  ASSERT_THAT(config, IsOk());
  EXPECT_FALSE(config->has_value());
  EXPECT_EQ(fake.compiles(), 0);
}

TEST(TunedConfigForMissTest, LazyTunesOnceAndPersistsInTheUserCache) {
  const std::filesystem::path& dir = ScratchCacheDir();
  setenv("JITK_TUNE", "lazy", 1);
  ResetInLibraryTuning();
  FakeBackend fake;
  absl::StatusOr<std::optional<KernelConfig>> config =
      TunedConfigForMiss(fake.OpenDevice(), "scaled_add", Shape(DType::kF32).Set("n", 1 << 10));
  unsetenv("JITK_TUNE");
  ASSERT_THAT(config, IsOk());
  ASSERT_TRUE(config->has_value());
  EXPECT_TRUE((*config)->contains("BLOCK"));
  EXPECT_GT(fake.compiles(), 0);
  EXPECT_TRUE(std::filesystem::exists(dir / "sm_90.db"));
  ResetInLibraryTuning();
}

}  // namespace
}  // namespace jitk::tuner
