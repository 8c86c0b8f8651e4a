// Linux-only system calls Swift's Glibc module does not export: epoll and eventfd live in
// headers it does not include, and accept4/pipe2/posix_spawn_file_actions_addclosefrom_np
// (glibc >= 2.34) hide behind _GNU_SOURCE, so they are declared here explicitly (same
// prototypes as glibc's).
#ifndef CLINUXSYS_SHIM_H
#define CLINUXSYS_SHIM_H

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <spawn.h>

extern int accept4(int fd, struct sockaddr *addr, socklen_t *addr_len, int flags);
extern int pipe2(int pipefd[2], int flags);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

#endif
