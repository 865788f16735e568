# Sourced: the patch series of a tree, in the order patches/series gives.
#   series_trees            the trees (folders of patches/)
#   series_names            the series listed in patches/series
#   series_patches KVER [NAME]  the patches (not the cover letters), in
#                           order; of one series, or of all of them
series_names() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/patches/series"
}
series_patches() {
	local k=$1 s
	for s in ${2:-$(series_names)}; do
		[ -d "$top/patches/$k/$s" ] || continue
		find "$top/patches/$k/$s" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | sort
	done
}
# series_trees: the trees that have series (patches/KVER/), one a line
series_trees() {
	find "$top/patches" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort
}
