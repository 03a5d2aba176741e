#!/usr/bin/env bash
# CPU machine: .carry/before for run.sh, the C library of 76ffc3a (whole
# mask blocks walked) with its templates, from a worktree build.
set -euo pipefail
cd "$(dirname "$0")/../../.."
W=/tmp/jitk-76ffc3a
[[ -d $W ]] || git worktree add --detach $W 76ffc3a
cmake -S $W -B $W/build -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build $W/build -j"$(nproc)" --target jitk_c > /dev/null
rm -rf .carry/before && mkdir -p .carry/before
(cd $W/build/lib/c_api && find . -maxdepth 1 -name '*.so*' -print | tar -cf - -T -) | tar -xf - -C .carry/before
mv .carry/before .carry/c_api && mkdir -p .carry/before && mv .carry/c_api .carry/before/
find .carry/before -type f -name '*.so*' -exec strip {} \;
git -C $W archive HEAD kernel_templates | tar -x -C .carry/before
git -C $W rev-parse --short HEAD > .carry/before/COMMIT
du -sh .carry/before
