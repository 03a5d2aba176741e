// Tuning problem for sparse_attn: O = softmax(Q K^T * scale + mask) V.
//
// The shape names the layout (dense, causal, or a causal sliding window of
// 1024 keys plus 128 global tokens, the issue-6 benchmark pattern), the block
// mask is built from it and uploaded as four input buffers. With fewer
// queries than keys the causal and sliding masks put the queries at the last
// positions, as a KV cache's decode step or prefill chunk does (top-left, a
// decode step would see one key). Q and K are
// uniform in [-2, 2), V in [-1, 1), stored in the shape's dtype.
//
// Validation: the reference is fp64 from the stored inputs, row by row
// (lib/attention/reference.h's ReferenceAttentionRow). Checking every
// row would cost as much as the attention itself on the CPU, so the output
// is checked one head at a time (element_bytes = one head): in each head the
// tuner hands over, 24 rows spread from the first to the last, against
// bound = atol + rtol * sum_j p_j |v_j| per element (the size of what was
// summed, so cancellation in O does not tighten it). rtol: 4-8x the error of
// rounding P and O to the storage type; fp32 keeps the exact mode's ~1e-6.
// LSE is not requested (the GPU tests check it).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "jitk/block_mask.h"
#include "lib/attention/reference.h"
#include "lib/internal/status_macros.h"
#include "tuner/problem.h"
#include "tuner/problems/storage.h"

namespace jitk::tuner {
namespace {

constexpr int kWindow = 1024;
constexpr int kGlobalTokens = 128;
constexpr int kRowsPerHead = 24;

enum Buffer : size_t { kO = 0, kQ, kK, kV, kCounts, kIndices, kFullCounts, kFullIndices };

struct Tolerance {
  double rtol, atol;
};
Tolerance ToleranceFor(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return {0x1.0p-17, 1e-7};
    case DType::kF16:
      return {0x1.0p-7, 0x1.0p-24};
    case DType::kBF16:
      return {0x1.0p-5, 1e-30};
  }
  return {0, 0};
}

absl::StatusOr<BlockMask> MaskFor(const Shape& shape) {
  JITK_ASSIGN_OR_RETURN(int64_t lq, shape.Get("lq"));
  JITK_ASSIGN_OR_RETURN(int64_t lk, shape.Get("lk"));
  const int block = int(shape.GetOr("block", 128));
  const auto layout = AttentionLayout(shape.GetOr("layout", 0));
  const int q_offset = int(std::max<int64_t>(0, lk - lq));
  switch (layout) {
    case AttentionLayout::kDense:
      return BlockMask::Dense(int(lq), int(lk), block);
    case AttentionLayout::kCausal:
      return BlockMask::Causal(int(lq), int(lk), block, q_offset);
    case AttentionLayout::kSlidingWindow:
      return BlockMask::SlidingWindow(int(lq), int(lk), kWindow, kGlobalTokens, true, block,
                                      q_offset);
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "sparse_attn: the tuning problem builds dense, causal and sliding-window masks, not ",
          std::string(AttentionLayoutName(layout)), "; tune one of those with the same block size"));
  }
}

// `mask` once per query head (a FlexAttention BlockMask of H = hq, the
// shape's "mask_per_head"), under which grouped heads stay unpacked.
absl::StatusOr<BlockMask> PerHead(const BlockMask& mask, int heads) {
  auto repeat = [heads](const std::vector<int32_t>& rows) {
    std::vector<int32_t> out;
    out.reserve(rows.size() * size_t(heads));
    for (int h = 0; h < heads; ++h) out.insert(out.end(), rows.begin(), rows.end());
    return out;
  };
  return BlockMask::FromIndices(1, heads, mask.len_q(), mask.len_k(), mask.block_size(),
                                repeat(mask.kv_num_blocks()), repeat(mask.kv_indices()),
                                repeat(mask.full_kv_num_blocks()), repeat(mask.full_kv_indices()),
                                mask.element_mask());
}

// The share of the keys some query block of a mask row visits, over all
// rows: each such key block is read at least once, the others never (the
// window of a sliding-window decode step, not the whole cache).
double VisitedKeyShare(const BlockMask& mask) {
  const int nqb = mask.num_q_blocks(), nkb = mask.num_kv_blocks();
  const size_t rows = mask.kv_num_blocks().size() / size_t(nqb);
  std::vector<char> seen(static_cast<size_t>(nkb));
  int64_t visited = 0;
  for (size_t r = 0; r < rows; ++r) {
    std::fill(seen.begin(), seen.end(), 0);
    for (size_t row = r * nqb; row < (r + 1) * nqb; ++row) {
      for (int i = 0; i < mask.kv_num_blocks()[row]; ++i) {
        seen[mask.kv_indices()[row * nkb + i]] = 1;
      }
      if (mask.full_kv_num_blocks().empty()) continue;
      for (int i = 0; i < mask.full_kv_num_blocks()[row]; ++i) {
        seen[mask.full_kv_indices()[row * nkb + i]] = 1;
      }
    }
    visited += std::count(seen.begin(), seen.end(), 1);
  }
  return double(visited) / (double(rows) * nkb);
}

class SparseAttnInstance final : public ProblemInstance {
 public:
  SparseAttnInstance(const Shape& shape, BlockMask mask, uint64_t seed)
      : dtype_(shape.dtype()),
        elem_(DTypeSize(shape.dtype())),
        b_(*shape.Get("b")),
        hq_(*shape.Get("hq")),
        hkv_(*shape.Get("hkv")),
        lq_(*shape.Get("lq")),
        lk_(*shape.Get("lk")),
        d_(*shape.Get("d")),
        causal_(shape.GetOr("layout", 0) == int64_t(AttentionLayout::kCausal)),
        mask_(std::move(mask)),
        seed_(seed),
        scale_(1.0 / std::sqrt(double(d_))),
        key_share_(VisitedKeyShare(mask_)) {
    const size_t q_bytes = size_t(b_ * hq_ * lq_ * d_) * elem_;
    const size_t kv_bytes = size_t(b_ * hkv_ * lk_ * d_) * elem_;
    const size_t head_bytes = size_t(lq_ * d_) * elem_;
    buffers_ = {{"o", q_bytes, head_bytes, true},
                {"q", q_bytes, elem_, false},
                {"k", kv_bytes, elem_, false},
                {"v", kv_bytes, elem_, false},
                {"kv_num_blocks", mask_.kv_num_blocks().size() * 4, 4, false},
                {"kv_indices", mask_.kv_indices().size() * 4, 4, false}};
    if (!mask_.full_kv_num_blocks().empty()) {
      buffers_.push_back({"full_kv_num_blocks", mask_.full_kv_num_blocks().size() * 4, 4, false});
      buffers_.push_back({"full_kv_indices", mask_.full_kv_indices().size() * 4, 4, false});
    }
  }

  const std::vector<BufferSpec>& buffers() const override { return buffers_; }

  void FillInput(size_t buffer, size_t offset, absl::Span<char> out) const override {
    if (buffer >= kCounts) {
      const std::vector<int32_t>& v = MaskArray(buffer);
      std::memcpy(out.data(), reinterpret_cast<const char*>(v.data()) + offset, out.size());
      return;
    }
    const size_t first = offset / elem_;
    for (size_t i = 0; i < out.size() / elem_; ++i) {
      problems::StoreAs(dtype_, Input(buffer, first + i), out.data() + i * elem_);
    }
  }

  CheckResult CheckOutput(size_t buffer, size_t offset, absl::Span<const char> got) const override {
    CheckResult result;
    if (buffer != kO) return result;
    const size_t head_bytes = buffers_[kO].element_bytes;
    for (size_t at = 0; at < got.size(); at += head_bytes) {
      CheckHead(int64_t((offset + at) / head_bytes), got.data() + at, result);
    }
    return result;
  }

  LaunchArgs Args(absl::Span<void* const> pointers) const override {
    LaunchArgs args;
    args.Ptr("o", pointers[kO]).Ptr("q", pointers[kQ]).Ptr("k", pointers[kK]);
    args.Ptr("v", pointers[kV]);
    args.Ptr("kv_num_blocks", pointers[kCounts]).Ptr("kv_indices", pointers[kIndices]);
    if (pointers.size() > kFullIndices) {
      args.Ptr("full_kv_num_blocks", pointers[kFullCounts])
          .Ptr("full_kv_indices", pointers[kFullIndices]);
    }
    args.Int("mask_batch", mask_.batch()).Int("mask_heads", mask_.heads());
    mask_.element_mask().AddLaunchArgs(args);
    return args;
  }

  // Q read and O written once, the visited share of K and V read once.
  double bytes_moved() const override {
    return 2.0 * double(buffers_[kQ].bytes) + 2.0 * double(buffers_[kK].bytes) * key_share_;
  }
  // 4 d per (query, key) pair computed; causal counted as half the dense
  // square (the convention of the published figures), other masks by the
  // blocks they compute.
  double flops() const override {
    const double per_pair = 4.0 * double(b_ * hq_) * double(d_);
    if (!causal_) {
      return per_pair * double(lq_) * double(lk_) * mask_.Density();
    }
    // Row i sees q_offset + i + 1 keys until they run out; a square counts
    // L^2 / 2, as issue 6 does.
    const double offset = mask_.element_mask().q_offset;
    const double rows = std::min(double(lq_), double(lk_) - offset);
    return per_pair * (rows * offset + rows * rows / 2 + (double(lq_) - rows) * double(lk_));
  }

 private:
  const std::vector<int32_t>& MaskArray(size_t buffer) const {
    switch (buffer) {
      case kCounts:
        return mask_.kv_num_blocks();
      case kIndices:
        return mask_.kv_indices();
      case kFullCounts:
        return mask_.full_kv_num_blocks();
      default:
        return mask_.full_kv_indices();
    }
  }

  float Input(size_t buffer, size_t index) const {
    const float range = buffer == kV ? 1.0f : 2.0f;
    return problems::UniformAt(seed_, buffer, index, -range, range);
  }
  double Stored(size_t buffer, size_t index) const {
    char bytes[4];
    problems::StoreAs(dtype_, Input(buffer, index), bytes);
    return problems::LoadAs(dtype_, bytes);
  }

  // Rows of head bh (= b * hq + h) whose output starts at `got`.
  void CheckHead(int64_t bh, const char* got, CheckResult& result) const {
    const int b = int(bh / hq_), h = int(bh % hq_);
    const int64_t kv_head = int64_t(b) * hkv_ + h / (hq_ / hkv_);
    const size_t kv_values = static_cast<size_t>(lk_ * d_);
    std::vector<double> k(kv_values), v(kv_values);
    for (int64_t i = 0; i < lk_ * d_; ++i) {
      k[size_t(i)] = Stored(kK, size_t(kv_head * lk_ * d_ + i));
      v[size_t(i)] = Stored(kV, size_t(kv_head * lk_ * d_ + i));
    }
    const Tolerance tol = ToleranceFor(dtype_);
    const int rows = int(std::min<int64_t>(lq_, kRowsPerHead));
    const size_t d = static_cast<size_t>(d_);
    std::vector<double> q(d);
    for (int r = 0; r < rows; ++r) {
      const int64_t row = rows == 1 ? 0 : r * (lq_ - 1) / (rows - 1);
      for (int64_t c = 0; c < d_; ++c) q[size_t(c)] = Stored(kQ, size_t((bh * lq_ + row) * d_ + c));
      const jitk::internal::ReferenceRow ref = jitk::internal::ReferenceAttentionRow(
          q, k, v, scale_, [&](int j) { return mask_.Allows(b, h, row, j); });
      for (int64_t c = 0; c < d_; ++c) {
        const double expected = ref.o[size_t(c)];
        const double bound = tol.atol + tol.rtol * ref.abs_o[size_t(c)];
        const double value = problems::LoadAs(dtype_, got + size_t(row * d_ + c) * elem_);
        const double error = std::fabs(value - expected) / bound;
        ++result.checked;
        if (!(error <= 1.0)) {  // NaN fails too
          if (result.ok) {
            result.detail = absl::StrFormat(
                "o[b=%d, h=%d, row %d, col %d] = %s, expected %.7g (%s tolerance %.3g)", b, h,
                row, c, std::isnan(value) ? std::string("nan") : absl::StrFormat("%.7g", value),
                expected, DTypeName(dtype_), bound);
          }
          result.ok = false;
        }
        if (std::isnan(error) || error > result.max_error) {
          result.max_error = std::isnan(error) ? INFINITY : error;
        }
      }
    }
  }

  DType dtype_;
  size_t elem_;
  int64_t b_, hq_, hkv_, lq_, lk_, d_;
  bool causal_;  // the shape's layout (a mask per head is a custom one)
  BlockMask mask_;
  uint64_t seed_;
  double scale_;
  double key_share_;  // VisitedKeyShare
  std::vector<BufferSpec> buffers_;
};

class SparseAttnProblem final : public Problem {
 public:
  absl::string_view kernel() const override { return "sparse_attn"; }

  absl::StatusOr<std::unique_ptr<ProblemInstance>> Create(const Shape& shape,
                                                          uint64_t seed) const override {
    for (const char* dim : {"b", "hq", "hkv", "lq", "lk", "d"}) {
      JITK_ASSIGN_OR_RETURN(int64_t value, shape.Get(dim));
      if (value <= 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("sparse_attn: tuning needs ", dim, " > 0, got ", value));
      }
    }
    if (*shape.Get("hq") % *shape.Get("hkv") != 0) {
      return absl::InvalidArgumentError("sparse_attn: hq must be a multiple of hkv");
    }
    JITK_ASSIGN_OR_RETURN(BlockMask mask, MaskFor(shape));
    if (shape.GetOr("mask", int64_t(DefaultMaskMod(mask.layout()))) !=
        int64_t(mask.element_mask().kind)) {
      return absl::InvalidArgumentError(
          "sparse_attn: the tuning problem uses each layout's default element mask; drop 'mask' "
          "from the shape");
    }
    if (shape.GetOr("mask_per_head", 0) == 1) {
      JITK_ASSIGN_OR_RETURN(mask, PerHead(mask, int(*shape.Get("hq"))));
    }
    return std::make_unique<SparseAttnInstance>(shape, std::move(mask), seed);
  }

  // The issue-6 benchmark shapes: B=4, H=32, D=128.
  std::vector<Shape> StandardShapes() const override {
    std::vector<Shape> shapes;
    auto add = [&](DType dtype, int len, AttentionLayout layout) {
      absl::StatusOr<BlockMask> mask =
          layout == AttentionLayout::kCausal
              ? BlockMask::Causal(len, len)
              : BlockMask::SlidingWindow(len, len, kWindow, kGlobalTokens, true);
      if (mask.ok()) shapes.push_back(mask->AttentionShape(dtype, 4, 32, 32, 128));
    };
    add(DType::kF16, 4096, AttentionLayout::kCausal);
    add(DType::kBF16, 4096, AttentionLayout::kCausal);
    add(DType::kF16, 16384, AttentionLayout::kCausal);
    add(DType::kF16, 16384, AttentionLayout::kSlidingWindow);
    add(DType::kF32, 4096, AttentionLayout::kCausal);
    return shapes;
  }
};

}  // namespace

std::unique_ptr<Problem> NewSparseAttnProblem() { return std::make_unique<SparseAttnProblem>(); }

}  // namespace jitk::tuner
