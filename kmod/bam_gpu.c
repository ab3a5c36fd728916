// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bam_gpu.c - pinning GPU memory through the NVIDIA driver's peer-to-peer API, so the NVMe
 * controller can DMA straight into it. Built only when NVIDIA_SRC_DIR names a driver source
 * tree holding nv-p2p.h (see Kbuild); without it PIN_GPU returns -EOPNOTSUPP.
 *
 * The NVIDIA driver may take the pages back at any time (cudaFree, process exit) by calling
 * bam_gpu_free_callback, with its own locks held. The callback therefore takes only the pin's
 * own lock, never ctrl->lock, and the unpin path drops that lock before calling into the
 * NVIDIA driver. After a callback the handle stays on the file, GET_MAPPING reports -ENXIO,
 * and UNPIN (or close) frees what is left.
 *
 * Not exercised by the QEMU tests (no GPU there); it compiles against nv-p2p.h only.
 */
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <nv-p2p.h>

#include "bam_internal.h"
#include "bam_log.h"

struct bam_gpu_pin {
	struct mutex lock;              /* guards the fields below against the free callback */
	struct nvidia_p2p_page_table *pt;
	struct nvidia_p2p_dma_mapping *map;
	bool revoked;                   /* the callback freed pt and map */
	bool releasing;                 /* unpin owns pt and map; the callback leaves them */
	u64 vaddr;
	u64 p2p_token;
	u32 va_space;
};

static void bam_gpu_free_callback(void *data)
{
	struct bam_gpu_pin *g = data;

	mutex_lock(&g->lock);
	if (!g->revoked && !g->releasing) {
		if (g->map)
			nvidia_p2p_free_dma_mapping(g->map);
		nvidia_p2p_free_page_table(g->pt);
		g->map = NULL;
		g->pt = NULL;
		g->revoked = true;
	}
	mutex_unlock(&g->lock);
	bam_dbg("GPU memory at %#llx was freed under a pin\n", g->vaddr);
}

bool bam_gpu_pin_revoked(struct bam_pin *pin)
{
	struct bam_gpu_pin *g = pin->gpu;
	bool revoked;

	if (pin->kind != BAM_PIN_GPU)
		return false;
	mutex_lock(&g->lock);
	revoked = g->revoked;
	mutex_unlock(&g->lock);
	return revoked;
}

/* Undo a pin, whole or half built; ctrl->lock is held when the pages are DMA-mapped. */
void bam_gpu_pin_release(struct bam_ctrl *ctrl, struct bam_pin *pin)
{
	struct bam_gpu_pin *g = pin->gpu;
	bool owned;
	int ret;

	if (!g)
		return;
	mutex_lock(&g->lock);
	owned = !g->revoked && g->pt;
	g->releasing = true;
	mutex_unlock(&g->lock);

	if (owned) {
		if (g->map) {
			ret = nvidia_p2p_dma_unmap_pages(ctrl->pdev, g->pt, g->map);
			if (ret)
				bam_err("nvidia_p2p_dma_unmap_pages: %d\n", ret);
		}
		ret = nvidia_p2p_put_pages(g->p2p_token, g->va_space, g->vaddr, g->pt);
		if (ret)
			bam_dbg("nvidia_p2p_put_pages: %d (freed meanwhile?)\n", ret);
	}
	mutex_destroy(&g->lock);
	kfree(g);
	pin->gpu = NULL;
}

/* Check what the NVIDIA driver handed back before trusting its layout. */
static int bam_gpu_check_tables(struct bam_gpu_pin *g, u64 n_pages)
{
	if (!NVIDIA_P2P_PAGE_TABLE_VERSION_COMPATIBLE(g->pt)) {
		bam_err("page table version %#x is not compatible\n", g->pt->version);
		return -EIO;
	}
	if (!NVIDIA_P2P_DMA_MAPPING_VERSION_COMPATIBLE(g->map)) {
		bam_err("DMA mapping version %#x is not compatible\n", g->map->version);
		return -EIO;
	}
	if (g->pt->page_size != NVIDIA_P2P_PAGE_SIZE_64KB) {
		bam_err("GPU page size type %u, only 64 KiB pages are handled\n", g->pt->page_size);
		return -EIO;
	}
	if (g->map->entries != n_pages) {
		bam_err("%u DMA entries for %llu GPU pages\n", g->map->entries, n_pages);
		return -EIO;
	}
	return 0;
}

long bam_ioctl_pin_gpu(struct bam_file *f, void __user *uarg)
{
	struct bam_ctrl *ctrl = f->ctrl;
	struct bam_ioc_pin_gpu p;
	struct bam_pin *pin = NULL;
	struct bam_gpu_pin *g;
	bool charged = false;
	u64 i;
	long ret = 0;

	ret = bam_copy_in_owned(f, &p, uarg, sizeof(p));
	if (ret)
		goto out;
	if (p.flags) {
		bam_dbg("flags %#x must be 0\n", p.flags);
		ret = -EINVAL;
		goto out;
	}
	ret = bam_charge_range(f, p.vaddr, p.length, BAM_GPU_PAGE_SIZE);
	if (ret)
		goto out;
	charged = true;

	pin = kzalloc(sizeof(*pin), GFP_KERNEL);
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (pin)
		pin->gpu = g;
	if (!pin || !g) {
		kfree(g);
		ret = -ENOMEM;
		goto out;
	}
	mutex_init(&g->lock);
	pin->kind = BAM_PIN_GPU;
	pin->page_size = BAM_GPU_PAGE_SIZE;
	pin->n_pages = p.length / BAM_GPU_PAGE_SIZE;
	pin->bytes = p.length;
	pin->dma_addrs = kvmalloc_array(pin->n_pages, sizeof(*pin->dma_addrs), GFP_KERNEL);
	if (!pin->dma_addrs) {
		ret = -ENOMEM;
		goto out;
	}
	g->vaddr = p.vaddr;
	g->p2p_token = p.p2p_token;
	g->va_space = p.va_space;

	mutex_lock(&ctrl->lock);
	if (ctrl->dead) {
		ret = -ENODEV;
		goto unlock;
	}
	bam_ensure_bus_master(ctrl);
	/* The callback may fire as soon as get_pages returns: hold it off until g is complete. */
	mutex_lock(&g->lock);
	ret = nvidia_p2p_get_pages(g->p2p_token, g->va_space, g->vaddr, p.length, &g->pt,
				   bam_gpu_free_callback, g);
	if (ret) {
		bam_dbg("nvidia_p2p_get_pages(%#llx, %#llx): %ld\n", p.vaddr, p.length, ret);
		g->pt = NULL;
	} else {
		ret = nvidia_p2p_dma_map_pages(ctrl->pdev, g->pt, &g->map);
		if (ret) {
			bam_dbg("nvidia_p2p_dma_map_pages: %ld\n", ret);
			g->map = NULL;
		}
	}
	if (!ret)
		ret = bam_gpu_check_tables(g, pin->n_pages);
	if (!ret) {
		for (i = 0; i < pin->n_pages; i++)
			pin->dma_addrs[i] = g->map->dma_addresses[i];
	}
	mutex_unlock(&g->lock);
	if (!ret) {
		bam_pin_insert(f, pin);
		charged = false;
		p.handle = pin->handle;
		p.n_pages = pin->n_pages;
		p.page_size = pin->page_size;
		p.pad0 = 0;
	} else {
		bam_pin_free(ctrl, pin);
	}
	pin = NULL;
unlock:
	mutex_unlock(&ctrl->lock);
	if (ret)
		goto out;

	if (copy_to_user(uarg, &p, sizeof(p))) {
		bam_pin_remove_handle(f, p.handle);
		ret = -EFAULT;
		goto out;
	}

out:
	if (pin)
		bam_pin_free(ctrl, pin); /* never reached the NVIDIA driver */
	if (charged)
		bam_acct_uncharge(f->acct, p.length);
	return ret;
}
