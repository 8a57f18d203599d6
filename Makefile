# kgate: a patch series per Debian kernel tree (linux-source-6.1, -6.12, -7.3),
# its KUnit suites and end-to-end QEMU runs, on x86_64 and arm64.  "make
# help" lists the targets.
#
# Everything generated lives in $(BUILD) (git-ignored).

SHELL := /bin/bash
BUILD ?= $(CURDIR)/build
# The trees, arches and default cells (tree x arch) live in scripts/lib.sh
# (KGATE_TREES, KGATE_ARCHES).  CELLS="6.12/arm64 ..." (or
# CELLS=all), TREES="6.1 ..." and ARCHES="x86_64 ..." select cells
# (kgate_cells there); the scripts read them from the environment.
export CELLS TREES ARCHES
# The trees of the per-tree targets (series, postable, checkpatch): those of
# the cells (TREES, or the default trees; CELLS=all: every tree).
ALL_TREES = $(or $(TREES),$(shell scripts/cells.sh list 2>/dev/null | cut -d/ -f1 | uniq))
SUITES ?= $(CURDIR)/kunit/SUITES

# KERNEL_CHECKOUT=<checkout>: gate that kernel checkout (its HEAD,
# REV=<commit>, or its staged state with STAGED=1) instead of the tarball's
# tree; the checkout is never written to (scripts/usertree.sh).  Its own
# build dir: $(BUILD)/tree-<its path, / as ->, laid out as build/ so that
# ccache hits.  The scripts' own tree variable is KTREE.
# TREE= was its name until 2026-12-06, too close to TREES=: refused with
# the new name.
ifeq ($(origin TREE),command line)
$(error TREE= is now KERNEL_CHECKOUT= (a kernel checkout of yours to gate), not to be confused with TREES= (6.1, 6.12, 7.3): make $(or $(MAKECMDGOALS),all) KERNEL_CHECKOUT=$(TREE))
endif
ifneq ($(strip $(KERNEL_CHECKOUT)),)
KGATE_USER_TREE := $(shell realpath -m -- '$(KERNEL_CHECKOUT)')
override BUILD := $(BUILD)/tree-$(subst /,-,$(patsubst /%,%,$(KGATE_USER_TREE)))
export KGATE_USER_TREE
ifneq ($(REV),)
export KGATE_REV := $(REV)
endif
ifeq ($(STAGED),1)
export KGATE_USER_INDEX := $(shell git -C '$(KGATE_USER_TREE)' rev-parse --path-format=absolute --git-path index)
endif
NOT_FOR_TREE := $(filter series postable checkpatch buildcheck amcheck mutants bench,$(MAKECMDGOALS))
ifneq ($(NOT_FOR_TREE),)
$(error KERNEL_CHECKOUT=<checkout> is for make test, all, tree, kunit-<arch>, e2e-<arch>, install-hook, uninstall-hook; make $(NOT_FOR_TREE) works on the tarball's tree)
endif
else
override KGATE_USER_TREE :=
unexport KGATE_USER_TREE KGATE_REV KGATE_USER_INDEX
endif
unexport TREE KERNEL_CHECKOUT
export BUILD

# The cells of every target are CELLS=, TREES= and ARCHES=; the per-target
# names they replaced on 2026-12-06 are refused with the new one.
OLD_SETTINGS := MUTANT_ARCH:ARCHES FUZZ_ARCH:ARCHES SOAK_ARCH:ARCHES FUZZ_TREE:TREES DEBUG_CELLS:CELLS
$(foreach o,$(OLD_SETTINGS),$(if $(filter command line environment,$(origin $(word 1,$(subst :, ,$(o))))),\
  $(error $(word 1,$(subst :, ,$(o)))= is now $(word 2,$(subst :, ,$(o)))= (every target takes its cells from CELLS=, TREES=, ARCHES=))))
ifeq ($(origin ARCH),command line)
$(error ARCH= is now ARCHES= (every target takes its cells from CELLS=, TREES=, ARCHES=))
endif
# One-cell targets (test-debug, fuzz, soak, faults) default to 6.1/x86_64, the
# per-tree ones (mutants, buildcheck, amcheck) to every tree on x86_64.
ONE_CELL := test-debug fuzz soak faults
ONE_ARCH := $(ONE_CELL) mutants buildcheck amcheck
$(ONE_CELL): export TREES := $(or $(TREES),$(if $(CELLS),,6.1))
$(ONE_ARCH): export ARCHES := $(or $(ARCHES),$(if $(CELLS),,x86_64))

DEPS_STAMP := $(BUILD)/.deps-ok
# The verdict on the results of $(BUILD) (not of the current directory),
# against kunit/SUITES; KINDS=... before it picks what is judged.
GATE_PY = RESULTS=$(BUILD)/results SUITES=$(SUITES) python3 scripts/gate.py
# <cmd> on each tree of ALL_TREES, in its build dir; red if any is.
EACH_TREE = rc=0; for t in $(ALL_TREES); do echo "== $$t"; \
	BUILD=$(BUILD)/$$t KGATE_TREE=$$t
EACH_TREE_END = || rc=1; done; exit $$rc

.PHONY: all help deps tree test gate selftest install-hook uninstall-hook \
	series postable checkpatch buildcheck amcheck mutants bench upstream upstream-check clean-results distclean \
	conformance conformance-baseline fuzz test-debug soak faults

## all: patched trees, then KUnit on every cell (kunit.py run) with a summary
# (scripts/kunit.sh leaves its exit code in $(BUILD)/<tree>/results/<arch>.rc,
# which gate.py judges: every cell counts)
all: deps tree
	@scripts/cells.sh kunit; scripts/cells.sh judge kunit

## help: this list
help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

## deps: install the Debian packages needed (skips what is present) and fetch the kernel tarball of each tree of the cells that the machine's apt sources lack (7.3: scripts/source.sh)
deps: $(DEPS_STAMP)
	@scripts/cells.sh sources
$(DEPS_STAMP): scripts/deps.sh
	@scripts/deps.sh
	@mkdir -p $(BUILD) && touch $@

## tree: import linux-source-<tree> into build/<tree>/linux, apply patches/<tree>/ with the test files of kunit/, for each tree of the cells (KERNEL_CHECKOUT=<checkout>: its series on that checkout, in build/tree-<path>/linux)
tree: deps
	@scripts/cells.sh tree

## kunit-x86_64 / kunit-arm64: build and run one arch's KUnit kernel
# (explicit rules: make never applies a pattern rule to a .PHONY target)
kunit-x86_64 kunit-arm64: tree
	@a=$(@:kunit-%=%); scripts/cells.sh kunit $$a; \
	 scripts/cells.sh judge kunit $$a
.PHONY: kunit-x86_64 kunit-arm64

## e2e-x86_64 / e2e-arm64: the end-to-end runs only, on the last built kernel, with their verdict
# (every run counts: scripts/e2e.sh fails if any run failed)
e2e-x86_64 e2e-arm64: deps
	@a=$(@:e2e-%=%); rc=0; scripts/cells.sh e2e $$a || rc=1; \
	 scripts/cells.sh judge e2e $$a || rc=1; exit $$rc
.PHONY: e2e-x86_64 e2e-arm64

## test (= gate): the pre-commit gate: host selftest, KUnit, end-to-end and the cells' conformance suites on the cells (default: every tree on x86_64 and arm64), one verdict (KERNEL_CHECKOUT=<checkout> [REV=<commit>|STAGED=1]: on your own kernel checkout)
test: gate
gate: deps
	@scripts/gate.sh

## conformance: fstests' overlay group (the baseline's group: all on 6.1, quick elsewhere; FSTESTS_GROUP=... overrides) in every section of conformance/fstests/sections, on the x86_64 cells, against the committed baseline; a table, then the verdict
# (FSTESTS_SRC=<fstests checkout or tarball>, default ../shared/external/;
# the patched kernel is the gate's, built here if needed: scripts/cells.sh
# kunit runs its KUnit suites too)
# (default cells: every cell with a committed baseline, conformance/known/<tree>/<arch>;
# CELLS=, TREES= or ARCHES= pick others)
CONF_ARCH = x86_64
KNOWN_CELLS := $(patsubst conformance/known/%,%,$(wildcard conformance/known/*/$(CONF_ARCH)))
# The conf suites of make conformance (the gate's are in kunit/SUITES).
export CONF_SUITES := $(CURDIR)/conformance/SUITES
conformance conformance-baseline: export CELLS := $(if $(CELLS)$(TREES)$(ARCHES),$(CELLS),$(KNOWN_CELLS))
conformance: deps tree
	@rc=0; scripts/cells.sh kunit $(CONF_ARCH) || true; \
	 scripts/cells.sh conf $(CONF_ARCH) || rc=1; \
	 echo; conformance/table $(BUILD) $$(scripts/cells.sh list $(CONF_ARCH)) || rc=1; \
	 SUITES=$(CONF_SUITES) scripts/cells.sh judge conf $(CONF_ARCH) || rc=1; \
	 exit $$rc

## conformance-baseline: build each cell's tree at tag base (no patch of ours, same .config) and rewrite conformance/known/<tree>/<arch>/<section> from its runs (whole group, FSTESTS_GROUP=quick; SECTIONS="..." picks sections); a stopped run, started again, runs only the tests not yet done
conformance-baseline: deps tree
	@scripts/cells.sh kunit $(CONF_ARCH) || true; scripts/cells.sh conf-baseline $(CONF_ARCH)

## install-hook: a git hook running the gate on what is committed or pushed (HOOK=pre-push default, HOOK=pre-commit; KERNEL_CHECKOUT=<checkout>, default this repository)
install-hook:
	@scripts/hook.sh install $(or $(HOOK),pre-push) '$(or $(KGATE_USER_TREE),$(CURDIR))' \
		$(if $(filter command line environment,$(origin ARCHES)),$(ARCHES))

## uninstall-hook: remove it (HOOK=..., default both), putting back a hook of yours it had chained
uninstall-hook:
	@scripts/hook.sh uninstall $(or $(HOOK),all) '$(or $(KGATE_USER_TREE),$(CURDIR))'

## selftest: the host side's unit tests (gate verdict, e2e library, plumbing) and mypy --strict; seconds, no QEMU
selftest: deps
	@python3 scripts/selftest.py

## series: export each tree's commits on top of base to patches/<tree>/ (series, tests: which patch adds which test file) and their test files to kunit/; TREES= picks, a tree not imported yet is skipped
series:
	@$(EACH_TREE) scripts/series.sh $(EACH_TREE_END)

## postable: write each tree's series as it is posted, each test file of kunit/ in the patch that adds it, to build/<tree>/postable/
postable: tree
	@$(EACH_TREE) scripts/postable.sh $(EACH_TREE_END)

## checkpatch: scripts/checkpatch.pl --strict on every patch of each tree's postable series
checkpatch: tree
	@$(EACH_TREE) scripts/checkpatch.sh $(EACH_TREE_END)

## buildcheck: build each tree at every patch of its series, one by one (the cells' trees, x86_64; ARCHES=arm64)
buildcheck: tree
	@scripts/cells.sh each buildcheck.sh

## amcheck: git am each tree's postable series on a clean tarball tree, kunit.py run with its .kunitconfigs
amcheck: tree
	@scripts/cells.sh each amcheck.sh

## upstream: the 7.3 series as postings in build/upstream/<topic>/: the fixes per maintainer tree (mm, x86, virtio-mem, overlayfs), the tests per subsystem on top of their fixes; git format-patch with cover letters (patches/7.3/cover/), To/Cc from get_maintainer.pl, the sender's identity (UPSTREAM_FROM or git config); send with git send-email
upstream: export TREES := $(or $(TREES),7.3)
upstream: tree
	@$(EACH_TREE) scripts/upstream.sh $(EACH_TREE_END)

## upstream-check: make upstream, then git am of each posting on a clean tarball tree and kunit.py run with the .kunitconfigs it adds (scripts/amcheck.sh, AMCHECK_POST)
upstream-check: export TREES := $(or $(TREES),7.3)
upstream-check: upstream
	@rc=0; for t in $(ALL_TREES); do for d in $(BUILD)/upstream/*/; do d=$${d%/}; echo "== $$t $$d"; \
	  case $$d in *-tests) pre=$${d%-tests};; *) pre=;; esac; \
	  AMCHECK_POST="$$pre $$d" BUILD=$(BUILD)/$$t KGATE_TREE=$$t scripts/amcheck.sh x86_64 || rc=1; done; done; exit $$rc

## mutants: apply each mutants/<tree>/*.patch in turn; the gate must go red for each (the cells' trees, x86_64; ARCHES=arm64)
mutants: tree
	@scripts/cells.sh each mutants.sh

## test-debug: the KUnit suites and end-to-end runs on a debug kernel (gate config + debug/kunitconfig: KASAN, UBSAN, lockdep, DEBUG_LIST; panic_on_warn=1), any kernel report a failure; on 6.1/x86_64 (CELLS= picks others), DEBUG_E2E=0 for KUnit only
test-debug: deps tree
	@scripts/test-debug.sh

## fuzz: the property suites (*_prop in kunit/SUITES) with FUZZ_ITERS cases each (default 100000) from FUZZ_SEED (default 1), on 6.1/x86_64's debug kernel (that of make test-debug; FUZZ_DEBUG=0: the gate's; CELLS= picks others); no kernel report allowed
fuzz: deps tree
	@scripts/cells.sh each fuzz.sh

## soak: virtio-mem soak, SOAK_CYCLES (default 100) cycles of random sizes on both devices (SBM, BBM) from SOAK_SEED (default 1), under memory load with pinned pages, on 6.1/x86_64's debug kernel (that of make test-debug; SOAK_DEBUG=0: the gate's; CELLS= picks others)
soak: deps tree
	@scripts/cells.sh each soak.sh

## faults: overlayfs copy-up and rename under failed allocations (each failure point once), a full and a failing upper disk; virtio-mem under failed allocations and notifier errors; on 6.1/x86_64's debug kernel (that of make test-debug, with fault injection; CELLS= picks others), FAULTS_TESTS= picks scenarios; no kernel report allowed
faults: deps tree
	@scripts/faults.sh

## bench: measure cold / no-change / one-file-change gate times (BENCH_CONFIG=<rev>: cold kernel builds, <rev>'s config against the current one)
bench: deps
	@scripts/bench.sh $(if $(BENCH_CONFIG),config $(BENCH_CONFIG))

## clean-results: forget the last results (keeps the tree and the builds)
clean-results:
	rm -rf $(BUILD)/results $(BUILD)/*/results

## distclean: remove build/ entirely (tree, builds; ccache stays)
distclean:
	rm -rf $(BUILD)
