/* SPDX-License-Identifier: Apache-2.0
 *
 * pam_coffer: hands the login password to the user's cofferd, so the `login` collection unlocks at login and follows
 * changes of the login password. docs/PAM.md describes the stack lines, the wire format and the security reasoning.
 *
 * Why C: a PAM module is loaded into login, sshd, gdm, su and passwd. A Swift module would load the Swift runtime
 * (and its threads and allocations) into every one of those root processes; this file needs only libc and libpam.
 *
 *   auth      keeps the password in PAM's data; the cleanup wipes it.
 *   session   sends it to cofferd over $XDG_RUNTIME_DIR/coffer/control, starting cofferd when none answers.
 *   password  in the PAM_UPDATE_AUTHTOK phase, asks cofferd to re-key `login` from the old to the new password.
 *
 * Everything that touches the user's files or sockets runs in a forked child that has dropped to the user's uid
 * and gids first, so root never follows a path the user controls. The child also checks, before sending anything,
 * that the socket's owner (SO_PEERCRED) is that user: a password never goes to another user's process.
 *
 * Options: cofferd=PATH (the daemon to start; default COFFERD_PATH), no_autostart, use_authtok (never prompt; use
 * only the password an earlier module read), debug.
 */
#define _GNU_SOURCE
#define PAM_SM_AUTH
#define PAM_SM_SESSION
#define PAM_SM_PASSWORD

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#ifndef COFFERD_PATH
#define COFFERD_PATH "/usr/bin/cofferd"
#endif

#define DATA_KEY "pam_coffer.password"
#define PASSWORD_MAX 4096
#define REPLY_TIMEOUT_SECONDS 60

/* The wire format (docs/PAM.md): version, operation, then each password as a 32-bit big-endian length and bytes. */
enum { WIRE_VERSION = 1, OP_UNLOCK = 1, OP_CHANGE = 2 };
/* cofferd's one-byte answer, mirrored from LoginOutcome in Sources/SecretServiceDaemon/LoginChannel. */
enum { R_UNLOCKED = 0, R_CREATED, R_CHANGED, R_WRONG, R_UNAVAILABLE, R_FAILED, R_REFUSED };
/* The child's exit statuses beyond the answer byte. */
enum { CHILD_STARTED = 20, CHILD_NO_DAEMON, CHILD_NOT_USER, CHILD_FOREIGN_SOCKET, CHILD_IO };

struct options {
    const char *cofferd;
    int autostart;
    int use_authtok;
    int debug;
};

static void parse_options(int argc, const char **argv, struct options *options) {
    options->cofferd = COFFERD_PATH;
    options->autostart = 1;
    options->use_authtok = 0;
    options->debug = 0;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "cofferd=", 8) == 0 && argv[i][8] == '/') options->cofferd = argv[i] + 8;
        else if (strcmp(argv[i], "no_autostart") == 0) options->autostart = 0;
        else if (strcmp(argv[i], "use_authtok") == 0) options->use_authtok = 1;
        else if (strcmp(argv[i], "debug") == 0) options->debug = 1;
    }
}

static void wipe_and_free(pam_handle_t *pamh, void *data, int status) {
    (void) pamh;
    (void) status;
    if (data == NULL) return;
    explicit_bzero(data, strlen(data));
    free(data);
}

/* The login password: the item an earlier module read, else (unless use_authtok) asked through the conversation. */
static const char *get_token(pam_handle_t *pamh, int item, const char *prompt, const struct options *options) {
    const void *token = NULL;
    if (pam_get_item(pamh, item, &token) == PAM_SUCCESS && token != NULL) return token;
    if (options->use_authtok) return NULL;
    const char *asked = NULL;
    if (pam_get_authtok(pamh, item, &asked, prompt) != PAM_SUCCESS) return NULL;
    return asked;
}

/* ---- Talking to cofferd, in the child that runs as the user ---- */

static int write_all(int fd, const void *bytes, size_t count) {
    const char *p = bytes;
    while (count > 0) {
        ssize_t n = send(fd, p, count, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        count -= (size_t) n;
    }
    return 0;
}

static int write_password(int fd, const char *password) {
    size_t length = strlen(password);
    unsigned char prefix[4] = { (unsigned char) (length >> 24), (unsigned char) (length >> 16),
                                (unsigned char) (length >> 8), (unsigned char) length };
    if (write_all(fd, prefix, sizeof prefix) != 0) return -1;
    return write_all(fd, password, length);
}

/* Starts cofferd detached from this process, with the password on its standard input (`--unlock`). */
static int start_daemon(const struct options *options, char **environment, const char *password) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) return CHILD_IO;
    pid_t pid = fork();
    if (pid < 0) return CHILD_IO;
    if (pid == 0) {
        setsid();
        int null = open("/dev/null", O_RDWR);
        if (dup2(pipe_fds[0], STDIN_FILENO) < 0 || null < 0 || dup2(null, STDOUT_FILENO) < 0
            || dup2(null, STDERR_FILENO) < 0)
            _exit(127);
        closefrom(3);
        char *const arguments[] = { (char *) options->cofferd, "--foreground", "--unlock", NULL };
        execve(options->cofferd, arguments, environment);
        _exit(127);
    }
    close(pipe_fds[0]);
    size_t length = strlen(password);
    int failed = 0;
    for (size_t done = 0; done < length && !failed;) {
        ssize_t n = write(pipe_fds[1], password + done, length - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) failed = 1;
        else done += (size_t) n;
    }
    close(pipe_fds[1]);
    return failed ? CHILD_IO : CHILD_STARTED;
}

/* Connects to the control socket; the socket must belong to `uid`. Returns the descriptor, or -1 with `*status`. */
static int connect_control(const char *path, uid_t uid, int *status) {
    struct sockaddr_un address = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof address.sun_path) {
        *status = CHILD_NO_DAEMON;
        return -1;
    }
    strcpy(address.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *status = CHILD_IO;
        return -1;
    }
    if (connect(fd, (struct sockaddr *) &address, sizeof address) != 0) {
        *status = (errno == ENOENT || errno == ECONNREFUSED) ? CHILD_NO_DAEMON : CHILD_IO;
        close(fd);
        return -1;
    }
    struct ucred peer;
    socklen_t length = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0 || peer.uid != uid) {
        *status = CHILD_FOREIGN_SOCKET;
        close(fd);
        return -1;
    }
    struct timeval timeout = { .tv_sec = REPLY_TIMEOUT_SECONDS };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    return fd;
}

/* The user's groups, looked up before forking: the child of a threaded application should only make system calls. */
struct groups {
    gid_t list[256];
    int count;
};

static void lookup_groups(const struct passwd *user, struct groups *groups) {
    groups->count = (int) (sizeof groups->list / sizeof groups->list[0]);
    if (getgrouplist(user->pw_name, user->pw_gid, groups->list, &groups->count) < 0) {
        groups->list[0] = user->pw_gid;  /* more than fit: the primary group only */
        groups->count = 1;
    }
}

/* The child's work: become the user, send the request, return the answer byte (or a CHILD_* status). */
static int run_as_user(const struct passwd *user, const struct groups *groups, const char *runtime,
                       char **environment, int operation, const char *first, const char *second,
                       const struct options *options) {
    if (geteuid() == 0) {
        if (setgroups((size_t) groups->count, groups->list) != 0) return CHILD_NOT_USER;
        if (setresgid(user->pw_gid, user->pw_gid, user->pw_gid) != 0) return CHILD_NOT_USER;
        if (setresuid(user->pw_uid, user->pw_uid, user->pw_uid) != 0) return CHILD_NOT_USER;
    }
    if (getuid() != user->pw_uid || geteuid() != user->pw_uid) return CHILD_NOT_USER;

    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/coffer/control", runtime) >= (int) sizeof path) return CHILD_NO_DAEMON;
    int status = 0;
    int fd = connect_control(path, user->pw_uid, &status);
    if (fd < 0) {
        if (status == CHILD_NO_DAEMON && operation == OP_UNLOCK && options->autostart)
            return start_daemon(options, environment, first);
        return status;
    }
    unsigned char header[2] = { WIRE_VERSION, (unsigned char) operation };
    unsigned char answer = 0;
    int sent = write_all(fd, header, sizeof header) == 0 && write_password(fd, first) == 0
        && (second == NULL || write_password(fd, second) == 0);
    ssize_t n;
    do n = sent ? read(fd, &answer, 1) : -1; while (n < 0 && errno == EINTR);
    close(fd);
    /* An answer outside the documented codes must not pass for one of this child's own statuses. */
    return n == 1 && answer <= R_REFUSED ? answer : CHILD_IO;
}

/* The session's environment for a cofferd we start: PAM's, plus what a login shell would have. */
static char **daemon_environment(pam_handle_t *pamh, const struct passwd *user, const char *runtime) {
    char **pam_environment = pam_getenvlist(pamh);
    size_t count = 0;
    while (pam_environment != NULL && pam_environment[count] != NULL) count++;
    char **environment = calloc(count + 6, sizeof(char *));
    if (environment == NULL) return pam_environment;
    size_t used = 0;
    for (size_t i = 0; i < count; i++) environment[used++] = pam_environment[i];
    free(pam_environment);
    const char *names[] = { "HOME", "USER", "LOGNAME", "XDG_RUNTIME_DIR", "PATH" };
    const char *values[] = { user->pw_dir, user->pw_name, user->pw_name, runtime, "/usr/local/bin:/usr/bin:/bin" };
    for (size_t i = 0; i < 5; i++) {
        if (pam_getenv(pamh, names[i]) != NULL) continue;
        char *entry = NULL;
        if (asprintf(&entry, "%s=%s", names[i], values[i]) >= 0) environment[used++] = entry;
    }
    environment[used] = NULL;
    return environment;
}

static void free_environment(char **environment) {
    for (size_t i = 0; environment != NULL && environment[i] != NULL; i++) free(environment[i]);
    free(environment);
}

/* Runs one request in a child as the user and logs the outcome. Returns the PAM result. */
static int request(pam_handle_t *pamh, int operation, const char *first, const char *second,
                   const struct options *options) {
    const char *name = NULL;
    if (pam_get_user(pamh, &name, NULL) != PAM_SUCCESS || name == NULL) return PAM_USER_UNKNOWN;
    struct passwd *user = pam_modutil_getpwnam(pamh, name);
    if (user == NULL) return PAM_USER_UNKNOWN;

    /* pam_systemd (or pam_env) puts the runtime directory in PAM's environment; the process's own is not trusted:
     * under su it belongs to the calling user. */
    char fallback[64];
    const char *runtime = pam_getenv(pamh, "XDG_RUNTIME_DIR");
    if (runtime == NULL || runtime[0] != '/') {
        snprintf(fallback, sizeof fallback, "/run/user/%lu", (unsigned long) user->pw_uid);
        runtime = fallback;
    }
    char **environment = daemon_environment(pamh, user, runtime);
    struct groups groups;
    lookup_groups(user, &groups);

    /* The application may ignore SIGCHLD (the child would then be reaped before we could read its status) or
     * handle it; restore the default while our child runs, and wait for it alone, by pid. */
    struct sigaction default_action = { .sa_handler = SIG_DFL }, saved_action;
    sigemptyset(&default_action.sa_mask);
    sigaction(SIGCHLD, &default_action, &saved_action);
    pid_t pid = fork();
    if (pid == 0) _exit(run_as_user(user, &groups, runtime, environment, operation, first, second, options));
    free_environment(environment);
    int status = 0;
    pid_t waited = -1;
    if (pid > 0) {
        do waited = waitpid(pid, &status, 0); while (waited < 0 && errno == EINTR);
    }
    sigaction(SIGCHLD, &saved_action, NULL);
    if (pid < 0) return PAM_SYSTEM_ERR;
    int code = (waited == pid && WIFEXITED(status)) ? WEXITSTATUS(status) : CHILD_IO;

    switch (code) {
    case R_UNLOCKED: if (options->debug) pam_syslog(pamh, LOG_DEBUG, "unlocked the login collection"); return PAM_SUCCESS;
    case R_CREATED: pam_syslog(pamh, LOG_INFO, "created the login collection"); return PAM_SUCCESS;
    case R_CHANGED: pam_syslog(pamh, LOG_INFO, "changed the login collection's password"); return PAM_SUCCESS;
    case CHILD_STARTED: if (options->debug) pam_syslog(pamh, LOG_DEBUG, "started cofferd"); return PAM_SUCCESS;
    case R_WRONG: pam_syslog(pamh, LOG_WARNING, "the password does not open the login collection; it stays as it was");
        return PAM_IGNORE;
    case R_UNAVAILABLE: pam_syslog(pamh, LOG_NOTICE, "cofferd has no usable login collection"); return PAM_IGNORE;
    case R_REFUSED: pam_syslog(pamh, LOG_WARNING, "cofferd refused the request (empty password?)"); return PAM_IGNORE;
    case CHILD_NO_DAEMON: if (options->debug) pam_syslog(pamh, LOG_DEBUG, "cofferd is not running"); return PAM_IGNORE;
    case CHILD_FOREIGN_SOCKET:
        pam_syslog(pamh, LOG_ERR, "the control socket in %s does not belong to %s; nothing sent", runtime, name);
        return PAM_IGNORE;
    case CHILD_NOT_USER: pam_syslog(pamh, LOG_ERR, "cannot switch to user %s", name); return PAM_IGNORE;
    default: pam_syslog(pamh, LOG_ERR, "talking to cofferd failed (%d)", code); return PAM_IGNORE;
    }
}

/* ---- The PAM entry points ---- */

PAM_EXTERN int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void) flags;
    struct options options;
    parse_options(argc, argv, &options);
    const char *password = get_token(pamh, PAM_AUTHTOK, NULL, &options);
    if (password == NULL || strlen(password) > PASSWORD_MAX) return PAM_IGNORE;
    char *kept = strdup(password);
    if (kept == NULL) return PAM_BUF_ERR;
    if (pam_set_data(pamh, DATA_KEY, kept, wipe_and_free) != PAM_SUCCESS) {
        wipe_and_free(pamh, kept, 0);
        return PAM_BUF_ERR;
    }
    /* This module checks no password: never let it count as an authentication, even if a stack calls it
     * `sufficient` by mistake. */
    return PAM_IGNORE;
}

PAM_EXTERN int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void) pamh; (void) flags; (void) argc; (void) argv;
    return PAM_SUCCESS;
}

PAM_EXTERN int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void) flags;
    struct options options;
    parse_options(argc, argv, &options);
    const void *password = NULL;
    if (pam_get_data(pamh, DATA_KEY, &password) != PAM_SUCCESS || password == NULL) return PAM_IGNORE;
    int result = request(pamh, OP_UNLOCK, password, NULL, &options);
    /* Used once: replacing the entry runs its cleanup, which wipes the password now rather than when the
     * application ends the PAM handle, maybe hours later. */
    pam_set_data(pamh, DATA_KEY, NULL, NULL);
    return result;
}

PAM_EXTERN int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void) pamh; (void) flags; (void) argc; (void) argv;
    return PAM_SUCCESS;
}

PAM_EXTERN int pam_sm_chauthtok(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    if (!(flags & PAM_UPDATE_AUTHTOK)) return PAM_IGNORE;
    struct options options;
    parse_options(argc, argv, &options);
    /* An administrator resetting someone's password has no old password; never ask root for the user's. */
    const void *old = NULL;
    pam_get_item(pamh, PAM_OLDAUTHTOK, &old);
    const char *name = NULL;
    if (old == NULL && getuid() == 0 && (pam_get_user(pamh, &name, NULL) != PAM_SUCCESS || name == NULL
                                         || strcmp(name, "root") != 0)) {
        pam_syslog(pamh, LOG_NOTICE, "no old password (an administrator's reset); the login collection keeps its password");
        return PAM_IGNORE;
    }
    const char *current = old != NULL ? old : get_token(pamh, PAM_OLDAUTHTOK, NULL, &options);
    if (current == NULL) return PAM_IGNORE;
    const char *replacement = get_token(pamh, PAM_AUTHTOK, NULL, &options);
    if (replacement == NULL || strlen(current) > PASSWORD_MAX || strlen(replacement) > PASSWORD_MAX)
        return PAM_IGNORE;
    return request(pamh, OP_CHANGE, current, replacement, &options);
}
