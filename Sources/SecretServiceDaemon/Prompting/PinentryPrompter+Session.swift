// SPDX-License-Identifier: Apache-2.0
// Runs one pinentry for one prompt: launch, options, the dialog, BYE, and the timeout around all of it.

import Logging

extension PinentryPrompter {
    private enum Outcome<T: Sendable>: Sendable {
        case finished(T?)
        case timedOut
    }

    /// Runs `dialog` against a freshly started pinentry, racing ``Configuration/timeout``.
    ///
    /// Both the timer and the conversation are child tasks, so cancelling the caller cancels both; a cancelled
    /// conversation terminates its program, and the task group returns only after the program is reaped.
    /// - Parameters:
    ///   - windowID: The client's window, for `OPTION parent-wid`.
    ///   - caller: The client's unique bus name, for the log.
    ///   - dialog: The commands of this prompt; returns `nil` when the user dismissed it.
    /// - Returns: What `dialog` returned, or `nil` on failure, timeout or cancellation.
    func withPinentry<T: Sendable>(
        windowID: String, caller: String,
        _ dialog: @escaping @Sendable (PinentrySession) async throws(AssuanError) -> T?
    ) async -> T? {
        let timeout = configuration.timeout
        let logger = self.logger
        return await withTaskGroup(of: Outcome<T>.self) { group in
            group.addTask { .finished(await self.converse(windowID: windowID, caller: caller, dialog)) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .timedOut
            }
            let first = await group.next()
            group.cancelAll()
            if case .finished(let value)? = first { return value }
            if !Task.isCancelled {
                logger.info("pinentry did not finish within \(timeout); the prompt is dismissed",
                            metadata: ["dbus.sender": "\(caller)"])
            }
            return nil
        }
    }

    /// Launches the program, sets it up, runs `dialog`, and says `BYE`; any failure terminates the program.
    private func converse<T: Sendable>(
        windowID: String, caller: String,
        _ dialog: @Sendable (PinentrySession) async throws(AssuanError) -> T?
    ) async -> T? {
        let configuration = self.configuration
        let metadata: Logger.Metadata = ["dbus.sender": "\(caller)"]
        // Already dismissed (the timer raced us, or the client left): do not start a program only to kill it.
        if Task.isCancelled { return nil }
        guard let executable = ChildProcess.resolve(configuration.program, environment: configuration.environment)
        else {
            logger.info("pinentry program '\(configuration.program)' not found; the prompt is dismissed",
                        metadata: metadata)
            return nil
        }
        let connection: AssuanConnection
        do {
            connection = try await AssuanConnection.launch(
                executable: executable, arguments: configuration.arguments, environment: configuration.environment,
                grace: configuration.terminationGracePeriod)
        } catch {
            report(error, program: executable, metadata: metadata)
            return nil
        }
        configuration.observer?(.launched(pid: connection.pid))
        let session = PinentrySession(connection: connection, observer: configuration.observer)
        do {
            try await session.setOptions(configuration, windowID: windowID)
            let result = try await dialog(session)
            if result == nil { logger.debug("the user dismissed the pinentry dialog", metadata: metadata) }
            _ = try? await session.send("BYE")
            await connection.close(.graceful)
            return result
        } catch {
            report(error, program: executable, metadata: metadata)
            await connection.close(.terminate)
            return nil
        }
    }

    private func report(_ error: AssuanError, program: String, metadata: Logger.Metadata) {
        if error == .cancelled {
            logger.debug("pinentry prompt cancelled", metadata: metadata)
        } else {
            logger.info("pinentry \(program) failed: \(error); the prompt is dismissed", metadata: metadata)
        }
    }
}
