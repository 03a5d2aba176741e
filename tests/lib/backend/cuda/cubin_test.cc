#include "lib/backend/cuda/cubin.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/backend/cuda/cuda_backend.h"
#include "tests/lib/backend/cuda/cuda_test_util.h"

namespace jitk::internal {
namespace {

using ::jitk::internal::testing::IsOk;
using ::jitk::internal::testing::kRegisterSource;
using ::jitk::internal::testing::Request;
using ::jitk::internal::testing::StatusIs;

// A bare ELF header for EM_CUDA with the given ABI version and e_flags.
std::string Header(int abi_version, uint32_t flags, uint16_t machine = 190) {
  Elf64_Ehdr header = {};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_ident[EI_OSABI] = 0x41;
  header.e_ident[EI_ABIVERSION] = static_cast<unsigned char>(abi_version);
  header.e_type = ET_EXEC;
  header.e_machine = machine;
  header.e_version = EV_CURRENT;
  header.e_flags = flags;
  header.e_ehsize = sizeof(Elf64_Ehdr);
  return std::string(reinterpret_cast<const char*>(&header), sizeof(header));
}

TEST(CubinArchTest, ReadsTheCuda12Layout) {
  // ABI 7: SM in the low byte, virtual SM in bits 16..23, "a" at bit 11.
  EXPECT_EQ(*CubinArch(Header(7, 0x5a055a)), "sm_90");
  EXPECT_EQ(*CubinArch(Header(7, 0x5a0d5a)), "sm_90a");
  EXPECT_EQ(*CubinArch(Header(7, 0x500550)), "sm_80");
}

TEST(CubinArchTest, ReadsTheCuda13Layout) {
  // ABI 8: SM in bits 8..15, "a" at bit 3 (values as CUDA 13.0 writes them).
  EXPECT_EQ(*CubinArch(Header(8, 0x6005004)), "sm_80");
  EXPECT_EQ(*CubinArch(Header(8, 0x6005a04)), "sm_90");
  EXPECT_EQ(*CubinArch(Header(8, 0x6006402)), "sm_100");
  EXPECT_EQ(*CubinArch(Header(8, 0x600640a)), "sm_100a");
  EXPECT_EQ(*CubinArch(Header(8, 0x6007902)), "sm_121");
}

TEST(CubinArchTest, RefusesWhatIsNotACubin) {
  EXPECT_THAT(CubinArch(""), StatusIs(absl::StatusCode::kInvalidArgument, "too short"));
  EXPECT_THAT(CubinArch(std::string(100, 'x')),
              StatusIs(absl::StatusCode::kInvalidArgument, "no ELF magic"));
  EXPECT_THAT(CubinArch(Header(8, 0x6005a04, EM_X86_64)),
              StatusIs(absl::StatusCode::kInvalidArgument, "not EM_CUDA (190)"));
  EXPECT_THAT(CubinArch(Header(8, 0x6000004)),
              StatusIs(absl::StatusCode::kInvalidArgument, "name no SM"));
  EXPECT_THAT(CubinArch(Header(8, 0x6005a04).substr(0, 40)),
              StatusIs(absl::StatusCode::kInvalidArgument, "too short"));
}

TEST(CubinArchTest, RefusesASectionTablePastTheEnd) {
  std::string image = Header(8, 0x6005a04);
  Elf64_Ehdr header;
  std::memcpy(&header, image.data(), sizeof(header));
  header.e_shoff = 4096;
  header.e_shnum = 3;
  header.e_shentsize = sizeof(Elf64_Shdr);
  header.e_shstrndx = 1;
  std::memcpy(image.data(), &header, sizeof(header));
  EXPECT_THAT(CubinArch(image), StatusIs(absl::StatusCode::kInvalidArgument, "truncated"));
}

// Real cubins from NVRTC: the arch read back is the one compiled for,
// including the "a" that CUDA 13.0 records only in .nv.compat.
class CompiledCubinTest : public ::testing::TestWithParam<const char*> {};

TEST_P(CompiledCubinTest, ReadsBackTheCompiledArch) {
  std::unique_ptr<Backend> cuda = NewCudaBackend();
  absl::StatusOr<std::vector<std::string>> targets = cuda->CompileTargets();
  ASSERT_THAT(targets, IsOk());
  std::string arch = GetParam();
  std::string base = arch.back() == 'a' ? arch.substr(0, arch.size() - 1) : arch;
  if (std::find(targets->begin(), targets->end(), base) == targets->end()) {
    GTEST_SKIP() << "this NVRTC does not build for " << arch;
  }
  absl::StatusOr<CodeObject> code = cuda->Compile(
      Request(arch, "extern \"C\" __global__ void k(int* p) { p[threadIdx.x] = 1; }", {"k"}));
  ASSERT_THAT(code, IsOk());
  EXPECT_EQ(*CubinArch(code->binary), arch);
  EXPECT_EQ(code->target, arch);

  // Cut anywhere, the image is refused rather than misread.
  for (size_t size : {size_t{64}, code->binary.size() / 2, code->binary.size() - 1}) {
    absl::StatusOr<std::string> cut = CubinArch(code->binary.substr(0, size));
    EXPECT_THAT(cut, StatusIs(absl::StatusCode::kInvalidArgument, "not a CUDA cubin"))
        << "size " << size;
  }
}

INSTANTIATE_TEST_SUITE_P(Archs, CompiledCubinTest,
                         ::testing::Values("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a",
                                           "sm_100", "sm_100a", "sm_120", "sm_120a"));

TEST(CubinDeclaredMaxThreadsTest, ReadsLaunchBounds) {
  std::unique_ptr<Backend> cuda = NewCudaBackend();
  absl::StatusOr<CodeObject> code = cuda->Compile(Request(
      "sm_90",
      "extern \"C\" __global__ void __launch_bounds__(384) bounded(int* p) { p[threadIdx.x] = 1; }"
      "extern \"C\" __global__ void free_size(int* p) { p[threadIdx.x] = 2; }",
      {"bounded", "free_size"}));
  ASSERT_THAT(code, IsOk());
  EXPECT_EQ(*CubinDeclaredMaxThreads(code->binary, "bounded"), 384);
  EXPECT_EQ(*CubinDeclaredMaxThreads(code->binary, "free_size"), 0);
  EXPECT_EQ(*CubinDeclaredMaxThreads(code->binary, "no_such_kernel"), 0);
  EXPECT_THAT(CubinDeclaredMaxThreads("garbage", "bounded"),
              StatusIs(absl::StatusCode::kInvalidArgument, "not a CUDA cubin"));
}

// Registers and local memory as the cubin records them: what a compile
// NVRTC served from its own cache (no ptxas report) still tells. Where the
// report is there, both agree.
TEST(CubinKernelResourcesTest, ReadsWhatPtxasReported) {
  std::unique_ptr<Backend> cuda = NewCudaBackend();
  absl::StatusOr<CodeObject> code =
      cuda->Compile(Request("sm_90", kRegisterSource, {"wide", "spilled"}));
  ASSERT_THAT(code, IsOk());
  absl::StatusOr<CubinKernelInfo> wide = CubinKernelResources(code->binary, "wide");
  absl::StatusOr<CubinKernelInfo> spilled = CubinKernelResources(code->binary, "spilled");
  ASSERT_THAT(wide, IsOk());
  ASSERT_THAT(spilled, IsOk());
  EXPECT_GT(wide->registers, 96) << "96 values live across a barrier";
  EXPECT_EQ(wide->frame_bytes, 0);
  EXPECT_GT(spilled->registers, 0);
  EXPECT_LE(spilled->registers, 32) << "held to 32 by its launch bounds";
  EXPECT_GT(spilled->frame_bytes, 0) << "what does not fit goes to local memory";
  if (code->log.find("ptxas") != std::string::npos) {  // a report to compare with
    const std::vector<CompiledSymbol>& symbols = code->symbols;
    ASSERT_EQ(symbols.size(), 2u);
    EXPECT_EQ(wide->registers, symbols[0].resources.registers);
    EXPECT_EQ(spilled->registers, symbols[1].resources.registers);
    EXPECT_EQ(spilled->frame_bytes, symbols[1].resources.scratch_bytes);
  }
  absl::StatusOr<CubinKernelInfo> missing = CubinKernelResources(code->binary, "no_such_kernel");
  ASSERT_THAT(missing, IsOk());
  EXPECT_EQ(missing->registers, 0);
  EXPECT_THAT(CubinKernelResources("garbage", "wide"),
              StatusIs(absl::StatusCode::kInvalidArgument, "not a CUDA cubin"));
}

}  // namespace
}  // namespace jitk::internal
