// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for the virtio-mem block id, bitmap, state array, range and
 * device configuration math, and for decisions of the unplug paths.
 *
 * This file is included at the end of virtio_mem.c (with
 * CONFIG_VIRTIO_MEM_KUNIT_TEST), so the tests call the static functions of
 * the driver directly, on a struct virtio_mem that the test sets up: no
 * device and no virtqueue are involved.  virtio_mem_unplug replaces the
 * driver's calls into memory hotplug, the page allocator and the device with
 * static stubs (kunit_activate_static_stub()).
 *
 * Expected values are literals, or rows of literal tables, that can be
 * checked by hand; they are written for the sizes below, which
 * virtio_mem_conv_test_kernel_sizes checks against the running kernel.  On
 * other arches (or page sizes) the cases that need them are skipped.
 */

#include <kunit/resource.h>
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/sizes.h>
#include <linux/vmalloc.h>

/*
 * The sizes the expected values are written for.
 *
 * Memory block: x86_64 uses MIN_MEMORY_BLOCK_SIZE, 1 << SECTION_SIZE_BITS =
 * 1 << 27 = 128 MiB, on machines with less than 64 GiB of RAM (kunit.py
 * boots QEMU with 1 GiB; see probe_memory_block_size()); arm64 with 4 KiB
 * pages has SECTION_SIZE_BITS 27 too and the generic
 * memory_block_size_bytes(): 128 MiB.
 *
 * Pageblock: with 4 KiB pages, pageblock_order is MAX_PAGE_ORDER = 10: 1024
 * pages, 4 MiB; with CONFIG_HUGETLB_PAGE it is HUGETLB_PAGE_ORDER and with
 * CONFIG_TRANSPARENT_HUGEPAGE HPAGE_PMD_ORDER, both 9: 512 pages, 2 MiB
 * (both arches).  Unlike 6.1, where only CONFIG_HUGETLB_PAGE made it 2 MiB,
 * 6.12 takes transparent huge pages into account too.
 */
#if defined(CONFIG_HUGETLB_PAGE) || defined(CONFIG_TRANSPARENT_HUGEPAGE)
#define VIRTIO_MEM_KUNIT_HUGE_PAGEBLOCK	1
#else
#define VIRTIO_MEM_KUNIT_HUGE_PAGEBLOCK	0
#endif

#if defined(CONFIG_X86_64) || (defined(CONFIG_ARM64) && defined(CONFIG_ARM64_4K_PAGES))
#define VIRTIO_MEM_KUNIT_MB_SIZE	SZ_128M
#define VIRTIO_MEM_KUNIT_PAGE_SIZE	SZ_4K
#if VIRTIO_MEM_KUNIT_HUGE_PAGEBLOCK
#define VIRTIO_MEM_KUNIT_PAGEBLOCK_SIZE	SZ_2M
#else
#define VIRTIO_MEM_KUNIT_PAGEBLOCK_SIZE	SZ_4M
#endif
#else
/* No literal tables for this arch: the cases below that need them skip. */
#define VIRTIO_MEM_KUNIT_MB_SIZE	0
#define VIRTIO_MEM_KUNIT_PAGE_SIZE	0
#define VIRTIO_MEM_KUNIT_PAGEBLOCK_SIZE	0
#endif

/* Skip a case whose expected values are written for the sizes above. */
static void virtio_mem_kunit_need_sizes(struct kunit *test)
{
	if (!VIRTIO_MEM_KUNIT_MB_SIZE)
		kunit_skip(test,
			   "expected values are written for x86_64 and arm64 with 4 KiB pages");
}

/* A made-up range of hotpluggable physical addresses: [0, 64 TiB). */
#define VIRTIO_MEM_KUNIT_PLUGGABLE_END	((1ULL << 46) - 1)

/*
 * A virtio-mem instance without a device: the fake virtio_device only gives
 * dev_warn() and friends a name to print.
 */
static int virtio_mem_kunit_init(struct kunit *test)
{
	struct virtio_device *vdev;
	struct virtio_mem *vm;

	vm = kunit_kzalloc(test, sizeof(*vm), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, vm);
	vdev = kunit_kzalloc(test, sizeof(*vdev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, vdev);

	vdev->dev.init_name = "virtio_mem_kunit";
	vm->vdev = vdev;
	mutex_init(&vm->hotplug_mutex);
	/* as if the device was going away: virtio_mem_retry() queues nothing */
	spin_lock_init(&vm->removal_lock);
	vm->removing = true;
	test->priv = vm;
	return 0;
}

/* Free what the driver allocated with vzalloc() while growing its arrays. */
static void virtio_mem_kunit_exit(struct kunit *test)
{
	struct virtio_mem *vm = test->priv;

	if (!vm)
		return;
	if (vm->in_sbm) {
		vfree(vm->sbm.mb_states);
		vfree(vm->sbm.sb_states);
	} else {
		vfree(vm->bbm.bb_states);
	}
}

/*
 * True if the first @bytes bytes from @array are backed by the vmalloc() area
 * of @array: the driver must have grown its array before the test writes to
 * it (a vmalloc() area is followed by an unmapped guard page).
 */
static bool virtio_mem_kunit_covers(const void *array, unsigned long bytes)
{
	return array && vmalloc_to_page(array) &&
	       vmalloc_to_page((const u8 *)array + bytes - 1);
}

/* ---- virtio_mem_conv: address <-> block id conversions ---- */

/*
 * The running kernel has the sizes the literal tables are written for: a
 * failure here explains the failures of the other cases.
 */
static void virtio_mem_conv_test_kernel_sizes(struct kunit *test)
{
	virtio_mem_kunit_need_sizes(test);
	KUNIT_EXPECT_EQ(test, memory_block_size_bytes(),
			(unsigned long)VIRTIO_MEM_KUNIT_MB_SIZE);
	KUNIT_EXPECT_EQ(test, PAGE_SIZE, (unsigned long)VIRTIO_MEM_KUNIT_PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, PAGE_SIZE * pageblock_nr_pages,
			(unsigned long)VIRTIO_MEM_KUNIT_PAGEBLOCK_SIZE);
}

/* A memory block id and its first byte: id * 128 MiB (id << 27). */
static const struct {
	unsigned long id, start;
} virtio_mem_kunit_mbs[] = {
	{ 0, 0x0 },
	{ 1, 0x8000000 },
	{ 2, 0x10000000 },
	{ 3, 0x18000000 },
	{ 31, 0xf8000000 },
	{ 32, 0x100000000 },		/* 4 GiB */
	{ 1000, 0x1f40000000 },		/* 125 GiB */
	{ 4096, 0x8000000000 },		/* 512 GiB */
	{ 65535, 0x7fff8000000 },	/* 8 TiB - 128 MiB */
	/* the last block below 2^52: 2^25 - 1, 2^52 - 2^27 */
	{ 0x1ffffff, 0xffffff8000000 },
};

static void virtio_mem_conv_test_mb_id(struct kunit *test)
{
	const unsigned long mb_size = VIRTIO_MEM_KUNIT_MB_SIZE;
	int i;

	virtio_mem_kunit_need_sizes(test);

	for (i = 0; i < ARRAY_SIZE(virtio_mem_kunit_mbs); i++) {
		const unsigned long id = virtio_mem_kunit_mbs[i].id;
		const unsigned long start = virtio_mem_kunit_mbs[i].start;

		KUNIT_EXPECT_EQ_MSG(test, virtio_mem_mb_id_to_phys(id), start,
				    "mb_id %lu", id);
		/* first byte, last byte, first byte of the next block */
		KUNIT_EXPECT_EQ_MSG(test, virtio_mem_phys_to_mb_id(start), id,
				    "mb_id %lu first byte", id);
		KUNIT_EXPECT_EQ_MSG(test,
				    virtio_mem_phys_to_mb_id(start + mb_size - 1),
				    id, "mb_id %lu last byte", id);
		KUNIT_EXPECT_EQ_MSG(test, virtio_mem_phys_to_mb_id(start + mb_size),
				    id + 1, "mb_id %lu next block", id);
		if (id)
			KUNIT_EXPECT_EQ_MSG(test,
					    virtio_mem_phys_to_mb_id(start - 1),
					    id - 1, "mb_id %lu byte before", id);
		/* the middle of the block */
		KUNIT_EXPECT_EQ_MSG(test,
				    virtio_mem_phys_to_mb_id(start + mb_size / 2),
				    id, "mb_id %lu middle", id);
	}
}

/*
 * Memory blocks that the sub-block cases look into: their ids and first
 * bytes (id * 128 MiB).
 */
static const struct {
	unsigned long id, start;
} virtio_mem_kunit_sb_mbs[] = {
	{ 1, 0x8000000 },
	{ 7, 0x38000000 },
	{ 4096, 0x8000000000 },
};

/* A sub-block size and the id of the last sub-block of a memory block. */
struct virtio_mem_kunit_sb_size {
	const char *name;
	u64 size;
	/* 128 MiB / size - 1 */
	unsigned long last_sb_id;
};

static const struct virtio_mem_kunit_sb_size virtio_mem_kunit_sb_sizes[] = {
	{ "2MiB_sub_blocks", SZ_2M, 63 },
	{ "4MiB_sub_blocks", SZ_4M, 31 },
	{ "16MiB_sub_blocks", SZ_16M, 7 },
	/* half a memory block: the largest sub-block size SBM uses */
	{ "64MiB_sub_blocks", SZ_64M, 1 },
};

static void virtio_mem_kunit_sb_size_desc(const struct virtio_mem_kunit_sb_size *p,
					  char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(virtio_mem_kunit_sb_size, virtio_mem_kunit_sb_sizes,
		  virtio_mem_kunit_sb_size_desc);

static void virtio_mem_conv_test_sb_id(struct kunit *test)
{
	const struct virtio_mem_kunit_sb_size *p = test->param_value;
	const unsigned long mb_size = VIRTIO_MEM_KUNIT_MB_SIZE;
	const unsigned long sb_size = p->size;
	const unsigned long last = p->last_sb_id;
	struct virtio_mem *vm = test->priv;
	int i;

	virtio_mem_kunit_need_sizes(test);
	vm->in_sbm = true;
	vm->sbm.sb_size = sb_size;
	vm->sbm.sbs_per_mb = last + 1;

	for (i = 0; i < ARRAY_SIZE(virtio_mem_kunit_sb_mbs); i++) {
		const unsigned long mb_id = virtio_mem_kunit_sb_mbs[i].id;
		const unsigned long start = virtio_mem_kunit_sb_mbs[i].start;
		unsigned long sb_id;

		KUNIT_EXPECT_EQ(test, virtio_mem_phys_to_sb_id(vm, start), 0);
		KUNIT_EXPECT_EQ(test,
				virtio_mem_phys_to_sb_id(vm, start + sb_size - 1), 0);
		KUNIT_EXPECT_EQ(test, virtio_mem_phys_to_sb_id(vm, start + sb_size), 1);
		KUNIT_EXPECT_EQ(test,
				virtio_mem_phys_to_sb_id(vm, start + mb_size - sb_size),
				last);
		KUNIT_EXPECT_EQ(test,
				virtio_mem_phys_to_sb_id(vm, start + mb_size - 1),
				last);
		/* the next memory block starts again with sub-block 0 */
		KUNIT_EXPECT_EQ(test, virtio_mem_phys_to_sb_id(vm, start + mb_size), 0);
		KUNIT_EXPECT_EQ(test, virtio_mem_phys_to_sb_id(vm, start - 1), last);

		/* every sub-block: its first byte and its middle */
		for (sb_id = 0; sb_id <= last; sb_id++) {
			const unsigned long addr = start + sb_id * sb_size;

			KUNIT_EXPECT_EQ(test, virtio_mem_phys_to_sb_id(vm, addr), sb_id);
			KUNIT_EXPECT_EQ(test, virtio_mem_phys_to_mb_id(addr), mb_id);
			KUNIT_EXPECT_EQ(test,
					virtio_mem_phys_to_sb_id(vm, addr + sb_size / 2),
					sb_id);
		}
	}
}

/*
 * A big block size, some big blocks with their first bytes (id * size) and
 * the memory blocks they span (128 MiB each: size / 128 MiB of them), and
 * the last big block below 2^52.
 */
struct virtio_mem_kunit_bb_size {
	const char *name;
	u64 size;
	struct {
		unsigned long id;
		u64 start;
		unsigned long first_mb_id, last_mb_id;
	} bbs[4];
	unsigned long top_id;	/* 2^52 / size - 1 */
	u64 top_start;		/* 2^52 - size */
};

static const struct virtio_mem_kunit_bb_size virtio_mem_kunit_bb_sizes[] = {
	/* one memory block: the smallest big block size BBM uses */
	{ "memory_block_big_blocks", SZ_128M,
	  { { 0, 0x0, 0, 0 },
	    { 1, 0x8000000, 1, 1 },
	    { 3, 0x18000000, 3, 3 },
	    { 100, 0x320000000, 100, 100 } },
	  0x1ffffff, 0xffffff8000000 },
	/* 8 memory blocks each */
	{ "1GiB_big_blocks", SZ_1G,
	  { { 0, 0x0, 0, 7 },
	    { 1, 0x40000000, 8, 15 },
	    { 3, 0xc0000000, 24, 31 },
	    { 100, 0x1900000000, 800, 807 } },
	  0x3fffff, 0xfffffc0000000 },
	/* 16 memory blocks each */
	{ "2GiB_big_blocks", SZ_2G,
	  { { 0, 0x0, 0, 15 },
	    { 1, 0x80000000, 16, 31 },
	    { 3, 0x180000000, 48, 63 },
	    { 100, 0x3200000000, 1600, 1615 } },
	  0x1fffff, 0xfffff80000000 },
	/* 128 memory blocks each */
	{ "16GiB_big_blocks", 16ULL * SZ_1G,
	  { { 0, 0x0, 0, 127 },
	    { 1, 0x400000000, 128, 255 },
	    { 3, 0xc00000000, 384, 511 },
	    { 100, 0x19000000000, 12800, 12927 } },
	  0x3ffff, 0xffffc00000000 },
};

static void virtio_mem_kunit_bb_size_desc(const struct virtio_mem_kunit_bb_size *p,
					  char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(virtio_mem_kunit_bb_size, virtio_mem_kunit_bb_sizes,
		  virtio_mem_kunit_bb_size_desc);

static void virtio_mem_conv_test_bb_id(struct kunit *test)
{
	const struct virtio_mem_kunit_bb_size *p = test->param_value;
	const u64 bb_size = p->size;
	struct virtio_mem *vm = test->priv;
	int i;

	virtio_mem_kunit_need_sizes(test);
	vm->in_sbm = false;
	vm->bbm.bb_size = bb_size;

	for (i = 0; i < ARRAY_SIZE(p->bbs); i++) {
		const unsigned long id = p->bbs[i].id;
		const u64 start = p->bbs[i].start;

		KUNIT_EXPECT_EQ(test, virtio_mem_bb_id_to_phys(vm, id), start);
		KUNIT_EXPECT_EQ(test, virtio_mem_phys_to_bb_id(vm, start), id);
		KUNIT_EXPECT_EQ(test,
				virtio_mem_phys_to_bb_id(vm, start + bb_size - 1), id);
		KUNIT_EXPECT_EQ(test,
				virtio_mem_phys_to_bb_id(vm, start + bb_size), id + 1);
		if (id)
			KUNIT_EXPECT_EQ(test,
					virtio_mem_phys_to_bb_id(vm, start - 1),
					id - 1);
		/* the memory blocks of the big block, and no more */
		KUNIT_EXPECT_EQ_MSG(test, virtio_mem_phys_to_mb_id(start),
				    p->bbs[i].first_mb_id, "big block %lu", id);
		KUNIT_EXPECT_EQ_MSG(test,
				    virtio_mem_phys_to_mb_id(start + bb_size - 1),
				    p->bbs[i].last_mb_id, "big block %lu", id);
		KUNIT_EXPECT_EQ_MSG(test,
				    virtio_mem_phys_to_mb_id(start + bb_size),
				    p->bbs[i].last_mb_id + 1, "big block %lu", id);
	}

	/* The last big block below 2^52. */
	KUNIT_EXPECT_EQ(test, virtio_mem_bb_id_to_phys(vm, p->top_id), p->top_start);
	KUNIT_EXPECT_EQ(test, virtio_mem_phys_to_bb_id(vm, p->top_start), p->top_id);
	KUNIT_EXPECT_EQ(test, virtio_mem_phys_to_bb_id(vm, (1ULL << 52) - 1),
			p->top_id);
	KUNIT_EXPECT_EQ(test, virtio_mem_phys_to_bb_id(vm, 1ULL << 52),
			p->top_id + 1);
}

static struct kunit_case virtio_mem_conv_test_cases[] = {
	KUNIT_CASE(virtio_mem_conv_test_kernel_sizes),
	KUNIT_CASE(virtio_mem_conv_test_mb_id),
	KUNIT_CASE_PARAM(virtio_mem_conv_test_sb_id,
			 virtio_mem_kunit_sb_size_gen_params),
	KUNIT_CASE_PARAM(virtio_mem_conv_test_bb_id,
			 virtio_mem_kunit_bb_size_gen_params),
	{}
};

static struct kunit_suite virtio_mem_conv_test_suite = {
	.name = "virtio_mem_conv",
	.init = virtio_mem_kunit_init,
	.exit = virtio_mem_kunit_exit,
	.test_cases = virtio_mem_conv_test_cases,
};

/* ---- virtio_mem_sbm: Sub Block Mode bitmap and state arrays ---- */

/* The device starts 4 GiB + 5 memory blocks into the address space. */
static unsigned long virtio_mem_kunit_first_mb_id(void)
{
	return virtio_mem_phys_to_mb_id(SZ_4G) + 5;
}

/*
 * SBM with 4 MiB sub-blocks, the first memory block at @first_mb_id and
 * @nr_mbs memory blocks prepared through virtio_mem_sbm_prepare_next_mb(),
 * which grows vm->sbm.mb_states and vm->sbm.sb_states.
 */
static void virtio_mem_kunit_sbm_setup(struct kunit *test,
				       unsigned long first_mb_id,
				       unsigned long nr_mbs)
{
	struct virtio_mem *vm = test->priv;
	unsigned long i, mb_id;

	vm->in_sbm = true;
	vm->sbm.sb_size = SZ_4M;
	vm->sbm.sbs_per_mb = memory_block_size_bytes() / vm->sbm.sb_size;
	vm->sbm.first_mb_id = first_mb_id;
	vm->sbm.next_mb_id = first_mb_id;
	vm->sbm.last_usable_mb_id = first_mb_id + nr_mbs - 1;

	for (i = 0; i < nr_mbs; i++) {
		KUNIT_ASSERT_EQ(test, virtio_mem_sbm_prepare_next_mb(vm, &mb_id), 0);
		KUNIT_ASSERT_EQ(test, mb_id, first_mb_id + i);
	}
	KUNIT_ASSERT_TRUE(test,
			  virtio_mem_kunit_covers(vm->sbm.sb_states,
						  BITS_TO_LONGS(nr_mbs * vm->sbm.sbs_per_mb) *
						  sizeof(long)));
}

/*
 * The bitmap of the first @nr_mbs memory blocks equals @expected (reports the
 * first bit that differs), and no bit is set behind them.
 */
static void virtio_mem_kunit_expect_bits(struct kunit *test,
					 const unsigned long *expected,
					 unsigned long nr_mbs)
{
	struct virtio_mem *vm = test->priv;
	const unsigned long nbits = nr_mbs * vm->sbm.sbs_per_mb;
	unsigned long bit;

	for (bit = 0; bit < nbits; bit++) {
		if (test_bit(bit, vm->sbm.sb_states) == test_bit(bit, expected))
			continue;
		KUNIT_FAIL(test, "bit %lu (memory block %lu, sub-block %lu) is %s",
			   bit, bit / vm->sbm.sbs_per_mb, bit % vm->sbm.sbs_per_mb,
			   test_bit(bit, expected) ? "clear" : "set");
		break;
	}
	KUNIT_EXPECT_GE(test, find_next_bit(vm->sbm.sb_states, nbits + BITS_PER_LONG,
					    nbits), nbits + BITS_PER_LONG);
}

static void virtio_mem_sbm_test_bit_nr(struct kunit *test)
{
	const unsigned long first = virtio_mem_kunit_first_mb_id();
	struct virtio_mem *vm = test->priv;
	int sbs;

	virtio_mem_kunit_sbm_setup(test, first, 4);
	sbs = vm->sbm.sbs_per_mb;
	KUNIT_ASSERT_GE(test, sbs, 32);

	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_sb_state_bit_nr(vm, first, 0), 0);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_sb_state_bit_nr(vm, first, 1), 1);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_sb_state_bit_nr(vm, first, sbs - 1),
			sbs - 1);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_sb_state_bit_nr(vm, first + 1, 0),
			sbs);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_sb_state_bit_nr(vm, first + 2, 3),
			2 * sbs + 3);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_sb_state_bit_nr(vm, first + 3, sbs - 1),
			4 * sbs - 1);

	/* A sub-block set through the driver is the bit it computed. */
	virtio_mem_sbm_set_sb_plugged(vm, first + 2, 3, 1);
	KUNIT_EXPECT_TRUE(test, test_bit(2 * sbs + 3, vm->sbm.sb_states));
	KUNIT_EXPECT_EQ(test, bitmap_weight(vm->sbm.sb_states, 4 * sbs), 1);
}

static void virtio_mem_sbm_test_set_clear_edges(struct kunit *test)
{
	const unsigned long first = virtio_mem_kunit_first_mb_id();
	struct virtio_mem *vm = test->priv;
	unsigned long *expected;
	int sbs;

	virtio_mem_kunit_sbm_setup(test, first, 4);
	sbs = vm->sbm.sbs_per_mb;
	expected = kunit_kzalloc(test, BITS_TO_LONGS(4 * sbs) * sizeof(long),
				 GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, expected);

	/* A whole memory block, from its first to its last sub-block. */
	virtio_mem_sbm_set_sb_plugged(vm, first + 1, 0, sbs);
	bitmap_set(expected, sbs, sbs);
	virtio_mem_kunit_expect_bits(test, expected, 4);
	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_plugged(vm, first + 1, 0, sbs));
	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_unplugged(vm, first, 0, sbs));
	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_unplugged(vm, first + 2, 0, sbs));

	/* Clear its first and its last sub-block: the rest stays. */
	virtio_mem_sbm_set_sb_unplugged(vm, first + 1, 0, 1);
	virtio_mem_sbm_set_sb_unplugged(vm, first + 1, sbs - 1, 1);
	bitmap_clear(expected, sbs, 1);
	bitmap_clear(expected, 2 * sbs - 1, 1);
	virtio_mem_kunit_expect_bits(test, expected, 4);
	KUNIT_EXPECT_TRUE(test,
			  virtio_mem_sbm_test_sb_plugged(vm, first + 1, 1, sbs - 2));

	/* The last sub-block of one block and the first of the next one. */
	virtio_mem_sbm_set_sb_plugged(vm, first + 2, sbs - 1, 1);
	virtio_mem_sbm_set_sb_plugged(vm, first + 3, 0, 1);
	bitmap_set(expected, 3 * sbs - 1, 2);
	virtio_mem_kunit_expect_bits(test, expected, 4);
	KUNIT_EXPECT_TRUE(test,
			  virtio_mem_sbm_test_sb_plugged(vm, first + 2, sbs - 1, 1));
	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_plugged(vm, first + 3, 0, 1));
	KUNIT_EXPECT_TRUE(test,
			  virtio_mem_sbm_test_sb_unplugged(vm, first + 2, 0, sbs - 1));
	KUNIT_EXPECT_TRUE(test,
			  virtio_mem_sbm_test_sb_unplugged(vm, first + 3, 1, sbs - 1));

	/* The first and the last sub-block of the device. */
	virtio_mem_sbm_set_sb_plugged(vm, first, 0, 1);
	virtio_mem_sbm_set_sb_plugged(vm, first + 3, sbs - 1, 1);
	set_bit(0, expected);
	set_bit(4 * sbs - 1, expected);
	virtio_mem_kunit_expect_bits(test, expected, 4);

	/* Clear a whole block that has neighbours plugged on both sides. */
	virtio_mem_sbm_set_sb_plugged(vm, first + 2, 0, sbs);
	bitmap_set(expected, 2 * sbs, sbs);
	virtio_mem_kunit_expect_bits(test, expected, 4);
	virtio_mem_sbm_set_sb_unplugged(vm, first + 2, 0, sbs);
	bitmap_clear(expected, 2 * sbs, sbs);
	virtio_mem_kunit_expect_bits(test, expected, 4);
	KUNIT_EXPECT_TRUE(test, test_bit(2 * sbs - 2, vm->sbm.sb_states));
	KUNIT_EXPECT_TRUE(test, test_bit(3 * sbs, vm->sbm.sb_states));
}

static void virtio_mem_sbm_test_sb_mixed(struct kunit *test)
{
	const unsigned long first = virtio_mem_kunit_first_mb_id();
	struct virtio_mem *vm = test->priv;
	const unsigned long mb = first + 2;
	int sbs;

	virtio_mem_kunit_sbm_setup(test, first, 4);
	sbs = vm->sbm.sbs_per_mb;

	/* sub-blocks 2..5 of one memory block plugged */
	virtio_mem_sbm_set_sb_plugged(vm, mb, 2, 4);

	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_plugged(vm, mb, 2, 4));
	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_plugged(vm, mb, 3, 2));
	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_plugged(vm, mb, 2, 1));
	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_plugged(vm, mb, 5, 1));
	KUNIT_EXPECT_FALSE(test, virtio_mem_sbm_test_sb_plugged(vm, mb, 1, 1));
	KUNIT_EXPECT_FALSE(test, virtio_mem_sbm_test_sb_plugged(vm, mb, 6, 1));
	/* one sub-block too many on either side */
	KUNIT_EXPECT_FALSE(test, virtio_mem_sbm_test_sb_plugged(vm, mb, 1, 5));
	KUNIT_EXPECT_FALSE(test, virtio_mem_sbm_test_sb_plugged(vm, mb, 2, 5));
	KUNIT_EXPECT_FALSE(test, virtio_mem_sbm_test_sb_plugged(vm, mb, 0, sbs));

	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_unplugged(vm, mb, 0, 2));
	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_unplugged(vm, mb, 6, sbs - 6));
	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_unplugged(vm, mb, 1, 1));
	KUNIT_EXPECT_FALSE(test, virtio_mem_sbm_test_sb_unplugged(vm, mb, 0, 3));
	KUNIT_EXPECT_FALSE(test,
			   virtio_mem_sbm_test_sb_unplugged(vm, mb, 5, sbs - 5));
	KUNIT_EXPECT_FALSE(test, virtio_mem_sbm_test_sb_unplugged(vm, mb, 5, 1));
	KUNIT_EXPECT_FALSE(test, virtio_mem_sbm_test_sb_unplugged(vm, mb, 0, sbs));

	/* the neighbours are untouched, whatever the range */
	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_unplugged(vm, mb - 1, 0, sbs));
	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_unplugged(vm, mb + 1, 0, sbs));

	/* a fully plugged neighbour does not make an unplugged block plugged */
	virtio_mem_sbm_set_sb_plugged(vm, mb + 1, 0, sbs);
	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_plugged(vm, mb + 1, 0, sbs));
	KUNIT_EXPECT_FALSE(test, virtio_mem_sbm_test_sb_plugged(vm, mb, sbs - 1, 1));
	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_unplugged(vm, mb, 6, sbs - 6));
	KUNIT_EXPECT_FALSE(test, virtio_mem_sbm_test_sb_plugged(vm, mb, sbs - 2, 2));
}

static void virtio_mem_sbm_test_first_unplugged_sb(struct kunit *test)
{
	const unsigned long first = virtio_mem_kunit_first_mb_id();
	struct virtio_mem *vm = test->priv;
	int sbs;

	virtio_mem_kunit_sbm_setup(test, first, 4);
	sbs = vm->sbm.sbs_per_mb;

	/* empty */
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_first_unplugged_sb(vm, first), 0);

	/* full, followed by an empty block: none unplugged */
	virtio_mem_sbm_set_sb_plugged(vm, first + 1, 0, sbs);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_first_unplugged_sb(vm, first + 1), sbs);
	/* the empty block before the full one */
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_first_unplugged_sb(vm, first), 0);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_first_unplugged_sb(vm, first + 2), 0);

	/* holes */
	virtio_mem_sbm_set_sb_plugged(vm, first + 2, 0, sbs);
	virtio_mem_sbm_set_sb_unplugged(vm, first + 2, 7, 1);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_first_unplugged_sb(vm, first + 2), 7);
	virtio_mem_sbm_set_sb_plugged(vm, first + 2, 7, 1);
	virtio_mem_sbm_set_sb_unplugged(vm, first + 2, sbs - 1, 1);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_first_unplugged_sb(vm, first + 2),
			sbs - 1);
	virtio_mem_sbm_set_sb_unplugged(vm, first + 2, 0, 1);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_first_unplugged_sb(vm, first + 2), 0);

	/* the last block of the device: full, then holed at its first sub-block */
	virtio_mem_sbm_set_sb_plugged(vm, first + 3, 0, sbs);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_first_unplugged_sb(vm, first + 3), sbs);
	virtio_mem_sbm_set_sb_unplugged(vm, first + 3, 1, 1);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_first_unplugged_sb(vm, first + 3), 1);

	/* the earlier results still hold */
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_first_unplugged_sb(vm, first + 1), sbs);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_first_unplugged_sb(vm, first), 0);
}

static void virtio_mem_sbm_test_mb_state(struct kunit *test)
{
	const unsigned long first = virtio_mem_kunit_first_mb_id();
	const unsigned long nr = 2 * VIRTIO_MEM_SBM_MB_COUNT;
	struct virtio_mem *vm = test->priv;
	unsigned long mb_id, i;
	int state;

	virtio_mem_kunit_sbm_setup(test, first, nr);
	KUNIT_EXPECT_EQ(test, vm->sbm.mb_count[VIRTIO_MEM_SBM_MB_UNUSED], nr);
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_EQ(test, virtio_mem_sbm_get_mb_state(vm, first + i),
				VIRTIO_MEM_SBM_MB_UNUSED);

	/* every state, set on one block after the other */
	for (state = 0; state < VIRTIO_MEM_SBM_MB_COUNT; state++) {
		virtio_mem_sbm_set_mb_state(vm, first + state, state);
		KUNIT_EXPECT_EQ(test, virtio_mem_sbm_get_mb_state(vm, first + state),
				state);
	}
	for (state = 0; state < VIRTIO_MEM_SBM_MB_COUNT; state++) {
		KUNIT_EXPECT_EQ(test, virtio_mem_sbm_get_mb_state(vm, first + state),
				state);
		KUNIT_EXPECT_EQ(test, vm->sbm.mb_count[state],
				state == VIRTIO_MEM_SBM_MB_UNUSED ?
				nr - VIRTIO_MEM_SBM_MB_COUNT + 1 : 1);
	}
	for (i = VIRTIO_MEM_SBM_MB_COUNT; i < nr; i++)
		KUNIT_EXPECT_EQ(test, virtio_mem_sbm_get_mb_state(vm, first + i),
				VIRTIO_MEM_SBM_MB_UNUSED);

	/* every state on the last block too, one transition after the other */
	for (state = 0; state < VIRTIO_MEM_SBM_MB_COUNT; state++) {
		virtio_mem_sbm_set_mb_state(vm, first + nr - 1, state);
		KUNIT_EXPECT_EQ(test, virtio_mem_sbm_get_mb_state(vm, first + nr - 1),
				state);
		KUNIT_EXPECT_EQ(test, virtio_mem_sbm_get_mb_state(vm, first + nr - 2),
				VIRTIO_MEM_SBM_MB_UNUSED);
		KUNIT_EXPECT_EQ(test, vm->sbm.mb_count[state],
				state == VIRTIO_MEM_SBM_MB_UNUSED ?
				nr - VIRTIO_MEM_SBM_MB_COUNT + 1 : 2);
	}
	/* back to unused: as after the first round */
	virtio_mem_sbm_set_mb_state(vm, first + nr - 1, VIRTIO_MEM_SBM_MB_UNUSED);
	for (state = 0; state < VIRTIO_MEM_SBM_MB_COUNT; state++)
		KUNIT_EXPECT_EQ_MSG(test, vm->sbm.mb_count[state],
				    state == VIRTIO_MEM_SBM_MB_UNUSED ?
				    nr - VIRTIO_MEM_SBM_MB_COUNT + 1 : 1,
				    "state %d", state);

	/* the iterators visit exactly the blocks in one state */
	for (state = 0; state < VIRTIO_MEM_SBM_MB_COUNT; state++) {
		unsigned long visited = 0, expected_id;

		expected_id = state == VIRTIO_MEM_SBM_MB_UNUSED ? first : first + state;
		virtio_mem_sbm_for_each_mb(vm, mb_id, state) {
			KUNIT_EXPECT_EQ(test, mb_id, expected_id);
			visited++;
			expected_id = (mb_id < first + VIRTIO_MEM_SBM_MB_COUNT - 1 &&
				       state == VIRTIO_MEM_SBM_MB_UNUSED) ?
				      first + VIRTIO_MEM_SBM_MB_COUNT : mb_id + 1;
		}
		KUNIT_EXPECT_EQ(test, visited, vm->sbm.mb_count[state]);

		visited = 0;
		expected_id = state == VIRTIO_MEM_SBM_MB_UNUSED ? first + nr - 1 :
			      first + state;
		virtio_mem_sbm_for_each_mb_rev(vm, mb_id, state) {
			KUNIT_EXPECT_EQ(test, mb_id, expected_id);
			visited++;
			expected_id = mb_id == first + VIRTIO_MEM_SBM_MB_COUNT ?
				      first : mb_id - 1;
		}
		KUNIT_EXPECT_EQ(test, visited, vm->sbm.mb_count[state]);
	}
}

/* The number of bits set in [@start, @start + @nbits) of @map. */
static unsigned long virtio_mem_kunit_count_bits(const unsigned long *map,
						 unsigned long start,
						 unsigned long nbits)
{
	unsigned long bit = start, n = 0;

	for_each_set_bit_from(bit, map, start + nbits)
		n++;
	return n;
}

/* A state for the i-th block: all states, in a pattern that is not periodic in a page. */
static u8 virtio_mem_kunit_state(unsigned long i, int nr_states)
{
	return (i * 7 + i / 3) % nr_states;
}

static void virtio_mem_sbm_test_grow(struct kunit *test)
{
	const int nr_states = VIRTIO_MEM_SBM_MB_COUNT;
	const unsigned long first = virtio_mem_kunit_first_mb_id();
	/* more than one page of states, and many pages of bitmap */
	const unsigned long nr = PAGE_SIZE + 2;
	unsigned long count[VIRTIO_MEM_SBM_MB_COUNT] = {};
	struct virtio_mem *vm = test->priv;
	unsigned long i, mb_id, sbs;
	u8 *old_states = NULL;
	int state;

	vm->in_sbm = true;
	vm->sbm.sb_size = SZ_4M;
	vm->sbm.sbs_per_mb = memory_block_size_bytes() / vm->sbm.sb_size;
	vm->sbm.first_mb_id = first;
	vm->sbm.next_mb_id = first;
	vm->sbm.last_usable_mb_id = first + nr - 1;
	sbs = vm->sbm.sbs_per_mb;

	for (i = 0; i < nr; i++) {
		KUNIT_ASSERT_EQ(test, virtio_mem_sbm_prepare_next_mb(vm, &mb_id), 0);
		KUNIT_ASSERT_EQ(test, mb_id, first + i);
		KUNIT_ASSERT_EQ(test, vm->sbm.next_mb_id, first + i + 1);
		/* the arrays cover the new block before anybody touches it */
		KUNIT_ASSERT_TRUE_MSG(test,
				      virtio_mem_kunit_covers(vm->sbm.mb_states, i + 1),
				      "mb_states too small for %lu blocks", i + 1);
		KUNIT_ASSERT_TRUE_MSG(test,
				      virtio_mem_kunit_covers(vm->sbm.sb_states,
							      BITS_TO_LONGS((i + 1) * sbs) *
							      sizeof(long)),
				      "sb_states too small for %lu blocks", i + 1);
		/* a new block is unused and has no sub-block plugged */
		KUNIT_ASSERT_EQ(test, virtio_mem_sbm_get_mb_state(vm, mb_id),
				VIRTIO_MEM_SBM_MB_UNUSED);
		KUNIT_ASSERT_TRUE(test, virtio_mem_sbm_test_sb_unplugged(vm, mb_id, 0,
									 sbs));

		state = virtio_mem_kunit_state(i, VIRTIO_MEM_SBM_MB_COUNT);
		virtio_mem_sbm_set_mb_state(vm, mb_id, state);
		count[state]++;
		/* one sub-block, and the last one of every third block */
		virtio_mem_sbm_set_sb_plugged(vm, mb_id, i % sbs, 1);
		if (i % 3 == 0)
			virtio_mem_sbm_set_sb_plugged(vm, mb_id, sbs - 1, 1);

		/* right after the state array moved: nothing lost on the way */
		if (old_states && old_states != vm->sbm.mb_states) {
			unsigned long j;

			for (j = 0; j < i; j++)
				KUNIT_ASSERT_EQ_MSG(test,
						    virtio_mem_sbm_get_mb_state(vm, first + j),
						    virtio_mem_kunit_state(j, nr_states),
						    "block %lu after growing to %lu", j, i + 1);
		}
		old_states = vm->sbm.mb_states;
	}

	for (state = 0; state < VIRTIO_MEM_SBM_MB_COUNT; state++)
		KUNIT_EXPECT_EQ_MSG(test, vm->sbm.mb_count[state], count[state],
				    "state %d", state);

	/* every state and every bit survived all the growing (stop at the first loss) */
	for (i = 0; i < nr; i++) {
		mb_id = first + i;
		KUNIT_ASSERT_EQ_MSG(test, virtio_mem_sbm_get_mb_state(vm, mb_id),
				    virtio_mem_kunit_state(i, nr_states),
				    "block %lu", i);
		KUNIT_ASSERT_TRUE_MSG(test,
				      virtio_mem_sbm_test_sb_plugged(vm, mb_id, i % sbs, 1),
				      "block %lu", i);
		KUNIT_ASSERT_EQ_MSG(test,
				    virtio_mem_kunit_count_bits(vm->sbm.sb_states,
								i * sbs, sbs),
				    (i % 3 == 0 && i % sbs != sbs - 1) ? 2UL : 1UL,
				    "block %lu", i);
	}
}

static void virtio_mem_sbm_test_enospc(struct kunit *test)
{
	const unsigned long first = virtio_mem_kunit_first_mb_id();
	struct virtio_mem *vm = test->priv;
	unsigned long mb_id = 0;
	void *mb_states, *sb_states;

	virtio_mem_kunit_sbm_setup(test, first, 3);
	KUNIT_EXPECT_EQ(test, vm->sbm.last_usable_mb_id, first + 2);
	KUNIT_EXPECT_EQ(test, vm->sbm.next_mb_id, first + 3);
	mb_states = vm->sbm.mb_states;
	sb_states = vm->sbm.sb_states;

	/* one past the last usable block: no space, and nothing changed */
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_prepare_next_mb(vm, &mb_id), -ENOSPC);
	KUNIT_EXPECT_EQ(test, mb_id, 0);
	KUNIT_EXPECT_EQ(test, vm->sbm.next_mb_id, first + 3);
	KUNIT_EXPECT_EQ(test, vm->sbm.mb_count[VIRTIO_MEM_SBM_MB_UNUSED], 3);
	KUNIT_EXPECT_PTR_EQ(test, vm->sbm.mb_states, mb_states);
	KUNIT_EXPECT_PTR_EQ(test, vm->sbm.sb_states, sb_states);

	/* the usable region grows by one block: one more, then no space */
	vm->sbm.last_usable_mb_id++;
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_prepare_next_mb(vm, &mb_id), 0);
	KUNIT_EXPECT_EQ(test, mb_id, first + 3);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_prepare_next_mb(vm, &mb_id), -ENOSPC);
	KUNIT_EXPECT_EQ(test, vm->sbm.mb_count[VIRTIO_MEM_SBM_MB_UNUSED], 4);
}

static void virtio_mem_sbm_test_enospc_empty(struct kunit *test)
{
	const unsigned long first = virtio_mem_kunit_first_mb_id();
	struct virtio_mem *vm = test->priv;
	unsigned long mb_id;

	/* nothing usable: the last usable block is before the first one */
	vm->in_sbm = true;
	vm->sbm.sb_size = SZ_4M;
	vm->sbm.sbs_per_mb = memory_block_size_bytes() / vm->sbm.sb_size;
	vm->sbm.first_mb_id = first;
	vm->sbm.next_mb_id = first;
	vm->sbm.last_usable_mb_id = first - 1;

	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_prepare_next_mb(vm, &mb_id), -ENOSPC);
	KUNIT_EXPECT_EQ(test, vm->sbm.next_mb_id, first);
	KUNIT_EXPECT_EQ(test, vm->sbm.mb_count[VIRTIO_MEM_SBM_MB_UNUSED], 0);
	KUNIT_EXPECT_NULL(test, vm->sbm.mb_states);
	KUNIT_EXPECT_NULL(test, vm->sbm.sb_states);
}

/*
 * Onlining a memory block is allowed only while the driver has it offline
 * (fully or partly plugged): a block the driver is removing (already
 * UNUSED in its array), or one it thinks online, must be refused, or
 * onlining through sysfs races with the removal.  Each state, on its own
 * made-up block.
 */
static void virtio_mem_sbm_test_going_online(struct kunit *test)
{
	static const struct {
		int state;
		int want;
	} cases[] = {
		{ VIRTIO_MEM_SBM_MB_UNUSED, NOTIFY_BAD },
		{ VIRTIO_MEM_SBM_MB_PLUGGED, NOTIFY_BAD },
		{ VIRTIO_MEM_SBM_MB_OFFLINE, NOTIFY_OK },
		{ VIRTIO_MEM_SBM_MB_OFFLINE_PARTIAL, NOTIFY_OK },
		{ VIRTIO_MEM_SBM_MB_KERNEL, NOTIFY_BAD },
		{ VIRTIO_MEM_SBM_MB_KERNEL_PARTIAL, NOTIFY_BAD },
		{ VIRTIO_MEM_SBM_MB_MOVABLE, NOTIFY_BAD },
		{ VIRTIO_MEM_SBM_MB_MOVABLE_PARTIAL, NOTIFY_BAD },
	};
	const unsigned long first = virtio_mem_kunit_first_mb_id();
	struct virtio_mem *vm = test->priv;
	int i;

	virtio_mem_kunit_sbm_setup(test, first, ARRAY_SIZE(cases));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		virtio_mem_sbm_set_mb_state(vm, first + i, cases[i].state);
		KUNIT_EXPECT_EQ_MSG(test, virtio_mem_sbm_notify_going_online(vm, first + i),
				    cases[i].want, "state %d", cases[i].state);
	}
}

static struct kunit_case virtio_mem_sbm_test_cases[] = {
	KUNIT_CASE(virtio_mem_sbm_test_bit_nr),
	KUNIT_CASE(virtio_mem_sbm_test_set_clear_edges),
	KUNIT_CASE(virtio_mem_sbm_test_sb_mixed),
	KUNIT_CASE(virtio_mem_sbm_test_first_unplugged_sb),
	KUNIT_CASE(virtio_mem_sbm_test_mb_state),
	KUNIT_CASE(virtio_mem_sbm_test_grow),
	KUNIT_CASE(virtio_mem_sbm_test_enospc),
	KUNIT_CASE(virtio_mem_sbm_test_enospc_empty),
	KUNIT_CASE(virtio_mem_sbm_test_going_online),
	{}
};

static struct kunit_suite virtio_mem_sbm_test_suite = {
	.name = "virtio_mem_sbm",
	.init = virtio_mem_kunit_init,
	.exit = virtio_mem_kunit_exit,
	.test_cases = virtio_mem_sbm_test_cases,
};

/* ---- virtio_mem_bbm: Big Block Mode state array ---- */

static void virtio_mem_kunit_bbm_setup(struct kunit *test,
				       unsigned long first_bb_id,
				       unsigned long nr_bbs)
{
	struct virtio_mem *vm = test->priv;
	unsigned long i, bb_id;

	vm->in_sbm = false;
	vm->bbm.bb_size = max_t(u64, SZ_1G, memory_block_size_bytes());
	vm->bbm.first_bb_id = first_bb_id;
	vm->bbm.next_bb_id = first_bb_id;
	vm->bbm.last_usable_bb_id = first_bb_id + nr_bbs - 1;

	for (i = 0; i < nr_bbs; i++) {
		KUNIT_ASSERT_EQ(test, virtio_mem_bbm_prepare_next_bb(vm, &bb_id), 0);
		KUNIT_ASSERT_EQ(test, bb_id, first_bb_id + i);
	}
}

#define VIRTIO_MEM_KUNIT_FIRST_BB_ID	5

static void virtio_mem_bbm_test_bb_state(struct kunit *test)
{
	const unsigned long first = VIRTIO_MEM_KUNIT_FIRST_BB_ID;
	const unsigned long nr = 2 * VIRTIO_MEM_BBM_BB_COUNT;
	struct virtio_mem *vm = test->priv;
	unsigned long i;
	int state;

	virtio_mem_kunit_bbm_setup(test, first, nr);
	KUNIT_EXPECT_EQ(test, vm->bbm.bb_count[VIRTIO_MEM_BBM_BB_UNUSED], nr);
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_EQ(test, virtio_mem_bbm_get_bb_state(vm, first + i),
				VIRTIO_MEM_BBM_BB_UNUSED);

	for (state = 0; state < VIRTIO_MEM_BBM_BB_COUNT; state++) {
		virtio_mem_bbm_set_bb_state(vm, first + state, state);
		KUNIT_EXPECT_EQ(test, virtio_mem_bbm_get_bb_state(vm, first + state),
				state);
	}
	for (state = 0; state < VIRTIO_MEM_BBM_BB_COUNT; state++) {
		KUNIT_EXPECT_EQ(test, virtio_mem_bbm_get_bb_state(vm, first + state),
				state);
		KUNIT_EXPECT_EQ(test, vm->bbm.bb_count[state],
				state == VIRTIO_MEM_BBM_BB_UNUSED ?
				nr - VIRTIO_MEM_BBM_BB_COUNT + 1 : 1);
	}
	for (i = VIRTIO_MEM_BBM_BB_COUNT; i < nr; i++)
		KUNIT_EXPECT_EQ(test, virtio_mem_bbm_get_bb_state(vm, first + i),
				VIRTIO_MEM_BBM_BB_UNUSED);

	/* the life of the last big block: plugged, added, fake offline, gone */
	virtio_mem_bbm_set_bb_state(vm, first + nr - 1, VIRTIO_MEM_BBM_BB_PLUGGED);
	virtio_mem_bbm_set_bb_state(vm, first + nr - 1, VIRTIO_MEM_BBM_BB_ADDED);
	KUNIT_EXPECT_EQ(test, vm->bbm.bb_count[VIRTIO_MEM_BBM_BB_PLUGGED], 1);
	KUNIT_EXPECT_EQ(test, vm->bbm.bb_count[VIRTIO_MEM_BBM_BB_ADDED], 2);
	virtio_mem_bbm_set_bb_state(vm, first + nr - 1,
				    VIRTIO_MEM_BBM_BB_FAKE_OFFLINE);
	KUNIT_EXPECT_EQ(test, vm->bbm.bb_count[VIRTIO_MEM_BBM_BB_ADDED], 1);
	KUNIT_EXPECT_EQ(test, vm->bbm.bb_count[VIRTIO_MEM_BBM_BB_FAKE_OFFLINE], 2);
	virtio_mem_bbm_set_bb_state(vm, first + nr - 1, VIRTIO_MEM_BBM_BB_UNUSED);
	KUNIT_EXPECT_EQ(test, vm->bbm.bb_count[VIRTIO_MEM_BBM_BB_FAKE_OFFLINE], 1);
	KUNIT_EXPECT_EQ(test, virtio_mem_bbm_get_bb_state(vm, first + nr - 2),
			VIRTIO_MEM_BBM_BB_UNUSED);
	/* gone: unused again, as after the first round */
	KUNIT_EXPECT_EQ(test, virtio_mem_bbm_get_bb_state(vm, first + nr - 1),
			VIRTIO_MEM_BBM_BB_UNUSED);
	for (state = 0; state < VIRTIO_MEM_BBM_BB_COUNT; state++)
		KUNIT_EXPECT_EQ_MSG(test, vm->bbm.bb_count[state],
				    state == VIRTIO_MEM_BBM_BB_UNUSED ?
				    nr - VIRTIO_MEM_BBM_BB_COUNT + 1 : 1,
				    "state %d", state);
}

static void virtio_mem_bbm_test_for_each(struct kunit *test)
{
	const unsigned long first = VIRTIO_MEM_KUNIT_FIRST_BB_ID;
	const unsigned long nr = 3 * VIRTIO_MEM_BBM_BB_COUNT + 1;
	struct virtio_mem *vm = test->priv;
	unsigned long i, bb_id, visited, last;
	int state;

	virtio_mem_kunit_bbm_setup(test, first, nr);
	/* all states but the last one, FAKE_OFFLINE, which stays empty */
	for (i = 0; i < nr; i++) {
		state = virtio_mem_kunit_state(i, VIRTIO_MEM_BBM_BB_COUNT - 1);
		virtio_mem_bbm_set_bb_state(vm, first + i, state);
	}

	for (state = 0; state < VIRTIO_MEM_BBM_BB_COUNT; state++) {
		visited = 0;
		last = 0;
		virtio_mem_bbm_for_each_bb(vm, bb_id, state) {
			KUNIT_EXPECT_EQ(test, virtio_mem_bbm_get_bb_state(vm, bb_id),
					state);
			KUNIT_EXPECT_GE(test, bb_id, first);
			KUNIT_EXPECT_LT(test, bb_id, first + nr);
			if (visited)
				KUNIT_EXPECT_GT(test, bb_id, last);
			last = bb_id;
			visited++;
		}
		KUNIT_EXPECT_EQ_MSG(test, visited, vm->bbm.bb_count[state],
				    "state %d", state);

		visited = 0;
		virtio_mem_bbm_for_each_bb_rev(vm, bb_id, state) {
			KUNIT_EXPECT_EQ(test, virtio_mem_bbm_get_bb_state(vm, bb_id),
					state);
			KUNIT_EXPECT_GE(test, bb_id, first);
			KUNIT_EXPECT_LT(test, bb_id, first + nr);
			if (visited)
				KUNIT_EXPECT_LT(test, bb_id, last);
			last = bb_id;
			visited++;
		}
		KUNIT_EXPECT_EQ_MSG(test, visited, vm->bbm.bb_count[state],
				    "state %d (reverse)", state);
	}
	KUNIT_EXPECT_EQ(test, vm->bbm.bb_count[VIRTIO_MEM_BBM_BB_FAKE_OFFLINE], 0);

	/* the first and the last big block are visited */
	virtio_mem_bbm_set_bb_state(vm, first, VIRTIO_MEM_BBM_BB_FAKE_OFFLINE);
	virtio_mem_bbm_set_bb_state(vm, first + nr - 1,
				    VIRTIO_MEM_BBM_BB_FAKE_OFFLINE);
	visited = 0;
	virtio_mem_bbm_for_each_bb(vm, bb_id, VIRTIO_MEM_BBM_BB_FAKE_OFFLINE) {
		KUNIT_EXPECT_EQ(test, bb_id, visited ? first + nr - 1 : first);
		visited++;
	}
	KUNIT_EXPECT_EQ(test, visited, 2);
	visited = 0;
	virtio_mem_bbm_for_each_bb_rev(vm, bb_id, VIRTIO_MEM_BBM_BB_FAKE_OFFLINE) {
		KUNIT_EXPECT_EQ(test, bb_id, visited ? first : first + nr - 1);
		visited++;
	}
	KUNIT_EXPECT_EQ(test, visited, 2);
}

static void virtio_mem_bbm_test_grow(struct kunit *test)
{
	const int nr_states = VIRTIO_MEM_BBM_BB_COUNT;
	const unsigned long first = VIRTIO_MEM_KUNIT_FIRST_BB_ID;
	/* more than one page of states */
	const unsigned long nr = PAGE_SIZE + 2;
	unsigned long count[VIRTIO_MEM_BBM_BB_COUNT] = {};
	struct virtio_mem *vm = test->priv;
	u8 *old_states = NULL;
	unsigned long i, bb_id;
	int state;

	vm->in_sbm = false;
	vm->bbm.bb_size = max_t(u64, SZ_1G, memory_block_size_bytes());
	vm->bbm.first_bb_id = first;
	vm->bbm.next_bb_id = first;
	vm->bbm.last_usable_bb_id = first + nr - 1;

	for (i = 0; i < nr; i++) {
		KUNIT_ASSERT_EQ(test, virtio_mem_bbm_prepare_next_bb(vm, &bb_id), 0);
		KUNIT_ASSERT_EQ(test, bb_id, first + i);
		KUNIT_ASSERT_EQ(test, vm->bbm.next_bb_id, first + i + 1);
		KUNIT_ASSERT_TRUE_MSG(test,
				      virtio_mem_kunit_covers(vm->bbm.bb_states, i + 1),
				      "bb_states too small for %lu big blocks", i + 1);
		KUNIT_ASSERT_EQ(test, virtio_mem_bbm_get_bb_state(vm, bb_id),
				VIRTIO_MEM_BBM_BB_UNUSED);

		state = virtio_mem_kunit_state(i, VIRTIO_MEM_BBM_BB_COUNT);
		virtio_mem_bbm_set_bb_state(vm, bb_id, state);
		count[state]++;

		if (old_states && old_states != vm->bbm.bb_states) {
			unsigned long j;

			for (j = 0; j < i; j++)
				KUNIT_ASSERT_EQ_MSG(test,
						    virtio_mem_bbm_get_bb_state(vm, first + j),
						    virtio_mem_kunit_state(j, nr_states),
						    "big block %lu after growing to %lu",
						    j, i + 1);
		}
		old_states = vm->bbm.bb_states;
	}

	for (state = 0; state < VIRTIO_MEM_BBM_BB_COUNT; state++)
		KUNIT_EXPECT_EQ_MSG(test, vm->bbm.bb_count[state], count[state],
				    "state %d", state);
	/* every state survived all the growing (stop at the first loss) */
	for (i = 0; i < nr; i++)
		KUNIT_ASSERT_EQ_MSG(test, virtio_mem_bbm_get_bb_state(vm, first + i),
				    virtio_mem_kunit_state(i, nr_states),
				    "big block %lu", i);
}

static void virtio_mem_bbm_test_enospc(struct kunit *test)
{
	const unsigned long first = VIRTIO_MEM_KUNIT_FIRST_BB_ID;
	struct virtio_mem *vm = test->priv;
	unsigned long bb_id = 0;
	void *bb_states;

	virtio_mem_kunit_bbm_setup(test, first, 2);
	bb_states = vm->bbm.bb_states;

	KUNIT_EXPECT_EQ(test, virtio_mem_bbm_prepare_next_bb(vm, &bb_id), -ENOSPC);
	KUNIT_EXPECT_EQ(test, bb_id, 0);
	KUNIT_EXPECT_EQ(test, vm->bbm.next_bb_id, first + 2);
	KUNIT_EXPECT_EQ(test, vm->bbm.bb_count[VIRTIO_MEM_BBM_BB_UNUSED], 2);
	KUNIT_EXPECT_PTR_EQ(test, vm->bbm.bb_states, bb_states);

	vm->bbm.last_usable_bb_id++;
	KUNIT_EXPECT_EQ(test, virtio_mem_bbm_prepare_next_bb(vm, &bb_id), 0);
	KUNIT_EXPECT_EQ(test, bb_id, first + 2);
	KUNIT_EXPECT_EQ(test, virtio_mem_bbm_prepare_next_bb(vm, &bb_id), -ENOSPC);
	KUNIT_EXPECT_EQ(test, vm->bbm.bb_count[VIRTIO_MEM_BBM_BB_UNUSED], 3);

	/* the usable region shrank below the first big block */
	vm->bbm.last_usable_bb_id = first - 1;
	KUNIT_EXPECT_EQ(test, virtio_mem_bbm_prepare_next_bb(vm, &bb_id), -ENOSPC);
	KUNIT_EXPECT_EQ(test, vm->bbm.next_bb_id, first + 3);
}

static struct kunit_case virtio_mem_bbm_test_cases[] = {
	KUNIT_CASE(virtio_mem_bbm_test_bb_state),
	KUNIT_CASE(virtio_mem_bbm_test_for_each),
	KUNIT_CASE(virtio_mem_bbm_test_grow),
	KUNIT_CASE(virtio_mem_bbm_test_enospc),
	{}
};

static struct kunit_suite virtio_mem_bbm_test_suite = {
	.name = "virtio_mem_bbm",
	.init = virtio_mem_kunit_init,
	.exit = virtio_mem_kunit_exit,
	.test_cases = virtio_mem_bbm_test_cases,
};

/* ---- virtio_mem_range: overlaps/contains ---- */

struct virtio_mem_kunit_range {
	const char *name;
	/* the device region */
	u64 addr, region_size;
	/* the range tested against it */
	u64 start, size;
	bool overlaps, contains;
};

#define R_ADDR		SZ_4G
#define R_SIZE		SZ_1G
/* A device region that ends at the very top of the 64 bit address space. */
#define R_TOP_SIZE	SZ_1G
#define R_TOP_ADDR	(0ULL - R_TOP_SIZE)

static const struct virtio_mem_kunit_range virtio_mem_kunit_ranges[] = {
	{ "disjoint_below", R_ADDR, R_SIZE, R_ADDR - SZ_2M, SZ_1M, false, false },
	{ "touching_below", R_ADDR, R_SIZE, R_ADDR - SZ_1M, SZ_1M, false, false },
	{ "overlapping_start", R_ADDR, R_SIZE, R_ADDR - SZ_1M, SZ_2M, true, false },
	{ "one_byte_below_start", R_ADDR, R_SIZE, R_ADDR - 1, R_SIZE, true, false },
	{ "first_byte", R_ADDR, R_SIZE, R_ADDR, 1, true, true },
	{ "inside", R_ADDR, R_SIZE, R_ADDR + SZ_1M, SZ_2M, true, true },
	{ "whole_region", R_ADDR, R_SIZE, R_ADDR, R_SIZE, true, true },
	{ "region_plus_one_byte", R_ADDR, R_SIZE, R_ADDR, R_SIZE + 1, true, false },
	{ "containing_region", R_ADDR, R_SIZE, R_ADDR - SZ_1M, R_SIZE + SZ_2M,
	  true, false },
	{ "last_byte", R_ADDR, R_SIZE, R_ADDR + R_SIZE - 1, 1, true, true },
	{ "last_page", R_ADDR, R_SIZE, R_ADDR + R_SIZE - PAGE_SIZE, PAGE_SIZE,
	  true, true },
	{ "overlapping_end", R_ADDR, R_SIZE, R_ADDR + R_SIZE - SZ_1M, SZ_2M,
	  true, false },
	{ "touching_above", R_ADDR, R_SIZE, R_ADDR + R_SIZE, SZ_1M, false, false },
	{ "disjoint_above", R_ADDR, R_SIZE, R_ADDR + R_SIZE + SZ_1M, SZ_1M,
	  false, false },
	{ "everything", R_ADDR, R_SIZE, 0, ~0ULL, true, false },
	/* ranges that end at or beyond the top of the address space */
	{ "range_ending_at_top", R_ADDR, R_SIZE, 0ULL - PAGE_SIZE, PAGE_SIZE,
	  false, false },
	{ "range_wrapping_around", R_ADDR, R_SIZE, 0ULL - PAGE_SIZE,
	  2 * PAGE_SIZE, false, false },
	{ "range_wrapping_into_region", R_ADDR, R_SIZE, 0ULL - PAGE_SIZE,
	  R_ADDR + PAGE_SIZE + PAGE_SIZE, false, false },
	/* a device region that ends at the top of the address space */
	{ "top_region_last_byte", R_TOP_ADDR, R_TOP_SIZE, ~0ULL, 1, true, true },
	{ "top_region_whole", R_TOP_ADDR, R_TOP_SIZE, R_TOP_ADDR, R_TOP_SIZE,
	  true, true },
	{ "top_region_first_page", R_TOP_ADDR, R_TOP_SIZE, R_TOP_ADDR, PAGE_SIZE,
	  true, true },
	{ "top_region_touching_below", R_TOP_ADDR, R_TOP_SIZE,
	  R_TOP_ADDR - SZ_1M, SZ_1M, false, false },
	{ "top_region_overlapping_start", R_TOP_ADDR, R_TOP_SIZE,
	  R_TOP_ADDR - SZ_1M, SZ_2M, true, false },
	{ "top_region_low_range", R_TOP_ADDR, R_TOP_SIZE, R_ADDR, R_SIZE,
	  false, false },
	/* an empty device region contains and overlaps nothing */
	{ "empty_region", R_ADDR, 0, R_ADDR - SZ_1M, SZ_2M, false, false },
};

static void virtio_mem_kunit_range_desc(const struct virtio_mem_kunit_range *p,
					char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(virtio_mem_kunit_range, virtio_mem_kunit_ranges,
		  virtio_mem_kunit_range_desc);

static void virtio_mem_range_test_overlaps_contains(struct kunit *test)
{
	const struct virtio_mem_kunit_range *p = test->param_value;
	struct virtio_mem *vm = test->priv;

	vm->addr = p->addr;
	vm->region_size = p->region_size;

	KUNIT_EXPECT_EQ_MSG(test, virtio_mem_overlaps_range(vm, p->start, p->size),
			    p->overlaps,
			    "overlaps: region 0x%llx+0x%llx range 0x%llx+0x%llx",
			    p->addr, p->region_size, p->start, p->size);
	KUNIT_EXPECT_EQ_MSG(test, virtio_mem_contains_range(vm, p->start, p->size),
			    p->contains,
			    "contains: region 0x%llx+0x%llx range 0x%llx+0x%llx",
			    p->addr, p->region_size, p->start, p->size);
}

static struct kunit_case virtio_mem_range_test_cases[] = {
	KUNIT_CASE_PARAM(virtio_mem_range_test_overlaps_contains,
			 virtio_mem_kunit_range_gen_params),
	{}
};

static struct kunit_suite virtio_mem_range_test_suite = {
	.name = "virtio_mem_range",
	.init = virtio_mem_kunit_init,
	.exit = virtio_mem_kunit_exit,
	.test_cases = virtio_mem_range_test_cases,
};

/* ---- virtio_mem_config: the device configuration ---- */

static const struct range virtio_mem_kunit_pluggable = {
	.start = 0,
	.end = VIRTIO_MEM_KUNIT_PLUGGABLE_END,
};

/*
 * Forget the layout of an earlier virtio_mem_init_layout() call (which only
 * ever sets vm->in_sbm), and skip if module parameters change the layout.
 */
static void virtio_mem_kunit_reset_layout(struct kunit *test)
{
	struct virtio_mem *vm = test->priv;

	if (force_bbm || bbm_block_size)
		kunit_skip(test, "force_bbm or bbm_block_size is set");
	vm->in_sbm = false;
	vm->offline_threshold = 0;
	memset(&vm->sbm, 0, sizeof(vm->sbm));
	memset(&vm->bbm, 0, sizeof(vm->bbm));
}

static void virtio_mem_config_test_block_size(struct kunit *test)
{
	static const u64 good[] = {
		1, PAGE_SIZE, SZ_2M, SZ_4M, SZ_128M, SZ_1G, 1ULL << 40, 1ULL << 63,
	};
	static const u64 bad[] = {
		0, 3, SZ_2M + PAGE_SIZE, 3 * SZ_1M, SZ_128M - 1, SZ_1G + 1,
		(1ULL << 63) + 1, ~0ULL,
	};
	struct virtio_mem *vm = test->priv;
	int i;

	vm->addr = SZ_4G;
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		vm->device_block_size = good[i];
		KUNIT_EXPECT_EQ_MSG(test, virtio_mem_check_config(vm), 0,
				    "block size 0x%llx", good[i]);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		vm->device_block_size = bad[i];
		KUNIT_EXPECT_EQ_MSG(test, virtio_mem_check_config(vm), -EINVAL,
				    "block size 0x%llx", bad[i]);
	}
}

/*
 * The layout SBM computes for a device at 4 GiB with 16 GiB of memory, per
 * device block size: the sub-block is the larger of the device block and
 * the pageblock (4 MiB, or 2 MiB with CONFIG_HUGETLB_PAGE or
 * CONFIG_TRANSPARENT_HUGEPAGE), as long as it is smaller than the memory
 * block (128 MiB).
 */
static const struct {
	u64 device_block_size;
	u64 sb_size;
	u32 sbs_per_mb;		/* 128 MiB / sb_size */
} virtio_mem_kunit_sbm_layouts[] = {
#if VIRTIO_MEM_KUNIT_HUGE_PAGEBLOCK
	{ SZ_4K, SZ_2M, 64 },
	{ SZ_2M, SZ_2M, 64 },
#else
	{ SZ_4K, SZ_4M, 32 },
	{ SZ_2M, SZ_4M, 32 },
#endif
	{ SZ_4M, SZ_4M, 32 },
	{ SZ_32M, SZ_32M, 4 },
	/* at least two sub-blocks per memory block */
	{ SZ_64M, SZ_64M, 2 },
};

static void virtio_mem_config_test_sbm_layout(struct kunit *test)
{
	struct virtio_mem *vm = test->priv;
	int i;

	virtio_mem_kunit_need_sizes(test);

	for (i = 0; i < ARRAY_SIZE(virtio_mem_kunit_sbm_layouts); i++) {
		const u64 bs = virtio_mem_kunit_sbm_layouts[i].device_block_size;

		virtio_mem_kunit_reset_layout(test);
		vm->addr = SZ_4G;
		vm->region_size = 16ULL * SZ_1G;
		vm->device_block_size = bs;
		virtio_mem_init_layout(vm, &virtio_mem_kunit_pluggable);

		KUNIT_ASSERT_TRUE_MSG(test, vm->in_sbm, "block size 0x%llx", bs);
		KUNIT_EXPECT_EQ_MSG(test, vm->sbm.sb_size,
				    virtio_mem_kunit_sbm_layouts[i].sb_size,
				    "block size 0x%llx", bs);
		KUNIT_EXPECT_EQ_MSG(test, vm->sbm.sbs_per_mb,
				    virtio_mem_kunit_sbm_layouts[i].sbs_per_mb,
				    "block size 0x%llx", bs);
		/* 4 GiB / 128 MiB */
		KUNIT_EXPECT_EQ(test, vm->sbm.first_mb_id, 32);
		KUNIT_EXPECT_EQ(test, vm->sbm.next_mb_id, 32);
		/* VIRTIO_MEM_DEFAULT_OFFLINE_THRESHOLD: 1 GiB > 2 * 128 MiB */
		KUNIT_EXPECT_EQ_MSG(test, vm->offline_threshold, (u64)SZ_1G,
				    "block size 0x%llx", bs);
	}

	/* the usable region covers the whole region: (4 + 16) GiB / 128 MiB - 1 */
	virtio_mem_update_last_usable(vm, vm->region_size,
				      &virtio_mem_kunit_pluggable);
	KUNIT_EXPECT_EQ(test, vm->sbm.last_usable_mb_id, 159);
	/* three and a half memory blocks usable: three, 32 to 34 */
	virtio_mem_update_last_usable(vm, 3 * SZ_128M + SZ_64M,
				      &virtio_mem_kunit_pluggable);
	KUNIT_EXPECT_EQ(test, vm->sbm.last_usable_mb_id, 34);
	/* exactly one memory block */
	virtio_mem_update_last_usable(vm, SZ_128M, &virtio_mem_kunit_pluggable);
	KUNIT_EXPECT_EQ(test, vm->sbm.last_usable_mb_id, 32);
}

/*
 * The layout BBM computes for a device at 16 GiB with 64 GiB of memory, per
 * device block size (a device block of at least a memory block): the big
 * block is the device block.
 */
static const struct {
	u64 device_block_size;
	unsigned long first_bb_id;	/* 16 GiB / size */
	unsigned long last_usable_bb_id;	/* 80 GiB / size - 1 */
	u64 offline_threshold;		/* 1 GiB, or two big blocks if more */
} virtio_mem_kunit_bbm_layouts[] = {
	{ SZ_128M, 128, 639, SZ_1G },
	{ SZ_256M, 64, 319, SZ_1G },
	{ SZ_4G, 4, 19, 8ULL * SZ_1G },
};

static void virtio_mem_config_test_bbm_layout(struct kunit *test)
{
	struct virtio_mem *vm = test->priv;
	int i;

	virtio_mem_kunit_need_sizes(test);

	for (i = 0; i < ARRAY_SIZE(virtio_mem_kunit_bbm_layouts); i++) {
		const u64 bs = virtio_mem_kunit_bbm_layouts[i].device_block_size;
		const unsigned long first = virtio_mem_kunit_bbm_layouts[i].first_bb_id;

		virtio_mem_kunit_reset_layout(test);
		vm->addr = 16ULL * SZ_1G;
		vm->region_size = 64ULL * SZ_1G;
		vm->device_block_size = bs;
		virtio_mem_init_layout(vm, &virtio_mem_kunit_pluggable);

		KUNIT_ASSERT_FALSE_MSG(test, vm->in_sbm, "block size 0x%llx", bs);
		KUNIT_EXPECT_EQ(test, vm->bbm.bb_size, bs);
		KUNIT_EXPECT_EQ(test, vm->bbm.first_bb_id, first);
		KUNIT_EXPECT_EQ(test, vm->bbm.next_bb_id, first);
		KUNIT_EXPECT_EQ_MSG(test, vm->offline_threshold,
				    virtio_mem_kunit_bbm_layouts[i].offline_threshold,
				    "block size 0x%llx", bs);

		virtio_mem_update_last_usable(vm, vm->region_size,
					      &virtio_mem_kunit_pluggable);
		KUNIT_EXPECT_EQ(test, vm->bbm.last_usable_bb_id,
				virtio_mem_kunit_bbm_layouts[i].last_usable_bb_id);
		/* one and a half big blocks usable: one */
		virtio_mem_update_last_usable(vm, bs + bs / 2,
					      &virtio_mem_kunit_pluggable);
		KUNIT_EXPECT_EQ(test, vm->bbm.last_usable_bb_id, first);
	}
}

/* A device region that does not start on a memory block: round up. */
static void virtio_mem_config_test_unaligned(struct kunit *test)
{
	struct virtio_mem *vm = test->priv;
	unsigned long mb_id;

	virtio_mem_kunit_need_sizes(test);

	/*
	 * 4 memory blocks from the middle of block 32 (4 GiB + 64 MiB) to the
	 * middle of block 36: only 33, 34 and 35 are whole.
	 */
	virtio_mem_kunit_reset_layout(test);
	vm->addr = SZ_4G + SZ_64M;
	vm->region_size = 4 * SZ_128M;
	vm->device_block_size = SZ_2M;
	virtio_mem_init_layout(vm, &virtio_mem_kunit_pluggable);
	KUNIT_ASSERT_TRUE(test, vm->in_sbm);
	KUNIT_EXPECT_EQ(test, vm->sbm.first_mb_id, 33);

	virtio_mem_update_last_usable(vm, vm->region_size,
				      &virtio_mem_kunit_pluggable);
	KUNIT_EXPECT_EQ(test, vm->sbm.last_usable_mb_id, 35);

	/* less than one whole memory block usable: nothing to prepare */
	virtio_mem_update_last_usable(vm, SZ_128M, &virtio_mem_kunit_pluggable);
	KUNIT_EXPECT_LT(test, vm->sbm.last_usable_mb_id, vm->sbm.first_mb_id);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_prepare_next_mb(vm, &mb_id), -ENOSPC);

	/*
	 * BBM: 2 GiB big blocks from 16 GiB + 2 MiB: round up to big block 9
	 * (18 GiB); 16 GiB of memory end at 32 GiB + 2 MiB, so big blocks 9 to
	 * 15 (30 GiB to 32 GiB) are whole.
	 */
	virtio_mem_kunit_reset_layout(test);
	vm->addr = 16ULL * SZ_1G + SZ_2M;
	vm->region_size = 16ULL * SZ_1G;
	vm->device_block_size = SZ_2G;
	virtio_mem_init_layout(vm, &virtio_mem_kunit_pluggable);
	KUNIT_ASSERT_FALSE(test, vm->in_sbm);
	KUNIT_EXPECT_EQ(test, vm->bbm.first_bb_id, 9);
	virtio_mem_update_last_usable(vm, vm->region_size,
				      &virtio_mem_kunit_pluggable);
	KUNIT_EXPECT_EQ(test, vm->bbm.last_usable_bb_id, 15);
}

/* A usable region of size 0 (e.g., after UNPLUG_ALL): nothing usable. */
static void virtio_mem_config_test_empty_usable(struct kunit *test)
{
	struct virtio_mem *vm = test->priv;
	unsigned long id;

	virtio_mem_kunit_reset_layout(test);
	vm->addr = 16ULL * SZ_1G;
	vm->region_size = 16ULL * SZ_1G;
	vm->device_block_size = SZ_2M;
	virtio_mem_init_layout(vm, &virtio_mem_kunit_pluggable);
	virtio_mem_update_last_usable(vm, 0, &virtio_mem_kunit_pluggable);
	if (vm->in_sbm) {
		KUNIT_EXPECT_LT(test, vm->sbm.last_usable_mb_id, vm->sbm.first_mb_id);
		KUNIT_EXPECT_EQ(test, virtio_mem_sbm_prepare_next_mb(vm, &id), -ENOSPC);
	} else {
		KUNIT_EXPECT_LT(test, vm->bbm.last_usable_bb_id, vm->bbm.first_bb_id);
		KUNIT_EXPECT_EQ(test, virtio_mem_bbm_prepare_next_bb(vm, &id), -ENOSPC);
	}

	virtio_mem_kunit_reset_layout(test);
	vm->device_block_size = SZ_4G;
	virtio_mem_init_layout(vm, &virtio_mem_kunit_pluggable);
	KUNIT_ASSERT_FALSE(test, vm->in_sbm);
	virtio_mem_update_last_usable(vm, 0, &virtio_mem_kunit_pluggable);
	KUNIT_EXPECT_LT(test, vm->bbm.last_usable_bb_id, vm->bbm.first_bb_id);
	KUNIT_EXPECT_EQ(test, virtio_mem_bbm_prepare_next_bb(vm, &id), -ENOSPC);
}

/* Device memory outside the range of pluggable physical addresses. */
static void virtio_mem_config_test_not_pluggable(struct kunit *test)
{
	/* two memory blocks, 64 and 65, from 8 GiB */
	const struct range pluggable = {
		.start = 8ULL * SZ_1G,
		.end = 8ULL * SZ_1G + 2 * SZ_128M - 1,
	};
	struct virtio_mem *vm = test->priv;
	unsigned long id;

	virtio_mem_kunit_need_sizes(test);

	/* starts below and ends above the pluggable range: use what fits */
	virtio_mem_kunit_reset_layout(test);
	vm->addr = SZ_4G;
	vm->region_size = 16ULL * SZ_1G;
	vm->device_block_size = SZ_2M;
	virtio_mem_init_layout(vm, &pluggable);
	KUNIT_ASSERT_TRUE(test, vm->in_sbm);
	KUNIT_EXPECT_EQ(test, vm->sbm.first_mb_id, 64);
	virtio_mem_update_last_usable(vm, vm->region_size, &pluggable);
	KUNIT_EXPECT_EQ(test, vm->sbm.last_usable_mb_id, 65);

	/* entirely above the pluggable range: nothing usable */
	virtio_mem_kunit_reset_layout(test);
	vm->addr = 32ULL * SZ_1G;
	virtio_mem_init_layout(vm, &pluggable);
	KUNIT_ASSERT_TRUE(test, vm->in_sbm);
	virtio_mem_update_last_usable(vm, vm->region_size, &pluggable);
	KUNIT_EXPECT_LT(test, vm->sbm.last_usable_mb_id, vm->sbm.first_mb_id);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_prepare_next_mb(vm, &id), -ENOSPC);
	KUNIT_EXPECT_NULL(test, vm->sbm.mb_states);
}

/* A device region at physical address 0 is refused; anywhere else is not. */
static void virtio_mem_config_test_addr_zero(struct kunit *test)
{
	struct virtio_mem *vm = test->priv;

	vm->device_block_size = SZ_2M;
	vm->addr = 0;
	KUNIT_EXPECT_EQ(test, virtio_mem_check_config(vm), -EINVAL);
	vm->addr = SZ_2M;
	KUNIT_EXPECT_EQ(test, virtio_mem_check_config(vm), 0);
	vm->addr = -SZ_2M;
	KUNIT_EXPECT_EQ(test, virtio_mem_check_config(vm), 0);
}

/*
 * A device in the last 64 MiB below 2^64, far beyond the pluggable range
 * [0, 64 TiB): rounding its start up to a memory block must not wrap
 * around to block 0.  The first block is the one at the end of the
 * pluggable range, 64 TiB / 128 MiB = 524288, and nothing is usable.
 */
static void virtio_mem_config_test_top_of_space(struct kunit *test)
{
	struct virtio_mem *vm = test->priv;
	unsigned long id;

	virtio_mem_kunit_need_sizes(test);
	virtio_mem_kunit_reset_layout(test);
	vm->addr = -SZ_64M;
	vm->region_size = SZ_32M;
	vm->device_block_size = SZ_2M;
	KUNIT_ASSERT_EQ(test, virtio_mem_check_config(vm), 0);
	virtio_mem_init_layout(vm, &virtio_mem_kunit_pluggable);
	KUNIT_ASSERT_TRUE(test, vm->in_sbm);
	KUNIT_EXPECT_EQ(test, vm->sbm.first_mb_id, 524288);
	virtio_mem_update_last_usable(vm, vm->region_size, &virtio_mem_kunit_pluggable);
	KUNIT_EXPECT_EQ(test, vm->sbm.last_usable_mb_id, 524287);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_prepare_next_mb(vm, &id), -ENOSPC);
}

/*
 * Big blocks of 8 GiB, a device at 5 GiB with 2 GiB usable: its first big
 * block is 1 (8 GiB), and the usable region ends in big block 0, before
 * it.  No big block is usable: the last usable id is 0, not 0 - 1.
 */
static void virtio_mem_config_test_usable_before_first(struct kunit *test)
{
	struct virtio_mem *vm = test->priv;
	unsigned long id;

	virtio_mem_kunit_reset_layout(test);
	vm->addr = 5ULL * SZ_1G;
	vm->region_size = 16ULL * SZ_1G;
	vm->device_block_size = 8ULL * SZ_1G;
	virtio_mem_init_layout(vm, &virtio_mem_kunit_pluggable);
	KUNIT_ASSERT_FALSE(test, vm->in_sbm);
	KUNIT_EXPECT_EQ(test, vm->bbm.first_bb_id, 1);
	virtio_mem_update_last_usable(vm, 2ULL * SZ_1G, &virtio_mem_kunit_pluggable);
	KUNIT_EXPECT_EQ(test, vm->bbm.last_usable_bb_id, 0);
	KUNIT_EXPECT_EQ(test, virtio_mem_bbm_prepare_next_bb(vm, &id), -ENOSPC);
}

/*
 * The bbm_block_size module parameter: only a valid one is used.  The
 * device blocks are 256 MiB: the big block is that, or bbm_block_size if it
 * is a larger power of 2.
 */
static void virtio_mem_config_test_bbm_block_size(struct kunit *test)
{
	const unsigned long saved = bbm_block_size;
	struct virtio_mem *vm = test->priv;
	const struct {
		unsigned long param;
		u64 bb_size;
		unsigned long first_bb_id;	/* 64 GiB / bb_size */
	} cases[] = {
		{ 0, SZ_256M, 256 },			/* default */
		{ 3ULL * SZ_128M, SZ_256M, 256 },	/* not a power of 2 */
		{ SZ_128M, SZ_256M, 256 },		/* too small */
		{ SZ_256M, SZ_256M, 256 },
		{ SZ_1G, SZ_1G, 64 },
	};
	int i;

	virtio_mem_kunit_need_sizes(test);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		virtio_mem_kunit_reset_layout(test);
		vm->addr = 64ULL * SZ_1G;
		vm->region_size = 64ULL * SZ_1G;
		vm->device_block_size = SZ_256M;
		bbm_block_size = cases[i].param;
		virtio_mem_init_layout(vm, &virtio_mem_kunit_pluggable);
		bbm_block_size = saved;

		KUNIT_EXPECT_FALSE(test, vm->in_sbm);
		KUNIT_EXPECT_EQ_MSG(test, vm->bbm.bb_size, cases[i].bb_size,
				    "bbm_block_size=0x%lx", cases[i].param);
		KUNIT_EXPECT_EQ_MSG(test, vm->bbm.first_bb_id, cases[i].first_bb_id,
				    "bbm_block_size=0x%lx", cases[i].param);
	}
}

static struct kunit_case virtio_mem_config_test_cases[] = {
	KUNIT_CASE(virtio_mem_config_test_block_size),
	KUNIT_CASE(virtio_mem_config_test_sbm_layout),
	KUNIT_CASE(virtio_mem_config_test_bbm_layout),
	KUNIT_CASE(virtio_mem_config_test_unaligned),
	KUNIT_CASE(virtio_mem_config_test_empty_usable),
	KUNIT_CASE(virtio_mem_config_test_not_pluggable),
	KUNIT_CASE(virtio_mem_config_test_bbm_block_size),
	KUNIT_CASE(virtio_mem_config_test_addr_zero),
	KUNIT_CASE(virtio_mem_config_test_top_of_space),
	KUNIT_CASE(virtio_mem_config_test_usable_before_first),
	{}
};

static struct kunit_suite virtio_mem_config_test_suite = {
	.name = "virtio_mem_config",
	.init = virtio_mem_kunit_init,
	.exit = virtio_mem_kunit_exit,
	.test_cases = virtio_mem_config_test_cases,
};

/* ---- virtio_mem_unplug: decisions of the unplug paths ---- */

/*
 * The unplug paths end in memory hotplug (offline_and_remove_memory()),
 * the page allocator (alloc_contig_range()) and the device (a request on
 * the virtqueue), and give fake-offline pages back to the buddy.  Each case
 * replaces these four with stubs (kunit_activate_static_stub()) that record
 * what they are asked and answer as the case says, so that nothing of the
 * running kernel is offlined, isolated or freed and nothing is sent, even
 * when the code under test is broken.
 */
#define VIRTIO_MEM_KUNIT_MAX_CALLS	8

struct virtio_mem_kunit_stubs {
	/* offline_and_remove_memory(): the n-th call's answer, its range */
	int offline_rc[VIRTIO_MEM_KUNIT_MAX_CALLS];
	u64 offline_addr[VIRTIO_MEM_KUNIT_MAX_CALLS];
	u64 offline_size[VIRTIO_MEM_KUNIT_MAX_CALLS];
	unsigned int offline_calls;
	/* alloc_contig_range(): its answer, how often it was called */
	int contig_rc;
	unsigned int contig_calls;
	/* requests sent to the device, pages given back */
	unsigned int requests;
	unsigned int fake_online_calls;
};

static struct virtio_mem_kunit_stubs *virtio_mem_kunit_stubs(struct kunit *test)
{
	struct kunit_resource *res;
	struct virtio_mem_kunit_stubs *s;

	res = kunit_find_named_resource(test, "virtio_mem_kunit_stubs");
	if (!res)
		return NULL;
	s = res->data;
	kunit_put_resource(res);
	return s;
}

static int virtio_mem_kunit_offline_stub(u64 addr, u64 size)
{
	struct kunit *test = kunit_get_current_test();
	struct virtio_mem_kunit_stubs *s = virtio_mem_kunit_stubs(test);
	unsigned int n = s->offline_calls++;

	if (n >= VIRTIO_MEM_KUNIT_MAX_CALLS) {
		KUNIT_FAIL(test, "offline_and_remove_memory() called %u times", n + 1);
		return -EBUSY;
	}
	s->offline_addr[n] = addr;
	s->offline_size[n] = size;
	return s->offline_rc[n];
}

static int virtio_mem_kunit_contig_stub(unsigned long pfn, unsigned long nr_pages)
{
	struct virtio_mem_kunit_stubs *s =
		virtio_mem_kunit_stubs(kunit_get_current_test());

	s->contig_calls++;
	return s->contig_rc;
}

static void virtio_mem_kunit_fake_online_stub(unsigned long pfn,
					      unsigned long nr_pages)
{
	virtio_mem_kunit_stubs(kunit_get_current_test())->fake_online_calls++;
}

/* The device: every request fails (VIRTIO_MEM_RESP_ERROR) */
static uint64_t virtio_mem_kunit_request_stub(struct virtio_mem *vm,
					      const struct virtio_mem_req *req)
{
	virtio_mem_kunit_stubs(kunit_get_current_test())->requests++;
	return VIRTIO_MEM_RESP_ERROR;
}

/*
 * The stubs for the rest of the case.  By default offline_and_remove_memory()
 * and alloc_contig_range() fail with -EBUSY.
 */
static struct virtio_mem_kunit_stubs *virtio_mem_kunit_stub_unplug(struct kunit *test)
{
	struct virtio_mem_kunit_stubs *s;
	struct kunit_resource *res;
	int i;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < VIRTIO_MEM_KUNIT_MAX_CALLS; i++)
		s->offline_rc[i] = -EBUSY;
	s->contig_rc = -EBUSY;
	res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, res);
	KUNIT_ASSERT_EQ(test, kunit_add_named_resource(test, NULL, NULL, res,
						       "virtio_mem_kunit_stubs", s), 0);
	kunit_activate_static_stub(test, virtio_mem_offline_and_remove_range,
				   virtio_mem_kunit_offline_stub);
	kunit_activate_static_stub(test, virtio_mem_alloc_contig_range,
				   virtio_mem_kunit_contig_stub);
	kunit_activate_static_stub(test, virtio_mem_fake_online,
				   virtio_mem_kunit_fake_online_stub);
	kunit_activate_static_stub(test, virtio_mem_send_request,
				   virtio_mem_kunit_request_stub);
	return s;
}

/*
 * What an error of offline_and_remove_memory() becomes: only -ENOMEM is
 * passed on; every other error means "busy, retry later" (-EBUSY), never
 * one that the workqueue takes for a broken device.
 */
static const struct {
	int rc;
	int want;
} virtio_mem_kunit_offline_rcs[] = {
	{ -ENOMEM, -ENOMEM },
	{ -EBUSY, -EBUSY },
	{ -EINVAL, -EBUSY },	/* a range offline_pages() cannot handle */
	{ -EINTR, -EBUSY },	/* a memory notifier's error of choice */
	{ -EPERM, -EBUSY },	/* a memory notifier's NOTIFY_BAD */
};

static void virtio_mem_unplug_test_offline_rc(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(virtio_mem_kunit_offline_rcs); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    virtio_mem_offline_rc(virtio_mem_kunit_offline_rcs[i].rc),
				    virtio_mem_kunit_offline_rcs[i].want,
				    "offline_and_remove_memory() failed with %d",
				    virtio_mem_kunit_offline_rcs[i].rc);
}

/*
 * The same through virtio_mem_offline_and_remove_memory(), with
 * offline_and_remove_memory() failing with each error in turn: the driver
 * reports -EBUSY (retry later) for all but -ENOMEM and accounts nothing as
 * removed.  On success, the range is accounted as removed.
 */
static void virtio_mem_unplug_test_offline_error_is_busy(struct kunit *test)
{
	struct virtio_mem_kunit_stubs *s = virtio_mem_kunit_stub_unplug(test);
	struct virtio_mem *vm = test->priv;
	int i;

	atomic64_set(&vm->offline_size, 3 * SZ_128M);
	for (i = 0; i < ARRAY_SIZE(virtio_mem_kunit_offline_rcs); i++)
		s->offline_rc[i] = virtio_mem_kunit_offline_rcs[i].rc;
	for (i = 0; i < ARRAY_SIZE(virtio_mem_kunit_offline_rcs); i++) {
		KUNIT_EXPECT_EQ_MSG(test,
				    virtio_mem_offline_and_remove_memory(vm, SZ_1G, SZ_128M),
				    virtio_mem_kunit_offline_rcs[i].want,
				    "offline_and_remove_memory() failed with %d",
				    virtio_mem_kunit_offline_rcs[i].rc);
		KUNIT_EXPECT_EQ(test, atomic64_read(&vm->offline_size), 3 * SZ_128M);
	}
	KUNIT_EXPECT_EQ(test, s->offline_calls, 5);
	KUNIT_EXPECT_EQ(test, s->offline_addr[4], SZ_1G);
	KUNIT_EXPECT_EQ(test, s->offline_size[4], SZ_128M);

	s->offline_rc[5] = 0;
	KUNIT_EXPECT_EQ(test, virtio_mem_offline_and_remove_memory(vm, SZ_1G, SZ_128M), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&vm->offline_size), 2 * SZ_128M);
}

/*
 * SBM with @nr_mbs memory blocks from @mb_id, all subblocks plugged, the
 * blocks online (MOVABLE, as far as the driver knows).  With the stubs,
 * the ids need not be memory of this machine: nothing looks at the pages.
 */
static void virtio_mem_kunit_sbm_blocks(struct kunit *test, unsigned long mb_id,
					unsigned long nr_mbs)
{
	struct virtio_mem *vm = test->priv;
	unsigned long i;

	virtio_mem_kunit_need_sizes(test);
	virtio_mem_kunit_sbm_setup(test, mb_id, nr_mbs);
	for (i = 0; i < nr_mbs; i++) {
		virtio_mem_sbm_set_sb_plugged(vm, mb_id + i, 0, vm->sbm.sbs_per_mb);
		virtio_mem_sbm_set_mb_state(vm, mb_id + i, VIRTIO_MEM_SBM_MB_MOVABLE);
	}
}

/* The block of the retry cases: 8 (1 GiB with 128 MiB memory blocks) */
#define VIRTIO_MEM_KUNIT_RETRY_MB	8

/*
 * Memory block @mb_id as the workqueue finds it after an unplug request:
 * subblocks @first_sb and up unplugged, the block MOVABLE_PARTIAL, the
 * driver's note to retry set.
 */
static void virtio_mem_kunit_sbm_retry_mb(struct kunit *test, unsigned long mb_id,
					  int first_sb)
{
	struct virtio_mem *vm = test->priv;

	virtio_mem_sbm_set_sb_unplugged(vm, mb_id, first_sb,
					vm->sbm.sbs_per_mb - first_sb);
	virtio_mem_sbm_set_mb_state(vm, mb_id, VIRTIO_MEM_SBM_MB_MOVABLE_PARTIAL);
	vm->sbm.have_unplugged_mb = true;
}

/*
 * A memory block whose subblocks are all unplugged but that could not be
 * offlined and removed is retried on every run of the workqueue: the retry
 * fails again (-EBUSY), the block keeps its state and the driver keeps its
 * note to retry, have_unplugged_mb.
 */
static void virtio_mem_unplug_test_sbm_retry_fails(struct kunit *test)
{
	struct virtio_mem_kunit_stubs *s = virtio_mem_kunit_stub_unplug(test);
	struct virtio_mem *vm = test->priv;
	const unsigned long mb = VIRTIO_MEM_KUNIT_RETRY_MB;

	virtio_mem_kunit_sbm_blocks(test, mb, 1);
	virtio_mem_kunit_sbm_retry_mb(test, mb, 0);

	KUNIT_EXPECT_EQ(test, virtio_mem_cleanup_pending_mb(vm), 0);
	KUNIT_EXPECT_TRUE(test, vm->sbm.have_unplugged_mb);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_get_mb_state(vm, mb),
			VIRTIO_MEM_SBM_MB_MOVABLE_PARTIAL);
	/* the whole block, memory block 8 at 1 GiB */
	KUNIT_ASSERT_EQ(test, s->offline_calls, 1);
	KUNIT_EXPECT_EQ(test, s->offline_addr[0], SZ_1G);
	KUNIT_EXPECT_EQ(test, s->offline_size[0], SZ_128M);
	KUNIT_EXPECT_EQ(test, s->requests, 0);
}

/*
 * The retry succeeds: the block is gone (UNUSED) and, with no other block
 * left to retry, the note is dropped.
 */
static void virtio_mem_unplug_test_sbm_retry_removes(struct kunit *test)
{
	struct virtio_mem_kunit_stubs *s = virtio_mem_kunit_stub_unplug(test);
	struct virtio_mem *vm = test->priv;
	const unsigned long mb = VIRTIO_MEM_KUNIT_RETRY_MB;

	virtio_mem_kunit_sbm_blocks(test, mb, 1);
	virtio_mem_kunit_sbm_retry_mb(test, mb, 0);
	s->offline_rc[0] = 0;

	KUNIT_EXPECT_EQ(test, virtio_mem_cleanup_pending_mb(vm), 0);
	KUNIT_EXPECT_FALSE(test, vm->sbm.have_unplugged_mb);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_get_mb_state(vm, mb),
			VIRTIO_MEM_SBM_MB_UNUSED);
	KUNIT_EXPECT_EQ(test, s->offline_calls, 1);
}

/*
 * The note is dropped once no memory block is left whose subblocks are
 * all unplugged: a block with one subblock still plugged is not offlined,
 * and the workqueue stops retrying.
 */
static void virtio_mem_unplug_test_sbm_retry_none_left(struct kunit *test)
{
	struct virtio_mem_kunit_stubs *s = virtio_mem_kunit_stub_unplug(test);
	struct virtio_mem *vm = test->priv;
	const unsigned long mb = VIRTIO_MEM_KUNIT_RETRY_MB;

	virtio_mem_kunit_sbm_blocks(test, mb, 1);
	/* subblock 0 stays plugged */
	virtio_mem_kunit_sbm_retry_mb(test, mb, 1);

	KUNIT_EXPECT_EQ(test, virtio_mem_cleanup_pending_mb(vm), 0);
	KUNIT_EXPECT_FALSE(test, vm->sbm.have_unplugged_mb);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_get_mb_state(vm, mb),
			VIRTIO_MEM_SBM_MB_MOVABLE_PARTIAL);
	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_plugged(vm, mb, 0, 1));
	KUNIT_EXPECT_EQ(test, s->offline_calls, 0);
}

/*
 * One pass over the partially unplugged memory blocks with two outcomes:
 * block A, all subblocks unplugged but busy (offlining fails), then block
 * B, the next one, with subblock 0 still plugged (nothing to do).  B's
 * outcome must not hide A's: the driver keeps its note to retry.
 * @state_b: B's state, so that B comes after A in the same list as A
 * (MOVABLE_PARTIAL) or in a later one (KERNEL_PARTIAL, OFFLINE_PARTIAL).
 */
static void virtio_mem_kunit_sbm_retry_two(struct kunit *test, int state_b)
{
	struct virtio_mem_kunit_stubs *s = virtio_mem_kunit_stub_unplug(test);
	struct virtio_mem *vm = test->priv;
	const unsigned long mb_a = VIRTIO_MEM_KUNIT_RETRY_MB, mb_b = mb_a + 1;

	virtio_mem_kunit_sbm_blocks(test, mb_a, 2);
	virtio_mem_sbm_set_sb_unplugged(vm, mb_a, 0, vm->sbm.sbs_per_mb);
	virtio_mem_sbm_set_mb_state(vm, mb_a, VIRTIO_MEM_SBM_MB_MOVABLE_PARTIAL);
	virtio_mem_sbm_set_sb_unplugged(vm, mb_b, 1, vm->sbm.sbs_per_mb - 1);
	virtio_mem_sbm_set_mb_state(vm, mb_b, state_b);
	vm->sbm.have_unplugged_mb = true;

	KUNIT_EXPECT_EQ(test, virtio_mem_cleanup_pending_mb(vm), 0);
	KUNIT_EXPECT_TRUE(test, vm->sbm.have_unplugged_mb);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_get_mb_state(vm, mb_a),
			VIRTIO_MEM_SBM_MB_MOVABLE_PARTIAL);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_get_mb_state(vm, mb_b), state_b);
	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_plugged(vm, mb_b, 0, 1));
	/* A only, at 1 GiB */
	KUNIT_ASSERT_EQ(test, s->offline_calls, 1);
	KUNIT_EXPECT_EQ(test, s->offline_addr[0], SZ_1G);
}

static void virtio_mem_unplug_test_sbm_retry_two_movable(struct kunit *test)
{
	virtio_mem_kunit_sbm_retry_two(test, VIRTIO_MEM_SBM_MB_MOVABLE_PARTIAL);
}

static void virtio_mem_unplug_test_sbm_retry_two_kernel(struct kunit *test)
{
	virtio_mem_kunit_sbm_retry_two(test, VIRTIO_MEM_SBM_MB_KERNEL_PARTIAL);
}

static void virtio_mem_unplug_test_sbm_retry_two_offline(struct kunit *test)
{
	virtio_mem_kunit_sbm_retry_two(test, VIRTIO_MEM_SBM_MB_OFFLINE_PARTIAL);
}

static int virtio_mem_kunit_page_init(struct kunit_resource *res, void *context)
{
	res->data = alloc_page(GFP_KERNEL);
	return res->data ? 0 : -ENOMEM;
}

/*
 * Free the case's page.  A driver that took it for fake-offline although
 * alloc_contig_range() (the stub) refused marked it offline and took it
 * from the managed pages: undone here, so that a broken driver leaves
 * nothing behind.
 */
static void virtio_mem_kunit_page_free(struct kunit_resource *res)
{
	struct page *page = res->data;

	if (PageOffline(page)) {
		virtio_mem_clear_fake_offline(page_to_pfn(page), 1, true);
		adjust_managed_page_count(page, 1);
	}
	__free_page(page);
}

/*
 * A page of the case's own, kernel memory, not movable: fake offlining
 * looks at its zone before it asks alloc_contig_range() (the stub).
 */
static struct page *virtio_mem_kunit_page(struct kunit *test)
{
	struct page *page;

	page = kunit_alloc_resource(test, virtio_mem_kunit_page_init,
				    virtio_mem_kunit_page_free, GFP_KERNEL,
				    NULL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_FALSE(test, is_zone_movable_page(page));
	return page;
}

/*
 * SBM with the memory block of @page, one subblock per page: returns the
 * id of @page's subblock.  All subblocks plugged, the block online
 * (MOVABLE, as far as the driver knows).
 */
static int virtio_mem_kunit_sbm_page(struct kunit *test, struct page *page,
				     unsigned long *mb_id)
{
	struct virtio_mem *vm = test->priv;
	const phys_addr_t addr = page_to_phys(page);

	*mb_id = virtio_mem_phys_to_mb_id(addr);
	virtio_mem_kunit_sbm_setup(test, *mb_id, 1);
	/* a subblock per page: the subblock of the page is the page */
	vfree(vm->sbm.sb_states);
	vm->sbm.sb_size = PAGE_SIZE;
	vm->sbm.sbs_per_mb = memory_block_size_bytes() / PAGE_SIZE;
	vm->sbm.sb_states = vzalloc(BITS_TO_LONGS(vm->sbm.sbs_per_mb) * sizeof(long));
	KUNIT_ASSERT_NOT_NULL(test, vm->sbm.sb_states);
	virtio_mem_sbm_set_sb_plugged(vm, *mb_id, 0, vm->sbm.sbs_per_mb);
	virtio_mem_sbm_set_mb_state(vm, *mb_id, VIRTIO_MEM_SBM_MB_MOVABLE);
	return (addr - virtio_mem_mb_id_to_phys(*mb_id)) / PAGE_SIZE;
}

/*
 * After a failed unplug of the page's subblock: every subblock still
 * plugged, the block still MOVABLE, nothing sent, nothing given back.
 */
static void virtio_mem_kunit_expect_sbm_page_kept(struct kunit *test,
						  unsigned long mb_id)
{
	struct virtio_mem_kunit_stubs *s = virtio_mem_kunit_stubs(test);
	struct virtio_mem *vm = test->priv;

	KUNIT_EXPECT_TRUE(test, virtio_mem_sbm_test_sb_plugged(vm, mb_id, 0,
							       vm->sbm.sbs_per_mb));
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_get_mb_state(vm, mb_id),
			VIRTIO_MEM_SBM_MB_MOVABLE);
	KUNIT_EXPECT_EQ(test, s->requests, 0);
	KUNIT_EXPECT_EQ(test, s->fake_online_calls, 0);
}

/*
 * The device changed its request while the driver is unplugging: the
 * driver must stop before it tries to fake-offline memory (which can take
 * long on busy memory) and go back to the workqueue with -EAGAIN, leaving
 * the subblock plugged and the memory block as it was.
 */
static void virtio_mem_unplug_test_sbm_config_changed(struct kunit *test)
{
	struct virtio_mem_kunit_stubs *s = virtio_mem_kunit_stub_unplug(test);
	struct virtio_mem *vm = test->priv;
	struct page *page = virtio_mem_kunit_page(test);
	unsigned long mb_id;
	int sb_id;

	sb_id = virtio_mem_kunit_sbm_page(test, page, &mb_id);
	atomic_set(&vm->config_changed, 1);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_unplug_sb_online(vm, mb_id, sb_id, 1),
			-EAGAIN);
	virtio_mem_kunit_expect_sbm_page_kept(test, mb_id);
	KUNIT_EXPECT_EQ(test, s->contig_calls, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&vm->config_changed), 1);
}

/*
 * Control: the same subblock without a config change.  The driver does try
 * to fake-offline it; alloc_contig_range() refuses (busy: -EBUSY), once, as
 * the page is not in ZONE_MOVABLE, so the caller moves on to the next
 * subblock.  Nothing is sent to the device.
 */
static void virtio_mem_unplug_test_sbm_busy(struct kunit *test)
{
	struct virtio_mem_kunit_stubs *s = virtio_mem_kunit_stub_unplug(test);
	struct virtio_mem *vm = test->priv;
	struct page *page = virtio_mem_kunit_page(test);
	unsigned long mb_id;
	int sb_id;

	sb_id = virtio_mem_kunit_sbm_page(test, page, &mb_id);
	KUNIT_EXPECT_EQ(test, virtio_mem_sbm_unplug_sb_online(vm, mb_id, sb_id, 1),
			-EBUSY);
	virtio_mem_kunit_expect_sbm_page_kept(test, mb_id);
	KUNIT_EXPECT_EQ(test, s->contig_calls, 1);
	KUNIT_EXPECT_FALSE(test, PageOffline(page));
}

/*
 * The same in BBM: a big block of one memory block, the one of the page,
 * added to Linux.  With the config changed, unplugging it stops before
 * fake-offlining with -EAGAIN, and the big block is back in its state
 * (ADDED), not left FAKE_OFFLINE.  (No BBM case without the change: fake
 * offlining would be asked for the whole memory block, and a driver that
 * took the stub's refusal for success would mark memory the kernel uses.)
 */
static void virtio_mem_unplug_test_bbm_config_changed(struct kunit *test)
{
	struct virtio_mem_kunit_stubs *s = virtio_mem_kunit_stub_unplug(test);
	struct virtio_mem *vm = test->priv;
	struct page *page = virtio_mem_kunit_page(test);
	unsigned long bb_id;

	bb_id = page_to_phys(page) / memory_block_size_bytes();
	virtio_mem_kunit_bbm_setup(test, bb_id, 1);
	vm->bbm.bb_size = memory_block_size_bytes();
	KUNIT_ASSERT_EQ(test, virtio_mem_phys_to_bb_id(vm, page_to_phys(page)),
			bb_id);
	virtio_mem_bbm_set_bb_state(vm, bb_id, VIRTIO_MEM_BBM_BB_ADDED);
	atomic_set(&vm->config_changed, 1);
	KUNIT_EXPECT_EQ(test, virtio_mem_bbm_offline_remove_and_unplug_bb(vm, bb_id),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, virtio_mem_bbm_get_bb_state(vm, bb_id),
			VIRTIO_MEM_BBM_BB_ADDED);
	KUNIT_EXPECT_EQ(test, s->contig_calls, 0);
	KUNIT_EXPECT_EQ(test, s->offline_calls, 0);
	KUNIT_EXPECT_EQ(test, s->requests, 0);
}

/*
 * The retry timer of the workqueue (virtio_mem_run_wq()): a run that fails
 * with -EBUSY arms it with retry_timer_ms, which starts at
 * VIRTIO_MEM_RETRY_TIMER_MIN_MS (50 s); each expiry doubles it, up to
 * VIRTIO_MEM_RETRY_TIMER_MAX_MS (300 s); a run that succeeds starts it over
 * at 50 s.  The failing run is a retry of an unplugged memory block whose
 * removal fails (the stub), the succeeding one the same retry removing it.
 * The timer never fires: each expiry is a call of its function, with the
 * timer cancelled first.
 */
static void virtio_mem_kunit_cancel_timer(void *data)
{
	hrtimer_cancel(data);
}

/* The timer is armed and fires in (@s - 1, @s] seconds. */
static void virtio_mem_kunit_expect_armed(struct kunit *test, struct virtio_mem *vm,
					  s64 s)
{
	s64 left = ktime_to_ms(hrtimer_get_remaining(&vm->retry_timer));

	KUNIT_EXPECT_TRUE(test, hrtimer_active(&vm->retry_timer));
	KUNIT_EXPECT_GT_MSG(test, left, (s - 1) * 1000, "armed for %lld ms", left);
	KUNIT_EXPECT_LE_MSG(test, left, s * 1000, "armed for %lld ms", left);
}

static void virtio_mem_kunit_expire(struct virtio_mem *vm)
{
	hrtimer_cancel(&vm->retry_timer);
	virtio_mem_timer_expired(&vm->retry_timer);
}

static void virtio_mem_unplug_test_retry_backoff(struct kunit *test)
{
	struct virtio_mem_kunit_stubs *s = virtio_mem_kunit_stub_unplug(test);
	struct virtio_mem *vm = test->priv;
	const unsigned long mb = VIRTIO_MEM_KUNIT_RETRY_MB;

	hrtimer_init(&vm->retry_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	vm->retry_timer.function = virtio_mem_timer_expired;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							virtio_mem_kunit_cancel_timer,
							&vm->retry_timer), 0);
	vm->retry_timer_ms = 50000;	/* as probing sets it */
	virtio_mem_kunit_sbm_blocks(test, mb, 1);
	virtio_mem_kunit_sbm_retry_mb(test, mb, 0);

	/* fails: armed for 50 s; expires: 100 s next time */
	virtio_mem_run_wq(&vm->wq);
	KUNIT_EXPECT_EQ(test, s->offline_calls, 1);
	virtio_mem_kunit_expect_armed(test, vm, 50);
	virtio_mem_kunit_expire(vm);
	KUNIT_EXPECT_EQ(test, vm->retry_timer_ms, 100000);

	/* fails again: armed for 100 s; expires: 200 s next time */
	virtio_mem_run_wq(&vm->wq);
	KUNIT_EXPECT_EQ(test, s->offline_calls, 2);
	virtio_mem_kunit_expect_armed(test, vm, 100);
	virtio_mem_kunit_expire(vm);
	KUNIT_EXPECT_EQ(test, vm->retry_timer_ms, 200000);

	/* succeeds: the block is removed, nothing armed, 50 s again */
	s->offline_rc[2] = 0;
	virtio_mem_run_wq(&vm->wq);
	KUNIT_EXPECT_EQ(test, s->offline_calls, 3);
	KUNIT_EXPECT_FALSE(test, hrtimer_active(&vm->retry_timer));
	KUNIT_EXPECT_EQ(test, vm->retry_timer_ms, 50000);

	/* the next failure is retried after 50 s, not 200 s */
	virtio_mem_kunit_sbm_retry_mb(test, mb, 0);
	virtio_mem_run_wq(&vm->wq);
	KUNIT_EXPECT_EQ(test, s->offline_calls, 4);
	virtio_mem_kunit_expect_armed(test, vm, 50);

	/* expiries double it up to 300 s: 100, 200, 300, 300 */
	virtio_mem_kunit_expire(vm);
	virtio_mem_kunit_expire(vm);
	virtio_mem_kunit_expire(vm);
	KUNIT_EXPECT_EQ(test, vm->retry_timer_ms, 300000);
	virtio_mem_kunit_expire(vm);
	KUNIT_EXPECT_EQ(test, vm->retry_timer_ms, 300000);
	KUNIT_EXPECT_FALSE(test, vm->broken);
	KUNIT_EXPECT_EQ(test, s->requests, 0);
}

static struct kunit_case virtio_mem_unplug_test_cases[] = {
	KUNIT_CASE(virtio_mem_unplug_test_offline_rc),
	KUNIT_CASE(virtio_mem_unplug_test_offline_error_is_busy),
	KUNIT_CASE(virtio_mem_unplug_test_sbm_retry_fails),
	KUNIT_CASE(virtio_mem_unplug_test_sbm_retry_removes),
	KUNIT_CASE(virtio_mem_unplug_test_sbm_retry_none_left),
	KUNIT_CASE(virtio_mem_unplug_test_sbm_retry_two_movable),
	KUNIT_CASE(virtio_mem_unplug_test_sbm_retry_two_kernel),
	KUNIT_CASE(virtio_mem_unplug_test_sbm_retry_two_offline),
	KUNIT_CASE(virtio_mem_unplug_test_sbm_config_changed),
	KUNIT_CASE(virtio_mem_unplug_test_sbm_busy),
	KUNIT_CASE(virtio_mem_unplug_test_bbm_config_changed),
	KUNIT_CASE(virtio_mem_unplug_test_retry_backoff),
	{}
};

static struct kunit_suite virtio_mem_unplug_test_suite = {
	.name = "virtio_mem_unplug",
	.init = virtio_mem_kunit_init,
	.exit = virtio_mem_kunit_exit,
	.test_cases = virtio_mem_unplug_test_cases,
};

kunit_test_suites(&virtio_mem_conv_test_suite, &virtio_mem_sbm_test_suite,
		  &virtio_mem_bbm_test_suite, &virtio_mem_range_test_suite,
		  &virtio_mem_config_test_suite, &virtio_mem_unplug_test_suite);
