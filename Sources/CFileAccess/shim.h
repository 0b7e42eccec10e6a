/* What the Glibc module leaves out: extended attributes (listxattr(2), getxattr(2)), which the
   scanner reads beside a file's content; getdents64(2), with which it lists a folder through
   the descriptor it already holds; and setfsuid(2), which reads as another user on one thread
   (its tests). */
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

/* The folder's next entries as `struct linux_dirent64` records: bytes read, 0 at its end. */
static inline long sdlab_getdents64(int folder, void *buffer, unsigned long length) {
    return syscall(SYS_getdents64, folder, buffer, length);
}
