# suspend-sync: the kernel.suspend_sync series, its guest, and the lab.
#   make run     build what is missing, boot, measure, report
#   make check   the test suite (ends with "N passed, N failed, N skipped")
# KVER=6.1 or KVER=6.12 picks the kernel tree (make check without KVER tests
# both); KERNEL=/path/to/bzImage tests your kernel.

# The trees are the folders of patches/.  A KVER without series, or a
# KERNEL= that is not a file, is refused here, before anything builds or
# reaches apt-get: one line, exit 2.
TREES := $(sort $(patsubst patches/%/,%,$(wildcard patches/*/)))
ifneq ($(origin KVER),undefined)
ifeq ($(strip $(KVER)),)
$(error KVER is empty: the trees are $(TREES))
endif
ifneq ($(filter-out $(TREES),$(KVER)),)
$(error KVER=$(KVER): no series for $(filter-out $(TREES),$(KVER)) (no patches/$(firstword $(filter-out $(TREES),$(KVER)))/); the trees are $(TREES))
endif
endif
# the targets that boot KERNEL
KERNEL_GOALS := run powercut powercut-bench crash crash-bench evidence \
	nomtime-bench check check-full
ifneq ($(origin KERNEL),undefined)
ifneq ($(filter $(KERNEL_GOALS),$(MAKECMDGOALS)),)
ifeq ($(wildcard $(KERNEL)),)
$(error KERNEL=$(KERNEL): no such file (give the bzImage to test))
endif
ifneq ($(wildcard $(KERNEL)/.),)
$(error KERNEL=$(KERNEL): a folder, not a bzImage)
endif
endif
endif
ifeq ($(origin KVER),undefined)
KVER := 6.1
CHECK_TREES := $(TREES)
else
CHECK_TREES := $(KVER)
endif
B := build
GUEST := $(B)/guest
INITRD := $(abspath $(GUEST)/initramfs.cpio.gz)
SHELL := /bin/bash

# Our kernel unless the caller names one.
ifeq ($(origin KERNEL),undefined)
KERNEL := $(abspath $(B)/obj-$(KVER)-default/arch/x86/boot/bzImage)
KERNEL_DEP := kernel
else
KERNEL := $(abspath $(KERNEL))
CHECK_TREES := $(KVER)
endif
SKIPSYNC_KERNEL := $(abspath $(B)/obj-$(KVER)-skipsync/arch/x86/boot/bzImage)

TOOLS := $(abspath $(GUEST)/tools.img)
GUEST_BINS := $(GUEST)/agent $(GUEST)/knobtest $(GUEST)/nomtimetest
GUEST_CFLAGS := -static -O2 -Wall -Wextra -Werror -Iproto

.PHONY: all deps kernel kernel-skipsync guest tools bench run powercut \
	powercut-bench evidence check check-full bench-check check-deps \
	check-kernels clean

all: kernel guest tools bench

deps:
	@KVER=$(KVER) scripts/deps.sh all

kernel: deps
	@KVER=$(KVER) scripts/kernel.sh >/dev/null

# Built from a copy of the default build: only what the option reaches.
# NO_BASE=1: the default build was just made (check-kernels); not again.
kernel-skipsync: $(if $(NO_BASE),deps,kernel)
	@KVER=$(KVER) scripts/kernel.sh --variant skipsync \
		--extra-config guest/skipsync.config >/dev/null

$(GUEST):
	mkdir -p $@

$(GUEST)/agent: $(wildcard guest/agent/*.c guest/agent/*.h) proto/agent_proto.c \
		proto/agent_proto.h proto/pattern.h | $(GUEST)
	$(CC) $(GUEST_CFLAGS) -o $@ $(filter %.c,$^)

# An in-guest test: every file in its folder, and the shared TAP helper.
define guest_test
$(GUEST)/$(1): $(wildcard guest/tests/$(1)/*.c guest/tests/$(1)/*.h) \
		guest/tests/gtap.c guest/tests/gtap.h | $(GUEST)
	$$(CC) $$(GUEST_CFLAGS) -Iguest/tests -o $$@ $$(filter %.c,$$^)
endef
$(foreach t,knobtest nomtimetest,$(eval $(call guest_test,$(t))))

$(INITRD): guest/init guest/mkinitramfs.sh $(GUEST_BINS)
	guest/mkinitramfs.sh $@ $(GUEST_BINS)

guest: deps $(INITRD)

# fio and its libraries, on a read-only disk image (too big for the initramfs)
$(TOOLS): guest/mktools.sh $(wildcard guest/workloads/*) | $(GUEST)
	guest/mktools.sh $@

tools: deps $(TOOLS)

bench: deps
	@$(MAKE) -s -C bench all

VMENV = KERNEL=$(KERNEL) INITRD=$(INITRD) TOOLS_DISK=$(TOOLS) $(if $(KEEP_LOGS),SLAB_LOGDIR=$(abspath results/logs))

# The main job: the default experiment (see README), files under results/.
# Every workload in both writeback modes, sync on and off, S3, eMMC; each
# part's time is printed.
RUN_ARGS ?= --state mem --workload all --writeback both --dirty 64M --cycles 2
LAB_ARGS ?=
run:
	@s=$$(date +%s); $(MAKE) -s deps bench guest tools $(KERNEL_DEP) || exit 1; \
	echo "# run: build what is missing $$(($$(date +%s) - s)) s"
	@mkdir -p results
	@s=$$(date +%s); bench/obj/suspend-lab --kernel $(KERNEL) --initrd $(INITRD) \
		--tools-disk $(TOOLS) --out results $(if $(KEEP_LOGS),--keep-logs) \
		$(RUN_ARGS) $(LAB_ARGS); rc=$$?; \
	echo "# run: the experiment $$(($$(date +%s) - s)) s"; exit $$rc

# Battery death: a quick look, and the benchmark (50 cuts per setting,
# cut points mixed; about 15 minutes)
PC_ARGS ?=
powercut: deps bench guest tools $(KERNEL_DEP)
	@mkdir -p results
	bench/obj/power-cut --kernel $(KERNEL) --initrd $(INITRD) \
		--tools-disk $(TOOLS) --out results $(PC_ARGS)

powercut-bench: deps bench guest tools $(KERNEL_DEP)
	@mkdir -p results/powercut-bench
	time bench/obj/power-cut --kernel $(KERNEL) --initrd $(INITRD) \
		--tools-disk $(TOOLS) --out results/powercut-bench --cycles 50 \
		--cut mix --size 8M $(PC_ARGS)

# Crash states (README "Crash states"): every write of a suspend cycle
# logged, the disk judged as it stood after each one; the benchmark takes
# one cycle per setting on the emmc profile, every write prefix included
.PHONY: crash crash-bench
CS_ARGS ?=
crash: deps bench guest tools $(KERNEL_DEP)
	@mkdir -p results
	bench/obj/crash-states all --kernel $(KERNEL) --initrd $(INITRD) \
		--tools-disk $(TOOLS) --out results $(CS_ARGS)

# every filesystem by default: each one's states per minute is printed
CRASH_FS ?= all
crash-bench: deps bench guest tools $(KERNEL_DEP)
	@mkdir -p results/crash-bench
	time bench/obj/crash-states all --kernel $(KERNEL) --initrd $(INITRD) \
		--tools-disk $(TOOLS) --out results/crash-bench --profile emmc \
		--sync both --cycles 1 --prefixes all --gap-states 4 --per-boot 24 \
		--fs $(CRASH_FS) $(CS_ARGS)

# The series' evidence: a fixed experiment (every profile, power cuts), its
# section written into the cover letter and the README (6.12 without
# the other filesystems: about 30 minutes; 6.1 with them: about 50)
# The README's tree measures the other filesystems too (EVIDENCE_FS).
EVIDENCE_FS ?= $(if $(filter 6.1,$(KVER)),xfs btrfs f2fs)
evidence: deps bench guest tools $(KERNEL_DEP)
	time KVER=$(KVER) EVIDENCE_FS="$(EVIDENCE_FS)" scripts/evidence.sh $(KERNEL) $(INITRD) $(TOOLS)

# O_NOMTIME, the seed's claim measured: device requests and latency per
# O_DIRECT overwrite + fsync, fdatasync or syncfs, with and without the flag, on the
# emmc profile (about 4 minutes; table also in results/nomtime-bench.txt)
NOMTIME_ARGS ?=
.PHONY: nomtime-bench
nomtime-bench: deps bench guest $(KERNEL_DEP)
	@mkdir -p results
	@set -o pipefail; bench/obj/nomtime-bench --kernel $(KERNEL) --initrd $(INITRD) \
		$(NOMTIME_ARGS) | tee results/nomtime-bench.txt

# The test groups; $(1) is the tree.  With KERNEL= only the kernel given is
# booted, and the checks that need our own builds are skipped.
tree_kernel = $(if $(KERNEL_DEP),$(abspath $(B)/obj-$(1)-default/arch/x86/boot/bzImage),$(KERNEL))
tree_vmenv = KERNEL=$(call tree_kernel,$(1)) INITRD=$(INITRD) TOOLS_DISK=$(TOOLS) $(if $(KEEP_LOGS),SLAB_LOGDIR=$(abspath results/logs))
skip = printf 'TAP version 13\nok 1 - %s \# SKIP %s\n1..1\n' $(1) $(2)
# The series and the knob: every tree, in make check.
define series_groups
	"$(1)/series=KVER=$(1) scripts/t_series.sh" \
	"$(1)/sign-series=KVER=$(1) scripts/t_sign_series.sh" \
	"$(1)/evidence=KVER=$(1) scripts/t_evidence.sh" \
	"$(if $(KERNEL_DEP),$(1)/kernel=KVER=$(1) scripts/t_kernel.sh,$(1)/kernel=$(call skip,'variant configs','KERNEL= given'))" \
	"$(1)/vm-knob=$(call tree_vmenv,$(1)) bench/obj/t_vm_knob" \
	"$(if $(KERNEL_DEP),$(1)/skipsync=KERNEL=$(abspath $(B)/obj-$(1)-skipsync/arch/x86/boot/bzImage) INITRD=$(INITRD) EXPECT_DEFAULT=0 KNOB_ONLY=1 bench/obj/t_vm_knob,$(1)/skipsync=$(call skip,'CONFIG_SUSPEND_SKIP_SYNC=y build','KERNEL= given: only our own build has the variant'))" \
	"$(1)/vm-nomtime=$(call tree_vmenv,$(1)) bench/obj/t_vm_nomtime"
endef
# Bisection: a near-full rebuild per patch to a widely included header, so
# only with BISECT=1 (CI) or in check-full.
define bisect_group
	"$(if $(KERNEL_DEP),$(1)/bisect=KVER=$(1) $(if $(FULL),BISECT_FULL=1) scripts/t_bisect.sh,$(1)/bisect=$(call skip,'every prefix of the series builds','KERNEL= given'))"
endef
# The lab on a real guest: one tree in make check, every tree in check-full.
define lab_groups
	"$(1)/vm-lab=$(call tree_vmenv,$(1)) bench/obj/t_vm_lab" \
	"$(1)/vm-powercut=$(call tree_vmenv,$(1)) PC_MEM_CUTS=$(PC_MEM_CUTS) bench/obj/t_vm_powercut" \
	"$(1)/vm-drive=$(call tree_vmenv,$(1)) bench/obj/t_vm_drive" \
	"$(1)/vm-crash=$(call tree_vmenv,$(1)) bench/obj/t_vm_crash" \
	"$(1)/vm-agent=$(call tree_vmenv,$(1)) bench/obj/t_vm_agent" \
	"$(1)/vm-fs=$(call tree_vmenv,$(1)) bench/obj/t_vm_fs" \
	"$(1)/nomtime-bench=$(call tree_vmenv,$(1)) scripts/t_nomtime_bench.sh"
endef
# Repeated mem cuts with sync=1 in vm-powercut: 5 in make check, 10 in
# check-full (vm-crash judges every crash state of such a suspend anyway).
PC_MEM_CUTS ?= $(if $(FULL),10,5)
# The tree whose lab make check runs (check-full runs every tree's).
LAB_TREE ?= $(firstword $(CHECK_TREES))
LAB_TREES = $(if $(FULL),$(CHECK_TREES),$(LAB_TREE))

check-deps:
	@KVER="$(CHECK_TREES)" scripts/deps.sh all

# Both variants of every tree under test, before any test runs; the time
# of each build is printed.
check-kernels: check-deps
	@$(if $(KERNEL_DEP),set -e; for t in $(CHECK_TREES); do \
		for v in kernel kernel-skipsync; do s=$$(date +%s); \
		$(MAKE) -s KVER=$$t NO_BASE=1 $$v; \
		echo "# build $$t $$v: $$(($$(date +%s) - s)) s"; done; done,:)

# make -n runs a recipe line that names $(MAKE), as the unit group's does
# (it gets make's jobserver that way); under -n the line is a no-op ":"
# that make prints, so the suite does not start.
DRY_RUN = $(findstring n,$(firstword -$(MAKEFLAGS)))
check: check-deps bench guest tools check-kernels
	@$(if $(DRY_RUN),: )scripts/run-tests.sh \
		"runner=scripts/t_runtests.sh" \
		"makefile=scripts/t_sign_make.sh" \
		"unit=$(MAKE) -s -C bench asan" \
		$(foreach t,$(CHECK_TREES),$(call series_groups,$(t))) \
		$(foreach t,$(LAB_TREES),$(call lab_groups,$(t))) \
		$(if $(BISECT)$(FULL),$(foreach t,$(CHECK_TREES),$(call bisect_group,$(t))))

# Everything, every tree (the bisection and the lab groups of each tree too).
check-full:
	@$(MAKE) --no-print-directory check FULL=1

# Both series of every tree regenerated under your git identity (author,
# From:, Signed-off-by:); run before posting them.
.PHONY: sign-series
sign-series: deps
	scripts/sign-series.sh $(if $(filter command line,$(origin KVER)),$(KVER))

# A fresh clone's make check and a warm rerun, timed phase by phase.
bench-check:
	scripts/bench-check.sh

clean:
	rm -rf $(B) results
	$(MAKE) -s -C bench clean
