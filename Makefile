# mmubench: one boot image per board.
#   make                  all boards
#   make BOARD=<name>     one board into build/<name>/
#   make BOARD=sandbox    build/sandbox/mmubench: the probes as a Linux program
#   make tools            host programs into build/tools/
#   make run              the probe suite in QEMU on ref405ep, ppce500 and pc, and the sandbox
#   make run ARGS='quick' the same with these boot arguments (tools/run-suite)
#   make seed-compare     after make run: the seed's LMbench table beside its PowerPC logs
#   make check            the benchmarks (figures), then the test suite (selftest/)
#   make help             this list
#   V=1                   show the commands

BOARDS	:= walnut ref405ep pc ppce500
# Not in `all` (its own target below): the host program.
SANDBOX_BOARDS := sandbox
BUILD	:= build
# Debian's Python, which has Debian's pytest (python3-pytest), whatever
# other python3 comes first on PATH.
PYTHON	:= /usr/bin/python3

ifeq ($(V),1)
Q :=
else
Q := @
endif

.PHONY: all tools shims fuzz objects run seed-compare check clean probe-check bootscr netboot help $(BOARDS) sandbox

ifeq ($(BOARD),)

# One board at a time (each still builds in parallel under -j): boards of
# one CPU share a newlib build (build/newlib/<arch>), which two sub-makes
# would unpack into at once.
.NOTPARALLEL:
all: $(BOARDS)
$(BOARDS) sandbox:
	$(Q)$(MAKE) --no-print-directory BOARD=$@

else

ifeq ($(wildcard board/$(BOARD)/board.mk),)
$(error unknown BOARD '$(BOARD)'; boards: $(BOARDS) $(SANDBOX_BOARDS))
endif
include board/$(BOARD)/board.mk
include arch/$(ARCH)/arch.mk

CC	:= $(CROSS)gcc
LD	:= $(CROSS)ld
OBJCOPY	:= $(CROSS)objcopy
SIZE	:= $(CROSS)size

OUT	:= $(BUILD)/$(BOARD)
BOOTSCR	?= $(OUT)/boot.scr.uimg
NEWLIB	:= $(BUILD)/newlib/$(NEWLIB_ARCH)
LIBGCC	:= $(shell $(CC) $(ARCH_CFLAGS) -print-libgcc-file-name)

ifeq ($(HOSTED),1)
# The sandbox (arch/sandbox): the host's compiler and C library, no newlib,
# no image.  boot/syscalls.c is newlib's system calls: glibc has its own.
NEWLIB_DONE :=
CFLAGS	:= -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -Wmissing-prototypes -fno-common \
	   $(ARCH_CFLAGS) -Iinclude
BOOT_SRCS := $(filter-out boot/syscalls.c boot/user_prog.c,$(wildcard boot/*.c))
else
NEWLIB_DONE := $(NEWLIB)/.done
BOOT_SRCS := $(wildcard boot/*.c)
CFLAGS	:= -std=gnu11 -Os -g -Wall -Wextra -Wno-unused-parameter -Wmissing-prototypes -ffreestanding \
	   -fno-common -ffunction-sections -fdata-sections -fno-builtin-printf \
	   $(ARCH_CFLAGS) -nostdinc -isystem $(NEWLIB)/$(NEWLIB_TRIPLET)/include \
	   -isystem $(shell $(CC) $(ARCH_CFLAGS) -print-file-name=include) -Iinclude
endif
# lib/: what the image shares with the host tools.  The host's alone:
# sort_double.c (the image has no floating point), and the reading half of
# the result format (result_parse.c, linecheck.c: messages on stderr).
LIB_HOST_SRCS := lib/sort_double.c lib/result_parse.c lib/linecheck.c
LIB_SRCS := $(filter-out $(LIB_HOST_SRCS),$(wildcard lib/*.c))
# Probes see include/ alone; everything else also its arch's and boards' headers.
IMAGE_INC := -Iarch/$(ARCH) -Iboard/common -I$(OUT)
LDFLAGS	:= $(ARCH_LDFLAGS) -nostdlib -z noexecstack --no-warn-rwx-segments -T $(LDSCRIPT) --gc-sections -Map $(OUT)/mmubench.map

SRCS	:= $(BOOT_SRCS) $(LIB_SRCS) $(ARCH_SRCS) $(wildcard board/$(BOARD)/*.c) \
	   $(addprefix board/common/,$(BOARD_COMMON)) $(wildcard tests/*.c)
OBJS	:= $(patsubst %,$(OUT)/obj/%.o,$(basename $(SRCS)))
VERSION	:= $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)

ifeq ($(HOSTED),1)
all: $(OUT)/mmubench $(OUT)/hello

$(OUT)/mmubench: $(OBJS)
	@[ -n "$(Q)" ] && echo "  LD      $@" || true
	$(Q)$(CC) $(ARCH_LDFLAGS) -o $@ $(OBJS)

# The program the exec figure runs (arch/sandbox/os_proc.c): static, as
# small a process as Linux makes.
$(OUT)/hello: arch/sandbox/hello/hello.c
	@[ -n "$(Q)" ] && echo "  CC      $@" || true
	$(Q)$(CC) -static -O2 -Wall -o $@ $<
else
all: $(OUT)/mmubench.elf $(OUT)/mmubench.bin $(OUT)/mmubench.uimg $(BOOTSCR)
endif

$(NEWLIB)/.done: tools/build-newlib
	$(Q)tools/build-newlib $(NEWLIB_ARCH) $(NEWLIB)

# Rewritten only when the version changes, so objects do not rebuild.
$(OUT)/version.h: FORCE
	$(Q)mkdir -p $(OUT)
	$(Q)echo '#define MMUBENCH_VERSION "$(VERSION)"' > $@.tmp
	$(Q)cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

# A probe includes only the probes' headers of include/ (or the C
# library's): -Iinclude alone would still let "../arch/x.h" or the boot
# layer's headers through, so the names are checked too.
PROBE_HEADERS := probe.h mmu.h args.h guess.h sort.h proc.h mark.h
PROBE_INCLUDES = bad=$$(sed -n 's/^[[:space:]]*\#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' $(1) | \
		 while read h; do case " $(PROBE_HEADERS) " in *" $$h "*) ;; *) echo "$$h" ;; esac; done); \
	[ -z "$$bad" ] || { echo "$(1): includes $$bad: a probe sees only include/{$(PROBE_HEADERS)} of the headers here" >&2; exit 1; }

# Size matters for the image (64 KiB target), speed only in the probes.
$(OUT)/obj/tests/%.o: tests/%.c $(NEWLIB_DONE)
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo "  CC      $<" || true
	$(Q)$(call PROBE_INCLUDES,$<)
	$(Q)$(CC) $(CFLAGS) -O2 -MMD -MP -c $< -o $@

# make BOARD=<name> probe-check PROBE=file.c: compile one probe as tests/ is.
probe-check: $(NEWLIB_DONE)
	$(Q)$(call PROBE_INCLUDES,$(PROBE))
	$(Q)$(CC) $(CFLAGS) -O2 -c $(PROBE) -o /dev/null

# The user program runs wherever a process's text lands: position-
# independent, nothing the kernel's image would have to relocate (any
# relocation left in the object fails the build), no library call.
USER_PROG_CFLAGS := -O2 -fPIC -fno-jump-tables -fno-builtin -fno-tree-loop-distribute-patterns \
		    -fno-stack-protector -fno-asynchronous-unwind-tables
$(OUT)/obj/boot/user_prog.o: boot/user_prog.c $(NEWLIB_DONE)
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo "  CC      $< (user, PIC)" || true
	$(Q)$(CC) $(CFLAGS) $(USER_PROG_CFLAGS) $(IMAGE_INC) -MMD -MP -c $< -o $@
	$(Q)bad=$$($(CROSS)objdump -r $@ | grep '^RELOCATION RECORDS FOR' | grep -v '\.debug'; \
		$(CROSS)objdump -h $@ | awk '/^ *[0-9]+ /{n=$$2; s=$$3} /ALLOC/ && n != ".user_code.prog" \
		&& s !~ /^0+$$/ {print "section " n}'); \
	[ -z "$$bad" ] || { echo "$<: $$bad: the user program must be one relocation-free section" >&2; \
		rm -f $@; exit 1; }

$(OUT)/obj/%.o: %.c $(NEWLIB_DONE) $(OUT)/version.h
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo "  CC      $<" || true
	$(Q)$(CC) $(CFLAGS) $(IMAGE_INC) -MMD -MP -c $< -o $@

$(OUT)/obj/%.o: %.S $(NEWLIB_DONE)
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo "  AS      $<" || true
	$(Q)$(CC) $(CFLAGS) $(IMAGE_INC) -D__ASSEMBLY__ -MMD -MP -c $< -o $@

$(OUT)/mmubench.elf: $(OBJS) $(LDSCRIPT)
	@[ -n "$(Q)" ] && echo "  LD      $@" || true
	$(Q)$(LD) $(LDFLAGS) -o $@ $(OBJS) -L$(NEWLIB)/$(NEWLIB_TRIPLET)/lib \
		--start-group -lc -lm $(LIBGCC) --end-group
	@$(SIZE) $@ | awk 'NR==2 { printf "  SIZE    %s: text+data %d bytes (bss %d)\n", "$@", $$1+$$2, $$3 }'

$(OUT)/mmubench.bin: $(OUT)/mmubench.elf
	$(Q)$(OBJCOPY) -O binary -j .text -j .rodata -j .data $< $@

# Legacy uImage for U-Boot bootm; on ppc a "kernel", so bootm passes the
# bd_t in r3 and bootargs in r6/r7.
$(OUT)/mmubench.uimg: $(OUT)/mmubench.bin
	$(Q)addr=$$($(CROSS)nm $(OUT)/mmubench.elf | awk '$$3=="__image_start"{print $$1}'); \
	mkimage -A $(MKIMAGE_ARCH) -O linux -T kernel -C none -a 0x$$addr -e 0x$$addr \
		-n "mmubench $(VERSION) $(BOARD)" -d $< $@ >/dev/null

# The boot script: board/<name>/boot.cmd with the board's values filled in
# and comments dropped (U-Boot 1.x's autoscr has no comments), as a U-Boot
# script image.  BOOTARGS overrides the board's boot arguments, BOOTSCR the
# output (the tests build scripts of their own with it).
IMAGE_START = 0x$$($(CROSS)nm $(OUT)/mmubench.elf | awk '$$3=="__image_start"{print $$1}')
bootscr: $(BOOTSCR)
$(BOOTSCR): board/$(BOARD)/boot.cmd $(BOOTSCR).args $(OUT)/mmubench.uimg
	$(Q)size=$$(stat -c %s $(OUT)/mmubench.uimg); [ $$size -le $$(($(LOAD_WINDOW))) ] || \
		{ echo "$(OUT)/mmubench.uimg: $$size bytes, more than $(BOARD)'s load window $(LOAD_WINDOW)" >&2; exit 1; }
	$(Q)start=$(IMAGE_START); sed -e '/^[[:space:]]*#/d' -e 's|@BOOTARGS@|$(BOOTARGS)|g' \
		-e 's|@BOARD@|$(BOARD)|g' -e 's|@VERSION@|$(VERSION)|g' -e 's|@UIMG_LOAD@|$(UIMG_LOAD)|g' \
		-e 's|@UIMG_DATA@|'$$(printf 0x%08x $$(($(UIMG_LOAD) + 64)))'|g' \
		-e 's|@LOAD_WINDOW@|$(LOAD_WINDOW)|g' -e "s|@IMAGE_START@|$$start|g" $< > $(BOOTSCR:.uimg=.cmd)
	$(Q)mkimage -A $(MKIMAGE_ARCH) -O linux -T script -C none -n "mmubench $(BOARD) boot script" \
		-d $(BOOTSCR:.uimg=.cmd) $@ >/dev/null
# make BOARD=<name> netboot: a TFTP root in NETDIR (default build/<name>/tftp)
# with the images, the boot script and, for PCs, the PXE files: iPXE's
# boot.ipxe, and PXELINUX with mboot.c32 (Debian's pxelinux, syslinux-common).
NETDIR	?= $(OUT)/tftp
SYSLINUX := /usr/lib/PXELINUX/pxelinux.0 $(addprefix /usr/lib/syslinux/modules/bios/,ldlinux.c32 libcom32.c32 mboot.c32)
FILL	= sed -e 's|@BOOTARGS@|$(BOOTARGS)|g' -e 's|@PXE_BOOTARGS@|$(PXE_BOOTARGS)|g' \
	      -e 's|@BOARD@|$(BOARD)|g' -e 's|@VERSION@|$(VERSION)|g'
# Only the images: BOOTARGS given here changes NETDIR's script, not $(OUT)'s.
netboot: $(OUT)/mmubench.elf $(OUT)/mmubench.bin $(OUT)/mmubench.uimg
	$(Q)mkdir -p $(NETDIR)
	$(Q)cp $(OUT)/mmubench.uimg $(OUT)/mmubench.elf $(OUT)/mmubench.bin $(NETDIR)/
	$(Q)$(MAKE) --no-print-directory BOOTSCR=$(abspath $(NETDIR))/boot.scr.uimg bootscr
	$(Q)if [ -f board/$(BOARD)/boot.ipxe ]; then \
		$(FILL) board/$(BOARD)/boot.ipxe > $(NETDIR)/boot.ipxe || exit 1; \
		for f in $(SYSLINUX); do [ -r $$f ] || { echo "$$f missing (tools/install-deps)" >&2; exit 1; }; done; \
		cp $(SYSLINUX) $(NETDIR)/ && mkdir -p $(NETDIR)/pxelinux.cfg && \
		$(FILL) board/$(BOARD)/pxelinux.cfg > $(NETDIR)/pxelinux.cfg/default; \
	fi

# Rewritten only when the boot arguments change, so the script is remade then.
$(BOOTSCR).args: FORCE
	$(Q)mkdir -p $(dir $@)
	$(Q)echo '$(BOOTARGS)' > $@.tmp
	$(Q)cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

# The objects, for the fuzz target that links the sandbox's (make fuzz).
objects:
	@echo $(OBJS)

-include $(OBJS:.o=.d)

endif

FORCE:

tools: $(BUILD)/tools/logcheck $(BUILD)/tools/console $(BUILD)/tools/mmuguess $(BUILD)/tools/cachesim \
	$(BUILD)/tools/pagechase $(BUILD)/tools/mmureport $(BUILD)/tools/cpuiddecode \
	$(BUILD)/tools/mmuplugin.so $(BUILD)/tools/pagetrace.so $(BUILD)/tools/cachetest $(BUILD)/tools/plugintest

# Host programs.  The result format is lib/'s (include/result_line.h): the
# line check (linecheck.c) and the parser (result_parse.c) the tools share,
# the writer (result_line.c) the image's.
HOST_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Wmissing-prototypes -Iinclude -Itools
LINE_SRCS := lib/linecheck.c lib/result_parse.c lib/result_line.c lib/crc32.c
LINE_HDRS := include/linecheck.h include/result_line.h include/crc32.h
$(BUILD)/tools/%: tools/%.c $(LINE_SRCS) $(LINE_HDRS)
	@mkdir -p $(dir $@)
	$(Q)cc $(HOST_CFLAGS) -o $@ $< $(LINE_SRCS) -lm

# The step detection is the image's own (lib/guess.c), as crc32.c is.
$(BUILD)/tools/mmuguess: tools/mmuguess.c lib/guess.c lib/sort.c include/guess.h $(LINE_SRCS) $(LINE_HDRS)
	@mkdir -p $(dir $@)
	$(Q)cc $(HOST_CFLAGS) -o $@ tools/mmuguess.c lib/guess.c lib/sort.c $(LINE_SRCS) -lm

# cachesim: lat_mem's chase through simulated caches (selftest/test_levels.py).
$(BUILD)/tools/cachesim: tools/cachesim.c
	@mkdir -p $(dir $@)
	$(Q)cc $(HOST_CFLAGS) -o $@ tools/cachesim.c -lm

# mmureport: tools/mmureport (Python: CSV, JSON, plots, the page, from the
# model) over mmureport-core (C: the line check and parser (LINE_SRCS), the
# step detection (guess.c) and the tables' columns (table_defs.c) that
# logcheck and the image use).
REPORT_SRCS := tools/mmureport_core.c tools/report_parse.c tools/report_mmubench.c tools/report_lmbench.c \
	tools/report_stats.c tools/report_tables.c tools/report_data.c tools/report_sides.c \
	tools/report_compare.c tools/report_lava.c tools/report_lmbench2.c tools/report_lmbench2_text.c \
	tools/report_lmbench2_out.c tools/report_lmbench2_cmp.c $(LINE_SRCS) lib/guess.c lib/table_defs.c \
	lib/sort.c lib/sort_double.c
$(BUILD)/tools/mmureport-core: $(REPORT_SRCS) tools/mmureport.h tools/report_read.h tools/report_lmbench2.h \
		$(LINE_HDRS) include/guess.h include/table_defs.h
	@mkdir -p $(dir $@)
	$(Q)cc $(HOST_CFLAGS) -Wno-format-truncation -o $@ $(REPORT_SRCS) -lm
$(BUILD)/tools/mmureport: tools/mmureport $(BUILD)/tools/mmureport-core
	@mkdir -p $(dir $@)
	$(Q)ln -sf ../../tools/mmureport $@

# make fuzz: libFuzzer targets (Debian's clang; libclang-rt-14-dev) under ASan
# and UBSan: mmureport's log parser, and the image's boot arguments with the
# real tables (tools/fuzz/fuzz_args.c).
FUZZ_CFLAGS := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-Iinclude -Itools
fuzz: $(BUILD)/fuzz/fuzz_report $(BUILD)/fuzz/fuzz_args
$(BUILD)/fuzz/fuzz_report: tools/fuzz/fuzz_report.c $(filter-out tools/mmureport_core.c,$(REPORT_SRCS)) \
		tools/mmureport.h tools/report_lmbench2.h $(LINE_HDRS)
	@mkdir -p $(dir $@)
	$(Q)clang $(FUZZ_CFLAGS) -o $@ tools/fuzz/fuzz_report.c $(filter-out tools/mmureport_core.c,$(REPORT_SRCS)) -lm
# fuzz_args: boot/args.c and boot/args_linux.c built for fuzzing, linked with
# the rest of the sandbox program (BOARD=sandbox: every table the parser
# reads, the sandbox's arch and modes); its main renamed, libFuzzer's runs,
# and its malloc (heap.c) left out for ASan's.  The one host build that
# names boot/ files.
FUZZ_ARGS_SRCS := tools/fuzz/fuzz_args.c boot/args.c boot/args_linux.c
FUZZ_NOT_LINKED := $(addprefix $(BUILD)/sandbox/obj/,boot/args.o boot/args_linux.o \
	arch/sandbox/entry.o arch/sandbox/heap.o)
$(BUILD)/fuzz/fuzz_args: $(FUZZ_ARGS_SRCS) include/args.h include/config.h sandbox
	@mkdir -p $(dir $@)
	$(Q)objcopy --redefine-sym main=sandbox_main $(BUILD)/sandbox/obj/arch/sandbox/entry.o \
		$(BUILD)/fuzz/sandbox_entry.o
	$(Q)objs=$$($(MAKE) -s --no-print-directory BOARD=sandbox objects) && \
	clang $(FUZZ_CFLAGS) -Iarch/sandbox -no-pie -o $@ $(FUZZ_ARGS_SRCS) $(BUILD)/fuzz/sandbox_entry.o \
		$$(for o in $$objs; do case " $(FUZZ_NOT_LINKED) " in *" $$o "*) ;; *) echo $$o ;; esac; done)

# cpuiddecode: the image's CPUID decoder (arch/x86/cpuid*.c) on recorded
# registers, for selftest/test_cpuid.py.
CPUID_SRCS := arch/x86/cpuid.c arch/x86/cpuid_leaf2.c arch/x86/cpuid_report.c
$(BUILD)/tools/cpuiddecode: tools/cpuiddecode.c $(CPUID_SRCS) arch/x86/cpuid.h include/report.h
	@mkdir -p $(dir $@)
	$(Q)cc $(HOST_CFLAGS) -o $@ tools/cpuiddecode.c $(CPUID_SRCS)

# mmuplugin.so: the QEMU TCG plugin that models the 405GP's caches, shadow
# TLBs and cycles (doc/modelled-time.md).  Hidden symbols: QEMU's own
# (its cache_init) would otherwise bind in place of the plugin's.
# cachetest drives its cache model, plugintest its install() (test_plugin.py).
PLUGIN_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Wno-unused-parameter -Wmissing-prototypes -Itools/plugin
PLUGIN_HDRS := tools/plugin/cache.h tools/plugin/qemu_plugin_api.h
$(BUILD)/tools/mmuplugin.so: tools/plugin/mmuplugin.c tools/plugin/cache.c $(PLUGIN_HDRS)
	@mkdir -p $(dir $@)
	$(Q)cc $(PLUGIN_CFLAGS) -shared -fPIC -fvisibility=hidden -o $@ tools/plugin/mmuplugin.c tools/plugin/cache.c
# pagetrace.so: a stretch of the address stream, for tests that replay it
# through a TLB model (test_proc_pagefault.py).
$(BUILD)/tools/pagetrace.so: tools/plugin/pagetrace.c tools/plugin/qemu_plugin_api.h
	@mkdir -p $(dir $@)
	$(Q)cc $(PLUGIN_CFLAGS) -shared -fPIC -fvisibility=hidden -o $@ tools/plugin/pagetrace.c
$(BUILD)/tools/cachetest: tools/plugin/cachetest.c tools/plugin/cache.c $(PLUGIN_HDRS)
	@mkdir -p $(dir $@)
	$(Q)cc $(PLUGIN_CFLAGS) -o $@ tools/plugin/cachetest.c tools/plugin/cache.c
$(BUILD)/tools/plugintest: tools/plugin/plugintest.c $(PLUGIN_HDRS)
	@mkdir -p $(dir $@)
	$(Q)cc $(PLUGIN_CFLAGS) -rdynamic -o $@ tools/plugin/plugintest.c -ldl

$(BUILD)/tools/pagechase: tools/pagechase.c
	@mkdir -p $(dir $@)
	$(Q)cc -std=gnu11 -O2 -Wall -Wextra -Wmissing-prototypes -o $@ tools/pagechase.c

# make shims: the tests' stand-ins (selftest/shims/), not the product.  The
# 405 loader, a firmware that U-Boot-boots the image on QEMU's ref405ep
# (target C, linked where QEMU -kernel loads it); the e500 stand-in for a
# Freescale U-Boot on QEMU's ppce500; and arch code built for the host to
# run on given registers (the 405GP's clocks, CPUID's TSC leaves).
SHIMS := $(addprefix $(BUILD)/shims/,ppc405-loader.elf e500-uboot.elf ppc405-clocks-host i386-tsc-host \
	plugin-guest.elf plugin-guest-e500.elf)
shims: $(SHIMS)

SHIM_405_CFLAGS := -mcpu=405 -msoft-float -O2 -Wall -ffreestanding -fno-pic -mno-relocatable
SHIM_405_OBJS := $(BUILD)/shims/obj/ppc405-loader.o $(BUILD)/shims/obj/ppc405-firmware.o
$(SHIM_405_OBJS): $(BUILD)/shims/obj/%.o: selftest/shims/%.c
	@mkdir -p $(dir $@)
	$(Q)powerpc-linux-gnu-gcc $(SHIM_405_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/shims/ppc405-loader.elf: $(SHIM_405_OBJS)
	$(Q)powerpc-linux-gnu-gcc $(SHIM_405_CFLAGS) -nostdlib -static -Wl,-Ttext=0x100000 -Wl,-e,_start \
		-Wl,--build-id=none -o $@ $(SHIM_405_OBJS)

# A guest of hand-known accesses for the 405GP model (test_plugin.py).
$(BUILD)/shims/plugin-guest.elf: selftest/shims/plugin-guest.S
	@mkdir -p $(dir $@)
	$(Q)powerpc-linux-gnu-gcc -mcpu=405 -nostdlib -static -Wl,-Ttext=0x100000 -Wl,-e,_start \
		-Wl,--build-id=none -o $@ $<
# The same for the e500v2 model (test_plugin_e500.py).
$(BUILD)/shims/plugin-guest-e500.elf: selftest/shims/plugin-guest-e500.S
	@mkdir -p $(dir $@)
	$(Q)powerpc-linux-gnu-gcc -mcpu=8548 -nostdlib -static -Wl,-Ttext=0x100000 -Wl,-e,_start \
		-Wl,--build-id=none -o $@ $<

# The e500 stand-in at 80 MiB: QEMU's own boot puts its device tree 24 MiB
# past the ELF's end, which must stay inside the default 128 MiB.
SHIM_E500_CFLAGS := -mcpu=8548 -msoft-float -O2 -Wall -ffreestanding -fno-pic -mno-relocatable
SHIM_E500_OBJS := $(BUILD)/shims/obj/e500-uboot.o $(BUILD)/shims/obj/e500-uboot-asm.o
$(BUILD)/shims/obj/e500-uboot.o: selftest/shims/e500-uboot.c
	@mkdir -p $(dir $@)
	$(Q)powerpc-linux-gnu-gcc $(SHIM_E500_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/shims/obj/e500-uboot-asm.o: selftest/shims/e500-uboot.S
	@mkdir -p $(dir $@)
	$(Q)powerpc-linux-gnu-gcc $(SHIM_E500_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/shims/e500-uboot.elf: $(SHIM_E500_OBJS)
	$(Q)powerpc-linux-gnu-gcc $(SHIM_E500_CFLAGS) -nostdlib -static -Wl,-Ttext=0x05000000 -Wl,-e,_start \
		-Wl,--build-id=none -o $@ $(SHIM_E500_OBJS)

# Host shims: one source each (its .d named after the program), the arch
# file beside it an object of its own.
SHIM_HOST_CFLAGS := -std=gnu11 -Wall -Werror -O1 -Iinclude
$(BUILD)/shims/ppc405-clocks-host: selftest/shims/ppc405-clocks-host.c
	@mkdir -p $(dir $@)
	$(Q)cc $(SHIM_HOST_CFLAGS) -Iarch/ppc405 -MMD -MP -o $@ $<
$(BUILD)/shims/obj/host-tsc_cpuid.o: arch/i386/tsc_cpuid.c
	@mkdir -p $(dir $@)
	$(Q)cc $(SHIM_HOST_CFLAGS) -Iarch/i386 -MMD -MP -c $< -o $@
$(BUILD)/shims/i386-tsc-host: selftest/shims/i386-tsc-host.c $(BUILD)/shims/obj/host-tsc_cpuid.o
	$(Q)cc $(SHIM_HOST_CFLAGS) -Iarch/i386 -MMD -MP -o $@ $^

-include $(wildcard $(BUILD)/shims/*.d $(BUILD)/shims/obj/*.d)

# ARGS: boot arguments for every run of the suite (tools/run-suite).
# MODEL=1: then ref405ep and ppce500 under the modelled-time plugin and the seed's ratio
# table in modelled time (doc/modelled-time.md).
# run: the build's lines in build/logs/build.txt (on the console with V=1,
# and its last lines when it fails): a person reads the suite's.
RUN_BUILD_LOG := $(if $(filter 1,$(V)),,> $(BUILD)/logs/build.txt 2>&1)
run:
	$(Q)tools/install-deps
	$(Q)mkdir -p $(BUILD)/logs && $(MAKE) --no-print-directory all sandbox tools $(RUN_BUILD_LOG) || \
		{ tail -30 $(BUILD)/logs/build.txt; echo "make run: the build failed: $(BUILD)/logs/build.txt"; exit 1; }
	$(Q)tools/run-suite$(if $(filter 1,$(MODEL)), --model) $(ARGS)

# seed-compare: the seed's LMbench 2.0 summary (a Walnut under the kernels
# 2pintlb, largepte, nopintlb) beside make run's PowerPC logs, each board's
# mode ratios beside the seed's kernels' with the kernel-page TLB misses
# (doc/mmureport.md, --lmbench).  SEED_LOGS='...': other logs of these boards.
SEED	:= selftest/data/lmbench/walnut-2pintlb-largepte-nopintlb-32M.txt
SEED_BOARDS := ref405ep ppce500
SEED_LOGS := $(SEED_BOARDS:%=$(BUILD)/logs/%.log)
seed-compare: tools
	$(Q)$(BUILD)/tools/mmureport --lmbench $(SEED) $(SEED_LOGS) \
		$(foreach b,$(SEED_BOARDS),--compare $(b):normal/$(b):pinned nopintlb/2pintlb \
		--compare $(b):largepte/$(b):pinned lmbench:largepte/2pintlb)

check:
	$(Q)tools/install-deps
	$(Q)$(MAKE) --no-print-directory all sandbox tools
	$(Q)tools/bench
	$(Q)$(PYTHON) -m pytest -q -rs --durations=15 selftest

help:
	@echo 'usage: make [target] [VARIABLE=value]...'
	@echo 'Targets:'
	@echo '  all (default)   every board: build/<board>/mmubench.{elf,bin,uimg}, boot.scr.uimg'
	@echo '  walnut ref405ep pc ppce500 sandbox   one board (the same as BOARD=<name>)'
	@echo '  tools           host programs: build/tools/{logcheck,console,mmuguess,cachesim,pagechase,mmureport,cpuiddecode,mmuplugin.so,pagetrace.so,cachetest,plugintest}'
	@echo '  fuzz            libFuzzer targets: build/fuzz/{fuzz_report,fuzz_args} (clang)'
	@echo '  shims           the tests'"'"' stand-ins (selftest/shims/): build/shims/{ppc405-loader.elf,e500-uboot.elf,ppc405-clocks-host,i386-tsc-host,plugin-guest.elf,plugin-guest-e500.elf}'
	@echo '  netboot         BOARD=<name>: a TFTP root in build/<name>/tftp'
	@echo '  bootscr         BOARD=<name>: the U-Boot boot script only'
	@echo '  probe-check     BOARD=<name> PROBE=tests/x.c: compile one probe as tests/ is'
	@echo '  run             the probe suite in QEMU on ref405ep, ppce500 and pc, and the sandbox, then mmureport (tools/run-suite)'
	@echo '  seed-compare    after run: the seed'"'"'s LMbench 2.0 table beside ref405ep'"'"'s and ppce500'"'"'s logs, mode ratios with kernel-page TLB misses'
	@echo '  check           tools/bench, then the test suite (selftest/, pytest)'
	@echo '  clean           remove the build output (not build/newlib)'
	@echo '  help            this text'
	@echo 'Variables:'
	@echo '  BOARD=<name>    build one board: $(BOARDS) $(SANDBOX_BOARDS)'
	@echo "  ARGS='...'      make run: boot arguments for every run (e.g. ARGS='quick reps=3')"
	@echo '  MODEL=1         make run: then ref405ep and ppce500 under the modelled-time plugin, the seed'"'"'s ratios in modelled time'
	@echo "  BOOTARGS='...'  bootscr/netboot: the boot arguments in the U-Boot script"
	@echo '  NETDIR=DIR      netboot: where the TFTP root goes'
	@echo '  V=1             show the commands'

clean:
	rm -rf $(BUILD)/walnut $(BUILD)/ref405ep $(BUILD)/pc $(BUILD)/ppce500 $(BUILD)/sandbox $(BUILD)/tools $(BUILD)/fuzz $(BUILD)/shims $(BUILD)/report
