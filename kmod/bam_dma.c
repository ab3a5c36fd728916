// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bam_dma.c - pinning host memory for DMA by a controller, the pin list of each file, and the
 * per-process limit on pinned bytes.
 *
 * Host pages are pinned with FOLL_LONGTERM (they stay put for as long as the controller may
 * DMA to them), mapped with dma_map_sgtable for the controller's struct device, and their bus
 * addresses are kept one per page so GET_MAPPING is a plain copy.
 */
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "bam_internal.h"
#include "bam_log.h"

/* ---- per-process accounting --------------------------------------------------------------- */

struct bam_acct {
	struct list_head node;
	struct pid *owner;
	unsigned int users; /* open files of the owner */
	u64 pinned;
};

static LIST_HEAD(bam_accts);
static DEFINE_MUTEX(bam_acct_lock);

struct bam_acct *bam_acct_get(struct pid *owner)
{
	struct bam_acct *acct;

	mutex_lock(&bam_acct_lock);
	list_for_each_entry(acct, &bam_accts, node) {
		if (acct->owner == owner) {
			acct->users++;
			goto out;
		}
	}
	acct = kzalloc(sizeof(*acct), GFP_KERNEL);
	if (acct) {
		acct->owner = get_pid(owner);
		acct->users = 1;
		list_add(&acct->node, &bam_accts);
	}
out:
	mutex_unlock(&bam_acct_lock);
	return acct;
}

void bam_acct_put(struct bam_acct *acct)
{
	mutex_lock(&bam_acct_lock);
	if (--acct->users == 0) {
		WARN_ON(acct->pinned);
		list_del(&acct->node);
		put_pid(acct->owner);
		kfree(acct);
	}
	mutex_unlock(&bam_acct_lock);
}

u64 bam_acct_pinned(struct bam_acct *acct)
{
	u64 pinned;

	mutex_lock(&bam_acct_lock);
	pinned = acct->pinned;
	mutex_unlock(&bam_acct_lock);
	return pinned;
}

/* Reserve bytes against the process's limit; -ENOMEM when they do not fit. */
int bam_acct_charge(struct bam_acct *acct, u64 bytes)
{
	u64 limit = READ_ONCE(bam_max_pinned_bytes);
	int ret = 0;

	mutex_lock(&bam_acct_lock);
	if (bytes > limit || acct->pinned > limit - bytes) {
		bam_dbg("pid %d: %llu bytes pinned, %llu more would pass max_pinned_bytes %llu\n",
			pid_nr(acct->owner), acct->pinned, bytes, limit);
		ret = -ENOMEM;
	} else {
		acct->pinned += bytes;
	}
	mutex_unlock(&bam_acct_lock);
	return ret;
}

void bam_acct_uncharge(struct bam_acct *acct, u64 bytes)
{
	mutex_lock(&bam_acct_lock);
	WARN_ON(acct->pinned < bytes);
	acct->pinned -= bytes;
	mutex_unlock(&bam_acct_lock);
}

/* ---- helpers shared with bam_gpu.c -------------------------------------------------------- */

/*
 * The start of every call that pins or looks at pins: copy the argument in (-EFAULT), and
 * refuse callers other than the process that opened the file (-EACCES).
 */
int bam_copy_in_owned(struct bam_file *f, void *arg, const void __user *uarg, size_t size)
{
	if (copy_from_user(arg, uarg, size)) {
		bam_dbg("cannot read the argument at %#lx\n", (unsigned long)uarg);
		return -EFAULT;
	}
	if (task_tgid(current) != f->owner) {
		bam_dbg("pid %d is not pid %d, which opened the file\n", task_tgid_nr(current),
			pid_nr(f->owner));
		return -EACCES;
	}
	return 0;
}

/* A non-empty, aligned range that does not wrap around; -EINVAL otherwise. */
static int bam_check_range(u64 vaddr, u64 length, u64 align)
{
	if (!length || !IS_ALIGNED(vaddr, align) || !IS_ALIGNED(length, align) ||
	    vaddr + length < vaddr) {
		bam_dbg("bad range: vaddr %#llx length %#llx (alignment %#llx)\n", vaddr, length,
			align);
		return -EINVAL;
	}
	return 0;
}

/*
 * Validate a range to pin (-EINVAL) and charge its length to the caller's process (-ENOMEM
 * past max_pinned_bytes). On success the caller owns the charge and must uncharge on failure.
 */
int bam_charge_range(struct bam_file *f, u64 vaddr, u64 length, u64 align)
{
	int ret = bam_check_range(vaddr, length, align);

	return ret ? ret : bam_acct_charge(f->acct, length);
}

/* The controller must master the bus before it can DMA to anything we pin. */
void bam_ensure_bus_master(struct bam_ctrl *ctrl)
{
	lockdep_assert_held(&ctrl->lock);
	if (!ctrl->bus_master) {
		pci_set_master(ctrl->pdev);
		ctrl->bus_master = true;
	}
}

/* Give a mapped pin its handle and put it on the file's list. */
void bam_pin_insert(struct bam_file *f, struct bam_pin *pin)
{
	lockdep_assert_held(&f->ctrl->lock);
	pin->handle = f->next_handle++;
	list_add_tail(&pin->node, &f->pins);
	f->n_pins++;
	f->pinned_bytes += pin->bytes;
	f->ctrl->pinned_bytes += pin->bytes;
}

/*
 * Release whatever a pin holds, mapped or half built. A pin whose pages are DMA-mapped must
 * be freed with ctrl->lock held, so it cannot race with unbind.
 */
void bam_pin_free(struct bam_ctrl *ctrl, struct bam_pin *pin)
{
	if (pin->kind == BAM_PIN_GPU) {
		bam_gpu_pin_release(ctrl, pin);
	} else {
		if (pin->sgt_mapped)
			dma_unmap_sgtable(&ctrl->pdev->dev, &pin->sgt, DMA_BIDIRECTIONAL, 0);
		sg_free_table(&pin->sgt);
		if (pin->n_pinned)
			unpin_user_pages_dirty_lock(pin->pages, pin->n_pinned, true);
		kvfree(pin->pages);
	}
	kvfree(pin->dma_addrs);
	kfree(pin);
}

static void bam_pin_remove(struct bam_file *f, struct bam_pin *pin)
{
	lockdep_assert_held(&f->ctrl->lock);
	list_del(&pin->node);
	f->n_pins--;
	f->pinned_bytes -= pin->bytes;
	f->ctrl->pinned_bytes -= pin->bytes;
	bam_acct_uncharge(f->acct, pin->bytes);
	bam_pin_free(f->ctrl, pin);
}

void bam_file_release_pins(struct bam_file *f)
{
	struct bam_pin *pin, *next;

	lockdep_assert_held(&f->ctrl->lock);
	list_for_each_entry_safe(pin, next, &f->pins, node)
		bam_pin_remove(f, pin);
}

static struct bam_pin *bam_pin_find(struct bam_file *f, u64 handle)
{
	struct bam_pin *pin;

	lockdep_assert_held(&f->ctrl->lock);
	list_for_each_entry(pin, &f->pins, node) {
		if (pin->handle == handle)
			return pin;
	}
	bam_dbg("no pin with handle %llu\n", handle);
	return NULL;
}

/* Unmap and release the pin with this handle: 0, -ENOENT, or -ENODEV after unbind. */
int bam_pin_remove_handle(struct bam_file *f, u64 handle)
{
	struct bam_pin *pin;
	int ret = 0;

	mutex_lock(&f->ctrl->lock);
	if (f->ctrl->dead) {
		ret = -ENODEV;
		goto unlock;
	}
	pin = bam_pin_find(f, handle);
	if (!pin) {
		ret = -ENOENT;
		goto unlock;
	}
	bam_pin_remove(f, pin);
unlock:
	mutex_unlock(&f->ctrl->lock);
	return ret;
}

/* ---- host pinning ------------------------------------------------------------------------- */

static int bam_pin_user_pages(struct bam_pin *pin, u64 vaddr)
{
	while (pin->n_pinned < pin->n_pages) {
		unsigned long left = pin->n_pages - pin->n_pinned;
		int n = pin_user_pages_fast(vaddr + (pin->n_pinned << PAGE_SHIFT),
					    min_t(unsigned long, left, INT_MAX),
					    FOLL_WRITE | FOLL_LONGTERM, pin->pages + pin->n_pinned);
		if (n <= 0) {
			bam_dbg("pin_user_pages_fast at %#llx: %d\n",
				vaddr + (pin->n_pinned << PAGE_SHIFT), n);
			return n ? n : -EFAULT;
		}
		pin->n_pinned += n;
	}
	return 0;
}

/* One bus address per page, from the (possibly merged) DMA segments. */
static int bam_pin_fill_addrs(struct bam_pin *pin)
{
	struct scatterlist *sg;
	u64 k = 0;
	int i;

	for_each_sgtable_dma_sg(&pin->sgt, sg, i) {
		dma_addr_t addr = sg_dma_address(sg);
		unsigned int len = sg_dma_len(sg);
		unsigned int off;

		if (!PAGE_ALIGNED(addr) || !PAGE_ALIGNED(len)) {
			bam_err("DMA segment %pad+%#x is not page aligned\n", &addr, len);
			return -EIO;
		}
		for (off = 0; off < len && k < pin->n_pages; off += PAGE_SIZE)
			pin->dma_addrs[k++] = addr + off;
	}
	if (k != pin->n_pages) {
		bam_err("DMA segments cover %llu of %llu pages\n", k, pin->n_pages);
		return -EIO;
	}
	return 0;
}

long bam_ioctl_pin_host(struct bam_file *f, void __user *uarg)
{
	struct bam_ctrl *ctrl = f->ctrl;
	struct bam_ioc_pin_host p;
	struct bam_pin *pin = NULL;
	bool charged = false;
	long ret = 0;

	ret = bam_copy_in_owned(f, &p, uarg, sizeof(p));
	if (ret)
		goto out;
	if (p.flags || p.pad0) {
		bam_dbg("flags %#x / pad0 %#x must be 0\n", p.flags, p.pad0);
		ret = -EINVAL;
		goto out;
	}
	ret = bam_charge_range(f, p.vaddr, p.length, PAGE_SIZE);
	if (ret)
		goto out;
	charged = true;
	if (!access_ok(u64_to_user_ptr(p.vaddr), p.length)) {
		bam_dbg("%#llx+%#llx is not user memory\n", p.vaddr, p.length);
		ret = -EFAULT;
		goto out;
	}
	if ((p.length >> PAGE_SHIFT) > UINT_MAX) {
		ret = -ENOMEM;
		goto out;
	}

	pin = kzalloc(sizeof(*pin), GFP_KERNEL);
	if (!pin) {
		ret = -ENOMEM;
		goto out;
	}
	pin->kind = BAM_PIN_HOST;
	pin->page_size = PAGE_SIZE;
	pin->n_pages = p.length >> PAGE_SHIFT;
	pin->bytes = p.length;
	pin->pages = kvmalloc_array(pin->n_pages, sizeof(*pin->pages), GFP_KERNEL);
	pin->dma_addrs = kvmalloc_array(pin->n_pages, sizeof(*pin->dma_addrs), GFP_KERNEL);
	if (!pin->pages || !pin->dma_addrs) {
		ret = -ENOMEM;
		goto out;
	}
	ret = bam_pin_user_pages(pin, p.vaddr);
	if (ret)
		goto out;
	ret = sg_alloc_table_from_pages(&pin->sgt, pin->pages, pin->n_pages, 0, p.length,
					GFP_KERNEL);
	if (ret)
		goto out;

	mutex_lock(&ctrl->lock);
	if (ctrl->dead) {
		ret = -ENODEV;
	} else {
		bam_ensure_bus_master(ctrl);
		ret = dma_map_sgtable(&ctrl->pdev->dev, &pin->sgt, DMA_BIDIRECTIONAL, 0);
		if (ret)
			bam_err("dma_map_sgtable of %llu pages: %ld\n", pin->n_pages, ret);
	}
	if (!ret) {
		pin->sgt_mapped = true;
		ret = bam_pin_fill_addrs(pin);
	}
	if (ret) {
		bam_pin_free(ctrl, pin);
		pin = NULL;
	} else {
		bam_pin_insert(f, pin);
		charged = false; /* the pin owns the charge now */
		p.handle = pin->handle;
		p.n_pages = pin->n_pages;
		p.page_size = pin->page_size;
		p.pad1 = 0;
	}
	mutex_unlock(&ctrl->lock);
	if (ret)
		goto out;

	bam_dbg("pinned %#llx+%#llx as handle %llu\n", p.vaddr, p.length, p.handle);
	if (copy_to_user(uarg, &p, sizeof(p))) {
		bam_pin_remove_handle(f, p.handle);
		ret = -EFAULT;
		goto out;
	}
	pin = NULL;

out:
	if (pin)
		bam_pin_free(ctrl, pin); /* never DMA-mapped here */
	if (charged)
		bam_acct_uncharge(f->acct, p.length);
	return ret;
}

/* ---- mapping and unpinning (host and GPU pins alike) -------------------------------------- */

long bam_ioctl_get_mapping(struct bam_file *f, void __user *uarg)
{
	struct bam_ctrl *ctrl = f->ctrl;
	struct bam_ioc_get_mapping p;
	struct bam_pin *pin;
	u64 n;
	long ret = 0;

	ret = bam_copy_in_owned(f, &p, uarg, sizeof(p));
	if (ret)
		goto out;
	if (p.pad0) {
		ret = -EINVAL;
		goto out;
	}

	mutex_lock(&ctrl->lock);
	if (ctrl->dead) {
		ret = -ENODEV;
		goto unlock;
	}
	pin = bam_pin_find(f, p.handle);
	if (!pin) {
		ret = -ENOENT;
		goto unlock;
	}
	if (bam_gpu_pin_revoked(pin)) {
		bam_dbg("handle %llu: the GPU memory was freed\n", p.handle);
		ret = -ENXIO;
		goto unlock;
	}
	if (p.first > pin->n_pages) {
		bam_dbg("first %llu is past the %llu pages of handle %llu\n", p.first,
			pin->n_pages, p.handle);
		ret = -EINVAL;
		goto unlock;
	}
	n = min(p.capacity, pin->n_pages - p.first);
	if (n && copy_to_user(u64_to_user_ptr(p.addrs), pin->dma_addrs + p.first,
			      n * sizeof(u64))) {
		bam_dbg("cannot write %llu addresses to %#llx\n", n, p.addrs);
		ret = -EFAULT;
		goto unlock;
	}
	p.n_copied = n;
	p.n_pages = pin->n_pages;
	p.page_size = pin->page_size;
unlock:
	mutex_unlock(&ctrl->lock);
	if (ret)
		goto out;

	if (copy_to_user(uarg, &p, sizeof(p))) {
		ret = -EFAULT;
		goto out;
	}

out:
	return ret;
}

long bam_ioctl_unpin(struct bam_file *f, void __user *uarg)
{
	struct bam_ioc_unpin p;
	long ret = 0;

	ret = bam_copy_in_owned(f, &p, uarg, sizeof(p));
	if (ret)
		goto out;

	ret = bam_pin_remove_handle(f, p.handle);
	if (!ret)
		bam_dbg("unpinned handle %llu\n", p.handle);

out:
	return ret;
}
