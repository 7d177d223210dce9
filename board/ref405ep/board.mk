ARCH := ppc405
BOARD_COMMON := ns16550.c
# The boot script, for a real 405EP reference board with U-Boot (QEMU's
# ref405ep boots with -kernel): as the Walnut's.
BOOTARGS ?= probes=all modes=all reps=3 exit=halt
UIMG_LOAD := 0x01000000
LOAD_WINDOW := 0x00c00000
