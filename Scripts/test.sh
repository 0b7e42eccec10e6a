#!/usr/bin/env bash
# The whole test suite in two stages, each with a time bound of its own: the fast tests (none
# starts a device; about 20 s), then the device tests (a few minutes). Builds the tests first.
# A test target without a device test runs in the first stage only; the few tests of the other
# targets that start no device run in both.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests

stage() {
    local name=$1 bound=$2 started=$SECONDS
    shift 2
    echo "== the $name tests (at most $bound)"
    if ! timeout --kill-after=30s "$bound" "$@"; then
        echo "== the $name tests failed or ran over $bound, after $((SECONDS - started)) s" >&2
        exit 1
    fi
    echo "== the $name tests passed in $((SECONDS - started)) s"
}

without_devices=$(for target in Tests/*Tests/; do
    grep -rqF "tags(.device)" "$target" || basename "$target"
done | paste -sd '|')
stage fast 5m env SDLAB_SKIP_DEVICE_TESTS=1 swift test --skip-build
stage device 15m swift test --skip-build --skip "^($without_devices)\."
