// SPDX-License-Identifier: Apache-2.0
// One method call awaiting its reply: the libdbus pending call and the Swift continuation it resumes.

import DBusWire

/// A method call in flight. Loop-thread confined; libdbus keeps a retained reference as the notify user data.
final class PendingCall {
    let id: UInt64
    /// The `DBusPendingCall`; ``ConnectionCore`` owns one reference until completion or cancellation.
    let pointer: OpaquePointer
    unowned let core: ConnectionCore
    private var continuation: CheckedContinuation<Message, any Error>?

    init(id: UInt64, pointer: OpaquePointer, core: ConnectionCore,
         continuation: CheckedContinuation<Message, any Error>) {
        self.id = id
        self.pointer = pointer
        self.core = core
        self.continuation = continuation
    }

    /// Resumes the awaiting task once; later calls do nothing.
    func resume(with result: Result<Message, any Error>) {
        continuation?.resume(with: result)
        continuation = nil
    }
}
