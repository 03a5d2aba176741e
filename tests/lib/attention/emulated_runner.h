// Runs one sparse_attn instance on the SIMT emulator and checks it against
// the fp64 reference: the host side (ValidateShape, NameExpression,
// PlanLaunch) is the real one, the kernel is the template compiled by g++.
#ifndef JITK_TESTS_LIB_ATTENTION_EMULATED_RUNNER_H_
#define JITK_TESTS_LIB_ATTENTION_EMULATED_RUNNER_H_

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "jitk/arch.h"
#include "jitk/block_mask.h"
#include "lib/attention/reference.h"
#include "lib/attention/sparse_attn_template.h"
#include "lib/kernel_template.h"
#include "tests/lib/attention/attention_test_util.h"
#include "tests/lib/attention/reference_check.h"
#include "tests/lib/attention/simt_emulator.h"

namespace jitk::attn_test {

// A problem for the emulated runs (batch 1, as Problem defaults to).
inline Problem Make(DType dtype, int hq, int hkv, int lq, int lk, int d, bool blhd = false) {
  Problem p;
  p.dtype = dtype;
  p.heads_q = hq;
  p.heads_kv = hkv;
  p.len_q = lq;
  p.len_k = lk;
  p.head_dim = d;
  p.blhd = blhd;
  return p;
}

inline KernelConfig Config(int bm, int bn, int waves, int stages) {
  return {{"BLOCK_M", bm}, {"BLOCK_N", bn}, {"WAVES", waves}, {"STAGES", stages}};
}

struct EmulatedRun {
  Problem problem;
  KernelConfig config;
  std::string arch;
  std::string expected_name;  // the NameExpression the host must produce
  uint64_t seed = 1;
  float scale = 0;  // 0: the kernel's default 1/sqrt(d)
  int compute_units = 0;  // > 0: the device's SM / CU count instead of the table's
  int expected_tile_order = -1;  // >= 0: the TileOrder PlanLaunch must pick
};

// Block lists the kernel reads instead of the mask's own (one partial list
// per query block, as torch could pass them unvalidated); the result must
// still match `mask`.
struct RawBlockLists {
  std::vector<int32_t> kv_num_blocks;
  std::vector<int32_t> kv_indices;
};

template <typename Params>
void RunEmulated(void (*kernel)(Params), const EmulatedRun& run, const BlockMask& mask,
                 const RawBlockLists* raw = nullptr) {
  const Problem& p = run.problem;
  absl::StatusOr<ArchInfo> arch = LookupArch(run.arch);
  ASSERT_TRUE(arch.ok()) << arch.status();
  if (run.compute_units > 0) arch->compute_units = run.compute_units;
  const internal::KernelTemplate& t = internal::SparseAttnKernelTemplate();
  const Shape shape = mask.AttentionShape(p.dtype, p.batch, p.heads_q, p.heads_kv, p.head_dim);
  ASSERT_TRUE(t.ValidateShape(shape).ok()) << t.ValidateShape(shape);
  absl::StatusOr<std::string> name = t.NameExpression(run.config, shape, *arch);
  ASSERT_TRUE(name.ok()) << name.status();
  ASSERT_EQ(*name, run.expected_name);

  std::mt19937_64 rng(run.seed);
  Tensor q = MakeTensor(p, p.heads_q, p.len_q, rng, 2.0);
  Tensor k = MakeTensor(p, p.heads_kv, p.len_k, rng, 2.0);
  Tensor v = MakeTensor(p, p.heads_kv, p.len_k, rng, 1.0);
  Tensor o = MakeOutput(p);
  std::vector<float> lse(size_t(p.batch) * p.heads_q * p.len_q,
                         std::numeric_limits<float>::quiet_NaN());

  LaunchArgs args;
  args.Ptr("q", q.bytes.data()).Ptr("k", k.bytes.data()).Ptr("v", v.bytes.data());
  args.Ptr("o", o.bytes.data()).Ptr("lse", lse.data());
  AddStrides("q", q, args);
  AddStrides("k", k, args);
  AddStrides("v", v, args);
  AddStrides("o", o, args);
  args.Ptr("kv_num_blocks", raw ? raw->kv_num_blocks.data() : mask.kv_num_blocks().data())
      .Ptr("kv_indices", raw ? raw->kv_indices.data() : mask.kv_indices().data());
  if (!raw && !mask.full_kv_num_blocks().empty()) {
    args.Ptr("full_kv_num_blocks", mask.full_kv_num_blocks().data())
        .Ptr("full_kv_indices", mask.full_kv_indices().data());
  }
  args.Int("mask_batch", mask.batch()).Int("mask_heads", mask.heads());
  args.Int("window", mask.element_mask().window)
      .Int("global_tokens", mask.element_mask().global_tokens);
  if (run.scale > 0) args.Float("scale", run.scale);

  internal::LaunchPlan plan;
  absl::Status planned = t.PlanLaunch(run.config, shape, *arch, args, plan);
  ASSERT_TRUE(planned.ok()) << planned;
  ASSERT_EQ(plan.args.count(), 1u);
  Params params;
  std::memcpy(&params, plan.args.pointers()[0], sizeof(Params));
  if (run.expected_tile_order >= 0) ASSERT_EQ(params.tile_order, run.expected_tile_order);

  const std::string error =
      simt::Emulator::Get().Launch({plan.grid.x, plan.grid.y, plan.grid.z}, int(plan.block.x),
                                   arch->wave_size, [&] { kernel(params); });
  ASSERT_EQ(error, "");

  const double scale = run.scale > 0 ? run.scale : 1.0 / std::sqrt(double(p.head_dim));
  ExpectMatchesReference(run.expected_name, p, mask, scale, q, k, v, o, lse);
}

}  // namespace jitk::attn_test

#endif  // JITK_TESTS_LIB_ATTENTION_EMULATED_RUNNER_H_
