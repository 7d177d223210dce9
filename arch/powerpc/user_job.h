/* What the PowerPC user routine (arch/powerpc/user_code.S) shares with
 * arch/ppc405 and arch/e500: struct proc_job's offsets (include/proc.h)
 * and the call numbers in r0 (include/user.h USER_CALL_*), asserted
 * against the C definitions in each arch's user.c. */
#ifndef POWERPC_USER_JOB_H
#define POWERPC_USER_JOB_H

#define J_ROUNDS	0
#define J_BASE		4
#define J_PAGES		8
#define J_WRITE		12
#define J_CALLS		16
#define J_SUM		20
#define J_STRIDE	24

#define POWERPC_CALL_NULL	0
#define POWERPC_CALL_EXIT	1

#endif
