// jitk-info: what GPUs and compilers jitk finds, like rocminfo / nvidia-smi -L.
//
//   jitk-info            human-readable report
//   jitk-info --json     the same as JSON
//   jitk-info --compile  also compile the built-in kernels (for the detected
//                        GPUs, or gfx90a and sm_90 when there is none) and
//                        print their resource usage
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "jitk/jitk.h"

namespace {

std::string JsonString(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      absl::StrAppend(&out, "\\u00", absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

struct CompileRow {
  std::string kernel, arch, config, status;
  jitk::ResourceUsage resources;
  size_t bytes = 0;
  double ms = 0;
};

std::vector<CompileRow> CompileBuiltins(const std::vector<std::string>& archs) {
  std::vector<CompileRow> rows;
  for (const std::string& arch : archs) {
    for (const std::string& name : jitk::KernelNames()) {
      // A representative shape per kernel; the default config for the arch.
      jitk::Shape shape(jitk::DType::kF16);
      if (name == "scaled_add") {
        shape.Set("n", 1 << 24);
      } else {
        shape.Set("b", 4).Set("hq", 32).Set("hkv", 32).Set("lq", 4096).Set("lk", 4096)
            .Set("d", 128).Set("block", 128).Set("layout", 1);
      }
      absl::StatusOr<jitk::CompiledKernel> compiled =
          jitk::compile_kernel(name, shape, {.arch = arch});
      CompileRow row{name, arch};
      if (compiled.ok()) {
        row.config = jitk::KernelConfigToString(compiled->config);
        row.status = "ok";
        row.resources = compiled->resources;
        row.bytes = compiled->code_object.size();
        row.ms = compiled->compile_ms;
        row.arch = compiled->target;
      } else {
        row.status = std::string(compiled.status().message());
      }
      rows.push_back(row);
    }
  }
  return rows;
}

void PrintHuman(const jitk::Inventory& inventory, const std::vector<CompileRow>& rows) {
  for (const jitk::BackendReport& b : inventory.backends) {
    printf("== %s backend\n", b.backend.c_str());
    printf("  runtime:  %s\n", b.runtime_status.c_str());
    printf("  compiler: %s%s%s\n", b.compiler_available ? b.compiler_version.c_str() : "",
           b.compiler_available ? " — " : "", b.compiler_status.c_str());
    if (!b.gfx_override.empty()) {
      printf("  HSA_OVERRIDE_GFX_VERSION=%s is set: every AMD GPU in this process reports it\n",
             b.gfx_override.c_str());
    }
    if (!b.compile_targets.empty()) {
      printf("  compile-only targets: %s\n", absl::StrJoin(b.compile_targets, " ").c_str());
    }
  }
  if (inventory.devices.empty()) {
    printf("\nNo GPU found. Kernels can still be compiled for any target above (--arch).\n");
  }
  for (const jitk::DeviceInfo& d : inventory.devices) {
    printf("\nGPU %d: %s (%s)\n", d.ordinal, d.name.c_str(), d.backend.c_str());
    printf("  arch %s  target %s\n", d.arch.c_str(), d.target.c_str());
    printf("  %d compute units, wave size %d, max %d threads/block\n", d.compute_units,
           d.wave_size, d.max_threads_per_block);
    printf("  LDS/shared: %d bytes per block, %d per CU   memory: %.1f GiB   clock: %d MHz\n",
           d.lds_bytes_per_block, d.lds_bytes_per_cu, d.memory_bytes / 1073741824.0, d.clock_mhz);
  }
  if (rows.empty()) return;
  printf("\n%-12s %-26s %-44s %5s %5s %5s %6s %7s %6s %8s\n", "kernel", "target", "config",
         "vgpr", "sgpr", "agpr", "lds", "scratch", "spills", "compile");
  for (const CompileRow& r : rows) {
    if (r.status != "ok") {
      printf("%-12s %-26s error: %s\n", r.kernel.c_str(), r.arch.c_str(), r.status.c_str());
      continue;
    }
    printf("%-12s %-26s %-44s %5d %5d %5d %6d %7d %6d %6.0fms\n", r.kernel.c_str(),
           r.arch.c_str(), r.config.c_str(), r.resources.registers, r.resources.scalar_registers,
           r.resources.accum_registers, r.resources.lds_bytes, r.resources.scratch_bytes,
           r.resources.spills, r.ms);
  }
}

void PrintJson(const jitk::Inventory& inventory, const std::vector<CompileRow>& rows) {
  std::vector<std::string> backends;
  for (const jitk::BackendReport& b : inventory.backends) {
    std::vector<std::string> targets;
    for (const std::string& t : b.compile_targets) targets.push_back(JsonString(t));
    backends.push_back(absl::StrCat(
        "{\"backend\":", JsonString(b.backend),
        ",\"runtime_available\":", b.runtime_available ? "true" : "false",
        ",\"runtime_status\":", JsonString(b.runtime_status),
        ",\"compiler_available\":", b.compiler_available ? "true" : "false",
        ",\"compiler_status\":", JsonString(b.compiler_status),
        ",\"compiler_version\":", JsonString(b.compiler_version),
        ",\"gfx_override\":", JsonString(b.gfx_override), ",\"compile_targets\":[",
        absl::StrJoin(targets, ","), "]}"));
  }
  std::vector<std::string> devices;
  for (const jitk::DeviceInfo& d : inventory.devices) {
    devices.push_back(absl::StrCat(
        "{\"ordinal\":", d.ordinal, ",\"backend\":", JsonString(d.backend),
        ",\"name\":", JsonString(d.name), ",\"arch\":", JsonString(d.arch),
        ",\"target\":", JsonString(d.target), ",\"wave_size\":", d.wave_size,
        ",\"compute_units\":", d.compute_units,
        ",\"max_threads_per_block\":", d.max_threads_per_block,
        ",\"lds_bytes_per_block\":", d.lds_bytes_per_block,
        ",\"lds_bytes_per_cu\":", d.lds_bytes_per_cu, ",\"clock_mhz\":", d.clock_mhz,
        ",\"memory_bytes\":", d.memory_bytes, "}"));
  }
  std::vector<std::string> compiled;
  for (const CompileRow& r : rows) {
    compiled.push_back(absl::StrCat(
        "{\"kernel\":", JsonString(r.kernel), ",\"target\":", JsonString(r.arch),
        ",\"status\":", JsonString(r.status), ",\"config\":", JsonString(r.config),
        ",\"registers\":", r.resources.registers,
        ",\"scalar_registers\":", r.resources.scalar_registers,
        ",\"accum_registers\":", r.resources.accum_registers,
        ",\"lds_bytes\":", r.resources.lds_bytes, ",\"scratch_bytes\":", r.resources.scratch_bytes,
        ",\"spills\":", r.resources.spills, ",\"code_bytes\":", r.bytes,
        ",\"compile_ms\":", r.ms, "}"));
  }
  printf("{\"jitk_version\":\"%s\",\"backends\":[%s],\"devices\":[%s],\"compiled\":[%s]}\n",
         JITK_VERSION_STRING, absl::StrJoin(backends, ",").c_str(),
         absl::StrJoin(devices, ",").c_str(), absl::StrJoin(compiled, ",").c_str());
}

}  // namespace

int main(int argc, char** argv) {
  bool json = false, compile = false;
  std::vector<std::string> archs;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--json")) {
      json = true;
    } else if (!strcmp(argv[i], "--compile")) {
      compile = true;
    } else if (!strcmp(argv[i], "--arch") && i + 1 < argc) {
      compile = true;
      archs.push_back(argv[++i]);
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: jitk-info [--json] [--compile] [--arch ARCH]...\n"
             "  Lists the GPUs and compilers jitk finds. --compile compiles the built-in kernels\n"
             "  for each GPU found (or gfx90a and sm_90 without one); --arch picks targets.\n");
      return 0;
    } else {
      fprintf(stderr, "jitk-info: unknown argument '%s' (try --help)\n", argv[i]);
      return 2;
    }
  }
  jitk::Inventory inventory = jitk::DiscoverDevices();
  if (compile && archs.empty()) {
    for (const jitk::DeviceInfo& d : inventory.devices) archs.push_back(d.target);
    if (archs.empty()) archs = {"gfx90a", "sm_90"};
  }
  std::vector<CompileRow> rows = compile ? CompileBuiltins(archs) : std::vector<CompileRow>{};
  if (json) {
    PrintJson(inventory, rows);
  } else {
    PrintHuman(inventory, rows);
  }
  for (const CompileRow& r : rows) {
    if (r.status != "ok") return 1;
  }
  return 0;
}
