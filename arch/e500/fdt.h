/* The flattened device tree's tokens (devicetree.org specification 5.4.1):
 * fdt.c reads them, the tests' e500 stand-in edits a tree with them. */
#ifndef E500_FDT_H
#define E500_FDT_H

#define FDT_MAGIC	0xd00dfeedu
#define FDT_BEGIN_NODE	1
#define FDT_END_NODE	2
#define FDT_PROP	3
#define FDT_NOP		4
#define FDT_END		9

#endif
