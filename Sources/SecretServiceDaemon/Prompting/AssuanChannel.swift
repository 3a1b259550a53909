// SPDX-License-Identifier: Apache-2.0
// The I/O under an Assuan connection: a dedicated reader thread, non-blocking sends, and child shutdown.

#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Moves lines between a child process and Swift concurrency.
///
/// Reads block, so they run on one dedicated thread per channel that `poll`s the child's socket and a wake-up
/// socket; parsed lines arrive in ``lines``. Sends never block (`MSG_DONTWAIT`, `MSG_NOSIGNAL`): our commands are
/// tiny, so a full socket buffer means the peer stopped reading and is treated as a broken connection.
///
/// When reading ends (end of file, a protocol error, or a close request) the thread waits for a close request,
/// reaps the child (SIGTERM, then SIGKILL, for ``CloseMode/terminate``), closes every descriptor and resumes
/// whoever awaits ``close(_:)``. The thread keeps the channel alive until then, so a dropped channel still stops
/// its child once ``requestClose(_:)`` was called.
final class AssuanChannel: Sendable {
    /// How to stop the child.
    enum CloseMode: Sendable, Equatable {
        /// The child was told `BYE`: give it the grace period to exit by itself, then escalate.
        case graceful
        /// Cancellation or a broken conversation: SIGTERM now, SIGKILL after the grace period.
        case terminate
    }

    private struct State {
        var mode: CloseMode?
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// The child is reaped and the descriptors are closed.
        var finished = false
    }

    /// The child at the other end.
    let child: ChildProcess
    /// Lines from the child, comments left out. Ends at end of file; throws ``AssuanError`` on a protocol error.
    let lines: AsyncThrowingStream<AssuanLine, any Error>

    private let continuation: AsyncThrowingStream<AssuanLine, any Error>.Continuation
    private let wakeReader: Int32
    private let wakeWriter: Int32
    private let grace: Duration
    private let state = Mutex(State())

    /// The longest line we accept (Assuan's limit is 1000 bytes; a little slack for sloppy servers).
    static let maximumLineLength = 4096
    /// Lines buffered for a consumer that is not reading; more than this and the server is misbehaving.
    static let maximumQueuedLines = 256

    // MARK: - Opening

    /// Starts the reader thread for `child`. On failure the child is killed and reaped.
    /// - Parameters:
    ///   - child: A freshly spawned child.
    ///   - grace: How long each shutdown step may take.
    /// - Throws: ``AssuanError/launchFailed(_:)`` when the wake-up socket cannot be created.
    static func open(_ child: ChildProcess, grace: Duration) throws(AssuanError) -> AssuanChannel {
        var wake: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, type, 0, &wake) == 0 else {
            let code = errno
            child.reap(terminate: true, grace: .zero)
            Glibc.close(child.socket)
            throw .launchFailed("socketpair failed: errno \(code)")
        }
        return AssuanChannel(child: child, wakeReader: wake[0], wakeWriter: wake[1], grace: grace)
    }

    private init(child: ChildProcess, wakeReader: Int32, wakeWriter: Int32, grace: Duration) {
        self.child = child
        self.wakeReader = wakeReader
        self.wakeWriter = wakeWriter
        self.grace = grace
        (lines, continuation) = AsyncThrowingStream.makeStream(
            of: AssuanLine.self, bufferingPolicy: .bufferingOldest(Self.maximumQueuedLines))
        // A consumer cancelled while waiting for a line: stop the child at once, even before its owner closes.
        continuation.onTermination = { [weak self] reason in
            if case .cancelled = reason { self?.requestClose(.terminate) }
        }
        startThread()
    }

    // MARK: - Sending and closing

    /// Sends `bytes` without blocking.
    /// - Throws: ``AssuanError/disconnected`` once closed; ``AssuanError/sendFailed(_:)`` when the peer is gone
    ///   or not reading.
    func send(_ bytes: [UInt8]) throws(AssuanError) {
        try state.withLock { state throws(AssuanError) in
            // Under the lock, so the descriptor cannot be closed (and its number reused) under us.
            guard !state.finished else { throw .disconnected }
            var offset = 0
            while offset < bytes.count {
                let sent = bytes.withUnsafeBytes { buffer in
                    Glibc.send(child.socket, buffer.baseAddress! + offset, buffer.count - offset,
                               Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                if sent < 0 {
                    if errno == EINTR { continue }
                    throw .sendFailed(errno)
                }
                offset += sent
            }
        }
    }

    /// Asks the thread to stop the child and finish, without waiting. A later ``CloseMode/terminate`` overrides
    /// an earlier ``CloseMode/graceful`` if the thread has not acted on it yet.
    func requestClose(_ mode: CloseMode) {
        state.withLock { state in request(mode, &state) }
    }

    /// Stops the child and waits until it is reaped and the descriptors are closed. Runs to completion even in a
    /// cancelled task: the caller must be able to rely on the child being gone afterwards.
    func close(_ mode: CloseMode) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                guard !state.finished else { return true }
                state.waiters.append(waiter)
                request(mode, &state)
                return false
            }
            if done { waiter.resume() }
        }
    }

    private func request(_ mode: CloseMode, _ state: inout State) {
        guard !state.finished, state.mode != .terminate else { return }
        state.mode = mode
        var byte: UInt8 = 1
        _ = Glibc.send(wakeWriter, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
    }

    // MARK: - Thread

    private func startThread() {
        DetachedThread.start { self.run() }
    }

    private func run() {
        if let failure = readLines() {
            continuation.finish(throwing: failure)
        } else {
            continuation.finish()
        }
        let mode = waitForCloseRequest()
        child.reap(terminate: mode == .terminate, grace: grace)
        let waiters = state.withLock { state in
            state.finished = true
            Glibc.close(child.socket)
            Glibc.close(wakeReader)
            Glibc.close(wakeWriter)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Reads and forwards lines until end of file, a close request, a departed consumer or a protocol error.
    /// - Returns: The protocol error, if that is what ended it.
    private func readLines() -> AssuanError? {
        var buffer: AssuanLineBuffer
        do {
            buffer = try AssuanLineBuffer(capacity: Self.maximumLineLength)
        } catch {
            return .noSecureMemory("\(error)")
        }
        var descriptors = [pollfd(fd: child.socket, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)]
        while true {
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            if poll(&descriptors, 2, -1) < 0 {
                if errno == EINTR { continue }
                return .protocolViolation("poll failed: errno \(errno)")
            }
            if descriptors[1].revents != 0 { return nil }
            guard descriptors[0].revents != 0 else { continue }
            let count = buffer.read(from: child.socket)
            if count == 0 { return nil }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return nil  // ECONNRESET and the like: the child is gone, which reads as end of file.
            }
            var overflow = false
            var unparsed: AssuanError?
            let consumerListening = buffer.drainLines { raw in
                let line: AssuanLine
                do {
                    line = try AssuanLine(parsing: raw)
                } catch {
                    unparsed = .noSecureMemory("\(error)")
                    return false
                }
                if case .comment = line { return true }
                switch continuation.yield(line) {
                case .enqueued: return true
                case .dropped: overflow = true; return false
                case .terminated: return false
                @unknown default: return false
                }
            }
            if let unparsed { return unparsed }
            if overflow { return .protocolViolation("more than \(Self.maximumQueuedLines) unread lines") }
            if !consumerListening { return nil }
            if buffer.isFull { return .protocolViolation("a line longer than \(Self.maximumLineLength) bytes") }
        }
    }

    /// Blocks until someone asked to close.
    private func waitForCloseRequest() -> CloseMode {
        while true {
            if let mode = state.withLock({ $0.mode }) { return mode }
            var descriptor = pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, -1)
            var drain = [UInt8](repeating: 0, count: 16)
            _ = Glibc.read(wakeReader, &drain, drain.count)
        }
    }
}
