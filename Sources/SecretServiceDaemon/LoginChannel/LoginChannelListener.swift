// SPDX-License-Identifier: Apache-2.0
// The per-user UNIX socket the PAM module talks to: bound at start, served by one thread, gone at exit.

#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization

/// A request that passed the credential check, with the connection to answer it on.
struct LoginConnection: Sendable {
    let descriptor: Int32
    let request: LoginRequest

    /// Sends the one-byte answer, wipes the passwords and closes the connection.
    func finish(_ outcome: LoginOutcome) {
        request.wipe()
        var byte = outcome.rawValue
        _ = Glibc.send(descriptor, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        Glibc.close(descriptor)
    }
}

/// Listens on `$XDG_RUNTIME_DIR/coffer/control` for the PAM module.
///
/// Only this user's processes and root may talk to it: the directory is private (0700) and each connection's
/// kernel-reported credentials (`SO_PEERCRED`) are checked before a byte is read, so a password never comes from,
/// nor is acted on for, another user. A lock file held for the daemon's life makes sure one cofferd per user owns
/// the socket; a second one (another bus, a test) runs without it.
///
/// Accepting and reading block, so they run on one dedicated thread that `poll`s the socket and a wake-up socket;
/// accepted requests arrive in ``connections`` one at a time, in order.
final class LoginChannelListener: Sendable {
    /// The socket's path.
    let path: String
    /// Requests from permitted peers. Ends when the listener closes.
    let connections: AsyncStream<LoginConnection>

    private let continuation: AsyncStream<LoginConnection>.Continuation
    private let listening: Int32
    private let lockFile: Int32
    private let wakeReader: Int32
    private let wakeWriter: Int32
    private let logger: Logger
    /// Whoever waits in ``close()``, and whether the thread is done; shared by the thread and the closers.
    private let ending = Mutex<(finished: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// How long a peer may take to send its request.
    static let receiveTimeoutSeconds = 5
    /// Requests waiting for the store; more means a flood, and the extra ones are answered ``LoginOutcome/failed``.
    static let maximumQueued = 8

    /// Opens the socket in `directory` (created 0700 if missing).
    /// - Returns: `nil` when another cofferd of this user already serves it, or it cannot be set up (logged).
    static func open(directory: String, logger: Logger) -> LoginChannelListener? {
        let uid = getuid()
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            logger.warning("cannot create the login channel directory; PAM unlock is off",
                           metadata: ["path": "\(directory)", "errno": "\(errno)"])
            return nil
        }
        var info = stat()
        // Not a symlink, ours, and closed to others: else someone could read or replace the socket.
        guard lstat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == uid,
              info.st_mode & 0o077 == 0
        else {
            logger.warning("the login channel directory is not a private directory of this user; PAM unlock is off",
                           metadata: ["path": "\(directory)"])
            return nil
        }
        let lockFile = Glibc.open(directory + "/control.lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard lockFile >= 0 else { return nil }
        guard flock(lockFile, LOCK_EX | LOCK_NB) == 0 else {
            logger.info("another cofferd of this user serves the login channel", metadata: ["path": "\(directory)"])
            Glibc.close(lockFile)
            return nil
        }
        let path = directory + "/control"
        guard let listening = bind(path, logger: logger) else {
            Glibc.close(lockFile)
            return nil
        }
        var wake: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, type, 0, &wake) == 0 else {
            Glibc.close(listening)
            unlink(path)
            Glibc.close(lockFile)
            return nil
        }
        return LoginChannelListener(path: path, listening: listening, lockFile: lockFile, wake: (wake[0], wake[1]),
                                    logger: logger)
    }

    /// A listening socket at `path`, replacing a stale one (the lock says nobody serves it).
    private static func bind(_ path: String, logger: Logger) -> Int32? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            logger.warning("the login channel path is too long for a UNIX socket; PAM unlock is off")
            return nil
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        unlink(path)
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { return nil }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, chmod(path, 0o600) == 0, listen(socket, 8) == 0 else {
            logger.warning("cannot listen on the login channel; PAM unlock is off",
                           metadata: ["path": "\(path)", "errno": "\(errno)"])
            Glibc.close(socket)
            return nil
        }
        return socket
    }

    private init(path: String, listening: Int32, lockFile: Int32, wake: (Int32, Int32), logger: Logger) {
        self.path = path
        self.listening = listening
        self.lockFile = lockFile
        (wakeReader, wakeWriter) = wake
        self.logger = logger
        (connections, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(Self.maximumQueued))
        startThread()
    }

    /// Stops accepting and waits until the thread has removed the socket, released the lock and ended
    /// ``connections``: a cofferd replacing this one takes the channel over as soon as it holds the data directory.
    func close() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let finished = ending.withLock { state -> Bool in
                if !state.finished { state.waiters.append(waiter) }
                return state.finished
            }
            if finished {
                waiter.resume()
            } else {
                requestClose()
            }
        }
    }

    /// Wakes the thread to stop, without waiting.
    func requestClose() {
        var byte: UInt8 = 1
        // The wake-up socket stays open until the thread is done, and the thread checks `finished` first.
        ending.withLock { state in
            if !state.finished { _ = Glibc.send(wakeWriter, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        }
    }

    // MARK: - Thread

    private func startThread() {
        let retained = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { argument in
            let listener = Unmanaged<LoginChannelListener>.fromOpaque(argument!).takeRetainedValue()
            listener.run()
            return nil
        }, retained)
        precondition(result == 0, "pthread_create failed: \(result)")
        pthread_detach(thread)
    }

    private func run() {
        var descriptors = [pollfd(fd: listening, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)]
        while true {
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            if poll(&descriptors, 2, -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            if descriptors[1].revents != 0 { break }
            guard descriptors[0].revents != 0 else { continue }
            let connection = accept(listening, nil, nil)
            guard connection >= 0 else { continue }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            guard let request = receive(on: connection) else {
                Glibc.close(connection)
                continue
            }
            let accepted = LoginConnection(descriptor: connection, request: request)
            switch continuation.yield(accepted) {
            case .enqueued: break
            case .dropped, .terminated: accepted.finish(.failed)
            @unknown default: accepted.finish(.failed)
            }
        }
        unlink(path)
        Glibc.close(listening)
        Glibc.close(lockFile)
        continuation.finish()
        let waiters = ending.withLock { state in
            state.finished = true
            Glibc.close(wakeReader)
            Glibc.close(wakeWriter)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Checks the peer and reads its request; `nil` (logged) when the peer is not allowed or the request is bad.
    private func receive(on connection: Int32) -> LoginRequest? {
        guard let peer = Self.peerUID(of: connection), peer == getuid() || peer == 0 else {
            logger.warning("refused a login channel connection from another user")
            return nil
        }
        var timeout = timeval(tv_sec: Self.receiveTimeoutSeconds, tv_usec: 0)
        _ = setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        do {
            return try LoginRequest.read(from: connection)
        } catch .malformed {
            logger.warning("refused a malformed login channel request")
            var byte = LoginOutcome.refused.rawValue
            _ = Glibc.send(connection, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            return nil
        } catch {
            logger.warning("a login channel request was not read", metadata: ["reason": "\(error)"])
            return nil
        }
    }

    /// The connecting process's user, as the kernel recorded it at `connect` (`SO_PEERCRED`).
    static func peerUID(of connection: Int32) -> uid_t? {
        // `struct ucred` (pid, uid, gid): Swift's Glibc module is built without _GNU_SOURCE, which declares it.
        var credentials: (pid: pid_t, uid: uid_t, gid: gid_t) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
              Int(length) == MemoryLayout.size(ofValue: credentials)
        else { return nil }
        return credentials.uid
    }
}
