# SPDX-License-Identifier: GPL-2.0
# Flatten the pretty-printed JSON that slabstat writes (one member per
# line) into "path=value" lines, e.g.
#   caches.nfs_page_test.counters.free_slowpath.cpus.2=187500
# Array elements get their index as key.  Only for slabstat's own output.
function path(key,   p, i) {
	p = ""
	for (i = 2; i <= d; i++)
		p = p k[i] "."
	return p key
}
{
	line = $0
	sub(/^[ \t]+/, "", line)
	sub(/,$/, "", line)
	key = ""
	if (match(line, /^"[^"]*": /)) {
		key = substr(line, 2, RLENGTH - 4)
		line = substr(line, RLENGTH + 1)
	} else if (d > 0 && isarr[d]) {
		key = idx[d]++
	}
	if (line == "{" || line == "[") {
		d++
		k[d] = key
		isarr[d] = (line == "[")
		idx[d] = 0
		next
	}
	if (line == "}" || line == "]") {
		d--
		next
	}
	gsub(/^"|"$/, "", line)
	print path(key) "=" line
}
