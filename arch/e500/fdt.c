/* The device tree the loader passes (QEMU's own boot and U-Boot bootm: r3),
 * read just far enough for what the board needs: RAM (/memory), the CPU's
 * and timebase's clocks (/cpus), where the CCSR block lies (/soc ranges)
 * and, in it, the console's 16550, the power-off GPIO and the global
 * utilities, its MPIC; /chosen bootargs; what no one but the loader may
 * touch: the memory reserve map, /reserved-memory and the spin tables of
 * cpus waiting in them (ePAPR 5.5 and 2.3.x "spin-table").  Flattened device tree format v16/17
 * (devicetree.org specification, chapter 5): big-endian words, a
 * structure block of tokens and a strings block of property names.  Only
 * reads inside totalsize; anything else is an error with its reason. */
#include <stdint.h>
#include <string.h>
#include "e500.h"
#include "fdt.h"

#define MAX_DEPTH	8

struct e500_fdt_info e500_fdt;

/* What one node said, decided on at its end (properties come in any order). */
struct node {
	const char *name;
	const uint8_t *reg, *ranges, *gpios, *compat, *type, *method, *release;
	uint32_t reg_len, ranges_len, gpios_len, compat_len, type_len, method_len, release_len;
	uint32_t clock, tb, addr_cells, size_cells;	/* #cells for its children */
};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* `cells` 32-bit cells (1 or 2) at p as one number. */
static uint64_t cells_at(const uint8_t *p, uint32_t cells)
{
	return cells == 2 ? (uint64_t)be32(p) << 32 | be32(p + 4) : be32(p);
}

/* Whether the string list (compatible) holds s. */
static int has_string(const uint8_t *list, uint32_t len, const char *s)
{
	for (uint32_t i = 0; list && i < len; i += strlen((const char *)list + i) + 1)
		if (!strcmp((const char *)list + i, s))
			return 1;
	return 0;
}

static int starts(const char *name, const char *what)
{
	size_t n = strlen(what);
	return !strncmp(name, what, n) && (name[n] == 0 || name[n] == '@');
}

static void prop(struct node *n, const char *pname, const uint8_t *v, uint32_t len,
		 struct e500_fdt_info *out, int depth)
{
	if (!strcmp(pname, "reg")) n->reg = v, n->reg_len = len;
	else if (!strcmp(pname, "ranges")) n->ranges = v, n->ranges_len = len;
	else if (!strcmp(pname, "gpios")) n->gpios = v, n->gpios_len = len;
	else if (!strcmp(pname, "compatible")) n->compat = v, n->compat_len = len;
	else if (!strcmp(pname, "device_type")) n->type = v, n->type_len = len;
	else if (!strcmp(pname, "enable-method")) n->method = v, n->method_len = len;
	else if (!strcmp(pname, "cpu-release-addr")) n->release = v, n->release_len = len;
	else if (!strcmp(pname, "#address-cells") && len == 4) n->addr_cells = be32(v);
	else if (!strcmp(pname, "#size-cells") && len == 4) n->size_cells = be32(v);
	else if (!strcmp(pname, "clock-frequency") && len >= 4) n->clock = be32(v + len - 4);
	else if (!strcmp(pname, "timebase-frequency") && len >= 4) n->tb = be32(v + len - 4);
	else if (depth == 1 && !strcmp(pname, "model") && len) out->model = (const char *)v;
	else if (depth == 2 && !strcmp(n->name, "chosen") && !strcmp(pname, "bootargs") && len)
		out->bootargs = (const char *)v;
}

static void reserve(struct e500_fdt_info *out, uint64_t base, uint64_t bytes, const char *why)
{
	if (!bytes)
		return;
	if (out->nreserved == sizeof(out->reserved) / sizeof(out->reserved[0]))
		out->reserved_overflow = 1;
	else
		out->reserved[out->nreserved++] = (struct e500_reserved){ base, bytes, why };
}

/* A node ends: keep what it told.  n[d] is the node, n[d-1] its parent. */
static void node_end(struct node *n, int d, struct e500_fdt_info *out)
{
	struct node *me = &n[d], *up = &n[d - 1];
	uint32_t ac = up->addr_cells, sc = up->size_cells;

	if (d == 2 && starts(me->name, "memory") && me->reg && me->reg_len >= 4 * (ac + sc) &&
	    !out->ram_bytes) {
		out->ram_base = cells_at(me->reg, ac);
		out->ram_bytes = cells_at(me->reg + 4 * ac, sc);
	} else if (d == 3 && starts(up->name, "cpus")) {
		if (!out->cpu_hz)
			out->cpu_hz = me->clock, out->tb_hz = me->tb;
		/* A cpu parked by the loader: its spin table's page, reserved
		 * even where the reserve map forgot it. */
		if (has_string(me->method, me->method_len, "spin-table") && me->release &&
		    (me->release_len == 8 || me->release_len == 4) && !out->spin_table) {
			out->spin_table = cells_at(me->release, me->release_len / 4);
			out->spin_cpu = me->reg && me->reg_len >= 4 ? be32(me->reg) : 0;
			reserve(out, out->spin_table & ~0xfffull, 4096, "a cpu's spin table (cpu-release-addr)");
		}
	} else if (d == 3 && starts(up->name, "reserved-memory") && me->reg &&
		   me->reg_len >= 4 * (ac + sc)) {
		reserve(out, cells_at(me->reg, ac), cells_at(me->reg + 4 * ac, sc), "/reserved-memory");
	} else if (d == 2 && me->ranges && me->type && !strcmp((const char *)me->type, "soc") &&
		   me->ranges_len >= 4 * (me->addr_cells + ac) && cells_at(me->ranges, me->addr_cells) == 0) {
		out->ccsr_pa = cells_at(me->ranges + 4 * me->addr_cells, ac);
	} else if (d == 3 && me->reg && me->reg_len >= 4 && ac == 1) {
		if (has_string(me->compat, me->compat_len, "ns16550") && !out->uart_off)
			out->uart_off = be32(me->reg), out->uart_hz = me->clock;
		else if (has_string(me->compat, me->compat_len, "chrp,open-pic") ||
			 has_string(me->compat, me->compat_len, "fsl,mpic"))
			out->mpic_off = be32(me->reg);
		else if (has_string(me->compat, me->compat_len, "fsl,mpc8544-guts"))
			out->guts_off = be32(me->reg);
		else if (has_string(me->compat, me->compat_len, "fsl,qoriq-gpio") ||
			 has_string(me->compat, me->compat_len, "fsl,mpc8572-gpio"))
			out->gpio_off = be32(me->reg);
	}
	if (d == 3 && has_string(me->compat, me->compat_len, "gpio-poweroff") && me->gpios &&
	    me->gpios_len >= 8)
		out->poweroff_pin = be32(me->gpios + 4) + 1;	/* + 1: 0 means none */
}

const char *e500_fdt_read(const void *fdt, struct e500_fdt_info *out)
{
	const uint8_t *b = fdt;
	struct node n[MAX_DEPTH];
	int depth = 0;

	memset(out, 0, sizeof(*out));
	if (!b || ((uintptr_t)b & 3))
		return "no device tree address (or an unaligned one)";
	if (be32(b) != FDT_MAGIC)
		return "no device tree there (magic is not 0xd00dfeed)";
	uint32_t total = be32(b + 4), off_struct = be32(b + 8), off_strings = be32(b + 12);
	uint32_t off_rsv = be32(b + 16), version = be32(b + 20);
	if (version < 16 || total > (64u << 20) || off_struct >= total || off_strings >= total ||
	    off_rsv >= total)
		return "a device tree of a version or size this reader does not take";
	/* The memory reserve map: (address, size) pairs of 64-bit words up
	 * to a pair of zeros (U-Boot's bootm puts the tree and the boot page
	 * there). */
	for (uint32_t r = off_rsv;; r += 16) {
		if (r + 16 > total)
			return "device tree: the memory reserve map runs past its end";
		uint64_t base = cells_at(b + r, 2), bytes = cells_at(b + r + 8, 2);
		if (!base && !bytes)
			break;
		reserve(out, base, bytes, "the device tree's memory reserve map");
	}
	uint32_t p = off_struct;
	for (;;) {
		if (p + 4 > total)
			return "device tree: the structure block runs past its end";
		uint32_t tok = be32(b + p);
		p += 4;
		if (tok == FDT_BEGIN_NODE) {
			const char *name = (const char *)b + p;
			p = (p + strnlen(name, total - p) + 1 + 3) & ~3u;
			if (++depth >= MAX_DEPTH)
				return "device tree: nodes nested deeper than this reader goes";
			memset(&n[depth], 0, sizeof(n[depth]));
			n[depth].name = name;
			n[depth].addr_cells = 2, n[depth].size_cells = 1;	/* the defaults */
		} else if (tok == FDT_END_NODE) {
			if (depth < 1)
				return "device tree: a node ends that never began";
			if (depth >= 2)
				node_end(n, depth, out);
			depth--;
		} else if (tok == FDT_PROP) {
			if (p + 8 > total || depth < 1)
				return "device tree: a property outside a node or past the end";
			uint32_t len = be32(b + p), nameoff = be32(b + p + 4);
			if (p + 8 + len > total || off_strings + nameoff >= total)
				return "device tree: a property runs past the end";
			prop(&n[depth], (const char *)b + off_strings + nameoff, b + p + 8, len, out, depth);
			p = (p + 8 + len + 3) & ~3u;
		} else if (tok == FDT_END) {
			if (out->reserved_overflow)
				return "device tree: more reserved regions than this reader keeps";
			break;
		} else if (tok != FDT_NOP) {
			return "device tree: an unknown token in the structure block";
		}
	}
	return 0;
}
