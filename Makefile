# kgate: a patch series on Debian's linux-source-6.1, its KUnit suites and
# end-to-end QEMU runs, on x86_64 and arm64.  "make help" lists the targets.
#
# Everything generated lives in $(BUILD) (git-ignored).

SHELL := /bin/bash
BUILD ?= $(CURDIR)/build
# The default arch list lives in scripts/lib.sh (KGATE_ARCHES).
ARCHES ?= $(shell . scripts/lib.sh && echo $$KGATE_ARCHES)
SUITES ?= $(CURDIR)/kunit/SUITES
export BUILD

DEPS_STAMP := $(BUILD)/.deps-ok
# The verdict on the results of $(BUILD) (not of the current directory),
# against kunit/SUITES; KINDS=... before it picks what is judged.
GATE_PY = RESULTS=$(BUILD)/results SUITES=$(SUITES) python3 scripts/gate.py

.PHONY: all help deps tree test gate selftest \
	series checkpatch buildcheck amcheck mutants bench clean-results distclean

## all: patched tree, then KUnit on both arches (kunit.py run) with a summary
# (scripts/kunit.sh leaves its exit code in $(BUILD)/results/<arch>.rc, which
# gate.py judges: every arch counts)
all: deps tree
	@for a in $(ARCHES); do scripts/kunit.sh $$a; done; \
	 KINDS=kunit $(GATE_PY) $(ARCHES)

## help: this list
help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

## deps: install the Debian packages needed (skips what is present)
deps: $(DEPS_STAMP)
$(DEPS_STAMP): scripts/deps.sh
	@scripts/deps.sh
	@mkdir -p $(BUILD) && touch $@

## tree: import linux-source-6.1 into build/linux, apply patches/, install kunit/
tree: deps
	@scripts/tree.sh

## kunit-x86_64 / kunit-arm64: build and run one arch's KUnit kernel
# (explicit rules: make never applies a pattern rule to a .PHONY target)
kunit-x86_64 kunit-arm64: tree
	@a=$(@:kunit-%=%); scripts/kunit.sh $$a; \
	 KINDS=kunit $(GATE_PY) $$a
.PHONY: kunit-x86_64 kunit-arm64

## e2e-x86_64 / e2e-arm64: the end-to-end runs only, on the last built kernel, with their verdict
# (every run counts: scripts/e2e.sh fails if any run failed)
e2e-x86_64 e2e-arm64: deps
	@a=$(@:e2e-%=%); rc=0; scripts/e2e.sh $$a || rc=1; \
	 KINDS=e2e $(GATE_PY) $$a || rc=1; exit $$rc
.PHONY: e2e-x86_64 e2e-arm64

## test (= gate): the pre-commit gate: host selftest, KUnit + end-to-end on both arches, one verdict
test: gate
gate: deps
	@scripts/gate.sh $(ARCHES)

## selftest: the host side's unit tests (gate verdict, e2e library, plumbing) and mypy --strict; seconds, no QEMU
selftest: deps
	@python3 scripts/selftest.py

## series: export the tree's commits on top of base to patches/ (+ series)
series:
	@scripts/series.sh

## checkpatch: scripts/checkpatch.pl --strict on every patch of the series
checkpatch: tree
	@scripts/checkpatch.sh

## buildcheck: build the tree at every patch of the series (x86_64), one by one
buildcheck: tree
	@scripts/buildcheck.sh

## amcheck: git am the series on a clean tarball tree, kunit.py run with its .kunitconfigs
amcheck: deps
	@scripts/amcheck.sh $(or $(ARCH),x86_64)

## mutants: apply each mutants/*.patch in turn; the gate must go red for each
mutants: tree
	@scripts/mutants.sh

## bench: measure cold / no-change / one-file-change gate times
bench: deps
	@scripts/bench.sh

## clean-results: forget the last results (keeps the tree and the builds)
clean-results:
	rm -rf $(BUILD)/results

## distclean: remove build/ entirely (tree, builds; ccache stays)
distclean:
	rm -rf $(BUILD)
