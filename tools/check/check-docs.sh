#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make check' step 'docs': check the documentation against the code.
#
# Usage: tools/check/check-docs.sh
#
#   1. every .rst under Documentation/ starts with the SPDX line and is
#      valid reStructuredText for plain docutils with warnings as errors
#      (the equivalent of 'rst2html --strict'; Debian python3-docutils);
#      the Sphinx-only :doc:/:ref: roles and the kernel-doc directive are
#      registered as no-ops, everything else must be plain docutils
#   2. every module parameter of mm/slub_stress.c (__param(type, name, ...),
#      SS_PARAM(name, ...) or module_param*(name, ...)) has an entry of its
#      own in the "Module parameters" section of
#      Documentation/dev-tools/slub-stress.rst: a line that starts with
#      ``name`` (a definition list term)
#   3. every sysfs attribute the series adds (+STAT_ATTR(ITEM, name),
#      +SLAB_ATTR*(name) and "+... struct slab_attribute name_attr = ..."
#      lines in patches/*.patch) has a "+What: /sys/kernel/slab/<cache>/name"
#      line in the series' hunks of Documentation/ABI/testing/sysfs-kernel-slab
#      and is named as ``name`` in Documentation/mm/slab-parking.rst
#   4. every debugfs file the series adds to a cache's directory
#      (+debugfs_create_file*("name", ...) lines in patches/*.patch; not
#      ABI, so no ABI entry) is named as ``name`` in
#      Documentation/mm/slab-parking.rst, and so is its path,
#      /sys/kernel/debug/slab/<cache>/name
#   5. the first 40 lines of README name 'make run' and 'make check', and
#      README (a map) has at most 200 lines
#   6. every variable the Makefile exports has exactly one entry (a line
#      starting with ``VAR=`` or ``VAR``) in Documentation/dev-tools/slabpark-bench.rst
#
# Each failure is printed as "check-docs: FAIL: <what is missing>"; the
# exit status is 1 if there was any, 0 otherwise.

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$SLABPARK_TOP"
[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }

MODULE_SRC=mm/slub_stress.c
STRESS_DOC=Documentation/dev-tools/slub-stress.rst
PARK_DOC=Documentation/mm/slab-parking.rst
ABI_FILE=Documentation/ABI/testing/sysfs-kernel-slab
SPDX_RST='.. SPDX-License-Identifier: GPL-2.0'

nfail=0
fail() {
	echo "check-docs: FAIL: $*"
	nfail=$((nfail + 1))
}
note() {
	echo "check-docs: $*"
}

# A python3 that has docutils (Debian's rst2html runs /usr/bin/python3).
find_python() {
	local py
	for py in /usr/bin/python3 python3; do
		if command -v "$py" >/dev/null 2>&1 &&
		   "$py" -c 'import docutils' >/dev/null 2>&1; then
			echo "$py"
			return 0
		fi
	done
	return 1
}

# Lines of section TITLE (a title underlined with '=') of an rst file, up
# to the next such section.
rst_section() {
	awk -v want="$2" '
		/^=+$/ && prev != "" && prev !~ /^=+$/ { insec = (prev == want); prev = $0; next }
		insec { print }
		{ prev = $0 }
	' "$1"
}

# ---- 1. reStructuredText ---------------------------------------------------

# Plain docutils with warnings as errors; prints "FILE:LINE: (LEVEL) message"
# for the first problem of each bad file.
read -r -d '' RST_CHECK_PY <<'PY' || true
import io
import sys
import docutils.core
from docutils.parsers.rst import directives, roles, Directive


class NoOp(Directive):
    """Sphinx/kernel-doc directives plain docutils does not know."""
    required_arguments = 0
    optional_arguments = 100
    final_argument_whitespace = True
    has_content = True
    option_spec = None

    def run(self):
        return []


def noop_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    return [], []


for d in ('kernel-doc', 'toctree', 'kernel-abi', 'kernel-feat'):
    directives.register_directive(d, NoOp)
for r in ('doc', 'ref'):
    roles.register_local_role(r, noop_role)

bad = 0
for path in sys.argv[1:]:
    with open(path, encoding='utf-8') as fh:
        src = fh.read()
    warnings = io.StringIO()
    try:
        docutils.core.publish_string(
            src, source_path=path, writer_name='html',
            settings_overrides={
                'halt_level': 2,        # --strict: a warning is an error
                'report_level': 2,
                'warning_stream': warnings,
                'traceback': True,      # raise, do not sys.exit()
                'input_encoding': 'utf-8',
                'output_encoding': 'utf-8',
            })
    except Exception as exc:   # docutils.utils.SystemMessage and friends
        msg = warnings.getvalue().strip() or str(exc).strip() or repr(exc)
        if not msg.startswith(path):
            msg = path + ': ' + msg
        print(msg)
        bad += 1
sys.exit(1 if bad else 0)
PY

mapfile -t rst_files < <(find Documentation -name '*.rst' -type f 2>/dev/null | sort)
if [ ${#rst_files[@]} -eq 0 ]; then
	fail "no .rst files under Documentation/"
else
	for f in "${rst_files[@]}"; do
		if [ "$(head -n 1 "$f")" != "$SPDX_RST" ]; then
			fail "$f: the first line is not '$SPDX_RST'"
		fi
	done
	if ! py=$(find_python); then
		fail "python3 with docutils is missing: cannot validate ${rst_files[*]} (apt-get install python3-docutils, or tools/install-deps.sh)"
	else
		# One process for all files; prints "FILE: message" per problem.
		rst_out=$("$py" -c "$RST_CHECK_PY" "${rst_files[@]}" 2>&1) || true
		if [ -n "$rst_out" ]; then
			while IFS= read -r line; do
				fail "docutils: $line"
			done <<<"$rst_out"
		else
			note "docutils (strict): ${#rst_files[@]} .rst file(s) valid"
		fi
	fi
fi

# ---- 2. module parameters ----------------------------------------------------

# Parameter names: macro bodies (#define lines and continuation lines)
# are dropped, the rest is joined so a call may span lines.
module_params() {
	sed -e '/^[[:space:]]*#[[:space:]]*define/d' -e '/\\$/d' "$MODULE_SRC" | tr '\n' ' ' |
		grep -oE '(\b__param\([[:space:]]*[A-Za-z_][A-Za-z0-9_]*[[:space:]]*,[[:space:]]*[A-Za-z_][A-Za-z0-9_]*|\b(SS_PARAM|module_param(_named|_cb|_array|_string|_unsafe)?)\([[:space:]]*[A-Za-z_][A-Za-z0-9_]*)' |
		sed -E -e 's/^__param\([^,]*,[[:space:]]*//' -e 's/^(SS_PARAM|module_param[a-z_]*)\([[:space:]]*//' |
		sort -u
}

if [ ! -f "$MODULE_SRC" ]; then
	note "$MODULE_SRC does not exist yet: no module parameters to check"
else
	mapfile -t params < <(module_params)
	if [ ${#params[@]} -eq 0 ]; then
		fail "$MODULE_SRC: no __param()/SS_PARAM()/module_param() found (has the parameter macro changed?)"
	elif [ ! -f "$STRESS_DOC" ]; then
		fail "$STRESS_DOC is missing: module parameters ${params[*]} are undocumented"
	else
		section=$(rst_section "$STRESS_DOC" "Module parameters")
		[ -n "$section" ] || fail "$STRESS_DOC: no section titled 'Module parameters'"
		missing=()
		for p in "${params[@]}"; do
			grep -q "^\`\`$p\`\`" <<<"$section" || missing+=("$p")
		done
		if [ ${#missing[@]} -gt 0 ]; then
			for p in "${missing[@]}"; do
				fail "module parameter '$p' ($MODULE_SRC) is not documented in $STRESS_DOC: no line starting with \`\`$p\`\` in its 'Module parameters' section"
			done
		else
			note "module parameters: all ${#params[@]} documented in $STRESS_DOC (${params[*]})"
		fi
	fi
fi

# ---- 3. sysfs attributes added by the series --------------------------------

mapfile -t patch_files < <(find patches -maxdepth 1 -name '*.patch' -type f 2>/dev/null | sort)
if [ ${#patch_files[@]} -eq 0 ]; then
	note "no patches/*.patch yet: no new slab attributes to check"
else
	mapfile -t attrs < <(
		sed -nE -e 's/^\+[[:space:]]*STAT_ATTR\([[:space:]]*[A-Z0-9_]+[[:space:]]*,[[:space:]]*([a-z0-9_]+)[[:space:]]*\).*/\1/p' \
			-e 's/^\+[[:space:]]*SLAB_ATTR(_RO|_WO|_RW)?\([[:space:]]*([a-z0-9_]+)[[:space:]]*\).*/\2/p' \
			-e 's/^\+.*struct[[:space:]]+slab_attribute[[:space:]]+([a-z0-9_]+)_attr[[:space:]]*=.*/\1/p' \
			"${patch_files[@]}" | sort -u)
	# The '+' lines of the series' hunks of the ABI file.
	abi_added=$(awk -v f="$ABI_FILE" '
		/^diff --git / { inabi = (index($0, " a/" f " ") > 0 || $NF == "b/" f); next }
		inabi && /^\+/ && !/^\+\+\+ / { print }
	' "${patch_files[@]}")
	if [ ${#attrs[@]} -eq 0 ]; then
		note "patches/*.patch add no STAT_ATTR/SLAB_ATTR lines: no new slab attributes to check"
	else
		[ -n "$abi_added" ] || fail "patches/*.patch add slab attributes (${attrs[*]}) but no hunk adds lines to $ABI_FILE"
		[ -f "$PARK_DOC" ] || fail "$PARK_DOC is missing: slab attributes ${attrs[*]} are undocumented"
		ok=0
		for a in "${attrs[@]}"; do
			good=1
			if ! grep -qE "^\+What:[[:space:]]+/sys/kernel/slab/<cache>/${a}[[:space:]]*\$" <<<"$abi_added"; then
				fail "slab attribute '$a' (added in patches/) has no '+What: /sys/kernel/slab/<cache>/$a' line in the series' $ABI_FILE hunk"
				good=0
			fi
			if [ -f "$PARK_DOC" ] && ! grep -qF "\`\`$a\`\`" "$PARK_DOC"; then
				fail "slab attribute '$a' (added in patches/) is not named as \`\`$a\`\` in $PARK_DOC"
				good=0
			fi
			ok=$((ok + good))
		done
		note "slab attributes added by the series: ${attrs[*]} ($ok of ${#attrs[@]} documented in both places)"
	fi
fi

# ---- 4. debugfs files added by the series ------------------------------------

if [ ${#patch_files[@]} -gt 0 ]; then
	mapfile -t dfiles < <(
		sed -nE 's/^\+.*debugfs_create_file[a-z_]*\([[:space:]]*"([a-z0-9_]+)".*/\1/p' \
			"${patch_files[@]}" | sort -u)
	if [ ${#dfiles[@]} -eq 0 ]; then
		note "patches/*.patch add no debugfs files"
	else
		ok=0
		for a in "${dfiles[@]}"; do
			good=1
			if [ ! -f "$PARK_DOC" ] || ! grep -qF "\`\`$a\`\`" "$PARK_DOC"; then
				fail "debugfs file '$a' (added in patches/) is not named as \`\`$a\`\` in $PARK_DOC"
				good=0
			fi
			if [ -f "$PARK_DOC" ] && ! grep -qF "/sys/kernel/debug/slab/<cache>/$a" "$PARK_DOC"; then
				fail "debugfs file '$a' (added in patches/): its path /sys/kernel/debug/slab/<cache>/$a is not in $PARK_DOC"
				good=0
			fi
			ok=$((ok + good))
		done
		note "debugfs files added by the series: ${dfiles[*]} ($ok of ${#dfiles[@]} documented in $PARK_DOC)"
	fi
fi

# ---- 5. README -------------------------------------------------------------

if [ ! -f README ]; then
	fail "README is missing"
else
	for c in 'make run' 'make check'; do
		head -n 40 README | grep -qF "$c" || fail "README: '$c' is not in its first 40 lines"
	done
	[ "$(wc -l <README)" -le 200 ] || fail "README: $(wc -l <README) lines, more than 200 (details go to Documentation/)"
fi

# ---- 6. Make variables -------------------------------------------------------

BENCH_DOC=Documentation/dev-tools/slabpark-bench.rst
mapfile -t mvars < <(sed -n '/^export /,/[^\\]$/p' Makefile | sed 's/[\\]$//' | tr -s ' \t' '\n' |
	grep -E '^[A-Z_][A-Z0-9_]*$' | sort -u)
if [ ${#mvars[@]} -eq 0 ]; then
	fail "Makefile: no exported variables found (has the export line changed?)"
else
	for v in "${mvars[@]}"; do
		n=$(grep -cE "^\`\`$v(=|\`\`)|, \`\`$v(=|\`\`)" "$BENCH_DOC" 2>/dev/null || true)
		[ "$n" = 1 ] || fail "Make variable '$v' (exported by the Makefile) has $n entries in $BENCH_DOC, want 1"
	done
	note "Make variables: ${#mvars[@]} exported, each checked in $BENCH_DOC"
fi

if [ "$nfail" -gt 0 ]; then
	echo "check-docs: $nfail problem(s)"
	exit 1
fi
echo "check-docs: documentation is consistent with the code"
