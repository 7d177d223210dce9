# PowerPC 405 (arch/powerpc/powerpc.mk: the compiler and newlib).
PPC_CPU		:= 405
LDSCRIPT	:= ldscripts/ppc405.ld
include arch/powerpc/powerpc.mk
