/* The user program's side of the system call on i386 (boot/user_prog.c):
 * int $0x80 with the call in EAX, arguments in EBX, ECX, EDX, the result
 * in EAX; the kernel gives back every other register. */
#ifndef I386_USER_SYS_H
#define I386_USER_SYS_H
#include <stdint.h>

static inline __attribute__((always_inline)) int32_t user_sys(uint32_t n, uint32_t a, uint32_t b,
							       uint32_t c)
{
	int32_t r;

	__asm__ volatile("int $0x80" : "=a"(r) : "a"(n), "b"(a), "c"(b), "d"(c) : "memory");
	return r;
}

/* lat_sig prot's store: movl %edx, (%eax), 2 bytes (89 10): its handler
 * resumes past it. */
#define USER_STORE_BYTES	2
static inline __attribute__((always_inline)) void user_store(uint32_t at, uint32_t v)
{
	__asm__ volatile("movl %1, (%0)" : : "a"(at), "d"(v) : "memory");
}

/* The signal entry's arguments in EAX, EDX, ECX (user_regs_upcall). */
#define USER_UPCALL		__attribute__((regparm(3)))

#endif
