# e500v2 (MPC8548 core, QEMU's ppce500), with arch/powerpc/powerpc.mk's
# compiler and newlib: GCC 12 has no SPE code, so -mcpu=8548 and soft
# float (the e500's FPU-less floating point stays out).
PPC_CPU		:= 8548
LDSCRIPT	:= ldscripts/ppce500.ld
include arch/powerpc/powerpc.mk
