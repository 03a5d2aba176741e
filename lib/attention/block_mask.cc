// BlockMask: layout constructors, validation, and device upload.
#include "jitk/block_mask.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/attention/mask_geometry.h"
#include "lib/attention/sparse_attn_template.h"
#include "lib/internal/status_macros.h"

namespace jitk {
namespace {

using internal::BlockKind;

int CeilDiv(int a, int b) { return (a + b - 1) / b; }

absl::Status CheckLengths(int len_q, int len_k, int block_size) {
  if (len_q <= 0 || len_k <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("block mask: lengths must be positive, got len_q=", len_q, " len_k=", len_k));
  }
  if (block_size <= 0 || block_size % 16 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("block mask: block_size must be a positive multiple of 16, got ", block_size));
  }
  return absl::OkStatus();
}

// Splits a per-block classification (one row of num_kv_blocks kinds) into
// the FlexAttention partial / full lists.
struct MaskBuilder {
  int rows;
  int nkb;
  std::vector<int32_t> counts, indices, full_counts, full_indices;

  MaskBuilder(int rows_in, int nkb_in)
      : rows(rows_in),
        nkb(nkb_in),
        counts(rows_in, 0),
        indices(size_t(rows_in) * nkb_in, 0),
        full_counts(rows_in, 0),
        full_indices(size_t(rows_in) * nkb_in, 0) {}

  void SetRow(int row, const std::vector<BlockKind>& kinds) {
    int np = 0, nf = 0;
    for (int kb = 0; kb < nkb; ++kb) {
      if (kinds[kb] == BlockKind::kPartial) indices[size_t(row) * nkb + np++] = kb;
      if (kinds[kb] == BlockKind::kFull) full_indices[size_t(row) * nkb + nf++] = kb;
    }
    counts[row] = np;
    full_counts[row] = nf;
  }
};

// splitmix64: a fixed, portable generator (std distributions are not).
uint64_t NextRandom(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

std::string_view AttentionLayoutName(AttentionLayout layout) {
  switch (layout) {
    case AttentionLayout::kDense:
      return "dense";
    case AttentionLayout::kCausal:
      return "causal";
    case AttentionLayout::kSlidingWindow:
      return "sliding_window";
    case AttentionLayout::kBigBird:
      return "bigbird";
    case AttentionLayout::kStrided:
      return "strided";
    case AttentionLayout::kCustom:
      return "custom";
  }
  return "unknown";
}

std::string_view MaskModName(MaskMod mod) {
  switch (mod) {
    case MaskMod::kNone:
      return "none";
    case MaskMod::kCausal:
      return "causal";
    case MaskMod::kSlidingWindowCausal:
      return "sliding_window_causal";
    case MaskMod::kSlidingWindow:
      return "sliding_window";
  }
  return "unknown";
}

MaskMod DefaultMaskMod(AttentionLayout layout) {
  switch (layout) {
    case AttentionLayout::kCausal:
    case AttentionLayout::kStrided:
      return MaskMod::kCausal;
    case AttentionLayout::kSlidingWindow:
      return MaskMod::kSlidingWindowCausal;
    default:
      return MaskMod::kNone;
  }
}

bool ElementMask::Allows(int64_t q, int64_t k) const {
  q += q_offset;
  switch (kind) {
    case MaskMod::kNone:
      return true;
    case MaskMod::kCausal:
      return k <= q;
    case MaskMod::kSlidingWindowCausal:
      return k <= q && (q - k < window || k < global_tokens);
    case MaskMod::kSlidingWindow:
      return q < global_tokens || k < global_tokens || (q - k < window && k - q < window);
  }
  return false;
}

void ElementMask::AddLaunchArgs(LaunchArgs& args) const {
  args.Int("window", window).Int("global_tokens", global_tokens).Int("q_offset", q_offset);
}

absl::StatusOr<BlockMask> BlockMask::Dense(int len_q, int len_k, int block_size) {
  JITK_RETURN_IF_ERROR(CheckLengths(len_q, len_k, block_size));
  int nqb = CeilDiv(len_q, block_size), nkb = CeilDiv(len_k, block_size);
  MaskBuilder builder(nqb, nkb);
  std::vector<BlockKind> kinds(nkb, BlockKind::kFull);
  for (int qb = 0; qb < nqb; ++qb) builder.SetRow(qb, kinds);
  JITK_ASSIGN_OR_RETURN(BlockMask mask,
                        FromIndices(1, 1, len_q, len_k, block_size, std::move(builder.counts),
                                    std::move(builder.indices), std::move(builder.full_counts),
                                    std::move(builder.full_indices), ElementMask{}));
  mask.layout_ = AttentionLayout::kDense;
  return mask;
}

// Shared by the element-mask layouts: classify every block by counting the
// allowed pairs in it.
static absl::StatusOr<BlockMask> FromElementMask(int len_q, int len_k, int block_size,
                                                 const ElementMask& em) {
  int nqb = CeilDiv(len_q, block_size), nkb = CeilDiv(len_k, block_size);
  MaskBuilder builder(nqb, nkb);
  std::vector<BlockKind> kinds(nkb);
  for (int qb = 0; qb < nqb; ++qb) {
    for (int kb = 0; kb < nkb; ++kb) {
      kinds[kb] = internal::ClassifyBlock(em, len_q, len_k, block_size, qb, kb);
    }
    builder.SetRow(qb, kinds);
  }
  JITK_ASSIGN_OR_RETURN(
      BlockMask mask,
      BlockMask::FromIndices(1, 1, len_q, len_k, block_size, std::move(builder.counts),
                             std::move(builder.indices), std::move(builder.full_counts),
                             std::move(builder.full_indices), em));
  return mask;
}

absl::StatusOr<BlockMask> BlockMask::Causal(int len_q, int len_k, int block_size, int q_offset) {
  JITK_RETURN_IF_ERROR(CheckLengths(len_q, len_k, block_size));
  JITK_ASSIGN_OR_RETURN(
      BlockMask mask,
      FromElementMask(len_q, len_k, block_size, ElementMask{MaskMod::kCausal, 0, 0, q_offset}));
  mask.layout_ = AttentionLayout::kCausal;
  return mask;
}

absl::StatusOr<BlockMask> BlockMask::SlidingWindow(int len_q, int len_k, int window,
                                                   int global_tokens, bool causal, int block_size,
                                                   int q_offset) {
  JITK_RETURN_IF_ERROR(CheckLengths(len_q, len_k, block_size));
  if (window < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("sliding window: window must be at least 1, got ", window));
  }
  if (global_tokens < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("sliding window: global_tokens must be >= 0, got ", global_tokens));
  }
  ElementMask em{causal ? MaskMod::kSlidingWindowCausal : MaskMod::kSlidingWindow, window,
                 global_tokens, q_offset};
  JITK_ASSIGN_OR_RETURN(BlockMask mask, FromElementMask(len_q, len_k, block_size, em));
  mask.layout_ = AttentionLayout::kSlidingWindow;
  return mask;
}

absl::StatusOr<BlockMask> BlockMask::BigBird(int heads, int len_q, int len_k,
                                             const BigBirdOptions& options) {
  JITK_RETURN_IF_ERROR(CheckLengths(len_q, len_k, options.block_size));
  if (heads < 1) {
    return absl::InvalidArgumentError(absl::StrCat("bigbird: heads must be >= 1, got ", heads));
  }
  if (options.window_blocks < 1 || options.window_blocks % 2 == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bigbird: window_blocks must be odd and positive, got ", options.window_blocks));
  }
  if (options.global_blocks < 0 || options.random_blocks < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("bigbird: global_blocks and random_blocks must be >= 0, got ",
                     options.global_blocks, " and ", options.random_blocks));
  }
  const int nqb = CeilDiv(len_q, options.block_size), nkb = CeilDiv(len_k, options.block_size);
  const int half = options.window_blocks / 2;
  MaskBuilder builder(heads * nqb, nkb);
  std::vector<BlockKind> kinds(nkb);
  for (int h = 0; h < heads; ++h) {
    uint64_t state = options.seed * 0x100000001b3ull + uint64_t(h);
    for (int qb = 0; qb < nqb; ++qb) {
      std::fill(kinds.begin(), kinds.end(), BlockKind::kEmpty);
      bool global_row = qb < options.global_blocks;
      for (int kb = 0; kb < nkb; ++kb) {
        if (global_row || kb < options.global_blocks || (kb >= qb - half && kb <= qb + half)) {
          kinds[kb] = BlockKind::kFull;
        }
      }
      std::vector<int> free_blocks;
      for (int kb = 0; kb < nkb; ++kb) {
        if (kinds[kb] == BlockKind::kEmpty) free_blocks.push_back(kb);
      }
      for (int r = 0; r < options.random_blocks && !free_blocks.empty(); ++r) {
        size_t pick = size_t(NextRandom(state) % free_blocks.size());
        kinds[free_blocks[pick]] = BlockKind::kFull;
        free_blocks.erase(free_blocks.begin() + pick);
      }
      builder.SetRow(h * nqb + qb, kinds);
    }
  }
  JITK_ASSIGN_OR_RETURN(
      BlockMask mask,
      FromIndices(1, heads, len_q, len_k, options.block_size, std::move(builder.counts),
                  std::move(builder.indices), std::move(builder.full_counts),
                  std::move(builder.full_indices), ElementMask{}));
  mask.layout_ = AttentionLayout::kBigBird;
  return mask;
}

absl::StatusOr<BlockMask> BlockMask::Strided(int heads, int len_q, int len_k,
                                             const StridedOptions& options) {
  JITK_RETURN_IF_ERROR(CheckLengths(len_q, len_k, options.block_size));
  if (heads < 1) {
    return absl::InvalidArgumentError(absl::StrCat("strided: heads must be >= 1, got ", heads));
  }
  if (options.local_blocks < 1 || options.vertical_stride < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("strided: local_blocks and vertical_stride must be >= 1, got ",
                     options.local_blocks, " and ", options.vertical_stride));
  }
  const int nqb = CeilDiv(len_q, options.block_size), nkb = CeilDiv(len_k, options.block_size);
  const int step = options.same_for_all_heads ? 0 : std::max(1, options.vertical_stride / heads);
  const int mask_heads = options.same_for_all_heads ? 1 : heads;
  const ElementMask causal{MaskMod::kCausal, 0, 0};
  MaskBuilder builder(mask_heads * nqb, nkb);
  std::vector<BlockKind> kinds(nkb);
  for (int h = 0; h < mask_heads; ++h) {
    for (int qb = 0; qb < nqb; ++qb) {
      for (int kb = 0; kb < nkb; ++kb) {
        bool on = kb <= qb && (qb - kb < options.local_blocks ||
                               (kb + h * step + 1) % options.vertical_stride == 0);
        // Blocks left of the diagonal are all causal; the diagonal is partial.
        kinds[kb] = on ? internal::ClassifyBlock(causal, len_q, len_k, options.block_size, qb, kb)
                       : BlockKind::kEmpty;
      }
      builder.SetRow(h * nqb + qb, kinds);
    }
  }
  JITK_ASSIGN_OR_RETURN(
      BlockMask mask,
      FromIndices(1, mask_heads, len_q, len_k, options.block_size, std::move(builder.counts),
                  std::move(builder.indices), std::move(builder.full_counts),
                  std::move(builder.full_indices), causal));
  mask.layout_ = AttentionLayout::kStrided;
  return mask;
}

absl::StatusOr<BlockMask> BlockMask::FromIndices(int batch, int heads, int len_q, int len_k,
                                                 int block_size, std::vector<int32_t> kv_num_blocks,
                                                 std::vector<int32_t> kv_indices,
                                                 std::vector<int32_t> full_kv_num_blocks,
                                                 std::vector<int32_t> full_kv_indices,
                                                 ElementMask element_mask) {
  JITK_RETURN_IF_ERROR(CheckLengths(len_q, len_k, block_size));
  if (batch < 1 || heads < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "block mask: batch and heads must be >= 1, got batch=", batch, " heads=", heads));
  }
  if (element_mask.kind == MaskMod::kSlidingWindow ||
      element_mask.kind == MaskMod::kSlidingWindowCausal) {
    if (element_mask.window < 1 || element_mask.global_tokens < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "block mask: a sliding-window element mask needs window >= 1 and global_tokens >= 0, "
          "got window=",
          element_mask.window, " global_tokens=", element_mask.global_tokens));
    }
  }
  if (element_mask.q_offset < 0 || element_mask.q_offset > len_k) {
    return absl::InvalidArgumentError(absl::StrCat(
        "block mask: q_offset=", element_mask.q_offset, " must be in [0, len_k=", len_k,
        "] (len_k - len_q puts the queries at the end of the keys, as in a KV cache)"));
  }
  const int nqb = CeilDiv(len_q, block_size), nkb = CeilDiv(len_k, block_size);
  const size_t rows = size_t(batch) * heads * nqb;
  const std::string dims =
      absl::StrCat("batch * heads * num_q_blocks = ", batch, " * ", heads, " * ", nqb);
  if (kv_num_blocks.size() != rows) {
    return absl::InvalidArgumentError(absl::StrCat("block mask: kv_num_blocks has ",
                                                   kv_num_blocks.size(), " entries, want ", dims,
                                                   " = ", rows));
  }
  if (kv_indices.size() != rows * nkb) {
    return absl::InvalidArgumentError(absl::StrCat("block mask: kv_indices has ", kv_indices.size(),
                                                   " entries, want ", dims, " * num_kv_blocks ",
                                                   nkb, " = ", rows * nkb));
  }
  const bool has_full = !full_kv_num_blocks.empty() || !full_kv_indices.empty();
  if (has_full) {
    if (full_kv_num_blocks.size() != rows) {
      return absl::InvalidArgumentError(absl::StrCat("block mask: full_kv_num_blocks has ",
                                                     full_kv_num_blocks.size(), " entries, want ",
                                                     dims, " = ", rows));
    }
    if (full_kv_indices.size() != rows * nkb) {
      return absl::InvalidArgumentError(
          absl::StrCat("block mask: full_kv_indices has ", full_kv_indices.size(),
                       " entries, want ", dims, " * num_kv_blocks ", nkb, " = ", rows * nkb));
    }
  }
  std::vector<int> seen(nkb, -1);
  for (size_t row = 0; row < rows; ++row) {
    const int qb = int(row % nqb), h = int(row / nqb % heads), b = int(row / nqb / heads);
    const std::string where = absl::StrCat("[b=", b, ", h=", h, ", q_block=", qb, "]");
    auto check_list = [&](const std::vector<int32_t>& counts, const std::vector<int32_t>& indices,
                          const char* counts_name, const char* indices_name) -> absl::Status {
      int32_t n = counts[row];
      if (n < 0 || n > nkb) {
        return absl::InvalidArgumentError(absl::StrCat("block mask: ", counts_name, where, " = ", n,
                                                       " is outside [0, ", nkb, "]"));
      }
      for (int i = 0; i < n; ++i) {
        int32_t kb = indices[row * nkb + i];
        if (kb < 0 || kb >= nkb) {
          return absl::InvalidArgumentError(absl::StrCat("block mask: ", indices_name, where, "[",
                                                         i, "] = ", kb, " is outside [0, ", nkb,
                                                         ")"));
        }
        if (seen[kb] == int(row)) {
          return absl::InvalidArgumentError(absl::StrCat("block mask: key block ", kb,
                                                         " is listed twice for ", where,
                                                         " (kv_indices and full_kv_indices "
                                                         "together must not repeat a block)"));
        }
        seen[kb] = int(row);
      }
      return absl::OkStatus();
    };
    JITK_RETURN_IF_ERROR(check_list(kv_num_blocks, kv_indices, "kv_num_blocks", "kv_indices"));
    if (has_full) {
      JITK_RETURN_IF_ERROR(
          check_list(full_kv_num_blocks, full_kv_indices, "full_kv_num_blocks", "full_kv_indices"));
    }
  }
  BlockMask mask;
  mask.batch_ = batch;
  mask.heads_ = heads;
  mask.len_q_ = len_q;
  mask.len_k_ = len_k;
  mask.block_ = block_size;
  mask.layout_ = AttentionLayout::kCustom;
  mask.element_mask_ = element_mask;
  mask.kv_num_blocks_ = std::move(kv_num_blocks);
  mask.kv_indices_ = std::move(kv_indices);
  mask.full_kv_num_blocks_ = std::move(full_kv_num_blocks);
  mask.full_kv_indices_ = std::move(full_kv_indices);
  return mask;
}

bool BlockMask::Allows(int b, int h, int64_t q, int64_t k) const {
  if (q < 0 || q >= len_q_ || k < 0 || k >= len_k_) return false;
  const size_t row =
      (size_t(batch_ == 1 ? 0 : b) * heads_ + (heads_ == 1 ? 0 : h)) * num_q_blocks() +
      size_t(q / block_);
  const int nkb = num_kv_blocks();
  const int32_t kb = int32_t(k / block_);
  if (!full_kv_num_blocks_.empty()) {
    for (int i = 0; i < full_kv_num_blocks_[row]; ++i) {
      if (full_kv_indices_[row * nkb + i] == kb) return true;
    }
  }
  for (int i = 0; i < kv_num_blocks_[row]; ++i) {
    if (kv_indices_[row * nkb + i] == kb) return element_mask_.Allows(q, k);
  }
  return false;
}

int64_t BlockMask::VisitedBlocks() const {
  int64_t n = 0;
  for (int32_t c : kv_num_blocks_) n += c;
  for (int32_t c : full_kv_num_blocks_) n += c;
  return n;
}

double BlockMask::Density() const {
  return double(VisitedBlocks()) /
         (double(kv_num_blocks_.size()) * double(std::max(1, num_kv_blocks())));
}

absl::Status BlockMask::CheckCompatible(int batch, int heads_q, int len_q, int len_k) const {
  if (batch_ != 1 && batch_ != batch) {
    return absl::InvalidArgumentError(
        absl::StrCat("block mask batch ", batch_, " must be 1 or the problem's batch ", batch));
  }
  if (heads_ != 1 && heads_ != heads_q) {
    return absl::InvalidArgumentError(absl::StrCat(
        "block mask heads ", heads_, " must be 1 or the problem's query heads ", heads_q));
  }
  if (len_q_ != len_q || len_k_ != len_k) {
    return absl::InvalidArgumentError(
        absl::StrCat("block mask is for len_q=", len_q_, " len_k=", len_k_,
                     ", the problem has len_q=", len_q, " len_k=", len_k));
  }
  return absl::OkStatus();
}

Shape BlockMask::AttentionShape(DType dtype, int batch, int heads_q, int heads_kv,
                                int head_dim) const {
  Shape shape(dtype);
  shape.Set("b", batch)
      .Set("hq", heads_q)
      .Set("hkv", heads_kv)
      .Set("lq", len_q_)
      .Set("lk", len_k_)
      .Set("d", head_dim)
      .Set("block", block_)
      .Set("layout", int(layout_));
  if (element_mask_.kind != DefaultMaskMod(layout_)) shape.Set("mask", int(element_mask_.kind));
  // Only where a group's heads could otherwise share a tile's rows:
  // elsewhere the shape keeps the key of a shared mask.
  if (heads_ > 1 && internal::GroupedRowsFitOneBlock(heads_q, heads_kv, len_q_, block_)) {
    shape.Set("mask_per_head", 1);
  }
  return shape;
}

absl::StatusOr<DeviceBlockMask> BlockMask::Upload(const Device& device) const {
  DeviceBlockMask out;
  out.batch_ = batch_;
  out.heads_ = heads_;
  out.element_mask_ = element_mask_;
  auto copy = [&](const std::vector<int32_t>& host, DeviceBuffer& dst) -> absl::Status {
    if (host.empty()) return absl::OkStatus();
    size_t bytes = host.size() * sizeof(int32_t);
    JITK_ASSIGN_OR_RETURN(dst, device.Allocate(bytes));
    return device.CopyToDevice(dst.data(), host.data(), bytes);
  };
  JITK_RETURN_IF_ERROR(copy(kv_num_blocks_, out.kv_num_blocks_));
  JITK_RETURN_IF_ERROR(copy(kv_indices_, out.kv_indices_));
  JITK_RETURN_IF_ERROR(copy(full_kv_num_blocks_, out.full_kv_num_blocks_));
  JITK_RETURN_IF_ERROR(copy(full_kv_indices_, out.full_kv_indices_));
  return out;
}

void DeviceBlockMask::AddLaunchArgs(LaunchArgs& args) const {
  args.Ptr("kv_num_blocks", kv_num_blocks_.data()).Ptr("kv_indices", kv_indices_.data());
  if (full_kv_num_blocks_.data() != nullptr) {
    args.Ptr("full_kv_num_blocks", full_kv_num_blocks_.data())
        .Ptr("full_kv_indices", full_kv_indices_.data());
  }
  args.Int("mask_batch", batch_).Int("mask_heads", heads_);
  element_mask_.AddLaunchArgs(args);
}

}  // namespace jitk
