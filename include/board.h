/* What a board provides: console, memory size, clock hints, exit. Only the
 * board knows these; the arch and boot layers ask through this header. */
#ifndef BOARD_H
#define BOARD_H
#include <stdint.h>
#include "boot_info.h"

extern const char board_name[];

void board_console_init(const struct boot_info *bi);
void board_putc(char c);

/* Fill bi->ram_bytes/ram_source and the clock hints (cpu_hz, tick_hz and
 * their sources) from what the loader passed, or from the board's own
 * registers.  Runs after board_console_init, before the banner. */
void board_init(struct boot_info *bi);

/* Whether exit=qemu can end the run on this board (QEMU boards only). */
extern const int board_has_qemu_exit;

/* End the run.  `how` is one of EXIT_QEMU, EXIT_RETURN, EXIT_HALT; status 0
 * is pass.  EXIT_RETURN comes back here only if the loader gave no way back. */
void board_exit(int how, int status) __attribute__((noreturn));

#endif
