#!/usr/bin/env bash
# CPU machine: the earlier libraries run.sh times against .carry/build,
# from worktree builds of the C library: .carry/before (76ffc3a: whole mask
# blocks walked) and .carry/cuts (8a75216: edge blocks cut, the combine
# pass's two lanes at any range count).
set -euo pipefail
cd "$(dirname "$0")/../../.."
for pair in before:76ffc3a cuts:8a75216; do
  name=${pair%%:*} commit=${pair##*:} W=/tmp/jitk-${pair##*:}
  [[ -d $W ]] || git worktree add --detach $W $commit
  cmake -S $W -B $W/build -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
  cmake --build $W/build -j"$(nproc)" --target jitk_c > /dev/null
  rm -rf .carry/$name && mkdir -p .carry/$name/c_api
  (cd $W/build/lib/c_api && find . -maxdepth 1 -name '*.so*' -print | tar -cf - -T -) |
    tar -xf - -C .carry/$name/c_api
  find .carry/$name -type f -name '*.so*' -exec strip {} \;
  git -C $W rev-parse --short HEAD > .carry/$name/COMMIT
done
du -sh .carry/*
