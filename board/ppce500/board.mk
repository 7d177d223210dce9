ARCH := e500
BOARD_COMMON := ns16550.c
# The boot script (board/ppce500/boot.cmd): default boot arguments, where
# U-Boot loads mmubench.uimg (its loadaddr) and the most that fits there:
# bootm copies the image to 0x00400000, which must end below the load address.
BOOTARGS ?= probes=all modes=all exit=qemu
UIMG_LOAD := 0x02000000
LOAD_WINDOW := 0x01c00000
