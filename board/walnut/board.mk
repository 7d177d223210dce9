ARCH := ppc405
BOARD_COMMON := ns16550.c ppc405_uart0.c
