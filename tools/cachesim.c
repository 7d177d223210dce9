/*
 * cachesim: the lat_mem probe's chase run through a simulated cache
 * hierarchy, to give the level detection (lib/guess.c, mmuguess) curves
 * whose steps have the shapes real replacement policies and page
 * placements make, with their sizes known.  Deterministic: the same
 * arguments give the same curve.
 *
 *   cachesim --level SIZE:WAYS:LINE:POLICY:NS [--level ...]... [options]
 *
 *   --level S:W:L:P:NS  a cache level, L1 first: size (bytes, or with K or
 *                       M), ways, line bytes, policy, hit latency in ns.
 *                       POLICY: lru, plru (tree pseudo-LRU), nru (one MRU
 *                       bit a way), random, rrip (DRRIP set dueling)
 *   --mem NS            main memory's latency (default 100)
 *   --exclusive L       level L (2 or more) is a victim cache of level L-1:
 *                       filled only by its evictions, a hit moves the line
 *                       up (AMD Zen's L3); other levels: a fill goes into
 *                       every level below the one that hit
 *   --taken L           one way of every set of level L is a neighbour's
 *                       (a busy SMT sibling): never ours
 *   --placement P       physical frames: 4k (random 4 KiB frames, a guest on
 *                       a host's 4 KiB pages; default), 2m (random 2 MiB
 *                       frames, THP), contig (physical = virtual)
 *   --pattern P         local (default: lat_mem's TLB-local chase) or random
 *   --stride B          bytes between loads (default: L1's line)
 *   --top B             the sweep's largest working set (default 4x the
 *                       largest level; at most 256 MiB)
 *   --seed N            seeds the chase's xorshift32 (default lat_mem's own
 *                       0x2545F491), the page frames, random replacement and
 *                       the noise
 *   --noise S[,S2]      each point times 1 + N(0, S) (default 0.015); S2
 *                       (default 0.05) where most loads go past L2: medians
 *                       of 5 runs on a Zen 3 KVM guest vary 1-2 % on the L1
 *                       and L2 plateaus, about 5 % on the shared L3 and
 *                       memory.  0 for none
 *   --spikes K          K single points raised 1.3-3x (another job), no two
 *                       within two points of each other
 *   --format F          lmbench (default: `"stride=64` then "<MB> <ns>"
 *                       lines, as lat_mem_rd prints and `mmuguess -t`
 *                       reads; only sizes that are 512-byte multiples) or
 *                       plain ("<bytes> <ns>")
 *
 * Each point: one pass to warm up (as lat_mem: lines / 64 + 1 rounds of 64
 * loads), then timed passes (2, or more to make 4096 loads at small
 * sizes); its figure is the timed loads' mean latency.  Caches keep their
 * contents from point to point, as in the probe, whose points all start
 * at the same buffer.  Exit status: 0, 2 bad arguments.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define MAX_LEVELS	4
#define MAX_WAYS	32
#define MAX_BYTES	(256u << 20)
#define MIN_BYTES	512u
#define LOCAL_BYTES	(8u * 4096)		/* lat_mem.c's group: 8 pages */
#define NONE		UINT32_MAX		/* an empty way */
#define THEIRS		(UINT32_MAX - 1)	/* the neighbour's line in a taken way */

enum policy { LRU, PLRU, NRU, RANDOM, RRIP };
static const char *const policy_name[] = { "lru", "plru", "nru", "random", "rrip" };

struct level {
	uint32_t bytes, ways, line, sets, shift;	/* shift: log2(line) */
	enum policy policy;
	double ns;
	int exclusive, taken;
	uint32_t *tag;		/* [sets * ways]: physical line number, NONE, THEIRS */
	uint8_t *age;		/* [sets * ways]: lru: rank, 0 the last used; rrip: RRPV */
	uint64_t *bits;		/* per set: plru tree nodes, nru MRU bits */
	uint64_t mask[MAX_WAYS], want[MAX_WAYS];	/* plru: each way's path */
	uint64_t rnd;		/* random victims, BRRIP's rare long insertions */
	int psel;		/* DRRIP's policy selector, 10 bits */
};

static struct level lv[MAX_LEVELS];
static int nlevels;
static double mem_ns = 100;
static uint64_t served[MAX_LEVELS + 1];	/* loads served per level (last: memory), this point */

static void usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "cachesim: %s%s%s\n(cachesim --help for the options)\n", what,
		arg ? ": " : "", arg ? arg : "");
	exit(2);
}

/* splitmix64: the simulator's own randomness (frames, victims, noise),
 * apart from the chase's xorshift32 so that each can change alone. */
static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double uniform(uint64_t *s)
{
	return (mix(s) >> 11) * (1.0 / 9007199254740992.0);
}

static double gauss(uint64_t *s)	/* Box-Muller */
{
	double u = uniform(s), v = uniform(s);

	return sqrt(-2.0 * log(u > 0 ? u : 1e-300)) * cos(2.0 * M_PI * v);
}

/* --- replacement ----------------------------------------------------------
 * Per set, a victim is an empty way if there is one, else the policy's.
 * A taken way is the last; the neighbour touches its line before each of
 * our misses in the set, so each policy keeps it as a recent line would be
 * kept (random excludes it). */

/* Tree pseudo-LRU (Intel's and ARM's L1 manuals; Al-Zoubi, Milenkovic,
 * Milenkovic, "Performance evaluation of cache replacement policies for the
 * SPEC CPU2000 benchmark suite", ACM-SE 2004): a binary tree over the ways,
 * each node's bit pointing at the half to evict from next; a use turns the
 * bits on its path away from it.  Ways that are no power of two (10, 12)
 * split unevenly, [lo, mid) and [mid, hi); nodes numbered as in a heap.
 * Each way's path is kept as the node bits it crosses (`mask`) and the
 * values that lead to it (`want`): the victim is the way whose path the
 * bits spell, a use sets its path's bits to the other values.  (Scans
 * without branches: the walk's branches mispredicted half the time and
 * cost most of a simulated load.) */
static void plru_paths(struct level *c)
{
	for (uint32_t way = 0; way < c->ways; way++) {
		uint32_t lo = 0, hi = c->ways, node = 0;

		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo + 1) / 2;

			c->mask[way] |= 1ull << node;
			if (way < mid) {		/* 0 leads left */
				hi = mid, node = 2 * node + 1;
			} else {
				c->want[way] |= 1ull << node;
				lo = mid, node = 2 * node + 2;
			}
		}
	}
}

/* DRRIP (Jaleel, Theobald, Steely, Emer, "High Performance Cache
 * Replacement Using Re-Reference Interval Prediction (RRIP)", ISCA 2010):
 * 2-bit re-reference prediction values; a hit sets 0; the victim is the
 * first way at 3, all aged until one is.  SRRIP inserts at 2, BRRIP at 3
 * but at 2 one time in 32; 32 leader sets each (sets 0, 2k/64.. as a
 * stride) duel through a 10-bit counter the followers obey.  Below 64
 * sets, no dueling: SRRIP. */
enum { RRPV_MAX = 3, PSEL_MAX = 1023 };

static int rrip_leader(const struct level *c, uint32_t set)	/* 1 SRRIP, 2 BRRIP, 0 follower */
{
	uint32_t stride = c->sets / 32;

	if (c->sets < 64)
		return 1;
	return set % stride == 0 ? 1 : set % stride == stride / 2 ? 2 : 0;
}

static void touch(struct level *c, uint32_t set, uint32_t way)
{
	switch (c->policy) {
	case LRU: {	/* the ways used since this one age by one */
		uint8_t *rank = c->age + set * c->ways, r = rank[way];

		for (uint32_t w = 0; w < c->ways; w++)
			rank[w] += rank[w] < r;
		rank[way] = 0;
		break;
	}
	case PLRU:
		c->bits[set] = (c->bits[set] & ~c->mask[way]) | (c->mask[way] & ~c->want[way]);
		break;
	case NRU:	/* Al-Zoubi et al.'s PLRUm: all set, the others cleared */
		c->bits[set] |= 1ull << way;
		if (c->bits[set] == (c->ways == 64 ? ~0ull : (1ull << c->ways) - 1))
			c->bits[set] = 1ull << way;
		break;
	case RANDOM:
		break;
	case RRIP:
		c->age[set * c->ways + way] = 0;
		break;
	}
}

static uint32_t victim(struct level *c, uint32_t set)
{
	uint32_t *tag = c->tag + set * c->ways, ours = c->ways - (c->taken != 0), v = NONE;
	uint8_t *age = c->age + set * c->ways, most = 0;

	for (uint32_t w = ours; w-- > 0; )	/* the first empty way */
		v = tag[w] == NONE ? w : v;
	if (v != NONE)
		return v;
	if (c->taken)
		touch(c, set, c->ways - 1);
	switch (c->policy) {
	case LRU:
		for (uint32_t w = 0; w < c->ways; w++)
			v = age[w] == c->ways - 1 ? w : v;
		return v;
	case PLRU:
		for (uint32_t w = 0; w < c->ways; w++)
			v = (c->bits[set] & c->mask[w]) == c->want[w] ? w : v;
		return v;
	case NRU:	/* never all set: a touch clears the others */
		return (uint32_t)__builtin_ctzll(~c->bits[set]);
	case RANDOM:
		return (uint32_t)(mix(&c->rnd) % ours);
	case RRIP:	/* all aged until one is at 3: the first at the most, aged */
		for (uint32_t w = 0; w < c->ways; w++)
			most = age[w] > most ? age[w] : most;
		for (uint32_t w = c->ways; w-- > 0; ) {
			v = age[w] == most ? w : v;
			age[w] += RRPV_MAX - most;
		}
		return v;
	}
	return 0;
}

/* A line placed in `way` after a miss: its replacement state. */
static void inserted(struct level *c, uint32_t set, uint32_t way)
{
	if (c->policy == RRIP) {
		int leader = rrip_leader(c, set), brrip;

		if (leader == 1 && c->psel < PSEL_MAX)		/* a miss counts against its policy */
			c->psel++;
		else if (leader == 2 && c->psel > 0)
			c->psel--;
		brrip = leader ? leader == 2 : c->psel > PSEL_MAX / 2;
		c->age[set * c->ways + way] = brrip && mix(&c->rnd) % 32 ? RRPV_MAX : RRPV_MAX - 1;
	} else {
		touch(c, set, way);
	}
}

/* --- the hierarchy ------------------------------------------------------ */

static int lookup(struct level *c, uint64_t pa, uint32_t *set, uint32_t *way)
{
	uint32_t ln = (uint32_t)(pa >> c->shift), *tag, hit = NONE;

	*set = ln & (c->sets - 1);
	tag = c->tag + *set * c->ways;
	for (uint32_t w = 0; w < c->ways; w++)	/* no early exit: see plru_paths() */
		hit = tag[w] == ln ? w : hit;
	*way = hit;
	return hit != NONE;
}

/* Puts the line of `pa` into level i; returns the line it evicted (as a
 * physical address), or UINT64_MAX.  `missed`: known not there. */
static uint64_t fill(int i, uint64_t pa, int missed)
{
	struct level *c = &lv[i];
	uint32_t set, way, old;

	if (missed)
		set = (uint32_t)(pa >> c->shift) & (c->sets - 1);
	else if (lookup(c, pa, &set, &way))	/* already there: a use */
		return touch(c, set, way), UINT64_MAX;
	way = victim(c, set);
	old = c->tag[set * c->ways + way];
	c->tag[set * c->ways + way] = (uint32_t)(pa >> c->shift);
	inserted(c, set, way);
	return old == NONE || old == THEIRS ? UINT64_MAX : (uint64_t)old << c->shift;
}

/* Fills levels [0, upto) but victim caches with the line, the larger
 * first; a victim cache takes what the level above it evicts. */
static void fill_up(uint64_t pa, int upto)
{
	for (int i = upto - 1; i >= 0; i--) {
		uint64_t out;

		if (lv[i].exclusive)
			continue;
		out = fill(i, pa, 1);
		if (out != UINT64_MAX && i + 1 < nlevels && lv[i + 1].exclusive)
			fill(i + 1, out, 0);
	}
}

/* One load: the latency of where its line was. */
static double load(uint64_t pa)
{
	uint32_t set, way;
	int hit = nlevels;

	for (int i = 0; i < nlevels; i++)
		if (lookup(&lv[i], pa, &set, &way)) {
			hit = i;
			break;
		}
	served[hit]++;
	if (hit < nlevels && lv[hit].exclusive)	/* moves up: the victim cache lets it go */
		lv[hit].tag[set * lv[hit].ways + way] = NONE;
	else if (hit < nlevels)
		touch(&lv[hit], set, way);
	fill_up(pa, hit);
	return hit < nlevels ? lv[hit].ns : mem_ns;
}

/* --- the buffer's pages ------------------------------------------------- */

static uint32_t frame_bytes, frame_shift;	/* 0: contiguous */
static uint32_t *frame;			/* the buffer's page k is at frame[k] */

/* Distinct random frames from a pool of `pool` (partial Fisher-Yates). */
static void place(uint32_t top, uint32_t pool, uint64_t seed)
{
	uint32_t pages = (top + frame_bytes - 1) / frame_bytes, *all = malloc(pool * sizeof(*all));

	frame = malloc(pages * sizeof(*frame));
	if (!all || !frame)
		usage_error("out of memory", NULL);
	for (uint32_t i = 0; i < pool; i++)
		all[i] = i;
	for (uint32_t i = 0; i < pages; i++) {
		uint32_t j = i + (uint32_t)(mix(&seed) % (pool - i)), t = all[i];

		all[i] = all[j], all[j] = t;
		frame[i] = all[i];
	}
	free(all);
}

static uint64_t physical(uint64_t va)
{
	if (!frame_bytes)
		return va;
	return (uint64_t)frame[va >> frame_shift] << frame_shift | (va & (frame_bytes - 1));
}

/* --- the chase, built as tests/lat_mem.c builds it ---------------------- */

static uint32_t rnd_state;
static uint32_t rnd(void)		/* xorshift32, lat_mem.c's */
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

static uint32_t *next;			/* line i's load leads to line next[i] */
static uint32_t *group_order;

/* random_cycle(): Sattolo over lines [first, first + lines). */
static void random_cycle(uint32_t first, uint32_t lines)
{
	for (uint32_t i = 0; i < lines; i++)
		next[first + i] = first + i;
	for (uint32_t i = lines - 1; i > 0 && lines > 1; i--) {
		uint32_t a = first + i, b = first + rnd() % i, t = next[a];

		next[a] = next[b], next[b] = t;
	}
}

/* probe_shuffle() (boot/probe_api.c): Fisher-Yates with the same state. */
static void shuffle(uint32_t *order, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	for (uint32_t i = n - 1; i > 0 && n > 1; i--) {
		uint32_t j = rnd() % (i + 1), k = order[i];

		order[i] = order[j], order[j] = k;
	}
}

/* local_cycle(): each 32 KiB group a random cycle, the groups joined in a
 * random order. */
static void local_cycle(uint32_t lines, uint32_t line)
{
	uint32_t per = LOCAL_BYTES / line, groups = (lines + per - 1) / per;

	for (uint32_t g = 0; g < groups; g++)
		random_cycle(g * per, lines - g * per < per ? lines - g * per : per);
	shuffle(group_order, groups);
	for (uint32_t k = 0; k < groups && groups > 1; k++) {
		uint32_t first = group_order[k] * per, q = first;

		while (next[q] != first)
			q = next[q];
		next[q] = group_order[(k + 1) % groups] * per;
	}
}

/* --- the sweep ---------------------------------------------------------- */

/* One point: the warm-up pass, then the timed passes' mean latency. */
static double point(uint32_t bytes, uint32_t line, int local)
{
	uint32_t lines = bytes / line, p = 0;
	uint64_t timed = (uint64_t)lines * (lines < 2048 ? (4096 + lines - 1) / lines : 2);
	double sum = 0;

	if (local)
		local_cycle(lines, line);
	else
		random_cycle(0, lines);
	for (uint64_t n = (lines / 64 + 1) * 64ull; n; n--) {
		load(physical((uint64_t)p * line));
		p = next[p];
	}
	memset(served, 0, sizeof(served));
	for (uint64_t n = timed; n; n--) {
		sum += load(physical((uint64_t)p * line));
		p = next[p];
	}
	return sum / timed;
}

static uint32_t size_arg(const char *s, const char *what)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (end == s || *end || v == 0 || v > MAX_BYTES)
		usage_error(what, s);
	return (uint32_t)v;
}

static double ns_arg(const char *s, const char *what)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0) || v > 1e6)
		usage_error(what, s);
	return v;
}

static int pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static void level_arg(char *s)
{
	struct level *c = &lv[nlevels];
	char *f[5], *save = NULL, *arg = strdup(s);
	int n = 0;

	if (nlevels == MAX_LEVELS)
		usage_error("at most 4 levels", s);
	for (char *t = strtok_r(s, ":", &save); t && n < 5; t = strtok_r(NULL, ":", &save))
		f[n++] = t;
	if (n != 5 || strtok_r(NULL, ":", &save))
		usage_error("--level wants SIZE:WAYS:LINE:POLICY:NS", arg);
	c->bytes = size_arg(f[0], "a level's size: bytes, or with K or M");
	c->ways = (uint32_t)ns_arg(f[1], "a level's ways: 1 to 32");
	c->line = (uint32_t)ns_arg(f[2], "a level's line: a power of two, 16 to 4096 bytes");
	if (c->ways < 1 || c->ways > MAX_WAYS || (double)c->ways != atof(f[1]))
		usage_error("a level's ways: 1 to 32", arg);
	if (!pow2(c->line) || c->line < 16 || c->line > 4096)
		usage_error("a level's line: a power of two, 16 to 4096 bytes", arg);
	if (c->bytes % (c->ways * c->line) || !pow2(c->bytes / (c->ways * c->line)))
		usage_error("a level's size / (ways x line) must be a power of two (its sets)", arg);
	c->sets = c->bytes / (c->ways * c->line);
	for (c->shift = 0; 1u << c->shift < c->line; c->shift++)
		;
	c->policy = (enum policy)-1;
	for (int p = 0; p <= RRIP; p++)
		if (!strcmp(f[3], policy_name[p]))
			c->policy = (enum policy)p;
	if ((int)c->policy < 0)
		usage_error("a level's policy: lru, plru, nru, random or rrip", arg);
	c->ns = ns_arg(f[4], "a level's latency in ns");
	nlevels++;
	free(arg);
}

static const char usage[] =
	"usage: cachesim --level SIZE:WAYS:LINE:POLICY:NS [--level ...] [--mem NS]\n"
	"         [--exclusive L] [--taken L] [--placement 4k|2m|contig] [--pattern local|random]\n"
	"         [--stride B] [--top B] [--seed N] [--noise S[,S2]] [--spikes K]\n"
	"         [--format lmbench|plain]\n"
	"The lat_mem probe's chase (tests/lat_mem.c) through simulated caches, L1 first;\n"
	"prints the latency curve (ns per load) of its sweep, 512 B to --top.\n"
	"  --level       size (bytes, K, M), ways, line bytes, hit latency in ns; policy:\n"
	"                lru, plru (tree), nru (MRU bits), random, rrip (DRRIP)\n"
	"  --mem         memory's latency in ns (100)\n"
	"  --exclusive   level L is a victim cache of level L-1 (AMD Zen's L3)\n"
	"  --taken       one way of each set of level L held by a neighbour\n"
	"  --placement   4k: random 4 KiB frames (default); 2m: random 2 MiB frames; contig\n"
	"  --pattern     local (TLB-local, default) or random\n"
	"  --stride      bytes between loads (L1's line)\n"
	"  --top         largest working set (4x the largest level, at most 256M)\n"
	"  --seed        the chase's, the frames', random replacement's and the noise's (0)\n"
	"  --noise       each point x (1 + N(0, S)); S2 where most loads go past L2\n"
	"                (0.015,0.05; 0 for none)\n"
	"  --spikes      K single points x 1.3-3, none within two of another (0)\n"
	"  --format      lmbench: \"stride=B then <MB> <ns> (sizes of 512-byte multiples;\n"
	"                mmuguess -t reads it); plain: <bytes> <ns>\n";

int main(int argc, char **argv)
{
	uint32_t top = 0, stride = 0, pool = 0;
	uint64_t seed = 0;
	double sigma = 0.015, sigma2 = 0.05;
	int exclusive = 0, taken = 0, spikes = 0, local = 1, lmbench = 1;
	const char *placement = "4k", *excl_arg = NULL, *taken_arg = NULL;

	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			fputs(usage, stdout);
			return 0;
		}
		if (!v)
			usage_error(strncmp(o, "--", 2) ? "not an option" : "a value wanted after", o);
		i++;
		if (!strcmp(o, "--level")) {
			level_arg(argv[i]);
		} else if (!strcmp(o, "--mem")) {
			mem_ns = ns_arg(v, "--mem: ns");
		} else if (!strcmp(o, "--exclusive")) {
			exclusive = (int)ns_arg(v, "--exclusive: a level, 2 or more");
			excl_arg = v;
		} else if (!strcmp(o, "--taken")) {
			taken = (int)ns_arg(v, "--taken: a level");
			taken_arg = v;
		} else if (!strcmp(o, "--placement")) {
			if (strcmp(v, "4k") && strcmp(v, "2m") && strcmp(v, "contig"))
				usage_error("--placement: 4k, 2m or contig", v);
			placement = v;
		} else if (!strcmp(o, "--pattern")) {
			if (strcmp(v, "local") && strcmp(v, "random"))
				usage_error("--pattern: local or random", v);
			local = !strcmp(v, "local");
		} else if (!strcmp(o, "--stride")) {
			stride = size_arg(v, "--stride: bytes");
			if (!pow2(stride) || stride < 8 || stride > 4096)
				usage_error("--stride: a power of two, 8 to 4096", v);
		} else if (!strcmp(o, "--top")) {
			top = size_arg(v, "--top: bytes, or with K or M, at most 256M");
		} else if (!strcmp(o, "--seed")) {
			char *end;

			seed = strtoull(v, &end, 0);
			if (end == v || *end)
				usage_error("--seed: a number", v);
		} else if (!strcmp(o, "--noise")) {
			char *end;

			sigma = strtod(v, &end);
			sigma2 = *end == ',' ? strtod(end + 1, &end) : sigma ? 0.05 : 0;
			if (end == v || *end || !(sigma >= 0 && sigma < 1 && sigma2 >= 0 && sigma2 < 1))
				usage_error("--noise: S or S,S2, each 0 to 1", v);
		} else if (!strcmp(o, "--spikes")) {
			spikes = (int)ns_arg(v, "--spikes: a count");
		} else if (!strcmp(o, "--format")) {
			if (strcmp(v, "lmbench") && strcmp(v, "plain"))
				usage_error("--format: lmbench or plain", v);
			lmbench = !strcmp(v, "lmbench");
		} else {
			usage_error("not an option", o);
		}
	}
	if (!nlevels)
		usage_error("no --level given", NULL);
	if (exclusive && (exclusive < 2 || exclusive > nlevels))
		usage_error("--exclusive: a level from 2 to the last", excl_arg);
	if (taken && (taken > nlevels || lv[taken - 1].ways < 2))
		usage_error("--taken: a level of 2 ways or more", taken_arg);
	if (exclusive)
		lv[exclusive - 1].exclusive = 1;
	if (taken)
		lv[taken - 1].taken = 1;
	if (!stride)
		stride = lv[0].line;
	if (!top)
		for (int i = 0; i < nlevels; i++)
			top = 4ull * lv[i].bytes > MAX_BYTES ? MAX_BYTES :
			      4 * lv[i].bytes > top ? 4 * lv[i].bytes : top;
	if (top < MIN_BYTES)
		usage_error("--top: 512 bytes or more", NULL);

	rnd_state = 0x2545F491u ^ (uint32_t)(seed * 0x9E3779B9u);	/* seed 0: lat_mem's */
	if (!rnd_state)
		rnd_state = 1;
	if (!strcmp(placement, "4k"))
		frame_bytes = 4096, pool = 1u << 20;		/* frames of 4 GiB */
	else if (!strcmp(placement, "2m"))
		frame_bytes = 2u << 20, pool = 1u << 15;	/* frames of 64 GiB */
	if (frame_bytes) {
		while (1u << frame_shift < frame_bytes)
			frame_shift++;
		place(top, pool, seed ^ 0x5EED0001);
	}
	for (int i = 0; i < nlevels; i++) {
		struct level *c = &lv[i];
		size_t n = (size_t)c->sets * c->ways;

		c->tag = malloc(n * sizeof(*c->tag));
		c->age = malloc(n);
		c->bits = calloc(c->sets, sizeof(*c->bits));
		if (!c->tag || !c->age || !c->bits)
			usage_error("out of memory", NULL);
		for (size_t k = 0; k < n; k++) {	/* a taken way: the neighbour's line */
			c->tag[k] = c->taken && k % c->ways == c->ways - 1 ? THEIRS : NONE;
			c->age[k] = c->policy == LRU ? k % c->ways : RRPV_MAX;	/* LRU: ranks */
		}
		c->rnd = seed ^ (0x5EED0100 + i);
		c->psel = PSEL_MAX / 2;
		plru_paths(c);
	}
	next = malloc((top / stride) * sizeof(*next));
	group_order = malloc((top / LOCAL_BYTES + 1) * sizeof(*group_order));
	if (!next || !group_order)
		usage_error("out of memory", NULL);

	uint32_t bytes[80];
	double ns[80];
	int n = 0, spiked[80] = { 0 }, near = nlevels < 2 ? nlevels : 2;
	uint64_t noise = seed ^ 0x5EED0200;

	for (uint32_t p = MIN_BYTES; p <= top && n < 80; p *= 2)
		for (uint32_t q = 4; q < 8 && (uint64_t)p * q / 4 <= top; q++)
			bytes[n++] = p * q / 4;
	for (int k = 0; k < n; k++) {
		uint64_t all = 0, low = 0;

		ns[k] = point(bytes[k], stride, local);
		for (int i = 0; i <= nlevels; i++)
			all += served[i], low += i < near ? served[i] : 0;
		/* measured noise: the L1 and L2 plateaus' or the shared levels' */
		ns[k] *= 1.0 + gauss(&noise) * (2 * low >= all ? sigma : sigma2);
		if (ns[k] < 0.01)
			ns[k] = 0.01;
	}
	for (int s = 0, tries = 0; s < spikes && tries < 1000; tries++) {
		int k = (int)(mix(&noise) % n), clear = 1;

		for (int j = k - 2; j <= k + 2; j++)
			if (j >= 0 && j < n && spiked[j])
				clear = 0;
		if (clear)
			ns[k] *= 1.3 + 1.7 * uniform(&noise), spiked[k] = 1, s++;
	}
	if (lmbench)
		printf("\"stride=%u\n", stride);
	for (int k = 0; k < n; k++)
		if (!lmbench)
			printf("%u %.3f\n", bytes[k], ns[k]);
		else if (bytes[k] % 512 == 0)
			printf("%.9f %.3f\n", bytes[k] / 1048576.0, ns[k]);
	return 0;
}
