// jitk/jitk.h — the whole public API.
#ifndef JITK_JITK_H_
#define JITK_JITK_H_

#include "jitk/arch.h"
#include "jitk/device.h"
#include "jitk/dtype.h"
#include "jitk/kernel.h"
#include "jitk/shape.h"
#include "jitk/version.h"

#endif  // JITK_JITK_H_
