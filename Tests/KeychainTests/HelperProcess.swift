// SPDX-License-Identifier: Apache-2.0
// One run of keychain-race-helper: started, told when to go, and its output collected.

import Foundation
import Synchronization

/// A helper process that prints `ready`, waits for a line on standard input, works, and exits.
final class HelperProcess: Sendable {
    struct Output: Sendable {
        var status: Int32
        var lines: [String]
        var stderr: String
    }

    private let process: Process
    private let input: FileHandle
    private let output: FileHandle
    private let errors: FileHandle
    private let exit: ExitSignal

    /// Resumes waiters when the process ends, whether they started waiting before or after.
    private final class ExitSignal: Sendable {
        private let state = Mutex<(status: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))

        func finish(_ status: Int32) {
            let waiters = state.withLock { state in
                state.status = status
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: status) }
        }

        func wait() async -> Int32 {
            await withCheckedContinuation { continuation in
                let status: Int32? = state.withLock { state in
                    if state.status == nil { state.waiters.append(continuation) }
                    return state.status
                }
                if let status { continuation.resume(returning: status) }
            }
        }
    }

    /// Launches `executable` with `arguments`, and `environment` in place of ours when given.
    init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws {
        let inputPipe = Pipe()
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = inputPipe
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        input = inputPipe.fileHandleForWriting
        output = outputPipe.fileHandleForReading
        errors = errorPipe.fileHandleForReading
        let exit = ExitSignal()
        self.exit = exit
        process.terminationHandler = { exit.finish($0.terminationStatus) }
        try process.run()
    }

    /// Reads standard output until the `ready` line (on a thread of its own: the read blocks).
    func waitUntilReady() async throws {
        let handle = output
        let line: String = await withCheckedContinuation { continuation in
            Thread {
                var bytes = Data()
                while !bytes.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    bytes.append(chunk)
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }.start()
        }
        guard line == "ready\n" else {
            throw HelperFailure(description: "helper did not get ready: \(line) \(await finish().stderr)")
        }
    }

    /// Sends the starting line.
    func start() {
        input.write(Data("go\n".utf8))
    }

    /// Waits for the exit and returns the rest of the output.
    func finish() async -> Output {
        try? input.close()
        let status = await exit.wait()
        let rest = output.readDataToEndOfFile()
        let lines = String(decoding: rest, as: UTF8.self).split(separator: "\n").map(String.init)
        return Output(status: status, lines: lines,
                      stderr: String(decoding: errors.readDataToEndOfFile(), as: UTF8.self))
    }
}

struct HelperFailure: Error, CustomStringConvertible {
    let description: String
}
