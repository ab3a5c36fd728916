// SPDX-License-Identifier: Apache-2.0
// kmod_guest_test: exercises bam.ko inside the QEMU guest (run-guest.py), as root.
//
//   kmod_guest_test [path/to/bam.ko]
//
// Expects two emulated controllers: 0000:00:01.0 (serial bam0, namespace 1 with 512-byte
// blocks) and 0000:00:02.0 (serial bam1, namespace 1 with 4 KiB blocks), both bound to Linux's
// nvme driver at start. It loads bam.ko, binds the first controller through new_id and the
// second through driver_override, and checks GET_INFO, the BAR0 mapping, pinning, the bus
// addresses (against /proc/self/pagemap and by letting the controller DMA Identify data into
// pinned memory), argument validation, the per-process limit, release on close and on unbind,
// then hands the first controller back to nvme and unloads the module.
// Prints one line per failed check; exits 0 only when every check passed.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bam_ioctl.h"

_Static_assert(sizeof(struct bam_ioc_get_info) == 96, "ABI: get_info");
_Static_assert(sizeof(struct bam_ioc_pin_host) == 48, "ABI: pin_host");
_Static_assert(sizeof(struct bam_ioc_pin_gpu) == 56, "ABI: pin_gpu");
_Static_assert(sizeof(struct bam_ioc_get_mapping) == 56, "ABI: get_mapping");
_Static_assert(sizeof(struct bam_ioc_unpin) == 8, "ABI: unpin");

#define CTRL0 "0000:00:01.0"
#define CTRL1 "0000:00:02.0"
#define PCI_DEVICES "/sys/bus/pci/devices/"
#define PCI_DRIVERS "/sys/bus/pci/drivers/"
#define PARAMS "/sys/module/bam/parameters/"

static int n_checks;
static int n_failed;

static bool check_(bool ok, int line, const char *what)
{
	n_checks++;
	if (!ok) {
		n_failed++;
		printf("FAIL line %d: %s\n", line, what);
		fflush(stdout);
	}
	return ok;
}
#define CHECK(cond) check_((cond), __LINE__, #cond)

// Stop at once: later checks make no sense without this one.
#define REQUIRE(cond)                                                                  \
	do {                                                                           \
		if (!CHECK(cond)) {                                                    \
			printf("kmod_guest_test: stopping after %d checks, %d failed\n", \
			       n_checks, n_failed);                                     \
			exit(1);                                                       \
		}                                                                      \
	} while (0)

static bool check_errno_(long rc, int err, int expected, int line, const char *what)
{
	n_checks++;
	if (rc == -1 && err == expected)
		return true;
	n_failed++;
	printf("FAIL line %d: %s: returned %ld errno %d (%s); expected errno %d (%s)\n", line, what,
	       rc, rc == -1 ? err : 0, rc == -1 ? strerror(err) : "-", expected, strerror(expected));
	fflush(stdout);
	return false;
}
// expr must fail with errno == expected.
#define CHECK_ERRNO(expr, expected)                                                 \
	do {                                                                        \
		errno = 0;                                                          \
		long rc_ = (long)(expr);                                            \
		check_errno_(rc_, errno, (expected), __LINE__, #expr);              \
	} while (0)

static bool check_ok_(long rc, int err, int line, const char *what)
{
	n_checks++;
	if (rc >= 0)
		return true;
	n_failed++;
	printf("FAIL line %d: %s: returned %ld errno %d (%s)\n", line, what, rc, err, strerror(err));
	fflush(stdout);
	return false;
}
// expr must succeed (return >= 0).
#define CHECK_OK(expr) check_ok_((long)(expr), errno, __LINE__, #expr)

// ---- small system helpers --------------------------------------------------------------------

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static long read_long(const char *path)
{
	char buf[64] = { 0 };
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtol(buf, NULL, 0) : -1;
}

// Name of the driver bound to a PCI function, "" when none.
static const char *driver_of(const char *bdf)
{
	static char name[256];
	char link[256], target[256];
	ssize_t n;

	snprintf(link, sizeof(link), PCI_DEVICES "%s/driver", bdf);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return "";
	target[n] = 0;
	snprintf(name, sizeof(name), "%s", strrchr(target, '/') + 1);
	return name;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static bool wait_for(const char *path, bool present, int timeout_ms)
{
	for (int t = 0; t < timeout_ms; t += 10) {
		if ((access(path, F_OK) == 0) == present)
			return true;
		sleep_ms(10);
	}
	return false;
}

static bool wait_for_driver(const char *bdf, const char *driver, int timeout_ms)
{
	for (int t = 0; t < timeout_ms; t += 10) {
		if (strcmp(driver_of(bdf), driver) == 0)
			return true;
		sleep_ms(10);
	}
	return false;
}

// PCI command register bit 2: the function may master the bus (DMA).
static int bus_master_of(const char *bdf)
{
	char path[256];
	uint16_t cmd = 0;
	int fd;

	snprintf(path, sizeof(path), PCI_DEVICES "%s/config", bdf);
	fd = open(path, O_RDONLY);
	if (fd < 0 || pread(fd, &cmd, 2, 4) != 2)
		cmd = 0xffff;
	if (fd >= 0)
		close(fd);
	return cmd == 0xffff ? -1 : !!(cmd & 4);
}

static void unbind(const char *bdf)
{
	char path[256];

	if (!*driver_of(bdf))
		return;
	snprintf(path, sizeof(path), PCI_DEVICES "%s/driver/unbind", bdf);
	CHECK_OK(write_file(path, bdf));
}

static int open_dev(int minor)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/bam%d", minor);
	return open(path, O_RDWR | O_CLOEXEC);
}

// ---- ioctl wrappers --------------------------------------------------------------------------

static int get_info(int fd, struct bam_ioc_get_info *info)
{
	memset(info, 0xa5, sizeof(*info));
	return ioctl(fd, BAM_IOC_GET_INFO, info);
}

static int pin_host(int fd, void *addr, uint64_t len, uint64_t *handle)
{
	struct bam_ioc_pin_host p = { .vaddr = (uintptr_t)addr, .length = len };
	int rc = ioctl(fd, BAM_IOC_PIN_HOST, &p);

	if (rc == 0 && handle)
		*handle = p.handle;
	return rc;
}

static int unpin(int fd, uint64_t handle)
{
	struct bam_ioc_unpin u = { .handle = handle };

	return ioctl(fd, BAM_IOC_UNPIN, &u);
}

static int get_mapping(int fd, uint64_t handle, uint64_t *addrs, uint64_t capacity,
		       uint64_t first, struct bam_ioc_get_mapping *out)
{
	struct bam_ioc_get_mapping m = {
		.handle = handle, .addrs = (uintptr_t)addrs, .capacity = capacity, .first = first
	};
	int rc = ioctl(fd, BAM_IOC_GET_MAPPING, &m);

	if (out)
		*out = m;
	return rc;
}

static void *alloc_pages(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	REQUIRE(p != MAP_FAILED);
	memset(p, 0, len);
	return p;
}

// Physical address of a resident page, from /proc/self/pagemap (root sees the PFNs).
static uint64_t phys_of(const void *addr)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t entry = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &entry, 8, (off_t)((uintptr_t)addr / page) * 8) != 8)
		entry = 0;
	close(fd);
	if (!(entry & (1ULL << 63)))
		return 0;
	return (entry & ((1ULL << 55) - 1)) * page;
}

// ---- NVMe through the mapped BAR0 --------------------------------------------------------

enum { REG_CAP = 0x0, REG_VS = 0x8, REG_CC = 0x14, REG_CSTS = 0x1c, REG_AQA = 0x24,
       REG_ASQ = 0x28, REG_ACQ = 0x30, REG_DBS = 0x1000 };

static uint32_t rd32(volatile uint8_t *bar, size_t off)
{
	return *(volatile uint32_t *)(bar + off);
}

static void wr32(volatile uint8_t *bar, size_t off, uint32_t v)
{
	*(volatile uint32_t *)(bar + off) = v;
}

static uint64_t rd64(volatile uint8_t *bar, size_t off)
{
	return rd32(bar, off) | (uint64_t)rd32(bar, off + 4) << 32;
}

static void wr64(volatile uint8_t *bar, size_t off, uint64_t v)
{
	wr32(bar, off, (uint32_t)v);
	wr32(bar, off + 4, (uint32_t)(v >> 32));
}

static bool wait_ready(volatile uint8_t *bar, uint32_t want)
{
	uint64_t timeout_ms = ((rd64(bar, REG_CAP) >> 24) & 0xff) * 500 + 500;

	for (uint64_t t = 0; t < timeout_ms; t += 1) {
		if ((rd32(bar, REG_CSTS) & 1) == want)
			return true;
		sleep_ms(1);
	}
	return false;
}

// Reset the controller, put an admin queue pair in pinned memory, and have the controller
// DMA Identify Controller and Identify Namespace 1 into it. This proves the BAR mapping, bus
// mastering and the bus addresses from GET_MAPPING all at once.
static void nvme_identify(int fd, volatile uint8_t *bar, const char *bdf, const char *serial,
			  unsigned lbads)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	const uint32_t qdepth = 8;
	uint8_t *mem = alloc_pages(4 * page); // page 0: SQ, 1: CQ, 2: controller, 3: namespace
	uint64_t addrs[4] = { 0 };
	uint64_t handle = 0;
	uint64_t cap = rd64(bar, REG_CAP);
	size_t stride = 4u << ((cap >> 32) & 0xf);

	if (!CHECK_OK(pin_host(fd, mem, 4 * page, &handle)))
		return;
	CHECK(bus_master_of(bdf) == 1);
	CHECK_OK(get_mapping(fd, handle, addrs, 4, 0, NULL));

	wr32(bar, REG_CC, 0);
	CHECK(wait_ready(bar, 0));
	wr32(bar, REG_AQA, (qdepth - 1) << 16 | (qdepth - 1));
	wr64(bar, REG_ASQ, addrs[0]);
	wr64(bar, REG_ACQ, addrs[1]);
	wr32(bar, REG_CC, 4u << 20 | 6u << 16 | 1); // IOCQES 16 B, IOSQES 64 B, 4 KiB pages, EN
	if (!CHECK(wait_ready(bar, 1)) || !CHECK((rd32(bar, REG_CSTS) & 2) == 0))
		goto out;

	for (uint32_t i = 0; i < 2; i++) {
		volatile uint32_t *sqe = (volatile uint32_t *)(mem + 64 * i);
		volatile uint32_t *cqe = (volatile uint32_t *)(mem + page + 16 * i);
		uint16_t cid = 0x40 + i;

		sqe[0] = 0x06 | (uint32_t)cid << 16;         // Identify
		sqe[1] = i == 0 ? 0 : 1;                     // NSID
		sqe[6] = (uint32_t)addrs[2 + i];             // PRP1
		sqe[7] = (uint32_t)(addrs[2 + i] >> 32);
		sqe[10] = i == 0 ? 1 : 0;                    // CNS: controller, namespace
		__sync_synchronize();
		wr32(bar, REG_DBS, i + 1);                   // SQ 0 tail
		int t = 0;
		while (!(cqe[3] & 0x10000) && t++ < 2000)    // phase tag of the first pass is 1
			sleep_ms(1);
		__sync_synchronize();
		if (!CHECK(cqe[3] & 0x10000))
			goto out;
		CHECK((cqe[3] & 0xffff) == cid);
		CHECK(((cqe[3] >> 17) & 0x7fff) == 0);       // status: success
		wr32(bar, REG_DBS + stride, i + 1);          // CQ 0 head
	}

	uint8_t *id = mem + 2 * page;
	CHECK((id[0] | id[1] << 8) == 0x1b36);               // VID
	CHECK(memcmp(id + 4, serial, strlen(serial)) == 0);  // SN, space padded
	CHECK(id[4 + strlen(serial)] == ' ');
	uint8_t *ns = mem + 3 * page;
	uint64_t nsze;
	memcpy(&nsze, ns, 8);
	unsigned flbas = ns[26] & 0xf;
	unsigned ns_lbads = ns[128 + 4 * flbas + 2];
	CHECK(ns_lbads == lbads);
	CHECK(nsze == (16u << 20) >> lbads);
	printf("  %s: identify via pinned memory: serial '%.8s', model '%.16s', %" PRIu64
	       " blocks of %u bytes\n", bdf, (char *)id + 4, (char *)id + 24, nsze, 1u << ns_lbads);

out:
	wr32(bar, REG_CC, 0); // stop all DMA before the memory goes
	CHECK(wait_ready(bar, 0));
	CHECK_OK(unpin(fd, handle));
	munmap(mem, 4 * page);
}

// ---- the test steps ----------------------------------------------------------------------

static void load_module(const char *ko)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC);

	REQUIRE(fd >= 0);
	errno = 0;
	long rc = syscall(SYS_finit_module, fd, "dbg=1", 0);
	REQUIRE(rc == 0 || errno == EEXIST);
	close(fd);
	CHECK(read_long(PARAMS "dev_mode") == 0600);
	CHECK(read_long(PARAMS "max_pinned_bytes") == 64L << 30);
	CHECK(access(PCI_DRIVERS "bam", F_OK) == 0);
}

static void check_info(int fd, const struct bam_ioc_get_info *info, const char *bdf, int slot)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	CHECK(info->abi_major == BAM_IOCTL_ABI_MAJOR);
	CHECK(info->abi_minor == BAM_IOCTL_ABI_MINOR);
	CHECK((info->flags & BAM_INFO_F_GPU_PIN) == 0); // QEMU builds have no NVIDIA tree
	CHECK(info->page_size == page);
	CHECK(info->bar0_len >= 0x2000 && (info->bar0_len & (info->bar0_len - 1)) == 0);
	CHECK(info->vendor_id == 0x1b36 && info->device_id == 0x0010);
	CHECK(info->class_code == 0x010802);
	CHECK(info->pci_domain == 0 && info->pci_bus == 0 && info->pci_devfn == (uint32_t)slot << 3);
	CHECK(info->pad0 == 0);
	CHECK(info->max_pinned_bytes == 64ULL << 30);
	(void)fd;
	printf("  %s: GET_INFO ABI %u.%u, BAR0 %#" PRIx64 " bytes, %04x:%04x subsystem %04x:%04x\n",
	       bdf, info->abi_major, info->abi_minor, (uint64_t)info->bar0_len, info->vendor_id,
	       info->device_id, info->subsystem_vendor_id, info->subsystem_device_id);
}

static volatile uint8_t *map_bar(int fd, const struct bam_ioc_get_info *info)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	void *bar;

	// Refused: private, past the end, offset past the end.
	CHECK_ERRNO(mmap(NULL, page, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED ? -1 : 0,
		    EINVAL);
	CHECK_ERRNO(mmap(NULL, info->bar0_len + page, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED
			    ? -1 : 0, EINVAL);
	CHECK_ERRNO(mmap(NULL, page, PROT_READ, MAP_SHARED, fd, info->bar0_len) == MAP_FAILED
			    ? -1 : 0, EINVAL);
	// An offset inside the BAR: the doorbell page.
	void *db = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, REG_DBS);
	CHECK(db != MAP_FAILED);
	if (db != MAP_FAILED)
		munmap(db, page);

	bar = mmap(NULL, info->bar0_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(bar != MAP_FAILED);
	volatile uint8_t *regs = bar;
	uint64_t cap = rd64(regs, REG_CAP);
	uint32_t vs = rd32(regs, REG_VS);
	unsigned mqes = (cap & 0xffff) + 1;
	printf("  BAR0: CAP %#018" PRIx64 " (MQES+1 %u, CQR %u, DSTRD %u, TO %u), VS %u.%u.%u\n",
	       cap, mqes, (unsigned)(cap >> 16) & 1, (unsigned)(cap >> 32) & 0xf,
	       (unsigned)(cap >> 24) & 0xff, vs >> 16, (vs >> 8) & 0xff, vs & 0xff);
	CHECK(vs == 0x00010400);                 // QEMU 7.2 reports NVMe 1.4
	CHECK(mqes >= 2 && mqes <= 65536);
	CHECK(mqes == 2048);                     // QEMU's default
	CHECK(((cap >> 16) & 1) == 1);           // CQR: queues physically contiguous
	CHECK(((cap >> 37) & 1) == 1);           // CSS: NVM command set
	return regs;
}

// The IOMMU domain type of a PCI function: "identity" (bus address == physical), "DMA" or
// "DMA-FQ" (translated), "" when there is no IOMMU group.
static const char *iommu_domain_of(const char *bdf)
{
	static char type[32];
	char path[256];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), PCI_DEVICES "%s/iommu_group/type", bdf);
	fd = open(path, O_RDONLY);
	n = fd >= 0 ? read(fd, type, sizeof(type) - 1) : 0;
	if (fd >= 0)
		close(fd);
	type[n > 0 ? n : 0] = 0;
	type[strcspn(type, "\n")] = 0;
	return type;
}

static void test_pin_and_mapping(int fd, const char *bdf)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	const uint64_t n = 16;
	uint8_t *buf = alloc_pages(n * page);
	uint64_t addrs[16] = { 0 };
	uint64_t handle = 0, handle2 = 0;
	struct bam_ioc_get_info info;
	struct bam_ioc_get_mapping m;

	struct bam_ioc_pin_host p = { .vaddr = (uintptr_t)buf, .length = n * page };
	if (!CHECK_OK(ioctl(fd, BAM_IOC_PIN_HOST, &p)))
		return;
	handle = p.handle;
	CHECK(handle != 0);
	CHECK(p.n_pages == n);
	CHECK(p.page_size == page);
	CHECK(p.pad1 == 0);

	CHECK_OK(get_mapping(fd, handle, addrs, n, 0, &m));
	CHECK(m.n_copied == n && m.n_pages == n && m.page_size == page);
	// Identity domain (iommu=pt): bus address == physical. Translated: IOVAs, which the
	// identify step below shows the controller can use.
	const char *domain = iommu_domain_of(bdf);
	bool identity = strcmp(domain, "identity") == 0 || !*domain;
	int bad_addr = 0, bad_phys = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (addrs[i] == 0 || addrs[i] % page)
			bad_addr++;
		if (identity && addrs[i] != phys_of(buf + i * page))
			bad_phys++;
	}
	CHECK(bad_addr == 0);
	CHECK(bad_phys == 0);
	CHECK(identity || addrs[0] != phys_of(buf));
	printf("  pinned %" PRIu64 " pages, first bus address %#" PRIx64 ", IOMMU domain '%s'%s\n",
	       n, addrs[0], domain, identity ? " (== physical)" : "");

	// Partial copies: a short array, and a window at the end.
	uint64_t few[4] = { 0 };
	CHECK_OK(get_mapping(fd, handle, few, 4, 0, &m));
	CHECK(m.n_copied == 4 && m.n_pages == n && memcmp(few, addrs, sizeof(few)) == 0);
	CHECK_OK(get_mapping(fd, handle, few, 4, n - 2, &m));
	CHECK(m.n_copied == 2 && few[0] == addrs[n - 2] && few[1] == addrs[n - 1]);
	CHECK_OK(get_mapping(fd, handle, NULL, 0, 0, &m));
	CHECK(m.n_copied == 0 && m.n_pages == n);
	CHECK_OK(get_mapping(fd, handle, few, 4, n, &m));
	CHECK(m.n_copied == 0);

	// A second pin of the same memory is allowed and gets its own handle.
	CHECK_OK(pin_host(fd, buf, page, &handle2));
	CHECK(handle2 != handle && handle2 != 0);

	CHECK_OK(get_info(fd, &info));
	CHECK(info.n_pins == 2);
	CHECK(info.pinned_bytes_file == (n + 1) * page);
	CHECK(info.pinned_bytes_process == (n + 1) * page);
	CHECK(info.pinned_bytes_device == (n + 1) * page);

	CHECK_OK(unpin(fd, handle));
	CHECK_ERRNO(unpin(fd, handle), ENOENT);
	CHECK_ERRNO(get_mapping(fd, handle, addrs, n, 0, NULL), ENOENT);
	CHECK_OK(unpin(fd, handle2));
	CHECK_OK(get_info(fd, &info));
	CHECK(info.n_pins == 0 && info.pinned_bytes_file == 0 && info.pinned_bytes_device == 0);
	munmap(buf, n * page);
}

static void test_bad_arguments(int fd)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint8_t *buf = alloc_pages(4 * page);
	uint64_t handle = 0, addrs[4];
	struct bam_ioc_get_info info;

	// PIN_HOST ranges.
	CHECK_ERRNO(pin_host(fd, buf, 0, NULL), EINVAL);                    // length 0
	CHECK_ERRNO(pin_host(fd, buf + 1, page, NULL), EINVAL);             // unaligned address
	CHECK_ERRNO(pin_host(fd, buf, page + 1, NULL), EINVAL);             // unaligned length
	CHECK_ERRNO(pin_host(fd, (void *)(uintptr_t)-page, 2 * page, NULL), EINVAL); // wraps
	CHECK_ERRNO(pin_host(fd, buf, 1ULL << 50, NULL), ENOMEM);           // over the limit
	CHECK_ERRNO(pin_host(fd, (void *)0xffff888000000000ULL, page, NULL), EFAULT); // kernel
	struct bam_ioc_pin_host p = { .vaddr = (uintptr_t)buf, .length = page, .flags = 1 };
	CHECK_ERRNO(ioctl(fd, BAM_IOC_PIN_HOST, &p), EINVAL);               // unknown flag
	p.flags = 0;
	p.pad0 = 1;
	CHECK_ERRNO(ioctl(fd, BAM_IOC_PIN_HOST, &p), EINVAL);               // reserved field

	// Memory that is not there, or not writable.
	uint8_t *gone = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			     -1, 0);
	REQUIRE(gone != MAP_FAILED);
	munmap(gone, 2 * page);
	CHECK_ERRNO(pin_host(fd, gone, 2 * page, NULL), EFAULT);
	uint8_t *ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(ro != MAP_FAILED);
	CHECK_ERRNO(pin_host(fd, ro, page, NULL), EFAULT);
	munmap(ro, page);
	// Half mapped: the part that did pin must be let go again (checked below).
	uint8_t *half = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			     -1, 0);
	REQUIRE(half != MAP_FAILED);
	half[0] = 1;
	munmap(half + page, page);
	CHECK_ERRNO(pin_host(fd, half, 2 * page, NULL), EFAULT);
	munmap(half, page);

	// Handles.
	CHECK_ERRNO(unpin(fd, 0), ENOENT);
	CHECK_ERRNO(unpin(fd, 12345), ENOENT);
	CHECK_ERRNO(get_mapping(fd, 12345, addrs, 4, 0, NULL), ENOENT);
	CHECK_OK(pin_host(fd, buf, 4 * page, &handle));
	CHECK_ERRNO(get_mapping(fd, handle, addrs, 4, 5, NULL), EINVAL);    // first past the end
	CHECK_ERRNO(get_mapping(fd, handle, (uint64_t *)8, 4, 0, NULL), EFAULT); // bad array
	struct bam_ioc_get_mapping m = { .handle = handle, .addrs = (uintptr_t)addrs,
					 .capacity = 4, .pad0 = 1 };
	CHECK_ERRNO(ioctl(fd, BAM_IOC_GET_MAPPING, &m), EINVAL);            // reserved field
	CHECK_OK(unpin(fd, handle));

	// The ioctl encoding itself. The arguments are valid but for the encoded size.
	struct {
		struct bam_ioc_pin_host p;
		uint64_t extra;
	} bigger = { .p = { .vaddr = (uintptr_t)buf, .length = page } };
	CHECK_ERRNO(ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, BAM_IOCTL_MAGIC,
				   _IOC_NR(BAM_IOC_PIN_HOST), sizeof(bigger)),
			  &bigger), EINVAL);                                   // wrong size
	CHECK_ERRNO(ioctl(fd, _IOW(BAM_IOCTL_MAGIC, _IOC_NR(BAM_IOC_GET_INFO),
				   struct bam_ioc_get_info), &info), EINVAL);  // wrong direction
	CHECK_ERRNO(ioctl(fd, _IOWR(BAM_IOCTL_MAGIC, 99, struct bam_ioc_unpin), &p), ENOTTY);
	CHECK_ERRNO(ioctl(fd, _IOWR('X', 1, struct bam_ioc_get_info), &info), ENOTTY);
	CHECK_ERRNO(ioctl(fd, BAM_IOC_GET_INFO, NULL), EFAULT);
	CHECK_ERRNO(ioctl(fd, BAM_IOC_PIN_HOST, (void *)8), EFAULT);

	// No GPU support in this build: PIN_GPU says so.
	struct bam_ioc_pin_gpu g = { .vaddr = 1ULL << 40, .length = BAM_GPU_PAGE_SIZE };
	CHECK_ERRNO(ioctl(fd, BAM_IOC_PIN_GPU, &g), EOPNOTSUPP);

	// Nothing above left anything pinned.
	CHECK_OK(get_info(fd, &info));
	CHECK(info.n_pins == 0 && info.pinned_bytes_process == 0 && info.pinned_bytes_device == 0);
	munmap(buf, 4 * page);
}

static void test_process_limit(int fd)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint8_t *buf = alloc_pages(64 * page);
	char old[32];
	uint64_t h1 = 0, h2 = 0, h3 = 0;
	struct bam_ioc_get_info info;
	int fd2 = open_dev(0);

	REQUIRE(fd2 >= 0);
	snprintf(old, sizeof(old), "%ld", read_long(PARAMS "max_pinned_bytes"));
	CHECK_OK(write_file(PARAMS "max_pinned_bytes", "262144"));         // 256 KiB
	CHECK_OK(pin_host(fd, buf, 192 << 10, &h1));
	CHECK_ERRNO(pin_host(fd, buf, 128 << 10, NULL), ENOMEM);
	CHECK_ERRNO(pin_host(fd2, buf, 128 << 10, NULL), ENOMEM);          // per process, not file
	CHECK_OK(pin_host(fd2, buf, 64 << 10, &h2));                        // exactly at the limit
	CHECK_OK(get_info(fd, &info));
	CHECK(info.max_pinned_bytes == 262144);
	CHECK(info.pinned_bytes_file == 192 << 10);
	CHECK(info.pinned_bytes_process == 256 << 10);
	CHECK_OK(unpin(fd, h1));
	CHECK_OK(pin_host(fd2, buf, 128 << 10, &h3));
	CHECK_OK(write_file(PARAMS "max_pinned_bytes", old));
	close(fd2); // still pinned: h2 and h3 go with it
	CHECK_OK(get_info(fd, &info));
	CHECK(info.pinned_bytes_process == 0 && info.pinned_bytes_device == 0);
	munmap(buf, 64 * page);
}

// Memory still pinned when its file is closed is released; so is memory whose mapping the
// process dropped before closing.
static void test_release_on_close(int fd)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint8_t *a = alloc_pages(32 * page), *b = alloc_pages(8 * page);
	struct bam_ioc_get_info info;
	int fd2 = open_dev(0);

	REQUIRE(fd2 >= 0);
	CHECK_OK(pin_host(fd2, a, 32 * page, NULL));
	CHECK_OK(pin_host(fd2, b, 8 * page, NULL));
	munmap(b, 8 * page);
	CHECK_OK(get_info(fd, &info));
	CHECK(info.pinned_bytes_device == 40 * page && info.pinned_bytes_process == 40 * page);
	CHECK(info.pinned_bytes_file == 0);
	CHECK_OK(close(fd2));
	CHECK_OK(get_info(fd, &info));
	CHECK(info.pinned_bytes_device == 0 && info.pinned_bytes_process == 0);
	munmap(a, 32 * page);
}

// Only the process that opened the file may pin through it.
static void test_other_process(int fd)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint8_t *buf = alloc_pages(page);
	pid_t pid = fork();

	if (pid == 0) {
		struct bam_ioc_get_info info;
		int bad = 0;

		errno = 0;
		bad += pin_host(fd, buf, page, NULL) != -1 || errno != EACCES;
		bad += get_info(fd, &info) != 0;
		_exit(bad);
	}
	int status = -1;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	munmap(buf, page);
}

static sigjmp_buf sigbus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(sigbus_jmp, 1);
}

// Bind through driver_override, then unbind while the file is open, pinned and mapped.
static void test_second_controller_and_unbind(int fd0)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	struct bam_ioc_get_info info;
	uint64_t handle = 0;
	uint8_t *buf = alloc_pages(16 * page);

	CHECK_OK(write_file(PCI_DEVICES CTRL1 "/driver_override", "bam"));
	unbind(CTRL1);
	CHECK(bus_master_of(CTRL1) == 0);
	CHECK_OK(write_file("/sys/bus/pci/drivers_probe", CTRL1));
	REQUIRE(wait_for("/dev/bam1", true, 2000));
	CHECK(strcmp(driver_of(CTRL1), "bam") == 0);

	int fd = open_dev(1);
	REQUIRE(fd >= 0);
	CHECK_OK(get_info(fd, &info));
	check_info(fd, &info, CTRL1, 2);
	volatile uint8_t *bar = mmap(NULL, info.bar0_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(bar != MAP_FAILED);
	nvme_identify(fd, bar, CTRL1, "bam1", 12);

	CHECK_OK(pin_host(fd, buf, 16 * page, &handle));
	CHECK_OK(get_info(fd0, &info));
	CHECK(info.pinned_bytes_process == 16 * page && info.pinned_bytes_device == 0);

	CHECK_OK(write_file(PCI_DRIVERS "bam/unbind", CTRL1));
	CHECK(wait_for("/dev/bam1", false, 2000));
	CHECK(bus_master_of(CTRL1) == 0);
	CHECK_ERRNO(get_info(fd, &info), ENODEV);
	CHECK_ERRNO(pin_host(fd, buf, page, NULL), ENODEV);
	CHECK_ERRNO(unpin(fd, handle), ENODEV);
	CHECK_ERRNO(get_mapping(fd, handle, NULL, 0, 0, NULL), ENODEV);
	CHECK_ERRNO(mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED ? -1 : 0, ENODEV);
	CHECK_OK(get_info(fd0, &info));
	CHECK(info.pinned_bytes_process == 0); // unbind released the pin

	// The old BAR mapping was zapped: touching it raises SIGBUS.
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	sigaction(SIGBUS, &sa, &old);
	volatile int faulted = 0;
	if (sigsetjmp(sigbus_jmp, 1) == 0)
		(void)rd32(bar, REG_VS);
	else
		faulted = 1;
	sigaction(SIGBUS, &old, NULL);
	CHECK(faulted);

	munmap((void *)bar, info.bar0_len);
	CHECK_OK(close(fd));
	CHECK_OK(write_file(PCI_DEVICES CTRL1 "/driver_override", "\n"));
	munmap(buf, 16 * page);
}

// The kernel log: rejected arguments were logged at debug level (dbg=1), nothing of bam's at
// error level, and no kernel warning at all.
static void check_kernel_log(void)
{
	int size = klogctl(10, NULL, 0); // SYSLOG_ACTION_SIZE_BUFFER
	char *log = size > 0 ? calloc(1, (size_t)size + 1) : NULL;

	REQUIRE(log != NULL);
	int n = klogctl(3, log, size); // SYSLOG_ACTION_READ_ALL: lines start with <level>
	REQUIRE(n > 0);
	log[n] = 0;
	// Lines read "<level>[ seconds] text".
	int debug_range = 0, debug_ioctl = 0, bam_errors = 0;
	for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
		int level = line[0] == '<' ? atoi(line + 1) : -1;
		char *text = strstr(line, "] ");
		text = text ? text + 2 : line;
		if (strncmp(text, "bam: ", 5) == 0 && level <= 3) {
			bam_errors++;
			printf("  kernel log: %s\n", line);
		}
		debug_range += level == 7 && strstr(text, "bam: bam_check_range: bad range") == text;
		debug_ioctl += level == 7 && strstr(text, "bam: bam_ioctl: cmd") == text;
		if (strstr(text, "WARNING:") || strstr(text, "BUG:") || strstr(text, "Oops")) {
			printf("  kernel log: %s\n", line);
			bam_errors++;
		}
	}
	CHECK(debug_range >= 4);
	CHECK(debug_ioctl >= 3);
	CHECK(bam_errors == 0);
	free(log);
}

static void give_back_to_nvme(void)
{
	CHECK_OK(write_file(PCI_DRIVERS "bam/unbind", CTRL0));
	CHECK(wait_for("/dev/bam0", false, 2000));
	CHECK_OK(write_file(PCI_DRIVERS "bam/remove_id", "1b36 0010"));
	CHECK_OK(write_file(PCI_DRIVERS "nvme/bind", CTRL0));
	CHECK(wait_for_driver(CTRL0, "nvme", 5000));
	CHECK(wait_for("/sys/class/nvme/nvme0", true, 5000));
}

int main(int argc, char **argv)
{
	const char *ko = argc > 1 ? argv[1] : "bam.ko";
	struct bam_ioc_get_info info;
	struct stat st;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("kmod_guest_test: loading %s\n", ko);
	load_module(ko);

	// Bind the first controller through new_id.
	REQUIRE(strcmp(driver_of(CTRL0), "nvme") == 0);
	unbind(CTRL0);
	CHECK(bus_master_of(CTRL0) == 0); // nvme's remove turned it off
	CHECK_OK(write_file(PCI_DRIVERS "bam/new_id", "1b36 0010"));
	REQUIRE(wait_for("/dev/bam0", true, 2000));
	CHECK(strcmp(driver_of(CTRL0), "bam") == 0);
	CHECK(strcmp(driver_of(CTRL1), "nvme") == 0); // new_id binds only unbound devices
	REQUIRE(stat("/dev/bam0", &st) == 0);
	CHECK(S_ISCHR(st.st_mode) && (st.st_mode & 0777) == 0600 && st.st_uid == 0);

	int fd = open_dev(0);
	REQUIRE(fd >= 0);
	REQUIRE(CHECK_OK(get_info(fd, &info)));
	check_info(fd, &info, CTRL0, 1);
	CHECK(info.n_pins == 0 && info.pinned_bytes_device == 0);
	volatile uint8_t *bar = map_bar(fd, &info);

	test_pin_and_mapping(fd, CTRL0);
	nvme_identify(fd, bar, CTRL0, "bam0", 9);
	test_bad_arguments(fd);
	test_process_limit(fd);
	test_release_on_close(fd);
	test_other_process(fd);
	test_second_controller_and_unbind(fd);

	munmap((void *)bar, info.bar0_len);
	CHECK_OK(close(fd));
	give_back_to_nvme();
	CHECK_OK(syscall(SYS_delete_module, "bam", O_NONBLOCK));
	CHECK(access("/sys/module/bam", F_OK) != 0);
	check_kernel_log();

	printf("kmod_guest_test: %d checks, %d failed\n", n_checks, n_failed);
	return n_failed ? 1 : 0;
}
