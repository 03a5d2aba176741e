#include <chrono>
#include <cstdio>
#include "lib/c_api/c_args.h"
#include "lib/bound_launch_args.h"
int main() {
  const char* names[] = {"q","k","v","o","lse","kv_num_blocks","kv_indices","full_kv_num_blocks","full_kv_indices","mask_batch","mask_heads","window","global_tokens","scale","q_stride_b","q_stride_h","q_stride_l","k_stride_b","k_stride_h","k_stride_l","v_stride_b","v_stride_h","v_stride_l","o_stride_b","o_stride_h","o_stride_l"};
  jitk_arg args[26];
  for (int i = 0; i < 26; ++i) { args[i].name = names[i]; args[i].kind = i < 9 ? JITK_ARG_POINTER : JITK_ARG_INT; args[i].integer = i; }
  std::vector<absl::string_view> nv(names, names+26);
  jitk::internal::LaunchArgNames table("sparse_attn", nv);
  long sink = 0;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    const int N = 200000;
    for (int i = 0; i < N; ++i) {
      auto la = jitk::c_api::ToLaunchArgs(args, 26);
      jitk::internal::BoundLaunchArgs b;
      (void)b.Bind(table, *la);
      sink += la->args().size();
    }
    auto t1 = std::chrono::steady_clock::now();
    printf("ToLaunchArgs+Bind: %.3f us\n", std::chrono::duration<double, std::micro>(t1 - t0).count() / N);
  }
  return sink == 0;
}
