# Shared by scripts/tree.sh and scripts/series.sh (sourced, not run).

# The patch names of patches/series, in order, one a line.
series_list() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$PATCHES/series" 2>/dev/null || true
}

# What the series produces depends only on base and the patch files: this
# key names that result.
series_key() {
	{
		git -C "$TREE" rev-parse base
		series_list | while read -r p; do echo "$p"; cat "$PATCHES/$p"; done
	} | sha1sum | cut -d' ' -f1
}
