// cache/cache_key.h — the key of a cached code object.
//
// A code object is found again by a content hash of everything that changes
// the binary. Anything left out here is a stale-binary bug waiting to happen;
// anything added that does not change the binary only costs a recompile.
//
// Example:
//   std::vector<std::string> options = {"-O3", "--gpu-architecture=gfx942"};
//   jitk::cache::CodeObjectKeyInputs in;
//   in.source = preprocessed_source;
//   in.name_expression = "scaled_add<256, __half>";
//   in.options = options;
//   in.compiler = "hiprtc 5.2.21153";
//   in.target = "gfx942:sramecc+:xnack-";
//   absl::StatusOr<std::string> key = jitk::cache::MakeCodeObjectKey(in);
#ifndef JITK_CACHE_CACHE_KEY_H_
#define JITK_CACHE_CACHE_KEY_H_

#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace jitk::cache {

// Version of the key derivation below. Bump it when an input is added,
// removed or encoded differently, or when what is stored under a key changes
// meaning (e.g. the core starts post-processing compiler output): every old
// key then misses and is recompiled; old rows age out through `jitk-db prune`.
inline constexpr int kCodeObjectKeyVersion = 2;

// A header handed to the compiler by name (hiprtc/NVRTC `headers`).
struct HeaderText {
  absl::string_view name;      // "prelude.h"
  absl::string_view contents;  // its full text
};

struct CodeObjectKeyInputs {
  // The source text the compiler sees, after jitk's own preprocessing.
  absl::string_view source;
  // Headers passed next to the source (their order does not matter).
  absl::Span<const HeaderText> headers;
  // The instantiation, with its template arguments: "scaled_add<256, __half>".
  absl::string_view name_expression;
  // Compile options in the order they are passed (order can matter: -D/-U).
  absl::Span<const std::string> options;
  // Compiler identity and version, "hiprtc 5.2.21153" / "nvrtc 13.0".
  absl::string_view compiler;
  // Full target with features, "gfx942:sramecc+:xnack-" / "sm_90a".
  absl::string_view target;
};

// 32 lowercase hex digits, stable across processes and machines.
// kInvalidArgument naming the field when source, name_expression, compiler or
// target is empty (a key without them would match the wrong binary).
absl::StatusOr<std::string> MakeCodeObjectKey(const CodeObjectKeyInputs& inputs);

}  // namespace jitk::cache

#endif  // JITK_CACHE_CACHE_KEY_H_
