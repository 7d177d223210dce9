# mmubench boot script for a 405EP reference board, built by make into
# build/ref405ep/boot.scr.uimg.  One command a line and no if/then, so U-Boot
# 1.x and PPCBoot (autoscr) run it as today's U-Boot (source) does: both
# stop at the first command that fails.  bootm checks the image's CRC and
# passes the bd_t in r3 and bootargs in r6/r7.
setenv bootargs @BOOTARGS@
echo mmubench: loading mmubench.uimg for @BOARD@, @VERSION@
tftpboot @UIMG_LOAD@ mmubench.uimg
bootm @UIMG_LOAD@
# The alternative, with argc/argv and exit=return back to U-Boot:
#   tftp 0x003fffc0 mmubench.uimg; imi 0x003fffc0; go 0x00400000 probes=all exit=return
