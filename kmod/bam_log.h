/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Logging for the bam module. Every message names the module and the function.
 * bam_dbg is silent unless the dbg module parameter is set; use it for anything a user
 * can trigger (bad ioctl arguments, failed pins), so a misbehaving program cannot flood
 * the kernel log. bam_info is for events an administrator wants (bind, unbind);
 * bam_err is for failures of the module or the hardware, never for user mistakes.
 */
#ifndef BAM_LOG_H
#define BAM_LOG_H

#include <linux/printk.h>

extern bool bam_dbg_enabled;

#define bam_msg(level, fmt, ...) printk(level "bam: %s: " fmt, __func__, ##__VA_ARGS__)

#define bam_dbg(fmt, ...)                                       \
	do {                                                    \
		if (bam_dbg_enabled)                            \
			bam_msg(KERN_DEBUG, fmt, ##__VA_ARGS__); \
	} while (0)

#define bam_info(fmt, ...) bam_msg(KERN_INFO, fmt, ##__VA_ARGS__)
#define bam_err(fmt, ...)  bam_msg(KERN_ERR, fmt, ##__VA_ARGS__)

#endif /* BAM_LOG_H */
