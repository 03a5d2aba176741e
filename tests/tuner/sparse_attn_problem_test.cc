// sparse_attn's tuning problem: buffers and launch arguments from the block
// mask, deterministic inputs, and the sampled fp64 check of O.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jitk/block_mask.h"
#include "lib/attention/reference.h"
#include "tests/testing/status_matchers.h"
#include "tuner/problem.h"
#include "tuner/problems/storage.h"

namespace jitk::tuner {
namespace {

using ::jitk::testing::StatusIs;
using ::testing::HasSubstr;

constexpr int kLen = 200, kHeadDim = 32, kHeadsQ = 2, kHeadsKv = 1;

Shape CausalShape(DType dtype) {
  return BlockMask::Causal(kLen, kLen, 64)->AttentionShape(dtype, 1, kHeadsQ, kHeadsKv, kHeadDim);
}

std::unique_ptr<ProblemInstance> Make(const Shape& shape) {
  absl::StatusOr<std::unique_ptr<ProblemInstance>> p =
      (*FindProblem("sparse_attn"))->Create(shape, 3);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : nullptr;
}

std::string Fill(const ProblemInstance& p, size_t buffer) {
  std::string bytes(p.buffers()[buffer].bytes, '\0');
  p.FillInput(buffer, 0, absl::MakeSpan(bytes.data(), bytes.size()));
  return bytes;
}

std::vector<double> Values(const std::string& bytes, DType dtype) {
  const size_t e = DTypeSize(dtype);
  std::vector<double> v(bytes.size() / e);
  for (size_t i = 0; i < v.size(); ++i) v[i] = problems::LoadAs(dtype, bytes.data() + i * e);
  return v;
}

// O from the fp64 reference on the stored inputs, rounded to the storage type.
std::string ReferenceOutput(const ProblemInstance& p, DType dtype, const BlockMask& mask) {
  jitk::internal::AttentionDims dims{1, kHeadsQ, kHeadsKv, kLen, kLen, kHeadDim};
  absl::StatusOr<jitk::internal::ReferenceOutput> ref = jitk::internal::ReferenceSparseAttention(
      dims, 1.0 / std::sqrt(double(kHeadDim)), mask, Values(Fill(p, 1), dtype),
      Values(Fill(p, 2), dtype), Values(Fill(p, 3), dtype));
  EXPECT_TRUE(ref.ok()) << ref.status();
  const size_t e = DTypeSize(dtype);
  std::string out(ref->o.size() * e, '\0');
  for (size_t i = 0; i < ref->o.size(); ++i) problems::StoreAs(dtype, float(ref->o[i]), &out[i * e]);
  return out;
}

TEST(SparseAttnProblemTest, BuffersAndArgsFollowTheMask) {
  std::unique_ptr<ProblemInstance> p = Make(CausalShape(DType::kF16));
  ASSERT_NE(p, nullptr);
  const std::vector<BufferSpec>& b = p->buffers();
  ASSERT_EQ(b.size(), 8u);  // causal masks have full blocks
  EXPECT_EQ(b[0].name, "o");
  EXPECT_TRUE(b[0].output);
  EXPECT_EQ(b[0].element_bytes, size_t(kLen) * kHeadDim * 2);  // one head per check
  EXPECT_EQ(b[1].bytes, size_t(kHeadsQ) * kLen * kHeadDim * 2);
  EXPECT_EQ(b[2].bytes, size_t(kHeadsKv) * kLen * kHeadDim * 2);
  EXPECT_EQ(b[7].name, "full_kv_indices");

  const BlockMask mask = *BlockMask::Causal(kLen, kLen, 64);
  const std::string indices = Fill(*p, 5);
  ASSERT_EQ(indices.size(), mask.kv_indices().size() * 4);
  EXPECT_EQ(std::memcmp(indices.data(), mask.kv_indices().data(), indices.size()), 0);

  int slots[8];
  void* pointers[8];
  for (int i = 0; i < 8; ++i) pointers[i] = &slots[i];
  LaunchArgs args = p->Args(pointers);
  EXPECT_EQ(args.Find("o")->pointer, &slots[0]);
  EXPECT_EQ(args.Find("full_kv_indices")->pointer, &slots[7]);
  EXPECT_EQ(args.Find("mask_heads")->integer, 1);
  EXPECT_EQ(args.Find("lse"), nullptr);
  // Causal: half the dense square.
  EXPECT_DOUBLE_EQ(p->flops(), 4.0 * kHeadsQ * kLen * kLen * kHeadDim / 2);
}

// Fewer queries than keys: a KV cache's step, the queries at the last
// positions, so a causal decode step sees every key.
TEST(SparseAttnProblemTest, ShortQueriesSitAtTheEndOfTheKeys) {
  const Shape decode = BlockMask::Causal(1, kLen, 64)->AttentionShape(DType::kF16, 1, kHeadsQ,
                                                                       kHeadsKv, kHeadDim);
  std::unique_ptr<ProblemInstance> p = Make(decode);
  ASSERT_NE(p, nullptr);
  int slots[8];
  void* pointers[8];
  for (int i = 0; i < 8; ++i) pointers[i] = &slots[i];
  EXPECT_EQ(p->Args(pointers).Find("q_offset")->integer, kLen - 1);
  EXPECT_DOUBLE_EQ(p->flops(), 4.0 * kHeadsQ * kHeadDim * (kLen - 1 + 0.5));
  EXPECT_EQ(Make(CausalShape(DType::kF16))->Args(pointers).Find("q_offset")->integer, 0);
}

// A shape with a mask per query head is timed under one: the layout's
// mask once per head (so the launch keeps grouped heads unpacked), its
// FLOPs and bytes those of the shared mask.
TEST(SparseAttnProblemTest, MaskPerHeadRepeatsTheLayoutsMask) {
  const Shape shared = CausalShape(DType::kF16);
  std::unique_ptr<ProblemInstance> p = Make(Shape(shared).Set("mask_per_head", 1));
  std::unique_ptr<ProblemInstance> one = Make(shared);
  ASSERT_NE(p, nullptr);
  ASSERT_NE(one, nullptr);
  const std::string counts = Fill(*p, 4), shared_counts = Fill(*one, 4);
  ASSERT_EQ(counts.size(), kHeadsQ * shared_counts.size());
  EXPECT_EQ(counts.substr(0, shared_counts.size()), shared_counts);
  EXPECT_EQ(counts.substr(shared_counts.size()), shared_counts);
  int slots[8];
  void* pointers[8];
  for (int i = 0; i < 8; ++i) pointers[i] = &slots[i];
  EXPECT_EQ(p->Args(pointers).Find("mask_heads")->integer, kHeadsQ);
  // The element mask stays causal: the causal reference passes the check.
  const std::string out = ReferenceOutput(*p, DType::kF16, *BlockMask::Causal(kLen, kLen, 64));
  EXPECT_TRUE(p->CheckOutput(0, 0, absl::MakeConstSpan(out.data(), out.size())).ok);
  EXPECT_DOUBLE_EQ(p->flops(), one->flops());
  EXPECT_DOUBLE_EQ(p->bytes_moved(), one->bytes_moved());
}

// Bytes count the keys some query block visits: all of them for a causal
// mask, the window (1024 keys plus 128 global tokens) of a sliding-window
// decode step.
TEST(SparseAttnProblemTest, BytesCountTheVisitedKeys) {
  const double q_bytes = kHeadsQ * kHeadDim * 2.0;
  std::unique_ptr<ProblemInstance> causal = Make(CausalShape(DType::kF16));
  ASSERT_NE(causal, nullptr);
  EXPECT_DOUBLE_EQ(causal->bytes_moved(),
                   2 * q_bytes * kLen + 2.0 * kHeadsKv * kLen * kHeadDim * 2);
  const int lk = 8192;
  const Shape decode = BlockMask::SlidingWindow(1, lk, 1024, 128, true, 128, lk - 1)
                           ->AttentionShape(DType::kF16, 1, kHeadsQ, kHeadsKv, kHeadDim);
  std::unique_ptr<ProblemInstance> step = Make(decode);
  ASSERT_NE(step, nullptr);
  // Key blocks 56..63 (the window) and 0 (the global tokens) of 64.
  EXPECT_DOUBLE_EQ(step->bytes_moved(), 2 * q_bytes + 2.0 * kHeadsKv * 9 * 128 * kHeadDim * 2);
}

TEST(SparseAttnProblemTest, InputsAreDeterministicAndChunkIndependent) {
  std::unique_ptr<ProblemInstance> p = Make(CausalShape(DType::kBF16));
  ASSERT_NE(p, nullptr);
  const std::string whole = Fill(*p, 2);
  std::string halves(whole.size(), '\0');
  const size_t half = whole.size() / 2;
  p->FillInput(2, 0, absl::MakeSpan(halves.data(), half));
  p->FillInput(2, half, absl::MakeSpan(halves.data() + half, whole.size() - half));
  EXPECT_EQ(whole, halves);
  EXPECT_NE(Fill(*p, 2), Fill(*p, 3));  // k and v differ
  for (double v : Values(Fill(*p, 3), DType::kBF16)) ASSERT_LE(std::fabs(v), 1.0);
}

TEST(SparseAttnProblemTest, ReferenceOutputPassesAndWrongRowsFail) {
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    SCOPED_TRACE(DTypeName(dtype));
    std::unique_ptr<ProblemInstance> p = Make(CausalShape(dtype));
    ASSERT_NE(p, nullptr);
    std::string out = ReferenceOutput(*p, dtype, *BlockMask::Causal(kLen, kLen, 64));
    CheckResult good = p->CheckOutput(0, 0, absl::MakeConstSpan(out.data(), out.size()));
    EXPECT_TRUE(good.ok) << good.detail;
    EXPECT_EQ(good.checked, size_t(kHeadsQ) * 24 * kHeadDim);
    EXPECT_LE(good.max_error, 1.0);

    // The last row of the second head (checked), off by 10 % + 0.05.
    const size_t e = DTypeSize(dtype);
    const size_t at = (size_t(kLen) * kHeadDim + size_t(kLen - 1) * kHeadDim + 5) * e;
    const double v = problems::LoadAs(dtype, &out[at]);
    problems::StoreAs(dtype, float(v * 1.1 + 0.05), &out[at]);
    CheckResult bad = p->CheckOutput(0, 0, absl::MakeConstSpan(out.data(), out.size()));
    EXPECT_FALSE(bad.ok);
    EXPECT_THAT(bad.detail, HasSubstr("h=1, row 199, col 5"));

    std::string poisoned(out.size(), '\xff');  // NaN in every storage type
    EXPECT_FALSE(p->CheckOutput(0, 0, absl::MakeConstSpan(poisoned.data(), poisoned.size())).ok);
  }
}

TEST(SparseAttnProblemTest, SlidingWindowBuildsAndOtherLayoutsAreNamed) {
  const Shape sliding = BlockMask::SlidingWindow(4096, 4096, 1024, 128, true)
                            ->AttentionShape(DType::kF16, 1, 1, 1, 64);
  std::unique_ptr<ProblemInstance> p = Make(sliding);
  ASSERT_NE(p, nullptr);
  LaunchArgs args = p->Args(std::vector<void*>(p->buffers().size(), nullptr));
  EXPECT_EQ(args.Find("window")->integer, 1024);
  EXPECT_EQ(args.Find("global_tokens")->integer, 128);
  EXPECT_LT(p->flops(), 4.0 * 4096 * 4096 * 64 * 0.5);

  BlockMask::BigBirdOptions bigbird;
  const Shape other = BlockMask::BigBird(1, 1024, 1024, bigbird)->AttentionShape(DType::kF16, 1, 1,
                                                                                  1, 64);
  EXPECT_THAT((*FindProblem("sparse_attn"))->Create(other, 1),
              StatusIs(absl::StatusCode::kInvalidArgument, "dense, causal and sliding-window"));
  EXPECT_THAT((*FindProblem("sparse_attn"))->Create(Shape(CausalShape(DType::kF16)).Set("b", 0), 1),
              StatusIs(absl::StatusCode::kInvalidArgument, "b > 0"));
}

TEST(SparseAttnProblemTest, StandardShapesAreTheBenchmarkShapes) {
  const std::vector<Shape> shapes = (*FindProblem("sparse_attn"))->StandardShapes();
  ASSERT_EQ(shapes.size(), 5u);
  for (const Shape& s : shapes) {
    EXPECT_EQ(*s.Get("d"), 128);
    EXPECT_EQ(*s.Get("hq"), 32);
  }
}

}  // namespace
}  // namespace jitk::tuner
