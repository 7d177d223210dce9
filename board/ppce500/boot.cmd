# mmubench boot script for QEMU's ppce500 with Debian's qemu-ppce500 U-Boot,
# built by make into build/ppce500/boot.scr.uimg.  Its default bootcmd has
# no distro boot, so at the prompt: dhcp (with autoload no), tftp
# 0x01000000 boot.scr.uimg, source 0x01000000.  bootm checks the uImage's
# header and CRC and, given the device tree U-Boot itself runs on
# (fdtcontroladdr: QEMU's), enters with r3 = that tree (bootargs put in its
# /chosen) and r6 = the ePAPR magic.
setenv bootargs @BOOTARGS@
echo mmubench: loading mmubench.uimg for @BOARD@, @VERSION@
if tftpboot @UIMG_LOAD@ mmubench.uimg; then
	if itest ${filesize} -gt @LOAD_WINDOW@; then
		echo mmubench: mmubench.uimg is 0x${filesize} bytes, more than the load window @LOAD_WINDOW@: not started
	else
		bootm @UIMG_LOAD@ - ${fdtcontroladdr}
		echo mmubench: bootm refused mmubench.uimg: not started
	fi
else
	echo mmubench: cannot load mmubench.uimg over TFTP from ${serverip}: not started
fi
# The raw binary with go instead (no device tree in r3: fdt= gives it):
#   tftpboot @IMAGE_START@ mmubench.bin; go @IMAGE_START@ fdt=${fdtcontroladdr} ${bootargs}
