# suspend-sync: the kernel.suspend_sync series, its guest, and the lab.
#   make run     build what is missing, boot, measure, report
#   make check   the test suite (ends with "N passed, N failed, N skipped")
# KVER=6.1 picks the kernel tree; KERNEL=/path/to/bzImage tests your kernel.

KVER ?= 6.1
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
endif
SKIPSYNC_KERNEL := $(abspath $(B)/obj-$(KVER)-skipsync/arch/x86/boot/bzImage)

TOOLS := $(abspath $(GUEST)/tools.img)
GUEST_BINS := $(GUEST)/agent $(GUEST)/knobtest
GUEST_CFLAGS := -static -O2 -Wall -Wextra -Werror -Iproto

.PHONY: all deps kernel kernel-skipsync guest tools bench run powercut \
	powercut-bench evidence check clean

all: kernel guest tools bench

deps:
	@KVER=$(KVER) scripts/deps.sh all

kernel: deps
	@KVER=$(KVER) scripts/kernel.sh >/dev/null

kernel-skipsync: deps
	@KVER=$(KVER) scripts/kernel.sh --variant skipsync \
		--extra-config guest/skipsync.config >/dev/null

$(GUEST):
	mkdir -p $@

$(GUEST)/%: guest/agent/%.c proto/agent_proto.c proto/agent_proto.h proto/pattern.h | $(GUEST)
	$(CC) $(GUEST_CFLAGS) -o $@ $< proto/agent_proto.c

$(INITRD): guest/init guest/mkinitramfs.sh $(GUEST_BINS)
	guest/mkinitramfs.sh $@ $(GUEST_BINS)

guest: deps $(INITRD)

# fio and its libraries, on a read-only disk image (too big for the initramfs)
$(TOOLS): guest/mktools.sh | $(GUEST)
	guest/mktools.sh $@

tools: deps $(TOOLS)

bench: deps
	@$(MAKE) -s -C bench all

VMENV = KERNEL=$(KERNEL) INITRD=$(INITRD) TOOLS_DISK=$(TOOLS) $(if $(KEEP_LOGS),SLAB_LOGDIR=$(abspath results/logs))

# The main job: the default experiment (see README), files under results/.
LAB_ARGS ?=
run: deps bench guest tools $(KERNEL_DEP)
	@mkdir -p results
	bench/obj/suspend-lab --kernel $(KERNEL) --initrd $(INITRD) \
		--tools-disk $(TOOLS) --out results $(if $(KEEP_LOGS),--keep-logs) $(LAB_ARGS)

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

# The series' evidence: a fixed experiment (every profile, power cuts), its
# section written into the cover letter and the README (about 15 minutes)
evidence: deps bench guest tools $(KERNEL_DEP)
	time KVER=$(KVER) scripts/evidence.sh $(KERNEL) $(INITRD) $(TOOLS)

check: deps bench guest tools $(KERNEL_DEP) $(if $(KERNEL_DEP),kernel-skipsync)
	@scripts/run-tests.sh \
		"unit=$(MAKE) -s -C bench asan" \
		"series=KVER=$(KVER) scripts/t_series.sh" \
		"evidence=KVER=$(KVER) scripts/t_evidence.sh" \
		"$(if $(KERNEL_DEP),bisect=KVER=$(KVER) scripts/t_bisect.sh,bisect=echo 'ok 1 - every prefix of the series builds # SKIP KERNEL= given')" \
		"vm-knob=$(VMENV) bench/obj/t_vm_knob" \
		"vm-lab=$(VMENV) bench/obj/t_vm_lab" \
		"vm-powercut=$(VMENV) bench/obj/t_vm_powercut" \
		"$(if $(KERNEL_DEP),skipsync=KERNEL=$(SKIPSYNC_KERNEL) INITRD=$(INITRD) EXPECT_DEFAULT=0 KNOB_ONLY=1 bench/obj/t_vm_knob,skipsync=echo 'ok 1 - CONFIG_SUSPEND_SKIP_SYNC=y build # SKIP KERNEL= given: only our own build has the variant')"

clean:
	rm -rf $(B) results
	$(MAKE) -s -C bench clean
