# The sandbox: the probes as a native Linux program (x86-64), with the
# host's gcc and glibc.  HOSTED makes the Makefile skip newlib and the image
# steps.  No PIE: the sandbox's RAM lies at fixed addresses (sandbox.h) and
# its heap and stack bounds are absolute symbols (probe_load.S).
HOSTED		:= 1
CROSS		:=
ARCH_CFLAGS	:= -fno-pie -fno-omit-frame-pointer -Wno-format-truncation
ARCH_LDFLAGS	:= -no-pie
ARCH_SRCS	:= $(wildcard arch/sandbox/*.c arch/sandbox/*.S arch/x86/*.c)
