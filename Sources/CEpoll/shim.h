// epoll(7): Linux's readiness API, which Swift's Glibc module does not
// export. Header only; the calls are in libc.
#include <sys/epoll.h>
