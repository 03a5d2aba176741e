// The shipped tuning DBs (cache/shipped/<cluster>/<arch>.json, built into
// share/jitk/db of the build tree): every row must stay usable, so a template
// change that invalidates a shipped configuration fails here, not on a cluster.
#include <filesystem>
#include <memory>
#include <string>

#include "cache/maintenance.h"
#include "cache/sqlite_db.h"
#include "absl/strings/str_cat.h"
#include "cache/tuning_store.h"
#include "gtest/gtest.h"
#include "jitk/arch.h"
#include "jitk/kernel.h"
#include "jitk/shape.h"
#include "lib/kernel_template.h"

namespace jitk::cache {
namespace {

std::filesystem::path ShippedDir() {
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe").parent_path();
  return (exe / ".." / "share" / "jitk" / "db").lexically_normal();
}

TEST(ShippedDbTest, EveryRowIsValidatedAndAValidConfigForItsKernelShapeAndArch) {
  ASSERT_TRUE(std::filesystem::exists(ShippedDir() / "sm_90a.db"))
      << "the H200 DB was not built in " << ShippedDir() << " (target jitk_shipped_dbs)";
  int rows = 0;
  for (const auto& entry : std::filesystem::directory_iterator(ShippedDir())) {
    if (entry.path().extension() != ".db") continue;
    const std::string path = entry.path().string();
    const std::string arch_name = entry.path().stem().string();
    VerifyReport report = VerifyDbFile(path, arch_name);
    ASSERT_TRUE(report.ok()) << path << ": " << report.problems.front();
    absl::StatusOr<ArchInfo> arch = LookupArch(arch_name);
    ASSERT_TRUE(arch.ok()) << arch.status();
    SqliteOpenOptions options;
    options.read_only = true;
    absl::StatusOr<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(path, options);
    ASSERT_TRUE(db.ok()) << db.status();
    absl::Status walked = ForEachTuning(
        **db, [&](const TuningRecord& row, const absl::Status& check) -> absl::Status {
          ++rows;
          const std::string what = absl::StrCat(path, ": ", row.kernel, " ", row.shape_key);
          EXPECT_TRUE(check.ok()) << what << ": " << check;
          EXPECT_TRUE(row.validated) << what << " was not checked against a reference";
          absl::StatusOr<const internal::KernelTemplate*> kernel =
              internal::FindKernelTemplate(row.kernel);
          absl::StatusOr<Shape> shape = Shape::Parse(row.shape_key);
          absl::StatusOr<KernelConfig> config = ParseKernelConfig(row.config);
          if (!kernel.ok() || !shape.ok() || !config.ok()) {
            ADD_FAILURE() << what << ": " << kernel.status() << shape.status() << config.status();
            return absl::OkStatus();
          }
          EXPECT_TRUE((*kernel)->ValidateConfig(*config, *shape, *arch).ok())
              << what << " {" << row.config << "}: "
              << (*kernel)->ValidateConfig(*config, *shape, *arch);
          return absl::OkStatus();
        });
    EXPECT_TRUE(walked.ok()) << walked;
  }
  EXPECT_GE(rows, 2);
}

}  // namespace
}  // namespace jitk::cache
