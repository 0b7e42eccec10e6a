#ifndef SDLAB_FENCE_FILTER_H
#define SDLAB_FENCE_FILTER_H

#include <sys/syscall.h>

// Calls newer than the C library's headers. From 424 on, every architecture numbers a call alike.
#ifndef SYS_cachestat
#define SYS_cachestat 451
#endif
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_map_shadow_stack
#define SYS_map_shadow_stack 453
#endif
#ifndef SYS_futex_wake
#define SYS_futex_wake 454
#define SYS_futex_wait 455
#define SYS_futex_requeue 456
#endif
#ifndef SYS_statmount
#define SYS_statmount 457
#define SYS_listmount 458
#endif
#ifndef SYS_lsm_get_self_attr
#define SYS_lsm_get_self_attr 459
#define SYS_lsm_set_self_attr 460
#define SYS_lsm_list_modules 461
#endif
#ifndef SYS_mseal
#define SYS_mseal 462
#endif
#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#define SYS_getxattrat 464
#define SYS_listxattrat 465
#define SYS_removexattrat 466
#endif
#ifndef SYS_open_tree_attr
#define SYS_open_tree_attr 467
#endif
#ifndef SYS_file_getattr
#define SYS_file_getattr 468
#define SYS_file_setattr 469
#endif

/// The name of system call `number` as the watch's filter knows it, or NULL for a call it does
/// not know (one a later kernel adds, or no call at all).
const char *sdlab_call_name(int number);

#endif
