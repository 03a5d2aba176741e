// The scaled_add template: out = x + y * scale over n elements.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "lib/internal/status_macros.h"
#include "lib/kernel_template.h"
#include "lib/kernels/builtin_templates.h"

namespace jitk::internal {
namespace {

// 2^31 - 1 blocks is the x-grid limit on both vendors; larger n loops.
constexpr int64_t kMaxGridX = 2147483647;

absl::string_view DeviceTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32: return "float";
    case DType::kF16: return "jitk::f16";
    case DType::kBF16: return "jitk::bf16";
  }
  return "?";
}

// The launch arguments, by position.
enum ScaledAddArg { kOut, kX, kY, kN, kScale, kNumArgs };
constexpr absl::string_view kArgNames[kNumArgs] = {"out", "x", "y", "n", "scale"};

class ScaledAddTemplate final : public KernelTemplate {
 public:
  absl::string_view name() const override { return "scaled_add"; }
  absl::string_view description() const override {
    return "out = x + y * scale; fp32/fp16/bf16 storage, fp32 math";
  }
  absl::string_view source_file() const override { return "scaled_add.h"; }

  absl::Status ValidateShape(const Shape& shape) const override {
    JITK_ASSIGN_OR_RETURN(int64_t n, shape.Get("n"));
    if (n < 0) {
      return absl::InvalidArgumentError(absl::StrCat("scaled_add: n must be >= 0, got ", n));
    }
    for (const auto& [dim, value] : shape.dims()) {
      if (dim != "n") {
        return absl::InvalidArgumentError(
            absl::StrCat("scaled_add takes only dimension 'n', got '", dim, "'"));
      }
    }
    return absl::OkStatus();
  }

  std::vector<TunableParam> SearchSpace(const Shape& shape, const ArchInfo& arch) const override {
    std::vector<int64_t> blocks;
    for (int64_t b = arch.wave_size; b <= arch.max_threads_per_block; b *= 2) blocks.push_back(b);
    std::vector<int64_t> vecs;
    for (int64_t v = 1; v * int64_t(DTypeSize(shape.dtype())) <= 16; v *= 2) vecs.push_back(v);
    return {{"BLOCK", blocks}, {"EPT", {1, 2, 4, 8}}, {"VEC", vecs}};
  }

  absl::Status ValidateConfig(const KernelConfig& config, const Shape& shape,
                              const ArchInfo& arch) const override {
    for (const auto& [param, value] : config) {
      if (param != "BLOCK" && param != "EPT" && param != "VEC") {
        return absl::InvalidArgumentError(absl::StrCat(
            "scaled_add has no parameter ", param, " (parameters: BLOCK, EPT, VEC)"));
      }
    }
    JITK_ASSIGN_OR_RETURN(int64_t block, ConfigValue(config, "BLOCK"));
    JITK_ASSIGN_OR_RETURN(int64_t ept, ConfigValue(config, "EPT"));
    JITK_ASSIGN_OR_RETURN(int64_t vec, ConfigValue(config, "VEC"));
    if (block <= 0 || block % arch.wave_size != 0 || block > arch.max_threads_per_block) {
      return absl::InvalidArgumentError(absl::StrCat(
          "scaled_add: BLOCK=", block, " must be a multiple of ", arch.name, "'s wave size ",
          arch.wave_size, " and at most ", arch.max_threads_per_block));
    }
    if (ept < 1 || ept > 16) {
      return absl::InvalidArgumentError(
          absl::StrCat("scaled_add: EPT=", ept, " must be in [1, 16]"));
    }
    const int64_t bytes = vec * int64_t(DTypeSize(shape.dtype()));
    if (vec < 1 || (vec & (vec - 1)) != 0 || bytes > 16) {
      return absl::InvalidArgumentError(absl::StrCat(
          "scaled_add: VEC=", vec, " must be a power of two with VEC * ",
          DTypeSize(shape.dtype()), " bytes <= 16"));
    }
    return absl::OkStatus();
  }

  KernelConfig DefaultConfig(const Shape& shape, const ArchInfo& arch) const override {
    // 16-byte accesses, four in flight per thread, four waves per block.
    return {{"BLOCK", 4 * arch.wave_size},
            {"EPT", 4},
            {"VEC", int64_t(16 / DTypeSize(shape.dtype()))}};
  }

  absl::StatusOr<std::string> NameExpression(const KernelConfig& config, const Shape& shape,
                                             const ArchInfo& arch) const override {
    JITK_RETURN_IF_ERROR(ValidateConfig(config, shape, arch));
    return absl::StrCat("jitk::scaled_add<", config.at("BLOCK"), ", ", config.at("EPT"), ", ",
                        config.at("VEC"), ", ", DeviceTypeName(shape.dtype()), ">");
  }

  const LaunchArgNames& LaunchArguments() const override {
    static const LaunchArgNames* const kNames = new LaunchArgNames(name(), kArgNames);
    return *kNames;
  }

  absl::StatusOr<std::unique_ptr<const LaunchPlanner>> NewLaunchPlanner(
      const KernelConfig& config, const Shape& shape, const ArchInfo& arch) const override;
};

class ScaledAddPlanner final : public LaunchPlanner {
 public:
  ScaledAddPlanner(const LaunchArgNames& names, DType dtype, int64_t block, int64_t per_block)
      : LaunchPlanner(names), dtype_(dtype), block_(block), per_block_(per_block) {}

 protected:
  absl::Status Fill(const BoundLaunchArgs& args, LaunchPlan& plan) const override {
    JITK_ASSIGN_OR_RETURN(const void* out, args.Pointer(kOut));
    JITK_ASSIGN_OR_RETURN(const void* x, args.Pointer(kX));
    JITK_ASSIGN_OR_RETURN(const void* y, args.Pointer(kY));
    JITK_ASSIGN_OR_RETURN(int64_t n, args.Int(kN));
    JITK_ASSIGN_OR_RETURN(float scale, args.Float(kScale));
    if (n < 0) return absl::InvalidArgumentError(absl::StrCat("scaled_add: n = ", n, " < 0"));
    const size_t element = DTypeSize(dtype_);
    for (const void* p : {out, x, y}) {
      if (n > 0 && (p == nullptr || reinterpret_cast<uintptr_t>(p) % element != 0)) {
        return absl::InvalidArgumentError(absl::StrCat("scaled_add: pointers must be non-null and ",
                                                       element, "-byte aligned for ",
                                                       DTypeName(dtype_)));
      }
    }
    plan.grid = {uint32_t(
        std::min<int64_t>(std::max<int64_t>((n + per_block_ - 1) / per_block_, 1), kMaxGridX))};
    if (n == 0) plan.grid.x = 0;  // nothing to launch
    plan.block = {uint32_t(block_)};
    plan.args.Add(out);
    plan.args.Add(x);
    plan.args.Add(y);
    plan.args.Add(n);
    plan.args.Add(scale);
    return absl::OkStatus();
  }

 private:
  const DType dtype_;
  const int64_t block_;
  const int64_t per_block_;  // elements
};

absl::StatusOr<std::unique_ptr<const LaunchPlanner>> ScaledAddTemplate::NewLaunchPlanner(
    const KernelConfig& config, const Shape& shape, const ArchInfo& arch) const {
  JITK_ASSIGN_OR_RETURN(const int64_t block, ConfigValue(config, "BLOCK"));
  JITK_ASSIGN_OR_RETURN(const int64_t ept, ConfigValue(config, "EPT"));
  JITK_ASSIGN_OR_RETURN(const int64_t vec, ConfigValue(config, "VEC"));
  return std::make_unique<const ScaledAddPlanner>(LaunchArguments(), shape.dtype(), block,
                                                  block * ept * vec);
}

}  // namespace

const KernelTemplate& ScaledAddKernelTemplate() {
  static const ScaledAddTemplate kTemplate;
  return kTemplate;
}

}  // namespace jitk::internal
