# mmubench boot script for a PC with U-Boot (x86), built by make into
# build/pc/boot.scr.uimg.  U-Boot's distro boot fetches boot.scr.uimg over
# TFTP after DHCP and sources it, or by hand: tftp ${scriptaddr}
# boot.scr.uimg; source ${scriptaddr}.  x86 U-Boot cannot bootm the image
# ("Could not find a valid setup.bin"), so: load the uImage, let iminfo
# check its CRC, copy the data to where the image runs and go.  The image
# gets its arguments as go's argv; exit=return comes back with its status.
setenv bootargs @BOOTARGS@
echo mmubench: loading mmubench.uimg for @BOARD@, @VERSION@
if tftp @UIMG_LOAD@ mmubench.uimg; then
	if itest ${filesize} -gt @LOAD_WINDOW@; then
		echo mmubench: mmubench.uimg is 0x${filesize} bytes, more than the load window @LOAD_WINDOW@: not started
	elif iminfo @UIMG_LOAD@; then
		cp.b @UIMG_DATA@ @IMAGE_START@ ${filesize}
		go @IMAGE_START@ ${bootargs}
	else
		echo mmubench: mmubench.uimg is damaged or truncated, bad CRC: not started
	fi
else
	echo mmubench: cannot load mmubench.uimg over TFTP from ${serverip}: not started
fi
