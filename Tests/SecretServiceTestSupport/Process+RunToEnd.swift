// SPDX-License-Identifier: Apache-2.0
// Running a child process to its end from async test code.

public import Foundation

extension Process {
    /// Starts the process and waits for it to exit; its termination status. The wait holds no thread: the
    /// termination handler resumes the caller.
    /// - Throws: what `run()` throws when the process cannot be started.
    public func runToEnd() async throws -> Int32 {
        try await withCheckedThrowingContinuation { continuation in
            terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try run()
            } catch {
                terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
    }
}
