// Runs one sparse_attn instance on the SIMT emulator and checks it against
// the fp64 reference: the host side (ValidateShape, NameExpression,
// PlanLaunch) is the real one, the kernel is the template compiled by g++.
#ifndef JITK_TESTS_LIB_ATTENTION_EMULATED_RUNNER_H_
#define JITK_TESTS_LIB_ATTENTION_EMULATED_RUNNER_H_

#include <cmath>
#include <cstring>
#include <functional>
#include <iterator>
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
#include "tests/lib/attention/emulated_tma.h"
#include "tests/lib/attention/emulated_wgmma.h"
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
  int expected_heads_q = 0;  // > 0: the launch's heads (a group's heads packed as rows)
  int expected_launches = 0;  // > 0: the plan's launches (a split launch has two)
  int expected_kv_splits = 0;  // > 0: the key ranges PlanLaunch must pick
  // K and V rows [nan_keys_from, nan_keys_to) NaN: keys the mask hides from
  // every query, which must not reach the output.
  int nan_keys_from = 0, nan_keys_to = 0;
};

// Block lists the kernel reads instead of the mask's own (one partial list
// per query block, as torch could pass them unvalidated); the result must
// still match `mask`.
struct RawBlockLists {
  std::vector<int32_t> kv_num_blocks;
  std::vector<int32_t> kv_indices;
};

// The host's side of a run: inputs, outputs and the launch plan of the
// real PlanLaunch, with any tensor maps encoded for the emulator.
struct EmulatedLaunch {
  Tensor q, k, v, o;
  std::vector<float> lse;
  internal::LaunchPlan plan;
  int wave_size = 0;
};

inline void PlanEmulated(const EmulatedRun& run, const BlockMask& mask, const RawBlockLists* raw,
                         EmulatedLaunch& launch) {
  const Problem& p = run.problem;
  absl::StatusOr<ArchInfo> arch = LookupArch(run.arch);
  ASSERT_TRUE(arch.ok()) << arch.status();
  if (run.compute_units > 0) arch->compute_units = run.compute_units;
  launch.wave_size = arch->wave_size;
  const internal::KernelTemplate& t = internal::SparseAttnKernelTemplate();
  const Shape shape = mask.AttentionShape(p.dtype, p.batch, p.heads_q, p.heads_kv, p.head_dim);
  ASSERT_TRUE(t.ValidateShape(shape).ok()) << t.ValidateShape(shape);
  absl::StatusOr<std::string> name = t.NameExpression(run.config, shape, *arch);
  ASSERT_TRUE(name.ok()) << name.status();
  ASSERT_EQ(*name, run.expected_name);

  std::mt19937_64 rng(run.seed);
  launch.q = MakeTensor(p, p.heads_q, p.len_q, rng, 2.0);
  launch.k = MakeTensor(p, p.heads_kv, p.len_k, rng, 2.0);
  launch.v = MakeTensor(p, p.heads_kv, p.len_k, rng, 1.0);
  PoisonRows(p, p.heads_kv, run.nan_keys_from, run.nan_keys_to, launch.k);
  PoisonRows(p, p.heads_kv, run.nan_keys_from, run.nan_keys_to, launch.v);
  launch.o = MakeOutput(p);
  launch.lse.assign(size_t(p.batch) * p.heads_q * p.len_q,
                    std::numeric_limits<float>::quiet_NaN());

  LaunchArgs args;
  args.Ptr("q", launch.q.bytes.data()).Ptr("k", launch.k.bytes.data());
  args.Ptr("v", launch.v.bytes.data()).Ptr("o", launch.o.bytes.data());
  args.Ptr("lse", launch.lse.data());
  AddStrides("q", launch.q, args);
  AddStrides("k", launch.k, args);
  AddStrides("v", launch.v, args);
  AddStrides("o", launch.o, args);
  args.Ptr("kv_num_blocks", raw ? raw->kv_num_blocks.data() : mask.kv_num_blocks().data())
      .Ptr("kv_indices", raw ? raw->kv_indices.data() : mask.kv_indices().data());
  if (!raw && !mask.full_kv_num_blocks().empty()) {
    args.Ptr("full_kv_num_blocks", mask.full_kv_num_blocks().data())
        .Ptr("full_kv_indices", mask.full_kv_indices().data());
  }
  args.Int("mask_batch", mask.batch()).Int("mask_heads", mask.heads());
  mask.element_mask().AddLaunchArgs(args);
  if (run.scale > 0) args.Float("scale", run.scale);

  absl::Status planned = t.PlanLaunch(run.config, shape, *arch, args, launch.plan);
  ASSERT_TRUE(planned.ok()) << planned;
}

// The plan's tensor maps encoded for the emulator (after BindScratch: a
// split pass's o map points into the scratch).
inline void EncodeEmulatedMaps(internal::LaunchPlan& plan) {
  for (const internal::TensorMapRequest& r : plan.tensor_maps) {
    simt::TensorMap map;
    map.base = static_cast<const char*>(r.base);
    map.rank = r.rank;
    std::copy(std::begin(r.dims), std::end(r.dims), map.dims);
    std::copy(std::begin(r.strides), std::end(r.strides), map.strides);
    std::copy(std::begin(r.box), std::end(r.box), map.box);
    map.swizzle_128b = r.swizzle_128b;
    std::memcpy(plan.args.bytes(r.offset), &map, sizeof(map));
  }
}

// The kernel's body for one planned launch (a split launch has two).
using EmulatedBody = std::function<std::function<void()>(const internal::LaunchPlan&)>;

// Runs the planned launch and any next ones on the emulator, with scratch
// memory where the plan asks for it, and checks the outputs.
inline void FinishEmulated(const EmulatedRun& run, const BlockMask& mask, EmulatedLaunch& launch,
                           const EmulatedBody& body) {
  // Poisoned: the combine pass reads only what the split pass wrote.
  std::vector<double> scratch((launch.plan.scratch_bytes + 7) / 8,
                              std::numeric_limits<double>::quiet_NaN());
  internal::BindScratch(launch.plan, scratch.data());
  simt::WarpgroupMma::Get().Reset();
  int launches = 0;
  for (internal::LaunchPlan* plan = &launch.plan; plan != nullptr; plan = plan->next.get()) {
    ++launches;
    EncodeEmulatedMaps(*plan);
    const std::string error = simt::Emulator::Get().Launch(
        {plan->grid.x, plan->grid.y, plan->grid.z}, int(plan->block.x), launch.wave_size,
        body(*plan));
    ASSERT_EQ(error, "");
    ASSERT_FALSE(simt::WarpgroupMma::Get().InFlight())
        << "the last block ended with wgmma groups nobody waited for";
  }
  if (run.expected_launches > 0) ASSERT_EQ(launches, run.expected_launches);
  const double scale = run.scale > 0 ? run.scale : 1.0 / std::sqrt(double(run.problem.head_dim));
  ExpectMatchesReference(run.expected_name, run.problem, mask, scale, launch.q, launch.k,
                         launch.v, launch.o, launch.lse);
}

template <typename Params>
void RunEmulated(void (*kernel)(Params), const EmulatedRun& run, const BlockMask& mask,
                 const RawBlockLists* raw = nullptr) {
  EmulatedLaunch launch;
  ASSERT_NO_FATAL_FAILURE(PlanEmulated(run, mask, raw, launch));
  ASSERT_EQ(launch.plan.args.count(), 1u);
  Params params;
  std::memcpy(&params, launch.plan.args.pointers()[0], sizeof(Params));
  if (run.expected_tile_order >= 0) ASSERT_EQ(params.tile_order, run.expected_tile_order);
  if (run.expected_heads_q > 0) ASSERT_EQ(params.heads_q, run.expected_heads_q);
  if (run.expected_kv_splits > 0) ASSERT_EQ(params.kv_splits, run.expected_kv_splits);
  FinishEmulated(run, mask, launch, [&](const internal::LaunchPlan& plan) {
    std::memcpy(&params, plan.args.pointers()[0], sizeof(Params));
    return [&] { kernel(params); };
  });
}

// A kernel that takes tensor maps as its second argument.
template <typename Params, typename Maps>
void RunEmulated(void (*kernel)(const Params&, const Maps&), const EmulatedRun& run,
                 const BlockMask& mask, const RawBlockLists* raw = nullptr) {
  EmulatedLaunch launch;
  ASSERT_NO_FATAL_FAILURE(PlanEmulated(run, mask, raw, launch));
  ASSERT_EQ(launch.plan.args.count(), 2u);
  ASSERT_FALSE(launch.plan.tensor_maps.empty());
  Params params;
  Maps maps;
  FinishEmulated(run, mask, launch, [&](const internal::LaunchPlan& plan) {
    std::memcpy(&params, plan.args.pointers()[0], sizeof(Params));
    std::memcpy(&maps, plan.args.pointers()[1], sizeof(Maps));
    return [&] { kernel(params, maps); };
  });
}

}  // namespace jitk::attn_test

#endif  // JITK_TESTS_LIB_ATTENTION_EMULATED_RUNNER_H_
