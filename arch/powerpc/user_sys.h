/* The user program's side of the system call on both PowerPCs
 * (boot/user_prog.c): sc with the call in r0, arguments in r3..r5, the
 * result in r3; the kernel gives back every other register. */
#ifndef POWERPC_USER_SYS_H
#define POWERPC_USER_SYS_H
#include <stdint.h>

static inline __attribute__((always_inline)) int32_t user_sys(uint32_t n, uint32_t a, uint32_t b,
							       uint32_t c)
{
	register uint32_t r0 __asm__("r0") = n;
	register uint32_t r3 __asm__("r3") = a;
	register uint32_t r4 __asm__("r4") = b;
	register uint32_t r5 __asm__("r5") = c;

	__asm__ volatile("sc" : "+r"(r3) : "r"(r0), "r"(r4), "r"(r5) : "memory");
	return (int32_t)r3;
}

/* lat_sig prot's store, USER_STORE_BYTES long (its handler resumes past it). */
#define USER_STORE_BYTES	4
static inline __attribute__((always_inline)) void user_store(uint32_t at, uint32_t v)
{
	__asm__ volatile("stw %1, 0(%0)" : : "b"(at), "r"(v) : "memory");
}

#define USER_UPCALL		/* the entries' arguments: r3..r5, as any call's */

#endif
