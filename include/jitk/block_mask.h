// jitk/block_mask.h — which keys each query of sparse_attn may see.
//
// A BlockMask has the layout of PyTorch FlexAttention's BlockMask, so one
// made there can be passed straight through: query and key positions are cut
// into blocks of `block_size`; for each (batch, head, query block) it lists
// the key blocks to visit, split into
//   * partial blocks (kv_num_blocks / kv_indices): the element mask is
//     applied to every (query, key) pair, and
//   * full blocks (full_kv_num_blocks / full_kv_indices): every key is
//     attended, so the kernel does no mask work at all.
// Counts are int32 [B, H, num_q_blocks]; indices int32 [B, H, num_q_blocks,
// num_kv_blocks] (entries past a row's count are ignored). B and H may be 1
// to broadcast over the batch and the query heads.
//
// The element mask (ElementMask) is a small closed set compiled into the
// kernel; window and global-token counts are launch arguments.
//
// Example:
//   absl::StatusOr<jitk::BlockMask> mask = jitk::BlockMask::Causal(4096, 4096);
//   jitk::Shape shape = mask->AttentionShape(jitk::DType::kF16, /*batch=*/4,
//                                            /*heads_q=*/32, /*heads_kv=*/8, /*head_dim=*/128);
//   absl::StatusOr<jitk::DeviceBlockMask> dmask = mask->Upload(*device);
//   jitk::LaunchArgs args;
//   args.Ptr("q", q).Ptr("k", k).Ptr("v", v).Ptr("o", o).Ptr("lse", lse);
//   dmask->AddLaunchArgs(args);
//   absl::StatusOr<jitk::Kernel> kernel = jitk::get_kernel("sparse_attn", shape);
#ifndef JITK_BLOCK_MASK_H_
#define JITK_BLOCK_MASK_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "jitk/device.h"
#include "jitk/dtype.h"
#include "jitk/kernel.h"
#include "jitk/shape.h"

namespace jitk {

// Built-in layouts; the int value is the sparse_attn shape dimension "layout".
enum class AttentionLayout : int {
  kDense = 0,          // every key
  kCausal = 1,         // key <= query
  kSlidingWindow = 2,  // a band around the diagonal plus global tokens
  kBigBird = 3,        // local + global + random blocks (block granular)
  kStrided = 4,        // local + vertical stride, differing per head (Phi-3-small)
  kCustom = 5,         // from indices
};
std::string_view AttentionLayoutName(AttentionLayout layout);  // "dense", "causal", ...

// Element masks; the int value is the sparse_attn shape dimension "mask".
// `window` counts keys on each side of the query, its own position included.
// q is the query's position: its row plus ElementMask::q_offset.
enum class MaskMod : int {
  kNone = 0,                 // all keys (only the length bound applies)
  kCausal = 1,               // k <= q
  kSlidingWindowCausal = 2,  // k <= q && (q - k < window || k < global_tokens)
  kSlidingWindow = 3,        // |q - k| < window || k < global_tokens || q < global_tokens
};
std::string_view MaskModName(MaskMod mod);

struct ElementMask {
  MaskMod kind = MaskMod::kNone;
  int window = 0;
  int global_tokens = 0;
  // The position of query row 0 among the keys: 0 aligns the first query
  // with the first key (SDPA's is_causal); len_k - len_q aligns the last
  // with the last, as for the newest len_q tokens of a KV cache (a decode
  // step, a chunk of a prefill). In [0, len_k].
  int q_offset = 0;

  // Whether query row q sees key k.
  bool Allows(int64_t q, int64_t k) const;
  // Adds sparse_attn's launch arguments window, global_tokens and q_offset.
  void AddLaunchArgs(LaunchArgs& args) const;
};

// The element mask a layout's partial blocks use by default.
MaskMod DefaultMaskMod(AttentionLayout layout);

class DeviceBlockMask;

class BlockMask {
 public:
  // --- layouts ---------------------------------------------------------------
  static absl::StatusOr<BlockMask> Dense(int len_q, int len_k, int block_size = 128);
  // Query i sees keys 0 .. i + q_offset: top-left aligned by default, as
  // SDPA's is_causal; q_offset = len_k - len_q for a KV cache's newest
  // queries (ElementMask::q_offset).
  static absl::StatusOr<BlockMask> Causal(int len_q, int len_k, int block_size = 128,
                                          int q_offset = 0);
  // causal: kSlidingWindowCausal (keys q-window+1 .. q, plus the first
  // global_tokens keys); otherwise kSlidingWindow (Longformer style: the band
  // |q - k| < window, and global tokens see and are seen by all). q is the
  // query's position, its row plus q_offset.
  static absl::StatusOr<BlockMask> SlidingWindow(int len_q, int len_k, int window,
                                                 int global_tokens, bool causal = true,
                                                 int block_size = 128, int q_offset = 0);

  // BigBird (block granular, not causal): each query block sees
  // `window_blocks` key blocks centred on its own, the first `global_blocks`
  // key blocks, and `random_blocks` others drawn per head from `seed`; the
  // first `global_blocks` query blocks see every key block.
  struct BigBirdOptions {
    int window_blocks = 3;
    int global_blocks = 1;
    int random_blocks = 2;
    uint64_t seed = 0;
    int block_size = 64;
  };
  static absl::StatusOr<BlockMask> BigBird(int heads, int len_q, int len_k,
                                           const BigBirdOptions& options);

  // Phi-3-small's block-sparse pattern: query block i sees key block j <= i
  // when i - j < local_blocks or (j + h * head_step + 1) % vertical_stride == 0,
  // head_step = max(1, vertical_stride / heads) (0 when same_for_all_heads);
  // the diagonal block is causal within.
  struct StridedOptions {
    int local_blocks = 16;
    int vertical_stride = 8;
    bool same_for_all_heads = false;
    int block_size = 64;
  };
  static absl::StatusOr<BlockMask> Strided(int heads, int len_q, int len_k,
                                           const StridedOptions& options);

  // Arbitrary masks, in FlexAttention's layout (see the file comment).
  // full_kv_* may both be empty (no full blocks). Indices must lie in
  // [0, num_kv_blocks) and no key block may appear twice in one row.
  static absl::StatusOr<BlockMask> FromIndices(int batch, int heads, int len_q, int len_k,
                                               int block_size, std::vector<int32_t> kv_num_blocks,
                                               std::vector<int32_t> kv_indices,
                                               std::vector<int32_t> full_kv_num_blocks,
                                               std::vector<int32_t> full_kv_indices,
                                               ElementMask element_mask = {});

  // --- what it holds ----------------------------------------------------------
  int batch() const { return batch_; }  // 1: broadcast over the batch
  int heads() const { return heads_; }  // 1: broadcast over the query heads
  int len_q() const { return len_q_; }
  int len_k() const { return len_k_; }
  int block_size() const { return block_; }
  int num_q_blocks() const { return (len_q_ + block_ - 1) / block_; }
  int num_kv_blocks() const { return (len_k_ + block_ - 1) / block_; }
  AttentionLayout layout() const { return layout_; }
  const ElementMask& element_mask() const { return element_mask_; }
  const std::vector<int32_t>& kv_num_blocks() const { return kv_num_blocks_; }
  const std::vector<int32_t>& kv_indices() const { return kv_indices_; }
  const std::vector<int32_t>& full_kv_num_blocks() const { return full_kv_num_blocks_; }
  const std::vector<int32_t>& full_kv_indices() const { return full_kv_indices_; }

  // Whether query q of (b, h) attends key k (blocks, element mask, bounds).
  bool Allows(int b, int h, int64_t q, int64_t k) const;
  // Key blocks visited over all (b, h) rows of the mask, and that over the
  // dense count: what the kernel's time should scale with.
  int64_t VisitedBlocks() const;
  double Density() const;

  // kInvalidArgument unless the mask fits an attention problem: batch and
  // heads equal or 1, lengths equal.
  absl::Status CheckCompatible(int batch, int heads_q, int len_q, int len_k) const;

  // The sparse_attn shape for this mask ("mask" is set only when it differs
  // from the layout's default; "mask_per_head" for a mask per query head where
  // it keeps grouped heads from sharing a tile's rows).
  Shape AttentionShape(DType dtype, int batch, int heads_q, int heads_kv, int head_dim) const;

  // Copies the index arrays to `device`.
  absl::StatusOr<DeviceBlockMask> Upload(const Device& device) const;

 private:
  BlockMask() = default;

  int batch_ = 1;
  int heads_ = 1;
  int len_q_ = 0;
  int len_k_ = 0;
  int block_ = 128;
  AttentionLayout layout_ = AttentionLayout::kDense;
  ElementMask element_mask_;
  std::vector<int32_t> kv_num_blocks_;
  std::vector<int32_t> kv_indices_;
  std::vector<int32_t> full_kv_num_blocks_;
  std::vector<int32_t> full_kv_indices_;
};

// A BlockMask's arrays in device memory, plus what the kernel needs to read
// them. Move-only; frees the arrays when destroyed.
class DeviceBlockMask {
 public:
  // Adds kv_num_blocks, kv_indices, full_kv_num_blocks, full_kv_indices,
  // mask_batch, mask_heads and the element mask's (ElementMask::AddLaunchArgs).
  // The arrays must outlive the launches that use them.
  void AddLaunchArgs(LaunchArgs& args) const;

 private:
  friend class BlockMask;
  DeviceBuffer kv_num_blocks_;
  DeviceBuffer kv_indices_;
  DeviceBuffer full_kv_num_blocks_;
  DeviceBuffer full_kv_indices_;
  int batch_ = 1;
  int heads_ = 1;
  ElementMask element_mask_;
};

}  // namespace jitk

#endif  // JITK_BLOCK_MASK_H_
