# e500v2 (MPC8548 core, QEMU's ppce500): Debian's powerpc-linux-gnu cross
# compiler with -mcpu=8548 and soft float (GCC 12 has no SPE code: the
# e500's FPU-less floating point stays out).  newlib: the 405's build,
# which holds only instructions every PowerPC has (objdump over libc.a and
# libm.a: no dlmzb, no MAC, no DCR or 4xx cache instructions).
CROSS		:= powerpc-linux-gnu-
NEWLIB_ARCH	:= ppc405
NEWLIB_TRIPLET	:= powerpc-eabi
ARCH_CFLAGS	:= -U__linux__ -U__gnu_linux__ -mcpu=8548 -msoft-float -mlong-double-64 -mno-altivec -msdata=none -G 0 \
		   -mno-relocatable -fno-pic -Wa,-mregnames
ARCH_LDFLAGS	:= -m elf32ppc
LDSCRIPT	:= ldscripts/ppce500.ld
MKIMAGE_ARCH	:= ppc
ARCH_SRCS	:= $(wildcard arch/e500/*.c arch/e500/*.S arch/powerpc/*.c arch/powerpc/*.S)
