#include "cache/code_object_store.h"

#include <memory>
#include <vector>

#include "cache/schema.h"
#include "cache_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jitk/version.h"

namespace jitk::cache {
namespace {

using ::jitk::cache::testing::IsOk;
using ::jitk::cache::testing::MakeCodeObject;
using ::jitk::cache::testing::StatusIs;
using ::testing::HasSubstr;

class CodeObjectStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = std::move(*SqliteDb::OpenInMemory());
    ASSERT_THAT(EnsureSchema(*db_, "gfx90a"), IsOk());
  }
  std::unique_ptr<SqliteDb> db_;
};

TEST_F(CodeObjectStoreTest, RoundTripKeepsEveryField) {
  CodeObjectRecord in = MakeCodeObject("k1", 100000);
  in.resources = {1, 2, 3, 4, 5, 6, 64, 1024};
  in.created_unix = 1700000000;
  in.jitk_version = "0.0.9";
  ASSERT_THAT(PutCodeObject(*db_, in), IsOk());
  absl::StatusOr<CodeObjectRecord> out = GetCodeObject(*db_, "k1");
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(out->key, in.key);
  EXPECT_EQ(out->kernel, in.kernel);
  EXPECT_EQ(out->symbol, in.symbol);
  EXPECT_EQ(out->name_expression, in.name_expression);
  EXPECT_EQ(out->target, in.target);
  EXPECT_EQ(out->compiler, in.compiler);
  EXPECT_EQ(out->config, in.config);
  EXPECT_EQ(out->resources.registers, 1);
  EXPECT_EQ(out->resources.scalar_registers, 2);
  EXPECT_EQ(out->resources.accum_registers, 3);
  EXPECT_EQ(out->resources.lds_bytes, 4);
  EXPECT_EQ(out->resources.scratch_bytes, 5);
  EXPECT_EQ(out->resources.spills, 6);
  EXPECT_EQ(out->resources.wave_size, 64);
  EXPECT_EQ(out->resources.max_threads_per_block, 1024);
  EXPECT_EQ(out->compile_ms, in.compile_ms);
  EXPECT_EQ(out->jitk_version, "0.0.9");
  EXPECT_EQ(out->created_unix, 1700000000);
  EXPECT_EQ(out->code, in.code);
}

TEST_F(CodeObjectStoreTest, PutFillsVersionAndTime) {
  ASSERT_THAT(PutCodeObject(*db_, MakeCodeObject("k")), IsOk());
  absl::StatusOr<CodeObjectRecord> out = GetCodeObject(*db_, "k");
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(out->jitk_version, JITK_VERSION_STRING);
  EXPECT_GT(out->created_unix, 1700000000);
}

TEST_F(CodeObjectStoreTest, MissingKeyIsNotFound) {
  EXPECT_THAT(GetCodeObject(*db_, "nope"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("no code object nope")));
}

TEST_F(CodeObjectStoreTest, PutReplacesTheSameKey) {
  ASSERT_THAT(PutCodeObject(*db_, MakeCodeObject("k", 10, 'a')), IsOk());
  ASSERT_THAT(PutCodeObject(*db_, MakeCodeObject("k", 20, 'b')), IsOk());
  EXPECT_EQ(GetCodeObject(*db_, "k")->code.size(), 20u);
}

TEST_F(CodeObjectStoreTest, EmptyKeyOrCodeIsInvalid) {
  EXPECT_THAT(PutCodeObject(*db_, MakeCodeObject("", 10)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must not be empty")));
  EXPECT_THAT(PutCodeObject(*db_, MakeCodeObject("k", 0)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must not be empty")));
}

TEST_F(CodeObjectStoreTest, FlippedByteInBlobIsDataLossAndNothingIsReturned) {
  ASSERT_THAT(PutCodeObject(*db_, MakeCodeObject("k", 4096)), IsOk());
  // Same length, one byte different: only the checksum can tell.
  ASSERT_THAT(db_->Exec("UPDATE code_objects SET code = "
                        "substr(code, 1, 99) || X'00' || substr(code, 101) WHERE key = 'k'"),
              IsOk());
  EXPECT_THAT(GetCodeObject(*db_, "k"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("fails its checksum")));
}

TEST_F(CodeObjectStoreTest, ChangedMetadataIsDataLoss) {
  ASSERT_THAT(PutCodeObject(*db_, MakeCodeObject("k")), IsOk());
  ASSERT_THAT(db_->Exec("UPDATE code_objects SET symbol = 'other' WHERE key = 'k'"), IsOk());
  EXPECT_THAT(GetCodeObject(*db_, "k"), StatusIs(absl::StatusCode::kDataLoss, HasSubstr("k")));
}

TEST_F(CodeObjectStoreTest, TruncatedBlobIsDataLoss) {
  ASSERT_THAT(PutCodeObject(*db_, MakeCodeObject("k", 4096)), IsOk());
  ASSERT_THAT(db_->Exec("UPDATE code_objects SET code = substr(code, 1, 100)"), IsOk());
  EXPECT_THAT(GetCodeObject(*db_, "k"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("has 100 bytes, the row says 4096")));
}

TEST_F(CodeObjectStoreTest, ForEachReportsEachRowsCheck) {
  for (const char* key : {"a", "b", "c"})
    ASSERT_THAT(PutCodeObject(*db_, MakeCodeObject(key)), IsOk());
  ASSERT_THAT(db_->Exec("UPDATE code_objects SET compile_ms = 1 WHERE key = 'b'"), IsOk());
  std::vector<std::string> good, bad;
  ASSERT_THAT(ForEachCodeObject(*db_,
                                [&](const CodeObjectRecord& r, const absl::Status& check) {
                                  (check.ok() ? good : bad).push_back(r.key);
                                  return absl::OkStatus();
                                }),
              IsOk());
  EXPECT_EQ(good, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(bad, (std::vector<std::string>{"b"}));
  ASSERT_THAT(DeleteCodeObject(*db_, "b"), IsOk());
  EXPECT_THAT(GetCodeObject(*db_, "b"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("b")));
}

}  // namespace
}  // namespace jitk::cache
