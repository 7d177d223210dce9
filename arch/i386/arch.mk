# i386: Debian's i686-linux-gnu cross compiler, 32-bit, no PIC.
CROSS		:= i686-linux-gnu-
NEWLIB_ARCH	:= i386
NEWLIB_TRIPLET	:= i686-elf
ARCH_CFLAGS	:= -fno-omit-frame-pointer -U__linux__ -U__gnu_linux__ -m32 -march=i686 -fno-pic -fno-stack-protector -mno-sse -mno-mmx \
		   -mno-red-zone -fcf-protection=none
ARCH_LDFLAGS	:= -m elf_i386
LDSCRIPT	:= ldscripts/i386.ld
MKIMAGE_ARCH	:= x86
ARCH_SRCS	:= $(wildcard arch/i386/*.c arch/i386/*.S arch/x86/*.c)
