# Both PowerPCs (included by arch/ppc405/arch.mk and arch/e500/arch.mk,
# which set PPC_CPU and LDSCRIPT first): Debian's powerpc-linux-gnu cross
# compiler, soft float, and newlib's 405 build, which holds only
# instructions every PowerPC has (objdump over libc.a and libm.a: no dlmzb,
# no MAC, no DCR or 4xx cache instructions).
CROSS		:= powerpc-linux-gnu-
NEWLIB_ARCH	:= ppc405
NEWLIB_TRIPLET	:= powerpc-eabi
ARCH_CFLAGS	:= -U__linux__ -U__gnu_linux__ -mcpu=$(PPC_CPU) -msoft-float -mlong-double-64 -mno-altivec \
		   -msdata=none -G 0 -mno-relocatable -fno-pic -Wa,-mregnames
ARCH_LDFLAGS	:= -m elf32ppc
MKIMAGE_ARCH	:= ppc
# The link keeps this order, which sets the pages the kernel's paths lie
# on and so the exact TLB-miss counts: each arch/powerpc C file that stands
# for part of an arch's file of its name right after that one, the rest of
# arch/powerpc after the arch's own as before.
PPC_OWN		:= $(wildcard arch/$(ARCH)/*.c)
PPC_BESIDE	:= $(wildcard $(addprefix arch/powerpc/,$(notdir $(PPC_OWN))))
ARCH_SRCS	:= $(foreach f,$(PPC_OWN),$f $(wildcard arch/powerpc/$(notdir $f))) \
		   $(wildcard arch/$(ARCH)/*.S) \
		   $(filter-out $(PPC_BESIDE),$(wildcard arch/powerpc/*.c)) $(wildcard arch/powerpc/*.S)
