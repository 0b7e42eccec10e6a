#!/usr/bin/env bash
# Every `behaviour.md §N` the code and docs cite names a section Docs/behaviour.md has, so a
# renumbered or removed section cannot leave a reader looking in the wrong place. A § cites the
# last document named before it on its line, else the last one named on the line before
# (`behaviour.md §8\nand §9`), else its own file in Docs (`your-app.md`'s "§2 shows it") and
# behaviour.md in code (Sources, Tests, Scenarios, Package.swift), which cites no other by §.
# Prints each missing citation as FILE:LINE and exits 1; `--list` also prints every citation.
set -euo pipefail
cd "$(dirname "$0")/.."
list=0
[[ ${1:-} == --list ]] && list=1
reference=Docs/behaviour.md

# The sections the reference has: its headings `## §N Title` (and `### §N.M`, should it use them).
sections=$(grep -oE '^#+ §[0-9]+(\.[0-9]+)?' "$reference" | sed 's/^#* §//' | tr '\n' ' ')
if [[ -z $sections ]]; then
    echo "check-section-references: $reference has no numbered heading" >&2
    exit 1
fi

mapfile -t files < <(grep -rlI '§' Sources Tests Docs Scenarios README.md Package.swift | sort)
[[ ${#files[@]} -eq 0 ]] && exit 0

awk -v sections="$sections" -v reference="$reference" -v list="$list" '
    BEGIN { n = split(sections, s, " "); for (i = 1; i <= n; i++) known[s[i]] = 1 }
    FNR == 1 {
        own = FILENAME; sub(/.*\//, "", own)
        fallback = FILENAME ~ /^Docs\// || FILENAME == "README.md" ? own : "behaviour.md"
        carried = ""
    }
    {
        document = carried != "" ? carried : fallback
        carried = ""
        rest = $0
        while (match(rest, /[A-Za-z0-9_-]+\.md|§[0-9]+(\.[0-9]+)?/)) {
            token = substr(rest, RSTART, RLENGTH)
            rest = substr(rest, RSTART + RLENGTH)
            if (token !~ /^§/) { document = carried = token; continue }
            if (document != "behaviour.md") continue
            section = substr(token, 3)   # § is two bytes in UTF-8
            cited++
            if (list) print FILENAME ":" FNR ": §" section
            if (!(section in known)) {
                print FILENAME ":" FNR ": " reference " has no §" section > "/dev/stderr"
                missing++
            }
        }
    }
    END {
        if (missing) {
            print "check-section-references: " missing " of " cited " citations name no section of " reference > "/dev/stderr"
            exit 1
        }
        print "check-section-references: all " cited " citations of " reference " name a section it has"
    }
' "${files[@]}"
