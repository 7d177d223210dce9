ARCH := ppc405
BOARD_COMMON := ns16550.c
# The boot script (board/walnut/boot.cmd): default boot arguments, where
# U-Boot loads mmubench.uimg, and the most that fits there: bootm copies the
# image to 0x00400000, which must end below the load address.
BOOTARGS ?= probes=all modes=all reps=3 exit=halt
UIMG_LOAD := 0x01000000
LOAD_WINDOW := 0x00c00000
