# SPDX-License-Identifier: GPL-2.0
#
# slabpark: SLUB slab parking for Linux 7.3 -- bench, stress module, tests.
#
#   make run      build the patched kernel and the module, boot a 2-node
#                 guest, run the cross-node stress with parking off and on,
#                 print the comparison
#   make check    all tests (ShellCheck, checkpatch, host tests, build
#                 matrix, guest kselftests on patched and base kernels,
#                 debug gate)
#   make check-full   make check, and PREEMPT_RT and UMA kernels booted
#                 (kselftest, slub_kunit), slub_kunit on kernels with
#                 parking broken on purpose; run on every series change
#   make run HOST=1   the same comparison on this machine (a 2-socket box
#                 booted into the patched kernel), no VM; as root
#   make soak DURATION=600   randomized long run with invariant checks
#   make device-kit   the tarball (<= 60 MiB) that runs the comparison on a
#                 lent many-core machine without a package registry;
#                 DEVICE_KIT_TEST=1 also runs it here as a 2 x 2 guest
#   make          build the module against KDIR (a tester's own kernel)
#   make kernel   build the patched guest kernel, print its build directory
#   make clean    the module's build outputs
#
# The kernel module itself is described by Kbuild and mm/Kbuild.

KDIR ?= /lib/modules/$(shell uname -r)/build

# Knobs of 'make run' / 'make check', passed through the environment;
# their reference: make help (tools/slabpark/config.py).
export KSRC PATCHES RUNS DURATION_MS PLACEMENTS NODES CPUS_PER_NODE LOCKSTAT NO_SHEAVES \
	KVM SLABPARK_CACHE GUEST_TIMEOUT DURATION RESULTS_DIR CHECK_DEBUG DEBUG SWEEP MEASURE \
	HOST HOST_MODULE HOST_BASE_ONLY KDIR ALLOC_NODE FREE_NODE \
	BASE BOOTS WORKLOAD TASKS MIN_PARTIAL MODES FLUSH

.PHONY: all modules clean run check check-full soak kernel help device-kit

all modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi

run:
	@PYTHONPATH=tools python3 -m slabpark run

check:
	@PYTHONPATH=tools python3 -m slabpark check

check-full:
	@PYTHONPATH=tools python3 -m slabpark check --full

soak:
	@PYTHONPATH=tools python3 -m slabpark soak

device-kit:
	@PYTHONPATH=tools python3 -m slabpark device-kit $(if $(filter 1,$(DEVICE_KIT_TEST)),--test)

kernel:
	@tools/kernel/build-kernel.sh

help:
	@sed -n 's/^#   //p; s/^#                 /                /p' Makefile
	@PYTHONPATH=tools python3 -m slabpark run --help | sed -n '/^knobs/,$$p'

