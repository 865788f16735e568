# Splits a documentation file into units and prints each, trailing blank
# lines dropped, followed by a line "%%": rst sections (a title underlined
# with '=') for kernel.rst, "What:" entries for Documentation/ABI files.
# Usage: awk -v mode=rst|abi -f doc-units.awk FILE
{ line[NR] = $0 }
function starts(i) {
	if (mode == "abi")
		return line[i] ~ /^What:/
	return line[i] != "" && line[i + 1] ~ /^=+$/ && length(line[i + 1]) == length(line[i])
}
function flush(from, to,   j) {
	while (to >= from && line[to] ~ /^[ \t]*$/)
		to--
	if (to < from)
		return
	for (j = from; j <= to; j++)
		print line[j]
	print "%%"
}
END {
	start = 0
	for (i = 1; i <= NR; i++) {
		if (starts(i)) {
			if (start)
				flush(start, i - 1)
			start = i
		}
	}
	if (start)
		flush(start, NR)
}
