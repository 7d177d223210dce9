/*
 * The page table both PowerPCs' miss handlers walk (ppc405.h "Page table",
 * e500.h "A PTE"): a directory of 1024 words, one per 4 MiB, each a
 * large-page leaf or the address of a 4 KiB table of 1024 PTEs; an unmapped
 * 4 MiB points at an all-zero table, so the handlers need no "no table"
 * test.  arch/powerpc/pagetable.c holds what both do with it; each arch's
 * pagetable.h names its directory, its empty table and its bits (PT_DIR,
 * PT_EMPTY, PAGE, LEAF, TABLE, pt_bits, pt_large, pt_flush) and its
 * pagetable.c the rest: pt_may_change, pt_demote, the default mapping,
 * query.
 */
#ifndef POWERPC_PTE_H
#define POWERPC_PTE_H
#include <stddef.h>
#include <stdint.h>

/* The PTE slot of va, making a table if `create`; 0 when there is none,
 * the region is a large-page leaf (callers demote first), or the pool ran
 * dry (the core said so). */
uint32_t *ppc_pte_slot(uint32_t va, int create);
/* The leaf or PTE that maps va; 0: none. */
uint32_t ppc_pt_entry(uint32_t va);

/* struct mmu_ops' map, unmap and protect: each 4K page of the range
 * demoted out of a large page if need be, then its PTE set; the TLB
 * entries the range covered flushed. */
int ppc_pt_map(uintptr_t va, uintptr_t pa, size_t len, unsigned attr);
int ppc_pt_unmap(uintptr_t va, size_t len);
int ppc_pt_protect(uintptr_t va, size_t len, unsigned attr);

/* Each arch's pagetable.c: whether a change of [va, va+len) may go ahead
 * (attr < 0: unmap; -1: no, said why), and the large page holding va
 * turned into 4K PTEs (-1: the pool ran dry). */
int pt_may_change(uintptr_t va, size_t len, int attr);
int pt_demote(uint32_t va);

#endif
