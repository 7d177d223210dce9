# mmubench boot script for QEMU's ppce500 with Debian's qemu-ppce500 U-Boot,
# built by make into build/ppce500/boot.scr.uimg.  Its default bootcmd has
# no distro boot, so at the prompt: dhcp (with autoload no), tftp
# 0x01000000 boot.scr.uimg, source 0x01000000.  bootm checks the uImage's
# header and CRC, fixes up the device tree it is given (/memory, clocks,
# the spin tables of the other cores, /chosen bootargs) and enters with
# r3 = that tree and r6 = the ePAPR magic.  The tree: the board's own .dtb
# over TFTP where the environment names one (${fdtfile} at ${fdtaddr}:
# Freescale U-Boot on P2020RDB, MPC8548CDS, MPC8572DS), else the one
# U-Boot runs on (${fdtcontroladdr}: QEMU's, under Debian's qemu-ppce500).
# The image reads RAM, clocks and console from it: without one it stops.
setenv bootargs @BOOTARGS@
echo mmubench: loading mmubench.uimg for @BOARD@, @VERSION@
setenv mmubench_fdt
if test -n "${fdtfile}" && test -n "${fdtaddr}" && tftpboot ${fdtaddr} ${fdtfile}; then
	setenv mmubench_fdt ${fdtaddr}
elif test -n "${fdtcontroladdr}"; then
	setenv mmubench_fdt ${fdtcontroladdr}
fi
if test -z "${mmubench_fdt}"; then
	echo mmubench: no device tree: set fdtfile and fdtaddr (tftp them from ${serverip}): not started
elif tftpboot @UIMG_LOAD@ mmubench.uimg; then
	if itest ${filesize} -gt @LOAD_WINDOW@; then
		echo mmubench: mmubench.uimg is 0x${filesize} bytes, more than the load window @LOAD_WINDOW@: not started
	else
		bootm @UIMG_LOAD@ - ${mmubench_fdt}
		echo mmubench: bootm refused mmubench.uimg: not started
	fi
else
	echo mmubench: cannot load mmubench.uimg over TFTP from ${serverip}: not started
fi
# The raw binary with go instead (no device tree in r3, and none of bootm's
# fix-ups: fdt= gives a tree that already has /memory and the clocks):
#   tftpboot @IMAGE_START@ mmubench.bin; go @IMAGE_START@ fdt=${fdtaddr} ${bootargs}
