/* What the Glibc module leaves out: extended attributes (listxattr(2), getxattr(2)), which the
   scanner reads beside a file's content, and setfsuid(2), which reads as another user on one
   thread (its tests). */
#include <sys/fsuid.h>
#include <sys/xattr.h>
