#!/usr/bin/env bash
# The shared library exports the documented API and nothing else.
#
#   check_symbols.sh LIBLATREC_SO MAN_PAGE VERSION_SCRIPT
#
# Three lists must be the same set: the defined dynamic symbols of the
# library (nm -D, each versioned LATREC_0), the EXPORTED SYMBOLS section of
# latrec(3), and the global names of the version script. The internal names
# of the library are checked absent by name as well. Exit 0 when they agree;
# 1 with the differences otherwise.
set -euo pipefail

lib=${1:?usage: check_symbols.sh LIB MAN_PAGE VERSION_SCRIPT}
man=${2:?usage: check_symbols.sh LIB MAN_PAGE VERSION_SCRIPT}
map=${3:?usage: check_symbols.sh LIB MAN_PAGE VERSION_SCRIPT}
tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT
fail=0

# Defined dynamic symbols, with their version (name@@VERSION).
nm -D --defined-only "$lib" | awk '$2 != "A" {print $3}' | sort >"$tmp/nm.versioned"
sed 's/@.*//' "$tmp/nm.versioned" | sort -u >"$tmp/nm"
# Every exported symbol carries the library's version node.
if grep -v '@@LATREC_0$' "$tmp/nm.versioned" >"$tmp/unversioned"; then
    echo "check_symbols: exported without the LATREC_0 version:"; cat "$tmp/unversioned"; fail=1
fi

# latrec(3): the lines between ".SH EXPORTED SYMBOLS" and the next .SH that
# are a bare symbol name (the section lists one per line inside .nf/.fi).
awk '/^\.SH /{on = ($0 ~ /^\.SH "?EXPORTED SYMBOLS"?$/); next}
     on && /^latrec_[a-z0-9_]+$/ {print}' "$man" | sort -u >"$tmp/man"
[ -s "$tmp/man" ] || { echo "check_symbols: no EXPORTED SYMBOLS list in $man"; exit 1; }

# The version script's global names.
sed 's@/\*.*\*/@@' "$map" | awk '/global:/{on=1; next} /local:/{on=0} on' |
    tr -d ' \t;' | grep -E '^latrec_' | sort -u >"$tmp/map"

for pair in "nm man" "nm map"; do
    set -- $pair
    if ! diff -u --label "$1" --label "$2" "$tmp/$1" "$tmp/$2" >"$tmp/diff"; then
        echo "check_symbols: $1 and $2 differ (- only in $1, + only in $2):"; cat "$tmp/diff"; fail=1
    fi
done

for internal in latrec_catalog_name_ latrec_resolve_dir_ latrec_entries_log2_for_; do
    if grep -qx "$internal" "$tmp/nm"; then echo "check_symbols: internal $internal is exported"; fail=1; fi
done
# Anything exported from the C runtime or a static helper would show here.
if grep -v '^latrec_' "$tmp/nm" >"$tmp/foreign"; then
    echo "check_symbols: symbols outside the latrec_ namespace:"; cat "$tmp/foreign"; fail=1
fi

n=$(wc -l <"$tmp/nm")
[ "$fail" -eq 0 ] && echo "check_symbols: ok ($n symbols, all LATREC_0, as documented)"
exit "$fail"
