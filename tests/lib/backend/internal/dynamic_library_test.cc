#include "lib/backend/internal/dynamic_library.h"

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace jitk::internal {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;

TEST(DynamicLibraryTest, MissingLibraryNamesFileAndPackage) {
  absl::StatusOr<std::unique_ptr<DynamicLibrary>> lib = DynamicLibrary::Open(
      {"libjitk-does-not-exist.so.7"}, "install the jitk-nothing package");
  EXPECT_THAT(lib, StatusIs(absl::StatusCode::kUnavailable, "libjitk-does-not-exist.so.7"));
  EXPECT_THAT(lib, StatusIs(absl::StatusCode::kUnavailable, "install the jitk-nothing package"));
}

TEST(DynamicLibraryTest, ResolvesTypedSymbolsAndReportsMissingOnes) {
  absl::StatusOr<std::unique_ptr<DynamicLibrary>> lib =
      DynamicLibrary::Open({"libm.so.6"}, "part of glibc");
  ASSERT_THAT(lib, IsOk());
  double (*cosine)(double) = nullptr;
  ASSERT_THAT((*lib)->Resolve("cos", cosine), IsOk());
  EXPECT_DOUBLE_EQ(cosine(0.0), 1.0);
  void (*nothing)() = nullptr;
  EXPECT_THAT((*lib)->Resolve("jitk_no_such_symbol", nothing),
              StatusIs(absl::StatusCode::kUnavailable, "jitk_no_such_symbol"));
}

}  // namespace
}  // namespace jitk::internal
