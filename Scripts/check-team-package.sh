#!/usr/bin/env bash
# What `sdlab init` promises a new team, checked end to end for both of its apps (UIKit, and
# SwiftUI with --swiftui): the package it writes builds, its scenario passes, and with the
# cleanup line its README names deleted the run fails, naming the files the previous worker's
# data was left in. Needs `swift build` first (.build/debug/sdlab).
set -euo pipefail
cd "$(dirname "$0")/.."
lab=$PWD
sdlab=$lab/.build/debug/sdlab
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

check() {
    local package=$work/team-notes$1
    "$sdlab" init $1 "$package" >/dev/null 2>&1
    cd "$package"
    swift build 2>&1 | tail -1
    "$sdlab" run Scenarios | tail -1

    local store=Sources/NotesApp/NotesStore.swift
    local breaking='try? fileManager.removeItem(at: previewsFolder(of: user))'
    grep -qF "$breaking" "$store"
    grep -vF "$breaking" "$store" >"$work/store" && mv "$work/store" "$store"
    swift build 2>&1 | tail -1
    local status=0
    "$sdlab" run Scenarios >"$work/broken.log" || status=$?
    if [ "$status" -ne 1 ] || ! grep -q "notes.leaks: expected 0, got 3: .*Library/Caches/previews" "$work/broken.log"; then
        cat "$work/broken.log" >&2
        echo "check-team-package: the broken cleanup of sdlab init${1:+ $1} was not found (exit $status)" >&2
        exit 1
    fi
    echo "sdlab init${1:+ $1}: the broken cleanup fails the run: $(grep -m1 'notes.leaks' "$work/broken.log" | sed 's/^ *//')"
}

check ""
check --swiftui
