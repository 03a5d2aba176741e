// jitk/version.h — library version, part of every cache key.
#ifndef JITK_VERSION_H_
#define JITK_VERSION_H_

#define JITK_VERSION_MAJOR 0
#define JITK_VERSION_MINOR 1
#define JITK_VERSION_PATCH 0
#define JITK_VERSION_STRING "0.1.0"

#endif  // JITK_VERSION_H_
