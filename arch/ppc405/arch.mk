# PowerPC 405: Debian's powerpc-linux-gnu cross compiler, soft float.
CROSS		:= powerpc-linux-gnu-
NEWLIB_ARCH	:= ppc405
NEWLIB_TRIPLET	:= powerpc-eabi
ARCH_CFLAGS	:= -U__linux__ -U__gnu_linux__ -mcpu=405 -msoft-float -mlong-double-64 -mno-altivec -msdata=none -G 0 \
		   -mno-relocatable -fno-pic -Wa,-mregnames
ARCH_LDFLAGS	:= -m elf32ppc
LDSCRIPT	:= ldscripts/ppc405.ld
MKIMAGE_ARCH	:= ppc
ARCH_SRCS	:= $(wildcard arch/ppc405/*.c arch/ppc405/*.S arch/powerpc/*.c arch/powerpc/*.S)
