// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Property tests of virtio-mem with random input: the device configuration
 * check and the memory layout derived from it, the state arrays of Sub
 * Block Mode and Big Block Mode, and the range helpers.
 *
 * This file is included at the end of virtio_mem.c after virtio_mem_kunit.c
 * (with CONFIG_VIRTIO_MEM_KUNIT_TEST) and, like it, calls the static
 * functions of the driver on a struct virtio_mem without a device.
 *
 *   config: random device configurations (start address, region and usable
 *	size, device block size; 0, 2^63 and the top of the 64-bit space
 *	included) and ranges of pluggable addresses through
 *	virtio_mem_check_config(), virtio_mem_init_layout() and
 *	virtio_mem_update_last_usable().  A device block size that is not a
 *	power of two and a region at address 0 must be refused with -EINVAL;
 *	any other configuration must give a layout that holds the invariants
 *	of virtio_mem_prop_check_layout().
 *   sbm, bbm: random sequences of block preparations (which grow the state
 *	arrays and the sub-block bitmap), state changes, sub-block (un)plugs
 *	and queries, each compared with a reference model kept by the test.
 *   range: virtio_mem_overlaps_range() and virtio_mem_contains_range()
 *	against the same questions answered in 128-bit arithmetic.
 *
 * Case i of a run uses seed + i; a failure prints that seed, and booting
 * with virtio_mem.prop_seed=<seed> virtio_mem.prop_iters=1 replays it.
 * sbm and bbm run in chunks of VIRTIO_MEM_PROP_CHUNK cases, one KUnit
 * parameter each: KUnit gives each run of a test case 300 s, which
 * 100,000 SBM sequences on a KASAN kernel under TCG take longer than.
 */

#include <linux/ktime.h>
#include <linux/prandom.h>

static unsigned long long virtio_mem_prop_seed = 1;
module_param_named(prop_seed, virtio_mem_prop_seed, ullong, 0444);
MODULE_PARM_DESC(prop_seed, "KUnit virtio_mem_prop: seed of the first case");

static unsigned int virtio_mem_prop_iters = 2000;
module_param_named(prop_iters, virtio_mem_prop_iters, uint, 0444);
MODULE_PARM_DESC(prop_iters, "KUnit virtio_mem_prop: number of cases");

/* Blocks a state case prepares at most: two pages of mb_states, bb_states */
#define VIRTIO_MEM_PROP_MAX_MBS		(PAGE_SIZE + 256)
/* Sub-blocks per memory block at most (4 KiB pages, 128 MiB blocks: 2 MiB). */
#define VIRTIO_MEM_PROP_MAX_SBS		64
/* Operations per state case. */
#define VIRTIO_MEM_PROP_OPS		32

static u64 virtio_mem_prop_u64(struct rnd_state *rnd)
{
	return ((u64)prandom_u32_state(rnd) << 32) | prandom_u32_state(rnd);
}

/* A number in [0, n), n > 0. */
static u64 virtio_mem_prop_below(struct rnd_state *rnd, u64 n)
{
	return virtio_mem_prop_u64(rnd) % n;
}

static void virtio_mem_prop_report_ns(struct kunit *test, u64 ns,
				      unsigned int n, const char *what)
{
	u64 ms = div_u64(ns, NSEC_PER_MSEC);

	kunit_info(test, "%u cases (%s) in %llu ms: %llu/s\n", n, what, ms,
		   div64_u64((u64)n * MSEC_PER_SEC, ms ?: 1));
}

static void virtio_mem_prop_report(struct kunit *test, u64 t0, unsigned int n,
				   const char *what)
{
	virtio_mem_prop_report_ns(test, ktime_get_ns() - t0, n, what);
}

/* Cases per KUnit run of a chunked test case */
#define VIRTIO_MEM_PROP_CHUNK		10000

/* Parameter k + 1 for chunk k: cases k * VIRTIO_MEM_PROP_CHUNK and on */
static const void *virtio_mem_prop_gen_chunk(const void *prev, char *desc)
{
	unsigned long k = (unsigned long)prev;
	unsigned int first = k * VIRTIO_MEM_PROP_CHUNK;

	if (k && first >= virtio_mem_prop_iters)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "cases %u-%u", first,
		 min(first + VIRTIO_MEM_PROP_CHUNK, virtio_mem_prop_iters));
	return (const void *)(k + 1);
}

/* What the chunks of the running test case did so far */
static u64 virtio_mem_prop_chunk_ns;
static unsigned int virtio_mem_prop_chunk_n;

/* The cases [*first, *end) of this chunk; the seed line with the first */
static void virtio_mem_prop_chunk(struct kunit *test, unsigned int *first,
				  unsigned int *end)
{
	unsigned long k = (unsigned long)test->param_value - 1;

	*first = k * VIRTIO_MEM_PROP_CHUNK;
	*end = max(*first, min(*first + VIRTIO_MEM_PROP_CHUNK,
			       virtio_mem_prop_iters));
	if (!k) {
		kunit_info(test, "seed %llu, %u cases\n", virtio_mem_prop_seed,
			   virtio_mem_prop_iters);
		virtio_mem_prop_chunk_ns = 0;
		virtio_mem_prop_chunk_n = 0;
	}
}

/* Count this chunk's @n cases since @t0; the figures of all with the last */
static void virtio_mem_prop_chunk_done(struct kunit *test, u64 t0,
				       unsigned int n, unsigned int end,
				       const char *what)
{
	virtio_mem_prop_chunk_ns += ktime_get_ns() - t0;
	virtio_mem_prop_chunk_n += n;
	if (end >= virtio_mem_prop_iters)
		virtio_mem_prop_report_ns(test, virtio_mem_prop_chunk_ns,
					  virtio_mem_prop_chunk_n, what);
}

#define VIRTIO_MEM_PROP_FAIL(test, seed, fmt, ...)				\
	KUNIT_FAIL(test, "case seed %llu (replay: boot with virtio_mem.prop_seed=<seed> "	\
		   "virtio_mem.prop_iters=1): " fmt, seed, ##__VA_ARGS__)

/* ---- virtio_mem_prop: device configuration and layout ---- */

struct virtio_mem_prop_config {
	u64 addr;
	u64 region_size;
	u64 usable_region_size;
	u64 block_size;
	bool block_size_ok;	/* a power of two, known by construction */
	struct range pluggable;
};

static void virtio_mem_prop_gen_config(struct rnd_state *rnd,
				       struct virtio_mem_prop_config *c)
{
	const unsigned int k = virtio_mem_prop_below(rnd, 64);

	switch (virtio_mem_prop_below(rnd, 6)) {
	case 0:
		c->block_size = 0;
		c->block_size_ok = false;
		break;
	case 1:
		/* two bits set: bit k and another one */
		c->block_size = BIT_ULL(k) |
				BIT_ULL((k + 1 + virtio_mem_prop_below(rnd, 63)) % 64);
		c->block_size_ok = false;
		break;
	case 2:
		c->block_size = virtio_mem_prop_u64(rnd);
		c->block_size_ok = hweight64(c->block_size) == 1;
		break;
	case 3:
		c->block_size = BIT_ULL(k);
		c->block_size_ok = true;
		break;
	default:
		/* what devices use: 4 KiB to 16 GiB */
		c->block_size = BIT_ULL(12 + virtio_mem_prop_below(rnd, 23));
		c->block_size_ok = true;
		break;
	}

	/*
	 * Mostly the aligned, pluggable addresses of real devices: the others
	 * make virtio_mem_init_layout() print its warnings, once per case.
	 */
	switch (virtio_mem_prop_below(rnd, 8)) {
	case 0:
		c->addr = virtio_mem_prop_u64(rnd);
		break;
	case 1:
		/* within the last 4 GiB below 2^64 */
		c->addr = -(virtio_mem_prop_below(rnd, SZ_4G) + 1);
		break;
	case 2:
		/* 0, or in the first two memory blocks */
		c->addr = virtio_mem_prop_below(rnd, 2) ? 0 :
			  virtio_mem_prop_below(rnd, SZ_256M) & ~(SZ_4K - 1);
		break;
	case 3:
		/* below 128 TiB, aligned to a random power of two */
		c->addr = virtio_mem_prop_below(rnd, 1ULL << 47) &
			  ~(BIT_ULL(virtio_mem_prop_below(rnd, 40)) - 1);
		break;
	default:
		/* a memory block from 4 GiB to 64 TiB */
		c->addr = (SZ_4G + virtio_mem_prop_below(rnd, 1ULL << 46)) &
			  ~((u64)memory_block_size_bytes() - 1);
		break;
	}

	switch (virtio_mem_prop_below(rnd, 8)) {
	case 0:
		c->region_size = 0;
		break;
	case 1:
		c->region_size = virtio_mem_prop_u64(rnd);
		break;
	case 2:
		/* up to the last byte of the 64-bit space */
		c->region_size = -c->addr;
		break;
	default:
		c->region_size = virtio_mem_prop_below(rnd, 65) *
				 BIT_ULL(21 + virtio_mem_prop_below(rnd, 14));
		break;
	}
	if (virtio_mem_prop_below(rnd, 4))
		c->usable_region_size = c->region_size;
	else
		c->usable_region_size = c->region_size ?
			virtio_mem_prop_below(rnd, c->region_size) : 0;

	/* [0 or a memory block below 1 TiB, 2^40 .. 2^52 - 1] */
	c->pluggable.start = virtio_mem_prop_below(rnd, 2) ? 0 :
		virtio_mem_prop_below(rnd, 1ULL << 40) &
		~((u64)memory_block_size_bytes() - 1);
	c->pluggable.end = BIT_ULL(40 + virtio_mem_prop_below(rnd, 13)) - 1;
}

/*
 * The layout of an accepted configuration, with S the first pluggable
 * device address, max(addr, pluggable.start), E the last usable one,
 * min(addr + usable_region_size - 1, pluggable.end), and B the memory block
 * size in SBM, the big block size in BBM:
 *
 *  - SBM exactly when both the device block and the pageblock are smaller
 *    than a memory block; the sub-block is the larger of the two, a power
 *    of two, and a memory block holds at least two, a whole number of them;
 *  - in BBM, a big block is a power of two of whole memory blocks, at least
 *    as large as the device block;
 *  - the first block starts at S rounded up to B: at or after S, less than
 *    B after it (if S is beyond the pluggable range, nothing is usable);
 *  - every usable block (first .. last usable) lies within [S, E], and the
 *    block after them does not: none is lost, none is outside the device;
 *  - the offline threshold leaves room for two blocks.
 *
 * Addresses are compared in signed 128 bits: E is -1 for an empty usable
 * region at 0, a block id times B may not fit in 64 bits.
 */
static void virtio_mem_prop_check_layout(struct kunit *test, u64 seed,
					 const struct virtio_mem_prop_config *c)
{
	struct virtio_mem *vm = test->priv;
	const u64 mbs = memory_block_size_bytes();
	const u64 pbs = PAGE_SIZE * pageblock_nr_pages;
	__int128 s, e, first, next;
	unsigned long first_id, last_id;
	bool usable;
	u64 b;

	if (vm->in_sbm != (c->block_size < mbs && pbs < mbs)) {
		VIRTIO_MEM_PROP_FAIL(test, seed, "block size 0x%llx: %s",
				     c->block_size, vm->in_sbm ? "SBM" : "BBM");
		return;
	}
	if (vm->in_sbm) {
		b = mbs;
		first_id = vm->sbm.first_mb_id;
		last_id = vm->sbm.last_usable_mb_id;
		if (vm->sbm.sb_size != max(c->block_size, pbs) ||
		    !is_power_of_2(vm->sbm.sb_size) || vm->sbm.sbs_per_mb < 2 ||
		    (u64)vm->sbm.sbs_per_mb * vm->sbm.sb_size != mbs ||
		    vm->sbm.next_mb_id != first_id) {
			VIRTIO_MEM_PROP_FAIL(test, seed,
					     "block size 0x%llx: sub-block 0x%llx, %u per memory block, next %lu, first %lu",
					     c->block_size, vm->sbm.sb_size,
					     vm->sbm.sbs_per_mb, vm->sbm.next_mb_id,
					     first_id);
			return;
		}
	} else {
		b = vm->bbm.bb_size;
		first_id = vm->bbm.first_bb_id;
		last_id = vm->bbm.last_usable_bb_id;
		if (b < mbs || b < c->block_size || !is_power_of_2(b) ||
		    vm->bbm.next_bb_id != first_id) {
			VIRTIO_MEM_PROP_FAIL(test, seed,
					     "block size 0x%llx: big block 0x%llx, next %lu, first %lu",
					     c->block_size, b, vm->bbm.next_bb_id,
					     first_id);
			return;
		}
	}
	if (vm->offline_threshold < 2 * b) {
		VIRTIO_MEM_PROP_FAIL(test, seed, "offline threshold 0x%llx, block 0x%llx",
				     vm->offline_threshold, b);
		return;
	}

	s = max(c->addr, (u64)c->pluggable.start);
	e = min((__int128)c->addr + c->usable_region_size,
		(__int128)c->pluggable.end + 1) - 1;
	first = (__int128)first_id * b;
	usable = last_id >= first_id;
	/* the block after the usable ones, and its end */
	next = ((__int128)(usable ? last_id : first_id - 1) + 1) * b;
	if ((s > c->pluggable.end ? usable : first < s || first - s >= b) ||
	    (usable && next - 1 > e) || next + b - 1 <= e) {
		VIRTIO_MEM_PROP_FAIL(test, seed,
				     "addr 0x%llx, usable 0x%llx, pluggable 0x%llx..0x%llx, block 0x%llx: blocks %lu..%lu usable",
				     c->addr, c->usable_region_size,
				     (u64)c->pluggable.start, (u64)c->pluggable.end, b,
				     first_id, last_id);
	}
}

static void virtio_mem_prop_test_config(struct kunit *test)
{
	struct virtio_mem *vm = test->priv;
	struct virtio_mem_prop_config c;
	unsigned int i, refused = 0, sbm = 0;
	struct rnd_state rnd;
	u64 seed, t0;
	int rc;

	virtio_mem_kunit_reset_layout(test);
	kunit_info(test, "seed %llu, %u cases\n", virtio_mem_prop_seed,
		   virtio_mem_prop_iters);
	t0 = ktime_get_ns();
	for (i = 0; i < virtio_mem_prop_iters; i++) {
		seed = virtio_mem_prop_seed + i;
		prandom_seed_state(&rnd, seed);
		virtio_mem_prop_gen_config(&rnd, &c);

		vm->in_sbm = false;
		vm->offline_threshold = 0;
		memset(&vm->sbm, 0, sizeof(vm->sbm));
		memset(&vm->bbm, 0, sizeof(vm->bbm));
		vm->addr = c.addr;
		vm->region_size = c.region_size;
		vm->device_block_size = c.block_size;

		rc = virtio_mem_check_config(vm);
		if (rc != (c.block_size_ok && c.addr ? 0 : -EINVAL)) {
			VIRTIO_MEM_PROP_FAIL(test, seed, "address 0x%llx, block size 0x%llx: %d",
					     c.addr, c.block_size, rc);
			break;
		}
		if (rc) {
			refused++;
			continue;
		}
		virtio_mem_init_layout(vm, &c.pluggable);
		virtio_mem_update_last_usable(vm, c.usable_region_size,
					      &c.pluggable);
		sbm += vm->in_sbm;
		virtio_mem_prop_check_layout(test, seed, &c);
		if (test->status == KUNIT_FAILURE)
			break;
	}
	virtio_mem_prop_report(test, t0, i, "configurations");
	kunit_info(test, "%u refused, %u SBM, %u BBM\n", refused, sbm,
		   i - refused - sbm);
}

/* ---- virtio_mem_prop: the state arrays against a reference model ---- */

/* What the driver must have recorded for the blocks prepared so far. */
struct virtio_mem_prop_model {
	unsigned long nr;		/* blocks prepared */
	unsigned long nr_usable;	/* blocks that can be prepared */
	unsigned int sbs;		/* sub-blocks per block (SBM) */
	unsigned long count[VIRTIO_MEM_SBM_MB_COUNT];
	u8 state[VIRTIO_MEM_PROP_MAX_MBS];
	unsigned long *plugged;		/* bit mb * sbs + sb, set one at a time */
	unsigned long first_id;
	u64 seed;
	int op;
};

static struct virtio_mem_prop_model *virtio_mem_prop_model(struct kunit *test)
{
	struct virtio_mem_prop_model *m;

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, m);
	m->plugged = kunit_kcalloc(test,
				   BITS_TO_LONGS(VIRTIO_MEM_PROP_MAX_MBS *
						 VIRTIO_MEM_PROP_MAX_SBS),
				   sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, m->plugged);
	return m;
}

static void virtio_mem_prop_model_reset(struct virtio_mem_prop_model *m,
					u64 seed, unsigned long first_id,
					unsigned long nr_usable, unsigned int sbs)
{
	m->seed = seed;
	m->first_id = first_id;
	m->nr = 0;
	m->nr_usable = nr_usable;
	m->sbs = sbs;
	memset(m->count, 0, sizeof(m->count));
	memset(m->state, 0, sizeof(m->state));
	bitmap_zero(m->plugged, VIRTIO_MEM_PROP_MAX_MBS * VIRTIO_MEM_PROP_MAX_SBS);
}

#define VIRTIO_MEM_PROP_MODEL_FAIL(test, m, fmt, ...) do {			\
	const struct virtio_mem_prop_model *__m = (m);				\
										\
	VIRTIO_MEM_PROP_FAIL(test, __m->seed, "op %d, %lu of %lu blocks prepared: " fmt, \
			     __m->op, __m->nr, __m->nr_usable, ##__VA_ARGS__);	\
} while (0)

/* Number of a random prepared block; the model has at least one. */
static unsigned long virtio_mem_prop_any(struct rnd_state *rnd,
					 const struct virtio_mem_prop_model *m)
{
	return virtio_mem_prop_below(rnd, m->nr);
}

/* How many blocks the next preparation asks for: mostly a few. */
static unsigned long virtio_mem_prop_how_many(struct rnd_state *rnd)
{
	return 1 + virtio_mem_prop_below(rnd, virtio_mem_prop_below(rnd, 4) ? 8 :
					 VIRTIO_MEM_PROP_MAX_MBS);
}

static bool virtio_mem_prop_sbm_block_ok(struct kunit *test,
					 struct virtio_mem_prop_model *m,
					 unsigned long i)
{
	struct virtio_mem *vm = test->priv;
	const unsigned long mb_id = m->first_id + i;
	unsigned int sb;

	if (virtio_mem_sbm_get_mb_state(vm, mb_id) != m->state[i]) {
		VIRTIO_MEM_PROP_MODEL_FAIL(test, m, "memory block %lu: state %u, expected %u",
					   i, virtio_mem_sbm_get_mb_state(vm, mb_id),
					   m->state[i]);
		return false;
	}
	for (sb = 0; sb < m->sbs; sb++) {
		if (virtio_mem_sbm_test_sb_plugged(vm, mb_id, sb, 1) !=
		    test_bit(i * m->sbs + sb, m->plugged)) {
			VIRTIO_MEM_PROP_MODEL_FAIL(test, m,
						   "memory block %lu, sub-block %u: %s, expected %s",
						   i, sb,
						   test_bit(i * m->sbs + sb, m->plugged) ?
						   "unplugged" : "plugged",
						   test_bit(i * m->sbs + sb, m->plugged) ?
						   "plugged" : "unplugged");
			return false;
		}
	}
	return true;
}

static bool virtio_mem_prop_counts_ok(struct kunit *test,
				      struct virtio_mem_prop_model *m,
				      const unsigned long *count, int n)
{
	int st;

	for (st = 0; st < n; st++) {
		if (count[st] != m->count[st]) {
			VIRTIO_MEM_PROP_MODEL_FAIL(test, m, "%lu blocks in state %d, expected %lu",
						   count[st], st, m->count[st]);
			return false;
		}
	}
	return true;
}

/* Prepare up to @n more memory blocks; false on a mismatch. */
static bool virtio_mem_prop_sbm_prepare(struct kunit *test,
					struct virtio_mem_prop_model *m,
					unsigned long n)
{
	struct virtio_mem *vm = test->priv;
	const u8 *old = vm->sbm.mb_states;
	unsigned long mb_id, i;
	int rc;

	for (; n; n--) {
		rc = virtio_mem_sbm_prepare_next_mb(vm, &mb_id);
		if (m->nr == m->nr_usable) {
			if (rc != -ENOSPC) {
				VIRTIO_MEM_PROP_MODEL_FAIL(test, m, "one block too many: %d", rc);
				return false;
			}
			break;
		}
		if (rc || mb_id != m->first_id + m->nr) {
			VIRTIO_MEM_PROP_MODEL_FAIL(test, m, "prepared block %lu: %d",
						   mb_id - m->first_id, rc);
			return false;
		}
		m->nr++;
		m->count[VIRTIO_MEM_SBM_MB_UNUSED]++;
	}
	if (!virtio_mem_kunit_covers(vm->sbm.mb_states, m->nr) ||
	    !virtio_mem_kunit_covers(vm->sbm.sb_states,
				     BITS_TO_LONGS(m->nr * m->sbs) * sizeof(long))) {
		VIRTIO_MEM_PROP_MODEL_FAIL(test, m, "the state arrays were not grown");
		return false;
	}
	/* a grown array holds what the old one did */
	for (i = 0; vm->sbm.mb_states != old && i < m->nr; i++)
		if (!virtio_mem_prop_sbm_block_ok(test, m, i))
			return false;
	return true;
}

static bool virtio_mem_prop_sbm_op(struct kunit *test, struct rnd_state *rnd,
				   struct virtio_mem_prop_model *m)
{
	struct virtio_mem *vm = test->priv;
	unsigned long i, mb_id, seen;
	unsigned int sb, count, j;
	bool want, got;
	u8 st;

	if (!m->nr || !virtio_mem_prop_below(rnd, 6))
		return virtio_mem_prop_sbm_prepare(test, m, virtio_mem_prop_how_many(rnd));

	i = virtio_mem_prop_any(rnd, m);
	mb_id = m->first_id + i;
	sb = virtio_mem_prop_below(rnd, m->sbs);
	count = 1 + virtio_mem_prop_below(rnd, m->sbs - sb);
	switch (virtio_mem_prop_below(rnd, 5)) {
	case 0:
		st = virtio_mem_prop_below(rnd, VIRTIO_MEM_SBM_MB_COUNT);
		virtio_mem_sbm_set_mb_state(vm, mb_id, st);
		m->count[m->state[i]]--;
		m->count[st]++;
		m->state[i] = st;
		break;
	case 1:
		virtio_mem_sbm_set_sb_plugged(vm, mb_id, sb, count);
		for (j = 0; j < count; j++)
			__set_bit(i * m->sbs + sb + j, m->plugged);
		break;
	case 2:
		virtio_mem_sbm_set_sb_unplugged(vm, mb_id, sb, count);
		for (j = 0; j < count; j++)
			__clear_bit(i * m->sbs + sb + j, m->plugged);
		break;
	case 3:
		for (want = true, j = 0; j < count; j++)
			want &= test_bit(i * m->sbs + sb + j, m->plugged);
		got = virtio_mem_sbm_test_sb_plugged(vm, mb_id, sb, count);
		if (got != want) {
			VIRTIO_MEM_PROP_MODEL_FAIL(test, m,
						   "block %lu, sub-blocks %u..%u all plugged: %d, expected %d",
						   i, sb, sb + count - 1, got, want);
			return false;
		}
		for (want = true, j = 0; j < count; j++)
			want &= !test_bit(i * m->sbs + sb + j, m->plugged);
		got = virtio_mem_sbm_test_sb_unplugged(vm, mb_id, sb, count);
		if (got != want) {
			VIRTIO_MEM_PROP_MODEL_FAIL(test, m,
						   "block %lu, sub-blocks %u..%u all unplugged: %d, expected %d",
						   i, sb, sb + count - 1, got, want);
			return false;
		}
		for (j = 0; j < m->sbs && test_bit(i * m->sbs + j, m->plugged); j++)
			;
		sb = virtio_mem_sbm_first_unplugged_sb(vm, mb_id);
		if (sb != j) {
			VIRTIO_MEM_PROP_MODEL_FAIL(test, m,
						   "block %lu: first unplugged sub-block %u, expected %u",
						   i, sb, j);
			return false;
		}
		break;
	default:
		/* the blocks in one state, in both directions */
		st = virtio_mem_prop_below(rnd, VIRTIO_MEM_SBM_MB_COUNT);
		seen = 0;
		virtio_mem_sbm_for_each_mb(vm, mb_id, st) {
			if (m->state[mb_id - m->first_id] != st)
				break;
			seen++;
		}
		virtio_mem_sbm_for_each_mb_rev(vm, mb_id, st) {
			if (m->state[mb_id - m->first_id] != st)
				break;
			seen++;
		}
		if (seen != 2 * m->count[st]) {
			VIRTIO_MEM_PROP_MODEL_FAIL(test, m,
						   "%lu visits of blocks in state %u, expected 2 x %lu",
						   seen, st, m->count[st]);
			return false;
		}
		break;
	}
	return virtio_mem_prop_sbm_block_ok(test, m, i) &&
	       virtio_mem_prop_counts_ok(test, m, vm->sbm.mb_count,
					 VIRTIO_MEM_SBM_MB_COUNT);
}

static void virtio_mem_prop_test_sbm(struct kunit *test)
{
	struct virtio_mem *vm = test->priv;
	struct virtio_mem_prop_model *m = virtio_mem_prop_model(test);
	unsigned long i, first_id, nr_usable;
	unsigned int sbs, n, first, end;
	struct rnd_state rnd;
	u64 seed, t0;
	bool ok = true;

	virtio_mem_kunit_need_sizes(test);
	virtio_mem_prop_chunk(test, &first, &end);
	t0 = ktime_get_ns();
	for (n = first; ok && n < end; n++) {
		seed = virtio_mem_prop_seed + n;
		prandom_seed_state(&rnd, seed);
		sbs = 2 << virtio_mem_prop_below(&rnd, 6);
		first_id = virtio_mem_phys_to_mb_id(SZ_4G) +
			   virtio_mem_prop_below(&rnd, 1UL << 20);
		nr_usable = 1 + virtio_mem_prop_below(&rnd, virtio_mem_prop_below(&rnd, 4) ?
						      64 : VIRTIO_MEM_PROP_MAX_MBS);
		virtio_mem_prop_model_reset(m, seed, first_id, nr_usable, sbs);

		memset(&vm->sbm, 0, sizeof(vm->sbm));
		vm->in_sbm = true;
		vm->sbm.sbs_per_mb = sbs;
		vm->sbm.sb_size = memory_block_size_bytes() / sbs;
		vm->sbm.first_mb_id = first_id;
		vm->sbm.next_mb_id = first_id;
		vm->sbm.last_usable_mb_id = first_id + nr_usable - 1;

		for (m->op = 0; ok && m->op < VIRTIO_MEM_PROP_OPS; m->op++)
			ok = virtio_mem_prop_sbm_op(test, &rnd, m);
		for (i = 0; ok && i < m->nr; i++)
			ok = virtio_mem_prop_sbm_block_ok(test, m, i);
		if (ok && find_next_bit(vm->sbm.sb_states,
					BITS_TO_LONGS(m->nr * sbs) * BITS_PER_LONG,
					m->nr * sbs) < BITS_TO_LONGS(m->nr * sbs) * BITS_PER_LONG) {
			VIRTIO_MEM_PROP_MODEL_FAIL(test, m,
						   "a sub-block bit set behind the last block");
			ok = false;
		}
		vfree(vm->sbm.mb_states);
		vfree(vm->sbm.sb_states);
		vm->sbm.mb_states = NULL;
		vm->sbm.sb_states = NULL;
	}
	/*
	 * Stay in SBM: the exit frees the (now NULL) SBM arrays.  In BBM it
	 * would take bbm.bb_states, which shares its bytes with sbm.mb_count[].
	 */
	virtio_mem_prop_chunk_done(test, t0, n - first, end,
				   "operation sequences");
}

static bool virtio_mem_prop_bbm_block_ok(struct kunit *test,
					 struct virtio_mem_prop_model *m,
					 unsigned long i)
{
	struct virtio_mem *vm = test->priv;

	if (virtio_mem_bbm_get_bb_state(vm, m->first_id + i) != m->state[i]) {
		VIRTIO_MEM_PROP_MODEL_FAIL(test, m, "big block %lu: state %d, expected %u",
					   i, virtio_mem_bbm_get_bb_state(vm, m->first_id + i),
					   m->state[i]);
		return false;
	}
	return true;
}

static bool virtio_mem_prop_bbm_op(struct kunit *test, struct rnd_state *rnd,
				   struct virtio_mem_prop_model *m)
{
	struct virtio_mem *vm = test->priv;
	unsigned long i, n, bb_id, seen;
	const u8 *old;
	int rc;
	u8 st;

	if (!m->nr || !virtio_mem_prop_below(rnd, 4)) {
		old = vm->bbm.bb_states;
		for (n = virtio_mem_prop_how_many(rnd); n; n--) {
			rc = virtio_mem_bbm_prepare_next_bb(vm, &bb_id);
			if (m->nr == m->nr_usable) {
				if (rc == -ENOSPC)
					break;
				VIRTIO_MEM_PROP_MODEL_FAIL(test, m, "one big block too many: %d",
							   rc);
				return false;
			}
			if (rc || bb_id != m->first_id + m->nr) {
				VIRTIO_MEM_PROP_MODEL_FAIL(test, m, "prepared big block %lu: %d",
							   bb_id - m->first_id, rc);
				return false;
			}
			m->nr++;
			m->count[VIRTIO_MEM_BBM_BB_UNUSED]++;
		}
		if (!virtio_mem_kunit_covers(vm->bbm.bb_states, m->nr)) {
			VIRTIO_MEM_PROP_MODEL_FAIL(test, m, "the state array was not grown");
			return false;
		}
		for (i = 0; vm->bbm.bb_states != old && i < m->nr; i++)
			if (!virtio_mem_prop_bbm_block_ok(test, m, i))
				return false;
		return virtio_mem_prop_counts_ok(test, m, vm->bbm.bb_count,
						 VIRTIO_MEM_BBM_BB_COUNT);
	}

	i = virtio_mem_prop_any(rnd, m);
	st = virtio_mem_prop_below(rnd, VIRTIO_MEM_BBM_BB_COUNT);
	if (virtio_mem_prop_below(rnd, 2)) {
		virtio_mem_bbm_set_bb_state(vm, m->first_id + i, st);
		m->count[m->state[i]]--;
		m->count[st]++;
		m->state[i] = st;
	} else {
		seen = 0;
		virtio_mem_bbm_for_each_bb(vm, bb_id, st) {
			if (m->state[bb_id - m->first_id] != st)
				break;
			seen++;
		}
		virtio_mem_bbm_for_each_bb_rev(vm, bb_id, st) {
			if (m->state[bb_id - m->first_id] != st)
				break;
			seen++;
		}
		if (seen != 2 * m->count[st]) {
			VIRTIO_MEM_PROP_MODEL_FAIL(test, m,
						   "%lu visits of big blocks in state %u, expected 2 x %lu",
						   seen, st, m->count[st]);
			return false;
		}
	}
	return virtio_mem_prop_bbm_block_ok(test, m, i) &&
	       virtio_mem_prop_counts_ok(test, m, vm->bbm.bb_count,
					 VIRTIO_MEM_BBM_BB_COUNT);
}

static void virtio_mem_prop_test_bbm(struct kunit *test)
{
	struct virtio_mem *vm = test->priv;
	struct virtio_mem_prop_model *m = virtio_mem_prop_model(test);
	unsigned long i, first_id, nr_usable;
	struct rnd_state rnd;
	u64 seed, t0;
	bool ok = true;
	unsigned int n, first, end;

	virtio_mem_kunit_need_sizes(test);
	virtio_mem_prop_chunk(test, &first, &end);
	t0 = ktime_get_ns();
	for (n = first; ok && n < end; n++) {
		seed = virtio_mem_prop_seed + n;
		prandom_seed_state(&rnd, seed);
		memset(&vm->bbm, 0, sizeof(vm->bbm));
		vm->in_sbm = false;
		vm->bbm.bb_size = (u64)memory_block_size_bytes() <<
				  virtio_mem_prop_below(&rnd, 4);
		first_id = virtio_mem_phys_to_bb_id(vm, SZ_4G) +
			   virtio_mem_prop_below(&rnd, 1UL << 20);
		nr_usable = 1 + virtio_mem_prop_below(&rnd, virtio_mem_prop_below(&rnd, 4) ?
						      64 : VIRTIO_MEM_PROP_MAX_MBS);
		virtio_mem_prop_model_reset(m, seed, first_id, nr_usable, 0);
		vm->bbm.first_bb_id = first_id;
		vm->bbm.next_bb_id = first_id;
		vm->bbm.last_usable_bb_id = first_id + nr_usable - 1;

		for (m->op = 0; ok && m->op < VIRTIO_MEM_PROP_OPS; m->op++)
			ok = virtio_mem_prop_bbm_op(test, &rnd, m);
		for (i = 0; ok && i < m->nr; i++)
			ok = virtio_mem_prop_bbm_block_ok(test, m, i);
		vfree(vm->bbm.bb_states);
		vm->bbm.bb_states = NULL;
	}
	virtio_mem_prop_chunk_done(test, t0, n - first, end,
				   "operation sequences");
}

/* ---- virtio_mem_prop: the range helpers ---- */

/* Mostly a value near @near, otherwise anywhere. */
static u64 virtio_mem_prop_near(struct rnd_state *rnd, u64 near)
{
	switch (virtio_mem_prop_below(rnd, 4)) {
	case 0:
		return virtio_mem_prop_u64(rnd);
	case 1:
		return near;
	default:
		return near + virtio_mem_prop_below(rnd, 9) - 4;
	}
}

static void virtio_mem_prop_test_range(struct kunit *test)
{
	struct virtio_mem *vm = test->priv;
	__int128 region_end, end;
	bool overlaps, contains;
	u64 seed, t0, start, size;
	struct rnd_state rnd;
	unsigned int n;

	kunit_info(test, "seed %llu, %u cases\n", virtio_mem_prop_seed,
		   virtio_mem_prop_iters);
	t0 = ktime_get_ns();
	for (n = 0; n < virtio_mem_prop_iters; n++) {
		seed = virtio_mem_prop_seed + n;
		prandom_seed_state(&rnd, seed);
		vm->addr = virtio_mem_prop_below(&rnd, 2) ? virtio_mem_prop_u64(&rnd) :
			   -virtio_mem_prop_below(&rnd, SZ_1G);
		vm->region_size = virtio_mem_prop_near(&rnd, -vm->addr);
		start = virtio_mem_prop_near(&rnd, virtio_mem_prop_below(&rnd, 2) ?
					     vm->addr : vm->addr + vm->region_size);
		size = virtio_mem_prop_near(&rnd, vm->addr + vm->region_size - start);

		/* [addr, addr + region_size) and [start, start + size) */
		region_end = (__int128)vm->addr + vm->region_size;
		end = (__int128)start + size;
		overlaps = size && vm->region_size && start < region_end &&
			   vm->addr < end;
		contains = start >= vm->addr && end <= region_end;
		if (virtio_mem_overlaps_range(vm, start, size) != overlaps ||
		    virtio_mem_contains_range(vm, start, size) != contains) {
			VIRTIO_MEM_PROP_FAIL(test, seed,
					     "device 0x%llx + 0x%llx, range 0x%llx + 0x%llx: overlaps %d, contains %d; expected %d, %d",
					     vm->addr, vm->region_size, start, size,
					     virtio_mem_overlaps_range(vm, start, size),
					     virtio_mem_contains_range(vm, start, size),
					     overlaps, contains);
			break;
		}
	}
	virtio_mem_prop_report(test, t0, n, "ranges");
}

static struct kunit_case virtio_mem_prop_test_cases[] = {
	KUNIT_CASE(virtio_mem_prop_test_config),
	KUNIT_CASE_PARAM(virtio_mem_prop_test_sbm, virtio_mem_prop_gen_chunk),
	KUNIT_CASE_PARAM(virtio_mem_prop_test_bbm, virtio_mem_prop_gen_chunk),
	KUNIT_CASE(virtio_mem_prop_test_range),
	{}
};

static struct kunit_suite virtio_mem_prop_test_suite = {
	.name = "virtio_mem_prop",
	.init = virtio_mem_kunit_init,
	.exit = virtio_mem_kunit_exit,
	.test_cases = virtio_mem_prop_test_cases,
};

kunit_test_suite(virtio_mem_prop_test_suite);
