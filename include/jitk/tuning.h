// jitk/tuning.h — tuning inside an application.
//
// With in-library tuning enabled, get_kernel reacts to JITK_TUNE:
//   off    (default) use the cache DB or the template's default
//   lazy   on a cache miss, tune on the device at hand once, store the winner
//          in the user cache DB and use it from then on (also in later runs)
//   force  re-tune once per process even when a tuned row exists
// Offline sweeps for a whole cluster are `jitk-tune`'s job (docs/tuner.md).
//
// Example:
//   int main() {
//     jitk::EnableInLibraryTuning();   // link jitk_tuner
//     ...
//     jitk::get_kernel("scaled_add", shape);  // JITK_TUNE=lazy tunes here once
//   }
#ifndef JITK_TUNING_H_
#define JITK_TUNING_H_

namespace jitk {

// Installs the tuner behind get_kernel. Idempotent and thread-safe.
void EnableInLibraryTuning();

}  // namespace jitk

#endif  // JITK_TUNING_H_
