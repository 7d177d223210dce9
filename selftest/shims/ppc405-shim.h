/* Shared by the ref405ep stand-in's two files (ppc405-loader.c: the
 * commands; ppc405-firmware.c: the state a U-Boot leaves). */
#ifndef PPC405_SHIM_H
#define PPC405_SHIM_H
#include <stdint.h>
#include "../../arch/powerpc/reg.h"	/* mfspr, mtspr, mfmsr, mtmsr: the image's own */

#define UART0 ((volatile uint8_t *)0xEF600300)
#define PIT_1MS		333333u		/* QEMU's ref405ep timebase: 333.33 MHz */
#define MSR_EE		0x00008000u

#define SPR_EVPR 982
#define SPR_TCR	986
#define SPR_TSR	984
#define SPR_PIT	987
#define SPR_PID	945
#define SPR_DCCR 1018
#define SPR_ICCR 1019
#define SPR_DCWR 954
#define SPR_SGR	953
#define DCR_UIC0_SR	0xc0
#define DCR_UIC0_SRS	0xc1	/* write 1s: set status bits (a source pending) */
#define DCR_UIC0_ER	0xc2

#define mfdcr(n) ({ uint32_t v_; __asm__ volatile("mfdcr %0, %1" : "=r"(v_) : "i"(n)); v_; })
#define mtdcr(n, v) __asm__ volatile("mtdcr %0, %1" : : "i"(n), "r"((uint32_t)(v)) : "memory")

static inline uint32_t tb(void)
{
	uint32_t v;
	__asm__ volatile("mftb %0" : "=r"(v));
	return v;
}

/* ppc405-loader.c */
void puts_(const char *s);
void puthex(uint32_t v);
void reset(void) __attribute__((noreturn));

/* ppc405-firmware.c: the variants' flags and what the firmware keeps. */
extern int uboot1, uboot2017, mhz, junktlb, ram_mib, uicirq;	/* ram_mib: ram32/ram16 */
extern volatile uint32_t pit_ticks, ext_irqs, pit_tb_last, pit_period_seen;
struct fwstate { uint32_t msr, evpr, tcr, dccr, iccr, dcwr, sgr, uic_er, vec_sum; };
void fw_read(struct fwstate *f);
void firmware_setup(void);
void junk_tlb(void);
uint32_t wait_ticks(uint32_t n);
void uic_source_pending(void);
int fw_check(const struct fwstate *before, const struct fwstate *after);
/* "shim: after return: WHAT is GOT, was WANT" where they differ: 1, else 0. */
int shim_check(const char *what, uint32_t got, uint32_t want);
#define UIC_SOURCE	0x00100000u	/* UIC0 input 11, MAL RX end of buffer (EMAC) */

#endif
