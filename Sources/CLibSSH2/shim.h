#ifndef KEEL_CLIBSSH2_SHIM_H
#define KEEL_CLIBSSH2_SHIM_H

#include <libssh2.h>
#include <libssh2_sftp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

/* libssh2 spells many entry points as function-like macros, which Swift cannot import.
   These wrappers give them a callable form; each forwards to the documented `_ex` function. */

static inline LIBSSH2_SESSION *keel_session_init(void) {
    return libssh2_session_init_ex(NULL, NULL, NULL, NULL);
}

static inline int keel_session_disconnect(LIBSSH2_SESSION *session, const char *description) {
    return libssh2_session_disconnect_ex(session, SSH_DISCONNECT_BY_APPLICATION, description, "");
}

static inline LIBSSH2_CHANNEL *keel_channel_open_session(LIBSSH2_SESSION *session) {
    return libssh2_channel_open_ex(session, "session", sizeof("session") - 1,
                                   LIBSSH2_CHANNEL_WINDOW_DEFAULT, LIBSSH2_CHANNEL_PACKET_DEFAULT, NULL, 0);
}

static inline int keel_channel_exec(LIBSSH2_CHANNEL *channel, const char *command, unsigned int length) {
    return libssh2_channel_process_startup(channel, "exec", sizeof("exec") - 1, command, length);
}

static inline ssize_t keel_channel_read(LIBSSH2_CHANNEL *channel, int stream, char *buffer, size_t length) {
    return libssh2_channel_read_ex(channel, stream, buffer, length);
}

static inline ssize_t keel_channel_write(LIBSSH2_CHANNEL *channel, const char *buffer, size_t length) {
    return libssh2_channel_write_ex(channel, 0, buffer, length);
}

static inline int keel_userauth_publickey_fromfile(LIBSSH2_SESSION *session, const char *user,
                                                   const char *privateKey, const char *passphrase) {
    return libssh2_userauth_publickey_fromfile_ex(session, user, (unsigned int)strlen(user),
                                                  NULL, privateKey, passphrase);
}

static inline int keel_userauth_password(LIBSSH2_SESSION *session, const char *user, const char *password) {
    return libssh2_userauth_password_ex(session, user, (unsigned int)strlen(user),
                                        password, (unsigned int)strlen(password), NULL);
}

static inline LIBSSH2_SFTP_HANDLE *keel_sftp_open(LIBSSH2_SFTP *sftp, const char *path,
                                                  unsigned long flags, long mode) {
    return libssh2_sftp_open_ex(sftp, path, (unsigned int)strlen(path), flags, mode, LIBSSH2_SFTP_OPENFILE);
}

static inline int keel_sftp_close(LIBSSH2_SFTP_HANDLE *handle) {
    return libssh2_sftp_close_handle(handle);
}

static inline int keel_sftp_fsetstat(LIBSSH2_SFTP_HANDLE *handle, LIBSSH2_SFTP_ATTRIBUTES *attributes) {
    return libssh2_sftp_fstat_ex(handle, attributes, 1);
}

static inline int keel_knownhost_checkp(LIBSSH2_KNOWNHOSTS *hosts, const char *host, int port,
                                        const char *key, size_t keylen, int keytype) {
    return libssh2_knownhost_checkp(hosts, host, port, key, keylen,
                                    LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | keytype, NULL);
}

static inline int keel_knownhost_readfile(LIBSSH2_KNOWNHOSTS *hosts, const char *path) {
    return libssh2_knownhost_readfile(hosts, path, LIBSSH2_KNOWNHOST_FILE_OPENSSH);
}

static inline int keel_set_tcp_nodelay(int fd) {
    int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static inline int keel_set_tcp_keepalive(int fd, int idleSeconds, int intervalSeconds, int count) {
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)) != 0) return -1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idleSeconds, sizeof(idleSeconds)) != 0) return -1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intervalSeconds, sizeof(intervalSeconds)) != 0) return -1;
    return setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
}

#endif
