// cache/warning_sink.h — where the cache reports what it worked around.
//
// The cache never fails a kernel lookup because of its own trouble (a corrupt
// or read-only file, a missing shipped DB); it works around it and says so
// once through a WarningSink. Tests inject a sink that records the lines.
#ifndef JITK_CACHE_WARNING_SINK_H_
#define JITK_CACHE_WARNING_SINK_H_

#include <functional>

#include "absl/strings/string_view.h"

namespace jitk::cache {

// Receives one complete message, without a trailing newline. May be called
// from any thread; the default sink is thread-safe.
using WarningSink = std::function<void(absl::string_view message)>;

// Writes "jitk: <message>\n" to stderr in one write.
WarningSink StderrWarningSink();

}  // namespace jitk::cache

#endif  // JITK_CACHE_WARNING_SINK_H_
