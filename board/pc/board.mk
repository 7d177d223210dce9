ARCH := i386
BOARD_COMMON := ns16550.c
# The boot script (board/pc/boot.cmd): default boot arguments, where U-Boot
# loads mmubench.uimg (its loadaddr) and the most that fits there: the copy
# to 0x00100000 must end below the load address.
BOOTARGS ?= probes=all modes=all exit=return
UIMG_LOAD := 0x02000000
LOAD_WINDOW := 0x01f00000
# PXE (boot.ipxe, pxelinux.cfg): a multiboot run cannot return to a loader.
PXE_BOOTARGS ?= probes=all modes=all exit=halt
