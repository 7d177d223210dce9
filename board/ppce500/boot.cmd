# mmubench boot script for QEMU's ppce500 with Debian's qemu-ppce500 U-Boot,
# built by make into build/ppce500/boot.scr.uimg.  One command a line.
# DHCP without autoload (it would fetch bootfile too), then the image over
# TFTP.  bootm checks the uImage's header and CRC and, given the device
# tree U-Boot itself runs on (fdtcontroladdr, QEMU's), enters with
# r3 = device tree and r6 = the ePAPR magic; bootargs go into its /chosen.
setenv autoload no
dhcp
setenv bootargs @BOOTARGS@
echo mmubench: loading mmubench.uimg for @BOARD@, @VERSION@
tftpboot @UIMG_LOAD@ mmubench.uimg
bootm @UIMG_LOAD@ - ${fdtcontroladdr}
# The alternative, the raw binary with go (no device tree in r3: fdt= gives it):
#   tftpboot 0x00400000 mmubench.bin; go 0x00400000 fdt=${fdtcontroladdr} probes=all exit=qemu
